// A serving replica's layout: how its tp GPUs split the experts and the attention
// (docs/model.md, "Expert parallelism" and "Attention data parallelism").

#include <rightsize/estimate/memory.hpp>
#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

namespace rightsize {

Parallelism serving_parallelism(int tp, int pp, int ep, int attention_dp) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.ep = ep;
  p.expert_tp = ep > 0 && tp % ep == 0 ? tp / ep : 1;
  p.attention_dp = attention_dp;
  return p;
}

std::optional<std::string> attention_dp_refusal(const Spec& spec, const Parallelism& p) {
  if (p.attention_dp == 1) {
    return std::nullopt;
  }
  if (spec.workload.is_training()) {
    return "attention data parallelism is a serving layout; training's data parallelism is --dp";
  }
  const EngineTraits& engine = engine_traits(spec.workload.inference.engine);
  const AttentionDpTraits& t = engine.attention_dp;
  if (!t.runs) {
    return std::string(t.why);
  }
  const ModelArch& m = spec.model;
  if (m.attention_layers() == 0 || m.encoder_decoder || m.encoder_only || m.diffusion ||
      !spec.keeps_kv_cache()) {
    return fmt::format("attention data parallelism splits a decoder's KV cache by request; {} "
                       "keeps none to split",
                       spec.keeps_kv_cache() ? m.family : std::string("this workload"));
  }
  if (p.tp % p.attention_dp != 0) {
    return fmt::format(
        "attention groups must divide the {} tensor-parallel GPUs, got {}", p.tp, p.attention_dp);
  }
  if (p.pp > 1) {
    return "attention data parallelism with pipeline stages is not modelled";
  }
  if (t.one_gpu_groups && p.attention_dp != p.tp) {
    return fmt::format("{} runs attention data-parallel on every GPU (attention TP 1): use "
                       "--attention-dp {} with --tp {}",
                       engine.display_name,
                       p.tp,
                       p.tp);
  }
  if (t.needs_experts && !m.is_moe()) {
    return std::string(t.why);
  }
  if (t.needs_experts && p.expert_shards() != p.tp) {
    return fmt::format("{}'s attention data parallelism spreads the experts over all {} GPUs: "
                       "give --ep {}",
                       engine.display_name,
                       p.tp,
                       p.tp);
  }
  return std::nullopt;
}

} // namespace rightsize
