#include <rightsize/catalog/mig.hpp>
#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/observe/observe.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

namespace rightsize {

std::string_view to_string(GroupBy g) {
  switch (g) {
  case GroupBy::automatic:
    return "auto";
  case GroupBy::host:
    return "host";
  case GroupBy::gpu:
    return "gpu";
  }
  return "auto";
}

namespace {

// The percentiles `ps` (ascending, 0..100) of `values`, reordering it: each nth_element works on
// what is left above the previous rank, so k percentiles cost about one pass, not k sorts.
std::vector<double> percentiles_in_place(std::vector<double>& values,
                                         const std::vector<double>& ps) {
  std::vector<double> out;
  out.reserve(ps.size());
  if (values.empty()) {
    out.assign(ps.size(), 0.0);
    return out;
  }
  auto from = values.begin();
  for (double p : ps) {
    p = std::clamp(p, 0.0, 100.0);
    // Linear interpolation between the order statistics around rank p/100 * (n - 1), as
    // numpy's default: the 95th percentile of 1..11 is 10.5.
    const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::ptrdiff_t>(std::floor(rank));
    const auto nth = values.begin() + below;
    if (nth >= from) {
      std::nth_element(from, nth, values.end());
      from = nth;
    }
    const double low = *nth;
    double value = low;
    if (nth + 1 != values.end() && rank > static_cast<double>(below)) {
      const double high = *std::min_element(nth + 1, values.end());
      value = low + (high - low) * (rank - static_cast<double>(below));
    }
    out.push_back(value);
  }
  return out;
}

// p50, p95 and max of `values` (reordered), and the percentile `extra` into `extra_value`.
Percentiles summarize_in_place(std::vector<double>& values, double extra, double& extra_value) {
  Percentiles p;
  p.samples = values.size();
  if (values.empty()) {
    extra_value = 0;
    return p;
  }
  std::vector<double> ps = {50, 95, extra, 100};
  std::sort(ps.begin(), ps.end());
  const auto got = percentiles_in_place(values, ps);
  const auto at = [&](double q) {
    return got[static_cast<std::size_t>(std::find(ps.begin(), ps.end(), q) - ps.begin())];
  };
  p.p50 = at(50);
  p.p95 = at(95);
  p.max = at(100);
  extra_value = at(extra);
  return p;
}

} // namespace

double percentile(std::vector<double> values, double p) {
  return percentiles_in_place(values, {p}).front();
}

Percentiles summarize(const std::vector<double>& values) {
  std::vector<double> copy = values;
  double unused = 0;
  return summarize_in_place(copy, 50, unused);
}

namespace {

std::string squash(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string without_vendor_prefix(const std::string& squashed) {
  for (const std::string prefix : {"nvidia", "tesla", "amd"}) {
    if (squashed.rfind(prefix, 0) == 0) {
      return squashed.substr(prefix.size());
    }
  }
  return squashed;
}

} // namespace

const Gpu* identify_gpu(const std::string& model_name,
                        const Catalog& catalog,
                        const DeployData& deploy_data,
                        const std::map<std::string, std::string>& gpu_models) {
  if (model_name.empty()) {
    // An input that does not name its GPU (an nvidia-smi log without the name column, a trace
    // without deviceProperties): --gpu-model unnamed=GPU says what it is.
    const auto it = gpu_models.find("unnamed");
    return it == gpu_models.end() ? nullptr : catalog.find(it->second);
  }
  // NVML names ("NVIDIA A100 80GB PCIe") are the GPU Feature Discovery product labels of
  // data/deploy.json with spaces for dashes; drivers before 2021 left out "NVIDIA ". Names are
  // compared by their letters and digits, so --gpu-model A100-PG509-200=... maps
  // "NVIDIA A100-PG509-200" too.
  const std::string key = without_vendor_prefix(squash(model_name));
  for (const auto& [observed, catalog_name] : gpu_models) {
    if (without_vendor_prefix(squash(observed)) == key) {
      return catalog.find(catalog_name);
    }
  }
  for (const auto& [catalog_name, product] : deploy_data.gpu_products) {
    if (without_vendor_prefix(squash(product.value)) == key) {
      if (const Gpu* g = catalog.find(catalog_name)) {
        return g;
      }
    }
  }
  if (const Gpu* g = catalog.find(model_name)) {
    return g;
  }
  return catalog.find(key);
}

namespace {

// --- Grouping

// Series of one GPU seen in several inputs (a DCGM file and Prometheus, two nvidia-smi logs) are
// one GPU: keyed by UUID (else host and index), MIG profile and instance and the pod that used it.
std::string gpu_key(const GpuIdentity& id) {
  const std::string gpu = id.uuid.empty() ? id.host + "/" + id.index : id.uuid;
  return fmt::format("{}|{}|{}|{}|{}|{}",
                     gpu,
                     id.mig_profile,
                     id.mig_instance,
                     id.namespace_name,
                     id.pod,
                     id.container);
}

void append_sorted(Samples& into, const Samples& from) {
  const bool in_order = into.empty() || from.empty() || from.time_s.front() >= into.time_s.back();
  into.time_s.insert(into.time_s.end(), from.time_s.begin(), from.time_s.end());
  into.value.insert(into.value.end(), from.value.begin(), from.value.end());
  if (in_order) {
    return;
  }
  std::vector<std::size_t> order(into.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return into.time_s[a] < into.time_s[b];
  });
  Samples sorted;
  sorted.time_s.reserve(order.size());
  sorted.value.reserve(order.size());
  for (const auto i : order) {
    sorted.add(into.time_s[i], into.value[i]);
  }
  into = std::move(sorted);
}

// The GPUs of `telemetry`, each once: a GPU seen in one input is used in place; one seen in
// several is merged into `merged` (stable addresses: a deque).
std::vector<const GpuSeries*> merge_duplicates(const Telemetry& telemetry,
                                               std::deque<GpuSeries>& merged) {
  std::vector<const GpuSeries*> gpus;
  std::vector<GpuSeries*> own; // the merged copy of gpus[i], once it has one
  std::map<std::string, std::size_t> index;
  for (const auto& g : telemetry.gpus) {
    const auto [it, inserted] = index.emplace(gpu_key(g.id), gpus.size());
    if (inserted) {
      gpus.push_back(&g);
      own.push_back(nullptr);
      continue;
    }
    GpuSeries*& copy = own[it->second];
    if (copy == nullptr) {
      copy = &merged.emplace_back(*gpus[it->second]);
      gpus[it->second] = copy;
    }
    GpuSeries& into = *copy;
    for (std::size_t m = 0; m < k_metric_count; ++m) {
      append_sorted(into.metrics[m], g.metrics[m]);
    }
    for (std::string GpuIdentity::*field :
         {&GpuIdentity::model_name, &GpuIdentity::host, &GpuIdentity::index}) {
      if ((into.id.*field).empty()) {
        into.id.*field = g.id.*field;
      }
    }
  }
  return gpus;
}

std::string workload_name(const GpuIdentity& id, GroupBy by) {
  if (by == GroupBy::host) {
    return id.host.empty() ? std::string("?") : id.host;
  }
  if (by == GroupBy::automatic && !id.pod.empty()) {
    return id.namespace_name.empty() ? id.pod : id.namespace_name + "/" + id.pod;
  }
  return id.label();
}

struct Group {
  std::string name;
  std::vector<const GpuSeries*> gpus;
  std::vector<const TraceProfile*> traces;
};

std::vector<Group> group_workloads(const std::vector<const GpuSeries*>& gpus, GroupBy by) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const GpuSeries* g : gpus) {
    const std::string name = workload_name(g->id, by);
    const auto [it, inserted] = index.emplace(name, groups.size());
    if (inserted) {
      groups.push_back(Group{name, {}, {}});
    }
    groups[it->second].gpus.push_back(g);
  }
  return groups;
}

