// The training performance model: one step's compute, pipeline bubble and the exposed
// communication of each parallelism. Formulas and sources: docs/model.md, "Performance".

#include "collectives.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

using estimate_detail::allgather;
using estimate_detail::allreduce;
using estimate_detail::collective_link;
using estimate_detail::sixteen_bit;

namespace {

// Data parallel, per step: the gradients reduced once (an all-reduce, or ZeRO-1/2's
// reduce-scatter and all-gather of the updated shards: the same volume, Rajbhandari et al. 2020,
// section 7.2.1), hidden behind the backward pass up to the overlap share. ZeRO-3 also
// all-gathers each layer's weights before its forward and again before its backward, in every
// micro-batch (section 7.2.2: 3 instead of 2 model sizes per step, 1.5x), hidden behind the pass
// that uses them up to the same share. Over the link the whole job's GPUs share.
Seconds data_parallel_exposed(const Spec& spec,
                              const Gpu& gpu,
                              const Parallelism& p,
                              const MemoryEstimate& memory,
                              const Efficiency& eff,
                              Seconds compute,
                              double microbatches) {
  // Gradients are reduced over every rank holding the same weights: data- and context-parallel.
  const int replicas = p.dp * p.cp;
  if (replicas <= 1) {
    return seconds(0);
  }
  const auto& w = spec.workload.training;
  const double trainable = memory.trainable_params;
  const LinkModel link = collective_link(spec, gpu, p.gpus(), eff);
  const Seconds reduce =
      allreduce(Bytes(trainable * element_bytes(w.precision.gradients).si()), replicas, link);
  Seconds gather; // ZeRO-3: one pass's all-gathers of the weights, all micro-batches
  if (w.zero_stage >= 3) {
    const double layers_here = std::ceil(static_cast<double>(spec.model.layers) / p.pp);
    const Bytes layer(trainable * element_bytes(w.precision.weights).si() / layers_here);
    gather = allgather(layer, replicas, link) * (layers_here * microbatches);
  }
  const Seconds forward = compute * (1.0 / 3.0);
  const Seconds backward = compute * (2.0 / 3.0);
  return max(seconds(0), gather - forward * eff.dp_overlap) +
         max(seconds(0), gather + reduce - backward * eff.dp_overlap);
}

// Context parallel, one layer and one micro-batch (Llama 3 paper, section 3.3.2): the forward
// pass all-gathers the keys and values of the whole sequence before each rank computes attention
// for its own queries, and the backward pass gathers them again and reduce-scatters their
// gradients (the same volume); a full recompute gathers once more. Not overlapped: Llama 3's
// all-gather CP exposes it, small beside attention's O(s^2) work at long context under GQA. The
// group spans tp x cp consecutive ranks (TP innermost, then CP).
Seconds context_parallel_communication(
    const Spec& spec, const Gpu& gpu, const Parallelism& p, const Efficiency& eff, double micro) {
  if (p.cp <= 1) {
    return seconds(0);
  }
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const double kv_heads_here = std::ceil(static_cast<double>(m.kv_heads) / p.tp);
  const double act = 2.0; // bf16 keys and values
  const Bytes gathered(static_cast<double>(w.seq_len) * micro * kv_heads_here *
                       static_cast<double>(m.head_dim + m.v_head_dim) * act);
  const double passes = w.recompute == Recompute::full ? 4.0 : 3.0;
  return allgather(gathered, p.cp, collective_link(spec, gpu, p.tp * p.cp, eff)) * passes;
}

// QLoRA: bitsandbytes dequantizes each frozen 4-bit weight to bf16 before the matmul that uses it,
// in the forward pass and again for the activations' gradient in the backward pass
// (MatMul4Bit.forward and .backward call dequantize_4bit), once more when the forward pass is
// recomputed: a memory-bound kernel that reads the packed weights and writes their 16-bit copy,
// every micro-batch, before the GEMM it feeds.
Seconds qlora_dequantization(const Spec& spec,
                             const Gpu& gpu,
                             const Parallelism& p,
                             const Efficiency& eff,
                             double microbatches) {
  const auto& w = spec.workload.training;
  const Quantization& q = spec.weights;
  if (w.method != FinetuneMethod::qlora || !q.quantized()) {
    return seconds(0);
  }
  const WeightBytes here = weights_per_gpu(spec.model, q, p);
  Bytes packed;
  if (q.attention_quantized) {
    packed += here.attention;
  }
  if (q.mlp_quantized) {
    packed += here.dense_mlp + here.routed_experts + here.shared_experts;
  }
  const double params = packed / bits(q.bits_per_weight);
  const Bytes per_pass = packed + element_bytes(DType::bf16) * params;
  const double passes = w.recompute == Recompute::full ? 3.0 : 2.0;
  return per_pass * (passes * microbatches) / (gpu.memory_bandwidth * eff.family(gpu).memory);
}

} // namespace

