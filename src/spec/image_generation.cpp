// An image generation workload on a diffusers pipeline (docs/spec.md, "Image generation").

#include "reader.hpp"

#include <fmt/format.h>

namespace rightsize::spec_reader {

using detail::Range;

// An image generation workload on a diffusers pipeline (docs/spec.md, "Image generation"): the
// image size and step count default to the pipeline's own; each image is one sequence of the
// embedding path, its work a whole denoising loop; concurrency counts requests, each of
// images_per_request images. The engine is diffusers, priced with transformers' efficiencies.
void read_image_generation(Spec& spec, const std::optional<FieldReader>& workload) {
  const DiffusionPipeline& p = *spec.model.diffusion;
  auto& w = spec.workload.inference;
  ImageGeneration g;
  g.height = p.default_size;
  g.width = p.default_size;
  g.steps = p.default_steps;
  w.engine = Engine::transformers;
  // Latent positions per side must halve evenly through the UNet's levels; FLUX packs 2 x 2.
  const long long multiple =
      p.vae.scale() *
      (p.mmdit.empty() ? (1LL << (p.unet.front().levels.size() - 1)) : p.mmdit.front().patch);
  if (workload) {
    const FieldReader& r = *workload;
    r.reject_unknown({"type",
                      "height",
                      "width",
                      "steps",
                      "images_per_request",
                      "concurrency",
                      "engine",
                      "targets"});
    for (const char* key : {"height", "width"}) {
      if (const auto v = r.optional_integer(key, Range{64, 8192})) {
        if (*v % multiple != 0) {
          r.member(key).fail(fmt::format("must be a multiple of {} pixels for {} ({} pixels per "
                                         "latent position{})",
                                         multiple,
                                         p.pipeline,
                                         p.vae.scale(),
                                         p.mmdit.empty() ? ", halved at each UNet level"
                                                         : ", 2 x 2 latent patches per token"));
        }
        (key[0] == 'h' ? g.height : g.width) = *v;
      }
    }
    g.steps = r.optional_integer("steps", Range{1, 1000}).value_or(g.steps);
    g.images_per_request = r.optional_integer("images_per_request", Range{1, 64}).value_or(1);
    g.requests_in_flight = r.optional_integer("concurrency", Range{1, limits::k_max_concurrency});
    if (r.has("engine") && r.string("engine") != "diffusers") {
      r.member("engine").fail("a diffusers pipeline runs on diffusers (the only engine "
                              "rightsize plans image generation on)");
    }
    if (auto t = r.optional_object("targets")) {
      t->reject_unknown({"images_per_s", "latency_ms"});
      w.targets.requests_per_s = t->optional_number("images_per_s", Range::positive(1e9));
      if (auto ms = t->optional_number("latency_ms", Range::positive(1e9))) {
        w.targets.ttft = milliseconds(*ms);
      }
    }
  }
  const auto given = [&](const char* key) { return workload && workload->has(key); };
  if (!given("height") || !given("width")) {
    spec.defaults.push_back(fmt::format("workload image size {} x {} pixels (the size {} was "
                                        "trained at)",
                                        g.width,
                                        g.height,
                                        spec.model.name));
  }
  const bool sd3 = p.pipeline == "StableDiffusion3Pipeline";
  const bool schnell = !p.mmdit.empty() && !sd3 && !p.mmdit.front().guidance_embeds;
  if (!given("steps")) {
    spec.defaults.push_back(
        fmt::format("workload.steps = {} ({})",
                    g.steps,
                    schnell ? std::string("the FLUX.1-schnell card's num_inference_steps")
                            : fmt::format("{}'s num_inference_steps default{}",
                                          p.pipeline,
                                          p.pipeline == "FluxPipeline" ? ", FLUX.1-dev" : "")));
  }
  if (!given("engine")) {
    spec.defaults.push_back("workload.engine = diffusers (the only engine for a diffusers "
                            "pipeline; timed with transformers' efficiencies, one GPU per "
                            "replica)");
  }
  spec.defaults.push_back(
      p.classifier_free_guidance
          ? fmt::format("classifier-free guidance: the {} runs twice per step (prompt and "
                        "negative prompt as one batch of 2; {} guidance_scale {})",
                        p.denoiser_component,
                        p.pipeline,
                        sd3 ? "7.0" : "5.0")
          : fmt::format("no classifier-free guidance: one {} pass per step ({})",
                        p.denoiser_component,
                        p.mmdit.front().guidance_embeds
                            ? "FLUX.1-dev's guidance is distilled into an embedding"
                            : "FLUX.1-schnell is guidance-distilled"));
  for (const auto& t : p.text_encoders) {
    if (t.class_name == "T5EncoderModel") {
      spec.defaults.push_back(
          fmt::format("T5 prompt of {} tokens ({})",
                      t.tokens,
                      schnell ? std::string("the FLUX.1-schnell card's max_sequence_length")
                              : p.pipeline + "'s max_sequence_length default"));
    }
  }
  w.output_tokens = 0;
  w.input_tokens = p.latent_tokens(g.height, g.width);
  if (g.requests_in_flight) {
    w.concurrency = *g.requests_in_flight * g.images_per_request;
  }
  w.generation = g;
}

} // namespace rightsize::spec_reader