// --- What was observed

std::vector<double> pooled(const Group& g, Metric m) {
  std::vector<double> all;
  for (const auto* s : g.gpus) {
    const auto& v = (*s)[m].value;
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

bool has(const Group& g, Metric m) {
  return std::any_of(
      g.gpus.begin(), g.gpus.end(), [&](const GpuSeries* s) { return !(*s)[m].empty(); });
}

// "37%", and "4.6%" under 10% so that a figure and its threshold never print alike ("5% < 5%").
std::string percent(double fraction) {
  const double p = 100.0 * fraction;
  return p < 9.95 && p != 0.0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.0f}%", p);
}

std::string gib_text(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

// The rate a GPU's work is measured in: its dense 16-bit tensor rate (fp32 on cards without one).
double work_rate(const Gpu& g) {
  for (const auto p : {TensorPrecision::bf16,
                       TensorPrecision::fp16,
                       TensorPrecision::tf32,
                       TensorPrecision::fp32}) {
    if (const auto r = g.rate(p)) {
      return r->si();
    }
  }
  return 0;
}

// A configuration a workload could run on, and what it costs.
struct Option {
  const Gpu* gpu = nullptr; // the whole GPU (for a slice, the GPU it is cut from)
  Gpu shape;                // what the workload gets per GPU: the GPU or the slice
  std::string partition;
  int count = 0;
  double usd_per_month = 0;
};

// The share of a whole GPU a slice takes, as plan prices it; 1 for a whole GPU.
double share_of_gpu(const Gpu& whole, const Gpu& shape) {
  const double whole_price = whole.prices.empty() ? 0 : whole.prices.front().per_gpu.si();
  const double shape_price = shape.prices.empty() ? 0 : shape.prices.front().per_gpu.si();
  if (whole_price > 0 && shape_price > 0) {
    return shape_price / whole_price;
  }
  return shape.memory.si() / whole.memory.si();
}

std::optional<double> monthly(const Gpu& shape, int count, const ObserveOptions& o) {
  const Price* price = pick_price(shape, o.pricing.price_kind, o.pricing.provider);
  if (price == nullptr) {
    return std::nullopt;
  }
  return price->per_gpu.si() * o.pricing.hours_per_month * count;
}

// What the workload needs, buffer included, in absolute terms.
struct Need {
  std::optional<double> memory_bytes; // over all its GPUs
  double memory_per_gpu_floor = 0;    // when memory is unknown: keep at least the current capacity
  double flops = 0;                   // bf16-equivalent FLOP/s
  double bytes_per_s = 0;             // memory bandwidth
  bool needs_link = false;            // interconnect-bound: more than one GPU needs NVLink
  bool runs_on_nvlink = false;        // the current GPUs have NVLink
  int current_gpus = 1;
  double scale_out_efficiency = 0.9;
};

bool covers(const Option& o, const Need& need) {
  const double n = o.count;
  const double capacity = o.shape.plannable_memory().si();
  if (need.memory_bytes) {
    if (*need.memory_bytes / n > capacity) {
      return false;
    }
  } else if (capacity < need.memory_per_gpu_floor) {
    return false;
  }
  // Spreading work over more GPUs than it runs on now costs communication: each doubling
  // delivers `scale_out_efficiency` of the added GPUs' rate (docs/observe.md).
  double delivered = n;
  if (o.count > need.current_gpus) {
    delivered *=
        std::pow(need.scale_out_efficiency, std::log2(n / static_cast<double>(need.current_gpus)));
  }
  if (delivered * work_rate(o.shape) < need.flops ||
      delivered * o.shape.memory_bandwidth.si() < need.bytes_per_s) {
    return false;
  }
  // More than one GPU without NVLink: only where the workload already runs that way, or needs
  // neither the link (its memory fits one GPU) nor is bound by it.
  if (o.count > 1 && !o.shape.has_nvlink()) {
    const bool split = need.memory_bytes && *need.memory_bytes > capacity;
    if (need.needs_link || (split && need.runs_on_nvlink)) {
      return false;
    }
  }
  return true;
}

std::vector<Option>
options_for(const Catalog& catalog, const Gpu& current, int current_gpus, const ObserveOptions& o) {
  std::vector<Option> out;
  int max_count = 1;
  while (max_count * 2 <= std::max(o.max_gpus, current_gpus)) {
    max_count *= 2;
  }
  for (const auto& g : catalog.gpus) {
    if (!o.gpus.empty()) {
      const bool listed = std::any_of(o.gpus.begin(), o.gpus.end(), [&](const std::string& name) {
        return catalog.find(name) == &g;
      });
      if (!listed) {
        continue;
      }
    } else if (g.vendor != current.vendor) {
      continue; // a CUDA workload stays on NVIDIA unless --gpus says otherwise
    }
    for (int n = 1; n <= max_count; n *= 2) {
      if (const auto usd = monthly(g, n, o)) {
        out.push_back(Option{&g, g, "", n, *usd});
      }
    }
    // Slices only of the model it runs on: re-partitioning GPUs one has. A slice of another
    // model would mean buying or renting that GPU to share it, which plan prices, not observe.
    if (o.mig && g.mig && &g == &current) {
      for (const auto& profile : g.mig->profiles) {
        if (auto slice = mig_slice(g, profile, true)) {
          if (const auto usd = monthly(*slice, 1, o)) {
            out.push_back(Option{&g, std::move(*slice), profile, 1, *usd});
          }
        }
      }
    }
  }
  return out;
}

// The options of workloads on `current` x count, built once per plan of a fleet: they depend on
// nothing else, and a fleet runs few GPU models.
using OptionsCache = std::map<std::pair<const Gpu*, int>, std::vector<Option>>;

const std::vector<Option>& cached_options(OptionsCache& cache,
                                          const Catalog& catalog,
                                          const Gpu& current,
                                          int current_gpus,
                                          const ObserveOptions& o) {
  auto [it, inserted] = cache.try_emplace({&current, current_gpus});
  if (inserted) {
    it->second = options_for(catalog, current, current_gpus, o);
  }
  return it->second;
}

// The cheapest option that covers the need and that `allowed` keeps: ties go to fewer GPUs, then
// more memory per GPU.
template <class Allowed>
const Option*
cheapest_covering(const std::vector<Option>& options, const Need& need, Allowed&& allowed) {
  const Option* best = nullptr;
  for (const auto& o : options) {
    if (!allowed(o) || !covers(o, need)) {
      continue;
    }
    if (best == nullptr) {
      best = &o;
      continue;
    }
    // Prices that differ in the last bits (2 x $0.43 and $0.86) are the same price.
    const double tolerance = 1e-9 * std::max(o.usd_per_month, best->usd_per_month);
    if (o.usd_per_month < best->usd_per_month - tolerance) {
      best = &o;
    } else if (o.usd_per_month <= best->usd_per_month + tolerance &&
               std::make_tuple(o.count, -o.shape.plannable_memory().si()) <
                   std::make_tuple(best->count, -best->shape.plannable_memory().si())) {
      best = &o;
    }
  }
  return best;
}

// --- One workload

class WorkloadAnalysis {
public:
  WorkloadAnalysis(const Group& group,
                   const Gpu& gpu,
                   const Catalog& catalog,
                   const ObserveOptions& options,
                   OptionsCache& options_cache)
      : m_group(group), m_whole(gpu), m_catalog(catalog), m_o(options),
        m_options_cache(options_cache) {}

  WorkloadObservation run(std::vector<std::string>& warnings) {
    describe();
    measure_work();
    measure_memory();
    build_timeline();
    summarize_traces();
    find_reasons();
    decide(warnings);
    return std::move(m_w);
  }

private:
  void describe() {
    const GpuIdentity* first = m_group.gpus.empty() ? nullptr : &m_group.gpus.front()->id;
    m_w.name = m_group.name;
    m_w.gpu = m_whole.name;
    m_w.observed_gpu = first ? first->model_name : m_group.traces.front()->device_name;
    m_w.partition = first ? first->mig_profile : "";
    m_shape = m_whole;
    if (!m_w.partition.empty()) {
      if (auto slice = mig_slice(m_whole, m_w.partition, true)) {
        m_shape = std::move(*slice);
      } else {
        m_w.notes.push_back(fmt::format("MIG profile {} is not one the catalog lists for {}: "
                                        "costed as the whole GPU",
                                        m_w.partition,
                                        m_whole.name));
        m_w.partition.clear();
      }
    }
    m_w.gpus = static_cast<int>(m_group.gpus.size());
    if (m_group.gpus.empty()) {
      m_w.gpus = std::max(1, m_group.traces.front()->devices);
    }
    double first_t = std::numeric_limits<double>::infinity();
    double last_t = -first_t;
    for (const auto* s : m_group.gpus) {
      GpuObservation per;
      per.label = s->id.label();
      per.uuid = s->id.uuid;
      for (const auto& samples : s->metrics) {
        if (!samples.empty()) {
          first_t = std::min(first_t, samples.time_s.front());
          last_t = std::max(last_t, samples.time_s.back());
        }
      }
      m_w.per_gpu.push_back(std::move(per)); // samples and work: measure_work()
    }
    m_w.window_s = last_t > first_t ? last_t - first_t : 0;
    m_first_t = first_t;
    // Each metric pooled and summarized once: p50, p95, max, and the level at --percentile.
    for (std::size_t m = 0; m < k_metric_count; ++m) {
      const auto metric = static_cast<Metric>(m);
      if (!has(m_group, metric)) {
        continue;
      }
      auto values = pooled(m_group, metric);
      if (metric == Metric::throttled) {
        m_throttled_share =
            std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
      }
      m_w.observed[metric] = summarize_in_place(values, m_o.work_percentile, m_level[m]);
    }
  }

  // The level of `m` at --percentile over all the workload's samples; 0 when it has none.
  double level(Metric m) const { return m_level[static_cast<std::size_t>(m)]; }

  // The mean over the workload's GPUs of each GPU's level of `m` at --percentile (a GPU without
  // samples of it counts 0): times the GPU count, the work of all of them. A pooled percentile
  // would size four GPUs at 0, 20, 60 and 99% as four busy ones.
  double mean_level(Metric m) const {
    if (m_group.gpus.size() <= 1) {
      return level(m);
    }
    double sum = 0;
    for (const auto* g : m_group.gpus) {
      const auto& values = (*g)[m].value;
      if (!values.empty()) {
        sum += percentile(values, m_o.work_percentile);
      }
    }
    return sum / static_cast<double>(m_group.gpus.size());
  }

  // Work: DCGM's SM activity where the exporter has profiling metrics, else the time a kernel ran
  // (utilization.gpu), which overstates it; else a trace's busy share.
  void measure_work() {
    std::optional<Metric> metric;
    for (const auto m : {Metric::sm_active, Metric::gpu_utilization}) {
      if (has(m_group, m)) {
        metric = m;
        break;
      }
    }
    if (metric) {
      m_w.work_metric = std::string(to_string(*metric));
      m_work = m_w.observed.at(*metric);
      m_work_max = m_work.max;
      // Each GPU's own summary and level at --percentile, from one copy of its samples: their
      // mean is the workload's level (as mean_level() gives it for other metrics).
      double levels = 0;
      for (std::size_t i = 0; i < m_group.gpus.size(); ++i) {
        std::vector<double> values = (*m_group.gpus[i])[*metric].value;
        double at_percentile = 0;
        m_w.per_gpu[i].samples = values.size();
        m_w.samples += values.size();
        m_w.per_gpu[i].work = summarize_in_place(values, m_o.work_percentile, at_percentile);
        levels += at_percentile;
      }
      m_work_level = levels / static_cast<double>(m_group.gpus.size());
    } else if (!m_group.traces.empty()) {
      m_w.work_metric = "trace";
      std::vector<double> values;
      for (const auto* t : m_group.traces) {
        values.push_back(t->busy_fraction());
      }
      m_work = summarize(values);
      m_work_level = percentile(values, m_o.work_percentile);
      m_work_max = m_work.max;
      // A trace's samples are its GPU events; its window is the trace's.
      for (const auto* t : m_group.traces) {
        m_w.samples += t->kernels;
        m_w.window_s = std::max(m_w.window_s, t->window_s);
      }
    } else {
      throw InputError(m_group.gpus.front()->id.source,
                       fmt::format("{}: no utilization samples (utilization.gpu, "
                                   "DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_SM_ACTIVE): nothing to "
                                   "judge the work by",
                                   m_w.name));
    }
    // Bandwidth: DCGM's DRAM activity, else nvidia-smi's memory utilization, else the work.
    m_bandwidth_level = m_work_level;
    for (const auto m : {Metric::dram_active, Metric::memory_utilization}) {
      if (m_w.observed.count(m) != 0) {
        m_bandwidth_level = mean_level(m);
        break;
      }
    }
    const double grow = 1.0 + m_o.buffer;
    m_w.work_needed_gpus = std::max(m_work_level, m_bandwidth_level) * grow * m_w.gpus;
  }

  // The window in equal slices: each slice's work and memory percentiles over the workload's GPUs.
  void build_timeline() {
    if (m_o.timeline_slices <= 0 || m_group.gpus.empty() || m_w.work_metric == "trace" ||
        m_w.work_metric.empty()) {
      return;
    }
    const Metric work = m_w.work_metric == to_string(Metric::sm_active) ? Metric::sm_active
                                                                        : Metric::gpu_utilization;
    const auto n = static_cast<std::size_t>(m_w.window_s > 0 ? m_o.timeline_slices : 1);
    const double width = m_w.window_s > 0 ? m_w.window_s / static_cast<double>(n) : 1;
    const auto slice_of = [&](double t) {
      const double k = std::floor((t - m_first_t) / width);
      return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, k)));
    };
    std::vector<std::vector<double>> work_values(n);
    std::vector<std::vector<double>> memory_values(n);
    for (const auto* g : m_group.gpus) {
      const auto& w = (*g)[work];
      for (std::size_t i = 0; i < w.size(); ++i) {
        work_values[slice_of(w.time_s[i])].push_back(w.value[i]);
      }
      const auto& m = (*g)[Metric::memory_used];
      for (std::size_t i = 0; i < m.size(); ++i) {
        memory_values[slice_of(m.time_s[i])].push_back(m.value[i]);
      }
    }
    const std::vector<double> ps = {50, 95, 100};
    for (std::size_t k = 0; k < n; ++k) {
      if (work_values[k].empty()) {
        continue;
      }
      TimeSlice s;
      s.start_s = width * static_cast<double>(k);
      s.end_s = m_w.window_s > 0 ? width * static_cast<double>(k + 1) : 0;
      s.samples = work_values[k].size();
      const auto w = percentiles_in_place(work_values[k], ps);
      s.work = {w[0], w[1], w[2], s.samples};
      if (!memory_values[k].empty()) {
        const auto m = percentiles_in_place(memory_values[k], ps);
        s.memory_used_bytes = Percentiles{m[0], m[1], m[2], memory_values[k].size()};
      }
      m_w.timeline.push_back(std::move(s));
    }
  }

  void measure_memory() {
    m_capacity = m_shape.plannable_memory().si();
    double observed_total = 0;
    for (const auto* s : m_group.gpus) {
      const auto& totals = (*s)[Metric::memory_total].value;
      if (!totals.empty()) {
        observed_total = std::max(observed_total, *std::max_element(totals.begin(), totals.end()));
      }
    }
    // What the driver reports as the total is what a process can have: it wins over the
    // catalog's figure for the GPU it was measured on.
    if (observed_total > 0) {
      m_capacity = observed_total;
    }
    m_w.memory_capacity_bytes = m_capacity;
    double needed = 0;
    bool known = false;
    for (std::size_t i = 0; i < m_group.gpus.size(); ++i) {
      const auto& used = (*m_group.gpus[i])[Metric::memory_used].value;
      if (used.empty()) {
        continue;
      }
      known = true;
      std::vector<double> copy = used;
      double at_percentile = 0;
      m_w.per_gpu[i].memory_used_bytes =
          summarize_in_place(copy, m_o.memory_percentile, at_percentile);
      needed += at_percentile;
      m_largest_gpu_need = std::max(m_largest_gpu_need, at_percentile * (1.0 + m_o.buffer));
      m_peak_share = std::max(m_peak_share, m_w.per_gpu[i].memory_used_bytes->max / m_capacity);
    }
    if (!known) {
      // What the caching allocator reserved is what had to fit; what tensors held is less.
      for (const auto* t : m_group.traces) {
        if (const auto peak =
                t->peak_reserved_bytes ? t->peak_reserved_bytes : t->peak_memory_bytes) {
          known = true;
          needed = std::max(needed, *peak * m_w.gpus);
          m_peak_share = std::max(m_peak_share, *peak / m_capacity);
        }
      }
    }
    if (known) {
      m_w.memory_needed_bytes = needed * (1.0 + m_o.buffer);
    } else {
      m_w.notes.push_back("no memory samples: the recommendation keeps at least the current "
                          "memory per GPU");
    }
  }

  void summarize_traces() {
    if (m_group.traces.empty()) {
      return;
    }
    const TraceProfile& t = *m_group.traces.front();
    TraceSummary s;
    s.source = t.source;
    s.format = t.format;
    s.window_s = t.window_s;
    s.busy_fraction = t.busy_fraction();
    const double device_time = t.window_s * std::max(1, t.devices);
    s.input_wait_fraction = device_time > 0 ? t.input_wait_s / device_time : 0;
    double by_class = 0;
    for (const double v : t.busy_by_class_s) {
      by_class += v;
    }
    for (std::size_t k = 0; k < k_kernel_class_count; ++k) {
      s.share_by_class[k] = by_class > 0 ? t.busy_by_class_s[k] / by_class : 0;
    }
    s.host_to_device_bytes = t.host_to_device_bytes;
    s.peak_memory_bytes = t.peak_reserved_bytes ? t.peak_reserved_bytes : t.peak_memory_bytes;
    m_w.trace = s;
    if (m_group.traces.size() > 1) {
      m_w.notes.push_back(fmt::format("{} traces: the first ({}) is summarized, all count as work",
                                      m_group.traces.size(),
                                      t.source));
    }
  }

  void reason(std::string code, std::string text) {
    m_w.reasons.push_back(ObserveReason{std::move(code), std::move(text)});
  }

  bool has_reason(std::string_view code) const {
    return std::any_of(m_w.reasons.begin(), m_w.reasons.end(), [&](const ObserveReason& r) {
      return r.code == code;
    });
  }

  void find_reasons() {
    const std::string work = m_w.work_metric == "trace"
                                 ? std::string("the trace's busy share")
                                 : fmt::format("{} p{:g}", m_w.work_metric, m_o.work_percentile);
    const std::string window = format_seconds(seconds(m_w.window_s));
    if (m_work_level < m_o.idle_below && m_work_max < m_o.low_utilization_below) {
      reason("idle",
             fmt::format("{} is {} (< {}) and never above {} over {}: nothing of "
                         "substance ran on the GPU",
                         work,
                         percent(m_work_level),
                         percent(m_o.idle_below),
                         percent(m_work_max),
                         window));
    } else if (m_work_level < m_o.low_utilization_below) {
      if (m_work_max >= m_o.saturated_above) {
        m_w.notes.push_back(fmt::format(
            "bursts: at its busiest the work reached {}; sized for the p{:g}, those bursts run "
            "slower on the recommendation (a batch job that must finish in time needs --percentile "
            "100)",
            percent(m_work_max),
            m_o.work_percentile));
      }
      reason("low_utilization",
             fmt::format("{} is {} (< {}): the GPU works less than it waits",
                         work,
                         percent(m_work_level),
                         percent(m_o.low_utilization_below)));
    }
    if (m_work.p50 >= m_o.saturated_above) {
      // utilization.gpu counts the GPU busy whenever any kernel runs: saturated by it means
      // never idle, which a serving engine can be at a small batch. Say so.
      const char* caveat = m_w.work_metric == "gpu_utilization"
                               ? " (kernel time, not SM activity: DCGM's profiling metrics "
                                 "would show how full the SMs are)"
                               : "";
      reason("compute_saturated",
             fmt::format("{} median is {} (>= {}): work queues for the GPU{}",
                         m_w.work_metric,
                         percent(m_work.p50),
                         percent(m_o.saturated_above),
                         caveat));
    }
    if (m_w.memory_needed_bytes && !has_reason("idle")) {
      const double total = m_capacity * m_w.gpus;
      const double share = *m_w.memory_needed_bytes / total;
      if (m_peak_share >= m_o.memory_pressure_above) {
        reason("memory_pressure",
               fmt::format("peak memory is {} of {} per GPU (>= {}): allocations fail or spill",
                           percent(m_peak_share),
                           gib_text(m_capacity),
                           percent(m_o.memory_pressure_above)));
      } else if (share < m_o.memory_headroom_below) {
        reason("memory_headroom",
               fmt::format("memory needed with a {} buffer is {} of {} (< {})",
                           percent(m_o.buffer),
                           gib_text(*m_w.memory_needed_bytes),
                           gib_text(total),
                           percent(m_o.memory_headroom_below)));
      }
    }
    find_balance_reasons();
  }

  // The system around the GPU: input, links, clocks.
  void find_balance_reasons() {
    if (m_w.trace && m_w.trace->input_wait_fraction >= m_o.input_wait_above) {
      reason("input_bound",
             fmt::format("the GPU waits on data loading {} of the trace (>= {}): fix the input "
                         "pipeline before resizing",
                         percent(m_w.trace->input_wait_fraction),
                         percent(m_o.input_wait_above)));
    } else if (const double host_link = m_whole.host_link.si(); host_link > 0) {
      const double rx = level(Metric::pcie_rx) / host_link;
      if (rx >= m_o.interconnect_above && m_work_level < m_o.low_utilization_below) {
        reason("input_bound",
               fmt::format("host-to-GPU PCIe traffic p{:g} is {} of the link while the GPU works "
                           "{}: it waits on input",
                           m_o.work_percentile,
                           percent(rx),
                           percent(m_work_level)));
      }
    }
    const double link = m_whole.gpu_link.si();
    const double nvlink = std::max(level(Metric::nvlink_tx), level(Metric::nvlink_rx));
    if (m_whole.has_nvlink() && link > 0 && nvlink / link >= m_o.interconnect_above) {
      reason("interconnect_bound",
             fmt::format("NVLink traffic p{:g} is {} of the link (>= {})",
                         m_o.work_percentile,
                         percent(nvlink / link),
                         percent(m_o.interconnect_above)));
    } else if (m_w.trace) {
      const double comm =
          m_w.trace->share_by_class[static_cast<std::size_t>(KernelClass::communication)];
      if (comm >= m_o.communication_above) {
        reason("interconnect_bound",
               fmt::format("communication kernels take {} of the GPU's busy time (>= {})",
                           percent(comm),
                           percent(m_o.communication_above)));
      }
    }
    if (m_w.observed.count(Metric::throttled) != 0) {
      const double share = m_throttled_share;
      if (share >= m_o.throttled_above) {
        reason(
            "throttled",
            fmt::format("power or thermal limits slowed the clocks in {} of the samples (>= {}): "
                        "the GPU delivers less than its rating; check cooling and power caps",
                        percent(share),
                        percent(m_o.throttled_above)));
      }
    }
  }

  Need need() const {
    const double grow = 1.0 + m_o.buffer;
    Need n;
    n.memory_bytes = m_w.memory_needed_bytes;
    n.memory_per_gpu_floor = m_capacity;
    n.flops = m_work_level * grow * m_w.gpus * work_rate(m_shape);
    n.bytes_per_s = m_bandwidth_level * grow * m_w.gpus * m_shape.memory_bandwidth.si();
    n.needs_link = has_reason("interconnect_bound");
    n.runs_on_nvlink = m_shape.has_nvlink();
    n.current_gpus = m_w.gpus;
    n.scale_out_efficiency = m_o.scale_out_efficiency;
    return n;
  }

  std::string option_text(const Option& o) const {
    if (!o.partition.empty()) {
      return fmt::format("one {} slice of {}", o.partition, o.gpu->name);
    }
    return fmt::format("{}x {}", o.count, o.gpu->name);
  }

  void decide(std::vector<std::string>& warnings) {
    ObserveRecommendation r;
    r.usd_per_month_now = monthly(m_shape, m_w.gpus, m_o);
    if (!r.usd_per_month_now) {
      warnings.push_back(fmt::format("{}: no {} price for {} in the catalog: costs are not shown",
                                     m_w.name,
                                     m_o.pricing.price_kind,
                                     m_shape.name));
    }
    const double current_share = m_w.partition.empty() ? 1.0 : share_of_gpu(m_whole, m_shape);
    const auto& options = cached_options(m_options_cache, m_catalog, m_whole, m_w.gpus, m_o);
    const Need n = need();
    const bool under = has_reason("memory_pressure") || has_reason("compute_saturated");
    // Under-provisioned: what runs short now is a floor, whatever the buffer.
    const Option* best =
        cheapest_covering(options, n, [&](const Option& o) { return !under || is_larger(o); });

    if (has_reason("idle")) {
      m_w.verdict = "idle";
      r.gpus = 0;
      r.usd_per_month_recommended = 0.0;
      r.gpus_freed = current_share * m_w.gpus;
      r.text = fmt::format("free the {} GPU{}: {}",
                           m_w.gpus,
                           m_w.gpus == 1 ? "" : "s",
                           "nothing ran in the window (scale to zero, or give it back)");
    } else if (under) {
      m_w.verdict = "under-provisioned";
      if (best != nullptr) {
        fill(r, *best, current_share);
        r.gpus_freed = 0; // replaced, not freed
      } else {
        r.text = m_o.gpus.empty()
                     ? fmt::format("nothing in the catalog up to {} GPUs covers the observed need "
                                   "with the margin: split the workload",
                                   m_o.max_gpus)
                     : "none of the --gpus covers the observed need with the margin";
      }
    } else if (best != nullptr && r.usd_per_month_now &&
               best->usd_per_month <= *r.usd_per_month_now * (1.0 - m_o.min_saving) &&
               (has_reason("low_utilization") || has_reason("memory_headroom"))) {
      m_w.verdict = "over-provisioned";
      fill(r, *best, current_share);
    } else {
      m_w.verdict = "right-sized";
      r.gpu = m_whole.name;
      r.gpus = m_w.gpus;
      r.partition = m_w.partition;
      r.usd_per_month_recommended = r.usd_per_month_now;
      r.text = r.usd_per_month_now
                   ? "keep it: nothing cheaper covers the observed need with the margin"
                   : fmt::format("keep it: no {} price for {} to compare with (costs unknown)",
                                 m_o.pricing.price_kind,
                                 m_shape.name);
    }
    if (r.usd_per_month_now && r.usd_per_month_recommended) {
      r.usd_per_month_saved = *r.usd_per_month_now - *r.usd_per_month_recommended;
    }
    m_w.recommendation = r;
  }

  // Whether `o` has more of what runs short than the workload has now: memory per GPU times GPUs
  // under memory pressure, compute when saturated.
  bool is_larger(const Option& o) const {
    const double n = o.count;
    const double memory_now = m_capacity * m_w.gpus;
    const double rate_now = work_rate(m_shape) * m_w.gpus;
    if (has_reason("memory_pressure") &&
        o.shape.plannable_memory().si() * n <= memory_now * (1 + 1e-9)) {
      return false;
    }
    return !(has_reason("compute_saturated") && work_rate(o.shape) * n <= rate_now * (1 + 1e-9));
  }

  void fill(ObserveRecommendation& r, const Option& best, double current_share) const {
    r.gpu = best.gpu->name;
    r.gpus = best.count;
    r.partition = best.partition;
    r.usd_per_month_recommended = best.usd_per_month;
    const bool same_model = best.gpu == &m_whole;
    const double kept = same_model ? share_of_gpu(m_whole, best.shape) * best.count : 0.0;
    r.gpus_freed = std::max(0.0, current_share * m_w.gpus - kept);
    const std::string memory = m_w.memory_needed_bytes
                                   ? fmt::format("{} of memory ({} per GPU there)",
                                                 gib_text(*m_w.memory_needed_bytes),
                                                 gib_text(best.shape.plannable_memory().si()))
                                   : std::string("at least the memory per GPU it has now");
    r.text =
        fmt::format("{}{}: the need, with the {} buffer, is the work of {:.2f} {} and {}",
                    has_reason("input_bound") ? "once the input pipeline keeps the GPU fed, " : "",
                    option_text(best),
                    percent(m_o.buffer),
                    m_w.work_needed_gpus,
                    m_shape.name,
                    memory);
    // One process's memory does not split over GPUs by itself.
    if (best.count > m_w.gpus && m_largest_gpu_need > best.shape.plannable_memory().si()) {
      r.text += fmt::format("; one GPU's {} today must then be split over {} GPUs (tensor or "
                            "pipeline parallelism)",
                            gib_text(m_largest_gpu_need),
                            best.count);
    }
  }

  const Group& m_group;
  const Gpu& m_whole;
  const Catalog& m_catalog;
  const ObserveOptions& m_o;
  OptionsCache& m_options_cache; // shared by the workloads of one observe()
  Gpu m_shape;                   // the GPU or MIG slice the workload runs on
  WorkloadObservation m_w;
  Percentiles m_work;
  double m_work_level = 0;
  double m_work_max = 0;
  double m_first_t = 0;          // the window's first sample
  double m_largest_gpu_need = 0; // the largest one GPU's memory need, buffer included
  double m_bandwidth_level = 0;
  double m_capacity = 0;
  double m_peak_share = 0;
  std::array<double, k_metric_count> m_level{}; // each metric at --percentile
  double m_throttled_share = 0;
};

