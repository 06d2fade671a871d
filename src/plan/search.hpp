#pragma once

// Inside the plan stage: the search context, a miss that explains a rejection, and the steps
// shared by plan.cpp, the two searches and the costing. Not a public header.

#include <rightsize/catalog/mig.hpp>
#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/bisect.hpp>
#include <rightsize/plan/generation_formats.hpp>
#include <rightsize/plan/plan.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rightsize::detail {

// A failed attempt, kept to explain the rejection. A miss that got further through the checks
// (memory, then targets, then price) came closer to feasible; within one stage, the smaller
// `distance`.
struct Miss {
  std::string code;
  std::string reason;
  std::string fix;
  double distance = 1e300;
  // Set for a search whose misses nobody reads (a MIG slice's: the whole GPU has its own row):
  // nothing is considered, so no reason is written.
  bool discard = false;

  // 0: does not fit in memory; 1: fits, misses a target or the deadline; 2: meets every target,
  // no price; -1: nothing tried.
  [[nodiscard]] int stage() const { return stage_of(code); }

  static int stage_of(const std::string& code) {
    if (code.empty()) {
      return -1;
    }
    if (code == "engine_support" || code == "compute_rate") {
      return 0;
    }
    return code == "memory_capacity" ? 0 : code == "no_price" ? 2 : 1;
  }

  // Whether a miss with this code and distance would replace this one (so that its reason need
  // only be written when it would).
  [[nodiscard]] bool closer(const std::string& other_code, double other_distance) const {
    const int s = stage_of(other_code);
    return s > stage() || (s == stage() && other_distance < distance);
  }

  // Keeps `other` when it came closer.
  void consider(Miss other) {
    if (!discard && closer(other.code, other.distance)) {
      *this = std::move(other);
    }
  }

  // The same, writing the reason (write_reason() -> std::string) only when it is kept: the search
  // considers far more misses than it keeps.
  template <class Reason>
  void consider(const std::string& other_code, double other_distance, const Reason& write_reason) {
    if (!discard && closer(other_code, other_distance)) {
      *this = Miss{other_code, write_reason(), "", other_distance};
    }
  }
};

// The sequences `batch` asks of a replica (none: the spec's concurrency, or all that fit).
inline long long offered_batch(const InferenceMemoryLayout& m, std::optional<long long> batch) {
  return batch.value_or(m.spec->workload.inference.concurrency.value_or(m.max_batch));
}

// What a replica runs of them at once (running_batch); the offered batch itself when not one
// sequence fits, so that the memory estimate says by how much.
inline long long planned_batch(const InferenceMemoryLayout& m, long long offered) {
  const long long running = running_batch(*m.spec, offered, m.max_batch, *m.policy);
  return running >= 1 ? running : offered;
}

// The figures of one serving configuration at one replica (Detail::numbers: no sentences),
// estimated in place from its layout's batch-independent terms: memory at the batch the replica
// runs, performance with the rest of `batch` queued (docs/plan.md, "Saturation").
struct Evaluated {
  Evaluated(const ServingLayout& layout, std::optional<long long> batch)
      : memory(estimate_memory(layout.memory,
                               planned_batch(layout.memory, offered_batch(layout.memory, batch)),
                               Detail::numbers)),
        perf(estimate_inference(
            layout, memory, 1, Detail::numbers, offered_batch(layout.memory, batch))) {}
  MemoryEstimate memory;
  InferencePerformance perf;
};

// Evaluations at stable addresses, `block` of them to an allocation (a std::deque makes one per
// evaluation of this size, and a plan keeps thousands).
class EvaluationStore {
public:
  explicit EvaluationStore(std::size_t block) : m_block(block) {}
  const Evaluated& emplace(const ServingLayout& layout, std::optional<long long> batch) {
    if (m_used == 0 || m_blocks[m_used - 1].size() == m_block) {
      if (m_used == m_blocks.size()) {
        m_blocks.emplace_back().reserve(m_block);
      }
      ++m_used;
    }
    return m_blocks[m_used - 1].emplace_back(layout, batch); // within capacity: nothing moves
  }
  // Destroys every evaluation and keeps the blocks for the next: memory already touched is
  // written again rather than new pages faulted in (about 2.7 us each on the machine of
  // docs/performance.md), and freed blocks at the heap's top would go back to the system.
  void clear() {
    for (auto& block : m_blocks) {
      block.clear();
    }
    m_used = 0;
  }

private:
  std::size_t m_block;
  std::size_t m_used = 0; // blocks holding evaluations, the last one filling
  std::vector<std::vector<Evaluated>> m_blocks;
};

