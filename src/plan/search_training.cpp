// The training search: layouts, memory, time to train against the deadline, cost. Rules:
// docs/plan.md.

#include "search.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/estimate/frameworks.hpp>

#include <fmt/format.h>

#include <optional>

namespace rightsize::detail {

namespace {

// Training layouts, narrowest first: tensor parallel within the NVLink domain, context parallel
// for long sequences, pipeline stages up to 64 (and the layer count), data parallel while it
// divides the global batch into micro-batches; only those the spec's framework runs
// (estimate/frameworks.hpp), and TP 1 where its row keeps tensor parallelism out of the search.
std::vector<Parallelism> training_layouts(const Spec& spec, const Gpu& g, long long max_gpus) {
  const auto& w = spec.workload.training;
  std::vector<Parallelism> out;
  const std::vector<int> cps = cp_options(spec);
  std::vector<int> tps = tp_options(spec, g);
  if (!framework_row(w.framework).search_tensor_parallel) {
    tps = {1};
  }
  for (const int tp : tps) {
    for (const int cp : cps) {
      for (int pp = 1; pp <= 64 && pp <= spec.model.layers; pp *= 2) {
        for (long long dp = 1; static_cast<long long>(tp) * cp * pp * dp <= max_gpus; dp *= 2) {
          if (w.global_batch % (w.micro_batch * dp) != 0) {
            break;
          }
          Parallelism p;
          p.tp = tp;
          p.cp = cp;
          p.pp = pp;
          p.dp = static_cast<int>(dp);
          // A layout over a link the catalog has no rate for is not timed (link_published).
          if (!framework_refusal(spec, p).refused() && link_published(spec, g, p.gpus())) {
            out.push_back(p);
          }
        }
      }
    }
  }
  return out;
}

// Why a GPU cannot train at all: no price for the deployment mode.
std::optional<Miss> training_price_miss(const Deployment& d, const Gpu& g, const Price* price) {
  if (d.mode == DeploymentMode::cloud && price == nullptr) {
    return Miss{"no_price",
                fmt::format("no {} price in the catalog", d.price_kind),
                "add a price with --catalog (docs/catalog.md)",
                0};
  }
  if (d.mode == DeploymentMode::onprem && !g.purchase) {
    return Miss{"no_price",
                "no purchase price in the catalog",
                "add a purchase price with --catalog (docs/catalog.md)",
                0};
  }
  return std::nullopt;
}

// The reason of the miss the search holds, written when the search ends: the miss changes with
// many of the layouts, and writing each one's sentence was a good part of a training plan.
struct PendingReason {
  enum class Kind { none, memory, deadline };
  Kind kind = Kind::none;
  Parallelism p;
  double need = 0; // bytes per GPU, or seconds to train
  double has = 0;  // bytes of capacity, or seconds of deadline

  // Replaces the miss's code and distance now, its reason when write() is called.
  void set(Miss& miss, Kind k, const char* code, const Parallelism& at, double n, double h) {
    miss.code = code;
    miss.fix.clear();
    miss.distance = n / h;
    kind = k;
    p = at;
    need = n;
    has = h;
  }

