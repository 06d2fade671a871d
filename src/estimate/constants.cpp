// The runtime constants (data/memory.json; memory.hpp): each one's name and rule, read and
// checked once, looked up by name or by enum. `--assume` overrides are parsed in assume.cpp.

#include "bundled.hpp"
#include "engine_policy.hpp"

#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/version.hpp>
#include <rightsize/estimate/memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

// What each kind of constant may be: token and sequence counts are whole numbers the engines use
// as integers (so 1e300 cannot reach a float-to-integer conversion), shares are fractions,
// sizes and per-parameter bytes are bounded by what any GPU holds.
struct ConstantRule {
  double min;
  double max;
  bool whole;
};

ConstantRule constant_rule(const std::string& name) {
  const auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_tokens") || ends_with("_seqs") || ends_with("_requests")) {
    return {1.0, 1e9, true};
  }
  if (ends_with("_mib")) {
    return {0.0, 1e7, false};
  }
  if (ends_with("_fraction") || ends_with("_utilization") || ends_with("_static")) {
    return {0.01, 1.0, false};
  }
  if (name == "allocator_fragmentation") {
    return {0.0, 1.0, false};
  }
  return {0.0, 1e3, false}; // bytes per logit or parameter
}

std::string check_constant(const std::string& name, double value) {
  const ConstantRule r = constant_rule(name);
  if (std::isfinite(value) && value >= r.min && value <= r.max &&
      (!r.whole || value == std::floor(value))) {
    return "";
  }
  return fmt::format("constant {} must be {} between {:g} and {:g}, got {:g}",
                     name,
                     r.whole ? "a whole number" : "a number",
                     r.min,
                     r.max,
                     value);
}

constexpr std::array<std::string_view, static_cast<std::size_t>(Constant::count)> k_constant_names{
    "cuda_context_mib",
    "cublas_workspace_mib",
    "nccl_buffers_mib",
    "cuda_graphs_mib",
    "allocator_fragmentation",
    "max_num_batched_tokens",
    "max_num_seqs",
    "hf_loss_bytes_per_logit",
    "megatron_loss_bytes_per_logit",
    "lora_adapter_bytes_per_param"};

} // namespace

std::string_view constant_name(Constant c) {
  return k_constant_names.at(static_cast<std::size_t>(c));
}

// Keeps the array the estimator reads, and the engines' policies, in step with the named value.
void Constants::index(const std::string& name) {
  const double value = m_values.at(name).value;
  for (std::size_t i = 0; i < k_constant_names.size(); ++i) {
    if (k_constant_names[i] == name) {
      m_known[i] = value;
      m_present[i] = true;
    }
  }
  detail::update_policies(m_engines, name, value);
}

void Constants::resolve_tiers() {
  m_tiered.assign(m_engines.size(), {});
  for (std::size_t e = 0; e < m_engines.size(); ++e) {
    for (const EngineTier& tier : m_engines[e].tiers) {
      EngineMemoryPolicy p = m_engines[e];
      p.tiers.clear();
      if (tier.max_batched_tokens) {
        p.max_batched_tokens = tier.max_batched_tokens;
      }
      if (tier.max_sequences) {
        p.max_sequences = tier.max_sequences;
      }
      if (tier.chunked_prefill) {
        p.chunked_prefill = *tier.chunked_prefill;
      }
      m_tiered[e].push_back(std::move(p));
    }
  }
}

namespace {

bool tier_holds(const EngineTier& t, const Gpu& gpu, const std::optional<Version>& version) {
  if (!t.before_version.empty()) {
    // The spec's version first: most specs name none, and this runs for every layout evaluated.
    if (!version) {
      return false;
    }
    const auto before = parse_version(t.before_version);
    return before && version_less(*version, *before);
  }
  if (t.below_gib && to_gib(gpu.memory) < *t.below_gib) {
    return true;
  }
  return std::find(t.generations.begin(), t.generations.end(), gpu.generation) !=
         t.generations.end();
}

} // namespace

const EngineMemoryPolicy&
Constants::engine(Engine e, const Gpu& gpu, std::string_view version) const {
  const EngineMemoryPolicy& base = engine(e);
  const auto i = static_cast<std::size_t>(e);
  if (base.tiers.empty() || i >= m_tiered.size()) {
    return base;
  }
  const std::optional<Version> v = version.empty() ? std::nullopt : parse_version(version);
  for (std::size_t t = 0; t < base.tiers.size(); ++t) {
    if (tier_holds(base.tiers[t], gpu, v)) {
      return m_tiered[i].at(t);
    }
  }
  return base;
}

Constants Constants::load(const std::string& path) {
  // The bundled file, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_memory_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_constants(bundled.value);
  }
  const auto json = detail::parse_json_text(*text, path);
  const FieldReader root(json, path);
  root.reject_unknown({"schema_version", "description", "constants", "engines"});
  if (root.integer("schema_version", Range::positive(1e6)) != 1) {
    root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  Constants c;
  std::vector<InputError> errors;
  const auto constants = root.object("constants");
  for (const auto& item : constants.json().items()) {
    const std::string& name = item.key();
    try {
      const auto f = constants.object(name);
      f.reject_unknown({"value", "source"});
      const double value = f.number("value", Range::non_negative(1e12));
      if (const std::string problem = check_constant(name, value); !problem.empty()) {
        f.member("value").fail(problem);
      }
      c.m_values[name] = Assumption{name, value, f.string("source")};
      c.index(name);
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  try {
    c.m_engines = detail::read_engine_policies(
        root.object("engines"), c, errors, [](const std::string& name) {
          const ConstantRule r = constant_rule(name);
          return detail::ConstantKind{r.whole, r.max};
        });
  } catch (const InputError& e) {
    errors.push_back(e);
  }
  if (!errors.empty()) {
    throw InputErrors(errors);
  }
  c.resolve_tiers();
  return c;
}

void Constants::set(const std::string& name, double value, const std::string& where) {
  const auto it = m_values.find(name);
  if (it == m_values.end()) {
    throw InputError(where,
                     fmt::format("unknown constant \"{}\"{}", name, did_you_mean(name, names())));
  }
  if (const std::string problem = check_constant(name, value); !problem.empty()) {
    throw InputError(where, problem);
  }
  it->second.value = value;
  it->second.source = "overridden on the command line (" + where + ")";
  index(name);
  resolve_tiers();
}

double Constants::get(const std::string& name) const {
  return assumption(name).value;
}

double Constants::get(Constant c) const {
  const auto i = static_cast<std::size_t>(c);
  if (!m_present.at(i)) {
    throw InternalError("memory constant missing from data/memory.json: " +
                        std::string(constant_name(c)));
  }
  return m_known[i];
}

const Assumption& Constants::assumption(std::string_view name) const {
  const auto it = m_values.find(name);
  if (it == m_values.end()) {
    throw InternalError("memory constant missing from data/memory.json: " + std::string(name));
  }
  return it->second;
}

std::vector<std::string> Constants::names() const {
  std::vector<std::string> out;
  for (const auto& [name, a] : m_values) {
    out.push_back(name);
  }
  return out;
}

} // namespace rightsize