std::string context_parallel_unsupported(const Spec& spec) {
  const ModelArch& m = spec.model;
  if (!spec.workload.is_training()) {
    return "context parallelism is modelled for training only";
  }
  if (spec.workload.training.framework != Framework::megatron) {
    return fmt::format("context parallelism is modelled as Megatron-Core's (framework megatron), "
                       "not {}",
                       to_string(spec.workload.training.framework));
  }
  if (m.encoder_only || m.encoder_decoder || m.image || m.diffusion) {
    return "context parallelism is modelled for decoder-only language models";
  }
  if (m.recurrent_layers() > 0) {
    return fmt::format("context parallelism is modelled for attention only; {} has {} {} layers",
                       m.family,
                       m.recurrent_layers(),
                       m.ssm.kind == RecurrentKind::gated_deltanet ? "linear-attention"
                                                                   : "state-space");
  }
  return {};
}

TrainingPerformance estimate_training(const Spec& spec,
                                      const Gpu& gpu,
                                      const Parallelism& p,
                                      const MemoryEstimate& memory,
                                      const Efficiency& eff,
                                      Detail detail) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  TrainingPerformance r;
  r.compute_precision = compute_precision(spec, gpu);
  // MFU is against the dense peak of the precision the GEMMs run in (fp8 for an fp8 recipe),
  // as Databricks/MosaicML report fp8 MFU (docs/model.md, "Training step").
  const FlopsPerSecond peak = *gpu.rate(r.compute_precision);
  const auto seq = static_cast<double>(w.seq_len);
  const auto micro = static_cast<double>(memory.batch);
  const double gpus = p.gpus();
  const double tokens_per_step = static_cast<double>(w.global_batch) * seq;
  const Flops forward = forward_flops(m, tokens_per_step, seq);
  const Flops model = training_model_flops(spec, tokens_per_step);
  Flops hardware = model;
  if (w.recompute == Recompute::full) {
    hardware += forward; // one more forward pass
  } else if (w.recompute == Recompute::selective) {
    // The attention scores are recomputed: 2 * s * a * (d + v) per token per layer.
    const ModelArch& mm = m;
    hardware += Flops(2.0 * tokens_per_step * seq * static_cast<double>(mm.heads) *
                      static_cast<double>(mm.head_dim + mm.v_head_dim) *
                      static_cast<double>(mm.layers) / 2.0);
  }
  const auto& fam = eff.family(gpu);
  // Larger models keep the tensor cores busier (bigger GEMMs, fewer small kernels per FLOP):
  // efficiency grows as (hidden / reference)^gamma, fitted on the Megatron 2021 table.
  const double kernel_efficiency = std::min(
      0.95,
      fam.training_compute * std::pow(static_cast<double>(m.hidden) / eff.training_reference_hidden,
                                      eff.training_size_exponent));
  // fp8 GEMMs: the bf16 step's compute, fp8_training_speedup times faster end to end.
  const double speedup =
      r.compute_precision == TensorPrecision::fp8 ? eff.fp8_training_speedup : 1.0;
  const FlopsPerSecond achieved =
      *gpu.rate(sixteen_bit(gpu, DType::bf16)) * (kernel_efficiency * speedup);
  r.compute = hardware / gpus / achieved;
  // Pipeline bubble (p - 1) / (v m) of the compute (Narayanan et al. 2021, section 2.2).
  const double microbatches = static_cast<double>(w.global_batch) / (micro * p.dp);
  if (p.pp > 1) {
    r.pipeline_bubble =
        r.compute * ((p.pp - 1.0) / (static_cast<double>(w.pipeline_interleave) * microbatches));
  }
  // Tensor parallel: 4 all-reduce-equivalents per layer per micro-batch (2 forward, 2 backward;
  // 2 more when the forward pass is recomputed), not overlapped.
  const double act = 2.0;
  const double per_layer = w.recompute == Recompute::full ? 6.0 : 4.0;
  const double layers_here = std::ceil(static_cast<double>(m.layers) / p.pp);
  // Context parallel: a rank holds seq / cp of each sequence's tokens.
  const double local_tokens = seq / static_cast<double>(p.cp);
  r.tensor_parallel_communication =
      allreduce(Bytes(local_tokens * micro * static_cast<double>(m.hidden) * act),
                p.tp,
                collective_link(spec, gpu, p.tp, eff)) *
      (per_layer * layers_here * microbatches);
  r.context_parallel_communication =
      context_parallel_communication(spec, gpu, p, eff, micro) * (layers_here * microbatches);
  r.data_parallel_exposed =
      data_parallel_exposed(spec, gpu, p, memory, eff, r.compute, microbatches);
  r.dequantization = qlora_dequantization(spec, gpu, p, eff, microbatches);
  r.step = r.compute + r.pipeline_bubble + r.tensor_parallel_communication +
           r.context_parallel_communication + r.data_parallel_exposed + r.dequantization;
  r.tokens_per_s = tokens_per_step / r.step.si();
  r.mfu = (model / r.step).si() / (gpus * peak.si());
  r.hardware_flops_utilization = (hardware / r.step).si() / (gpus * peak.si());
  // Data loading: token ids and labels (int64 each) per token, per GPU, over the host link.
  r.host_input = BytesPerSecond(r.tokens_per_s * 16.0 / gpus);
  if (w.tokens) {
    r.time_to_train = seconds(*w.tokens / r.tokens_per_s);
    if (w.deadline) {
      r.meets_deadline = *r.time_to_train <= *w.deadline;
    }
  }
  if (detail == Detail::numbers) {
    return r;
  }
  const Seconds comm =
      r.tensor_parallel_communication + r.context_parallel_communication + r.data_parallel_exposed;
  // A host link of 0 is one the maker does not publish (docs/catalog.md): nothing to compare.
  if (gpu.host_link.si() > 0 && r.host_input > gpu.host_link * 0.5) {
    r.bottleneck = "host_io";
    r.explanation = fmt::format("data loading needs {} per GPU over a {} host link",
                                format_bytes_per_s(r.host_input),
                                format_bytes_per_s(gpu.host_link));
  } else if (comm > r.compute * 0.5) {
    r.bottleneck = "interconnect";
    r.explanation =
        fmt::format("communication takes {} of a {} step (tensor parallel {}, {}exposed "
                    "data parallel {}): the interconnect, not the GPU, limits it",
                    format_seconds(comm),
                    format_seconds(r.step),
                    format_seconds(r.tensor_parallel_communication),
                    p.cp > 1 ? fmt::format("context parallel {}, ",
                                           format_seconds(r.context_parallel_communication))
                             : std::string(),
                    format_seconds(r.data_parallel_exposed));
  } else {
    r.bottleneck = "compute";
    r.explanation = fmt::format("training is compute bound: {} of math per step at {:.0f}% of "
                                "the {} dense peak; MFU {:.0f}%",
                                format_flops(hardware / gpus),
                                100.0 * (achieved / peak),
                                to_string(r.compute_precision),
                                100.0 * r.mfu);
  }
  if (r.dequantization > r.compute * 0.1) {
    r.explanation +=
        fmt::format("; dequantizing the 4-bit base adds {}", format_seconds(r.dequantization));
  }
  if (w.precision.compute == DType::fp8 && r.compute_precision != TensorPrecision::fp8) {
    r.explanation += fmt::format("; the fp8 recipe runs in {}: {} has no fp8 tensor cores",
                                 to_string(r.compute_precision),
                                 gpu.name);
  }
  return r;
}

} // namespace rightsize
