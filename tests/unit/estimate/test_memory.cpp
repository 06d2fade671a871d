#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

Spec spec_of(nlohmann::json body) {
  if (body["model"].is_string()) {
    body["model"] = config_path(body["model"].get<std::string>());
  }
  return parse_spec(body, "test.json");
}

Parallelism tp(int n) {
  Parallelism p;
  p.tp = n;
  return p;
}

// GPT-3 175B as Korthikanti et al. describe it: 4h GELU MLP, dropout, no flash attention.
Spec gpt3(bool sequence_parallel, const char* recompute = "none") {
  return spec_of({{"model",
                   {{"layers", 96},
                    {"hidden_size", 12288},
                    {"heads", 96},
                    {"vocab_size", 51200},
                    {"intermediate_size", 49152},
                    {"gated_mlp", false}}},
                  {"workload",
                   {{"type", "training"},
                    {"seq_len", 2048},
                    {"global_batch", 1536},
                    {"micro_batch", 1},
                    {"dropout", true},
                    {"flash_attention", false},
                    {"recompute", recompute},
                    {"sequence_parallel", sequence_parallel}}}});
}

} // namespace

TEST_CASE("memory: KV cache per token", "[memory]") {
  // Llama-3.1-8B in bf16: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes = 128 KiB.
  const Spec llama = spec_of({{"model", "llama-3.1-8b"}, {"precision", "bf16"}});
  const auto g1 = kv_cache_geometry(llama, tp(1), constants());
  CHECK(g1.per_token_global == kib(128));
  CHECK(g1.per_token_local == bytes(0));
  // tp 8: one KV head per rank; tp 16 would need to replicate the 8 heads: still one per rank.
  CHECK(kv_cache_geometry(llama, tp(8), constants()).per_token_global == kib(16));
  CHECK(kv_cache_geometry(llama, tp(16), constants()).per_token_global == kib(16));
  // fp8 KV cache halves it, independent of the weights' dtype.
  const Spec fp8 = spec_of(
      {{"model", "llama-3.1-8b"}, {"precision", {{"weights", "bf16"}, {"kv_cache", "fp8"}}}});
  CHECK(kv_cache_geometry(fp8, tp(1), constants()).per_token_global == kib(64));
  // Paged in vLLM's 16-token blocks: 2049 tokens take 2064 slots.
  CHECK(g1.per_sequence(2049) == kib(128) * 2064.0);
  // DeepSeek-V3 MLA: (kv_lora_rank 512 + rope 64) x 61 layers x 2 bytes, the same on every rank.
  const Spec v3 = spec_of({{"model", "deepseek-v3"}, {"precision", "bf16"}});
  CHECK(kv_cache_geometry(v3, tp(1), constants()).per_token_global == bytes(576.0 * 61 * 2));
  CHECK(kv_cache_geometry(v3, tp(8), constants()).per_token_global == bytes(576.0 * 61 * 2));
  // Mistral-7B v0.1: every layer slides over 4096 tokens: an 8192-token sequence keeps only the
  // window (plus one block being written).
  const Spec mistral = spec_of({{"model", "mistral-7b-v0.1"}});
  const auto gm = kv_cache_geometry(mistral, tp(1), constants());
  CHECK(gm.per_token_local == kib(128));
  CHECK(gm.per_sequence(8192) == kib(128) * 4112.0);
  CHECK(gm.per_sequence(1000) == kib(128) * 1008.0);
  // Llava-NeXT on Mistral-7B-Instruct-v0.2 (sliding_window null): every layer global, 32 x 2 x 8
  // x 128 x 2 bytes = 128 KiB per token. Its image tokens are prompt tokens: two 1024 x 768
  // images (2 x 2340 tokens) and 1000 words of text, 200 out: 5880 tokens, 5888 paged slots.
  const Spec next = spec_of({{"model", "vision/llava-v1.6-mistral-7b"},
                             {"precision", "bf16"},
                             {"workload",
                              {{"type", "inference"},
                               {"input_tokens", 1000},
                               {"output_tokens", 200},
                               {"images_per_request", 2},
                               {"image_width", 1024},
                               {"image_height", 768}}}});
  const auto gn = kv_cache_geometry(next, tp(1), constants());
  CHECK(gn.per_token_global == kib(128));
  CHECK(gn.per_token_local == bytes(0));
  const auto& inf = next.workload.inference;
  CHECK(inf.prompt_tokens() + inf.output_tokens == 5880);
  CHECK(gn.per_sequence(inf.prompt_tokens() + inf.output_tokens) == kib(128) * 5888.0);
}

