#include "fields.hpp"

#include "json_values.hpp"

#include <rightsize/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace rightsize::calibrate {

namespace {

bool is_non_finite_token(const nlohmann::json& v) {
  if (!v.is_string()) {
    return false;
  }
  const auto& s = v.get_ref<const std::string&>();
  return s == k_infinity || s == k_minus_infinity || s == k_nan;
}

std::optional<Seconds> ms_statistic(const FieldReader& r, const std::string& key) {
  const std::optional<double> ms =
      optional_finite_number(r, key, Range::non_negative(k_max_seconds * 1e3));
  if (!ms || *ms == 0.0) {
    return std::nullopt;
  }
  return milliseconds(*ms);
}

// One request's entry of the per-request arrays.
struct Entry {
  bool ok = true;
  RequestRecord record;
  std::vector<double> gaps; // seconds between streamed chunks
  bool has_gaps = false;    // the file lists them (itls)
};

std::vector<FieldReader> optional_array(const FieldReader& r, std::string_view key) {
  return r.has(key) ? r.array(key) : std::vector<FieldReader>{};
}

// The arrays' entries, one per request sent; empty when the file has none.
std::vector<Entry> read_entries(const FieldReader& r) {
  static constexpr std::string_view k_keys[] = {
      "input_lens", "output_lens", "ttfts", "itls", "latencies", "errors"};
  std::optional<std::pair<std::string_view, std::size_t>> first;
  for (const std::string_view key : k_keys) {
    if (!r.has(key)) {
      continue;
    }
    const FieldReader array = r.member(key);
    if (!array.json().is_array()) {
      array.fail("must be an array");
    }
    const std::size_t n = array.json().size();
    if (!first) {
      first = {key, n};
    } else if (n != first->second) {
      array.fail_plain(fmt::format(
          "has {} entries but /{} has {}: one entry per request", n, first->first, first->second));
    }
  }
  std::vector<Entry> entries(first ? first->second : 0);
  const auto each = [&](std::string_view key, auto&& read) {
    const auto values = optional_array(r, key);
    for (std::size_t i = 0; i < values.size(); ++i) {
      read(entries[i], values[i]);
    }
  };
  each("errors",
       [](Entry& e, const FieldReader& v) { e.ok = v.json().is_null() || v.as_string().empty(); });
  each("input_lens", [](Entry& e, const FieldReader& v) {
    e.record.input_tokens = as_finite_number(v, Range::non_negative(k_max_tokens_per_request));
  });
  each("output_lens", [](Entry& e, const FieldReader& v) {
    e.record.output_tokens = as_finite_number(v, Range::non_negative(k_max_tokens_per_request));
  });
  each("ttfts", [](Entry& e, const FieldReader& v) {
    // 0.0 where nothing was timed: a failed request, a non-streaming endpoint.
    if (const double ttft = as_finite_number(v, Range::non_negative(k_max_seconds)); ttft > 0) {
      e.record.ttft = seconds(ttft);
    }
  });
  each("latencies", [](Entry& e, const FieldReader& v) {
    e.record.latency = seconds(as_finite_number(v, Range::non_negative(k_max_seconds)));
  });
  each("itls", [](Entry& e, const FieldReader& v) {
    e.has_gaps = true;
    for (const FieldReader& gap : v.elements()) {
      e.gaps.push_back(as_finite_number(gap, Range::non_negative(k_max_seconds)));
    }
  });
  for (std::size_t i = 0; i < entries.size(); ++i) {
    // A request that failed after its first token keeps that TTFT and a latency of 0.0.
    const RequestRecord& q = entries[i].record;
    if (entries[i].ok && q.latency && q.ttft && q.latency->si() < q.ttft->si()) {
      r.array("latencies")[i].fail(
          fmt::format("is shorter than the request's time to first token (/ttfts/{}: {:g} s)",
                      i,
                      q.ttft->si()));
    }
  }
  return entries;
}

LatencyStats stats_of(std::vector<double> values) {
  LatencyStats s;
  if (values.empty()) {
    return s;
  }
  std::sort(values.begin(), values.end());
  const double sum = std::accumulate(values.begin(), values.end(), 0.0);
  s.mean = seconds(sum / static_cast<double>(values.size()));
  s.median = seconds(linear_percentile(values, 50));
  s.p90 = seconds(linear_percentile(values, 90));
  s.p99 = seconds(linear_percentile(values, 99));
  return s;
}

void fill_missing(LatencyStats& summary, const LatencyStats& computed) {
  for (auto [to, from] : {std::pair{&summary.mean, &computed.mean},
                          std::pair{&summary.median, &computed.median},
                          std::pair{&summary.p90, &computed.p90},
                          std::pair{&summary.p99, &computed.p99}}) {
    if (!*to) {
      *to = *from;
    }
  }
}

// A request's latency where the file lists its chunk gaps but not its latency: its TTFT plus the
// gaps, which is how vLLM measures it (the last chunk's arrival).
void complete_latency(Entry& e) {
  RequestRecord& q = e.record;
  if (!q.latency && q.ttft && e.has_gaps) {
    q.latency = seconds(std::accumulate(e.gaps.begin(), e.gaps.end(), q.ttft->si()));
  }
}

// The statistics of the completed requests, as vLLM's calculate_metrics computes them.
void fill_from_requests(BenchRun& run, const std::vector<Entry>& done) {
  std::vector<double> ttfts;
  std::vector<double> tpots;
  std::vector<double> itls;
  std::vector<double> e2es;
  for (const Entry& e : done) {
    const RequestRecord& q = e.record;
    itls.insert(itls.end(), e.gaps.begin(), e.gaps.end());
    if (q.ttft) {
      ttfts.push_back(q.ttft->si());
    }
    if (q.latency) {
      e2es.push_back(q.latency->si());
    }
    if (q.latency && q.ttft && q.output_tokens && *q.output_tokens > 1) {
      tpots.push_back((q.latency->si() - q.ttft->si()) / (*q.output_tokens - 1));
    }
  }
  fill_missing(run.ttft, stats_of(ttfts));
  fill_missing(run.tpot, stats_of(tpots));
  fill_missing(run.itl, stats_of(itls));
  fill_missing(run.e2e, stats_of(e2es));
}

} // namespace

