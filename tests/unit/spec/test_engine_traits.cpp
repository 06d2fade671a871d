// What rightsize plans on each serving engine (spec/engine_traits.hpp): a row per engine, each
// fact sourced, and the refusals the rows make, word for word as before they were a table.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/engine_traits.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;

namespace {

ModelArch family(const char* name) {
  ModelArch m;
  m.family = name;
  return m;
}

} // namespace

TEST_CASE("engine traits: one sourced row per engine, in the name table's order",
          "[spec][engines]") {
  const std::vector<Engine> engines = k_engine_names.values();
  REQUIRE(engine_traits().size() == engines.size());
  for (std::size_t i = 0; i < engines.size(); ++i) {
    const EngineTraits& t = engine_traits()[i];
    CAPTURE(to_string(t.engine));
    CHECK(t.engine == engines[i]);
    CHECK(&engine_traits(t.engine) == &t);
    CHECK_FALSE(t.display_name.empty());
    CHECK_FALSE(t.context_source.empty());
    CHECK_FALSE(t.dtype_source.empty());
    for (const EngineVerdict* v : {&t.embedding, &t.transcription, &t.text_to_text}) {
      CHECK_FALSE(v->source.empty());
    }
    CHECK_FALSE(t.image_encoders_source.empty());
    CHECK((t.image_encoders == ImageEncoders::dual_encoders) == !t.image_encoders_why.empty());
  }
  CHECK(engine_traits(Engine::vllm).enforces_context);
  CHECK(engine_traits(Engine::sglang).enforces_context);
  CHECK_FALSE(engine_traits(Engine::tensorrt_llm).enforces_context);
  CHECK_FALSE(engine_traits(Engine::transformers).enforces_context);
  CHECK_FALSE(engine_traits(Engine::transformers).fp32_in_fp16);
  CHECK(engine_traits(Engine::tensorrt_llm).fp32_in_fp16);
}

TEST_CASE("engine traits: refusals name the engines that plan the model kind", "[spec][engines]") {
  CHECK_FALSE(embedding_engine_refusal(Engine::vllm));
  CHECK_FALSE(embedding_engine_refusal(Engine::sglang));
  CHECK_FALSE(embedding_engine_refusal(Engine::transformers));
  CHECK(embedding_engine_refusal(Engine::tensorrt_llm) ==
        "rightsize does not model TensorRT-LLM for embedding workloads: use vllm, sglang or "
        "transformers");

  CHECK_FALSE(transcription_engine_refusal(Engine::vllm));
  CHECK_FALSE(transcription_engine_refusal(Engine::transformers));
  CHECK(transcription_engine_refusal(Engine::sglang) ==
        "rightsize models Whisper transcription on vllm and transformers (how SGLang holds "
        "Whisper's cross-attention keys and values is not modelled)");
  CHECK(transcription_engine_refusal(Engine::tensorrt_llm) ==
        "rightsize models Whisper transcription on vllm and transformers (TensorRT-LLM runs "
        "Whisper through its own example runtime, which rightsize does not model)");

  const ModelArch t5 = family("t5");
  CHECK_FALSE(text_to_text_engine_refusal(t5, Engine::transformers));
  CHECK(text_to_text_engine_refusal(t5, Engine::sglang) ==
        "rightsize plans t5 text-to-text generation on transformers only (SGLang has no T5 "
        "model (python/sglang/srt/models))");
  CHECK(text_to_text_engine_refusal(t5, Engine::vllm) ==
        "rightsize plans t5 text-to-text generation on transformers only (vLLM has no T5 model: "
        "its registry lists no T5ForConditionalGeneration and dropped every encoder-decoder but "
        "Whisper with its V0 engine (vllm/model_executor/models/registry.py))");

  ModelArch vit = family("vit");
  vit.image = ImageEncoder{};
  ModelArch clip = family("clip");
  clip.image = ImageEncoder{};
  clip.image->text = 1;
  CHECK_FALSE(image_engine_refusal(family("llama"), Engine::sglang));
  CHECK_FALSE(image_engine_refusal(vit, Engine::transformers));
  CHECK_FALSE(image_engine_refusal(clip, Engine::vllm));
  CHECK(image_engine_refusal(vit, Engine::vllm) ==
        "vLLM embeds images with CLIPModel and SiglipModel (text and vision towers), not with a "
        "vit vision-only or classifier checkpoint: use transformers");
  CHECK(image_engine_refusal(clip, Engine::tensorrt_llm) ==
        "rightsize plans image encoders on transformers, and CLIP and SigLIP dual encoders also "
        "on vllm");
}