TEST_CASE("memory: weights per GPU under tensor and pipeline parallelism", "[memory]") {
  const Spec llama70 = spec_of({{"model", "llama-3.1-70b"}});
  const double whole = weight_bytes(llama70.model, llama70.weights).total().si();
  CHECK(whole == Approx(141.1e9).epsilon(0.001));
  // tp 8 splits everything but the norms (8 KV heads, one per rank).
  CHECK(weights_per_gpu(llama70.model, llama70.weights, tp(8)).total().si() ==
        Approx(whole / 8).epsilon(0.001));
  // pp 2: half the layers, and the larger of embedding and lm_head.
  Parallelism pp2;
  pp2.pp = 2;
  const auto half = weights_per_gpu(llama70.model, llama70.weights, pp2);
  CHECK(half.embedding.si() == Approx(128256.0 * 8192 * 2));
  CHECK(half.total().si() == Approx(whole / 2).epsilon(0.01));
  // Mixtral with ep 8: each GPU holds one expert per layer whole; attention split by tp.
  const Spec mixtral = spec_of({{"model", "mixtral-8x7b"}});
  Parallelism ep8;
  ep8.tp = 8;
  ep8.ep = 8;
  const auto wm = weights_per_gpu(mixtral.model, mixtral.weights, ep8);
  CHECK(wm.routed_experts.si() ==
        Approx(weight_bytes(mixtral.model, mixtral.weights).routed_experts.si() / 8));
}

TEST_CASE("memory: training state bytes per parameter and ZeRO sharding", "[memory]") {
  const Gpu& h100 = catalog().resolve("H100", "test");
  // 70B with the default mixed recipe: 2 + 4 + 4 + 8 = 18 bytes per parameter, 1.27 TB before
  // sharding.
  const Spec train =
      spec_of({{"model", "llama-3.1-70b"},
               {"workload", {{"type", "training"}, {"seq_len", 4096}, {"global_batch", 64}}}});
  const auto e = estimate_memory(train, h100, Parallelism{}, constants());
  CHECK(e.bytes_per_param == 18.0);
  const double state = (e.per_gpu.weights + e.per_gpu.gradients + e.per_gpu.optimizer).si();
  CHECK(state == Approx(1.27e12).epsilon(0.002));
  CHECK_FALSE(e.fits);
  // ZeRO-3 over 8 data-parallel ranks shards all three terms.
  auto zero3 = train;
  zero3.workload.training.zero_stage = 3;
  Parallelism dp8;
  dp8.dp = 8;
  const auto z = estimate_memory(zero3, h100, dp8, constants());
  CHECK((z.per_gpu.weights + z.per_gpu.gradients + z.per_gpu.optimizer).si() ==
        Approx(1.27e12 / 8).epsilon(0.002));
  // ZeRO-1 shards only optimizer states (and master weights).
  auto zero1 = train;
  zero1.workload.training.zero_stage = 1;
  const auto z1 = estimate_memory(zero1, h100, dp8, constants());
  CHECK(z1.per_gpu.weights.si() == Approx(70.55e9 * 2).epsilon(0.002));
  CHECK(z1.per_gpu.optimizer.si() == Approx(70.55e9 * 12 / 8).epsilon(0.002));
  // Other recipes and optimizers.
  CHECK(training_precision_preset("pure-bf16").has_value());
  auto pure = train;
  pure.workload.training.precision = *training_precision_preset("pure-bf16");
  CHECK(estimate_memory(pure, h100, Parallelism{}, constants()).bytes_per_param == 8.0);
  auto sgd = train;
  sgd.workload.training.optimizer = Optimizer::sgd;
  CHECK(estimate_memory(sgd, h100, Parallelism{}, constants()).bytes_per_param == 14.0);
  auto adam8 = train;
  adam8.workload.training.optimizer = Optimizer::adam_8bit;
  CHECK(estimate_memory(adam8, h100, Parallelism{}, constants()).bytes_per_param ==
        Approx(2.0 + 4.0 + 4.0 + 2.0 * (1.0 + 4.0 / 2048.0))); // w + grad + master + 8-bit m, v
}

