// The catalog GPU an observed model name is. docs/observe.md, "From samples to a workload".

#include <rightsize/observe/observe.hpp>

#include <cctype>

namespace rightsize {

namespace {

std::string squash(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string without_vendor_prefix(const std::string& squashed) {
  for (const std::string prefix : {"nvidia", "tesla", "amd"}) {
    if (squashed.rfind(prefix, 0) == 0) {
      return squashed.substr(prefix.size());
    }
  }
  return squashed;
}

} // namespace

const Gpu* identify_gpu(const std::string& model_name,
                        const Catalog& catalog,
                        const GpuProducts& products,
                        const std::map<std::string, std::string>& gpu_models) {
  if (model_name.empty()) {
    // An input that does not name its GPU (an nvidia-smi log without the name column, a trace
    // without deviceProperties): --gpu-model unnamed=GPU says what it is.
    const auto it = gpu_models.find("unnamed");
    return it == gpu_models.end() ? nullptr : catalog.find(it->second);
  }
  // NVML names ("NVIDIA A100 80GB PCIe") are the GPU Feature Discovery product labels of
  // data/deploy.json with spaces for dashes; drivers before 2021 left out "NVIDIA ". Names are
  // compared by their letters and digits, so --gpu-model A100-PG509-200=... maps
  // "NVIDIA A100-PG509-200" too.
  const std::string key = without_vendor_prefix(squash(model_name));
  for (const auto& [observed, catalog_name] : gpu_models) {
    if (without_vendor_prefix(squash(observed)) == key) {
      return catalog.find(catalog_name);
    }
  }
  for (const auto& [catalog_name, product] : products) {
    if (without_vendor_prefix(squash(product.value)) == key) {
      if (const Gpu* g = catalog.find(catalog_name)) {
        return g;
      }
    }
  }
  if (const Gpu* g = catalog.find(model_name)) {
    return g;
  }
  return catalog.find(key);
}

} // namespace rightsize
