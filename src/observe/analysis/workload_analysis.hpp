#pragma once

// One workload judged: its observed profile (measure.cpp), its reasons (reasons.cpp), and its
// verdict and recommendation (verdict.cpp), in the steps run() names. docs/observe.md.

#include "configurations.hpp"
#include "workloads.hpp"

#include <rightsize/observe/observe.hpp>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize::analysis {

// When one GPU was there: its share (0..1) of each slice of a grid, by slice index (measure.cpp).
using Presence = std::map<long long, double>;
// The slices a workload's window is cut into to tell the GPUs it held at once.
inline constexpr int k_presence_slices = 480;

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
    measure_serving();
    find_reasons();
    if (m_w.serving) {
      find_serving_reasons();
      size_spec();
      decide_serving(warnings);
    } else {
      decide(warnings);
    }
    return std::move(m_w);
  }

private:
  // measure.cpp
  void describe();
  void describe_pods(const std::vector<Presence>& gpu_presences);
  void measure_work();
  void build_timeline();
  void measure_memory();
  void summarize_traces();
  // The level of `m` at --percentile over all the workload's samples; 0 when it has none.
  double level(Metric m) const { return m_level[static_cast<std::size_t>(m)]; }
  double mean_level(Metric m) const;

  // reasons.cpp
  void reason(std::string code, std::string text);
  bool has_reason(std::string_view code) const;
  void find_reasons();
  void find_balance_reasons();

  // serving.cpp: a serving engine's workload, judged on the engine's metrics
  void measure_serving();
  void find_serving_reasons();
  void size_spec();
  void decide_serving(std::vector<std::string>& warnings);
  const Candidate* cheapest_in_plan(double& usd_per_month) const;
  void scale_out(ObserveRecommendation& r) const;

  // verdict.cpp
  Need need() const;
  std::string option_text(const Option& o) const;
  void decide(std::vector<std::string>& warnings);
  // The recommendation's cost now (a warning when the catalog has no price), and one that keeps
  // what runs: the same GPUs, nothing saved (decide and decide_serving share them).
  ObserveRecommendation priced_now(std::vector<std::string>& warnings) const;
  void keep_current(ObserveRecommendation& r, std::string text) const;
  std::string inconclusive_text() const;
  bool is_larger(const Option& o) const;
  void fill(ObserveRecommendation& r, const Option& best, double current_share) const;

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
  const Spec* m_spec = nullptr;       // the spec it serves (--spec-map), serving workloads only
  std::shared_ptr<const Plan> m_plan; // the plan on it at the observed load
  std::string m_spec_mismatch;        // why the spec does not describe the pod, or empty
};

} // namespace rightsize::analysis