// --- Traces to workloads

void attach_traces(std::vector<Group>& groups,
                   const std::vector<NamedTrace>& traces,
                   std::vector<std::string>& warnings) {
  const std::size_t telemetry_groups = groups.size();
  for (const auto& t : traces) {
    if (!t.workload.empty()) {
      const auto it = std::find_if(
          groups.begin(), groups.end(), [&](const Group& g) { return g.name == t.workload; });
      if (it == groups.end()) {
        std::vector<std::string> names;
        for (const auto& g : groups) {
          names.push_back(g.name);
        }
        const std::string known = names.empty()
                                      ? std::string("none has telemetry")
                                      : fmt::format("the workloads: {}", fmt::join(names, ", "));
        throw InputError("--trace",
                         fmt::format("{}={}: no workload named \"{}\"{} ({})",
                                     t.workload,
                                     t.profile.source,
                                     t.workload,
                                     did_you_mean(t.workload, names),
                                     known));
      }
      it->traces.push_back(&t.profile);
    } else if (telemetry_groups == 1) {
      groups.front().traces.push_back(&t.profile);
    } else {
      if (telemetry_groups > 1) {
        warnings.push_back(fmt::format("{}: {} workloads have telemetry; the trace is judged on "
                                       "its own (--trace WORKLOAD=FILE attaches it)",
                                       t.profile.source,
                                       telemetry_groups));
      }
      std::string stem = t.profile.source;
      if (const auto slash = stem.find_last_of('/'); slash != std::string::npos) {
        stem = stem.substr(slash + 1);
      }
      groups.push_back(Group{stem, {}, {&t.profile}});
    }
  }
}