// Serving evaluations of one GPU's searches: a rejection's fix trials search again the layouts
// the first search tried (make_plan forgets them when it moves on to the next GPU). Within one
// make_plan the spec's model and workload are fixed, so an evaluation is determined by the
// precision variant (its weight and KV-cache formats), the GPU, the layout and the batch. Kept per
// layout, each layout's evaluations in a short list by batch, so that a search looks its layout up
// once rather than once per batch. Catalog GPUs only: MIG slices are temporary Gpu objects whose
// addresses can be reused.
class EvaluationCache {
public:
  struct Layout {
    const Gpu* gpu = nullptr;
    DType weights = DType::bf16;
    DType kv_cache = DType::bf16;
    int tp = 1;
    int pp = 1;
    int ep = 1;
    int attention_dp = 1;
    bool operator==(const Layout& o) const {
      return gpu == o.gpu && weights == o.weights && kv_cache == o.kv_cache && tp == o.tp &&
             pp == o.pp && ep == o.ep && attention_dp == o.attention_dp;
    }
  };
  // One layout's evaluations by batch (-1: the spec's concurrency, or all that fit); a few dozen.
  using Memo = std::vector<std::pair<long long, const Evaluated*>>;

  explicit EvaluationCache(const Catalog& catalog) : m_catalog(catalog) {}
  // Whether evaluations on `g` may be kept.
  [[nodiscard]] bool holds(const Gpu& g) const;
  // The evaluations of a layout so far, empty at first; the reference stays valid.
  Memo& memo(const Layout& l);
  // Evaluates `layout` at `batch` and keeps it; the reference stays valid.
  const Evaluated& keep(const ServingLayout& layout, std::optional<long long> batch) {
    return m_evaluations.emplace(layout, batch);
  }
  // Drops every layout's evaluations (not the engine answers), keeping their memory for the next
  // GPU's: layouts are per GPU, so once a GPU is planned, its fix trials included, no search asks
  // for them again. References from memo() and keep() are then invalid.
  void forget_evaluations() {
    m_layouts.clear();
    m_evaluations.clear();
  }

  // Whether an engine runs a precision on a GPU generation (engine_runs): the plan's searches ask
  // it for every GPU of a generation, and its fix trials again.
  struct EngineAnswer {
    std::string generation;
    Engine engine = Engine::vllm;
    DType weights = DType::bf16;
    DType kv_cache = DType::bf16;
    DType activations = DType::bf16;
    bool runs = false;
    std::string reason; // when it does not
  };
  std::vector<EngineAnswer> engine_answers;

private:
  struct Hash {
    std::size_t operator()(const Layout& l) const;
  };
  const Catalog& m_catalog;
  std::unordered_map<Layout, Memo, Hash> m_layouts;
  EvaluationStore m_evaluations{128};
};

struct Search {
  const Spec& spec;
  const Catalog& catalog;
  const Constants& constants;
  const Efficiency& eff;
  const PlanOptions& options;
  // Only whether some configuration meets the spec (a rejection's fix trials): the search stops
  // at the first, which goes to `found` unexplained.
  bool any = false;
  // Shared by the plan's searches; null: none.
  EvaluationCache* cache = nullptr;
  // precision_variants(spec), made once per plan; null: made by each search.
  const std::vector<std::shared_ptr<const Spec>>* variants = nullptr;
  // The spec's demand in each month of the horizon, worked out at the first costing (cost.cpp):
  // every layout the search costs reads the same curve.
  mutable std::vector<double> demand_by_month{};
  // What the uncertainty data says of a GPU family for this spec, worked out at the family's
  // first candidate (plan.cpp): the same for every candidate on it, and each a sentence that
  // formatting again cost about 10 K instructions a candidate.
  struct FamilyCalibration {
    std::string family;
    Calibration calibration;
  };
  struct FamilyBands {
    std::string family;
    std::string engine;
    RatioBand ttft;
    RatioBand tpot;
  };
  struct FamilyRatio {
    std::string family;
    std::string engine;
    std::string metric;
    double high_ratio = 1;
  };
  mutable std::vector<FamilyCalibration> calibrations{};
  mutable std::vector<FamilyRatio> high_ratios{}; // band_high_ratio's answers
  mutable std::vector<FamilyBands> serving_bands{};
  mutable std::optional<RatioBand> memory_ratio{};
  // What the workload counts and is priced by: made once per search, read per candidate.
  WorkloadUnits units = workload_units(spec);
};

