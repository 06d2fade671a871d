// The engine's command line as data/deploy.json's recipe spells it, with where each value comes
// from (docs/deploy.md, "The engine's arguments").

#include "serving.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace rightsize::serving {

namespace {

// The recipe's speculative-decoding words with the spec's values in place (data/deploy.json).
std::vector<std::string> speculative_words(const ServingSettings& s, const EngineRecipe& r) {
  const SpeculativeDecoding& sp = *s.speculative;
  const std::string method(to_string(sp.method));
  const auto name = r.speculative->methods.find(method);
  if (name == r.speculative->methods.end()) {
    throw InputError(
        "workload.speculative.method",
        fmt::format("data/deploy.json's {} recipe names no {} method", s.engine, method));
  }
  const std::string draft =
      s.draft_model_uri.empty()
          ? std::string()
          : replace_all(r.speculative->draft_words, "{draft_model}", s.draft_model_uri);
  std::vector<std::string> out;
  for (const std::string& w : r.speculative->words) {
    std::string word = replace_all(w, "{method}", name->second);
    word = replace_all(word, "{draft_tokens}", std::to_string(sp.draft_tokens));
    word = replace_all(word, "{verify_tokens}", std::to_string(sp.draft_tokens + 1));
    if (word == "{draft}") { // whole words of their own: a flag and its value
      for (std::size_t at = 0; at < draft.size();) {
        const std::size_t end = std::min(draft.find(' ', at), draft.size());
        out.push_back(draft.substr(at, end - at));
        at = end + 1;
      }
      continue;
    }
    out.push_back(replace_all(word, "{draft}", draft));
  }
  return out;
}

} // namespace

