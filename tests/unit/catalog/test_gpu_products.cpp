// The product names and node labels of catalog GPUs (catalog/gpu_products.hpp), read from
// data/deploy.json's "gpu_products".

#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace rightsize {

namespace {

GpuProducts parse(const std::string& products) {
  return parse_gpu_products(nlohmann::json::parse(R"({"gpu_products": )" + products + "}"),
                            "deploy.json");
}

} // namespace

TEST_CASE("gpu products: each entry read, cpu_arch amd64 unless said", "[catalog][products]") {
  const GpuProducts p = parse(R"({
    "H100-SXM-80GB": {"resource": "nvidia.com/gpu", "label": "nvidia.com/gpu.product",
                      "value": "NVIDIA-H100-80GB-HBM3", "source": "s", "note": "n"},
    "GH200-144GB": {"resource": "nvidia.com/gpu", "label": "nvidia.com/gpu.product",
                    "value": "NVIDIA-GH200-144G-HBM3e", "cpu_arch": "arm64",
                    "cpu_arch_source": "s", "confidence": "high"}})");
  REQUIRE(p.size() == 2);
  const GpuProduct& h100 = p.at("H100-SXM-80GB");
  CHECK(h100.resource == "nvidia.com/gpu");
  CHECK(h100.label == "nvidia.com/gpu.product");
  CHECK(h100.value == "NVIDIA-H100-80GB-HBM3");
  CHECK(h100.cpu_arch == "amd64");
  CHECK(p.at("GH200-144GB").cpu_arch == "arm64");
}

TEST_CASE("gpu products: errors name the entry and field", "[catalog][products]") {
  REQUIRE_THROWS_WITH(parse(R"({"L4-24GB": {"resource": "r", "label": "l"}})"),
                      "deploy.json:/gpu_products/L4-24GB/value: required field is missing");
  REQUIRE_THROWS_WITH(
      parse(R"({"L4-24GB": {"resource": "r", "label": "l", "value": "v", "cpu_arch": "x86"}})"),
      Catch::StartsWith("deploy.json:/gpu_products/L4-24GB/cpu_arch: "));
  REQUIRE_THROWS_WITH(
      parse(R"({"L4-24GB": {"resource": "r", "label": "l", "value": "v", "valu": "v"}})"),
      Catch::StartsWith("deploy.json:/gpu_products/L4-24GB"));
  REQUIRE_THROWS_WITH(parse_gpu_products(nlohmann::json::object(), "deploy.json"),
                      "deploy.json:/gpu_products: required field is missing");
}

TEST_CASE("gpu products: the bundled file names every GPU its NVML way", "[catalog][products]") {
  const GpuProducts p = load_gpu_products(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  // GPU Feature Discovery's label: the NVML name with dashes for spaces (docs/deploy-data.md).
  CHECK(p.at("H100-SXM-80GB").value == "NVIDIA-H100-80GB-HBM3");
  CHECK(p.at("A100-SXM-40GB").value == "NVIDIA-A100-SXM4-40GB");
  CHECK(p.at("MI300X-192GB").resource == "amd.com/gpu");
  CHECK(p.at("GH200-144GB").cpu_arch == "arm64");
}

} // namespace rightsize
