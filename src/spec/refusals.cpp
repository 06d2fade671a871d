// The workload types a model is not planned as, refused at /workload/type with what to plan
// instead (docs/spec.md, "Workload").

#include "reader.hpp"

#include <fmt/format.h>

namespace rightsize::spec_reader {

namespace {

// An encoder-only model is planned as an embedding workload only: it does not generate, and
// training is derived for decoders. A text-to-text encoder-decoder (T5) is planned as
// generation only, Whisper as transcription only. An image encoder, likewise, is planned as an
// embedding workload of images.
std::string encoder_refusal(const ModelArch& m) {
  if (plans_transcription(m)) {
    return fmt::format("{} is a speech-recognition model: plan it as a transcription workload "
                       "(\"type\": \"transcription\")",
                       m.family);
  }
  if (m.image) {
    return fmt::format("{} is an image encoder (image embeddings, classification): it does not "
                       "generate and rightsize does not plan its training; plan it as an "
                       "embedding workload (\"type\": \"embedding\"), one forward pass per image",
                       m.family);
  }
  if (m.encoder_decoder) {
    return fmt::format("{} is a text-to-text encoder-decoder model (translation, summarization): "
                       "rightsize plans its generation (\"type\": \"inference\"), not its "
                       "training, which is not modelled (the encoder's and cross-attention's "
                       "activations and FLOPs)",
                       m.family);
  }
  return fmt::format("{} is an encoder-only model (embeddings, reranking, classification): it "
                     "does not generate and rightsize does not plan its training; plan it as an "
                     "embedding workload (\"type\": \"embedding\")",
                     m.family);
}

} // namespace

void check_workload_type(const Spec& spec, const FieldReader& workload) {
  if (spec.model.diffusion.has_value() != spec.workload.is_image_generation()) {
    workload.member("type").fail_plain(
        spec.model.diffusion
            ? fmt::format("a diffusers pipeline ({}) is planned as image_generation only",
                          spec.model.family)
            : fmt::format("an image_generation workload needs a diffusers pipeline (a folder "
                          "with model_index.json), got {}",
                          spec.model.family));
  }
  if (!spec.model.diffusion &&
      ((spec.model.encoder_only && !spec.workload.is_embedding()) ||
       (plans_transcription(spec.model) && !spec.workload.is_transcription()))) {
    workload.member("type").fail_plain(encoder_refusal(spec.model));
  }
  if (spec.workload.is_transcription() && !plans_transcription(spec.model)) {
    workload.member("type").fail_plain(
        fmt::format("a transcription workload needs a speech-recognition model (Whisper), got {}{}",
                    spec.model.family,
                    spec.model.encoder_decoder ? " (a text-to-text encoder-decoder)" : ""));
  }
  if (plans_text_to_text(spec.model) && spec.workload.type != WorkloadType::inference) {
    workload.member("type").fail_plain(encoder_refusal(spec.model));
  }
}

void check_trainable(const Spec& spec, const FieldReader& workload) {
  if (spec.model.recurrent_layers() > 0) {
    // The activation memory and FLOPs of training are derived per attention + MLP layer
    // (Korthikanti et al. 2022); a Mamba or linear-attention layer's are not modelled.
    workload.member("type").fail(fmt::format(
        "training a model with {} layers ({}, {} of {} layers) is not modelled; plan its "
        "inference",
        spec.model.ssm.kind == RecurrentKind::gated_deltanet ? "linear-attention" : "Mamba",
        spec.model.family,
        spec.model.recurrent_layers(),
        spec.model.layers));
  }
}

} // namespace rightsize::spec_reader
