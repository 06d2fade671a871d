// The estimate stage's bundled data: the blob form of its loaded values and the run-time lookup
// (bundled.hpp).

#include "bundled.hpp"

#include <rightsize/estimate/compiled_in.hpp>

#include <type_traits>

namespace rightsize::detail {

// The private members of Constants and Uncertainty, for the blob.
struct BundleAccess {
  template <class A, class C> static void constants(A& a, C& c) { a(c.m_values, c.m_engines); }
  // The array the estimator reads, in step with the values read back.
  static void reindex(Constants& c) {
    for (const auto& entry : c.m_values) {
      c.index(entry.first);
    }
    c.resolve_tiers(); // once, after every value is in place
  }
  // An efficiency's generations, and (read back) their look-up index rebuilt.
  template <class A, class E> static void generations(A& a, E& e) { a(e.m_generations); }
  static void reindex(Efficiency& e) { e.index_generations(); }
  template <class A, class U> static void uncertainty(A& a, U& u) {
    a(u.coverage, u.widening, u.m_metrics, u.m_serving, u.m_training, u.m_transfer);
  }
  template <class A, class E> static void entry(A& a, E& e) {
    a(e.low_ratio, e.high_ratio, e.lines, e.unsized);
  }
  template <class A, class F> static void fitted(A& a, F& f) {
    a(f.fit_runs, f.held_out_runs, f.median_error);
  }
  template <class T>
  static constexpr bool is_entry = std::is_same_v<std::remove_const_t<T>, Uncertainty::Entry>;
  template <class T>
  static constexpr bool is_fitted = std::is_same_v<std::remove_const_t<T>, Uncertainty::Fitted>;
};

// The fields of each struct, in one list that serves writing (const) and reading (BlobWriter and
// BlobReader, core/bundle.hpp, find them here).
template <class A, class T, if_is<T, Assumption> = 0> void describe(A& a, T& x) {
  a(x.name, x.value, x.source);
}
template <class A, class T, if_is<T, PolicyConstant> = 0> void describe(A& a, T& x) {
  a(x.name, x.value);
}
template <class A, class T, if_is<T, EngineTier> = 0> void describe(A& a, T& t) {
  a(t.below_gib, t.generations, t.before_version, t.max_batched_tokens, t.max_sequences);
  a(t.chunked_prefill, t.source);
}
template <class A, class T, if_is<T, EngineMemoryPolicy> = 0> void describe(A& a, T& p) {
  a(p.engine, p.memory_fraction, p.fraction_of, p.kv_block_tokens, p.cuda_graphs_mib);
  a(p.activation_peak, p.max_batched_tokens, p.max_sequences, p.allocator_fragmentation);
  a(p.chunked_prefill, p.unchunked_pass, p.tiers, p.source);
}
template <class A, class T, if_is<T, Constants> = 0> void describe(A& a, T& c) {
  BundleAccess::constants(a, c);
}
template <class A, class T, if_is<T, FamilyEfficiency> = 0> void describe(A& a, T& f) {
  a(f.compute, f.memory, f.training_compute);
}
template <class A, class T, if_is<T, EngineOverhead> = 0> void describe(A& a, T& e) {
  a(e.per_layer, e.per_step, e.per_request, e.wave_factor, e.prefill_interference);
  a(e.oldest_version, e.newest_version, e.versions_source);
}
template <class A, class T, if_is<T, GenerationFamily> = 0> void describe(A& a, T& g) {
  a(g.family, g.source);
}
template <class A, class T, if_is<T, Efficiency> = 0> void describe(A& a, T& e) {
  BundleAccess::generations(a, e);
  a(e.families, e.engines, e.allreduce_latency, e.pcie_allreduce_latency);
  a(e.pcie_allreduce_efficiency, e.network_latency, e.dp_overlap, e.training_size_exponent);
  a(e.training_reference_hidden, e.fp8_training_speedup, e.fitted_on);
}
template <class A, class T, if_is<T, Uncertainty> = 0> void describe(A& a, T& u) {
  BundleAccess::uncertainty(a, u);
}
template <class A, class T, std::enable_if_t<BundleAccess::is_entry<T>, int> = 0>
void describe(A& a, T& e) {
  BundleAccess::entry(a, e);
}
template <class A, class T, std::enable_if_t<BundleAccess::is_fitted<T>, int> = 0>
void describe(A& a, T& f) {
  BundleAccess::fitted(a, f);
}

// A field added to one of these structs must be added to its describe() above, or the embedded
// value would silently lack it. The sizes of this platform's layout catch that at compile time;
// update them together with describe().
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && defined(__LP64__)
static_assert(sizeof(Assumption) == 72, "a field of Assumption is missing from describe()");
static_assert(sizeof(PolicyConstant) == 40, "a field of PolicyConstant is missing");
static_assert(sizeof(EngineMemoryPolicy) == 400, "a field of EngineMemoryPolicy is missing");
static_assert(sizeof(EngineTier) == 208, "a field of EngineTier is missing from describe()");
// Constants also holds m_tiered, derived from its engines when read back (reindex).
static_assert(sizeof(Constants) == 192, "a field of Constants is missing from describe()");
static_assert(sizeof(FamilyEfficiency) == 24, "a field of FamilyEfficiency is missing");
static_assert(sizeof(EngineOverhead) == 136, "a field of EngineOverhead is missing");
static_assert(sizeof(GenerationFamily) == 64, "a field of GenerationFamily is missing");
// Efficiency::site and Uncertainty::m_site (a site's calibration, installed at run time by
// apply_site_calibration) are never bundled: empty in every blob, so not described.
static_assert(sizeof(Efficiency) == 296, "a field of Efficiency is missing from describe()");
static_assert(sizeof(Uncertainty) == 256, "a field of Uncertainty is missing from describe()");
#endif

std::string serialize_constants(const Constants& constants) {
  return serialize_blob(constants);
}

Constants deserialize_constants(std::string_view blob) {
  auto c = deserialize_blob<Constants>(blob);
  BundleAccess::reindex(c);
  return c;
}

std::string serialize_efficiency(const Efficiency& efficiency) {
  return serialize_blob(efficiency);
}

Efficiency deserialize_efficiency(std::string_view blob) {
  auto e = deserialize_blob<Efficiency>(blob);
  BundleAccess::reindex(e);
  return e;
}

std::string serialize_uncertainty(const Uncertainty& uncertainty) {
  return serialize_blob(uncertainty);
}

Uncertainty deserialize_uncertainty(std::string_view blob) {
  return deserialize_blob<Uncertainty>(blob);
}

namespace {

// The embedded file's value when `text` is its text.
template <class T, class Deserialize>
std::optional<T> embedded(const BundledFile& file, std::string_view text, Deserialize deserialize) {
  if (file.value.empty() || text != file.text) {
    return std::nullopt;
  }
  return deserialize(file.value);
}

} // namespace

std::optional<Constants> bundled_constants(std::string_view text) {
  return embedded<Constants>(bundled_memory_file(), text, deserialize_constants);
}

std::optional<Efficiency> bundled_efficiency(std::string_view text) {
  return embedded<Efficiency>(bundled_efficiency_file(), text, deserialize_efficiency);
}

std::optional<Uncertainty> bundled_uncertainty(std::string_view text) {
  return embedded<Uncertainty>(bundled_uncertainty_file(), text, deserialize_uncertainty);
}

} // namespace rightsize::detail

namespace rightsize {

std::string_view compiled_in_estimate_data(std::string_view name) {
  if (name == "memory.json") {
    return detail::bundled_memory_file().text;
  }
  if (name == "efficiency.json") {
    return detail::bundled_efficiency_file().text;
  }
  if (name == "uncertainty.json") {
    return detail::bundled_uncertainty_file().text;
  }
  return {};
}

} // namespace rightsize
