// What rightsize plans on each serving engine: one row per engine (spec/engine_traits.hpp), and
// the refusals built from the rows. Sources checked 2026-11 (docs/spec.md).

#include <rightsize/core/error.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

namespace rightsize {

namespace {

constexpr std::string_view k_not_modelled = "rightsize's model (docs/spec.md)";

// In the order of k_engine_names.
const std::vector<EngineTraits> k_engines{
    {Engine::vllm,
     "vLLM",
     true,
     "vllm/config.py _get_and_verify_max_len: a max_model_len above the model's context is "
     "refused unless an environment variable overrides",
     true,
     "vLLM engine arguments, --dtype auto: fp16 for fp32 and fp16 checkpoints",
     {true, "", "vLLM pooling models: encoder-only models and decoders as embedders"},
     {true,
      "",
      "vllm/model_executor/models/whisper.py, with cross-attention KV in its own cache spec "
      "(CrossAttentionSpec, vllm/v1/kv_cache_interface.py), behind /v1/audio/transcriptions"},
     {false,
      "vLLM has no T5 model: its registry lists no T5ForConditionalGeneration and dropped every "
      "encoder-decoder but Whisper with its V0 engine (vllm/model_executor/models/registry.py)",
      "vllm/model_executor/models/registry.py"},
     ImageEncoders::dual_encoders,
     "vLLM embeds images with CLIPModel and SiglipModel (text and vision towers), not with a {} "
     "vision-only or classifier checkpoint: use transformers",
     "vLLM supported models, 'Multimodal embedding' table (docs.vllm.ai/en/latest/models/"
     "supported_models/; SigLIP2 in vllm-project/vllm#27566)",
     {true,
      false,
      true,
      true,
      "vLLM's data parallelism on a dense model is independent replicas (--dp), not attention "
      "data parallelism",
      "vLLM docs serving/data_parallel_deployment.md: --data-parallel-size replicates attention "
      "for MoE models, 'expert layers form a tensor parallel group of size DP x TP' (or expert "
      "parallel with --enable-expert-parallel); 'Data Parallel attention can be combined with "
      "Tensor Parallel attention'; for dense models the DP ranks are independent"},
     {true,
      true,
      true,
      "vllm/config/speculative.py @002e77c1f0ef: SpeculativeMethod includes \"draft_model\", "
      "\"eagle\", \"eagle3\" and the MTP types (\"mtp\", \"deepseek_mtp\", ...), given as "
      "--speculative-config JSON with num_speculative_tokens",
      true,
      "vLLM automatic prefix caching (--enable-prefix-caching, on by default in the V1 engine): "
      "docs.vllm.ai/en/latest/design/prefix_caching.html"},
     {true,
      "",
      "vLLM docs features/nixl_connector_usage.md: prefill and decode instances each started with "
      "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}', "
      "a proxy routing each request to one of each"}},
    {Engine::sglang,
     "SGLang",
     true,
     "sglang model_config.py: a context_length above the model's context is refused unless an "
     "environment variable overrides",
     true,
     "SGLang --dtype auto, as vLLM's: fp16 for fp32 checkpoints",
     {true, "", "SGLang embedding models (--is-embedding)"},
     {false,
      "how SGLang holds Whisper's cross-attention keys and values is not modelled",
      "python/sglang/srt/models/whisper.py; its cross-attention cache is not in rightsize's model"},
     {false, "SGLang has no T5 model (python/sglang/srt/models)", "python/sglang/srt/models"},
     ImageEncoders::none,
     "",
     k_not_modelled,
     {true,
      false,
      false,
      true,
      "",
      "SGLang server_args --enable-dp-attention with --dp-size N: attention in N groups of "
      "tp_size / N GPUs, each holding the KV cache of its own requests ('If you do not use DP "
      "attention, KV cache will be duplicated among all TP ranks', docs/references/deepseek.md); "
      "MoE over all tp_size GPUs (moe_tp_size = tp_size // ep_size)"},
     {true,
      true,
      true,
      "sglang docs/advanced_features/speculative_decoding.md @067ad4d335bb: "
      "--speculative-algorithm "
      "EAGLE, EAGLE3, NEXTN (MTP), STANDALONE (a smaller draft model)",
      true,
      "SGLang RadixAttention prefix cache, on unless --disable-radix-cache (server_args.py)"},
     {true,
      "",
      "SGLang docs advanced_features/pd_disaggregation.md: --disaggregation-mode prefill|decode "
      "with --disaggregation-transfer-backend (mooncake, nixl), behind sglang_router "
      "--pd-disaggregation"}},
    {Engine::tensorrt_llm,
     "TensorRT-LLM",
     false,
     "TensorRT-LLM serves up to its build's max_seq_len: NVIDIA's published GPT-J 6B runs use "
     "2048 + 2048 tokens on a 2048-token model",
     true,
     "rightsize's assumption: an fp32 checkpoint is built at fp16, as vLLM and SGLang serve it",
     {false, "", "rightsize's model: no TensorRT-LLM embedding data (docs/spec.md)"},
     {false,
      "TensorRT-LLM runs Whisper through its own example runtime, which rightsize does not model",
      "TensorRT-LLM examples/models/core/whisper: its own encoder and decoder engines"},
     {false,
      "TensorRT-LLM runs T5 as separate encoder and decoder engines, splitting its KV cache "
      "between self- and cross-attention by cross_kv_cache_fraction (0.5 by default), which "
      "rightsize does not model",
      "TensorRT-LLM KvCacheConfig.cross_kv_cache_fraction"},
     ImageEncoders::none,
     "",
     k_not_modelled,
     {true,
      true,
      false,
      false,
      "TensorRT-LLM turns it on in the extra_llm_api_options YAML (enable_attention_dp), which "
      "rightsize's deploy does not write: estimate evaluates it, plans do not choose it",
      "TensorRT-LLM LLM API enable_attention_dp (False by default): every rank attends to its own "
      "requests with attention TP 1 and its own KV cache (TensorRT-LLM _torch mapping.py, "
      "NVIDIA Dynamo docs dp-rank-routing)"},
     {true,
      true,
      true,
      "TensorRT-LLM docs/source/features/speculative-decoding.md @04c8822cc42f: MTPDecodingConfig "
      "(DeepSeek), Eagle3DecodingConfig, DraftTargetDecodingConfig, each with max_draft_len, set "
      "through speculative_config in the --config YAML of trtllm-serve",
      true,
      "TensorRT-LLM KvCacheConfig.enable_block_reuse (KV cache reuse of shared prefixes, on by "
      "default in the LLM API)"},
     {true,
      "",
      "TensorRT-LLM docs/source/features/disagg-serving.md: context and generation servers "
      "(trtllm-serve disaggregated -c config.yaml) with cache_transceiver_config in each "
      "server's options"}},
    {Engine::transformers,
     "transformers",
     false,
     "transformers warns past max_position_embeddings; learned position embeddings (GPT-2, "
     "StarCoder) have no row past the last, which context_enforced checks apart",
     false,
     "transformers from_pretrained keeps a float32 checkpoint in float32 (torch_dtype \"auto\")",
     {true, "", "transformers AutoModel, a forward pass per batch"},
     {true, "", "transformers WhisperForConditionalGeneration.generate"},
     {true, "", "transformers T5ForConditionalGeneration.generate"},
     ImageEncoders::all,
     "",
     "transformers ViTModel, CLIPModel, SiglipModel, ResNetModel and their classifiers",
     {false,
      false,
      false,
      false,
      "transformers' generate runs one process per model: no attention data parallelism",
      "transformers generate"},
     {false,
      false,
      true,
      "transformers generation strategies: assisted decoding with a smaller assistant_model of "
      "the same tokenizer (generate(..., assistant_model=...)); no MTP or EAGLE head",
      false,
      "transformers generate keeps no cache across requests: each request prefills its whole "
      "prompt"},
     {false,
      "transformers' generate runs prefill and decode in one process",
      "transformers generate"}},
};

// "a", "a and b", "a, b and c" (`last` "or": "a, b or c").
std::string listed(const std::vector<std::string_view>& names, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      out += i + 1 == names.size() ? fmt::format(" {} ", last) : std::string(", ");
    }
    out += names[i];
  }
  return out;
}

