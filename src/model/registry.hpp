#pragma once

// Inside the model stage: the families rightsize reads, one row each (registry.cpp). Not a
// public header; supported_families() is the public view of the same rows.

#include "config_fields.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rightsize::hf {

// Fills `m` from a config.json of its family: m.family, name and dtype are already read;
// count_parameters and the quantization follow. Throws InputError naming the field for what it
// cannot read.
using ConfigReader = void (*)(const ConfigInput& in, ModelArch& m);
// Reads a diffusers pipeline from its model_index.json and its components' folders.
using PipelineReader = ModelArch (*)(const std::string& model_index);

// One family: the model_type that selects it (a diffusers pipeline: its _class_name), what
// `rightsize model --list` says of it, the context its configuration class assumes when
// config.json omits max_position_embeddings (0: none), and its reader: `read` for a config.json,
// `read_pipeline` for a diffusers pipeline (exactly one of the two).
struct Family {
  std::string_view model_type;
  std::string_view models;
  long long default_context = 0;
  std::string_view config_class;
  ConfigReader read = nullptr;
  PipelineReader read_pipeline = nullptr;
};

// Every row, in the order `rightsize model --list` prints them.
const std::vector<Family>& families();

// The row of `model_type`, or nullptr.
const Family* find_family(std::string_view model_type);

// The model_types of the config.json families (not the pipelines), for did-you-mean and the
// look-up of an `architectures` name.
const std::vector<std::string>& config_family_names();

} // namespace rightsize::hf
