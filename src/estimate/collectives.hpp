#pragma once

// Inside the estimate stage: what the serving and the training estimates share (performance.cpp,
// training.cpp): the 16-bit format a GPU computes in, the link a group of GPUs reduces over and
// the collectives' times. Inline, so that each estimate's arithmetic stays where it is used.

#include <rightsize/estimate/performance.hpp>

namespace rightsize::estimate_detail {

// 16-bit math in the operands' own format where the GPU rates it (fp16 checkpoints run fp16
// GEMMs; the catalog gives bf16 and fp16 the same dense rate wherever it lists both), else bf16,
// else fp16 (Turing has no bf16).
inline TensorPrecision sixteen_bit(const Gpu& gpu, DType operands) {
  if (operands == DType::fp16 && gpu.rate(TensorPrecision::fp16)) {
    return TensorPrecision::fp16;
  }
  return gpu.rate(TensorPrecision::bf16) ? TensorPrecision::bf16 : TensorPrecision::fp16;
}

// The link a group of `group` GPUs all-reduces over: NVLink (or Infinity Fabric) inside the
// GPU's domain; PCIe inside one server, at the share of the card's PCIe rate NCCL reaches there
// (the host link for cards whose NVLink bridge joins only pairs); the network between servers.
inline LinkModel
collective_link(const Spec& spec, const Gpu& gpu, int group, const Efficiency& eff) {
  if (gpu.has_nvlink() && group <= gpu.nvlink_domain) {
    return {gpu.gpu_link, eff.allreduce_latency};
  }
  if (group <= gpus_per_server(spec, gpu)) {
    const BytesPerSecond pcie = gpu.has_nvlink() ? gpu.host_link : gpu.gpu_link;
    return {pcie * eff.pcie_allreduce_efficiency, eff.pcie_allreduce_latency};
  }
  return {gpu.network, eff.network_latency};
}

// All-reduce of `message` bytes over n ranks: the ring's bandwidth term, 2(n-1)/n of the
// message over each link (Thakur et al. 2005), plus a fixed latency per call: small decode
// messages go through NCCL's low-latency protocols or vLLM's one-shot custom all-reduce, whose
// cost is a few microseconds per call rather than per ring step.
inline Seconds allreduce(Bytes message, int n, const LinkModel& link) {
  if (n <= 1) {
    return seconds(0);
  }
  return message * (2.0 * (n - 1) / n) / link.bandwidth + link.latency;
}

// All-gather of a `message` gathered from n ranks: each link carries (n-1)/n of it (ring), plus
// the fixed latency per call.
inline Seconds allgather(Bytes message, int n, const LinkModel& link) {
  if (n <= 1) {
    return seconds(0);
  }
  return message * ((n - 1.0) / n) / link.bandwidth + link.latency;
}

// One all-reduce per sublayer over the tp GPUs (Megatron-style). Under attention data parallelism
// the mixers' runs in each attention group over the busiest rank's `own` tokens; the MLPs' gather
// and scatter of all ranks' tokens move what one all-reduce does (SGLang's dp-attention).
inline Seconds
tensor_allreduces(const StepLayout& steps, double tokens, double own, double sublayers) {
  const ModelArch& m = steps.spec->model;
  const Parallelism& p = steps.p;
  const auto hidden = static_cast<double>(m.hidden);
  const Bytes all(tokens * hidden * steps.activation_bytes);
  if (p.attention_dp == 1) {
    return allreduce(all, p.tp, steps.tensor_link) * sublayers;
  }
  const auto mlps = static_cast<double>(m.mlp_layers());
  return allreduce(all, p.tp, steps.tensor_link) * mlps +
         allreduce(
             Bytes(own * hidden * steps.activation_bytes), p.attention_tp(), steps.tensor_link) *
             (sublayers - mlps);
}

} // namespace rightsize::estimate_detail
