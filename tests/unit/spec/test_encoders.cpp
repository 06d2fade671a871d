// Encoder-only, encoder-decoder and Whisper models: embedding, text-to-text and transcription
// workloads.

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::has_default;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::tiny_config;
using rightsize::test::write_spec;

TEST_CASE("spec: encoder-only models are planned as embedding workloads", "[spec][embedding]") {
  const std::string bert = config_path("encoder/bert-base-uncased");
  const Spec bare = load_spec(bert);
  CHECK(bare.workload.type == WorkloadType::embedding);
  CHECK(bare.workload.inference.input_tokens == 512);
  CHECK(bare.workload.inference.output_tokens == 0);
  CHECK_FALSE(bare.workload.inference.concurrency);
  CHECK(bare.model.params_total == 109'482'240);
  CHECK(bare.model.torch_dtype == DType::fp32); // no torch_dtype: transformers loads fp32
  CHECK(std::find(bare.defaults.begin(),
                  bare.defaults.end(),
                  "workload.input_tokens = 512 (default for an embedding workload: 512-token "
                  "chunks)") != bare.defaults.end());
  ScratchDir dir;
  // A shorter context cuts the default.
  std::ifstream in(bert);
  auto small = nlohmann::json::parse(in);
  small["max_position_embeddings"] = 128;
  const Spec cut = load_spec(dir.write("config.json", small.dump()));
  CHECK(cut.workload.inference.input_tokens == 128);
  // Generation or training of an encoder is refused at the workload's type.
  const std::string refusal =
      "bert is an encoder-only model (embeddings, reranking, classification): it does not "
      "generate and rightsize does not plan its training; plan it as an embedding workload "
      "(\"type\": \"embedding\")";
  const auto inference = dir.write(
      "s.json",
      R"({"model": ")" + bert + R"(", "workload": {"type": "inference", "input_tokens": 256}})");
  CHECK_THROWS_WITH(load_spec(inference), inference + ":/workload/type: " + refusal);
  CHECK_THROWS_WITH(load_spec(inference, SpecUse::describe),
                    inference + ":/workload/type: " + refusal);
  // No workload: an embedding one with defaults.
  const Spec without = load_spec(dir.write("t.json", R"({"model": ")" + bert + R"("})"));
  CHECK(without.workload.is_embedding());
  // The embedding workload's own fields and targets.
  const auto full =
      dir.write("e.json", R"({"model": ")" + bert + R"(", "workload": {"type": "embedding",
      "input_tokens": 256, "concurrency": 32, "engine": "sglang",
      "targets": {"sequences_per_s": 500, "latency_ms": 80}}})");
  const Spec e = load_spec(full);
  CHECK(e.workload.inference.input_tokens == 256);
  CHECK(e.workload.inference.concurrency == 32);
  CHECK(e.workload.inference.engine == Engine::sglang);
  CHECK(e.workload.inference.targets.requests_per_s == 500.0);
  CHECK(e.workload.inference.targets.ttft == milliseconds(80));
  CHECK_FALSE(e.workload.inference.targets.tpot);
}