// A verdict from a few samples or minutes is a snapshot, not a profile: said once per workload.
void warn_if_snapshot(const WorkloadObservation& w, std::vector<std::string>& warnings) {
  constexpr std::size_t k_min_samples = 10;
  constexpr double k_min_window_s = 600;
  if (w.work_metric == "trace") {
    warnings.push_back(fmt::format("{}: judged from one trace of {}: a snapshot; telemetry over "
                                   "a day or more is the profile to act on",
                                   w.name,
                                   format_seconds(seconds(w.window_s))));
    return;
  }
  const std::size_t per_gpu = w.gpus > 0 ? w.samples / static_cast<std::size_t>(w.gpus) : 0;
  if (per_gpu < k_min_samples || w.window_s < k_min_window_s) {
    warnings.push_back(fmt::format("{}: only {} samples per GPU over {}: a snapshot; observe a "
                                   "day or more of traffic before acting on it",
                                   w.name,
                                   per_gpu,
                                   format_seconds(seconds(w.window_s))));
  }
}

void add_to_summary(ObserveSummary& s, const WorkloadObservation& w, double current_share) {
  ++s.workloads;
  ++s.by_verdict[w.verdict];
  s.gpus_observed += current_share * w.gpus;
  if (!w.recommendation) {
    return;
  }
  const auto& r = *w.recommendation;
  s.usd_per_month_now += r.usd_per_month_now.value_or(0);
  if (w.verdict == "idle" || w.verdict == "over-provisioned") {
    s.gpus_freed += r.gpus_freed;
    s.usd_per_month_saved += std::max(0.0, r.usd_per_month_saved.value_or(0));
  } else if (w.verdict == "under-provisioned") {
    s.usd_per_month_added += std::max(0.0, -r.usd_per_month_saved.value_or(0));
  }
}

} // namespace

