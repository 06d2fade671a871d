#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rightsize;
using nlohmann::json;
using rightsize::test::catalog;
using rightsize::test::ScratchDir;

namespace {

const EngineSupport& bundled() {
  return rightsize::test::engines();
}

const Gpu& gpu(const std::string& name) {
  return catalog().resolve(name, "test");
}

// A small valid file: one engine on Turing and Hopper.
json minimal() {
  return json::parse(R"({
    "schema_version": 1,
    "engines_version": "test",
    "sources": {"DOC": {"name": "a doc", "location": "https://example.org/doc"}},
    "generations": {
      "sm75": {"vendor": "nvidia", "architecture": "Turing"},
      "sm90": {"vendor": "nvidia", "architecture": "Hopper"}
    },
    "engines": [{
      "name": "vllm",
      "runs_on": {"generations": ["sm75", "sm90"], "source": "DOC", "confidence": "high"},
      "weights": [
        {"format": "fp16", "math": ["fp16"], "generations": ["sm75", "sm90"],
         "source": "DOC", "confidence": "high"},
        {"format": "fp8", "math": ["fp8"], "generations": ["sm90"], "kernel": "FP8 W8A8",
         "source": "DOC", "confidence": "medium"}
      ],
      "math": [
        {"format": "fp16", "generations": ["sm75", "sm90"], "source": "DOC", "confidence": "high"},
        {"format": "fp8", "generations": ["sm90"], "source": "DOC", "confidence": "high"}
      ],
      "kv_cache": [
        {"format": "fp16", "generations": ["sm75", "sm90"], "source": "DOC", "confidence": "high"}
      ]
    }]
  })");
}

// The messages of parsing `doc` as bad.json, one per problem.
std::vector<std::string> errors_of(const json& doc) {
  try {
    (void)parse_engine_support(doc, "bad.json");
  } catch (const InputErrors& e) {
    std::vector<std::string> out;
    for (const auto& one : e.errors()) {
      out.emplace_back(one.what());
    }
    return out;
  } catch (const InputError& e) {
    return {e.what()};
  }
  return {};
}

// `doc` with the value at `pointer` replaced.
json with(json doc, const std::string& pointer, const json& value) {
  doc[json::json_pointer(pointer)] = value;
  return doc;
}

} // namespace

TEST_CASE("engines: every engine a spec can name has its entry, under the spec's name",
          "[engines]") {
  // engines.json once spelled tensorrt_llm while specs say tensorrt-llm: every TensorRT-LLM spec
  // was rejected on every GPU as an unknown engine.
  const auto names = bundled().engine_names();
  for (const Engine e :
       {Engine::vllm, Engine::sglang, Engine::tensorrt_llm, Engine::transformers}) {
    CAPTURE(to_string(e));
    CHECK(std::find(names.begin(), names.end(), std::string(to_string(e))) != names.end());
  }
}

TEST_CASE("engines: the bundled engines.json loads", "[engines]") {
  const auto& s = bundled();
  CHECK(s.version == "2026.12.1");
  CHECK(s.engine_names() ==
        std::vector<std::string>{"sglang", "tensorrt-llm", "transformers", "vllm"});
  SECTION("every generation of the GPU catalog is known") {
    for (const auto& g : catalog().gpus) {
      CAPTURE(g.name, g.generation);
      CHECK(s.generations.count(g.generation) == 1);
    }
  }
  SECTION("every row names a source and a confidence") {
    for (const auto& e : s.engines) {
      for (const auto* rows : {&e.weights, &e.math, &e.kv_cache}) {
        for (const auto& r : *rows) {
          CAPTURE(r.where);
          CHECK(s.sources.count(r.provenance.source) == 1);
          CHECK_FALSE(r.provenance.confidence.empty());
        }
      }
    }
  }
}

