// How an estimate's targets read for a person: in its table and in its JSON's "summary".

#include "estimate_parts.hpp"

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

namespace {

// "TPOT", "requests/s": how a person calls a target.
std::string target_label(const std::string& target) {
  // A percentile target, "ttft_p99_ms": "p99 TTFT"; the mean held on the simulated distribution
  // (open arrivals), "ttft_mean_ms": "mean TTFT".
  for (const char* latency : {"ttft", "tpot"}) {
    if (target == std::string(latency) + "_mean_ms") {
      return "mean " + target_label(std::string(latency) + "_ms");
    }
    const std::string prefix = std::string(latency) + "_p";
    if (target.rfind(prefix, 0) == 0 && target.size() > prefix.size() + 3) {
      const std::string percentile =
          target.substr(prefix.size() - 1, target.size() - 3 - prefix.size() + 1);
      return percentile + " " + target_label(std::string(latency) + "_ms");
    }
  }
  if (target == "ttft_ms") {
    return "TTFT";
  }
  if (target == "latency_ms") {
    return "latency";
  }
  if (target == "sequences_per_s") {
    return "sequences/s";
  }
  if (target == "images_per_s") {
    return "images/s";
  }
  if (target == "audio_seconds_per_s") {
    return "audio seconds/s";
  }
  if (target == "tpot_ms") {
    return "TPOT";
  }
  if (target == "output_tokens_per_s") {
    return "output tokens/s";
  }
  if (target == "deadline_hours") {
    return "time to train";
  }
  return "requests/s";
}

// Three significant digits in a unit chosen by the size: "38.2 ms", "50 ms", "1.5 s", "2.07 min",
// "6.2 h".
std::string compact_seconds(double s) {
  if (s < 1.0) {
    return fmt::format("{:.3g} ms", s * 1e3);
  }
  if (s < 120.0) {
    return fmt::format("{:.3g} s", s);
  }
  if (s < 7200.0) {
    return fmt::format("{:.3g} min", s / 60.0);
  }
  if (s < 48.0 * 3600.0) {
    return fmt::format("{:.3g} h", s / 3600.0);
  }
  return fmt::format("{:.3g} days", s / 86400.0);
}

} // namespace

std::string detail::target_value(const std::string& target, double v) {
  if (target.size() > 3 && target.compare(target.size() - 3, 3, "_ms") == 0) {
    return compact_seconds(v / 1e3);
  }
  if (target == "deadline_hours") {
    return compact_seconds(v * 3600.0);
  }
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

std::string detail::target_summary(const TargetCheck& t, int replicas) {
  const double pct = 100.0 * std::abs(t.margin);
  const char* const how =
      t.at_most ? (t.margin >= 0 ? "under" : "over") : (t.margin >= 0 ? "above" : "short");
  const bool rate = t.target == "requests_per_s" || t.target == "output_tokens_per_s" ||
                    t.target == "sequences_per_s" || t.target == "images_per_s" ||
                    t.target == "audio_seconds_per_s";
  return fmt::format("{}{} {} vs {}{}: {}, {:.0f}% {}",
                     target_label(t.target),
                     rate && replicas > 1 ? fmt::format(" (all {} replicas)", replicas) : "",
                     target_value(t.target, t.held),
                     t.at_most ? "" : ">= ",
                     target_value(t.target, t.limit),
                     t.met ? "met" : "MISSED",
                     pct,
                     how);
}

} // namespace rightsize
