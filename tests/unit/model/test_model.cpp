// Decoder-only models: parameter counts against published totals, the normalized fields, weight
// bytes, quantization schemes and contexts. The hybrids, encoders and vision-language models
// have files of their own (test_hybrids.cpp, test_encoders.cpp, test_vision_language.cpp).

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

} // namespace

// Published totals, each from the model's own card or paper; the config.json files under
// tests/data/configs are the ones the model repositories publish.
TEST_CASE("model: parameter counts match published totals within 0.5%", "[model]") {
  struct Case {
    const char* model;
    double total;
    const char* source;
  };
  const Case cases[] = {
      {"llama-2-7b", 6.74e9, "Llama 2 paper, 7B (6,738,415,616 in the HF checkpoint)"},
      {"llama-3.1-8b", 8.03e9, "meta-llama/Llama-3.1-8B card: 8.03B"},
      {"llama-3.1-70b", 70.6e9, "meta-llama/Llama-3.1-70B card: 70.6B"},
      {"mixtral-8x7b", 46.7e9, "Mistral AI, Mixtral of experts: 46.7B total"},
      {"qwen2.5-7b", 7.62e9, "Qwen/Qwen2.5-7B card: 7.61B (7.62B)"},
      {"deepseek-v3", 671e9, "DeepSeek-V3 technical report: 671B total"},
      {"gpt-oss-120b", 116.8e9, "OpenAI gpt-oss model card: 116.8B total"},
      {"qwen3-30b-a3b", 30.5e9, "Qwen/Qwen3-30B-A3B card: 30.5B"},
      {"qwen3-8b", 8.2e9, "Qwen/Qwen3-8B card: 8.2B"},
      {"mistral-7b-v0.1", 7.24e9, "mistralai/Mistral-7B-v0.1 checkpoint: 7.24B"},
      {"gemma-7b", 8.54e9, "Gemma report: 8.54B with embeddings"},
      {"gemma-2-9b", 9.24e9, "google/gemma-2-9b checkpoint: 9.24B"},
      {"phi-3-mini", 3.82e9, "Phi-3 report: 3.8B (3,821,079,552)"},
      {"gpt2", 124.4e6, "openai-community/gpt2: 124M (124,439,808)"},
      {"gpt-j-6b", 6.05e9, "EleutherAI/gpt-j-6b card: 6,053,381,344"},
      {"gpt-neox-20b", 20.55e9, "GPT-NeoX-20B paper: 20,554,567,680"},
      {"starcoder", 15.5e9, "bigcode/starcoder card: 15.5B"},
      {"deepseek-v2-lite", 15.7e9, "DeepSeek-V2-Lite card: 15.7B total"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model, c.source);
    const auto m = model_of(c.model);
    CHECK(m.params_total == Approx(c.total).epsilon(0.005));
    CHECK(m.param_source == "config");
  }
}

TEST_CASE("model: active parameters of mixtures of experts", "[model]") {
  // Mixtral: 12.9B active (Mistral AI); this count includes both embedding matrices.
  CHECK(model_of("mixtral-8x7b").params_active == Approx(12.9e9).epsilon(0.005));
  // Qwen3-30B-A3B: 3.3B active (model card).
  CHECK(model_of("qwen3-30b-a3b").params_active == Approx(3.3e9).epsilon(0.02));
  // DeepSeek-V3: "37B activated" (technical report), given to two significant digits. With both
  // embeddings counted, as for Mixtral, the architecture gives 37.55B; 1.5% above the rounded
  // figure.
  CHECK(model_of("deepseek-v3").params_active == Approx(37.55e9).epsilon(0.002));
  CHECK(model_of("deepseek-v3").params_active == Approx(37e9).epsilon(0.02));
  // Dense models: every parameter is active.
  const auto llama = model_of("llama-3.1-8b");
  CHECK(llama.params_active == llama.params_total);
}

TEST_CASE("model: architecture fields are normalized", "[model]") {
  const auto llama = model_of("llama-3.1-8b");
  CHECK(llama.attention == AttentionKind::gqa);
  CHECK(llama.kv_heads == 8);
  CHECK(llama.head_dim == 128);
  CHECK_FALSE(llama.tied_embeddings);
  CHECK(llama.torch_dtype == DType::bf16);

  const auto starcoder = model_of("starcoder");
  CHECK(starcoder.attention == AttentionKind::mqa);
  CHECK(starcoder.kv_heads == 1);
  CHECK_FALSE(starcoder.gated_mlp);
  CHECK(starcoder.tied_embeddings);

  const auto falcon = model_of("falcon-7b");
  CHECK(falcon.attention == AttentionKind::mqa);
  CHECK(falcon.parallel_attention);

  const auto v3 = model_of("deepseek-v3");
  CHECK(v3.attention == AttentionKind::mla);
  CHECK(v3.kv_lora_rank == 512);
  CHECK(v3.qk_rope_head_dim == 64);
  CHECK(v3.moe_layers() == 58); // first_k_dense_replace = 3 of 61
  CHECK(v3.shared_experts == 1);
  CHECK(v3.experts == 256);
  CHECK(v3.experts_active == 8);

  const auto gemma2 = model_of("gemma-2-9b");
  CHECK(gemma2.head_dim == 256); // explicit, not 3584 / 16
  CHECK(gemma2.sliding_window == 4096);
  CHECK(gemma2.local_layers() == 21); // alternating local/global
  CHECK(gemma2.tied_embeddings);

  const auto gemma3 = model_of("gemma-3-27b"); // text_config inside a multimodal config
  CHECK(gemma3.layers == 62);
  CHECK(gemma3.sliding_window == 1024);
  CHECK(gemma3.local_layers() == 62 - 62 / 6); // five local layers per global one

  const auto oss = model_of("gpt-oss-120b");
  CHECK(oss.local_layers() == 18);
  CHECK(oss.sliding_window == 128);
  CHECK(oss.head_dim == 64);

  CHECK(model_of("mistral-7b-v0.1").local_layers() == 32);
  CHECK(model_of("qwen2.5-7b").sliding_window == 0);   // use_sliding_window false
  CHECK(model_of("mixtral-8x7b").sliding_window == 0); // null
}