// The answer in `known` that `matches`, or `make()`'s, kept there for the next ask: the per-plan
// answers above and EvaluationCache::engine_answers, each a short list searched in order. The
// reference holds until the next answer is added.
template <class T, class Matches, class Make>
T& remembered(std::vector<T>& known, const Matches& matches, const Make& make) {
  const auto it = std::find_if(known.begin(), known.end(), matches);
  return it != known.end() ? *it : known.emplace_back(make());
}

// --- What the uncertainty data says (bands.cpp), S.options.uncertainty not null

// Uncertainty::calibration of the GPU's family for the spec (its engine and workload).
const Calibration& family_calibration(const Search& S, const Gpu& g);
// A candidate's: its family's, or a disaggregated one's (Uncertainty::disaggregated_calibration).
Calibration candidate_calibration(const Search& S, const Candidate& c);
// inference_bands of a serving estimate on `g` with `engine`, on a layout of `attention_dp`
// attention groups (Uncertainty::attention_data_parallel above 1).
InferenceBands serving_bands(const Search& S,
                             const Gpu& g,
                             const std::string& engine,
                             const InferencePerformance& p,
                             int attention_dp);
// memory_band of a total.
Band memory_band_of(const Search& S, Bytes total);

// --- Layouts and precisions (layouts.cpp)

// Whether constraints.gpus and constraints.vendors admit `g`; `why` says why not.
bool allowed_by_constraints(const Gpu& g, const Spec& s, const Catalog& c, std::string& why);
// Tensor-parallel sizes worth trying, ascending.
std::vector<int> tp_options(const Spec& s, const Gpu& g);
// Context parallelism: tried from sequences of this many tokens, keeping at least this many on
// each rank (docs/plan.md, "Training layouts").
inline constexpr long long k_context_parallel_min_seq = 16384;
inline constexpr long long k_context_parallel_min_tokens_per_rank = 4096;
// Context-parallel sizes worth trying for a training spec, ascending, 1 first.
std::vector<int> cp_options(const Spec& spec);
// The spec with each precision the user allows, the spec's own first, each shared by the
// candidates found on it.
std::vector<std::shared_ptr<const Spec>> precision_variants(const Spec& s);
// The same without the spec's own.
std::vector<Spec> other_precision_variants(const Spec& s);
// A precision variant a search tries: `spec`, and `shared` when the plan made it (Search::variants)
// for its candidates to share; null when the search made it, or it is S.spec.
struct Variant {
  const Spec* spec = nullptr;
  std::shared_ptr<const Spec> shared;
};
// The spec's precision variants, the spec's own first: S.variants, or S.spec and the others made
// into `made` (a rejection's fix trials search without S.variants: no copy of their spec). On a
// GPU without bf16 a variant that keeps bf16 is its fp16 copy, made into `fp16_copies`
// (formats_on_gpu, plan/generation_formats.hpp): the formats the GPU computes and stores.
inline std::vector<Variant>
variants_of(const Search& S, const Gpu& g, std::vector<Spec>& made, std::deque<Spec>& fp16_copies) {
  std::vector<Variant> out;
  if (S.variants != nullptr) {
    for (const auto& v : *S.variants) {
      out.push_back({v.get(), v});
    }
  } else {
    made = other_precision_variants(S.spec);
    out.push_back({&S.spec, nullptr});
    for (const Spec& v : made) {
      out.push_back({&v, nullptr});
    }
  }
  if (!computes_bf16(S.spec, g, S.options.engines)) {
    for (Variant& v : out) {
      if (uses_bf16(*v.spec)) {
        v = {&fp16_copies.emplace_back(in_fp16(*v.spec)), nullptr};
      }
    }
  }
  return out;
}
// The spec a candidate found on `v` keeps: the plan's shared one, else a copy.
inline std::shared_ptr<const Spec> spec_for_candidate(const Variant& v) {
  return v.shared ? v.shared : std::make_shared<const Spec>(*v.spec);
}
// "fp8 weights, fp8 KV cache".
std::string precision_label(const Spec& s);
// Whether the spec's engine runs this precision on `g` (data/engines.json); the miss when not.
// Always true without engine data.
bool engine_runs(const Search& S, const Spec& spec, const Gpu& g, Miss& miss);
// Whether the catalog has a rate for the precision the spec computes in on `g` (fp32 weights:
// the GPU's FP32 figure, which some entries lack); a miss saying what to change when not.
bool compute_rate_known(const Spec& spec, const Gpu& g, Miss& miss);

// --- Cost (cost.cpp)