// The names of the engines whose `verdict` plans the kind of model.
std::vector<std::string_view> planned_on(EngineVerdict EngineTraits::*verdict) {
  std::vector<std::string_view> out;
  for (const EngineTraits& t : k_engines) {
    if ((t.*verdict).plans) {
      out.push_back(to_string(t.engine));
    }
  }
  return out;
}

std::vector<std::string_view> image_encoders_on(ImageEncoders which) {
  std::vector<std::string_view> out;
  for (const EngineTraits& t : k_engines) {
    if (t.image_encoders == which) {
      out.push_back(to_string(t.engine));
    }
  }
  return out;
}

} // namespace

const std::vector<EngineTraits>& engine_traits() {
  return k_engines;
}

const EngineTraits& engine_traits(Engine e) {
  for (const EngineTraits& t : k_engines) {
    if (t.engine == e) {
      return t;
    }
  }
  throw InternalError("src/spec/engine_traits.cpp has no row for engine " +
                      std::string(to_string(e)));
}

std::optional<std::string> embedding_engine_refusal(Engine engine) {
  const EngineTraits& t = engine_traits(engine);
  if (t.embedding.plans) {
    return std::nullopt;
  }
  return fmt::format("rightsize does not model {} for embedding workloads: use {}",
                     t.display_name,
                     listed(planned_on(&EngineTraits::embedding), "or"));
}

std::optional<std::string> transcription_engine_refusal(Engine engine) {
  const EngineTraits& t = engine_traits(engine);
  if (t.transcription.plans) {
    return std::nullopt;
  }
  return fmt::format("rightsize models Whisper transcription on {} ({})",
                     listed(planned_on(&EngineTraits::transcription), "and"),
                     t.transcription.why);
}

std::optional<std::string> text_to_text_engine_refusal(const ModelArch& m, Engine engine) {
  const EngineTraits& t = engine_traits(engine);
  if (t.text_to_text.plans) {
    return std::nullopt;
  }
  return fmt::format("rightsize plans {} text-to-text generation on {} only ({})",
                     m.family,
                     listed(planned_on(&EngineTraits::text_to_text), "and"),
                     t.text_to_text.why);
}

std::optional<std::string> image_engine_refusal(const ModelArch& m, Engine engine) {
  const EngineTraits& t = engine_traits(engine);
  if (!m.image || t.image_encoders == ImageEncoders::all ||
      (t.image_encoders == ImageEncoders::dual_encoders && m.image->text > 0)) {
    return std::nullopt;
  }
  if (t.image_encoders == ImageEncoders::dual_encoders) {
    return fmt::format(fmt::runtime(t.image_encoders_why), m.family);
  }
  return fmt::format("rightsize plans image encoders on {}, and CLIP and SigLIP dual encoders also "
                     "on {}",
                     listed(image_encoders_on(ImageEncoders::all), "and"),
                     listed(image_encoders_on(ImageEncoders::dual_encoders), "and"));
}

std::string engine_name(const Spec& spec) {
  return spec.generates_images() ? "diffusers"
                                 : std::string(to_string(spec.workload.inference.engine));
}

} // namespace rightsize