TEST_CASE("memory: Korthikanti activation coefficients", "[memory]") {
  // GPT-3 without parallelism: s*b*h*34 + 5*a*s^2*b per layer.
  const auto t1 = training_activations_per_layer(gpt3(false), tp(1));
  CHECK(t1.per_layer_sbh == 34.0);
  CHECK(t1.per_layer_s2 == 5.0);
  const double sbh = 2048.0 * 1 * 12288;
  const double as2b = 96.0 * 2048 * 2048 * 1;
  CHECK(t1.per_layer.si() == Approx(sbh * 34 + 5 * as2b));
  // Tensor parallel 8 without sequence parallelism: sbh*(10 + 24/t) + 5as^2b/t (eq. 2).
  CHECK(training_activations_per_layer(gpt3(false), tp(8)).per_layer.si() ==
        Approx(sbh * (10 + 24.0 / 8) + 5 * as2b / 8));
  // With sequence parallelism everything is divided by t (eq. 4).
  CHECK(training_activations_per_layer(gpt3(true), tp(8)).per_layer.si() ==
        Approx(sbh * 34 / 8 + 5 * as2b / 8));
  // Selective recompute drops the attention s^2 terms (eq. 6); full recompute keeps 2sbh.
  CHECK(training_activations_per_layer(gpt3(true, "selective"), tp(8)).per_layer.si() ==
        Approx(sbh * 34 / 8));
  CHECK(training_activations_per_layer(gpt3(true, "full"), tp(8)).per_layer.si() ==
        Approx(2 * sbh / 8));
  // SwiGLU changes the 34: Llama-2-7B (I = 11008) without dropout: 8 replicated + 8 for Q, K, V
  // and the attention output + 8 * 11008 / 4096 for gate, SiLU(gate), up and their product.
  const Spec llama =
      spec_of({{"model", "llama-2-7b"},
               {"workload", {{"type", "training"}, {"seq_len", 4096}, {"global_batch", 8}}}});
  CHECK(training_activations_per_layer(llama, tp(1)).per_layer_sbh ==
        Approx(8.0 + 8.0 + 8.0 * 11008 / 4096));
  CHECK(training_activations_per_layer(llama, tp(1)).per_layer_s2 == 0.0); // flash attention
}

TEST_CASE("memory: pipeline stage 1 holds one micro-batch per stage in flight", "[memory]") {
  const Gpu& h100 = catalog().resolve("H100", "test");
  Spec s = spec_of({{"model", "llama-3.1-70b"},
                    {"workload",
                     {{"type", "training"},
                      {"seq_len", 4096},
                      {"global_batch", 64},
                      {"recompute", "selective"}}}});
  Parallelism p4;
  p4.tp = 8;
  p4.pp = 4;
  const auto per_layer = training_activations_per_layer(s, p4).per_layer;
  const auto e = estimate_memory(s, h100, p4, constants());
  // 20 layers on stage 1, 4 micro-batches in flight.
  CHECK(e.per_gpu.activations.si() >= (per_layer * 20.0 * 4.0).si());
  s.workload.training.pipeline_interleave = 2;
  const auto interleaved = estimate_memory(s, h100, p4, constants());
  CHECK(interleaved.per_gpu.activations.si() ==
        Approx((per_layer * 20.0 * 4.0 * (1.0 + 3.0 / 8.0)).si()));
}