// Demand in each month of the horizon relative to the first: (1 + growth)^(month - 1), worked
// out once per plan.
const std::vector<double>& demand_curve(const Search& S);

// What a serving configuration needs month by month as demand grows (docs/plan.md, "Growth"):
// the concurrency and the rate targets grow together, and each month gets the fewest replicas
// (never fewer than planned) that meet every target at the band's edge with memory at the
// batch they run, found by the same replica search as month 1.
struct GrowthSeries {
  std::vector<long long> replicas;    // one per month
  std::vector<long long> concurrency; // the month's concurrent requests in all (empty: offline)
  // The first month no replica count within the limits (constraints.max_gpus, 4,096 replicas)
  // serves, and why; the months from it on hold the most replicas tried.
  std::optional<int> unmet_month;
  std::string unmet_reason;
};
// The series of `planned` replicas of one layout (spec variant, GPU, parallelism): for plan's
// re-evaluation of a given configuration (evaluate.cpp); the search computes it from the
// evaluations it already holds.
GrowthSeries
serving_growth(const Search& S, const Spec& spec, const Gpu& g, const Parallelism& p, int planned);
// `replicas` every month (a cost lower bound, a series without growth).
GrowthSeries flat_growth(const Search& S, long long replicas);

// Serving cost: cloud replicas added month by month as `growth` says, or on-prem bought for the
// horizon's peak month of it; in the cloud each month rents the cheapest instances that hold
// its replicas (pick_fleet). False, with `why`, when the catalog has no price for the deployment
// or no shape sold holds the layout. Detail::numbers leaves out the price label, its staleness, the
// basis sentence, the month targets stop being met and the month-by-month costs (months); the
// figures, the total among them, are the same.
bool cost_inference(const Search& S,
                    Candidate& c,
                    const GrowthSeries& growth,
                    std::string& why,
                    Detail detail = Detail::full);
// Training cost for the time to train; `price` may be null on-prem (the cloud picks its instances
// with pick_fleet). False when no instance shape holds the job's GPUs. Detail::numbers leaves the
// labels and the basis sentence out (the search scores every layout; only the best is shown).
bool cost_training(const Search& S, const Price* price, Candidate& c, Detail detail = Detail::full);

// --- MIG slices (catalog/mig.hpp)

// rightsize::mig_slice beside catalog's detail::mig_slice, parse_mig_profile and largest_mig_gb.
using ::rightsize::mig_slice;

// --- Ranking (plan.cpp)

// Whether the spec sets any target (training: always).
bool has_targets(const Spec& spec, const WorkloadUnits& u);
// The GPUs a deployment occupies: on-prem, every GPU of the servers bought.
long long owned_gpus(const Candidate& c);
// A candidate's score under the objective: lower is better.
double score(const Candidate& c, Objective o, const Search& S);

// --- Searches (search_inference.cpp, search_training.cpp)

// Every configuration of `g` that meets the spec goes to `found`; the closest miss to `miss`.
void search_inference(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss);
// search_inference, holding the spec's percentile targets (percentile_targets.cpp): its kept
// candidates simulated, and searched again with tighter typical-request targets while their
// percentiles miss; the same as search_inference for a spec without them.
// Each serving candidate of `plan` simulated once (InferencePerformance::simulated), those the
// search has not simulated already (percentile_targets.cpp).
void simulate_candidates(Plan& plan, const Constants& constants, const Efficiency& eff);

void search_inference_held(const Search& S,
                           const Gpu& g,
                           std::vector<Candidate>& found,
                           Miss& miss);

// The slow edge of `metric`'s band over its point for a GPU's family and the spec's engine, as
// the search holds targets; none when it holds them at the point (--confidence point).
std::optional<double>
band_high_ratio(const Search& S, const Gpu& g, const Spec& spec, const char* metric);
// The same for layout `p`: an attention data-parallel layout's band is enveloped with its
// measured runs' (Uncertainty::attention_data_parallel).
std::optional<double> layout_high_ratio(
    const Search& S, const Gpu& g, const Spec& spec, const Parallelism& p, const char* metric);
// The band rates are held to: decode's ("tpot"), or a one-pass workload's forward pass
// ("ttft").
inline const char* rate_band_metric(const WorkloadUnits& u) {
  return u.decodes ? "tpot" : "ttft";
}
// The band latency targets are held to: TTFT's, or for a request whose whole latency is mostly
// decode steps (a transcription), TPOT's (inference_bands does the same).
inline const char* latency_band_metric(const WorkloadUnits& u) {
  return u.decodes && u.latency == LatencyUnit::request ? "tpot" : "ttft";
}

