// Like-for-like prices (issue 43, defect 3), through the real binary: a GPU-only price is shown
// and used with its host or not at all, and a multi-GPU layout is priced as the instances a
// provider sells (docs/catalog.md, "What a price includes"; docs/plan.md, "Cost").

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using rightsize::test::config_path;
using rightsize::test::run_binary;
using rightsize::test::ScratchDir;

namespace {

const char* const k_env = "RIGHTSIZE_TODAY=2026-11-21 RIGHTSIZE_CATALOG=";

// Llama 3.1 70B at int4 on A10G at AWS: it needs TP4 (4 x 24 GB).
std::string a10g_aws_70b(const ScratchDir& dir) {
  return dir.write("a10g-70b.json",
                   R"({"schema_version": 1, "name": "a10g-aws-70b", "model": ")" +
                       config_path("llama-3.1-70b") + R"(",
      "precision": {"weights": "int4", "kv_cache": "bf16"},
      "workload": {"type": "inference", "input_tokens": 1000, "output_tokens": 200,
                   "concurrency": 4},
      "deployment": {"mode": "cloud", "provider": "aws", "horizon_months": 12},
      "constraints": {"gpus": ["A10G"]}})");
}

std::string llama8b_aws(const ScratchDir& dir) {
  return dir.write("a10g-8b.json",
                   R"({"schema_version": 1, "name": "a10g-aws-8b", "model": ")" +
                       config_path("llama-3.1-8b") + R"(",
      "precision": {"weights": "bf16", "kv_cache": "bf16"},
      "workload": {"type": "inference", "input_tokens": 2000, "output_tokens": 500,
                   "concurrency": 16},
      "deployment": {"mode": "cloud", "provider": "aws"}})");
}

} // namespace

TEST_CASE("catalog show T4: the GCP price is GPU only, shown with its host and the completed price",
          "[cli][prices]") {
  const auto r = run_binary("catalog show T4", k_env);
  CAPTURE(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("$0.540/GPU-h GCP on_demand, nvidia-tesla-t4 x1 on n1-standard-4 (1 GPU, GPU "
                   "only $0.350/GPU-h + host n1-standard-4 $0.190/h [SKY_GCP])") !=
        std::string::npos);
  CHECK(r.out.find("$0.530/GPU-h AWS on_demand, g4dn.xlarge (1 GPU, instance $0.530/h)") !=
        std::string::npos);
  // The JSON has both numbers and the host.
  const auto j = run_binary("catalog show T4 --format json", k_env);
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  bool seen = false;
  for (const auto& p : doc["prices"]) {
    if (p["provider"] == "GCP") {
      seen = true;
      CHECK(p["includes"] == "gpu_only");
      CHECK(p["usd_per_gpu_hour"].get<double>() == Approx(0.35));
      CHECK(p["effective_usd_per_gpu_hour"].get<double>() == Approx(0.54));
      CHECK(p["host"]["name"] == "n1-standard-4");
      CHECK(p["used"] == true);
    }
  }
  CHECK(seen);
  // The cheapest on-demand T4 is no longer the GCP GPU without its VM.
  const auto list = run_binary("catalog list", k_env);
  CHECK(list.out.find("$0.530/h AWS") != std::string::npos);
}

TEST_CASE("plan on A10G at AWS: TP4 is one g5.12xlarge at $5.672/h, not 4 x $1.00",
          "[cli][prices]") {
  ScratchDir dir;
  const auto spec = a10g_aws_70b(dir);
  const auto r = run_binary("plan --format json " + spec, k_env);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& best = doc["candidates"][0];
  CAPTURE(best.dump());
  CHECK(best["parallelism"]["tp"] == 4);
  CHECK(best["cost"]["usd_per_hour"].get<double>() == Approx(5.672));
  CHECK(best["cost"]["price"].get<std::string>().rfind(
            "$5.67/h AWS g5.12xlarge (4 GPUs, instance) on_demand", 0) == 0);
  // Twelve months of one instance: 5.672 x 730 x 12.
  CHECK(best["cost"]["tco_usd"].get<double>() == Approx(5.672 * 730 * 12));
  // estimate prices the same configuration the same way.
  const auto e = run_binary("estimate --format json --gpu A10G --tp 4 --weights int4 " + spec,
                            k_env);
  REQUIRE(e.exit_code == 0);
  const auto est = nlohmann::json::parse(e.out);
  CHECK(est["cost"]["usd_per_hour"].get<double>() == Approx(5.672));
}