ObserveReport observe(const Telemetry& telemetry,
                      const std::vector<NamedTrace>& traces,
                      const Catalog& catalog,
                      const DeployData& deploy_data,
                      const ObserveOptions& options) {
  ObserveReport report;
  report.options = options;
  report.catalog_version = catalog.version;
  report.warnings = telemetry.warnings;
  for (const auto& t : traces) {
    report.warnings.insert(
        report.warnings.end(), t.profile.warnings.begin(), t.profile.warnings.end());
  }
  for (const auto& verdict : {"over-provisioned", "under-provisioned", "right-sized", "idle"}) {
    report.summary.by_verdict[verdict] = 0;
  }

  std::deque<GpuSeries> merged;
  const auto gpus = merge_duplicates(telemetry, merged);
  OptionsCache options_cache;
  auto groups = group_workloads(gpus, options.group_by);
  attach_traces(groups, traces, report.warnings);

  for (const auto& group : groups) {
    const std::string model =
        group.gpus.empty() ? group.traces.front()->device_name : group.gpus.front()->id.model_name;
    const Gpu* gpu = identify_gpu(model, catalog, deploy_data, options.gpu_models);
    if (gpu == nullptr) {
      const std::string source =
          group.gpus.empty() ? group.traces.front()->source : group.gpus.front()->id.source;
      report.warnings.push_back(
          model.empty() ? fmt::format("{}: {}: the input does not name the GPU; workload skipped "
                                      "(--gpu-model unnamed=<catalog name> says what it is)",
                                      source,
                                      group.name)
                        : fmt::format("{}: {}: GPU \"{}\" is not in the catalog; workload skipped "
                                      "(--gpu-model \"{}=<catalog name>\" maps it)",
                                      source,
                                      group.name,
                                      model,
                                      model));
      continue;
    }
    WorkloadAnalysis analysis(group, *gpu, catalog, options, options_cache);
    WorkloadObservation w;
    try {
      w = analysis.run(report.warnings);
    } catch (const InputError& e) {
      // One GPU the exporter sends no utilization for must not hide the fleet's report.
      report.warnings.push_back(std::string(e.what()) + "; workload skipped");
      continue;
    }
    warn_if_snapshot(w, report.warnings);
    double share = 1.0;
    if (!w.partition.empty()) {
      if (auto slice = mig_slice(*gpu, w.partition, true)) {
        share = share_of_gpu(*gpu, *slice);
      }
    }
    add_to_summary(report.summary, w, share);
    report.workloads.push_back(std::move(w));
  }
  if (report.workloads.empty()) {
    // The warnings say why: the first of them goes into the one line.
    const std::string why = report.warnings.empty()
                                ? std::string()
                                : " (first warning: " + report.warnings.front() + ")";
    throw InputError("observe",
                     (groups.empty() ? std::string("no GPU samples in the input")
                                     : std::string("no workload could be judged")) +
                         why);
  }
  return report;
}

} // namespace rightsize
