// LoRA adapters' parameters, which the memory and the performance of a fine-tune both count
// (memory.hpp).

#include <rightsize/estimate/memory.hpp>

namespace rightsize {

// LoRA adapter parameters: r * (in + out) for each targeted projection of each layer.
double lora_parameters(const Spec& spec) {
  const ModelArch& m = spec.model;
  const auto& w = spec.workload.training;
  const auto h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.heads * m.head_dim);
  const double kv = static_cast<double>(m.kv_heads * m.head_dim);
  const auto inter = static_cast<double>(m.intermediate);
  const auto r = static_cast<double>(w.lora_rank);
  // The targets read once: the training search calls this in every evaluation, and looking each
  // name up in the list (std::string against C strings) was most of a LoRA plan.
  constexpr std::array<std::string_view, 7> k_projections{
      "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  std::array<bool, k_projections.size()> targeted{};
  for (const std::string& t : w.lora_targets) {
    const std::string_view target = t;
    if (target == "all-linear") {
      targeted.fill(true);
      continue;
    }
    // The one projection of that length and first letter, if any: one comparison per target.
    for (std::size_t i = 0; i < k_projections.size(); ++i) {
      const std::string_view name = k_projections[i];
      if (!target.empty() && target.size() == name.size() && target[0] == name[0]) {
        targeted[i] = targeted[i] || target == name;
        break;
      }
    }
  }
  // By position in k_projections (a look-up by name was most of a LoRA plan's instructions).
  const auto [q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj] = targeted;
  double per_layer = 0;
  per_layer += q_proj ? r * (h + q) : 0.0;
  per_layer += k_proj ? r * (h + kv) : 0.0;
  per_layer += v_proj ? r * (h + kv) : 0.0;
  per_layer += o_proj ? r * (q + h) : 0.0;
  per_layer += gate_proj ? r * (h + inter) : 0.0;
  per_layer += up_proj ? r * (h + inter) : 0.0;
  per_layer += down_proj ? r * (inter + h) : 0.0;
  const double dense_layers = static_cast<double>(m.layers - m.moe_layers());
  const double attention_only = static_cast<double>(m.moe_layers());
  double mlp_part = 0;
  mlp_part += gate_proj ? r * (h + inter) : 0.0;
  mlp_part += up_proj ? r * (h + inter) : 0.0;
  mlp_part += down_proj ? r * (inter + h) : 0.0;
  // MoE layers get adapters on attention only (expert MLPs are not nn.Linear in most ports).
  return dense_layers * per_layer + attention_only * (per_layer - mlp_part);
}

} // namespace rightsize
