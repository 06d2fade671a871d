#pragma once

// Inside the estimate stage: speculative decoding's drafter (docs/model.md, "Speculative
// decoding") and prefix caching's resident prefixes (docs/model.md, "Prefix caching"). Not a
// public header.

#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>

#include <memory>

namespace rightsize {

// What one pass of the drafter reads and computes on one GPU, for one drafted token of each
// sequence. mtp and eagle: one decoder layer of the target (its average layer) and the lm_head,
// whose embedding and lm_head they share with the target; draft: the whole draft model, at the
// target's tensor parallelism (vLLM's draft_tensor_parallel_size defaults to it).
struct DraftPass {
  double passes = 1;       // k: one pass per drafted token
  Bytes weights;           // dense weights read per pass, one GPU
  Bytes routed_experts;    // MoE experts of the drafter, one GPU (a pass reads those it touches)
  double expert_pick = 0;  // experts_active / experts (0: dense)
  Bytes resident;          // weights the drafter adds to the GPU's memory (not shared ones)
  KvCacheGeometry kv;      // the drafter's own keys and values
  double matmul_flops = 0; // per drafted token, the whole model (before tp)
  double attention_flops_per_token = 0; // per drafted token, per cached token
  double layers = 1;                    // per-layer fixed costs per pass
};

namespace estimate_detail {

// The spec's drafter on layout `p`, or none without speculative decoding.
std::shared_ptr<const DraftPass>
draft_pass(const Spec& spec, const Parallelism& p, const Constants& c);

// The drafter's k passes for `batch` sequences at `context` tokens each: per pass, its weights
// and its keys and values over the memory bandwidth or its FLOPs over the tensor rate, whichever
// is longer, plus the engine's per-layer cost.
Seconds draft_time(const StepLayout& steps, double batch, double context);

// The share of a `prompt`-token prompt the prefill takes from the prefix cache: the spec's hit
// rate, but never the last token, which engines always compute to sample the first output
// (vLLM's KVCacheManager caps a hit at the prompt less one token).
double cached_share(const InferenceWorkload& inf, double prompt);

// The KV bytes of the cached prefix held beside each sequence in flight: hit rate x the prompt,
// in the KV cache's own geometry (conservatively not shared with the sequences that use it).
Bytes cached_prefix_per_sequence(const Spec& spec, const KvCacheGeometry& kv);

} // namespace estimate_detail
} // namespace rightsize
