// Each engine's memory policy, read from data/memory.json's "engines" section (engine_policy.hpp;
// docs/catalog.md, "What else an engine is").

#include "engine_policy.hpp"

#include <rightsize/core/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace rightsize::detail {

namespace {

// Each role of a policy, with the kind of constant it may name: shares and sizes are checked;
// counts are not, as a count's constant need not say so in its name (trtllm_tokens_per_block
// takes the default rule, memory.cpp's constant_rule).
struct PolicyRole {
  std::string_view key;
  std::optional<PolicyConstant> EngineMemoryPolicy::*member;
  std::string_view kind;             // as errors say it
  bool (*fits)(const ConstantKind&); // nullptr: any constant
};

bool is_share(const ConstantKind& k) {
  return !k.whole && k.max <= 1.0;
}
bool is_mib(const ConstantKind& k) {
  return !k.whole && k.max > 1e3;
}

constexpr std::array<PolicyRole, 6> k_policy_roles{{
    {"memory_fraction", &EngineMemoryPolicy::memory_fraction, "a share of memory", is_share},
    {"kv_block_tokens", &EngineMemoryPolicy::kv_block_tokens, "", nullptr},
    {"cuda_graphs_mib", &EngineMemoryPolicy::cuda_graphs_mib, "a size in MiB", is_mib},
    {"max_batched_tokens", &EngineMemoryPolicy::max_batched_tokens, "", nullptr},
    {"max_sequences", &EngineMemoryPolicy::max_sequences, "", nullptr},
    {"allocator_fragmentation",
     &EngineMemoryPolicy::allocator_fragmentation,
     "a share of memory",
     is_share},
}};

// One role of a policy: the name of a constant of the file, of the kind the role needs.
std::optional<PolicyConstant>
read_role(const FieldReader& row,
          const PolicyRole& role,
          const Constants& c,
          const std::function<ConstantKind(const std::string&)>& kind_of) {
  const auto name = row.optional_string(role.key);
  if (!name) {
    return std::nullopt;
  }
  const std::vector<std::string> known = c.names();
  if (std::find(known.begin(), known.end(), *name) == known.end()) {
    row.member(role.key).fail("is not a constant of /constants" + did_you_mean(*name, known));
  }
  if (role.fits != nullptr && !role.fits(kind_of(*name))) {
    row.member(role.key).fail(fmt::format("must name {}", role.kind));
  }
  return PolicyConstant{*name, c.get(*name)};
}

// One tier of a policy (EngineTier): its condition and the roles it replaces.
EngineTier read_tier(const FieldReader& row,
                     const Constants& c,
                     const std::function<ConstantKind(const std::string&)>& kind_of) {
  row.reject_unknown({"below_gib",
                      "generations",
                      "before_version",
                      "max_batched_tokens",
                      "max_sequences",
                      "chunked_prefill",
                      "source"});
  EngineTier t;
  t.below_gib = row.optional_number("below_gib", Range::positive(1e6));
  if (row.has("generations")) {
    t.generations = row.string_array("generations");
  }
  t.before_version = row.optional_string("before_version").value_or("");
  if (!t.before_version.empty() && !parse_version(t.before_version)) {
    row.member("before_version").fail("must be a version such as \"0.8.0\"");
  }
  if (!t.below_gib && t.generations.empty() && t.before_version.empty()) {
    row.fail_plain("a tier needs a condition: below_gib, generations or before_version");
  }
  for (const PolicyRole& role : k_policy_roles) {
    if (role.key == "max_batched_tokens") {
      t.max_batched_tokens = read_role(row, role, c, kind_of);
    } else if (role.key == "max_sequences") {
      t.max_sequences = read_role(row, role, c, kind_of);
    }
  }
  if (row.has("chunked_prefill")) {
    t.chunked_prefill = row.choice("chunked_prefill", k_chunked_prefill_names);
  }
  t.source = row.string("source");
  return t;
}

EngineMemoryPolicy read_policy(const FieldReader& row,
                               const Constants& c,
                               const std::function<ConstantKind(const std::string&)>& kind_of) {
  std::vector<std::string> keys{
      "fraction_of", "activation_peak", "chunked_prefill", "unchunked_pass", "tiers", "source"};
  for (const PolicyRole& role : k_policy_roles) {
    keys.emplace_back(role.key);
  }
  row.reject_unknown(keys);
  EngineMemoryPolicy p;
  for (const PolicyRole& role : k_policy_roles) {
    p.*role.member = read_role(row, role, c, kind_of);
  }
  p.fraction_of = row.choice("fraction_of", k_fraction_of_names);
  p.activation_peak = row.choice("activation_peak", k_activation_peak_names);
  if (p.activation_peak == ActivationPeak::profiled_chunk &&
      (!p.max_batched_tokens || !p.max_sequences)) {
    row.fail_plain("a profiled chunk needs max_batched_tokens and max_sequences");
  }
  if (row.has("chunked_prefill")) {
    p.chunked_prefill = row.choice("chunked_prefill", k_chunked_prefill_names);
  }
  if (row.has("unchunked_pass")) {
    p.unchunked_pass = row.choice("unchunked_pass", k_unchunked_pass_names);
  }
  if (row.has("tiers")) {
    for (const FieldReader& tier : row.array("tiers")) {
      p.tiers.push_back(read_tier(tier, c, kind_of));
    }
  }
  p.source = row.string("source");
  return p;
}

} // namespace

