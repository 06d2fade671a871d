// Thresholds: parsed from text, read from the repository's config file, resolved in layers.

#include <rightsize/check/thresholds.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

bool CheckThresholds::fails_on(const std::string& what) const {
  return std::find(fail_on.begin(), fail_on.end(), what) != fail_on.end();
}

const std::vector<std::string>& check_names() {
  static const std::vector<std::string> names{"infeasible",
                                              "memory",
                                              "cost",
                                              "latency",
                                              "throughput",
                                              "gpus",
                                              "gpu-change",
                                              "added",
                                              "removed"};
  return names;
}

double parse_threshold(const std::string& text, const std::string& where) {
  std::string t = text;
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) {
    t.pop_back();
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    // A bare number is a fraction: 5 would mean 500%, almost certainly a missing %.
    if (used != t.size() || !(v >= 0) || !std::isfinite(v) || (pct ? v > 10000.0 : v > 1.0)) {
      throw std::invalid_argument("bad");
    }
    return pct ? v / 100.0 : v;
  } catch (const std::exception&) {
    throw InputError(where,
                     "expected a percentage such as 10% (or a fraction from 0 to 1 such as 0.1), "
                     "got \"" +
                         text + "\"");
  }
}

std::vector<std::string> parse_fail_on(const std::vector<std::string>& items,
                                       const std::string& where) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    if (item.empty()) {
      continue;
    }
    if (std::find(check_names().begin(), check_names().end(), item) == check_names().end()) {
      throw InputError(where, "unknown check \"" + item + "\"" + did_you_mean(item, check_names()));
    }
    out.push_back(item);
  }
  return out;
}

void read_check_config(const std::string& path, CheckThresholds& t) {
  const nlohmann::json j = detail::load_json_file(path);
  const FieldReader r(j, path);
  if (!j.is_object()) {
    r.fail("a config file must be a JSON object");
  }
  r.reject_unknown({"schema_version", "thresholds", "fail_on"});
  if (r.integer("schema_version", Range::positive(1e6)) != 1) {
    r.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  if (const auto th = r.optional_object("thresholds")) {
    th->reject_unknown(
        {"cost", "ttft", "tpot", "time_to_train", "throughput", "gpus", "memory_headroom"});
    const auto read = [&](const char* key, double& into) {
      if (!th->has(key)) {
        return;
      }
      const auto m = th->member(key);
      into = m.json().is_string() ? parse_threshold(m.as_string(), m.where())
                                  : m.as_number(Range::non_negative(1.0));
    };
    read("cost", t.cost);
    read("ttft", t.ttft);
    read("tpot", t.tpot);
    read("time_to_train", t.time_to_train);
    read("throughput", t.throughput);
    read("gpus", t.gpus);
    read("memory_headroom", t.memory_headroom);
  }
  if (r.has("fail_on")) {
    t.fail_on = parse_fail_on(r.string_array("fail_on"), r.where("fail_on"));
  }
}

std::string check_config_path(const std::string& config) {
  std::error_code ec;
  if (config.empty() && std::filesystem::exists(".rightsize.json", ec)) {
    return ".rightsize.json";
  }
  return config;
}

CheckThresholds resolve_thresholds(const ThresholdOptions& o, std::vector<CheckNote>& notes) {
  CheckThresholds t;
  const std::string config = check_config_path(o.config);
  if (!config.empty()) {
    read_check_config(config, t);
    notes.push_back({CheckNote::Level::info, "thresholds from " + config});
  }
  const auto option = [](const std::string& text, const char* flag, double& into) {
    if (!text.empty()) {
      into = parse_threshold(text, flag);
    }
  };
  option(o.max_cost, "--max-cost-increase", t.cost);
  if (!o.max_latency.empty()) {
    t.ttft = t.tpot = t.time_to_train = parse_threshold(o.max_latency, "--max-latency-increase");
  }
  option(o.max_ttft, "--max-ttft-increase", t.ttft);
  option(o.max_tpot, "--max-tpot-increase", t.tpot);
  option(o.max_throughput_drop, "--max-throughput-decrease", t.throughput);
  option(o.max_gpus, "--max-gpus-increase", t.gpus);
  option(o.min_headroom, "--min-memory-headroom", t.memory_headroom);
  if (o.fail_on && o.fail_on->empty()) {
    throw InputError("--fail-on", "is empty; name the checks that fail the job");
  }
  if (o.fail_on) {
    std::vector<std::string> items;
    std::stringstream list(*o.fail_on);
    for (std::string item; std::getline(list, item, ',');) {
      items.push_back(item);
    }
    t.fail_on = parse_fail_on(items, "--fail-on");
  }
  // A configuration that fitted and no longer does always fails.
  if (!t.fails_on("memory")) {
    t.fail_on.emplace_back("memory");
    notes.push_back({CheckNote::Level::info, "--fail-on: memory is always checked"});
  }
  return t;
}

} // namespace rightsize