TEST_CASE("spec: an embedding workload refuses what it does not have", "[spec][embedding]") {
  const std::string bert = config_path("encoder/bert-base-uncased");
  const auto error = [&](const std::string& workload) {
    ScratchDir dir;
    const auto path =
        dir.write("s.json", R"({"model": ")" + bert + R"(", "workload": )" + workload + "}");
    try {
      load_spec(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK_THAT(error(R"({"type": "embedding", "output_tokens": 10})"),
             Catch::StartsWith(":/workload/output_tokens: unknown field"));
  CHECK_THAT(error(R"({"type": "embedding", "targets": {"tpot_ms": 10}})"),
             Catch::StartsWith(":/workload/targets/tpot_ms: unknown field"));
  CHECK(error(R"({"type": "embedding", "input_tokens": 600})") ==
        ":/workload/input_tokens: 600 tokens per sequence exceed the model's context of 512 "
        "tokens (max_position_embeddings), past its learned position embeddings: split the text "
        "into shorter chunks or plan a model with a longer context");
  CHECK(error(R"({"type": "embedding", "engine": "tensorrt-llm"})") ==
        ":/workload/engine: rightsize does not model TensorRT-LLM for embedding workloads: use "
        "vllm, sglang or transformers, got \"tensorrt-llm\"");
  CHECK_THAT(error(R"({"type": "embedding", "targets": {"sequences_per_s": -1}})"),
             Catch::StartsWith(":/workload/targets/sequences_per_s: "));
}

// Issue 16: T5 is planned as text-to-text generation (until 2026-11-28 it was refused with
// "not planned yet"); Whisper is planned as a transcription workload only.
TEST_CASE("spec: encoder-decoder models: T5 generates, Whisper transcribes", "[spec]") {
  const std::string t5_refusal =
      "t5 is a text-to-text encoder-decoder model (translation, summarization): rightsize plans "
      "its generation (\"type\": \"inference\"), not its training, which is not modelled (the "
      "encoder's and cross-attention's activations and FLOPs)";
  const std::string flan = config_path("encdec/flan-t5-base");
  // A bare config.json: generation on transformers with T5's default lengths.
  const Spec t5 = load_spec(flan);
  CHECK(t5.workload.type == WorkloadType::inference);
  CHECK(t5.workload.inference.engine == Engine::transformers);
  CHECK(t5.model.encoder_positions == 512);
  CHECK(t5.workload.inference.input_tokens == 1);
  CHECK(t5.workload.inference.output_tokens == 128);
  CHECK(t5.defaults.front() == "input is a bare config.json of a text-to-text encoder-decoder "
                               "model: generation workload with defaults");
  CHECK(t5.warnings.empty());
  const Spec described = load_spec(flan, SpecUse::describe);
  CHECK(described.model.params_total == 247'577'856);
  CHECK(described.model.encoder_positions == 0);
  CHECK(described.defaults.front() ==
        "input is a bare config.json of an encoder-decoder model: no workload");
  ScratchDir dir;
  const auto spec = [&](const std::string& workload) {
    return dir.write("t5.json", R"({"model": ")" + flan + R"(", "workload": )" + workload + "}");
  };
  // Training, fine-tuning and the other workloads: one line at /workload/type.
  for (const char* type : {"training", "finetune", "embedding"}) {
    const auto file = spec(fmt::format(R"({{"type": "{}"}})", type));
    CHECK_THROWS_WITH(load_spec(file), file + ":/workload/type: " + t5_refusal);
  }
  const auto transcribing = spec(R"({"type": "transcription"})");
  CHECK_THROWS_WITH(load_spec(transcribing),
                    transcribing + ":/workload/type: a transcription workload needs a "
                                   "speech-recognition model (Whisper), got t5 (a text-to-text "
                                   "encoder-decoder)");
  // Engines that do not run T5: one line each, naming the engine and why.
  const auto vllm = spec(R"({"type": "inference", "engine": "vllm"})");
  CHECK_THROWS_WITH(load_spec(vllm),
                    vllm + ":/workload/engine: rightsize plans t5 text-to-text generation on "
                           "transformers only (vLLM has no T5 model: its registry lists no "
                           "T5ForConditionalGeneration and dropped every encoder-decoder but "
                           "Whisper with its V0 engine (vllm/model_executor/models/registry.py)), "
                           "got \"vllm\"");
  const auto sglang = spec(R"({"type": "inference", "engine": "sglang"})");
  CHECK_THROWS_WITH(load_spec(sglang),
                    Catch::Contains(":/workload/engine: rightsize plans t5 text-to-text "
                                    "generation on transformers only (SGLang has no T5 model"));
  const auto trt = spec(R"({"type": "inference", "engine": "tensorrt-llm"})");
  CHECK_THROWS_WITH(load_spec(trt), Catch::Contains("cross_kv_cache_fraction"));
  const auto images = spec(R"({"type": "inference", "images_per_request": 1})");
  CHECK_THROWS_WITH(load_spec(images),
                    images + ":/workload/images_per_request: t5 reads text: a text-to-text "
                             "workload has no images");
  // Given lengths: the input is the encoder's; past T5's 512 pre-training tokens, a warning.
  const Spec long_input = load_spec(spec(
      R"({"type": "inference", "input_tokens": 2048, "output_tokens": 64, "concurrency": 8})"));
  CHECK(long_input.model.encoder_positions == 2048);
  CHECK(long_input.workload.inference.output_tokens == 64);
  CHECK(long_input.workload.inference.concurrency == 8);
  REQUIRE(long_input.warnings.size() == 1);
  CHECK_THAT(long_input.warnings.front(),
             Catch::StartsWith("2048 input tokens: T5 was pre-trained on 512-token inputs"));
  // A spec without a workload: generation with T5's defaults.
  const auto no_workload = dir.write("b.json", R"({"model": ")" + flan + R"("})");
  CHECK(load_spec(no_workload).model.encoder_positions == 512);

  // A bare Whisper config.json: a transcription workload with defaults.
  const std::string whisper = config_path("encdec/whisper-tiny");
  const Spec bare = load_spec(whisper);
  CHECK(bare.workload.is_transcription());
  const auto& inf = bare.workload.inference;
  REQUIRE(inf.transcription);
  CHECK(inf.transcription->window_seconds == 30);
  CHECK(inf.transcription->audio_seconds == 30);
  CHECK(inf.transcription->windows == 1);
  CHECK(inf.input_tokens == 4);
  CHECK(inf.output_tokens == 100);
  CHECK_FALSE(inf.concurrency);
  CHECK(bare.defaults.front() == "input is a bare config.json of a speech-recognition model: "
                                 "transcription workload with defaults");
  const auto without = dir.write("t.json", R"({"model": ")" + whisper + R"("})");
  CHECK(load_spec(without).workload.is_transcription());

  // Another workload on Whisper, or transcription on a model that is not Whisper.
  const auto generating = dir.write(
      "s.json",
      R"({"model": ")" + whisper + R"(", "workload": {"type": "inference", "input_tokens": 256}})");
  CHECK_THROWS_WITH(load_spec(generating),
                    generating + ":/workload/type: whisper is a speech-recognition model: plan "
                                 "it as a transcription workload (\"type\": \"transcription\")");
  const auto llama = dir.write("l.json",
                               R"({"model": ")" + config_path("llama-3.1-8b") +
                                   R"(", "workload": {"type": "transcription"}})");
  CHECK_THROWS_WITH(load_spec(llama),
                    llama + ":/workload/type: a transcription workload needs a "
                            "speech-recognition model (Whisper), got llama");
}

TEST_CASE("spec: transcription workload fields, targets and refusals", "[spec]") {
  const std::string whisper = config_path("encdec/whisper-large-v3");
  const auto read = [&](const std::string& workload) {
    ScratchDir dir;
    return load_spec(
        dir.write("s.json", R"({"model": ")" + whisper + R"(", "workload": )" + workload + "}"));
  };
  const auto error = [&](const std::string& workload) {
    ScratchDir dir;
    const auto path =
        dir.write("s.json", R"({"model": ")" + whisper + R"(", "workload": )" + workload + "}");
    try {
      load_spec(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  // 5-minute calls: ten windows, one after another; concurrency counts requests.
  const Spec calls = read(R"({"type": "transcription", "audio_seconds": 300, "output_tokens": 120,
      "concurrency": 32, "targets": {"audio_seconds_per_s": 300, "latency_ms": 20000}})");
  const auto& w = calls.workload.inference;
  REQUIRE(w.transcription);
  CHECK(w.transcription->windows == 10);
  CHECK(w.transcription->audio_per_window() == 30);
  CHECK(w.transcription->requests_in_flight == 32);
  CHECK(*w.concurrency == 32);
  CHECK(w.output_tokens == 120);
  // Held as windows per second: 300 audio s/s of 30 s windows.
  CHECK(*w.targets.requests_per_s == 10);
  CHECK(*w.transcription->audio_seconds_per_s == 300);
  CHECK(w.targets.ttft->si() == 20);
  CHECK_FALSE(w.targets.tpot);
  // Shorter than a window: one padded window carrying 10 s.
  const Spec clip = read(R"({"type": "transcription", "audio_seconds": 10})");
  CHECK(clip.workload.inference.transcription->windows == 1);
  CHECK(clip.workload.inference.transcription->audio_per_window() == 10);

  CHECK(error(R"({"type": "transcription", "input_tokens": 512})") ==
        ":/workload/input_tokens: a transcription request sends audio, not a prompt: give "
        "audio_seconds (the decoder's prompt is Whisper's 4 task tokens)");
  CHECK(error(R"({"type": "transcription", "images_per_request": 1})") ==
        ":/workload/images_per_request: whisper transcribes audio: a transcription workload has "
        "no images");
  CHECK(error(R"({"type": "transcription", "targets": {"ttft_ms": 500}})") ==
        ":/workload/targets/ttft_ms: a transcription request's latency is latency_ms (arrival to "
        "the whole transcript); Whisper streams no first token");
  CHECK(error(R"({"type": "transcription", "targets": {"tpot_ms": 20}})") ==
        ":/workload/targets/tpot_ms: a transcription request's latency is latency_ms (arrival to "
        "the whole transcript)");
  CHECK(error(R"({"type": "transcription", "targets": {"output_tokens_per_s": 1000}})") ==
        ":/workload/targets/output_tokens_per_s: a transcription workload's throughput is "
        "audio_seconds_per_s");
  CHECK(error(R"({"type": "transcription", "targets": {"requests_per_s": 10}})") ==
        ":/workload/targets/requests_per_s: a transcription workload's throughput is "
        "audio_seconds_per_s (requests per second x audio_seconds)");
  CHECK(error(R"({"type": "transcription", "output_tokens": 445})") ==
        ":/workload/output_tokens: 445 output tokens per 30 s window exceed what whisper's "
        "decoder holds: 448 positions (max_target_positions) less its 4 task tokens, at most 444");
  CHECK(error(R"({"type": "transcription", "engine": "sglang"})") ==
        ":/workload/engine: rightsize models Whisper transcription on vllm and transformers (how "
        "SGLang holds Whisper's cross-attention keys and values is not modelled), got \"sglang\"");
  CHECK_THAT(error(R"({"type": "transcription", "engine": "tensorrt-llm"})"),
             Catch::StartsWith(":/workload/engine: rightsize models Whisper transcription on "
                               "vllm and transformers (TensorRT-LLM runs Whisper"));
  CHECK_THAT(error(R"({"type": "transcription", "audio_seconds": 0})"),
             Catch::StartsWith(":/workload/audio_seconds: "));
  CHECK_THAT(error(R"({"type": "transcription", "audio_seconds": -30})"),
             Catch::StartsWith(":/workload/audio_seconds: "));
  CHECK_THAT(error(R"({"type": "transcription", "output_tokens": 0})"),
             Catch::StartsWith(":/workload/output_tokens: "));
  CHECK_THAT(error(R"({"type": "transcription", "concurrency": 0})"),
             Catch::StartsWith(":/workload/concurrency: "));
  CHECK_THAT(error(R"({"type": "transcription", "targets": {"audio_seconds_per_s": 0}})"),
             Catch::StartsWith(":/workload/targets/audio_seconds_per_s: "));
  CHECK_THAT(error(R"({"type": "transcription", "audio_secs": 30})"),
             Catch::Contains("unknown field \"audio_secs\" (did you mean \"audio_seconds\"?)"));
}