TEST_CASE("engines: fp8 weights by engine and generation", "[engines]") {
  const auto& s = bundled();

  SECTION("T4 with vLLM: FP8 Marlin at fp16 math since vLLM's Turing Marlin (PR #29901)") {
    const auto a = supports(s, "vllm", gpu("T4"), "fp8", "fp16", "fp16");
    CHECK(a.status == SupportStatus::supported);
    CHECK(a.math == "fp16");
    CHECK(a.kernel == "FP8 Marlin, weight-only W8A16");
    CHECK(a.confidence == "medium");
    CHECK(a.as_requested());
    CHECK(a.math_precision() == TensorPrecision::fp16);
  }
  SECTION("T4 with the other engines: no fp8 kernel") {
    const auto trt = supports(s, "tensorrt-llm", gpu("T4"), "fp8", "fp16", "fp16");
    CHECK(trt.status == SupportStatus::unsupported);
    CHECK(trt.reason ==
          "tensorrt-llm does not run on sm75 (Turing): it runs on sm80+, source TRTLLM_SUPPORT");
    CHECK(trt.math.empty());
    CHECK_FALSE(trt.math_precision());

    const auto sgl = supports(s, "sglang", gpu("T4"), "fp8", "fp16", "fp16");
    CHECK(sgl.status == SupportStatus::unsupported);
    CHECK(
        sgl.reason ==
        "sglang does not run on sm75 (Turing): it runs on sm80+, gfx942, gfx950, source SGL_SM75");

    const auto hf = supports(s, "transformers", gpu("T4"), "fp8", "fp16", "fp16");
    CHECK(hf.status == SupportStatus::unsupported);
    CHECK(hf.reason == "transformers has no kernel for fp8 weights on sm75 (Turing): needs sm89+, "
                       "gfx942, gfx950 (fine-grained FP8 W8A8, Triton), source HF_FP8");
  }
  SECTION("A100 with vLLM: FP8 Marlin, weight-only, at 16-bit math") {
    const auto a = supports(s, "vllm", gpu("A100-80GB"), "fp8", "bf16", "bf16");
    CHECK(a.runs());
    CHECK(a.math == "bf16");
    CHECK(a.kernel == "FP8 Marlin, weight-only W8A16");
    CHECK(a.as_requested());
    CHECK(a.confidence == "high");
  }
  SECTION("A100 with vLLM, asking for fp8 math: runs, at bf16, and says so") {
    const auto a = supports(s, "vllm", gpu("A100-80GB"), "fp8", "bf16", "fp8");
    CHECK(a.runs());
    CHECK(a.math == "bf16");
    CHECK_FALSE(a.as_requested());
    REQUIRE(a.notes.size() == 1);
    CHECK(a.notes[0] == "asked for fp8 math; vllm runs fp8 weights on sm80 (Ampere) as FP8 Marlin, "
                        "weight-only W8A16 at bf16 math");
  }
  SECTION("A100 with TensorRT-LLM: no FP8 on Ampere") {
    const auto a = supports(s, "tensorrt-llm", gpu("A100-80GB"), "fp8", "bf16", "bf16");
    CHECK(a.status == SupportStatus::unsupported);
    CHECK(a.reason == "tensorrt-llm has no kernel for fp8 weights on sm80 (Ampere): needs sm89+ "
                      "(FP8 W8A8 per tensor), source TRTLLM_QUANT");
  }
  SECTION("H100: FP8 W8A8 at fp8 math") {
    for (const char* engine : {"vllm", "sglang", "tensorrt-llm", "transformers"}) {
      CAPTURE(engine);
      const auto a = supports(s, engine, gpu("H100"), "fp8", "bf16", "fp8");
      CHECK(a.runs());
      CHECK(a.math == "fp8");
      CHECK(a.as_requested());
      CHECK(a.math_precision() == TensorPrecision::fp8);
    }
  }
  SECTION("H100 asking for bf16 math with fp8 weights: vLLM runs W8A8 there, so fp8 math") {
    const auto a = supports(s, "vllm", gpu("H100"), "fp8", "bf16", "bf16");
    CHECK(a.runs());
    CHECK(a.math == "fp8");
    CHECK(a.kernel == "FP8 W8A8");
    CHECK(a.notes.size() == 1);
  }
  SECTION("L4 (Ada): fp8 weights, math and KV cache") {
    const auto a = supports(s, "vllm", gpu("L4"), "fp8", "fp8", "fp8");
    CHECK(a.runs());
    CHECK(a.math == "fp8");
    CHECK(a.kv_cache == "fp8");
    CHECK(a.as_requested());
    CHECK(a.sources == std::vector<std::string>{"VLLM_INSTALL", "VLLM_FP8", "VLLM_KV"});
  }
}