// Online serving's batch per replica: at least `share` (the spec's concurrency shared among the
// replicas); more when the throughput targets need it, since by Little's law a replica serving
// rate r with requests of duration d holds r x d of them at once. The smallest batch for which
// `holds` (the throughput targets are met; it grows with the batch), by bisection, capped at
// `cap` (what fits, and the engine's max_num_seqs). Callers with no throughput target pass share.
template <class Holds>
long long online_batch_from(long long share, long long cap, const Holds& holds) {
  if (holds(share) || cap <= share) {
    return share;
  }
  return holds(cap) ? first_holding(share, cap, holds) : cap;
}

// A batch the search has evaluated and its throughput ratio (target over what is held, the
// worse of the targets; <= 1: met).
struct RatedBatch {
  long long batch = 0;
  double ratio = 0;
};

// The smallest batch in (lo.batch, hi.batch] whose throughput ratio is at most 1, given that
// lo's is above 1 and hi's is not: first_holding's answer wherever the ratio falls as the batch
// grows, from fewer evaluations. Rates are the batch over a replica's cycle time, which grows
// about linearly with the batch (each decode step reads the weights once and every sequence's
// KV cache), so ratio x batch is about a line, alpha + beta x batch: through the bracket's ends,
// it crosses 1 at alpha / (1 - beta), the next batch tried (docs/plan.md, "Search"). Typically
// two or three evaluations where halving takes seven or eight. The line is a guess only: every
// answer is checked against its neighbour below, and a guess that fails to halve the bracket
// twice running is followed by a halving, so a curve far from a line costs at most about twice
// the halvings.
template <class Ratio> long long first_meeting(RatedBatch lo, RatedBatch hi, const Ratio& ratio) {
  int stalls = 0;
  while (hi.batch - lo.batch > 1) {
    const long long width = hi.batch - lo.batch;
    long long next = lo.batch + width / 2;
    const bool guided = stalls < 2;
    if (guided) {
      const double a = lo.ratio * static_cast<double>(lo.batch);
      const double b = hi.ratio * static_cast<double>(hi.batch);
      const double beta = (b - a) / static_cast<double>(width);
      const double alpha = a - beta * static_cast<double>(lo.batch);
      const double crossing = alpha / (1.0 - beta);
      if (beta < 1.0 && alpha > 0.0 && std::isfinite(crossing)) {
        next = std::clamp(static_cast<long long>(std::ceil(std::min(crossing, 9e15))),
                          lo.batch + 1,
                          hi.batch - 1);
      }
    }
    const RatedBatch tried{next, ratio(next)};
    (tried.ratio <= 1.0 ? hi : lo) = tried;
    stalls = !guided ? 0 : 2 * (hi.batch - lo.batch) > width ? stalls + 1 : 0;
  }
  return hi.batch;
}

// online_batch_from over throughput ratios (`ratio(batch)`, as RatedBatch's), the answer found by
// first_meeting: the pruned search's. `known(lo, hi)` may narrow the bracket with batches
// already evaluated (for other replica counts): the largest known to miss and the smallest known
// to meet the targets within (lo, hi). Throughput grows with the batch, so the answer is the same,
// from fewer evaluations.
struct KnownBatches {
  RatedBatch misses;
  std::optional<RatedBatch> meets;
};
template <class Ratio, class Known>
long long
online_batch_rated(long long share, long long cap, const Ratio& ratio, const Known& known) {
  const RatedBatch at_share{share, ratio(share)};
  if (at_share.ratio <= 1.0 || cap <= share) {
    return share;
  }
  const KnownBatches k = known(at_share, cap);
  if (k.meets) {
    return first_meeting(k.misses, *k.meets, ratio);
  }
  const RatedBatch at_cap{cap, ratio(cap)};
  return at_cap.ratio <= 1.0 ? first_meeting(k.misses, at_cap, ratio) : cap;
}
void search_training(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss);

// Reorders `items` in place so that item k is what was item order[k] (`order` a permutation of
// 0..n-1): each cycle of the permutation moved round through one held element, so no second
// buffer of items is needed (rank: candidates are about 5 KB each).
template <class T> void apply_order(std::vector<T>& items, std::vector<std::size_t> order) {
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) {
      continue;
    }
    T held = std::move(items[start]);
    std::size_t at = start;
    while (order[at] != start) {
      const std::size_t from = order[at];
      items[at] = std::move(items[from]);
      order[at] = at;
      at = from;
    }
    items[at] = std::move(held);
    order[at] = at;
  }
}

} // namespace rightsize::detail
