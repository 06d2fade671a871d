// A query_range answer added to the telemetry: each series to the GPU its labels name, stored by
// its DCGM field's role. docs/observe.md, "Prometheus".

#include "answer.hpp"
#include "telemetry/dcgm_fields.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/prometheus.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

namespace rightsize {

namespace {

using prometheus::Answer;
using prometheus::identity_key;
using prometheus::Point;

// Points sorted by time, one per time (the first of equal times: a GPU scraped by two jobs).
void sort_unique(std::vector<Point>& points) {
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.time_s < b.time_s;
  });
  points.erase(std::unique(points.begin(),
                           points.end(),
                           [](const Point& a, const Point& b) { return a.time_s == b.time_s; }),
               points.end());
}

// Adds sorted, unique points to `samples`, keeping time order; where `samples` already has a
// time (the same metric from another DCGM field, or a chunk answered twice) its value stays.
// Returns how many were added.
std::size_t merge_points(Samples& samples, const std::vector<Point>& points) {
  if (points.empty()) {
    return 0;
  }
  if (samples.empty() || points.front().time_s > samples.time_s.back()) {
    for (const auto& p : points) {
      samples.add(p.time_s, p.value);
    }
    return points.size();
  }
  Samples merged;
  merged.time_s.reserve(samples.size() + points.size());
  merged.value.reserve(samples.size() + points.size());
  std::size_t i = 0;
  std::size_t added = 0;
  for (const auto& p : points) {
    while (i < samples.size() && samples.time_s[i] < p.time_s) {
      merged.add(samples.time_s[i], samples.value[i]);
      ++i;
    }
    if (i < samples.size() && samples.time_s[i] == p.time_s) {
      continue;
    }
    merged.add(p.time_s, p.value);
    ++added;
  }
  for (; i < samples.size(); ++i) {
    merged.add(samples.time_s[i], samples.value[i]);
  }
  samples = std::move(merged);
  return added;
}

// The index of the value at exactly `time_s`, or npos.
std::size_t find_time(const Samples& samples, double time_s) {
  const auto it = std::lower_bound(samples.time_s.begin(), samples.time_s.end(), time_s);
  if (it == samples.time_s.end() || *it != time_s) {
    return std::string::npos;
  }
  return static_cast<std::size_t>(it - samples.time_s.begin());
}

struct Counts {
  std::size_t non_finite = 0; // NaN or infinite, as sent or once scaled
  std::size_t unmatched = 0;  // FB_FREE or FB_RESERVED without the sample they add to
  std::size_t not_a_mask = 0; // a throttle reason that is not a non-negative integer
};

// One GPU's points of `field` (sorted, unique, unscaled) stored by the field's role.
void store_points(const dcgm::Field& field,
                  const std::vector<Point>& points,
                  GpuSeries& gpu,
                  Telemetry& into,
                  Counts& counts) {
  std::vector<Point> scaled;
  scaled.reserve(points.size());
  switch (field.role) {
  case dcgm::Role::metric:
    for (const auto& p : points) {
      const double v = p.value * field.scale;
      if (std::isfinite(v)) {
        scaled.push_back({p.time_s, v});
      } else {
        ++counts.non_finite;
      }
    }
    into.samples += merge_points(gpu[field.metric], scaled);
    break;
  case dcgm::Role::fb_free:
    // memory_total = used + free at the same time (fields() queries FB_USED first).
    for (const auto& p : points) {
      const Samples& used = gpu[Metric::memory_used];
      const std::size_t at = find_time(used, p.time_s);
      if (at == std::string::npos) {
        ++counts.unmatched;
        continue;
      }
      const double v = used.value[at] + p.value * field.scale;
      if (std::isfinite(v)) {
        scaled.push_back({p.time_s, v});
      } else {
        ++counts.non_finite;
      }
    }
    into.samples += merge_points(gpu[Metric::memory_total], scaled);
    break;
  case dcgm::Role::fb_reserved:
    // Added once per time: the chunks of a query do not overlap, and sort_unique() keeps one
    // point per time of each GPU.
    for (const auto& p : points) {
      Samples& total = gpu[Metric::memory_total];
      const std::size_t at = find_time(total, p.time_s);
      if (at == std::string::npos) {
        ++counts.unmatched;
        continue;
      }
      const double v = total.value[at] + p.value * field.scale;
      if (std::isfinite(v)) {
        total.value[at] = v;
      } else {
        ++counts.non_finite;
      }
    }
    break;
  case dcgm::Role::throttle_mask:
    for (const auto& p : points) {
      // Exactly representable integers only: a mask is a 64-bit field sent as a float.
      if (!(p.value >= 0 && p.value < 0x1p64) || std::floor(p.value) != p.value) {
        ++counts.not_a_mask;
        continue;
      }
      const auto mask = static_cast<unsigned long long>(p.value);
      scaled.push_back({p.time_s, (mask & dcgm::k_limiting_reasons) != 0 ? 1.0 : 0.0});
    }
    into.samples += merge_points(gpu[Metric::throttled], scaled);
    break;
  }
}

