#pragma once

// Leave-one-group-out (LOGO): for each dimension the serving data spans (GPU family, engine, model
// kind, input and output length class, KV regime), the efficiencies are refitted with one whole
// group removed from the fit set (fit.hpp) and the group's lines predicted; measured / predicted of
// those lines is the transfer error of the dimension. The transfer bands of data/uncertainty.json
// come from it (docs/accuracy.md, "Uncertainty bands"), and band_coverage() measures, per group,
// how often the band rightsize prints holds on held-out lines.

#include "perf_cases.hpp"

#include <rightsize/estimate/uncertainty.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace rightsize::accuracy {

// The dimensions, in report order: gpu_family, engine, model_kind, input_length, output_length,
// kv_regime.
const std::vector<std::string>& logo_dimensions();

// The band metric a serving line informs: "ttft" (TTFT and the tables' first-token latency),
// "tpot" (TPOT and the tables' throughput, whose band is the TPOT band inverted), or "" (not a
// serving line: training, step diagnostics).
std::string band_metric(const PerfCase& c);

// measured / predicted as the band metric counts it (a throughput's ratio inverted), under `eff`.
double band_ratio(const PerfCase& c, const Efficiency& eff);

// The case's group in `dimension` ("hopper", "moe", "input<=1024", "queues"), or "" when the case
// is no serving line.
std::string group_of(const PerfCase& c, const std::string& dimension);

struct LogoGroup {
  std::string dimension;
  std::string name;
  std::map<std::string, std::vector<double>> ratios; // band metric -> the group's lines' ratios
  double seconds = 0;                                // the refit's wall time
};

struct LogoOptions {
  int max_rounds = 40; // the fitter's rounds per refit (fit.hpp)
  int threads = 2;     // refits run side by side
};

// One refit per group of every dimension. A held-out GPU family's or engine's own parameters are
// not fitted: they are set to the mean of the other fitted families' (engines') values, the
// stand-in for a family or engine the data has no runs for. Every refit starts from `start`.
std::vector<LogoGroup>
leave_one_group_out(const PerfCases& cases, const Efficiency& start, const LogoOptions& options);

// Per dimension, group and band metric: held-out lines (never in the fit of `eff`) and how many
// of them the band of `u` (Uncertainty::band, as reports print it) holds.
struct Coverage {
  int lines = 0;
  int inside = 0;
  [[nodiscard]] double share() const { return lines == 0 ? 0.0 : double(inside) / lines; }
};
using CoverageTable = std::map<std::string, std::map<std::string, std::map<std::string, Coverage>>>;
// Also "all" / "all" per metric: every held-out serving line.
CoverageTable band_coverage(const PerfCases& cases, const Efficiency& eff, const Uncertainty& u);

} // namespace rightsize::accuracy

namespace rightsize::accuracy {

// data/uncertainty.json's "transfer": per dimension its pooled ttft and tpot ratios (p10, p90,
// lines, and coverage: the share of each group's lines inside the band pooled from the other
// groups, the band that group would get were it unknown) and per group the same of its own lines.
nlohmann::json transfer_bands(const std::vector<LogoGroup>& groups);

// The disaggregated layout's band (data/uncertainty.json transfer.layout, groups.disaggregated):
// measured / predicted of the disaggregated runs under `eff` (none of them fitted), p5 and p95
// per metric (p10-p90 held too few unseen runs). coverage: split-half, each part's lines inside
// the band of the other part's (held_out_key: a quarter and three quarters), pooled; the band
// itself is of all the lines.
nlohmann::json disaggregated_transfer(const std::vector<PerfCase>& cases, const Efficiency& eff);

// The attention data-parallel layout's band (transfer.layout, groups.attention_dp): the same of
// the attention-DP lines, none fitted; the split-half coverage splits them by held_out_key of
// their run (docs/accuracy.md, "Attention data parallelism").
nlohmann::json attention_dp_band(const std::vector<PerfCase>& cases, const Efficiency& eff);

// The coverage table (--coverage): per dimension and group, the held-out lines of each metric and
// the share inside the printed band, beside the group's transfer ratios from `transfer`.
void print_coverage(const CoverageTable& table, const nlohmann::json& transfer);

} // namespace rightsize::accuracy