TEST_CASE("engines: other formats", "[engines]") {
  const auto& s = bundled();

  SECTION("B200: fp4 (NVFP4) at fp4 math") {
    for (const char* engine : {"vllm", "sglang", "tensorrt-llm"}) {
      CAPTURE(engine);
      const auto a = supports(s, engine, gpu("B200"), "fp4", "fp8", "fp4");
      CHECK(a.runs());
      CHECK(a.math == "fp4");
      CHECK(a.math_precision() == TensorPrecision::fp4);
    }
  }
  SECTION("H100 with fp4 weights: FP4 Marlin, weight-only, on vLLM; nothing on TensorRT-LLM") {
    const auto a = supports(s, "vllm", gpu("H100"), "fp4", "bf16", "fp4");
    CHECK(a.runs());
    CHECK(a.math == "bf16");
    CHECK(a.kernel == "FP4 Marlin, weight-only W4A16");
    const auto trt = supports(s, "tensorrt-llm", gpu("H100"), "fp4", "bf16", "fp4");
    CHECK(trt.status == SupportStatus::unsupported);
    CHECK(trt.reason == "tensorrt-llm has no kernel for fp4 weights on sm90 (Hopper): needs sm100+ "
                        "(NVFP4 W4A4), source TRTLLM_QUANT");
  }
  SECTION("T4 with bf16 everything on vLLM: runs fp16 math and an fp16 KV cache") {
    const auto a = supports(s, "vllm", gpu("T4"), "bf16", "bf16", "bf16");
    CHECK(a.runs());
    CHECK(a.math == "fp16");
    CHECK(a.kv_cache == "fp16");
    CHECK(a.weights == "bf16");
    CHECK(a.notes == std::vector<std::string>{
                         "asked for bf16 math; vllm runs bf16 weights on sm75 (Turing) as 16-bit "
                         "GEMM at fp16 math",
                         "vllm has no bf16 KV cache on sm75 (Turing): stores fp16 (same size)"});
  }
  SECTION("T4 with an fp8 KV cache on vLLM: no attention backend for it") {
    const auto a = supports(s, "vllm", gpu("T4"), "fp16", "fp8", "fp16");
    CHECK(a.status == SupportStatus::unsupported);
    CHECK(a.reason == "vllm has no fp8 KV cache on sm75 (Turing): needs sm89+, gfx942, gfx950 or "
                      "sm80, sm86 (FlashInfer attention), sources VLLM_KV, VLLM_FLASHINFER_SM80");
    CHECK(a.sources == std::vector<std::string>{"VLLM_KV", "VLLM_FLASHINFER_SM80"});
  }
  SECTION("int4 (AWQ/GPTQ) on Ampere and Turing") {
    const auto a100 = supports(s, "vllm", gpu("A100-80GB"), "int4", "bf16", "bf16");
    CHECK(a100.runs());
    CHECK(a100.kernel == "AWQ/GPTQ Marlin W4A16");
    const auto t4 = supports(s, "vllm", gpu("T4"), "int4", "fp16", "fp16");
    CHECK(t4.runs());
    CHECK(t4.math == "fp16");
  }
  SECTION("MI300X: no TensorRT-LLM") {
    const auto a = supports(s, "tensorrt-llm", gpu("MI300X"), "bf16", "bf16", "bf16");
    CHECK(a.status == SupportStatus::unsupported);
    CHECK(a.reason ==
          "tensorrt-llm does not run on gfx942 (CDNA 3): it runs on sm80+, source TRTLLM_SUPPORT");
  }
  SECTION("a format no row lists") {
    const auto a = supports(s, "tensorrt-llm", gpu("H100"), "nf4", "bf16", "bf16");
    CHECK(a.status == SupportStatus::unsupported);
    CHECK(a.reason == "tensorrt-llm has no kernel for nf4 weights on sm90 (Hopper): the engine "
                      "support data lists none on any GPU");
    CHECK(a.sources.empty());
  }
  SECTION("no asked math: the first row's first math") {
    const auto a = supports(s, "vllm", "sm80", "fp8", "bf16", "");
    CHECK(a.runs());
    CHECK(a.math == "bf16");
    CHECK(a.notes.empty());
  }
}

