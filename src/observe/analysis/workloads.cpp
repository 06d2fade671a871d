// Workloads out of telemetry and traces. docs/observe.md, "From samples to a workload".

#include "workloads.hpp"

#include "percentiles.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace rightsize::analysis {

namespace {

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

std::string workload_name(const GpuIdentity& id, GroupBy by) {
  if (by == GroupBy::host) {
    return id.host.empty() ? std::string("?") : id.host;
  }
  const std::string in_namespace = id.namespace_name.empty() ? "" : id.namespace_name + "/";
  const bool by_owner = by == GroupBy::automatic || by == GroupBy::owner;
  if (by_owner && !id.owner_name.empty()) {
    return in_namespace + id.owner_kind + "/" + id.owner_name;
  }
  if (by != GroupBy::gpu && !id.pod.empty()) {
    return in_namespace + id.pod;
  }
  return id.label();
}

} // namespace

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

std::vector<Group> group_workloads(const std::vector<const GpuSeries*>& gpus, GroupBy by) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const GpuSeries* g : gpus) {
    const std::string name = workload_name(g->id, by);
    const auto [it, inserted] = index.emplace(name, groups.size());
    if (inserted) {
      groups.push_back(Group{name, {}, {}, {}});
    }
    groups[it->second].gpus.push_back(g);
  }
  return groups;
}

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
      groups.push_back(Group{stem, {}, {&t.profile}, {}});
    }
  }
}

bool has(const Group& g, Metric m) {
  return std::any_of(g.gpus.begin(), g.gpus.end(), [&](const GpuSeries* s) {
    return s->summary(m).has_value() || !(*s)[m].empty();
  });
}

namespace {

Summary from_samples(std::vector<double> values, double extra) {
  Summary out;
  out.mean = values.empty() ? 0
                            : std::accumulate(values.begin(), values.end(), 0.0) /
                                  static_cast<double>(values.size());
  out.percentiles = summarize_in_place(values, extra, out.extra);
  return out;
}

// The server's summary as the analysis reads it; each percentile it needs was asked for
// (PrometheusQuery::percentiles), so one missing is a bug.
Summary from_server(const SeriesSummary& s, double extra) {
  const auto at = [&](double p) {
    const auto v = s.at(p);
    if (!v) {
      throw InternalError(fmt::format("the server summary has no percentile {:g}", p));
    }
    return *v;
  };
  Summary out;
  out.percentiles.p50 = at(50);
  out.percentiles.p95 = at(95);
  out.percentiles.max = s.max;
  out.percentiles.samples = static_cast<std::size_t>(s.count);
  out.extra = at(extra);
  out.mean = s.mean;
  return out;
}

} // namespace

std::optional<Summary> gpu_summary(const GpuSeries& g, Metric m, double extra) {
  if (const auto& s = g.summary(m)) {
    return from_server(*s, extra);
  }
  if (!g[m].empty()) {
    return from_samples(g[m].value, extra);
  }
  return std::nullopt;
}

std::optional<Summary> group_summary(const Group& g, Metric m, double extra) {
  const bool any_server = std::any_of(
      g.gpus.begin(), g.gpus.end(), [&](const GpuSeries* s) { return s->summary(m).has_value(); });
  if (!any_server) {
    std::vector<double> all;
    for (const auto* s : g.gpus) {
      const auto& v = (*s)[m].value;
      all.insert(all.end(), v.begin(), v.end());
    }
    if (all.empty()) {
      return std::nullopt;
    }
    return from_samples(std::move(all), extra);
  }
  Summary out;
  double weight = 0;
  for (const auto* s : g.gpus) {
    const auto one = gpu_summary(*s, m, extra);
    if (!one) {
      continue;
    }
    const auto w = static_cast<double>(one->percentiles.samples);
    weight += w;
    out.percentiles.samples += one->percentiles.samples;
    out.percentiles.max = std::max(out.percentiles.max, one->percentiles.max);
    out.percentiles.p50 += w * one->percentiles.p50;
    out.percentiles.p95 += w * one->percentiles.p95;
    out.extra += w * one->extra;
    out.mean += w * one->mean;
  }
  if (weight <= 0) {
    return std::nullopt;
  }
  out.percentiles.p50 /= weight;
  out.percentiles.p95 /= weight;
  out.extra /= weight;
  out.mean /= weight;
  return out;
}

} // namespace rightsize::analysis