std::vector<EngineMemoryPolicy>
read_engine_policies(const FieldReader& engines,
                     const Constants& c,
                     std::vector<InputError>& errors,
                     const std::function<ConstantKind(const std::string&)>& kind_of) {
  const std::vector<Engine> all = k_engine_names.values();
  std::vector<EngineMemoryPolicy> out(all.size());
  std::vector<bool> seen(all.size());
  for (const auto& item : engines.json().items()) {
    try {
      const auto engine = k_engine_names.find(item.key());
      if (!engine) {
        engines.member(item.key())
            .fail_plain(fmt::format("unknown engine \"{}\" (expected one of {}){}",
                                    item.key(),
                                    FieldReader::join(k_engine_names.names()),
                                    did_you_mean(item.key(), k_engine_names.names())));
      }
      const auto i = static_cast<std::size_t>(*engine);
      if (seen.at(i)) {
        engines.member(item.key())
            .fail_plain("a second entry for engine " + std::string(to_string(*engine)));
      }
      seen.at(i) = true; // a row that does not read is its own error, not a missing row
      out.at(i) = read_policy(engines.object(item.key()), c, kind_of);
      out.at(i).engine = std::string(to_string(*engine));
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  for (const Engine e : all) {
    if (!seen.at(static_cast<std::size_t>(e))) {
      errors.emplace_back(engines.where(),
                          "needs an entry for engine " + std::string(to_string(e)));
    }
  }
  return out;
}

void update_policies(std::vector<EngineMemoryPolicy>& policies,
                     const std::string& name,
                     double value) {
  const auto update = [&](std::optional<PolicyConstant>& constant) {
    if (constant && constant->name == name) {
      constant->value = value;
    }
  };
  for (EngineMemoryPolicy& policy : policies) {
    for (const PolicyRole& role : k_policy_roles) {
      update(policy.*role.member);
    }
    for (EngineTier& tier : policy.tiers) {
      update(tier.max_batched_tokens);
      update(tier.max_sequences);
    }
  }
}

} // namespace rightsize::detail

namespace rightsize {

void Constants::no_policy(Engine e) {
  throw InternalError("no memory policy of engine " + std::string(to_string(e)) +
                      " (data/memory.json was not loaded)");
}

std::vector<std::string_view> EngineMemoryPolicy::constant_names() const {
  std::vector<std::string_view> out;
  for (const auto* role : {&cuda_graphs_mib,
                           &max_batched_tokens,
                           &max_sequences,
                           &memory_fraction,
                           &allocator_fragmentation}) {
    if (*role) {
      out.emplace_back((*role)->name);
    }
  }
  return out;
}

} // namespace rightsize