TEST_CASE("memory: inference max batch and longest context are consistent", "[memory]") {
  const Gpu& l40s = catalog().resolve("L40S", "test");
  const Spec s = spec_of(
      {{"model", "llama-3.1-8b"},
       {"workload", {{"type", "inference"}, {"input_tokens", 2048}, {"output_tokens", 512}}}});
  const auto e = estimate_memory(s, l40s, Parallelism{}, constants());
  REQUIRE(e.max_batch > 0);
  CHECK(e.batch == e.max_batch); // no concurrency: the largest batch that fits
  CHECK(e.fits);
  CHECK(estimate_memory(s, l40s, Parallelism{}, constants(), e.max_batch).fits);
  CHECK_FALSE(estimate_memory(s, l40s, Parallelism{}, constants(), e.max_batch + 1).fits);
  // vLLM uses 90% of the usable 46068 MiB.
  CHECK(e.budget.si() == Approx(mib(46068).si() * 0.9));
  // The pool holds max_batch sequences, and max_context tokens of one sequence.
  CHECK(e.kv_pool >= e.kv_per_sequence * static_cast<double>(e.max_batch));
  CHECK(e.max_context > 2560);
  // Does not fit on a T4 (16 GB) in bf16.
  const auto t4 = estimate_memory(s, catalog().resolve("T4", "test"), Parallelism{}, constants());
  CHECK_FALSE(t4.fits);
  CHECK(t4.max_batch == 0);
}

TEST_CASE("memory: LoRA trains adapters only, QLoRA stores the base in nf4", "[memory]") {
  const Gpu& a10g = catalog().resolve("A10G", "test");
  const Spec lora = spec_of({{"model", "llama-2-7b"},
                             {"workload",
                              {{"type", "finetune"},
                               {"method", "lora"},
                               {"lora_rank", 16},
                               {"lora_targets", {"q_proj", "v_proj"}},
                               {"seq_len", 512}}}});
  const auto e = estimate_memory(lora, a10g, Parallelism{}, constants());
  // r * (in + out) for q and v in 32 layers: 16 * (4096 + 4096) * 2 * 32 = 8.4M.
  CHECK(e.trainable_params == Approx(16.0 * 8192 * 2 * 32));
  CHECK(e.per_gpu.optimizer.si() == Approx(e.trainable_params * 8));
  CHECK(e.per_gpu.weights.si() == Approx(13.48e9 + e.trainable_params * 4).epsilon(0.002));
  Spec qlora = lora;
  qlora = spec_of({{"model", "llama-2-7b"},
                   {"workload", {{"type", "finetune"}, {"method", "qlora"}, {"seq_len", 512}}}});
  const auto q = estimate_memory(qlora, a10g, Parallelism{}, constants());
  // nf4 linear layers with double-quantized constants, bf16 embeddings and norms.
  CHECK(q.per_gpu.weights.si() < 4.2e9);
  CHECK(q.per_gpu.weights.si() > 3.6e9);
}

