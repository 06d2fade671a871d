// The figures check compares, one row per metric, and the comparison of one figure.

#include "figures.hpp"

#include <rightsize/core/units_format.hpp>

#include <fmt/format.h>

#include <array>

namespace rightsize::detail {

namespace {

// A rise under 0.05% would read +0.0%: not worth a warning.
constexpr double k_noticeable = 0.0005;

// A figure of a configuration; none where the configuration does not record it.
using Figure = std::optional<double> (*)(const LockedConfiguration&);
// A figure as the report writes it.
using Text = std::string (*)(double);

struct Metric {
  const char* metric;
  const char* label;
  const char* unit;
  const char* check; // the --fail-on name of the figure's threshold
  bool higher_is_worse;
  Figure figure;
  Text text;
  // Relative; null: the figure is reported, never held to a threshold.
  double CheckThresholds::*threshold;
  // Where locks written before 2026-11-27 kept this figure: read from the lock when it lacks the
  // figure and the configuration now records it. Null: nowhere else.
  Figure legacy = nullptr;
};

template <auto Field> std::optional<double> figure(const LockedConfiguration& l) {
  return l.*Field;
}

std::string count_text(double v) {
  return std::to_string(static_cast<int>(v));
}
std::string per_hour_text(double v) {
  return format_usd_per_hour(usd_per_hour(v));
}
std::string money_text(double v) {
  return format_usd(rightsize::usd(v));
}
std::string usd_3_text(double v) {
  return fmt::format("${:.3f}", v);
}
std::string usd_4_text(double v) {
  return fmt::format("${:.4f}", v);
}
std::string bytes_text(double v) {
  return format_bytes(Bytes(v));
}
std::string ms_text(double v) {
  return format_seconds(milliseconds(v));
}
std::string s_text(double v) {
  return format_seconds(seconds(v));
}
std::string h_text(double v) {
  return format_seconds(hours(v));
}
std::string whole_text(double v) {
  return fmt::format("{:.0f}", v);
}
std::string tenths_text(double v) {
  return fmt::format("{:.1f}", v);
}

using L = LockedConfiguration;
using T = CheckThresholds;

// The order is the report's.
const std::array<Metric, 20> k_metrics{{
    {"gpus", "GPUs", "GPUs", "gpus", true, figure<&L::gpus>, count_text, &T::gpus},
    {"usd_per_hour",
     "$/hour",
     "USD/h",
     "cost",
     true,
     figure<&L::usd_per_hour>,
     per_hour_text,
     &T::cost},
    {"usd_per_month",
     "$/month",
     "USD/month",
     "cost",
     true,
     figure<&L::usd_per_month>,
     money_text,
     nullptr},
    {"tco_usd", "TCO", "USD", "cost", true, figure<&L::tco_usd>, money_text, &T::cost},
    {"usd_per_million_output_tokens",
     "$/M tokens",
     "USD",
     "cost",
     true,
     figure<&L::usd_per_million_tokens>,
     usd_3_text,
     nullptr},
    {"memory_per_gpu_bytes",
     "memory per GPU",
     "bytes",
     "memory",
     true,
     figure<&L::memory_per_gpu_bytes>,
     bytes_text,
     nullptr},
    {"ttft_ms", "TTFT", "ms", "latency", true, figure<&L::ttft_ms>, ms_text, &T::ttft},
    {"tpot_ms", "TPOT", "ms", "latency", true, figure<&L::tpot_ms>, ms_text, &T::tpot},
    // Recorded where the targets name percentiles: held to the same latency thresholds.
    {"ttft_p99_ms", "p99 TTFT", "ms", "latency", true, figure<&L::ttft_p99_ms>, ms_text, &T::ttft},
    {"tpot_p99_ms", "p99 TPOT", "ms", "latency", true, figure<&L::tpot_p99_ms>, ms_text, &T::tpot},
    {"output_tokens_per_s",
     "tokens/s",
     "tokens/s",
     "throughput",
     false,
     figure<&L::output_tokens_per_s>,
     whole_text,
     &T::throughput},
    // Embeddings and transcription: the request latency under the TTFT threshold, and the
    // throughput and unit price in their own unit.
    {"latency_ms",
     "latency",
     "ms",
     "latency",
     true,
     figure<&L::latency_ms>,
     ms_text,
     &T::ttft,
     figure<&L::ttft_ms>},
    {"sequences_per_s",
     "sequences/s",
     "sequences/s",
     "throughput",
     false,
     figure<&L::sequences_per_s>,
     tenths_text,
     &T::throughput},
    {"images_per_s",
     "images/s",
     "images/s",
     "throughput",
     false,
     figure<&L::images_per_s>,
     tenths_text,
     &T::throughput},
    {"audio_seconds_per_s",
     "audio seconds/s",
     "audio s/s",
     "throughput",
     false,
     figure<&L::audio_seconds_per_s>,
     tenths_text,
     &T::throughput},
    // A text embedding's price per million tokens was locked as usd_per_million_output_tokens.
    {"usd_per_million_input_tokens",
     "$/M input tokens",
     "USD",
     "cost",
     true,
     figure<&L::usd_per_million_input_tokens>,
     usd_4_text,
     nullptr,
     figure<&L::usd_per_million_tokens>},
    {"usd_per_thousand_images",
     "$/1k images",
     "USD",
     "cost",
     true,
     figure<&L::usd_per_thousand_images>,
     usd_4_text,
     nullptr},
    {"usd_per_audio_hour",
     "$/audio hour",
     "USD",
     "cost",
     true,
     figure<&L::usd_per_audio_hour>,
     usd_4_text,
     nullptr},
    {"step_time_s", "step time", "s", "latency", true, figure<&L::step_time_s>, s_text, nullptr},
    {"time_to_train_hours",
     "time to train",
     "h",
     "latency",
     true,
     figure<&L::time_to_train_hours>,
     h_text,
     &T::time_to_train},
}};

std::string percent(double relative) {
  return fmt::format("{:+.1f}%", 100.0 * relative);
}

// Adds the change of one figure; crosses its threshold when it moves the wrong way by more.
void compare_figure(CheckResult& r,
                    const Metric& m,
                    double before,
                    double after,
                    std::optional<double> threshold,
                    const CheckThresholds& t) {
  Change c{
      m.metric, m.label, m.unit, before, after, m.text(before), m.text(after), threshold, false};
  const auto rel = c.relative();
  if (rel && threshold) {
    const double worse = m.higher_is_worse ? *rel : -*rel;
    if (worse > *threshold + 1e-12) {
      const std::string line = fmt::format("{}: {} {} -> {} ({}), over the {:.0f}% threshold",
                                           m.check,
                                           m.label,
                                           c.before_text,
                                           c.after_text,
                                           percent(*rel),
                                           100.0 * *threshold);
      if (t.fails_on(m.check)) {
        c.crossed = true;
        r.crossed.push_back({m.check, line});
      } else {
        r.warnings.push_back(line);
      }
    } else if (worse > k_noticeable) {
      r.warnings.push_back(fmt::format(
          "{} {} ({} threshold {:.0f}%)", m.label, percent(*rel), m.check, 100.0 * *threshold));
    }
  }
  if (c.before_text != c.after_text || c.crossed) {
    r.changes.push_back(std::move(c));
  }
}

// The share of the memory budget left free, checked on what is compared now.
void check_headroom(CheckResult& r, const LockedConfiguration& now, const CheckThresholds& t) {
  if (now.memory_budget_bytes <= 0 || t.memory_headroom <= 0) {
    return;
  }
  const double headroom = 1.0 - now.memory_per_gpu_bytes / now.memory_budget_bytes;
  if (headroom < t.memory_headroom) {
    const std::string line =
        fmt::format("memory: {:.1f}% of the memory budget left free, under the {:.0f}% "
                    "headroom threshold",
                    100.0 * headroom,
                    100.0 * t.memory_headroom);
    (t.fails_on("memory") ? r.crossed.push_back({"memory", line}) : r.warnings.push_back(line));
  }
}

} // namespace

void compare_figures(CheckResult& r,
                     const LockedConfiguration& was,
                     const LockedConfiguration& now,
                     const CheckThresholds& t) {
  for (const Metric& m : k_metrics) {
    const std::optional<double> after = m.figure(now);
    std::optional<double> before = m.figure(was);
    if (!before && after && m.legacy != nullptr) {
      before = m.legacy(was);
    }
    if (before && after) {
      const std::optional<double> threshold =
          m.threshold != nullptr ? std::optional<double>(t.*m.threshold) : std::nullopt;
      compare_figure(r, m, *before, *after, threshold, t);
    }
  }
  check_headroom(r, now, t);
}

} // namespace rightsize::detail
