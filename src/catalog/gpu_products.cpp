// The product names and labels of catalog GPUs, from data/deploy.json (docs/deploy-data.md).

#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/core/json_reader.hpp>

#include <cctype>

namespace rightsize {

using detail::FieldReader;

GpuProducts parse_gpu_products(const nlohmann::json& deploy_json, const std::string& file) {
  GpuProducts out;
  const FieldReader products = FieldReader(deploy_json, file).object("gpu_products");
  for (const auto& [name, value] : products.json().items()) {
    const FieldReader p = products.object(name);
    p.reject_unknown({"resource",
                      "label",
                      "value",
                      "confidence",
                      "note",
                      "source",
                      "cpu_arch",
                      "cpu_arch_source"});
    GpuProduct product{p.string("resource"), p.string("label"), p.string("value"), "amd64"};
    if (p.has("cpu_arch")) {
      product.cpu_arch =
          p.choice<std::string>("cpu_arch", {{"amd64", "amd64"}, {"arm64", "arm64"}});
    }
    out[name] = product;
  }
  return out;
}

GpuProducts load_gpu_products(const std::string& path) {
  return parse_gpu_products(detail::load_json_file(path), path);
}

EngineWorkloadNames parse_engine_workload_names(const nlohmann::json& deploy_json,
                                                const std::string& file) {
  EngineWorkloadNames out;
  const FieldReader engines = FieldReader(deploy_json, file).object("engines");
  for (const auto& [name, value] : engines.json().items()) {
    const FieldReader e = engines.object(name);
    std::vector<std::string> words =
        e.has("workload_names") ? e.string_array("workload_names") : std::vector<std::string>{};
    if (words.empty()) {
      words.push_back(name);
    }
    for (auto& w : words) {
      for (char& ch : w) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
    }
    out[name] = std::move(words);
  }
  return out;
}

EngineWorkloadNames load_engine_workload_names(const std::string& path) {
  return parse_engine_workload_names(detail::load_json_file(path), path);
}

} // namespace rightsize
