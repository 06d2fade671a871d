#pragma once

// Inside the spec stage: the steps of parse_spec (spec.cpp), one file per part of a spec. Not a
// public header.
//
//   model_reference.cpp  the spec's "model": a path, a folder, an inline config; the context notes
//   inference.cpp        text generation: lengths, targets, images, the model's context
//   embedding.cpp        embeddings of text and of images (image encoders)
//   image_generation.cpp diffusers pipelines
//   encoder_decoder.cpp  Whisper transcription and T5 text-to-text generation
//   training.cpp         training and fine-tuning, the training precision presets
//   precision.cpp        "precision": weights, KV cache, activations, the stored scheme
//   deployment.cpp       "constraints" and "deployment"
//   refusals.cpp         workload types a model cannot be planned as
//   engine_traits.cpp    what each serving engine runs (spec/engine_traits.hpp)

#include <rightsize/core/json_reader.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace rightsize::spec_reader {

using detail::FieldReader;

// --- The model (model_reference.cpp) ---------------------------------------------------------

// Whether a JSON object is a Hugging Face config.json (or a diffusers config, refused by name
// later) rather than a rightsize spec.
bool looks_like_hf_config(const nlohmann::json& j);
// The file that describes the model in a model folder: config.json, else model_index.json.
std::optional<std::filesystem::path> model_file_in(const std::filesystem::path& dir);
// The spec's "model" field: a path (resolved against `spec_dir`), an inline config or a generic
// model description.
ModelArch read_model(const FieldReader& field, const std::filesystem::path& spec_dir);
// A bare config.json's model, with hf_quant_config.json and safetensors headers beside it.
ModelArch read_bare_model(const nlohmann::json& json, const std::string& file);
// "the model's context of N tokens (max_position_embeddings)" or "(assumed: ...)".
std::string describe_context(const ModelArch& m);
// A context the config does not state is an assumption the report lists.
void note_assumed_context(Spec& spec);

// --- Serving workloads (inference.cpp, embedding.cpp, image_generation.cpp, encoder_decoder.cpp)

// Concurrency and the engine's settings, which generation, embedding and transcription share.
void read_serving_engine(const FieldReader& r, InferenceWorkload& w);
// The fields of a generation workload (lengths, targets, images).
void read_inference(const FieldReader& r, InferenceWorkload& w);
// A text generation workload: its fields, its images and its lengths fitted to the context.
// `workload` is the spec's /workload, absent for a bare config.json or a spec without one.
void read_generation(Spec& spec, const std::optional<FieldReader>& workload);
// Speculative decoding and prefix caching (decoding.cpp), checked against the model and the
// engine; a workload that has neither refuses them with `why`.
void read_decoding_features(Spec& spec, const FieldReader& workload);
void refuse_decoding_features(const FieldReader& workload, const std::string& why);
// Image tokens joining each prompt of a vision-language model.
void read_images(Spec& spec, const std::optional<FieldReader>& workload);
// Lengths given are checked against the model's context, lengths left to defaults shrink to it.
void fit_inference_lengths(Spec& spec, const std::optional<FieldReader>& workload);
// Whether serving refuses a request past the model's context (engine_traits.hpp, or learned
// position embeddings).
bool context_enforced(const Spec& spec);
void read_embedding(Spec& spec, const std::optional<FieldReader>& workload);
void read_image_generation(Spec& spec, const std::optional<FieldReader>& workload);
// Whisper: an encoder-decoder with mel inputs.
bool plans_transcription(const ModelArch& m);
void read_transcription(Spec& spec, const std::optional<FieldReader>& workload);
// T5: an encoder-decoder without mel inputs.
bool plans_text_to_text(const ModelArch& m);
void read_text_to_text(Spec& spec, const std::optional<FieldReader>& workload);

// --- Training (training.cpp) -----------------------------------------------------------------

void read_training(const FieldReader& r,
                   WorkloadType type,
                   TrainingWorkload& w,
                   std::vector<std::string>& defaults);
// Training past the model's context is worth a warning only (context extension).
void warn_long_training(Spec& spec);

// --- Precision, constraints, deployment (precision.cpp, deployment.cpp) ----------------------

void read_precision(const FieldReader& root, Spec& spec);
void read_constraints(const FieldReader& r, Constraints& c);
void read_deployment(const FieldReader& r, Deployment& d);

// --- Refusals (refusals.cpp) -----------------------------------------------------------------

// Refuses, at /workload/type, a workload type the model is not planned as (a diffusers pipeline
// is image generation only, an encoder embeddings only, Whisper transcription only, T5
// generation only).
void check_workload_type(const Spec& spec, const FieldReader& workload);
// Refuses, at /workload/type, training a model whose layers' training is not modelled.
void check_trainable(const Spec& spec, const FieldReader& workload);

} // namespace rightsize::spec_reader
