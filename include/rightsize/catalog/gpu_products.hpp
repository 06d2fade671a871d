#pragma once

// How each catalog GPU is named outside the catalog: the Kubernetes device plugin's resource, the
// node label that names the product and its value (NVIDIA's GPU Feature Discovery writes the NVML
// device name with dashes for spaces, "NVIDIA-H100-80GB-HBM3"), and the CPU architecture of the
// nodes that hold it. deploy selects nodes with them; observe recognises the GPU a telemetry file
// or trace names. Read from the "gpu_products" object of data/deploy.json, where each entry has
// its source (docs/deploy-data.md).

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace rightsize {

struct GpuProduct {
  std::string resource; // nvidia.com/gpu, amd.com/gpu
  std::string label;    // the node label that names the product
  std::string value;
  std::string cpu_arch = "amd64"; // of the nodes that hold it: arm64 for Grace (GH200, GB200)
};

using GpuProducts = std::map<std::string, GpuProduct>; // by catalog GPU name

// The "gpu_products" object of `deploy_json` (data/deploy.json's document, read from `file`),
// every entry checked: required resource, label and value, no unknown keys, cpu_arch amd64 or
// arm64. Throws InputError at file:/gpu_products/<name>/<field>.
GpuProducts parse_gpu_products(const nlohmann::json& deploy_json, const std::string& file);
// Reads `path` (data/deploy.json) and parses its "gpu_products"; the rest of the file is
// deploy's to read.
GpuProducts load_gpu_products(const std::string& path);

// Each serving engine of the "engines" object of data/deploy.json with the words that, in a
// workload's name (a pod's), say it runs that engine ("workload_names"; the engine's own name
// when absent), lower case. observe recognises an engine's pods by them: their memory.used is
// what the engine preallocated, not what they need.
using EngineWorkloadNames = std::map<std::string, std::vector<std::string>>;
EngineWorkloadNames parse_engine_workload_names(const nlohmann::json& deploy_json,
                                                const std::string& file);
EngineWorkloadNames load_engine_workload_names(const std::string& path);

} // namespace rightsize
