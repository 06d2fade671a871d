// A text generation workload (docs/spec.md, "Workload"): its lengths, targets and the images of
// a vision-language model's prompts, and its lengths against the model's context.

#include "reader.hpp"

#include <rightsize/core/version.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace rightsize {

std::string InferenceWorkload::describe_input() const {
  if (images_per_request == 0) {
    return fmt::format("{} in", input_tokens);
  }
  return fmt::format("{} in + {} image{} ({} tokens)",
                     input_tokens,
                     images_per_request,
                     images_per_request == 1 ? "" : "s",
                     image_tokens);
}

std::string InferenceWorkload::describe_lengths() const {
  if (length_histogram.size() <= 1) {
    return fmt::format("{} + {} out tokens", describe_input(), output_tokens);
  }
  return fmt::format("{} length bins, mean {:.0f} in{} + {:.0f} out tokens (longest request {})",
                     length_histogram.size(),
                     mean_prompt_tokens() - static_cast<double>(image_tokens),
                     images_per_request == 0 ? std::string()
                                             : fmt::format(" + {} image{} ({} tokens)",
                                                           images_per_request,
                                                           images_per_request == 1 ? "" : "s",
                                                           image_tokens),
                     mean_output_tokens(),
                     longest_request());
}

double InferenceWorkload::mean_prompt_tokens() const {
  if (length_histogram.empty()) {
    return static_cast<double>(prompt_tokens()) * ((1.0 + length_low_ratio) / 2.0);
  }
  double sum = 0;
  for (const LengthBin& b : length_histogram) {
    sum += b.share * static_cast<double>(b.input_tokens);
  }
  return sum + static_cast<double>(image_tokens);
}

double InferenceWorkload::mean_output_tokens() const {
  if (length_histogram.empty()) {
    return static_cast<double>(output_tokens) * ((1.0 + length_low_ratio) / 2.0);
  }
  double sum = 0;
  for (const LengthBin& b : length_histogram) {
    sum += b.share * static_cast<double>(b.output_tokens);
  }
  return sum;
}

long long InferenceWorkload::longest_request() const {
  long long longest = input_tokens + output_tokens;
  if (!length_histogram.empty()) {
    longest = 0;
    for (const LengthBin& b : length_histogram) {
      longest = std::max(longest, b.input_tokens + b.output_tokens);
    }
  }
  return longest + image_tokens;
}

} // namespace rightsize

