// Speculative decoding's drafter and prefix caching's resident prefixes. Formulas and sources:
// docs/model.md, "Speculative decoding" and "Prefix caching".

#include "decoding.hpp"

#include <algorithm>
#include <cmath>

namespace rightsize::estimate_detail {

namespace {

// The drafter of mtp and eagle: one decoder layer like the target's average one, and a pass
// through the lm_head it shares with the target (DeepSeek-V3 technical report, section 2.2: the
// MTP module shares the embedding and output head; EAGLE, Li et al. 2024: one decoder layer on
// the target's features, with the target's lm_head).
DraftPass one_layer_pass(const Spec& spec, const Parallelism& p, const Constants& c) {
  const ModelArch& m = spec.model;
  Parallelism one_stage = p;
  one_stage.pp = 1;
  const WeightBytes w = weights_per_gpu(m, spec.weights, one_stage);
  const auto layers = static_cast<double>(std::max(1LL, m.layers));
  DraftPass d;
  const double lm_head_share =
      m.params.lm_head > 0 ? m.params.lm_head / (m.params.embedding + m.params.lm_head) : 1.0;
  const Bytes layer =
      (w.attention + w.dense_mlp + w.shared_experts + w.state_space + w.other) / layers;
  d.routed_experts = w.routed_experts / layers;
  d.expert_pick =
      m.is_moe() ? static_cast<double>(m.experts_active) / static_cast<double>(m.experts) : 0.0;
  d.weights = layer + w.embedding * lm_head_share;
  d.resident = layer + d.routed_experts;
  KvCacheGeometry kv = kv_cache_geometry(spec, one_stage, c);
  const auto attention_layers = static_cast<double>(std::max(1LL, m.attention_layers()));
  kv.per_token_global = (kv.per_token_global + kv.per_token_local) / attention_layers;
  kv.per_token_local = Bytes(0);
  kv.window = 0;
  kv.state = Bytes(0);
  d.kv = kv;
  const double lm_head = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double layer_params = (m.params_active - m.params.embedding - m.params.lm_head) / layers;
  d.matmul_flops = 2.0 * (layer_params + lm_head);
  d.attention_flops_per_token =
      2.0 * static_cast<double>(m.heads) * static_cast<double>(m.head_dim + m.v_head_dim);
  d.layers = 1;
  return d;
}

// The drafter of method draft: a whole smaller model, in the target's activation format.
DraftPass draft_model_pass(const Spec& spec, const Parallelism& p, const Constants& c) {
  const ModelArch& m = *spec.workload.inference.speculative->draft;
  Spec draft = spec;
  draft.model = m;
  draft.workload.inference.speculative.reset();
  draft.weights = m.quantization.method != "none"
                      ? m.quantization
                      : quantization_for(spec.precision.activations, spec.precision.activations);
  Parallelism one_stage = p;
  one_stage.pp = 1;
  one_stage.ep = 1;
  one_stage.attention_dp = 1;
  const WeightBytes w = weights_per_gpu(m, draft.weights, one_stage);
  DraftPass d;
  d.routed_experts = w.routed_experts;
  d.weights = w.total() - w.routed_experts - w.vision;
  d.expert_pick =
      m.is_moe() ? static_cast<double>(m.experts_active) / static_cast<double>(m.experts) : 0.0;
  d.resident = w.total();
  d.kv = kv_cache_geometry(draft, one_stage, c);
  d.matmul_flops = forward_flops(m, 1.0, 0.0).si();
  d.attention_flops_per_token = 2.0 * static_cast<double>(m.heads) *
                                static_cast<double>(m.head_dim + m.v_head_dim) *
                                static_cast<double>(m.attention_layers());
  d.layers = static_cast<double>(m.layers);
  return d;
}

} // namespace

std::shared_ptr<const DraftPass>
draft_pass(const Spec& spec, const Parallelism& p, const Constants& c) {
  const auto& s = spec.workload.inference.speculative;
  if (!s) {
    return nullptr;
  }
  DraftPass d = s->method == SpeculativeMethod::draft ? draft_model_pass(spec, p, c)
                                                      : one_layer_pass(spec, p, c);
  d.passes = static_cast<double>(s->draft_tokens);
  return std::make_shared<const DraftPass>(d);
}

Seconds draft_time(const StepLayout& steps, double batch, double context) {
  const DraftPass& d = *steps.draft;
  const double touched = d.expert_pick > 0 ? 1.0 - std::pow(1.0 - d.expert_pick, batch) : 0.0;
  const Bytes read = d.weights + d.routed_experts * touched +
                     d.kv.per_sequence(static_cast<long long>(context)) * batch;
  const Seconds memory = read / (steps.gpu->memory_bandwidth * steps.family->memory);
  const auto tp = static_cast<double>(steps.p.tp);
  const Seconds compute =
      (Flops(d.matmul_flops * batch) / steps.compute_rate +
       Flops(d.attention_flops_per_token * context * batch) / steps.attention_rate) /
      tp;
  return (max(memory, compute) + steps.engine->per_layer * d.layers) * d.passes;
}

double cached_share(const InferenceWorkload& inf, double prompt) {
  if (inf.prefix_cache_hit_rate <= 0 || prompt <= 1) {
    return 0.0;
  }
  return std::min(inf.prefix_cache_hit_rate, (prompt - 1.0) / prompt);
}

Bytes cached_prefix_per_sequence(const Spec& spec, const KvCacheGeometry& kv) {
  const auto& inf = spec.workload.inference;
  if (inf.prefix_cache_hit_rate <= 0) {
    return Bytes(0);
  }
  const auto cached = static_cast<long long>(
      std::ceil(inf.prefix_cache_hit_rate * static_cast<double>(inf.prompt_tokens())));
  return kv.per_sequence(cached);
}

} // namespace rightsize::estimate_detail
