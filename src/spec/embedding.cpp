// An embedding workload (docs/spec.md, "Embedding workloads", "Image embeddings"): sequences of
// text, or images for an image encoder, one forward pass each.

#include "reader.hpp"

#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize::spec_reader {

using detail::Range;

namespace {

// An embedding workload: sequences of input_tokens, one forward pass each, pooled into a vector;
// no output tokens, no images. Its targets: sequences per second and the latency of one sequence.
// Sequences default to 512 tokens (the chunk size retrieval pipelines split documents into, and
// BERT's whole context), cut to a shorter context.
constexpr long long k_default_embedding_tokens = 512;

void read_embedding_targets(const FieldReader& r, InferenceTargets& t) {
  r.reject_unknown({"sequences_per_s", "latency_ms"});
  t.requests_per_s = r.optional_number("sequences_per_s", Range::positive(1e9));
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

// An embedding workload on an image encoder speaks images (docs/spec.md, "Image embeddings"):
// every image is resized to the encoder's image_size and read as its tokens per image, one
// forward pass each; the lengths, the images of a prompt and the generation targets are the
// encoder's or meaningless, and are refused by name. Engine: transformers runs every image
// encoder; vLLM serves CLIPModel and SiglipModel (docs/model.md, "Image embedding workloads").
void refuse_for_images(const FieldReader& field, const ModelArch& m) {
  const ImageEncoder& e = *m.image;
  field.fail_plain(fmt::format("does not apply to an image encoder: {} resizes every image to {} "
                               "x {} pixels and reads it as {}; targets are images_per_s and "
                               "latency_ms",
                               m.family,
                               e.image_size,
                               e.image_size,
                               e.cnn ? std::string("one input (a CNN; config.json image_size, "
                                                   "else 224)")
                                     : fmt::format("{} tokens (config.json image_size and "
                                                   "patch_size)",
                                                   e.tokens())));
}

void read_image_targets(const FieldReader& r, const ModelArch& m, InferenceTargets& t) {
  for (const char* key :
       {"sequences_per_s", "requests_per_s", "output_tokens_per_s", "ttft_ms", "tpot_ms"}) {
    if (r.has(key)) {
      refuse_for_images(r.member(key), m);
    }
  }
  r.reject_unknown({"images_per_s", "latency_ms"});
  t.requests_per_s = r.optional_number("images_per_s", Range::positive(1e9));
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

// Whether the model's provenance records `field` as assumed rather than read.
bool provenance_says_assumed(const ModelArch& m, const std::string& field) {
  return std::any_of(m.provenance.begin(), m.provenance.end(), [&](const auto& p) {
    return p.first == field && p.second.rfind("assumed", 0) == 0;
  });
}

void read_image_embedding(Spec& spec, const std::optional<FieldReader>& workload) {
  const ModelArch& m = spec.model;
  const ImageEncoder& e = *m.image;
  auto& w = spec.workload.inference;
  w.output_tokens = 0;
  w.input_tokens = e.tokens();
  w.engine = Engine::transformers;
  if (workload) {
    const FieldReader& r = *workload;
    for (const char* key :
         {"input_tokens", "output_tokens", "images_per_request", "image_width", "image_height"}) {
      if (r.has(key)) {
        refuse_for_images(r.member(key), m);
      }
    }
    r.reject_unknown({"type",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "max_num_seqs",
                      "max_model_len",
                      "chunked_prefill",
                      "engine_version",
                      "length_low_ratio",
                      "targets"});
    read_serving_engine(r, w);
    if (const auto refused = image_engine_refusal(m, w.engine)) {
      r.member("engine").fail(*refused);
    }
    if (auto t = r.optional_object("targets")) {
      read_image_targets(*t, m, w.targets);
    }
  }
  if (!workload || !workload->has("engine")) {
    spec.defaults.push_back("workload.engine = transformers (default for an image encoder: it "
                            "runs every one; vllm serves CLIP and SigLIP dual encoders)");
  }
  if (e.cnn) {
    spec.defaults.push_back(fmt::format(
        "one input per image: every image resized to {} x {} pixels for the {} CNN ({})",
        e.image_size,
        e.image_size,
        m.family,
        provenance_says_assumed(m, "image_size") ? "its processor's crop; config.json states no "
                                                   "image_size"
                                                 : "config.json image_size"));
    return;
  }
  spec.defaults.push_back(fmt::format(
      "{} tokens per image: every image resized to {} x {} pixels, {} x {} patches of {} "
      "pixels{} (config.json image_size, patch_size)",
      w.input_tokens,
      e.image_size,
      e.image_size,
      e.patches() > 0 ? e.image_size / e.patch : 0,
      e.patches() > 0 ? e.image_size / e.patch : 0,
      e.patch,
      e.class_token ? " and a class token" : ""));
  if (e.text > 0) {
    spec.defaults.push_back(fmt::format(
        "dual encoder: the whole checkpoint is loaded ({:.3g}M parameters, the text tower's "
        "{:.3g}M among them); images run through the vision tower only ({:.3g}M)",
        m.params_total / 1e6,
        m.params.text_tower / 1e6,
        m.params_active / 1e6));
  }
}

} // namespace

void read_embedding(Spec& spec, const std::optional<FieldReader>& workload) {
  if (spec.model.image) {
    read_image_embedding(spec, workload);
    return;
  }
  auto& w = spec.workload.inference;
  w.output_tokens = 0;
  w.input_tokens = k_default_embedding_tokens;
  const long long context = spec.model.max_position;
  if (workload) {
    const FieldReader& r = *workload;
    r.reject_unknown({"type",
                      "input_tokens",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "max_num_seqs",
                      "max_model_len",
                      "chunked_prefill",
                      "engine_version",
                      "length_low_ratio",
                      "targets"});
    read_serving_engine(r, w);
    if (const auto refused = embedding_engine_refusal(w.engine)) {
      r.member("engine").fail(*refused);
    }
    if (auto t = r.optional_object("targets")) {
      read_embedding_targets(*t, w.targets);
    }
    if (auto given = r.optional_integer("input_tokens", Range{1, limits::k_max_tokens})) {
      w.input_tokens = *given;
      if (context > 0 && *given > context) {
        const std::string what =
            fmt::format("{} tokens per sequence exceed {}", *given, describe_context(spec.model));
        if (!context_enforced(spec)) {
          spec.warnings.push_back(what);
          return;
        }
        r.member("input_tokens")
            .fail_plain(fmt::format("{}, {}: split the text into shorter chunks or plan a model "
                                    "with a "
                                    "longer context",
                                    what,
                                    spec.model.learned_positions > 0
                                        ? std::string("past its learned position embeddings")
                                        : fmt::format("which {} refuses", to_string(w.engine))));
      }
      return;
    }
  }
  if (context > 0 && context < w.input_tokens) {
    w.input_tokens = context;
  }
  spec.defaults.push_back(
      fmt::format("workload.input_tokens = {} (default for an embedding workload: {}-token "
                  "chunks{})",
                  w.input_tokens,
                  k_default_embedding_tokens,
                  w.input_tokens < k_default_embedding_tokens
                      ? fmt::format(", cut to {}", describe_context(spec.model))
                      : std::string()));
}

} // namespace rightsize::spec_reader
