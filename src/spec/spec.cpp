// Reading and normalizing workload specs: the steps of parse_spec, each part of a spec read in its
// own file (reader.hpp). Field reference: docs/spec.md.

#include "reader.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <optional>

namespace rightsize {

using detail::FieldReader;
using detail::Range;
using namespace spec_reader;

namespace fs = std::filesystem;

namespace {

// A bare diffusers model_index.json: image generation with the pipeline's defaults.
Spec parse_bare_pipeline(const FieldReader& root) {
  Spec spec;
  spec.file = root.file();
  spec.bare_hf_config = true;
  spec.model = read_diffusers_pipeline(root.file());
  spec.name = spec.model.name;
  spec.workload.type = WorkloadType::image_generation;
  spec.defaults.push_back("input is a diffusers model_index.json: image generation workload "
                          "with defaults");
  read_image_generation(spec, std::nullopt);
  spec.defaults.push_back("workload.concurrency absent: offline, the largest batch that fits");
  read_precision(root, spec);
  return spec;
}

// The workload a bare config.json's model is planned as, with its defaults.
void read_bare_workload(Spec& spec, SpecUse use) {
  if (plans_transcription(spec.model)) {
    spec.workload.type = WorkloadType::transcription;
    spec.defaults.push_back("input is a bare config.json of a speech-recognition model: "
                            "transcription workload with defaults");
    read_transcription(spec, std::nullopt);
  } else if (spec.model.encoder_decoder && use == SpecUse::describe) {
    // `rightsize model` describes the checkpoint: no input length to read into the encoder.
    spec.defaults.push_back("input is a bare config.json of an encoder-decoder model: no "
                            "workload");
  } else if (spec.model.encoder_decoder) {
    spec.workload.type = WorkloadType::inference;
    spec.defaults.push_back("input is a bare config.json of a text-to-text encoder-decoder "
                            "model: generation workload with defaults");
    read_text_to_text(spec, std::nullopt);
  } else if (spec.model.encoder_only) {
    spec.workload.type = WorkloadType::embedding;
    spec.defaults.push_back(spec.model.image ? "input is a bare config.json of an image "
                                               "encoder: image embedding workload with defaults"
                                             : "input is a bare config.json of an "
                                               "encoder-only model: embedding workload with "
                                               "defaults");
    read_embedding(spec, std::nullopt);
  } else {
    spec.workload.type = WorkloadType::inference;
    spec.defaults.push_back("input is a bare config.json: inference workload with defaults");
    read_generation(spec, std::nullopt);
  }
}

// A bare Hugging Face config.json: the model is the file, the workload takes defaults.
Spec parse_bare_config(const FieldReader& root, SpecUse use) {
  if (fs::path(root.file()).filename() == "model_index.json") {
    return parse_bare_pipeline(root);
  }
  Spec spec;
  spec.file = root.file();
  spec.bare_hf_config = true;
  spec.model = read_bare_model(root.json(), root.file());
  spec.name = spec.model.name;
  note_assumed_context(spec);
  read_bare_workload(spec, use);
  spec.defaults.push_back("workload.concurrency absent: offline, the largest batch that fits");
  if (!spec.model.encoder_decoder && !spec.model.image) {
    spec.defaults.push_back("workload.engine = vllm (default)");
  }
  read_precision(root, spec);
  spec.warnings.insert(
      spec.warnings.begin(), spec.model.warnings.begin(), spec.model.warnings.end());
  return spec;
}

// The spec's own fields: schema version and name.
void read_header(const FieldReader& root, Spec& spec) {
  root.reject_unknown({"schema_version",
                       "name",
                       "description",
                       "model",
                       "precision",
                       "workload",
                       "constraints",
                       "deployment"});
  if (root.has("schema_version")) {
    const auto v = root.integer("schema_version", Range::positive(1e6));
    if (v != 1) {
      root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
    }
  }
  spec.name = root.optional_string("name").value_or(fs::path(root.file()).stem().string());
}

// The workload's type: as given (and refused where the model is not planned as it), or without
// a workload, the one the model is planned as.
void read_workload_type(Spec& spec, const std::optional<FieldReader>& w) {
  if (w) {
    spec.workload.type = w->choice("type", k_workload_type_names);
    check_workload_type(spec, *w);
  } else if (spec.model.diffusion) {
    spec.workload.type = WorkloadType::image_generation;
    spec.defaults.push_back("workload absent: image generation with defaults (a diffusers "
                            "pipeline)");
  } else if (plans_transcription(spec.model)) {
    spec.workload.type = WorkloadType::transcription;
    spec.defaults.push_back(
        "workload absent: transcription with defaults (a speech-recognition model)");
  } else if (spec.model.encoder_only) {
    spec.workload.type = WorkloadType::embedding;
    spec.defaults.push_back(spec.model.image
                                ? "workload absent: image embeddings with defaults (an image "
                                  "encoder)"
                                : "workload absent: embedding with default lengths (an "
                                  "encoder-only model)");
  } else {
    spec.defaults.push_back("workload absent: inference with default lengths");
  }
}

// The workload's fields, by its type.
void read_workload(Spec& spec, const std::optional<FieldReader>& w) {
  if (spec.workload.is_image_generation()) {
    read_image_generation(spec, w);
  } else if (spec.workload.is_embedding()) {
    read_embedding(spec, w);
  } else if (spec.workload.is_transcription()) {
    read_transcription(spec, w);
  } else if (plans_text_to_text(spec.model)) {
    read_text_to_text(spec, w);
  } else if (spec.workload.type == WorkloadType::inference) {
    read_generation(spec, w);
  } else {
    check_trainable(spec, *w);
    read_training(*w, spec.workload.type, spec.workload.training, spec.defaults);
  }
}

} // namespace

Spec parse_spec(const nlohmann::json& json, const std::string& file, SpecUse use) {
  const FieldReader root(json, file);
  if (!json.is_object()) {
    root.fail("a spec must be a JSON object");
  }
  if (!json.contains("model") && looks_like_hf_config(json)) {
    return parse_bare_config(root, use);
  }
  if (!json.contains("model")) {
    root.fail_plain("neither a rightsize spec (no \"model\" field) nor a Hugging Face config.json "
                    "(no \"model_type\" or \"architectures\")");
  }
  Spec spec;
  spec.file = file;
  read_header(root, spec);
  spec.model = read_model(root.member("model"), fs::path(file).parent_path());
  note_assumed_context(spec);
  const auto w = root.optional_object("workload");
  read_workload_type(spec, w);
  read_workload(spec, w);
  read_precision(root, spec);
  if (const auto c = root.optional_object("constraints")) {
    read_constraints(*c, spec.constraints);
  }
  if (const auto d = root.optional_object("deployment")) {
    read_deployment(*d, spec.deployment);
  }
  // The model's warnings first, then those of the workload.
  spec.warnings.insert(
      spec.warnings.begin(), spec.model.warnings.begin(), spec.model.warnings.end());
  warn_long_training(spec);
  return spec;
}

Spec load_spec(const std::string& path, SpecUse use) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    return parse_spec(detail::load_json_file(path), path, use);
  }
  // A model folder, read as the spec's "model" field reads one: its config.json or
  // model_index.json as a bare config.
  const auto file = model_file_in(path);
  if (!file) {
    throw InputError(path,
                     "a directory with neither config.json nor model_index.json: give a spec "
                     "file, a Hugging Face model folder (config.json) or a diffusers pipeline "
                     "folder (model_index.json)");
  }
  const std::string name = file->lexically_normal().string();
  return parse_spec(detail::load_json_file(name), name, use);
}

} // namespace rightsize
