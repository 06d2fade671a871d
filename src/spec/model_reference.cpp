// The spec's "model": a path to a config.json or a model folder, an inline config or a generic
// model description, or a bare config.json as the whole spec; and what the spec says of the
// model's context. docs/spec.md, "Model".

#include "reader.hpp"

#include <fmt/format.h>

namespace rightsize::spec_reader {

namespace fs = std::filesystem;

bool looks_like_hf_config(const nlohmann::json& j) {
  // diffusers configs name their class instead; parse_hf_config refuses them by name.
  return j.is_object() &&
         (j.contains("model_type") || j.contains("architectures") || j.contains("_class_name"));
}

// The file that describes the model in a model folder: config.json (a Hugging Face model), else
// model_index.json (a diffusers pipeline, beside a folder per component); none when it has neither.
std::optional<fs::path> model_file_in(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"config.json", "model_index.json"}) {
    if (fs::exists(dir / name, ec)) {
      return dir / name;
    }
  }
  return std::nullopt;
}

namespace {

// Reads config.json (or a directory holding it), plus safetensors headers and
// hf_quant_config.json beside it.
ModelArch load_model_from_path(const FieldReader& field, const fs::path& spec_dir) {
  const std::string given = field.as_string();
  fs::path path = fs::path(given).is_absolute() ? fs::path(given) : spec_dir / given;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    field.fail("model path does not exist (resolved to " + path.lexically_normal().string() + ")");
  }
  if (fs::is_directory(path, ec)) {
    const auto file = model_file_in(path);
    if (!file) {
      field.fail("model directory has neither config.json nor model_index.json");
    }
    path = *file;
  }
  const std::string file = path.lexically_normal().string();
  if (path.filename() == "model_index.json") {
    return read_diffusers_pipeline(file);
  }
  const auto config = detail::load_json_file(file);
  if (!looks_like_hf_config(config)) {
    throw InputError(file + ":/",
                     "not a Hugging Face config: neither model_type nor "
                     "architectures is set");
  }
  ModelArch model = parse_hf_config(config, file);
  const std::string dir = path.parent_path().string();
  const fs::path quant = path.parent_path() / "hf_quant_config.json";
  if (fs::exists(quant, ec) && !model.quantization.quantized()) {
    model.quantization = parse_hf_quant_config(
        detail::load_json_file(quant.string()), quant.string(), model.torch_dtype);
  }
  read_safetensors(dir.empty() ? "." : dir, model);
  return model;
}

// "" when the model's context comes from its config, else how it was assumed (hf_config.cpp
// records "assumed: ..." provenance for a config without max_position_embeddings).
std::string assumed_context(const ModelArch& m) {
  for (const auto& [field, where] : m.provenance) {
    if (field == "max_position" && where.rfind("assumed: ", 0) == 0) {
      return where.substr(9);
    }
  }
  return {};
}

} // namespace

ModelArch read_model(const FieldReader& field, const fs::path& spec_dir) {
  if (field.json().is_string()) {
    return load_model_from_path(field, spec_dir);
  }
  if (field.json().is_object()) {
    if (looks_like_hf_config(field.json())) {
      return parse_hf_config(field.json(), field.file(), "/model");
    }
    return parse_generic_model(field.json(), field.file(), "/model");
  }
  field.fail("must be a path to a config.json, an inline config object or a generic "
             "model description");
}

ModelArch read_bare_model(const nlohmann::json& json, const std::string& file) {
  const fs::path dir = fs::path(file).parent_path();
  ModelArch model = parse_hf_config(json, file);
  std::error_code ec;
  if (fs::exists(dir / "hf_quant_config.json", ec) && !model.quantization.quantized()) {
    const auto q = (dir / "hf_quant_config.json").string();
    model.quantization = parse_hf_quant_config(detail::load_json_file(q), q, model.torch_dtype);
  }
  read_safetensors(dir.empty() ? "." : dir.string(), model);
  return model;
}

std::string describe_context(const ModelArch& m) {
  const std::string assumed = assumed_context(m);
  return fmt::format("the model's context of {} tokens ({})",
                     m.max_position,
                     assumed.empty() ? "max_position_embeddings" : "assumed: " + assumed);
}

// A context the config does not state is an assumption the report lists.
void note_assumed_context(Spec& spec) {
  const std::string assumed = assumed_context(spec.model);
  if (!assumed.empty()) {
    spec.defaults.push_back(
        fmt::format("model context = {} tokens, {}", spec.model.max_position, assumed));
  }
}

} // namespace rightsize::spec_reader