namespace rightsize::spec_reader {

using detail::Range;

namespace {

// A latency target: milliseconds for the typical request (the mean), or an object naming the
// statistics it holds ({"p50": 300, "p99": 1500}, "mean" too), whose percentiles may not be
// looser at a lower percentile than at a higher one.
void read_latency_target(const FieldReader& r,
                         std::string_view key,
                         std::optional<Seconds>& mean,
                         std::vector<PercentileTarget>& percentiles) {
  if (!r.has(key)) {
    return;
  }
  const FieldReader v = r.member(key);
  if (!v.is_object()) {
    mean = milliseconds(r.number(key, Range::positive(1e9)));
    return;
  }
  v.reject_unknown({"mean", "p50", "p90", "p99"});
  if (v.json().empty()) {
    v.fail_plain("names no statistic: give milliseconds, or an object such as {\"p99\": 2000} "
                 "(mean, p50, p90, p99)");
  }
  if (auto ms = v.optional_number("mean", Range::positive(1e9))) {
    mean = milliseconds(*ms);
  }
  for (const int p : {50, 90, 99}) {
    const std::string name = fmt::format("p{}", p);
    const auto ms = v.optional_number(name, Range::positive(1e9));
    if (!ms) {
      continue;
    }
    if (!percentiles.empty() && percentiles.back().limit > milliseconds(*ms)) {
      v.member(name).fail(fmt::format("is below p{}'s {} ms: a higher percentile's target cannot "
                                      "be tighter than a lower one's",
                                      percentiles.back().percentile,
                                      percentiles.back().limit.si() * 1e3));
    }
    percentiles.push_back({p, milliseconds(*ms)});
  }
}

void read_targets(const FieldReader& r, InferenceTargets& t) {
  r.reject_unknown({"output_tokens_per_s", "ttft_ms", "tpot_ms", "requests_per_s"});
  t.output_tokens_per_s = r.optional_number("output_tokens_per_s", Range::positive(1e12));
  read_latency_target(r, "ttft_ms", t.ttft, t.ttft_percentiles);
  read_latency_target(r, "tpot_ms", t.tpot, t.tpot_percentiles);
  t.requests_per_s = r.optional_number("requests_per_s", Range::positive(1e9));
}

// {"process": "poisson"} or {"process": "gamma", "burstiness": 0.5}: an open process keeping
// the spec's concurrency in flight on average; {"process": "closed"} is the default.
void read_arrivals(const FieldReader& r, InferenceWorkload& w) {
  r.reject_unknown({"process", "burstiness"});
  if (!r.has("process")) {
    r.fail_plain("arrivals need \"process\": closed, poisson or gamma");
  }
  w.arrivals = r.choice("process", k_arrival_names);
  if (w.arrivals != ArrivalKind::closed && !w.concurrency) {
    r.member("process").fail_plain(
        "an open process keeps the spec's concurrency in flight on average: give "
        "workload.concurrency (an offline spec has no arrivals)");
  }
  if (w.arrivals == ArrivalKind::gamma) {
    if (!r.has("burstiness")) {
      r.fail_plain("gamma arrivals need \"burstiness\", the shape of their gaps (1: Poisson, "
                   "below 1: burstier; vLLM's --burstiness)");
    }
    w.burstiness = r.number("burstiness", Range{0.01, 100.0});
  } else if (r.has("burstiness")) {
    r.member("burstiness")
        .fail_plain(fmt::format("has no meaning for {} arrivals: it is the gamma process's "
                                "shape",
                                to_string(w.arrivals)));
  }
}

// [{"input_tokens": 512, "output_tokens": 128, "share": 3}, ...]: requests of each bin's lengths
// in proportion to its share (counts or fractions, scaled to sum to 1). The workload's
// input_tokens and output_tokens become the longest of the bins (docs/spec.md, "Length
// histograms").
void read_length_histogram(const FieldReader& r, InferenceWorkload& w) {
  for (const char* other : {"input_tokens", "output_tokens", "length_low_ratio"}) {
    if (r.has(other)) {
      r.member(other).fail_plain("give the lengths once: length_histogram's bins, or "
                                 "input_tokens, output_tokens and length_low_ratio, not both");
    }
  }
  const std::vector<FieldReader> bins = r.array("length_histogram");
  if (bins.empty() || bins.size() > limits::k_max_length_bins) {
    r.member("length_histogram")
        .fail_plain(fmt::format("must hold 1 to {} bins of {{\"input_tokens\", "
                                "\"output_tokens\", \"share\"}}, got {}",
                                limits::k_max_length_bins,
                                bins.size()));
  }
  double total = 0;
  w.input_tokens = 0;
  w.output_tokens = 0;
  for (const FieldReader& b : bins) {
    b.reject_unknown({"input_tokens", "output_tokens", "share"});
    LengthBin bin;
    bin.input_tokens = b.integer("input_tokens", Range{1, limits::k_max_tokens});
    bin.output_tokens = b.integer("output_tokens", Range{1, limits::k_max_tokens});
    bin.share = b.number("share", Range::positive(1e15));
    total += bin.share;
    w.input_tokens = std::max(w.input_tokens, bin.input_tokens);
    w.output_tokens = std::max(w.output_tokens, bin.output_tokens);
    w.length_histogram.push_back(bin);
  }
  // In order of length, bins of the same lengths as one: the same traffic gives the same
  // simulation and the same digest, whatever order the bins were written in.
  auto& bins_read = w.length_histogram;
  std::sort(bins_read.begin(), bins_read.end(), [](const LengthBin& a, const LengthBin& b) {
    return std::pair{a.input_tokens, a.output_tokens} < std::pair{b.input_tokens, b.output_tokens};
  });
  std::vector<LengthBin> merged;
  for (const LengthBin& bin : bins_read) {
    if (!merged.empty() && merged.back().input_tokens == bin.input_tokens &&
        merged.back().output_tokens == bin.output_tokens) {
      merged.back().share += bin.share;
    } else {
      merged.push_back(bin);
    }
  }
  bins_read = std::move(merged);
  // Shares that already sum to 1 are kept as written (0.6 stays 0.6 in the canonical form).
  if (std::abs(total - 1.0) > 1e-9) {
    for (LengthBin& bin : bins_read) {
      bin.share /= total;
    }
  }
}

} // namespace

// What generation and embedding workloads share: concurrency and the engine's settings.
void read_serving_engine(const FieldReader& r, InferenceWorkload& w) {
  w.concurrency = r.optional_integer("concurrency", Range{1, limits::k_max_concurrency});
  if (r.has("engine")) {
    w.engine = r.choice("engine", k_engine_names);
  }
  w.gpu_memory_utilization = r.optional_number("gpu_memory_utilization", Range{0.0, 1.0, true});
  w.max_num_batched_tokens =
      r.optional_integer("max_num_batched_tokens", Range{1, limits::k_max_tokens});
  w.max_num_seqs = r.optional_integer("max_num_seqs", Range{1, limits::k_max_concurrency});
  w.max_model_len = r.optional_integer("max_model_len", Range{1, limits::k_max_tokens});
  w.chunked_prefill = r.optional_boolean("chunked_prefill");
  w.length_low_ratio = r.optional_number("length_low_ratio", Range{0.0, 1.0, true}).value_or(1.0);
  w.engine_version = r.optional_string("engine_version");
  if (w.engine_version && !parse_version(*w.engine_version)) {
    r.member("engine_version")
        .fail("must be a release version such as \"0.11.2\" (digits and dots, an optional suffix "
              "such as rc1 or .post1)");
  }
}

void read_inference(const FieldReader& r, InferenceWorkload& w) {
  r.reject_unknown({"type",
                    "input_tokens",
                    "output_tokens",
                    "concurrency",
                    "engine",
                    "gpu_memory_utilization",
                    "max_num_batched_tokens",
                    "max_num_seqs",
                    "max_model_len",
                    "chunked_prefill",
                    "engine_version",
                    "length_low_ratio",
                    "targets",
                    "images_per_request",
                    "image_width",
                    "image_height",
                    "speculative",
                    "prefix_cache_hit_rate",
                    "arrivals",
                    "length_histogram"});
  w.input_tokens =
      r.optional_integer("input_tokens", Range{1, limits::k_max_tokens}).value_or(w.input_tokens);
  w.output_tokens =
      r.optional_integer("output_tokens", Range{1, limits::k_max_tokens}).value_or(w.output_tokens);
  read_serving_engine(r, w);
  if (r.has("length_histogram")) {
    read_length_histogram(r, w);
  }
  if (auto t = r.optional_object("targets")) {
    read_targets(*t, w.targets);
  }
  if (auto a = r.optional_object("arrivals")) {
    read_arrivals(*a, w);
  }
  if (w.arrivals != ArrivalKind::closed) {
    // The fitted estimate is a closed loop's: under open arrivals a mean target is held on the
    // simulated distribution, as the percentiles are (docs/spec.md, "Arrivals").
    for (auto [mean, percentiles] : {std::pair{&w.targets.ttft, &w.targets.ttft_percentiles},
                                     std::pair{&w.targets.tpot, &w.targets.tpot_percentiles}}) {
      if (*mean) {
        percentiles->insert(percentiles->begin(), PercentileTarget{0, **mean});
        mean->reset();
      }
    }
  }
  w.images_per_request = r.optional_integer("images_per_request", Range{0, 1000}).value_or(0);
  w.image_width = r.optional_integer("image_width", Range{1, 100000}).value_or(w.image_width);
  w.image_height = r.optional_integer("image_height", Range{1, 100000}).value_or(w.image_height);
}

// Image tokens join each prompt: the tower's tokens per image (fixed-resolution towers resize
// every image; Qwen2-VL merges 2 x 2 patches of 14 pixels of the image as sent).
void read_images(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const auto& vision = spec.model.vision;
  if (!vision) {
    if (w.images_per_request > 0) {
      workload->member("images_per_request")
          .fail(fmt::format("the model ({}) has no vision tower", spec.model.family));
    }
    return;
  }
  if (w.images_per_request == 0) {
    spec.defaults.push_back(fmt::format(
        "workload.images_per_request = 0: text-only prompts (the {} vision tower is loaded)",
        vision->kind));
    return;
  }
  const long long per_image = vision->tokens(w.image_width, w.image_height);
  w.image_tokens = w.images_per_request * per_image;
  if (!vision->grid_pinpoints.empty()) {
    const auto [pin_h, pin_w] = vision->anyres_resolution(w.image_width, w.image_height);
    spec.defaults.push_back(
        fmt::format("{} image(s) x {} tokens per request ({} x {} pixels fitted into {} x {}: {} "
                    "tiles of {} px and the whole image)",
                    w.images_per_request,
                    per_image,
                    w.image_width,
                    w.image_height,
                    pin_w,
                    pin_h,
                    (pin_h / vision->image_size) * (pin_w / vision->image_size),
                    vision->image_size));
    return;
  }
  spec.defaults.push_back(
      vision->image_size > 0
          ? fmt::format("{} image(s) x {} tokens per request (each resized to {} x {} pixels)",
                        w.images_per_request,
                        per_image,
                        vision->image_size,
                        vision->image_size)
          : fmt::format("{} image(s) x {} tokens per request ({} x {} pixels, {}-pixel patches "
                        "merged {} x {})",
                        w.images_per_request,
                        per_image,
                        w.image_width,
                        w.image_height,
                        vision->patch,
                        vision->merge,
                        vision->merge));
}

// Whether serving refuses a request longer than the model's context: the engine's (vLLM and SGLang
// refuse a max_model_len above it, engine_traits.cpp), or the model's, whose learned position
// embeddings (GPT-2, StarCoder) have no row past the last.
bool context_enforced(const Spec& spec) {
  return engine_traits(spec.workload.inference.engine).enforces_context ||
         spec.model.learned_positions > 0;
}

namespace {

// Lengths the user gave past the model's context: an error where serving refuses them, else a
// warning. `field` is the one to blame.
void check_given_lengths(Spec& spec, const FieldReader& workload, const char* field) {
  const auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  if (context <= 0 || w.longest_request() <= context) {
    return;
  }
  const std::string images =
      w.image_tokens > 0 ? fmt::format(" + {} image", w.image_tokens) : std::string();
  const std::string what =
      w.length_histogram.empty()
          ? fmt::format("{} input{} + {} output tokens exceed {}",
                        w.input_tokens,
                        images,
                        w.output_tokens,
                        describe_context(spec.model))
          : fmt::format("the longest bin's {} tokens (input{} + output) exceed {}",
                        w.longest_request(),
                        images,
                        describe_context(spec.model));
  if (!context_enforced(spec)) {
    spec.warnings.push_back(what);
    return;
  }
  throw InputError(workload.where(field),
                   fmt::format("{}, {}: shorten the request or plan a model with a longer "
                               "context",
                               what,
                               spec.model.learned_positions > 0
                                   ? std::string("past its learned position embeddings")
                                   : fmt::format("which {} refuses", to_string(w.engine))));
}

// One length given: the other, left to its default, takes at most what the given one and the
// images leave.
void fit_other_length(Spec& spec, const FieldReader& workload, bool input_given) {
  auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  const char* given = input_given ? "input_tokens" : "output_tokens";
  const long long kept = (input_given ? w.input_tokens : w.output_tokens) + w.image_tokens;
  long long& other = input_given ? w.output_tokens : w.input_tokens;
  const long long asked = other;
  if (context > 0 && kept < context) {
    other = std::min(asked, context - kept);
  }
  spec.defaults.push_back(
      fmt::format("workload.{} = {} (default{})",
                  input_given ? "output_tokens" : "input_tokens",
                  other,
                  other == asked ? std::string()
                                 : fmt::format(": {} cut to fit {} after {}{}",
                                               asked,
                                               describe_context(spec.model),
                                               given,
                                               w.image_tokens > 0 ? " and the images" : "")));
  check_given_lengths(spec, workload, given);
}

// Neither length given: 4096 + 1024, or what the images leave of the context split 4:1 when it
// is shorter. Images that leave fewer than 2 tokens are refused at `images_per_request`.
void fit_default_lengths(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const long long context = spec.model.max_position;
  const long long budget = context - w.image_tokens;
  const char* why = spec.bare_hf_config ? "default for a bare config.json" : "default";
  if (context <= 0 || w.input_tokens + w.output_tokens <= budget) {
    spec.defaults.push_back(fmt::format("workload.input_tokens = {}, output_tokens = {} ({})",
                                        w.input_tokens,
                                        w.output_tokens,
                                        why));
    return;
  }
  if (budget < 2) {
    // Only images make the budget negative, and images come from a workload.
    workload->member("images_per_request")
        .fail(fmt::format("{} image tokens leave no room for text in {}",
                          w.image_tokens,
                          describe_context(spec.model)));
  }
  const std::string asked = fmt::format("{} + {}", w.input_tokens, w.output_tokens);
  w.input_tokens = std::max(1LL, budget * 4 / 5);
  w.output_tokens = std::max(1LL, budget - w.input_tokens);
  spec.defaults.push_back(fmt::format(
      "workload.input_tokens = {}, output_tokens = {} ({}: {} cut to fit {}{}, keeping 4:1)",
      w.input_tokens,
      w.output_tokens,
      why,
      asked,
      describe_context(spec.model),
      w.image_tokens > 0 ? fmt::format(" after {} image tokens", w.image_tokens) : std::string()));
}

} // namespace

// Inference lengths against the model's context: lengths given are checked, lengths left to
// their defaults shrink to fit. `workload` is the spec's /workload, absent for a bare
// config.json or a spec without one.
void fit_inference_lengths(Spec& spec, const std::optional<FieldReader>& workload) {
  if (!spec.workload.inference.length_histogram.empty()) {
    check_given_lengths(spec, *workload, "length_histogram");
    return;
  }
  const bool input_given = workload && workload->has("input_tokens");
  const bool output_given = workload && workload->has("output_tokens");
  if (input_given && output_given) {
    check_given_lengths(spec, *workload, "input_tokens");
  } else if (input_given || output_given) {
    fit_other_length(spec, *workload, input_given);
  } else {
    fit_default_lengths(spec, workload);
  }
}

void read_generation(Spec& spec, const std::optional<FieldReader>& workload) {
  if (workload) {
    read_inference(*workload, spec.workload.inference);
    read_decoding_features(spec, *workload);
  }
  read_images(spec, workload);
  fit_inference_lengths(spec, workload);
  const auto& w = spec.workload.inference;
  const long long request = w.longest_request();
  if (w.max_model_len && *w.max_model_len < request) {
    // The engine would refuse the longest requests: not a setting to plan around.
    workload->member("max_model_len")
        .fail(w.length_histogram.empty()
                  ? fmt::format("is shorter than the workload's requests ({} tokens: {} input + "
                                "{} output); the engine refuses longer ones",
                                request,
                                w.prompt_tokens(),
                                w.output_tokens)
                  : fmt::format("is shorter than length_histogram's longest requests ({} "
                                "tokens); the engine refuses longer ones",
                                request));
  }
}

} // namespace rightsize::spec_reader