  void write(Miss& miss) const {
    if (kind == Kind::memory) {
      miss.reason = fmt::format("needs {} per GPU with TP={}{} PP={} DP={}, has {}",
                                format_bytes(Bytes(need)),
                                p.tp,
                                p.cp > 1 ? fmt::format(" CP={}", p.cp) : std::string(),
                                p.pp,
                                p.dp,
                                format_bytes(Bytes(has)));
    } else if (kind == Kind::deadline) {
      miss.reason = fmt::format("needs {} with {} GPUs, deadline {}",
                                format_seconds(seconds(need)),
                                p.gpus(),
                                format_seconds(seconds(has)));
    }
  }
};

// A memory miss replaces only another memory miss: a layout that fits but misses the deadline
// explains the rejection better.
void consider_training_memory_miss(const MemoryEstimate& m,
                                   const Parallelism& p,
                                   Miss& miss,
                                   PendingReason& reason) {
  const double dist = m.per_gpu.total() / m.capacity;
  if (dist < miss.distance && (miss.code.empty() || miss.code == "memory_capacity")) {
    reason.set(miss,
               PendingReason::Kind::memory,
               "memory_capacity",
               p,
               m.per_gpu.total().si(),
               m.capacity.si());
  }
}

void consider_deadline_miss(const TrainingPerformance& t,
                            const Seconds deadline,
                            const Parallelism& p,
                            Miss& miss,
                            PendingReason& reason) {
  const double dist = *t.time_to_train / deadline;
  if (miss.code != "deadline" || dist < miss.distance) {
    reason.set(
        miss, PendingReason::Kind::deadline, "deadline", p, t.time_to_train->si(), deadline.si());
  }
}

// The deadline's pessimistic edge: time to train x the step-time band's high ratio, as
// training_bands() computes it; nullopt when the deadline is held at the point estimate.
std::optional<double> deadline_ratio(const Search& S, const Gpu& g) {
  if (S.options.uncertainty == nullptr || S.options.confidence != Confidence::band) {
    return std::nullopt;
  }
  return S.options.uncertainty->high_ratio("step_time", S.eff.family_name(g), "megatron");
}

// A layout that meets the deadline, with every figure and sentence (Detail::full): the one shown.
Candidate training_candidate(
    const Search& S, const Gpu& g, const Price* price, const Variant& v, const Parallelism& p) {
  const Spec& spec = *v.spec;
  Candidate c;
  c.gpu = &g;
  c.layout = p;
  c.spec = spec_for_candidate(v);
  c.memory = estimate_memory(spec, g, p, S.constants);
  c.training = estimate_training(spec, g, p, c.memory, S.eff);
  if (S.options.uncertainty != nullptr) {
    c.training_bands = training_bands(*c.training, *S.options.uncertainty, S.eff.family_name(g));
  }
  (void)cost_training(S, price, c); // the layout was costed when it was chosen
  return c;
}

} // namespace

// For each precision and layout: memory → step time and time to train against the deadline →
// cost → score. Layouts are many (TP x PP x DP) and only the best is shown, so each is evaluated
// and costed as figures only (Detail::numbers) and the best, the first of the lowest score as
// plan.cpp ranks, is then explained in full.
void search_training(const Search& S, const Gpu& g, std::vector<Candidate>& found, Miss& miss) {
  const auto& w = S.spec.workload.training;
  const long long max_gpus = S.spec.constraints.max_gpus.value_or(4096);
  const Price* price = pick_price(g, S.spec.deployment.price_kind, S.spec.deployment.provider);
  if (auto no_price = training_price_miss(S.spec.deployment, g, price)) {
    miss = std::move(*no_price);
    return;
  }
  const std::optional<double> edge = deadline_ratio(S, g);
  std::vector<Spec> made;
  std::deque<Spec> fp16_copies;
  const std::vector<Variant> variants = variants_of(S, g, made, fp16_copies);
  const Variant* best_variant = nullptr;
  Parallelism best_layout;
  double best_score = 0;
  Candidate trial;
  trial.gpu = &g;
  PendingReason reason;
  // The first layout that fits and meets the deadline but that no instance shape sold holds: when
  // no other does, that is why the GPU has no configuration (a fix proven by the memory alone
  // would not make it one).
  std::optional<Parallelism> unshaped;
  for (const Variant& variant : variants) {
    const Spec& spec = *variant.spec;
    if (!engine_runs(S, spec, g, miss)) {
      continue;
    }
    for (const Parallelism& p : training_layouts(spec, g, max_gpus)) {
      const MemoryEstimate m = estimate_memory(spec, g, p, S.constants, {}, Detail::numbers);
      if (!m.fits) {
        consider_training_memory_miss(m, p, miss, reason);
        continue;
      }
      const TrainingPerformance t = estimate_training(spec, g, p, m, S.eff, Detail::numbers);
      // The deadline holds at the pessimistic edge of the band unless --confidence point.
      if (edge && w.deadline && t.time_to_train &&
          seconds(t.time_to_train->si() * *edge) > *w.deadline) {
        TrainingPerformance pessimistic = t;
        pessimistic.time_to_train = seconds(t.time_to_train->si() * *edge);
        consider_deadline_miss(pessimistic, *w.deadline, p, miss, reason);
        continue;
      }
      if (t.meets_deadline && !*t.meets_deadline) {
        consider_deadline_miss(t, *w.deadline, p, miss, reason);
        continue;
      }
      trial.layout = p;
      trial.memory = m;
      trial.training = t;
      trial.cost = {};
      if (!cost_training(S, price, trial, Detail::numbers)) {
        unshaped = unshaped ? unshaped : p;
        continue; // no instance shape sold holds this layout's GPUs
      }
      if (S.any) {
        Candidate c; // only its existence is asked: unexplained, as the serving search leaves it
        c.gpu = &g;
        c.layout = p;
        c.spec = spec_for_candidate(variant);
        c.memory = m;
        c.training = t;
        found.push_back(std::move(c));
        reason.write(miss);
        return;
      }
      const double sc = score(trial, S.options.objective, S);
      if (best_variant == nullptr || sc < best_score) {
        best_variant = &variant;
        best_layout = p;
        best_score = sc;
      }
    }
  }
  reason.write(miss);
  if (best_variant != nullptr) {
    found.push_back(training_candidate(S, g, price, *best_variant, best_layout));
  } else if (unshaped) {
    std::string why;
    (void)pick_fleet(g,
                     S.spec.deployment.price_kind,
                     S.spec.deployment.provider,
                     ReplicaGpus{unshaped->gpus(), unshaped->tp},
                     1,
                     &why);
    miss = Miss{"no_price",
                fmt::format("{} (the layout that fits: TP={} PP={} DP={})",
                            why,
                            unshaped->tp,
                            unshaped->pp,
                            unshaped->dp),
                "add a price of a shape that holds it with --catalog (docs/catalog.md)",
                0};
  }
}

} // namespace rightsize::detail