TEST_CASE("estimate: two TP2 replicas share one 4-GPU instance; a layout no shape holds is refused",
          "[cli][prices]") {
  ScratchDir dir;
  const auto spec = llama8b_aws(dir);
  const auto two = run_binary("estimate --gpu A10G --tp 2 --dp 2 " + spec, k_env);
  CAPTURE(two.out, two.err);
  REQUIRE(two.exit_code == 0);
  CHECK(two.out.find("cost: $5.67/h for 4 GPUs: $5.67/h AWS g5.12xlarge (4 GPUs, instance)") !=
        std::string::npos);
  // Three TP2 replicas: two g5.12xlarge ($11.34/h), not 6 x $1.00 or one g5.48xlarge ($16.29/h).
  const auto three = run_binary("estimate --gpu A10G --tp 2 --dp 3 " + spec, k_env);
  REQUIRE(three.exit_code == 0);
  CHECK(three.out.find("cost: $11.34/h for 6 GPUs: 2 x $5.67/h AWS g5.12xlarge") !=
        std::string::npos);
  // TP2 x PP3 = 6 GPUs per replica: no AWS A10G shape (1, 4, 8 GPUs) holds it.
  const auto six = run_binary("estimate --gpu A10G --tp 2 --pp 3 " + spec, k_env);
  CAPTURE(six.out);
  REQUIRE(six.exit_code == 0);
  CHECK(six.out.find("cost: no instance shape holds a replica of 6 GPUs (TP2 in one instance): "
                     "AWS sells A10G-24GB in instances of 1, 4 and 8 GPUs") != std::string::npos);
}

TEST_CASE("a GPU-only price without a host is listed but never used", "[cli][prices]") {
  ScratchDir dir;
  const auto overlay = dir.write("gpu-only.json", R"({"schema_version": 1, "extends": "bundled",
    "sources": {"QUOTE": {"name": "a quote", "location": "mail"}},
    "gpus": [{"name": "A10G", "prices": [{"provider": "BareCloud", "kind": "on_demand",
      "usd_per_gpu_hour": 0.10, "includes": "gpu_only", "as_of": "2026-11-01",
      "source": "QUOTE"}]}]})");
  const auto show = run_binary("catalog show A10G --catalog " + overlay, k_env);
  CAPTURE(show.out, show.err);
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find("$0.100/GPU-h BareCloud on_demand, 1 GPU, GPU only, no host: not used") !=
        std::string::npos);
  // Not used to cost: the 8B plan on A10G still pays AWS's $1.00 per g5.xlarge.
  const auto spec = dir.write("a10g.json",
                              R"({"schema_version": 1, "name": "a10g", "model": ")" +
                                  config_path("llama-3.1-8b") + R"(",
      "workload": {"type": "inference", "input_tokens": 500, "output_tokens": 100,
                   "concurrency": 2},
      "constraints": {"gpus": ["A10G"]}})");
  const auto plan = run_binary("plan --format json --catalog " + overlay + " " + spec, k_env);
  CAPTURE(plan.err);
  REQUIRE(plan.exit_code == 0);
  const auto doc = nlohmann::json::parse(plan.out);
  CHECK(doc["candidates"][0]["cost"]["price"].get<std::string>().find("BareCloud") ==
        std::string::npos);
  // Asked for by name, the provider has no price that can be used: nothing feasible (exit 3),
  // and the rejection says why.
  const auto named =
      run_binary("plan --provider barecloud --catalog " + overlay + " " + spec, k_env);
  CAPTURE(named.out, named.err);
  CHECK(named.exit_code == 3);
  CHECK((named.out + named.err).find("GPU only, without the VM it needs") != std::string::npos);
}

TEST_CASE("catalog validate: a price's shape fields are checked, one line each",
          "[cli][prices]") {
  ScratchDir dir;
  const auto overlay = dir.write("bad-shapes.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "L4", "prices": [
      {"provider": "X", "kind": "on_demand", "usd_per_gpu_hour": 1, "as_of": "2026-11-01",
       "source": "SKY_AWS", "instance": "x.big", "gpus_per_instance": 0},
      {"provider": "Y", "kind": "on_demand", "usd_per_gpu_hour": 1, "as_of": "2026-11-01",
       "source": "SKY_AWS", "gpus_per_instance": 2.5},
      {"provider": "Z", "kind": "on_demand", "usd_per_gpu_hour": 1, "as_of": "2026-11-01",
       "source": "SKY_AWS", "includes": "vm"},
      {"provider": "W", "kind": "on_demand", "usd_per_gpu_hour": 1, "as_of": "2026-11-01",
       "source": "SKY_AWS", "host": {"name": "n1", "usd_per_hour": 0.1, "source": "SKY_GCP"}},
      {"provider": "V", "kind": "on_demand", "usd_per_gpu_hour": 1, "as_of": "2026-11-01",
       "source": "SKY_AWS", "includes": "gpu_only",
       "host": {"name": "n1", "usd_per_hour": -1, "source": "SKY_GCP"}}]}]})");
  const auto r = run_binary("catalog validate " + overlay, k_env);
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad-shapes.json:/gpus/0/prices/0/gpus_per_instance: must be") !=
        std::string::npos);
  CHECK(r.err.find("bad-shapes.json:/gpus/0/prices/1/gpus_per_instance: must be") !=
        std::string::npos);
  CHECK(r.err.find("bad-shapes.json:/gpus/0/prices/2/includes: must be one of instance, "
                   "gpu_only, got \"vm\"") != std::string::npos);
  CHECK(r.err.find("bad-shapes.json:/gpus/0/prices/3/host: a host completes a \"gpu_only\" "
                   "price") != std::string::npos);
  CHECK(r.err.find("bad-shapes.json:/gpus/0/prices/4/host/usd_per_hour: must be > 0") !=
        std::string::npos);
}