TEST_CASE("memory: LoRA adapter parameters by target as PEFT counts them", "[memory]") {
  const auto adapters = [](nlohmann::json targets) {
    return lora_parameters(spec_of({{"model", "llama-2-7b"},
                                    {"workload",
                                     {{"type", "finetune"},
                                      {"method", "lora"},
                                      {"lora_rank", 16},
                                      {"lora_targets", std::move(targets)},
                                      {"seq_len", 512}}}}));
  };
  // Llama-2-7B, r = 16: q and v 16 x (4096 + 4096) each per layer; gate, up and down
  // 16 x (4096 + 11008) each; 32 layers. PEFT's print_trainable_parameters: 8,388,608 for q and
  // v, 39,976,960 for every linear layer.
  CHECK(adapters({"q_proj", "v_proj"}) == 8'388'608.0);
  CHECK(adapters({"all-linear"}) == 39'976'960.0);
  CHECK(adapters({"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}) ==
        39'976'960.0);
  CHECK(adapters({"gate_proj"}) == 16.0 * (4096 + 11008) * 32);
  CHECK(adapters({"down_proj"}) == 16.0 * (11008 + 4096) * 32);
  CHECK(adapters({"up_proj", "o_proj"}) == 16.0 * (4096 + 11008 + 4096 + 4096) * 32);
}

TEST_CASE("memory: constants can be overridden, unknown names are errors", "[memory]") {
  Constants c = constants();
  c.set("cuda_context_mib", 600, "--assume cuda_context_mib=600");
  CHECK(c.get("cuda_context_mib") == 600);
  CHECK_THROWS_WITH(c.set("cuda_contxt_mib", 1, "--assume"),
                    "--assume: unknown constant \"cuda_contxt_mib\" (did you mean "
                    "\"cuda_context_mib\"?)");
}

// Issue 16: only attention layers keep a KV cache; each Mamba layer keeps a state of constant
// size per sequence, in the activations' dtype (conv) and mamba_ssm_cache_dtype (SSM).
TEST_CASE("memory: KV cache and Mamba state of hybrids", "[memory]") {
  const Spec jamba = spec_of({{"model", "hybrid/jamba-1.5-mini"}, {"precision", "bf16"}});
  const auto g = kv_cache_geometry(jamba, tp(1), constants());
  // 4 attention layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes (was 32 layers as a Llama).
  CHECK(g.per_token_global.si() == 4.0 * 2 * 8 * 128 * 2);
  // 28 Mamba layers x (3 x 8192 + 8192 x 16) x 2 bytes.
  CHECK(g.state.si() == 28.0 * 155'648 * 2);
  CHECK(g.per_sequence(1000).si() ==
        Approx(16'384.0 * 1008 + 8'716'288.0)); // vLLM's 16-token pages
  CHECK(kv_cache_geometry(jamba, tp(2), constants()).state.si() == 28.0 * 155'648);

  // Nemotron-H keeping its SSM state in fp32 (mamba_ssm_cache_dtype), conv state in bf16.
  nlohmann::json config;
  std::ifstream(config_path("hybrid/nemotron-h-8b")) >> config;
  config["mamba_ssm_cache_dtype"] = "float32";
  const Spec nemotron = parse_spec({{"model", config}, {"precision", "bf16"}}, "test.json");
  CHECK(kv_cache_geometry(nemotron, tp(1), constants()).state.si() ==
        24.0 * (30'720 * 2 + 1'048'576 * 4));

  // Mamba alone: no KV cache, the same state at any length.
  const Spec mamba = spec_of({{"model", "hybrid/mamba-130m"}, {"precision", "bf16"}});
  const auto m = kv_cache_geometry(mamba, tp(1), constants());
  CHECK(m.per_token_global.si() == 0.0);
  CHECK(m.per_sequence(10).si() == m.per_sequence(1'000'000).si());
  CHECK(m.state.si() == 24.0 * 29'184 * 2);

  // Bamba-9B: KV on its 3 attention layers only, 3 x 2 x 8 x 128 x 2 bytes = 12 KiB a token;
  // 29 Mamba-2 layers x (3 x 8448 + 8192 x 128) x 2 bytes = 62,287,360 bytes (59.4 MiB) a
  // sequence, whatever its length.
  const Spec bamba = spec_of({{"model", "hybrid/bamba-9b"}, {"precision", "bf16"}});
  const auto b = kv_cache_geometry(bamba, tp(1), constants());
  CHECK(b.per_token_global.si() == 12'288.0);
  CHECK(b.state.si() == 62'287'360.0);
  CHECK(b.per_sequence(1000).si() == Approx(12'288.0 * 1008 + 62'287'360.0));
}

// Issue 16: Qwen3-Next keeps a KV cache on its 12 gated full-attention layers only, and on each of
// its 36 Gated DeltaNet layers a state of constant size per sequence (vLLM's
// gated_delta_net_state_shape and gated_delta_net_state_dtype: conv and recurrent state both in
// the model's dtype unless mamba_ssm_cache_dtype says otherwise).
TEST_CASE("memory: KV cache and linear-attention state of Qwen3-Next", "[memory]") {
  const Spec next =
      spec_of({{"model", "hybrid/qwen3-next-80b-a3b-instruct"}, {"precision", "bf16"}});
  const auto g = kv_cache_geometry(next, tp(1), constants());
  // 12 layers x 2 (K, V) x 2 KV heads x 256 x 2 bytes = 24 KiB a token (48 layers as a plain
  // transformer would give 96 KiB).
  CHECK(g.per_token_global.si() == 24'576.0);
  CHECK(g.per_token_local.si() == 0.0);
  // 36 layers x (conv 3 x (2 x 16 x 128 + 32 x 128) + recurrent 32 x 128 x 128) x 2 bytes
  // = 36 x 548,864 x 2 = 39,518,208 bytes (37.7 MiB) a sequence, whatever its length.
  CHECK(g.state.si() == 39'518'208.0);
  CHECK(g.per_sequence(1000).si() == Approx(24'576.0 * 1008 + 39'518'208.0));
  // TP 2: one KV head and half the state per rank; TP 4 replicates the 2 KV heads.
  const auto two = kv_cache_geometry(next, tp(2), constants());
  CHECK(two.per_token_global.si() == 12'288.0);
  CHECK(two.state.si() == 39'518'208.0 / 2);
  const auto four = kv_cache_geometry(next, tp(4), constants());
  CHECK(four.per_token_global.si() == 12'288.0);
  CHECK(four.state.si() == 39'518'208.0 / 4);
  // Weights: every expert of every layer, 79,674,391,296 x 2 bytes in bf16.
  CHECK(weight_bytes(next.model, next.weights).total().si() == Approx(79'674'391'296.0 * 2));
  // TP 4: each rank holds a quarter of q_proj (with its gate) and o_proj, and one of the 2 KV
  // heads: 12 x (3 x 2048 x 4096 / 4 + 2 x 2048 x 256) x 2 bytes; a quarter of each Gated
  // DeltaNet.
  const WeightBytes w4 = weights_per_gpu(next.model, next.weights, tp(4));
  CHECK(w4.attention.si() == Approx(12.0 * (3 * 2048 * 4096 / 4 + 2 * 2048 * 256) * 2));
  CHECK(w4.state_space.si() == Approx(36.0 * 33'718'464 * 2 / 4));
}

// Issue 16: Falcon-H1 runs attention beside a Mamba-2 mixer in every layer, so every layer keeps
// both a KV cache and a Mamba-2 state (transformers' FalconHybridMambaAttentionDynamicCache: key
// and value caches and conv_states, ssm_states for each of num_hidden_layers).
TEST_CASE("memory: KV cache and Mamba state of Falcon-H1 on every layer", "[memory]") {
  const Spec small = spec_of({{"model", "hybrid/falcon-h1-0.5b-instruct"}, {"precision", "bf16"}});
  const auto g = kv_cache_geometry(small, tp(1), constants());
  // 36 layers x 2 (K, V) x 2 KV heads x 64 x 2 bytes = 18 KiB a token.
  CHECK(g.per_token_global.si() == 18'432.0);
  // 36 layers x (conv 3 x (1536 + 2 x 128) + SSM 24 x 64 x 128) x 2 bytes
  // = 36 x 201,984 x 2 = 14,542,848 bytes (13.9 MiB) a sequence, whatever its length.
  CHECK(g.state.si() == 14'542'848.0);
  CHECK(g.per_sequence(1000).si() == Approx(18'432.0 * 1008 + 14'542'848.0));
  // TP 2: one KV head and 12 Mamba heads a rank; the single B/C group is replicated to one per
  // rank (vLLM's extra_groups_for_head_shards): conv 3 x (768 + 2 x 128) a rank.
  const auto two = kv_cache_geometry(small, tp(2), constants());
  CHECK(two.per_token_global.si() == 9'216.0);
  CHECK(two.state.si() == 36.0 * (3 * (768 + 256) + 768 * 128) * 2);

  // The 7B: 44 x 2 x 2 x 128 x 2 bytes = 44 KiB a token; 44 x (3 x (3072 + 2 x 256) + 24 x 128 x
  // 256) x 2 bytes = 44 x 797,184 x 2 = 70,152,192 bytes (66.9 MiB) a sequence.
  const Spec big = spec_of({{"model", "hybrid/falcon-h1-7b-base"}, {"precision", "bf16"}});
  const auto b = kv_cache_geometry(big, tp(1), constants());
  CHECK(b.per_token_global.si() == 45'056.0);
  CHECK(b.state.si() == 70'152'192.0);
  // Weights: 7,585,648,736 x 2 bytes, the Mamba mixers in state_space.
  const WeightBytes w = weight_bytes(big.model, big.weights);
  CHECK(w.total().si() == Approx(7'585'648'736.0 * 2));
  CHECK(w.state_space.si() == Approx(44.0 * 29'979'208 * 2));
  CHECK(w.attention.si() == Approx(44.0 * 11'010'048 * 2));
}

TEST_CASE("memory: training a model with Mamba layers is refused", "[memory]") {
  CHECK_THROWS_WITH(spec_of({{"model", "hybrid/jamba-1.5-mini"},
                             {"workload", {{"type", "finetune"}, {"seq_len", 2048}}}}),
                    "test.json:/workload/type: training a model with Mamba layers (jamba, 28 of "
                    "32 layers) is not modelled; plan its inference, got \"finetune\"");
  CHECK_THROWS_WITH(spec_of({{"model", "hybrid/qwen3-next-80b-a3b-instruct"},
                             {"workload", {{"type", "finetune"}, {"seq_len", 2048}}}}),
                    "test.json:/workload/type: training a model with linear-attention layers "
                    "(qwen3_next, 36 of 48 layers) is not modelled; plan its inference, got "
                    "\"finetune\"");
}

TEST_CASE("memory: a serving replica's experts span all its GPUs whatever the EP size",
          "[memory]") {
  // TensorRT-LLM's tp_size 8, ep_size 4 is expert parallelism 4 x MoE tensor parallelism 2
  // (mapping.py: moe_tp_size = tp_size // moe_ep_size), SGLang's --tp 8 --ep 4 the same
  // (moe_tp_size = tp_size // ep_size): each GPU holds an eighth of the routed experts, not a
  // quarter.
  const Spec qwen = spec_of({{"model", "qwen3-235b-a22b"}, {"precision", "bf16"}});
  const double routed = weight_bytes(qwen.model, qwen.weights).routed_experts.si();
  const Parallelism ep4 = serving_parallelism(8, 1, 4);
  CHECK(ep4.expert_tp == 2);
  CHECK(weights_per_gpu(qwen.model, qwen.weights, ep4).routed_experts.si() ==
        Approx(routed / 8));
  CHECK(weights_per_gpu(qwen.model, qwen.weights, serving_parallelism(8, 1, 8))
            .routed_experts.si() == Approx(routed / 8));
  // Training is Megatron-Core with --expert-tensor-parallel-size 1: ep 2 of tp 2 keeps half the
  // experts whole on each GPU.
  Parallelism train;
  train.tp = 2;
  train.ep = 2;
  CHECK(weights_per_gpu(qwen.model, qwen.weights, train).routed_experts.si() ==
        Approx(routed / 2));
}

TEST_CASE("memory: attention data parallelism splits the KV cache by request", "[memory]") {
  const Gpu& h200 = catalog().resolve("H200", "test");
  const Spec v3 = spec_of({{"model", "deepseek-v3"},
                           {"precision", {{"weights", "fp8"}, {"kv_cache", "fp8"}}},
                           {"workload",
                            {{"type", "inference"},
                             {"engine", "sglang"},
                             {"input_tokens", 8192},
                             {"output_tokens", 1024},
                             {"concurrency", 20}}}});
  const Parallelism tp8 = serving_parallelism(8, 1, 8);
  const Parallelism adp8 = serving_parallelism(8, 1, 8, 8);
  // The latent is per token what it was (576 values x 61 layers, one byte each); a GPU holds the
  // latents of its own rank's requests only.
  const auto g = kv_cache_geometry(v3, adp8, constants());
  CHECK(g.per_token_global == bytes(576.0 * 61));
  CHECK(g.ranks == 8);
  CHECK(g.sequences_per_gpu(20) == 3); // 20 requests over 8 ranks: 3 on the busiest
  // Attention weights are whole on every GPU (attention TP 1), the experts still an eighth.
  const auto w = weights_per_gpu(v3.model, v3.weights, adp8);
  const auto whole = weight_bytes(v3.model, v3.weights);
  CHECK(w.attention.si() == Approx(whole.attention.si()));
  CHECK(w.routed_experts.si() == Approx(whole.routed_experts.si() / 8));
  // Every rank's pool holds floor(pool / sequence) of its own: 8 times that in the replica.
  const auto e = estimate_memory(v3, h200, adp8, constants());
  const auto per_rank = static_cast<long long>(std::floor(e.kv_pool / e.kv_per_sequence));
  CHECK(e.max_batch == 8 * per_rank);
  CHECK(e.per_gpu.kv_cache.si() == Approx(e.kv_per_sequence.si() * 3));
  // Without it every GPU holds all 20 latents, and replicated attention weights are not paid.
  const auto t = estimate_memory(v3, h200, tp8, constants());
  CHECK(t.per_gpu.kv_cache.si() == Approx(t.kv_per_sequence.si() * 20));
  CHECK(t.max_batch == static_cast<long long>(std::floor(t.kv_pool / t.kv_per_sequence)));
  CHECK(e.max_batch > 4 * t.max_batch);
}

TEST_CASE("memory: which engines and layouts run attention data-parallel", "[memory]") {
  const auto spec = [](const char* engine, const char* model) {
    return spec_of({{"model", model},
                    {"workload", {{"type", "inference"}, {"engine", engine}}}});
  };
  const Parallelism adp8 = serving_parallelism(8, 1, 8, 8);
  CHECK_FALSE(attention_dp_refusal(spec("sglang", "deepseek-v3"), adp8));
  CHECK_FALSE(attention_dp_refusal(spec("vllm", "deepseek-v3"), adp8));
  CHECK_FALSE(attention_dp_refusal(spec("tensorrt-llm", "deepseek-v3"), adp8));
  CHECK_FALSE(attention_dp_refusal(spec("sglang", "deepseek-v3"), serving_parallelism(8, 1, 8, 2)));
  // TensorRT-LLM's attention DP is attention TP 1: as many groups as GPUs.
  CHECK(attention_dp_refusal(spec("tensorrt-llm", "deepseek-v3"), serving_parallelism(8, 1, 8, 4))
            ->find("--attention-dp 8") != std::string::npos);
  // vLLM's data parallelism on a dense model is independent replicas.
  CHECK(attention_dp_refusal(spec("vllm", "llama-3.1-70b"), serving_parallelism(8, 1, 1, 8))
            ->find("replicas") != std::string::npos);
  CHECK(attention_dp_refusal(spec("transformers", "llama-3.1-8b"), serving_parallelism(2, 1, 1, 2)));
  CHECK(attention_dp_refusal(spec("sglang", "deepseek-v3"), serving_parallelism(8, 1, 8, 3))
            ->find("divide") != std::string::npos);
  CHECK(attention_dp_refusal(spec("sglang", "deepseek-v3"), serving_parallelism(8, 2, 8, 8)));
}
