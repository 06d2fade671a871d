// A text generation workload's speculative decoding and prefix caching (docs/spec.md,
// "Speculative decoding and prefix caching"): read, checked against the model and the engine.

#include "reader.hpp"

#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

namespace rightsize {

double SpeculativeDecoding::tokens_per_step() const {
  const double a = acceptance_rate;
  const auto k = static_cast<double>(draft_tokens);
  // Leviathan et al. 2023, eq. 1: the target's own token plus the accepted prefix of the draft.
  return a >= 1.0 ? k + 1.0 : (1.0 - std::pow(a, k + 1.0)) / (1.0 - a);
}

double SpeculativeDecoding::proposed_acceptance() const {
  return (tokens_per_step() - 1.0) / static_cast<double>(draft_tokens);
}

} // namespace rightsize

namespace rightsize::spec_reader {

using detail::Range;

namespace {

// Beyond this many draft tokens per step the expected gain is under 1% of a token at any
// acceptance rate below 0.75, and the engines' own examples stay at 1 to 8 (SGLang's auto
// defaults 3-5 steps, TensorRT-LLM's MTP max_draft_len 3; docs/spec.md).
constexpr double k_max_draft_tokens = 16;

// The families whose published checkpoints carry an MTP module that engines draft with: DeepSeek-V3
// (config.json num_nextn_predict_layers 1; vLLM "deepseek_mtp", SGLang NEXTN, TensorRT-LLM
// MTPDecodingConfig) and Qwen3-Next (vLLM "qwen3_next_mtp", vllm/config/speculative.py
// @002e77c1f0ef MTPModelTypes).
bool has_mtp_module(const ModelArch& m) {
  return m.family == "deepseek_v3" || m.family == "qwen3_next";
}

SpeculativeDecoding read_speculative(const FieldReader& r, const Spec& spec) {
  r.reject_unknown({"method", "draft_tokens", "acceptance_rate", "draft_model"});
  SpeculativeDecoding s;
  if (!r.has("method")) {
    r.fail_plain("speculative decoding needs \"method\": mtp, eagle or draft");
  }
  s.method = r.choice("method", k_speculative_method_names);
  if (!r.has("draft_tokens")) {
    r.fail_plain("speculative decoding needs \"draft_tokens\": the tokens drafted per step");
  }
  s.draft_tokens = r.integer("draft_tokens", Range{1, k_max_draft_tokens});
  if (!r.has("acceptance_rate")) {
    r.fail_plain("speculative decoding needs \"acceptance_rate\" (0, 1], which depends on the "
                 "model, the drafter and the text: rightsize does not assume one (typical "
                 "values: docs/spec.md)");
  }
  s.acceptance_rate = r.number("acceptance_rate", Range{0.0, 1.0, true});
  s.draft_model = r.optional_string("draft_model");
  const Engine engine = spec.workload.inference.engine;
  const DecodingFeatures& runs = engine_traits(engine).decoding;
  if (!runs.runs(s.method)) {
    r.member("method").fail(fmt::format("{} does not run {} speculative decoding ({})",
                                        engine_traits(engine).display_name,
                                        to_string(s.method),
                                        runs.speculative_source));
  }
  if (s.method == SpeculativeMethod::mtp && s.draft_model) {
    r.member("draft_model")
        .fail("has no meaning for mtp: the multi-token-prediction module is part of the "
              "model's own checkpoint");
  }
  if (s.method == SpeculativeMethod::mtp && !has_mtp_module(spec.model)) {
    r.member("method").fail(fmt::format("{} checkpoints carry no multi-token-prediction module "
                                        "that rightsize knows of (it knows deepseek_v3 and "
                                        "qwen3_next): use eagle or draft",
                                        spec.model.family));
  }
  if (s.method == SpeculativeMethod::draft) {
    if (!s.draft_model) {
      r.fail_plain("method draft needs \"draft_model\": the draft model's config.json or "
                   "folder, relative to the spec");
    }
    s.draft = read_model(r.member("draft_model"), std::filesystem::path(spec.file).parent_path());
  }
  return s;
}

} // namespace

void read_decoding_features(Spec& spec, const FieldReader& workload) {
  auto& w = spec.workload.inference;
  const EngineTraits& traits = engine_traits(w.engine);
  if (workload.has("prefix_cache_hit_rate")) {
    w.prefix_cache_hit_rate = workload.number("prefix_cache_hit_rate", Range{0.0, 1.0});
    if (w.prefix_cache_hit_rate > 0 && !traits.decoding.prefix_cache) {
      workload.member("prefix_cache_hit_rate")
          .fail(fmt::format("{} has no prefix cache ({})",
                            traits.display_name,
                            traits.decoding.prefix_cache_source));
    }
  }
  if (const auto r = workload.optional_object("speculative")) {
    w.speculative = read_speculative(*r, spec);
  }
}

void refuse_decoding_features(const FieldReader& workload, const std::string& why) {
  for (const char* key : {"speculative", "prefix_cache_hit_rate"}) {
    if (workload.has(key)) {
      workload.member(key).fail_plain(why);
    }
  }
}

} // namespace rightsize::spec_reader