std::vector<std::string> engine_command_line(const ServingSettings& s,
                                             const EngineRecipe& r,
                                             std::vector<std::string>& notes) {
  std::vector<std::string> a = r.command;
  notes.assign(a.size(), "");
  const auto word = [&](std::string w, std::string note = {}) {
    a.push_back(std::move(w));
    notes.push_back(std::move(note));
  };
  if (!r.model_arg.empty()) {
    word(r.model_arg);
  }
  word(s.model_uri, "the checkpoint to serve");
  const auto add = [&](const std::string& role, const std::string& value, std::string note) {
    const std::string& flag = r.arg(role);
    if (!flag.empty() && !value.empty()) {
      word(flag);
      word(value, std::move(note));
    }
  };
  add("served_model_name", s.name, "the name clients ask for, and the model label of its metrics");
  if (!r.host_arg.empty()) {
    word(r.host_arg);
    word("0.0.0.0",
         s.role.empty() ? "reachable through the Service"
                        : "reachable by llm-d's router and the other pool");
  }
  if (!r.port_arg.empty()) {
    word(r.port_arg);
    word(std::to_string(engine_port(s, r)),
         s.role == "decode" ? "behind llm-d's routing sidecar, which takes the engine's port "
                              "(data/deploy.json)"
                            : "the engine's port (data/deploy.json)");
  }
  const int ranks = s.layout.attention_dp;
  const bool per_rank = ranks > 1 && r.attention_dp_per_rank;
  if (ranks > 1 && r.arg("attention_dp_size").empty()) {
    throw InputError("layout",
                     fmt::format("the plan runs attention data-parallel ({} groups), and this "
                                 "engine's recipe in data/deploy.json has no flag for it",
                                 ranks));
  }
  add("tensor_parallel",
      std::to_string(per_rank ? s.layout.attention_tp() : s.layout.tp),
      per_rank ? "each attention data-parallel rank's tensor-parallel size (tp / ranks)"
               : "the plan's tensor-parallel size");
  if (ranks > 1) {
    if (!r.arg("attention_dp").empty()) {
      word(r.arg("attention_dp"), "each attention group holds its own requests' KV cache");
    }
    add("attention_dp_size", std::to_string(ranks), "the plan's attention data-parallel groups");
  }
  if (s.layout.pp > 1) {
    add("pipeline_parallel", std::to_string(s.layout.pp), "the plan's pipeline stages");
  }
  if (s.layout.ep > 1) {
    if (!r.arg("expert_parallel").empty()) {
      word(r.arg("expert_parallel"), "the plan's experts spread over the TP group");
    }
    add("expert_parallel_size", std::to_string(s.layout.ep), "the plan's expert-parallel size");
  }
  const char* unit = s.images ? "images" : "sequences";
  add("max_model_len",
      std::to_string(s.max_model_len),
      s.embedding ? fmt::format("tokens per {} of the spec: longer inputs are refused",
                                s.images ? "image" : "sequence")
                  : "input + output tokens of the spec: the length the KV cache was sized for");
  add("max_num_seqs",
      std::to_string(per_rank ? (s.capacity_per_replica + ranks - 1) / ranks
                              : s.capacity_per_replica),
      (per_rank ? fmt::format("1/{} of the ", ranks) : std::string()) +
          (s.role == "prefill"
               ? std::string("prompts one prefill replica holds at once: all whose KV cache "
                             "fits (each only until it is sent)")
           : s.latency_bound
               ? fmt::format("capacity per replica: the most {} at which {} (docs/deploy.md)",
                             unit,
                             s.embedding ? "the latency target holds" : "TTFT and TPOT hold")
           : s.engine_bound
               ? fmt::format("capacity per replica: the engine's cap on {} (more fit; no latency "
                             "target stops it sooner)",
                             unit)
               : fmt::format("capacity per replica: all the {} that fit (no latency target "
                             "stops it sooner)",
                             unit)));
  add("memory_fraction",
      fmt::format("{:.2f}", s.memory_fraction),
      "the memory fraction the estimate assumed (data/memory.json or --assume)");
  add("kv_cache_dtype", s.kv_cache_dtype, "the plan's KV-cache format");
  add("quantization", s.quantization, "the plan's weight format, made on load");
  if (s.embedding) {
    // The role's words as they stand ("--runner pooling", "--is-embedding").
    const std::string& flags = r.arg("embedding");
    std::size_t start = 0;
    while (start < flags.size()) {
      const std::size_t end = std::min(flags.find(' ', start), flags.size());
      if (end > start) {
        word(flags.substr(start, end - start),
             end == flags.size() ? fmt::format("an embedding workload: the engine pools each {} "
                                               "into a vector and decodes nothing",
                                               s.images ? "image" : "sequence")
                                 : "");
      }
      start = end + 1;
    }
  }
  add("limit_mm_per_prompt",
      s.limit_mm_per_prompt,
      "the spec's images per request: more are refused, and the engine sizes its multimodal "
      "budget for these (0: text only)");
  if (s.speculative) {
    const std::vector<std::string> words = speculative_words(s, r);
    for (std::size_t i = 0; i < words.size(); ++i) {
      word(words[i],
           i + 1 == words.size()
               ? fmt::format("the spec's speculative decoding: {} with {} draft tokens per step",
                             to_string(s.speculative->method),
                             s.speculative->draft_tokens)
               : "");
    }
  }
  if (s.prefix_cache) {
    for (const std::string& w : r.prefix_cache_args) {
      word(w, "the spec counts on prefix cache hits (workload.prefix_cache_hit_rate)");
    }
  }
  if (!s.role.empty()) {
    const auto& d = *r.disaggregation;
    const std::vector<std::string>& words = s.role == "prefill" ? d.prefill_args : d.decode_args;
    for (std::size_t i = 0; i < words.size(); ++i) {
      word(words[i],
           i + 1 == words.size()
               ? fmt::format("the {} pool: {} (data/deploy.json)",
                             s.role,
                             s.role == "prefill" ? "sends each prompt's KV cache to a decode pod"
                                                 : "receives the prompt's KV cache and decodes")
               : "");
    }
  }
  return a;
}

std::string shell_quote(const std::string& word) {
  const bool plain = std::all_of(word.begin(), word.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
           std::string_view("-_./:=,@%+$()").find(ch) != std::string_view::npos;
  });
  if (plain && !word.empty()) {
    return word;
  }
  std::string out = "'";
  for (const char ch : word) {
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  }
  return out + "'";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

} // namespace rightsize::serving
