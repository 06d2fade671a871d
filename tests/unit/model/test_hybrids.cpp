// State-space models and hybrids (Mamba, Jamba, Nemotron-H, Granite 4.0 H, Bamba, Qwen3-Next,
// Falcon-H1): their counts, their recurrent mixers and their refusals.

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

} // namespace

// Issue 16: hybrids and state-space models, read exactly instead of as a Llama (Jamba-1.5-Mini
// came out at 91.8B parameters with attention on all 32 layers). Totals hand-computed from
// transformers' MambaMixer, Mamba2Mixer, JambaMambaMixer and NemotronHMamba2Mixer (docs/model.md,
// "Layer types"), and within 0.5% of the published counts.
TEST_CASE("model: Mamba, Mamba-2, Jamba and Nemotron-H parameters and layer types", "[model]") {
  struct Case {
    const char* model;
    double exact;     // hand-computed
    double published; // the model page's count
    long long attention, mamba, mlp, moe;
  };
  const Case cases[] = {
      // Per layer: in_proj 768x3072 + conv 1536x4+1536 + x_proj 1536x(48+32) + dt_proj 48x1536+1536
      // + A 1536x16 + D 1536 + out_proj 1536x768 + norm 768 = 3,771,648; x 24, + tied embedding
      // 50280 x 768 + final norm 768.
      {"hybrid/mamba-130m", 129'135'360, 129e6, 0, 24, 0, 0},
      // Per layer: in_proj 4096x(2x8192 + 2x8x128 + 128) + conv (8192+2048)x4 + 10240 + 3x128
      // + gated norm 8192 + out_proj 8192x4096 + norm 4096 = 109,640,064; x 64, + 2 x 32768 x 4096
      // + 4096 (mistralai/Mamba-Codestral-7B-v0.1: 7.29B).
      {"hybrid/mamba-codestral-7b", 7'285'403'648, 7.29e9, 0, 64, 0, 0},
      // 28 Mamba mixers of 105,308,448 (JambaMambaMixer with dt/B/C norms), 4 GQA attention of
      // 41,943,040, 16 MoE layers of 16 x 176,160,768 + router 65,536, 16 dense MLPs, 2 norms a
      // layer, untied 65536 x 4096 embeddings (ai21labs/AI21-Jamba-1.5-Mini: 51.6B, 12B active).
      {"hybrid/jamba-1.5-mini", 51'570'323'328, 51.6e9, 4, 28, 32, 16},
      // 24 Mamba-2 mixers of 109,635,968, 4 attention of 41,943,040, 24 squared-ReLU MLPs of
      // 2 x 4096 x 21504, one norm a layer, untied 131072 x 4096 embeddings (Nemotron-H-8B: 8B).
      {"hybrid/nemotron-h-8b", 8'100'852'736, 8.1e9, 4, 24, 24, 0},
      // 36 Mamba-2 mixers of 102,286,976 (in_proj 4096 x (2 x 8192 + 2 x 128 + 128), conv
      // 8448 x 4 + 8448, 3 x 128, gated norm 8192, out_proj 8192 x 4096), 4 GQA attention of
      // 41,943,040, on every layer 72 experts of 9,437,184 + router 294,912 + a shared gated MLP
      // of 18,874,368, 2 norms a layer, tied 100352 x 4096 embeddings (Granite-4.0-H-Small: 32.2B).
      {"hybrid/granite-4.0-h-small", 32'207'337'984, 32.2e9, 4, 36, 40, 40},
      // 29 Mamba-2 mixers of 102,286,976 (in_proj 4096 x (2 x 8192 + 2 x 128 + 128) =
      // 68,681,728, conv 8448 x 4 + 8448 = 42,240, A/D/dt bias 3 x 128, gated norm 8192,
      // out_proj 8192 x 4096 = 33,554,432), 3 GQA attention (layers 9, 18, 27) of 4096 x 4096 +
      // 2 x 4096 x 1024 + 4096 x 4096 = 41,943,040, 32 gated MLPs of 3 x 4096 x 14336 =
      // 176,160,768, 2 norms a layer + the final norm = 266,240, untied 128256 x 4096 embedding
      // and lm_head 2 x 525,336,576 (ibm-ai-platform/Bamba-9B card: 9.78B).
      {"hybrid/bamba-9b", 9'780'235'392, 9.78e9, 3, 29, 32, 0},
      // Falcon-H1 (attention and Mamba-2 side by side in every layer): docs/model.md and the
      // Falcon-H1 test case below derive them; 521M on the 0.5B's listings, 7.59B for the 7B.
      {"hybrid/falcon-h1-0.5b-instruct", 521'411'104, 521e6, 36, 36, 36, 0},
      {"hybrid/falcon-h1-7b-base", 7'585'648'736, 7.59e9, 44, 44, 44, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model);
    const auto m = model_of(c.model);
    CHECK(m.params_total == c.exact);
    CHECK(m.params_total == Approx(c.published).epsilon(0.005));
    CHECK(m.attention_layers() == c.attention);
    CHECK(m.recurrent_layers() == c.mamba);
    CHECK(m.mlp_layers() == c.mlp);
    CHECK(m.moe_layers() == c.moe);
  }
  // Granite-4.0-H-Small: 10 of 72 experts on all 40 layers (published: 9B active).
  CHECK(model_of("hybrid/granite-4.0-h-small").params_active == 8'803'121'664);
  // Jamba's active parameters: 2 of 16 experts on its 16 MoE layers.
  CHECK(model_of("hybrid/jamba-1.5-mini").params_active == 12'110'311'296);
  // Mixers and MLPs each end in a residual add (and an all-reduce under TP).
  CHECK(model_of("hybrid/nemotron-h-8b").sublayers() == 4 + 24 + 24);
  CHECK(model_of("hybrid/jamba-1.5-mini").sublayers() == 4 + 28 + 32);
  CHECK(model_of("llama-3.1-8b").sublayers() == 64);
}

TEST_CASE("model: Granite 4.0 hybrids, with experts and dense", "[model]") {
  std::ifstream in(config_path("hybrid/granite-4.0-h-small"));
  auto config = nlohmann::json::parse(in);
  const auto small = parse_hf_config(config, "c.json");
  CHECK(small.ssm.version == 2);
  CHECK(small.ssm.inner == 8192);
  CHECK(small.ssm.conv_state_elements() == 3.0 * (8192 + 2 * 128));
  CHECK(small.ssm.ssm_state_elements() == 8192.0 * 128);
  CHECK(small.shared_experts == 1);
  CHECK(small.shared_expert_intermediate == 1536);
  // mamba_d_head "auto" (the configuration class's default): expand x hidden / heads.
  config["mamba_d_head"] = "auto";
  CHECK(parse_hf_config(config, "c.json").params_total == small.params_total);
  // Dense (H-Micro's shape): no experts, the shared MLP is each layer's MLP.
  auto dense = config;
  dense["num_local_experts"] = 0;
  dense["shared_intermediate_size"] = 8192;
  const auto d = parse_hf_config(dense, "c.json");
  CHECK_FALSE(d.is_moe());
  CHECK(d.intermediate == 8192);
  CHECK(d.params.dense_mlp == 40.0 * 3 * 4096 * 8192);
  // Refusals name the field.
  auto odd = config;
  odd["layer_types"][3] = "mlp";
  CHECK_THROWS_WITH(parse_hf_config(odd, "c.json"),
                    "c.json:/layer_types: names a layer other than \"mamba\" or \"attention\": "
                    "\"mlp\"");
  auto no_experts = config;
  no_experts.erase("num_local_experts");
  CHECK_THROWS_WITH(parse_hf_config(no_experts, "c.json"),
                    "c.json:/num_local_experts: required field is missing (0 for a dense Granite "
                    "hybrid)");
  auto wide = config;
  wide["mamba_d_head"] = 32;
  CHECK_THROWS_WITH(parse_hf_config(wide, "c.json"),
                    Catch::StartsWith("c.json:/mamba_n_heads: mamba_n_heads x mamba_d_head must "
                                      "be mamba_expand x hidden_size (2 x 4096)"));
}

TEST_CASE("model: Bamba reads its attention layers by index", "[model]") {
  std::ifstream in(config_path("hybrid/bamba-9b"));
  auto config = nlohmann::json::parse(in);
  const auto bamba = parse_hf_config(config, "c.json");
  CHECK(bamba.ssm.version == 2);
  CHECK(bamba.ssm.inner == 8192);
  CHECK(bamba.ssm.heads == 128);
  CHECK(bamba.ssm.state == 128);
  // Conv (4 - 1) x (8192 + 2 x 1 x 128), SSM 128 heads x 64 x 128.
  CHECK(bamba.ssm.conv_state_elements() == 3.0 * 8448);
  CHECK(bamba.ssm.ssm_state_elements() == 8192.0 * 128);
  CHECK(bamba.gated_mlp);
  CHECK_FALSE(bamba.tied_embeddings);
  CHECK(bamba.max_position == 262144);
  CHECK(provenance_of(bamba, "attention_layers") == "c.json:/attn_layer_indices");
  // mamba_d_head "auto" (BambaConfig's default): expand x hidden / heads = 64.
  config["mamba_d_head"] = "auto";
  CHECK(parse_hf_config(config, "c.json").params_total == bamba.params_total);
  // BambaConfig forces attention_bias and mlp_bias off whatever the file says.
  auto biased = config;
  biased["attention_bias"] = true;
  biased["mlp_bias"] = true;
  CHECK(parse_hf_config(biased, "c.json").params_total == bamba.params_total);
  // No attention layers listed (absent or null): every layer is Mamba-2, each with its MLP.
  auto all_mamba = config;
  all_mamba.erase("attn_layer_indices");
  CHECK(parse_hf_config(all_mamba, "c.json").recurrent_layers() == 32);
  all_mamba["attn_layer_indices"] = nullptr;
  const auto none = parse_hf_config(all_mamba, "c.json");
  CHECK(none.attention_layers() == 0);
  CHECK(none.mlp_layers() == 32);
  CHECK(none.params_total == bamba.params_total + 3 * (102'286'976.0 - 41'943'040));
  // Refusals name the field and the element.
  auto outside = config;
  outside["attn_layer_indices"][2] = 32;
  CHECK_THROWS_WITH(parse_hf_config(outside, "c.json"),
                    Catch::StartsWith("c.json:/attn_layer_indices/2: must be"));
  auto twice = config;
  twice["attn_layer_indices"][2] = 9;
  CHECK_THROWS_WITH(parse_hf_config(twice, "c.json"),
                    "c.json:/attn_layer_indices/2: names a layer listed before it, got 9");
  auto wide = config;
  wide["mamba_d_head"] = 32;
  CHECK_THROWS_WITH(parse_hf_config(wide, "c.json"),
                    Catch::StartsWith("c.json:/mamba_n_heads: mamba_n_heads x mamba_d_head must "
                                      "be mamba_expand x hidden_size (2 x 4096)"));
}

// Issue 16: Qwen3-Next (Qwen3NextConfig, modeling_qwen3_next.py in transformers): of every 4
// layers 3 are Gated DeltaNet linear attention and 1 gated full attention; every layer's MLP is
// 512 experts (10 active) beside a sigmoid-gated shared expert. Before issue 16 it was refused.
TEST_CASE("model: Qwen3-Next reads its linear-attention and attention layers", "[model]") {
  const auto next = model_of("hybrid/qwen3-next-80b-a3b-instruct");
  CHECK(next.family == "qwen3_next");
  CHECK(next.ssm.kind == RecurrentKind::gated_deltanet);
  CHECK(next.ssm.name() == "linear attention (Gated DeltaNet)");
  CHECK(next.recurrent_layers() == 36);
  CHECK(next.attention_layers() == 12); // layers 3, 7, ..., 47
  CHECK(next.mlp_layers() == 48);
  CHECK(next.moe_layers() == 48);
  CHECK(next.attention == AttentionKind::gqa);
  CHECK(next.head_dim == 256);
  CHECK(next.attention_gate);
  CHECK(next.qk_norm);
  CHECK(next.shared_experts == 1);
  CHECK(next.shared_expert_intermediate == 512);
  CHECK(next.max_position == 262144);
  // Gated DeltaNet, per layer (Qwen3NextGatedDeltaNet): key dim 16 x 128 = 2048, value dim
  // 32 x 128 = 4096; in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824, in_proj_ba
  // 2048 x 64 = 131,072, conv1d 8192 x 4 (no bias) = 32,768, dt_bias and A_log 2 x 32, the
  // gated RMSNorm 128, out_proj 4096 x 2048 = 8,388,608.
  CHECK(next.ssm.mixer_params(next.hidden) == 33'718'464);
  CHECK(next.params.state_space == 36.0 * 33'718'464);
  // Gated attention (Qwen3NextAttention): q_proj 2048 x (16 x 256 x 2) with the output gate,
  // k_proj and v_proj 2048 x 512, o_proj 4096 x 2048.
  CHECK(next.params.attention == 12.0 * 27'262'976);
  // MoE (Qwen3NextSparseMoeBlock): 512 x 3 x 2048 x 512 experts, a 512 x 2048 router, a gated
  // shared expert of 3 x 2048 x 512 and its 2048 x 1 gate.
  CHECK(next.params.routed_experts == 48.0 * 1'610'612'736);
  CHECK(next.params.router == 48.0 * 1'048'576);
  CHECK(next.params.shared_experts == 48.0 * (3'145'728 + 2048));
  // Two norms a layer, q_norm and k_norm (256 each) on the attention layers, the final norm.
  CHECK(next.params.norms == 48.0 * 2 * 2048 + 12.0 * 512 + 2048);
  // Per sequence, per linear-attention layer (vLLM's gated_delta_net_state_shape): conv state
  // (4 - 1) x (2 x 2048 + 4096), recurrent state 32 value heads x 128 x 128.
  CHECK(next.ssm.conv_state_elements() == 3.0 * 8192);
  CHECK(next.ssm.ssm_state_elements() == 32.0 * 128 * 128);
  CHECK(next.ssm.conv_state_elements(2) == 3.0 * 8192 / 2);
  CHECK(next.ssm.ssm_state_elements(2) == 32.0 * 128 * 128 / 2);
  // Tensor parallelism: vLLM splits the 16 key heads (and the 2 KV heads, replicated beyond 2).
  CHECK(next.tp_indivisible(16).empty());
  CHECK(next.tp_indivisible(32) == "16 attention heads");
  CHECK(provenance_of(next, "layer_types")
            .find("36 linear-attention (Gated DeltaNet) and 12 "
                  "gated full-attention layers") != std::string::npos);
}

// Published: "80B total parameters, only 3B active" (Qwen/Qwen3-Next-80B-A3B-Instruct model card
// and transformers' docs/source/en/model_doc/qwen3_next.md), rounded figures. The exact total was
// not found from the safetensors index; llama.cpp's llama-bench prints 79.67 B for its qwen3next
// GGUF (ggml-org/llama.cpp pull request 16095), which leaves out the multi-token-prediction
// layer (mtp.*) as transformers does (_keys_to_ignore_on_load_unexpected = [r"^mtp.*"]).
TEST_CASE("model: Qwen3-Next parameter count matches the published total", "[model]") {
  const auto next = model_of("hybrid/qwen3-next-80b-a3b-instruct");
  // Hand-computed: 36 x 33,718,464 (Gated DeltaNet) + 12 x 27,262,976 (gated attention) + 48 x
  // (1,610,612,736 + 1,048,576 + 3,145,728 + 2048) (MoE) + 48 x 2 x 2048 + 12 x 512 + 2048
  // (norms) + 2 x 151936 x 2048 (untied embedding and lm_head).
  CHECK(next.params_total == 79'674'391'296);
  CHECK(next.params_total == Approx(80e9).epsilon(0.005));     // 0.41% under the rounded 80B
  CHECK(next.params_total == Approx(79.67e9).epsilon(0.0001)); // llama.cpp's 79.67 B
  // Active: all but 502 of every 512 experts; both embeddings counted, as for Mixtral. The card's
  // "3B" is a one-digit figure: 3.87B with both embeddings, 3.25B without.
  CHECK(next.params_active == Approx(79'674'391'296 - 48.0 * 502 * 3 * 2048 * 512));
  CHECK(next.params_active == Approx(3.87e9).epsilon(0.002));
}

TEST_CASE("model: Qwen3-Next layer types from layer_types, and its refusals", "[model]") {
  std::ifstream in(config_path("hybrid/qwen3-next-80b-a3b-instruct"));
  auto config = nlohmann::json::parse(in);
  const auto next = parse_hf_config(config, "c.json");
  // layer_types, when the file has it, wins over full_attention_interval.
  auto listed = config;
  listed["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 48; ++i) {
    listed["layer_types"].push_back(i % 2 == 1 ? "full_attention" : "linear_attention");
  }
  const auto halves = parse_hf_config(listed, "c.json");
  CHECK(halves.recurrent_layers() == 24);
  CHECK(halves.attention_layers() == 24);
  CHECK(provenance_of(halves, "attention_layers") == "c.json:/layer_types");
  // Absent, the interval's default is Qwen3NextConfig's, 4.
  auto no_interval = config;
  no_interval.erase("full_attention_interval");
  CHECK(parse_hf_config(no_interval, "c.json").params_total == next.params_total);
  auto every_other = config;
  every_other["full_attention_interval"] = 2;
  CHECK(parse_hf_config(every_other, "c.json").attention_layers() == 24);
  // The state dtype vLLM keeps the delta-rule state in, when the config names one.
  auto fp32_state = config;
  fp32_state["mamba_ssm_cache_dtype"] = "float32";
  CHECK(parse_hf_config(fp32_state, "c.json").ssm.state_dtype == DType::fp32);
  // 8 key heads cannot be split over 16 ranks.
  auto eight = config;
  eight["linear_num_key_heads"] = 8;
  CHECK(parse_hf_config(eight, "c.json").tp_indivisible(16) == "8 linear-attention key heads");
  // Refusals name the field.
  auto odd = config;
  odd["layer_types"] = listed["layer_types"];
  odd["layer_types"][5] = "sliding_attention";
  CHECK_THROWS_WITH(parse_hf_config(odd, "c.json"),
                    "c.json:/layer_types: names a layer other than \"linear_attention\" or "
                    "\"full_attention\": \"sliding_attention\"");
  auto short_list = config;
  short_list["layer_types"] = {"linear_attention", "full_attention"};
  CHECK_THROWS_WITH(parse_hf_config(short_list, "c.json"),
                    "c.json:/layer_types: has 2 entries but the model has 48 layers");
  auto uneven = config;
  uneven["linear_num_key_heads"] = 12;
  CHECK_THROWS_WITH(
      parse_hf_config(uneven, "c.json"),
      "c.json:/linear_num_key_heads: must divide linear_num_value_heads (32), got 12");
}

TEST_CASE("model: recurrent state per Mamba layer, and what tensor parallelism can split",
          "[model]") {
  // Jamba: conv (4 - 1) x 8192 + SSM 8192 x 16.
  const auto jamba = model_of("hybrid/jamba-1.5-mini");
  CHECK(jamba.ssm.conv_state_elements() == 3.0 * 8192);
  CHECK(jamba.ssm.ssm_state_elements() == 8192.0 * 16);
  // Nemotron-H: the convolution also runs over B and C (2 x 8 groups x 128).
  const auto nemotron = model_of("hybrid/nemotron-h-8b");
  CHECK(nemotron.ssm.conv_state_elements() == 3.0 * (8192 + 2048));
  CHECK(nemotron.ssm.ssm_state_elements() == 8192.0 * 128);
  CHECK(nemotron.tp_indivisible(8).empty());
  // 8 groups on 16 ranks: vLLM replicates them to one per rank (16 groups of B and C).
  CHECK(nemotron.tp_indivisible(16).empty());
  CHECK(nemotron.ssm.conv_state_elements(16) == 3.0 * (8192 + 2 * 16 * 128) / 16);
  CHECK(nemotron.ssm.ssm_state_elements(16) == 8192.0 * 128 / 16);
  CHECK(nemotron.tp_indivisible(64) == "32 attention heads");
  const auto codestral = model_of("hybrid/mamba-codestral-7b"); // 128 heads, 8 groups
  CHECK(codestral.tp_indivisible(128).empty());
  CHECK(codestral.tp_indivisible(256) == "128 Mamba heads");
  const auto mamba = model_of("hybrid/mamba-130m");
  CHECK(mamba.tp_indivisible(512).empty()); // 1536 channels
  CHECK(mamba.tp_indivisible(1024) == "1536 Mamba channels");
  CHECK(model_of("llama-3.1-8b").tp_indivisible(3) == "32 attention heads");
}

TEST_CASE("model: malformed hybrid configs are one-line errors", "[model]") {
  const auto jamba = [](const std::string& extra) {
    auto j = nlohmann::json::parse(R"({"model_type": "jamba", "hidden_size": 256,
        "num_hidden_layers": 8, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 512, "vocab_size": 1000, "num_experts": 4, "num_experts_per_tok": 2,
        "torch_dtype": "bfloat16"})");
    j.update(nlohmann::json::parse(extra));
    return parse_hf_config(j, "c.json");
  };
  CHECK(jamba("{}").attention_layers() == 1); // period 8 from offset 4
  CHECK(jamba(R"({"attn_layer_period": 2, "attn_layer_offset": 1})").attention_layers() == 4);
  CHECK(jamba(R"({"sliding_window": null, "mamba_dt_rank": "auto"})").ssm.dt_rank == 16);
  CHECK_THROWS_WITH(jamba(R"({"attn_layer_period": 2, "attn_layer_offset": 2})"),
                    "c.json:/attn_layer_offset: must be below attn_layer_period (2), got 2");
  CHECK_THROWS_WITH(jamba(R"({"mamba_dt_rank": "big"})"),
                    "c.json:/mamba_dt_rank: must be an integer or \"auto\", got \"big\"");
  const auto nemotron = [](const std::string& extra) {
    auto j = nlohmann::json::parse(R"({"model_type": "nemotron_h", "hidden_size": 256,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 512, "vocab_size": 1000, "mamba_num_heads": 8, "mamba_head_dim": 32,
        "ssm_state_size": 16, "n_groups": 2})");
    j.update(nlohmann::json::parse(extra));
    return parse_hf_config(j, "c.json");
  };
  CHECK(nemotron(R"({"hybrid_override_pattern": "M-*-"})").attention_layers() == 1);
  CHECK(nemotron(R"({"layers_block_type": ["mamba", "mlp", "attention", "mlp"]})").mlp_layers() ==
        2);
  CHECK_THROWS_WITH(nemotron(R"({"hybrid_override_pattern": "M-*"})"),
                    "c.json:/hybrid_override_pattern: has 3 entries but the model has 4 layers");
  CHECK_THROWS_WITH(nemotron(R"({"hybrid_override_pattern": "M-*E"})"),
                    Catch::StartsWith("c.json:/hybrid_override_pattern: names a block other than "
                                      "Mamba (M), attention (*) or MLP (-): 'E'"));
  CHECK_THROWS_WITH(nemotron("{}"), "c.json:/hybrid_override_pattern: required field is missing");
  CHECK_THROWS_WITH(nemotron(R"({"hybrid_override_pattern": "M-*-", "n_groups": 3})"),
                    "c.json:/n_groups: must divide the 8 Mamba heads, got 3");
  CHECK_THROWS_WITH(
      parse_hf_config(nlohmann::json::parse(R"({"model_type": "mamba2", "hidden_size": 256,
          "num_hidden_layers": 2, "vocab_size": 100, "num_heads": 4, "head_dim": 32,
          "state_size": 16})"),
                      "c.json"),
      "c.json:/num_heads: num_heads x head_dim must be expand x hidden_size (2 x 256), got 4");
}

// Issue 16: Falcon-H1, a parallel hybrid: every layer runs attention and a Mamba-2 mixer on the
// same normed input (FalconH1DecoderLayer), then a gated MLP. Term by term from transformers'
// modeling_falcon_h1.py (FalconH1Attention, FalconH1Mixer, FalconH1MLP, two FalconH1RMSNorm a
// layer); the totals are those measured on the checkpoints (Falcon-H1-0.5B-Base 521,411,104,
// Falcon-H1-7B-Base 7,585,648,736: tests/data/configs/hybrid/README.md).
TEST_CASE("model: Falcon-H1 runs attention and Mamba-2 side by side", "[model]") {
  const auto small = model_of("hybrid/falcon-h1-0.5b-instruct");
  CHECK(small.family == "falcon_h1");
  CHECK(small.stack.side_by_side() == 36);
  CHECK(small.ssm.version == 2);
  CHECK(small.ssm.inner == 1536); // mamba_d_ssm: 24 heads of 64
  CHECK(small.ssm.heads == 24);
  CHECK(small.ssm.state == 128);
  CHECK(small.ssm.groups == 1);
  CHECK_FALSE(small.ssm.gated_norm); // mamba_rms_norm false
  // Attention: q 1024 x 512 + k, v 1024 x 128 each + o 512 x 1024 = 1,310,720 a layer.
  CHECK(small.params.attention == 36.0 * 1'310'720);
  // Mixer: in_proj 1024 x (2 x 1536 + 2 x 128 + 24) = 3,432,448, conv (1536 + 256) x 4 + 1792
  // = 8,960, dt_bias, A_log, D 3 x 24, out_proj 1536 x 1024 = 1,572,864: 5,014,344.
  CHECK(small.ssm.mixer_params(1024) == 5'014'344.0);
  CHECK(small.params.state_space == 36.0 * 5'014'344);
  // MLP 3 x 1024 x 2048; 2 norms a layer and the final one; untied 32784 x 1024 twice.
  CHECK(small.params.dense_mlp == 36.0 * 6'291'456);
  CHECK(small.params.norms == (2.0 * 36 + 1) * 1024);
  CHECK(small.params.embedding == 32'784.0 * 1024);
  CHECK(small.params.lm_head == 32'784.0 * 1024);
  // A mixer, an attention and an MLP each end in an all-reduce under TP (vLLM's
  // FalconH1ParallelHybrid: o_proj, the mixer's out_proj and down_proj are RowParallelLinear).
  CHECK(small.sublayers() == 3 * 36);
  CHECK(small.max_position == 16384);
  // Conv (4 - 1) x (1536 + 2 x 128), SSM 24 heads x 64 x 128, per sequence per layer.
  CHECK(small.ssm.conv_state_elements() == 3.0 * 1792);
  CHECK(small.ssm.ssm_state_elements() == 1536.0 * 128);
  CHECK(small.tp_indivisible(8).empty()); // 1 attention and 3 Mamba heads a rank
  CHECK(small.tp_indivisible(3) == "8 attention heads");
  CHECK(small.tp_indivisible(16) == "8 attention heads");

  // The 7B: 44 layers of attention 3072 x 1536 + 2 x 3072 x 256 + 1536 x 3072 = 11,010,048,
  // mixer 3072 x (2 x 3072 + 2 x 256 + 24) + (3072 + 512) x 5 + 72 + gated norm 3072 + 3072 x 3072
  // = 29,979,208, MLP 3 x 3072 x 12288 = 113,246,208, norms 2 x 3072; + final norm + untied
  // 130048 x 3072 embedding and lm_head.
  std::ifstream in(config_path("hybrid/falcon-h1-7b-base"));
  auto config = nlohmann::json::parse(in);
  const auto big = parse_hf_config(config, "c.json");
  CHECK(big.ssm.mixer_params(3072) == 29'979'208.0);
  CHECK(big.params_total ==
        44.0 * (11'010'048 + 29'979'208 + 113'246'208 + 6144) + 3072 + 2 * 130'048.0 * 3072);
  CHECK(big.attention_layers() == 44);
  CHECK(big.global_layers() == 44);
  CHECK(provenance_of(big, "ssm_inner") == "c.json:/mamba_d_ssm");
  // mamba_rms_norm false drops the 44 gated norms of 3072.
  auto no_norm = config;
  no_norm["mamba_rms_norm"] = false;
  CHECK(parse_hf_config(no_norm, "c.json").params_total == big.params_total - 44.0 * 3072);
  // projectors_bias puts a bias on out_proj (3072); mamba_proj_bias on in_proj only (6680).
  auto out_bias = config;
  out_bias["projectors_bias"] = true;
  CHECK(parse_hf_config(out_bias, "c.json").params_total == big.params_total + 44.0 * 3072);
  auto in_bias = config;
  in_bias["mamba_proj_bias"] = true;
  CHECK(parse_hf_config(in_bias, "c.json").params_total == big.params_total + 44.0 * 6680);
  // mamba_d_head "auto" (FalconH1Config's default) is mamba_d_ssm / mamba_n_heads.
  auto automatic = config;
  automatic["mamba_d_head"] = "auto";
  CHECK(parse_hf_config(automatic, "c.json").params_total == big.params_total);
  automatic.erase("mamba_d_head");
  CHECK(parse_hf_config(automatic, "c.json").params_total == big.params_total);
  // mamba_d_ssm null: mamba_expand x hidden_size, 24 "auto" heads of 256.
  auto expanded = config;
  expanded["mamba_d_ssm"] = nullptr;
  expanded["mamba_d_head"] = "auto";
  const auto wide = parse_hf_config(expanded, "c.json");
  CHECK(wide.ssm.inner == 6144);
  CHECK(provenance_of(wide, "ssm_inner") ==
        "derived: mamba_expand x hidden_size (mamba_d_ssm null)");
  // Refusals name the field.
  auto missing = config;
  missing.erase("mamba_d_ssm");
  CHECK_THROWS_WITH(parse_hf_config(missing, "c.json"),
                    "c.json:/mamba_d_ssm: required field is missing (null for mamba_expand x "
                    "hidden_size)");
  auto mismatched = config;
  mismatched["mamba_d_head"] = 64;
  CHECK_THROWS_WITH(parse_hf_config(mismatched, "c.json"),
                    Catch::StartsWith("c.json:/mamba_n_heads: 24 heads of 64 (mamba_d_head) must "
                                      "make the mixer's 3072 channels"));
  auto groups = config;
  groups["mamba_n_groups"] = 5;
  CHECK_THROWS_WITH(parse_hf_config(groups, "c.json"),
                    Catch::StartsWith("c.json:/mamba_n_groups: must divide the 24 Mamba heads"));
  auto no_state = config;
  no_state.erase("mamba_d_state");
  CHECK_THROWS_WITH(parse_hf_config(no_state, "c.json"),
                    "c.json:/mamba_d_state: required field is missing");
}