void add_warnings(const std::string& url,
                  const dcgm::Field& field,
                  const Answer& answer,
                  const Counts& counts,
                  Telemetry& into) {
  for (const auto& w : answer.warnings) {
    into.warnings.push_back(fmt::format("{}: Prometheus warns: {}", url, w));
  }
  const std::size_t non_finite = answer.non_finite + counts.non_finite;
  if (non_finite > 0) {
    into.warnings.push_back(fmt::format("{}: {} sample{} NaN or infinite; skipped",
                                        url,
                                        non_finite,
                                        non_finite == 1 ? " was" : "s were"));
  }
  if (counts.unmatched > 0) {
    const std::string_view needs =
        field.role == dcgm::Role::fb_free ? "DCGM_FI_DEV_FB_USED" : "DCGM_FI_DEV_FB_FREE";
    into.warnings.push_back(fmt::format("{}: {} sample{} without {} at the same time; memory_total "
                                        "not known there",
                                        url,
                                        counts.unmatched,
                                        counts.unmatched == 1 ? "" : "s",
                                        needs));
  }
  if (counts.not_a_mask > 0) {
    into.warnings.push_back(fmt::format("{}: {} sample{} not a clock-reason bit mask (an integer "
                                        ">= 0); skipped",
                                        url,
                                        counts.not_a_mask,
                                        counts.not_a_mask == 1 ? " is" : "s are"));
  }
}

} // namespace

void add_prometheus_matrix(std::string_view body,
                           std::string_view field_name,
                           const std::string& url,
                           Telemetry& into) {
  const dcgm::Field* field = dcgm::find_field(field_name);
  if (field == nullptr) {
    throw InternalError(
        fmt::format("add_prometheus_matrix: {} is not a DCGM field observe reads", field_name));
  }
  const Answer answer = prometheus::parse_answer(body, url);

  // Each series' points go to the GPU its labels name; several series may name one GPU.
  std::unordered_map<std::string, std::size_t> gpu_of;
  for (std::size_t i = 0; i < into.gpus.size(); ++i) {
    gpu_of.emplace(identity_key(into.gpus[i].id), i);
  }
  std::vector<std::pair<GpuIdentity, std::vector<Point>>> by_gpu;
  std::unordered_map<std::string, std::size_t> slot_of;
  for (const auto& series : answer.series) {
    if (series.points.empty()) {
      continue;
    }
    GpuIdentity id = dcgm::identity_from_labels(series.labels, url);
    const std::string key = identity_key(id);
    const auto [slot, added] = slot_of.emplace(key, by_gpu.size());
    if (added) {
      by_gpu.emplace_back(std::move(id), std::vector<Point>{});
    }
    auto& points = by_gpu[slot->second].second;
    points.insert(points.end(), series.points.begin(), series.points.end());
  }

  Counts counts;
  for (auto& [id, points] : by_gpu) {
    sort_unique(points);
    const std::string key = identity_key(id);
    auto existing = gpu_of.find(key);
    const bool made = existing == gpu_of.end();
    if (made) {
      // FB_FREE and FB_RESERVED only add to a GPU that FB_USED already made.
      if (field->role == dcgm::Role::fb_free || field->role == dcgm::Role::fb_reserved) {
        counts.unmatched += points.size();
        continue;
      }
      GpuSeries gpu;
      gpu.id = std::move(id);
      into.gpus.push_back(std::move(gpu));
      existing = gpu_of.emplace(key, into.gpus.size() - 1).first;
    }
    const std::size_t before = into.samples;
    store_points(*field, points, into.gpus[existing->second], into, counts);
    if (made && into.samples == before) { // every value overflowed once scaled: no GPU
      into.gpus.pop_back();
      gpu_of.erase(existing);
    }
  }
  add_warnings(url, *field, answer, counts, into);
}

} // namespace rightsize
