// dcgm-exporter's /metrics in the Prometheus text exposition format, one scrape or many
// concatenated. Behaviour: docs/observe.md, "dcgm-exporter".

#include "dcgm_fields.hpp"
#include "text_scan.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/telemetry.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rightsize {

namespace {

using scan::is_blank;
using scan::Labels;
using scan::scan_series;

constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

// DCGM's "no value" sentinels (dcgm_structs.h: DCGM_INT32_BLANK 0x7ffffff0, DCGM_INT64_BLANK
// 0x7ffffffffffffff0, DCGM_FP64_BLANK 2^47, each followed by NOT_FOUND, NOT_SUPPORTED and
// NOT_PERMISSIONED), which dcgm-exporter before 3.x printed as values (its README shows
// DCGM_FI_DEV_MEMORY_TEMP 9223372036854775794).
bool is_dcgm_blank(double v) {
  return (v >= 2147483632.0 && v <= 2147483635.0) ||
         (v >= 140737488355328.0 && v <= 140737488355331.0) || v >= 9.2233720368547758e18;
}

// The DCGM field named `name`; dcgm-exporter with a lower-case metric CSV names them
// dcgm_fi_prof_gr_engine_active.
const dcgm::Field* field_named(std::string_view name) {
  if (const dcgm::Field* f = dcgm::find_field(name)) {
    return f;
  }
  if (name.substr(0, 8) != "dcgm_fi_") {
    return nullptr;
  }
  std::string upper(name);
  for (char& c : upper) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return dcgm::find_field(upper);
}

// Whether an earlier field of dcgm::fields() already gives `field`'s metric: that one is read
// first (DCGM_FI_DEV_GPU_UTIL before DCGM_FI_PROF_GR_ENGINE_ACTIVE), as the Prometheus reader
// keeps the first field's value at a time.
bool is_secondary(const dcgm::Field& field) {
  for (const auto& f : dcgm::fields()) {
    if (&f == &field) {
      return false;
    }
    const bool gives_metric = f.role == dcgm::Role::metric || f.role == dcgm::Role::throttle_mask;
    if (gives_metric && f.role == field.role && f.metric == field.metric) {
      return true;
    }
  }
  return false;
}

// One series as the file writes it (metric name and label set), read once and then found by
// its text.
struct Entry {
  std::string_view key;
  const dcgm::Field* field = nullptr; // null: a field observe does not read
  std::size_t gpu = 0;
  bool secondary = false;
  std::size_t seen = 0; // 1 + the scrape it was last seen in; 0: never
  double latest = -std::numeric_limits<double>::infinity();
  std::uint32_t next = k_none; // the series that followed it last time
};

// What a GPU's samples wait for until the end of the file.
struct Pending {
  Samples fb_free;
  Samples fb_reserved;
  std::array<Samples, k_metric_count> secondary;
};

enum class Tally : std::uint64_t {
  bad_line,
  nan,
  infinite,
  blank,
  out_of_range,
  not_a_mask,
  duplicate,
  unmatched_free
};

std::uint64_t tally_key(Tally t, const dcgm::Field* field = nullptr) {
  const auto& all = dcgm::fields();
  const auto index = field == nullptr ? all.size() : static_cast<std::size_t>(field - all.data());
  return (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint64_t>(index);
}

// Whether sorted `secondary` has a time that sorted `primary` has not.
bool has_other_times(const Samples& primary, const Samples& secondary) {
  std::size_t i = 0;
  for (const double t : secondary.time_s) {
    while (i < primary.size() && primary.time_s[i] < t) {
      ++i;
    }
    if (i == primary.size() || primary.time_s[i] != t) {
      return true;
    }
  }
  return false;
}

// `primary` with the samples of `secondary` at times `primary` has none; both sorted by time.
void fill_gaps(Samples& primary, Samples& secondary) {
  if (secondary.empty()) {
    return;
  }
  if (primary.empty()) {
    primary = std::move(secondary);
    return;
  }
  if (!has_other_times(primary, secondary)) {
    secondary = Samples();
    return;
  }
  Samples merged;
  merged.time_s.reserve(primary.size() + secondary.size());
  merged.value.reserve(primary.size() + secondary.size());
  std::size_t i = 0;
  for (std::size_t j = 0; j < secondary.size(); ++j) {
    const double t = secondary.time_s[j];
    while (i < primary.size() && primary.time_s[i] < t) {
      merged.add(primary.time_s[i], primary.value[i]);
      ++i;
    }
    if (i < primary.size() && primary.time_s[i] == t) {
      continue;
    }
    merged.add(t, secondary.value[j]);
  }
  for (; i < primary.size(); ++i) {
    merged.add(primary.time_s[i], primary.value[i]);
  }
  primary = std::move(merged);
}

// The index of `t` in sorted `s` from `from` on, or npos; `from` moves past smaller times.
std::size_t find_time(const Samples& s, std::size_t& from, double t) {
  while (from < s.size() && s.time_s[from] < t) {
    ++from;
  }
  return from < s.size() && s.time_s[from] == t ? from : std::string::npos;
}

class Parser {
public:
  Parser(std::string_view text, const std::string& source, double scrape_interval_s)
      : m_text(text), m_source(source), m_interval_s(scrape_interval_s) {}

  Telemetry run() {
    check_input();
    scan::LineReader lines(m_text);
    std::string_view line;
    while (lines.next(line)) {
      read_line(line, lines.line_number());
    }
    refuse_if_unread();
    finish();
    return std::move(m_out);
  }

private:
  void check_input() {
    scan::check_text_input(
        m_text,
        m_source,
        m_interval_s,
        {"Prometheus text exposition format",
         "file is empty, expected dcgm-exporter metrics (Prometheus text exposition format)",
         "scrape",
         [](std::string_view markup) {
           return std::string(markup == "HTML" ? " (a web page rather than /metrics?)"
                                               : " (a Prometheus API answer?)");
         }});
  }

  void read_line(std::string_view line, std::size_t line_number) {
    while (!line.empty() && is_blank(line.front())) {
      line.remove_prefix(1);
    }
    if (line.empty()) {
      return;
    }
    if (line.front() == '#') {
      read_comment(line);
      return;
    }
    read_sample(line, line_number);
  }

  // "# HELP name ..." and "# TYPE name ..." describe a family once per scrape: seeing one again
  // starts the next scrape. Other comments are skipped.
  void read_comment(std::string_view line) {
    line.remove_prefix(1);
    line = scan::trim(line);
    const bool help = line.substr(0, 5) == "HELP ";
    const bool type = line.substr(0, 5) == "TYPE ";
    if (!help && !type) {
      return;
    }
    std::string_view name = scan::trim(line.substr(5));
    std::size_t end = 0;
    while (end < name.size() && !is_blank(name[end])) {
      ++end;
    }
    name = name.substr(0, end);
    m_structured = true;
    Family& family = family_named(name);
    std::size_t& mark = help ? family.help : family.type;
    if (mark == m_scrape + 1) {
      next_scrape();
      m_scrape_first = k_none;
    }
    mark = m_scrape + 1;
  }

  void next_scrape() { ++m_scrape; }

  // A metric family and the scrapes (1 + index) its # HELP and # TYPE were last seen in.
  struct Family {
    std::string name;
    std::size_t help = 0;
    std::size_t type = 0;
  };

  Family& family_named(std::string_view name) {
    const auto found = m_family_index.find(name);
    if (found != m_family_index.end()) {
      return *found->second;
    }
    Family& f = m_families.emplace_back(Family{std::string(name)});
    m_family_index.emplace(f.name, &f);
    return f;
  }

  void read_sample(std::string_view line, std::size_t line_number) {
    const std::uint32_t at = find_entry(line, line_number);
    if (at == k_none) {
      return;
    }
    std::string_view rest = line.substr(m_entries[at].key.size());
    double value = 0;
    std::string_view token;
    double time_s = 0;
    bool stamped = false;
    if (!read_value(rest, value, token, time_s, stamped, line_number)) {
      return;
    }
    if (m_prev != k_none) {
      m_entries[m_prev].next = at;
    }
    m_prev = at;
    ++m_valid;
    if (!place_in_scrape(at, line_number)) {
      return;
    }
    Entry& e = m_entries[at];
    if (e.field == nullptr) {
      return;
    }
    ++m_read;
    if (!stamped) {
      time_s = static_cast<double>(m_scrape) * m_interval_s;
    }
    if (time_s < e.latest) {
      if (m_backwards == 0) {
        m_first_backwards = fmt::format("{}:{}: time goes backwards for {} of {}",
                                        m_source,
                                        line_number,
                                        e.field->name,
                                        m_out.gpus[e.gpu].id.label());
      }
      ++m_backwards;
    } else {
      e.latest = time_s;
    }
    store(e, value, token, time_s, line_number);
  }

  // The entry of the series `line` starts with: the one that followed the previous series last
  // time when the text matches (a scrape repeats the order of the last), else found by its text,
  // else read and added. k_none for a line that is not a sample.
  std::uint32_t find_entry(std::string_view line, std::size_t line_number) {
    if (m_prev != k_none) {
      const std::uint32_t guess = m_entries[m_prev].next;
      if (guess != k_none) {
        const std::string_view key = m_entries[guess].key;
        if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
            is_blank(line[key.size()]) &&
            (key.back() == '}' || scan::trim(line.substr(key.size())).substr(0, 1) != "{")) {
          return guess;
        }
      }
    }
    std::size_t end = 0;
    if (const char* why = scan_series(line, end, nullptr, nullptr)) {
      bad_line(line_number, why, line);
      return k_none;
    }
    const std::string_view key = line.substr(0, end);
    const auto found = m_index.find(key);
    if (found != m_index.end()) {
      return found->second;
    }
    return add_entry(key);
  }

  std::uint32_t add_entry(std::string_view text) {
    std::string_view name;
    Labels labels;
    std::size_t end = 0;
    scan_series(text, end, &name, &labels);
    m_keys.emplace_back(text);
    Entry e;
    e.key = m_keys.back();
    e.field = field_named(name);
    if (e.field != nullptr) {
      e.secondary = is_secondary(*e.field);
      e.gpu = gpu_of(labels);
    }
    const auto at = static_cast<std::uint32_t>(m_entries.size());
    m_entries.push_back(e);
    m_index.emplace(e.key, at);
    return at;
  }

  // One GpuSeries per GPU (UUID, else host and index), MIG instance (profile and GPU_I_ID: two
  // instances may share a profile) and pod, namespace and container.
  std::size_t gpu_of(const Labels& labels) {
    GpuIdentity id = dcgm::identity_from_labels(labels, m_source);
    std::string key = id.uuid.empty() ? id.host + '\x1f' + id.index : id.uuid;
    for (const std::string* part :
         {&id.mig_profile, &id.mig_instance, &id.namespace_name, &id.pod, &id.container}) {
      key += '\x1f';
      key += *part;
    }
    const auto [it, added] = m_gpu_index.emplace(std::move(key), m_out.gpus.size());
    if (added) {
      GpuSeries gpu;
      gpu.id = std::move(id);
      m_out.gpus.push_back(std::move(gpu));
      m_pending.emplace_back();
    }
    return it->second;
  }

  // VALUE [TIMESTAMP_MS] after the series.
  bool read_value(std::string_view rest,
                  double& value,
                  std::string_view& token,
                  double& time_s,
                  bool& stamped,
                  std::size_t line_number) {
    std::string_view bad;
    if (const char* why = scan::scan_sample_value(rest, value, token, time_s, stamped, bad)) {
      bad_line(line_number, why, bad);
      return false;
    }
    return true;
  }

  // Which scrape the sample belongs to. A series seen again starts the next scrape, unless the
  // file marks its scrapes with # HELP/# TYPE and this is not the scrape's first series: then it
  // is a duplicate within one scrape, skipped. False for a skipped sample.
  bool place_in_scrape(std::uint32_t at, std::size_t line_number) {
    Entry& e = m_entries[at];
    if (e.seen == m_scrape + 1) {
      if (m_structured && at != m_scrape_first) {
        m_tally.add(tally_key(Tally::duplicate), "sample", [&] {
          return fmt::format("{}:{}: {} appears twice in one scrape",
                             m_source,
                             line_number,
                             scan::quoted(e.key, 100));
        });
        return false;
      }
      next_scrape();
      m_scrape_first = at;
    }
    if (m_scrape_first == k_none) {
      m_scrape_first = at;
    }
    e.seen = m_scrape + 1;
    return true;
  }

  void store(
      const Entry& e, double raw, std::string_view token, double time_s, std::size_t line_number) {
    const dcgm::Field& f = *e.field;
    const auto skip = [&](Tally kind, std::string_view why) {
      m_tally.add(tally_key(kind, &f), "sample", [&] {
        return fmt::format("{}:{}: {} is {}{}", m_source, line_number, f.name, token, why);
      });
    };
    if (std::isnan(raw)) {
      skip(Tally::nan, "");
      return;
    }
    if (std::isinf(raw)) {
      skip(Tally::infinite, "");
      return;
    }
    if (is_dcgm_blank(raw)) {
      skip(Tally::blank, ", a DCGM blank (no data, not supported or not permitted)");
      return;
    }
    GpuSeries& gpu = m_out.gpus[e.gpu];
    Pending& pending = m_pending[e.gpu];
    if (f.role == dcgm::Role::throttle_mask) {
      if (!(raw >= 0 && raw < 0x1p64) || std::floor(raw) != raw) {
        skip(Tally::not_a_mask, ", not a clock-reason bit mask (an integer >= 0)");
        return;
      }
      const auto mask = static_cast<unsigned long long>(raw);
      const double v = (mask & dcgm::k_limiting_reasons) != 0 ? 1.0 : 0.0;
      (e.secondary ? pending.secondary[static_cast<std::size_t>(f.metric)] : gpu[f.metric])
          .add(time_s, v);
      return;
    }
    const double v = scan::to_si(raw, f.scale);
    const Metric checked = f.role == dcgm::Role::metric ? f.metric : Metric::memory_total;
    if (!scan::plausible(checked, v)) {
      const auto r = scan::plausible_range(checked);
      skip(Tally::out_of_range,
           fmt::format(", out of range ({:g} to {:g})", r.lo / f.scale, r.hi / f.scale));
      return;
    }
    switch (f.role) {
    case dcgm::Role::metric:
      (e.secondary ? pending.secondary[static_cast<std::size_t>(f.metric)] : gpu[f.metric])
          .add(time_s, v);
      break;
    case dcgm::Role::fb_free:
      pending.fb_free.add(time_s, v);
      break;
    case dcgm::Role::fb_reserved:
      pending.fb_reserved.add(time_s, v);
      break;
    case dcgm::Role::throttle_mask:
      break;
    }
  }

  void bad_line(std::size_t line_number, const char* why, std::string_view text) {
    m_tally.add(tally_key(Tally::bad_line), "line", [&] {
      m_first_bad_where = fmt::format("{}:{}", m_source, line_number);
      m_first_bad_why = fmt::format("{}, got {}", why, scan::quoted(text));
      return fmt::format("{}: not a sample: {}", m_first_bad_where, m_first_bad_why);
    });
  }

  void refuse_if_unread() const {
    if (m_valid == 0 && !m_first_bad_where.empty()) {
      throw InputError(m_first_bad_where,
                       "not Prometheus text exposition format: " + m_first_bad_why);
    }
    if (m_read == 0) {
      throw InputError(m_source,
                       "no sample of a DCGM field observe reads (DCGM_FI_DEV_GPU_UTIL, "
                       "DCGM_FI_DEV_FB_USED, DCGM_FI_PROF_GR_ENGINE_ACTIVE, ...): is it "
                       "dcgm-exporter output?");
    }
  }

  void finish() {
    std::size_t unmatched = 0;
    for (std::size_t g = 0; g < m_out.gpus.size(); ++g) {
      GpuSeries& gpu = m_out.gpus[g];
      Pending& pending = m_pending[g];
      scan::sort_by_time(gpu);
      scan::sort_by_time(pending.fb_free);
      scan::sort_by_time(pending.fb_reserved);
      for (std::size_t m = 0; m < k_metric_count; ++m) {
        scan::sort_by_time(pending.secondary[m]);
        fill_gaps(gpu.metrics[m], pending.secondary[m]);
      }
      unmatched += add_memory_total(gpu, pending);
    }
    m_tally.emit(m_out.warnings);
    if (unmatched > 0) {
      m_out.warnings.push_back(fmt::format(
          "{}: {} DCGM_FI_DEV_FB_FREE sample{} without DCGM_FI_DEV_FB_USED at the same time; "
          "memory_total not known there",
          m_source,
          unmatched,
          unmatched == 1 ? "" : "s"));
    }
    if (m_backwards > 0) {
      m_out.warnings.push_back(fmt::format("{}; {} sample{} out of time order, samples sorted by "
                                           "time",
                                           m_first_backwards,
                                           m_backwards,
                                           m_backwards == 1 ? "" : "s"));
    }
    m_out.samples = scan::count_samples(m_out.gpus);
  }

  // memory_total = FB_USED + FB_FREE (+ FB_RESERVED at that time, when the exporter sends it),
  // at the times both are known. Returns how many FB_FREE samples had no FB_USED.
  static std::size_t add_memory_total(GpuSeries& gpu, const Pending& pending) {
    const Samples& used = gpu[Metric::memory_used];
    Samples& total = gpu[Metric::memory_total];
    std::size_t unmatched = 0;
    std::size_t u = 0;
    std::size_t r = 0;
    for (std::size_t i = 0; i < pending.fb_free.size(); ++i) {
      const double t = pending.fb_free.time_s[i];
      const std::size_t at = find_time(used, u, t);
      if (at == std::string::npos) {
        ++unmatched;
        continue;
      }
      double v = used.value[at] + pending.fb_free.value[i];
      const std::size_t reserved = find_time(pending.fb_reserved, r, t);
      if (reserved != std::string::npos) {
        v += pending.fb_reserved.value[reserved];
      }
      total.add(t, v);
      ++u;
    }
    return unmatched;
  }

  std::string_view m_text;
  const std::string& m_source;
  double m_interval_s;

  std::deque<std::string> m_keys; // the text of every series, which m_entries' keys view
  std::vector<Entry> m_entries;
  std::unordered_map<std::string_view, std::uint32_t> m_index;
  std::unordered_map<std::string, std::size_t> m_gpu_index;
  std::vector<Pending> m_pending; // per GPU
  std::deque<Family> m_families;  // which m_family_index's keys view
  std::unordered_map<std::string_view, Family*> m_family_index;

  std::uint32_t m_prev = k_none;
  std::size_t m_scrape = 0;
  std::uint32_t m_scrape_first = k_none;
  bool m_structured = false;
  std::size_t m_valid = 0; // well-formed sample lines
  std::size_t m_read = 0;  // of them, lines of a field observe reads
  scan::WarningTally m_tally;
  std::string m_first_bad_where;
  std::string m_first_bad_why;
  std::size_t m_backwards = 0;
  std::string m_first_backwards;
  Telemetry m_out;
};

} // namespace

Telemetry
parse_dcgm_text(std::string_view text, const std::string& source, double scrape_interval_s) {
  return Parser(scan::strip_bom(text), source, scrape_interval_s).run();
}

} // namespace rightsize