TEST_CASE("model: weight bytes as stored, scales included", "[model]") {
  // Llama-2-7B in fp16: 6.738e9 x 2 bytes = 13.48 GB, the "13.5 GB" of the model card.
  const auto llama2 = load_spec(config_path("llama-2-7b"));
  CHECK(weight_bytes(llama2.model, llama2.weights).total().si() == Approx(13.48e9).epsilon(0.002));

  // AWQ int4, group 128 with fp16 scales and 4-bit zeros: 4.156 bits per quantized weight;
  // embeddings and lm_head stay fp16. The published checkpoint is 5.73 GB.
  const auto awq = load_spec(config_path("llama-3.1-8b-awq"));
  CHECK(awq.weights.method == "awq");
  CHECK(awq.weights.bits_per_weight == Approx(4.15625));
  CHECK(weight_bytes(awq.model, awq.weights).total().si() == Approx(5.73e9).epsilon(0.01));

  // gpt-oss-120b: MXFP4 experts (4.25 bits), bf16 attention, router and embeddings. The
  // published checkpoint is 65.3 GB (60.8 GiB).
  const auto oss = load_spec(config_path("gpt-oss-120b"));
  CHECK(oss.weights.method == "mxfp4");
  CHECK_FALSE(oss.weights.attention_quantized);
  CHECK(weight_bytes(oss.model, oss.weights).total().si() == Approx(65.3e9).epsilon(0.01));

  // DeepSeek-V3 fp8 with one fp32 scale per 128x128 block.
  const auto v3 = load_spec(config_path("deepseek-v3"));
  CHECK(v3.weights.method == "fp8");
  CHECK(v3.weights.bits_per_weight == Approx(8.0 + 32.0 / 16384.0));
}

TEST_CASE("model: default quantization schemes per dtype", "[model]") {
  CHECK(quantization_for(DType::bf16, DType::bf16).method == "none");
  CHECK(quantization_for(DType::fp8, DType::bf16).bits_per_weight == 8.0);
  CHECK(quantization_for(DType::nf4, DType::bf16).bits_per_weight ==
        Approx(4.0 + 0.125 + 32.0 / 16384.0));
  CHECK(quantization_for(DType::fp4, DType::bf16).bits_per_weight == 4.5);
  CHECK(quantization_for(DType::mxfp4, DType::bf16).bits_per_weight == 4.25);
  CHECK(quantization_for(DType::int4, DType::bf16).bits_per_weight == Approx(4.15625));
}

TEST_CASE("model: a config without max_position_embeddings takes its family's default", "[model]") {
  // Gemma 3 keeps its text model under text_config, without max_position_embeddings.
  const auto gemma3 = model_of("gemma-3-27b");
  CHECK(gemma3.max_position == 131072);
  CHECK(provenance_of(gemma3, "max_position") ==
        "assumed: Gemma3TextConfig's default in transformers "
        "(config.json omits max_position_embeddings)");
  const auto falcon = model_of("falcon-7b");
  CHECK(falcon.max_position == 2048);
  CHECK(provenance_of(falcon, "max_position") ==
        "assumed: FalconConfig's default in transformers (config.json "
        "omits max_position_embeddings)");
  // Stated contexts are read as they are, under any of their names.
  CHECK(model_of("llama-2-7b").max_position == 4096);
  CHECK_THAT(provenance_of(model_of("llama-2-7b"), "max_position"),
             Catch::EndsWith(":/max_position_embeddings"));
  CHECK(model_of("gpt2").max_position == 1024); // n_positions
  CHECK(model_of("gemma-2-9b").max_position == 8192);
  // YaRN configs whose max_position_embeddings already is the stretched length keep it.
  CHECK(model_of("deepseek-v3").max_position == 163840);
  CHECK(model_of("gpt-oss-120b").max_position == 131072);
  CHECK(model_of("llama-3.1-8b").max_position == 131072); // llama3 rope type: stated length
}

TEST_CASE("model: YaRN rope scaling gives original x factor", "[model]") {
  const nlohmann::json qwen = {
      {"model_type", "qwen2"},
      {"hidden_size", 256},
      {"num_hidden_layers", 2},
      {"num_attention_heads", 4},
      {"intermediate_size", 512},
      {"vocab_size", 1000},
      {"torch_dtype", "bfloat16"},
      {"max_position_embeddings", 32768},
      {"rope_scaling",
       {{"type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}}}};
  const auto m = parse_hf_config(qwen, "config.json");
  CHECK(m.max_position == 131072);
  CHECK(provenance_of(m, "max_position") ==
        "derived: rope_scaling yarn: original_max_position_embeddings 32768 x factor 4");
  // Linear or malformed scaling leaves the stated context alone.
  auto linear = qwen;
  linear["rope_scaling"]["type"] = "linear";
  CHECK(parse_hf_config(linear, "config.json").max_position == 32768);
  auto malformed = qwen;
  malformed["rope_scaling"]["factor"] = "four";
  CHECK(parse_hf_config(malformed, "config.json").max_position == 32768);
}