TEST_CASE("engines: unknown names are answers, not crashes", "[engines]") {
  const auto& s = bundled();
  SECTION("engine") {
    const auto a = supports(s, "vlm", gpu("H100"), "bf16", "bf16", "bf16");
    CHECK(a.status == SupportStatus::unknown);
    CHECK(a.reason == "unknown engine \"vlm\" (did you mean \"vllm\"?); engine support lists "
                      "sglang, tensorrt-llm, transformers, vllm");
  }
  SECTION("engine names are case-insensitive") {
    CHECK(supports(s, "vLLM", gpu("H100"), "bf16", "bf16", "bf16").runs());
  }
  SECTION("generation") {
    Gpu future = gpu("B200");
    future.generation = "sm110";
    const auto a = supports(s, "vllm", future, "bf16", "bf16", "bf16");
    CHECK(a.status == SupportStatus::unknown);
    CHECK(a.reason == "GPU generation \"sm110\" is not in the engine support data: whether vllm "
                      "runs on it is unknown");
  }
  SECTION("formats") {
    const auto w = supports(s, "vllm", gpu("H100"), "fp9", "bf16", "bf16");
    CHECK(w.status == SupportStatus::unknown);
    CHECK(w.reason.rfind("unknown weight format \"fp9\"", 0) == 0);
    CHECK(supports(s, "vllm", gpu("H100"), "bf16", "nf4", "bf16").status == SupportStatus::unknown);
    CHECK(supports(s, "vllm", gpu("H100"), "bf16", "bf16", "mxfp4").status ==
          SupportStatus::unknown);
  }
  SECTION(
      "every catalog GPU, engine and format gives an answer with a reason when it does not run") {
    for (const auto& g : catalog().gpus) {
      for (const auto& e : s.engine_names()) {
        for (const auto& w : engine_weight_formats()) {
          for (const char* kv : {"bf16", "fp16", "fp8"}) {
            const auto a = supports(s, e, g, w, kv, "bf16");
            CAPTURE(g.name, e, w, kv, a.reason);
            CHECK(a.runs() == a.reason.empty());
            CHECK(a.runs() == !a.math.empty());
            if (a.runs()) {
              CHECK_FALSE(a.sources.empty());
              CHECK_FALSE(a.confidence.empty());
            }
            // The math an engine runs is a tensor rate the catalog has for that GPU (int8 and
            // fp32 are left out: the catalog lists no int8 or FP32 rate for some GPUs that have
            // one; the planner refuses fp32 there, missing_compute_rate in the estimate stage).
            if (a.runs() && a.math != "int8" && a.math != "fp32") {
              REQUIRE(a.math_precision());
              CHECK(g.rate(*a.math_precision()));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("engines: malformed files are InputErrors naming the pointer", "[engines]") {
  SECTION("the minimal file is valid") {
    CHECK(errors_of(minimal()).empty());
    const auto s = parse_engine_support(minimal(), "ok.json");
    CHECK(supports(s, "vllm", "sm75", "fp8", "fp16", "fp16").reason ==
          "vllm has no kernel for fp8 weights on sm75 (Turing): needs sm90 (FP8 W8A8), source DOC");
  }
  SECTION("unknown top-level key") {
    auto doc = minimal();
    doc["enignes"] = json::array();
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/enignes: unknown field \"enignes\" (did you mean "
                                   "\"engines\"?)"});
  }
  SECTION("unknown key in a row") {
    const auto doc = with(minimal(), "/engines/0/weights/0/kernal", "x");
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/engines/0/weights/0/kernal: unknown field \"kernal\" "
                                   "(did you mean \"kernel\"?)"});
  }
  SECTION("a format that is not one") {
    const auto doc = with(minimal(), "/engines/0/weights/1/format", "fp9");
    const auto errors = errors_of(doc);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind("bad.json:/engines/0/weights/1/format: must be one of fp32, bf16, fp16, "
                          "fp8, int8, int4, nf4, fp4, mxfp4",
                          0) == 0);
    CHECK(errors[0].find("got \"fp9\"") != std::string::npos);
  }
  SECTION("a math format a weights row may not name") {
    const auto doc = with(minimal(), "/engines/0/weights/0/math/0", "int4");
    CHECK(errors_of(doc).at(0).rfind("bad.json:/engines/0/weights/0/math/0: must be one of", 0) ==
          0);
  }
  SECTION("a generation that is not in /generations") {
    const auto doc = with(minimal(), "/engines/0/weights/1/generations/0", "sm95");
    CHECK(errors_of(doc) == std::vector<std::string>{
                                "bad.json:/engines/0/weights/1/generations/0: is not a key of "
                                "/generations (did you mean \"sm75\" or \"sm90\"?), got \"sm95\""});
  }
  SECTION("a row on a generation the engine does not run on") {
    auto doc = with(minimal(), "/engines/0/runs_on/generations", json::array({"sm90"}));
    doc = with(doc, "/engines/0/math/0/generations", json::array({"sm90"}));
    doc = with(doc, "/engines/0/kv_cache/0/generations", json::array({"sm90"}));
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/engines/0/weights/0/generations/0: is not in this "
                                   "engine's runs_on/generations (sm90), got \"sm75\""});
  }
  SECTION("a weights row promising math the generation lacks") {
    const auto doc = with(minimal(), "/engines/0/weights/1/generations", json::array({"sm75"}));
    CHECK(errors_of(doc) == std::vector<std::string>{
                                "bad.json:/engines/0/weights/1/generations: fp8 math (fp8) is not "
                                "available on sm75 in this engine's /math rows"});
  }
  SECTION("a source that is not in /sources") {
    const auto doc = with(minimal(), "/engines/0/runs_on/source", "DOCS");
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/engines/0/runs_on/source: is not a key of /sources "
                                   "(did you mean \"DOC\"?), got \"DOCS\""});
  }
  SECTION("a missing confidence") {
    auto doc = minimal();
    doc["engines"][0]["math"][1].erase("confidence");
    CHECK(errors_of(doc) ==
          std::vector<std::string>{
              "bad.json:/engines/0/math/1/confidence: required field is missing"});
  }
  SECTION("a bad confidence") {
    const auto doc = with(minimal(), "/engines/0/kv_cache/0/confidence", "sure");
    CHECK(errors_of(doc).at(0).rfind(
              "bad.json:/engines/0/kv_cache/0/confidence: must be one of low, medium, high", 0) ==
          0);
  }
  SECTION("the same engine twice") {
    auto doc = minimal();
    doc["engines"].push_back(doc["engines"][0]);
    doc["engines"][1]["name"] = "VLLM";
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/engines/1/name: engine \"VLLM\" is already listed at "
                                   "bad.json:/engines/0/name"});
  }
  SECTION("the same math format and generation in two rows") {
    auto doc = minimal();
    doc["engines"][0]["math"].push_back(doc["engines"][0]["math"][1]);
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/engines/0/math/2/generations: fp8 math on sm90 is "
                                   "already listed at bad.json:/engines/0/math/1"});
  }
  SECTION("a generation with a bad vendor") {
    const auto doc = with(minimal(), "/generations/sm90/vendor", "nvdia");
    CHECK(errors_of(doc).at(0).rfind(
              "bad.json:/generations/sm90/vendor: must be one of nvidia, amd, intel, google, aws",
              0) == 0);
  }
  SECTION("schema version") {
    const auto doc = with(minimal(), "/schema_version", 2);
    CHECK(errors_of(doc) ==
          std::vector<std::string>{"bad.json:/schema_version: unsupported engine support schema "
                                   "version (this rightsize reads 1), got 2"});
  }
  SECTION("every problem at once") {
    auto doc = with(minimal(), "/engines/0/runs_on/source", "NOPE");
    doc = with(doc, "/engines/0/weights/0/format", "fp99");
    doc.erase("engines_version");
    CHECK(errors_of(doc).size() == 3);
  }
  SECTION("wrong types") {
    CHECK(errors_of(json::array()) ==
          std::vector<std::string>{
              "bad.json:/: engine support data must be a JSON object, got an array"});
    CHECK(errors_of(with(minimal(), "/engines", json::object())) ==
          std::vector<std::string>{"bad.json:/engines: must be an array, got an object"});
    CHECK(errors_of(with(minimal(), "/engines/0", 7)) ==
          std::vector<std::string>{"bad.json:/engines/0: an engine must be an object, got 7"});
    CHECK(errors_of(with(minimal(), "/engines/0/weights/0/generations", json::array())) ==
          std::vector<std::string>{"bad.json:/engines/0/weights/0/generations: must list at least "
                                   "one generation, got an array"});
  }
  SECTION("files: missing, and a syntax error with line and column") {
    ScratchDir dir;
    CHECK_THROWS_AS(load_engine_support(dir.path() + "/absent.json"), InputError);
    const auto path = dir.write("engines.json", "{\n  \"schema_version\": 1,\n  oops\n}\n");
    try {
      (void)load_engine_support(path);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(path + ":3:") == 0);
    }
  }
}