double as_finite_number(const FieldReader& value, Range range) {
  if (is_non_finite_token(value.json())) {
    value.fail("must be a finite number");
  }
  return value.as_number(range);
}

double finite_number(const FieldReader& r, std::string_view key, Range range) {
  return as_finite_number(r.member(key), range);
}

std::optional<double>
optional_finite_number(const FieldReader& r, std::string_view key, Range range) {
  if (!r.has(key)) {
    return std::nullopt;
  }
  return finite_number(r, key, range);
}

long long count(const FieldReader& r, std::string_view key, double max) {
  const FieldReader v = r.member(key);
  if (is_non_finite_token(v.json())) {
    v.fail("must be a whole number");
  }
  return v.as_integer(Range::non_negative(max));
}

std::optional<long long> optional_count(const FieldReader& r, std::string_view key, double max) {
  if (!r.has(key)) {
    return std::nullopt;
  }
  return count(r, key, max);
}

std::optional<ItemsPerHour> request_rate(const FieldReader& r, std::string_view key) {
  if (!r.has(key)) {
    return std::nullopt;
  }
  const FieldReader v = r.member(key);
  if (v.json().is_string()) {
    const std::string s = v.as_string();
    if (s == "inf" || s == k_infinity) {
      return items_per_s(std::numeric_limits<double>::infinity());
    }
    if (s == "trace") {
      return std::nullopt;
    }
    v.fail("must be a number of requests per second, \"inf\" or Infinity");
  }
  return items_per_s(as_finite_number(v, Range::positive(k_max_rate_per_s)));
}

LatencyStats summary_stats_ms(const FieldReader& r, std::string_view metric) {
  const std::string m(metric);
  LatencyStats s;
  s.mean = ms_statistic(r, "mean_" + m + "_ms");
  s.median = ms_statistic(r, "median_" + m + "_ms");
  if (!s.median) {
    s.median = ms_statistic(r, "p50_" + m + "_ms");
  }
  s.p90 = ms_statistic(r, "p90_" + m + "_ms");
  s.p99 = ms_statistic(r, "p99_" + m + "_ms");
  return s;
}

void require_completed(const FieldReader& r,
                       std::string_view key,
                       long long completed,
                       std::optional<long long> failed) {
  if (completed > 0) {
    return;
  }
  const std::string why = failed && *failed > 0
                              ? fmt::format("every request failed ({} failed)", *failed)
                              : std::string("no request completed");
  throw InputError(r.where(key),
                   why + ": a failed run cannot calibrate rightsize; fix the run and benchmark "
                         "again");
}

void read_request_arrays(const FieldReader& r, BenchRun& run) {
  std::vector<Entry> entries = read_entries(r);
  if (entries.empty()) {
    return;
  }
  const bool errors_known = r.has("errors");
  if (errors_known && !run.failed) {
    run.failed = static_cast<long long>(
        std::count_if(entries.begin(), entries.end(), [](const Entry& e) { return !e.ok; }));
  }
  if (!errors_known && (!run.failed || *run.failed != 0)) {
    return; // failed requests are in the arrays, and nothing says which they are
  }
  std::vector<Entry> done;
  for (Entry& e : entries) {
    if (e.ok) {
      complete_latency(e);
      done.push_back(std::move(e));
    }
  }
  if (static_cast<long long>(done.size()) != run.completed) {
    return;
  }
  fill_from_requests(run, done);
  run.requests.reserve(done.size());
  for (const Entry& e : done) {
    run.requests.push_back(e.record);
  }
}

void finish_run(BenchRun& run) {
  if (run.mean_input_tokens && run.mean_output_tokens) {
    run.mean_tokens = *run.mean_input_tokens + *run.mean_output_tokens;
  }
}

} // namespace rightsize::calibrate
