// torch.profiler's Chrome trace (export_chrome_trace, Kineto's JSON writer): a streaming reader.
// Traces run to hundreds of megabytes, so the text is scanned once by a strict JSON reader of its
// own (json_cursor.hpp) that keeps only what the analysis needs from each event, instead of
// building a DOM. docs/observe.md, "Traces".

#include "intervals.hpp"
#include "json_cursor.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units.hpp>
#include <rightsize/observe/trace.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rightsize {

namespace {

// Timestamps are microseconds (Kineto: since its base time; older traces: since the epoch).
// Beyond 2^53 a double no longer holds whole microseconds, and no real trace gets there.
constexpr double k_max_timestamp_us = 9007199254740992.0;
constexpr double k_max_event_us = detail::k_max_event_seconds / microseconds(1).si();

using detail::JsonCursor;

// What one event says, as far as the analysis cares.
struct EventFields {
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  std::optional<double> ts;
  std::optional<double> dur;
  std::optional<double> pid;
  // args
  std::optional<double> device;
  std::optional<double> bytes;
  std::optional<double> total_allocated;
  std::optional<double> total_reserved;
  std::optional<double> device_id;
  std::optional<double> device_type;
};

struct DeviceProperties {
  std::optional<double> id;
  std::string name;
  std::optional<double> memory_bytes;
};

// A kind of skipped event: how many, and where the first was.
struct SkipCount {
  std::size_t count = 0;
  std::string first;

  void add(const std::string& where) {
    if (count++ == 0) {
      first = where;
    }
  }
};

// ASCII case-insensitive equality; `lower` is lower case.
bool iequals(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char c = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (c != lower[i]) {
      return false;
    }
  }
  return true;
}

// Kineto's categories of device activity; "Kernel", "Memcpy" and "Memset" are older Kineto's.
bool is_device_category(std::string_view cat) {
  return iequals(cat, "kernel") || iequals(cat, "gpu_memcpy") || iequals(cat, "gpu_memset") ||
         iequals(cat, "memcpy") || iequals(cat, "memset");
}
bool is_copy_category(std::string_view cat) {
  return iequals(cat, "gpu_memcpy") || iequals(cat, "memcpy");
}
// Events on a GPU's timeline that are not activity (gpu_user_annotation), and activity itself.
bool is_gpu_timeline_category(std::string_view cat) {
  return is_device_category(cat) || (cat.size() >= 4 && iequals(cat.substr(0, 4), "gpu_"));
}

std::optional<std::int64_t> device_index(std::optional<double> v) {
  if (!v || !(std::abs(*v) < 2147483648.0) || std::floor(*v) != *v) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*v);
}

class TorchTraceReader {
public:
  TorchTraceReader(std::string_view text, const std::string& source)
      : m_json(text, source), m_source(source) {}

  TraceProfile read() {
    if (m_json.at_end()) {
      throw InputError(m_source, "file is empty, expected a JSON trace");
    }
    read_document();
    if (!m_json.at_end()) {
      m_json.fail_here("the end of the text after the JSON value");
    }
    if (!m_saw_events) {
      throw InputError(m_source,
                       "not a trace: no \"traceEvents\" array (expected torch.profiler's "
                       "Chrome trace, from export_chrome_trace)");
    }
    return profile();
  }

private:
  void read_document() {
    const char c = m_json.peek();
    if (c == '[') {
      m_saw_events = true;
      read_events("", 0);
    } else if (c == '{') {
      read_top_object();
    } else {
      const std::string kind = m_json.describe_next();
      m_json.skip_value(0);
      if (m_json.at_end()) {
        throw InputError(m_source,
                         "not a trace: expected an object with \"traceEvents\" or an "
                         "array of events, got " +
                             kind);
      }
    }
  }

  void read_top_object() {
    m_json.open('{', "'{'");
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      if (key == "traceEvents") {
        if (m_saw_events) {
          throw InputError(m_source, "duplicate key \"traceEvents\"");
        }
        m_saw_events = true;
        if (!m_json.next_is('[')) {
          throw InputError(m_source + ":/traceEvents",
                           "must be an array of trace events, got " + m_json.describe_next());
        }
        read_events("/traceEvents", 1);
      } else if (key == "deviceProperties") {
        read_device_properties(1);
      } else {
        m_json.skip_value(1);
      }
    }
  }

  void read_events(const std::string& pointer, std::size_t depth) {
    m_events_pointer = pointer;
    m_json.enter(depth);
    m_json.open('[', "'['");
    bool first = true;
    for (std::size_t index = 0; m_json.next_element(first); ++index) {
      if (!m_json.next_is('{')) {
        throw InputError(where(index), "must be an event object, got " + m_json.describe_next());
      }
      read_event(index, depth + 1);
    }
  }

  void read_event(std::size_t index, std::size_t depth) {
    m_json.enter(depth);
    m_json.open('{', "'{'");
    EventFields e;
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      if (key == "ph") {
        e.ph = m_json.string_or_skip(m_ph, depth + 1);
      } else if (key == "cat") {
        e.cat = m_json.string_or_skip(m_cat, depth + 1);
      } else if (key == "name") {
        e.name = m_json.string_or_skip(m_name, depth + 1);
      } else if (key == "ts") {
        e.ts = m_json.number_or_skip(depth + 1);
      } else if (key == "dur") {
        e.dur = m_json.number_or_skip(depth + 1);
      } else if (key == "pid") {
        e.pid = m_json.number_or_skip(depth + 1);
      } else if (key == "args") {
        read_args(e, depth + 1);
      } else {
        m_json.skip_value(depth + 1);
      }
    }
    add_event(e, index);
  }

  void read_args(EventFields& e, std::size_t depth) {
    if (!m_json.next_is('{')) {
      m_json.skip_value(depth);
      return;
    }
    m_json.enter(depth);
    m_json.open('{', "'{'");
    bool first = true;
    std::string_view key;
    while (m_json.next_member(first, key, m_key)) {
      std::optional<double>* field = nullptr;
      if (key == "device") {
        field = &e.device;
      } else if (key == "bytes") {
        field = &e.bytes;
      } else if (key == "Total Allocated") {
        field = &e.total_allocated;
      } else if (key == "Total Reserved") {
        field = &e.total_reserved;
      } else if (key == "Device Id") {
        field = &e.device_id;
      } else if (key == "Device Type") {
        field = &e.device_type;
      }
      if (field != nullptr) {
        *field = m_json.number_or_skip(depth + 1);
      } else {
        m_json.skip_value(depth + 1);
      }
    }
  }

  // deviceProperties is metadata: an entry of another shape is left out, not an error.
  void read_device_properties(std::size_t depth) {
    if (!m_json.next_is('[')) {
      m_json.skip_value(depth);
      return;
    }
    m_json.enter(depth);
    m_json.open('[', "'['");
    bool first_element = true;
    while (m_json.next_element(first_element)) {
      if (!m_json.next_is('{')) {
        m_json.skip_value(depth + 1);
        continue;
      }
      m_json.enter(depth + 1);
      m_json.open('{', "'{'");
      DeviceProperties p;
      bool first = true;
      std::string_view key;
      while (m_json.next_member(first, key, m_key)) {
        if (key == "id") {
          p.id = m_json.number_or_skip(depth + 2);
        } else if (key == "name") {
          p.name = detail::valid_utf8(m_json.string_or_skip(m_name, depth + 2));
        } else if (key == "totalGlobalMem") {
          p.memory_bytes = m_json.number_or_skip(depth + 2);
        } else {
          m_json.skip_value(depth + 2);
        }
      }
      m_devices.push_back(std::move(p));
    }
  }

  void add_event(const EventFields& e, std::size_t index) {
    if (e.ph == "M") {
      return; // metadata: process and thread names
    }
    const bool complete = e.ph == "X" || (e.ph.empty() && e.dur);
    if (!e.ts || !(*e.ts >= 0 && *e.ts <= k_max_timestamp_us) ||
        (complete && (!e.dur || !(*e.dur >= 0 && *e.dur <= k_max_event_us)))) {
      m_bad_time.add(where(index));
      return;
    }
    const double start = *e.ts;
    const double end = complete ? start + *e.dur : start;
    m_activity.see(start, end);
    if (complete && is_device_category(e.cat)) {
      add_device_span(e, start, end, index);
    } else if (complete && !is_gpu_timeline_category(e.cat) &&
               detail::is_input_loading_name(e.name)) {
      m_activity.input_loading.push_back({start, end});
    } else if (e.name == "[memory]") {
      add_memory_sample(e);
    }
  }

  void add_device_span(const EventFields& e, double start, double end, std::size_t index) {
    const auto device = device_index(e.device ? e.device : e.pid);
    if (!device) {
      m_no_device.add(where(index));
      return;
    }
    const bool copy = is_copy_category(e.cat);
    const bool kernel = iequals(e.cat, "kernel");
    const KernelClass kind = kernel ? kernel_class(e.name) : KernelClass::memory_copy;
    // Kineto names copies "Memcpy HtoD (Pageable -> Device)".
    const bool host_to_device = copy && detail::contains_ignoring_case(e.name, "htod");
    if (host_to_device && e.bytes && *e.bytes >= 0 && std::isfinite(*e.bytes)) {
      m_activity.host_to_device_bytes += *e.bytes;
    }
    m_activity.kernels += kernel ? 1 : 0;
    m_activity.device_spans.push_back({*device, start, end, kind, host_to_device});
  }

  // The caching allocator's "[memory]" instant events; Device Type 0 and Device Id -1 are the
  // CPU's.
  void add_memory_sample(const EventFields& e) {
    if (!e.device_id || !(*e.device_id >= 0) || (e.device_type && *e.device_type == 0)) {
      return;
    }
    const auto raise = [](std::optional<double>& peak, std::optional<double> v) {
      if (v && *v >= 0 && std::isfinite(*v) && (!peak || *v > *peak)) {
        peak = v;
      }
    };
    raise(m_peak_allocated, e.total_allocated);
    raise(m_peak_reserved, e.total_reserved);
  }

  // Kernel names repeat; each distinct one is classified once.
  KernelClass kernel_class(std::string_view name) {
    const auto it = m_classes.find(name);
    if (it != m_classes.end()) {
      return it->second;
    }
    const KernelClass kind = classify_kernel(name);
    // An escaped name lives in a scratch buffer that the next event overwrites: keep a copy.
    const std::string_view key =
        name.data() == m_name.data() ? m_owned_names.emplace_back(name) : name;
    m_classes.emplace(key, kind);
    return kind;
  }

  std::string where(std::size_t index) const {
    return fmt::format("{}:{}/{}", m_source, m_events_pointer, index);
  }

  TraceProfile profile() {
    TraceProfile p;
    p.source = m_source;
    p.format = "torch";
    if (m_activity.device_spans.empty()) {
      throw InputError(m_source, no_activity_message());
    }
    detail::summarize_activity(m_activity, microseconds(1).si(), p);
    describe_device(p);
    p.peak_memory_bytes = m_peak_allocated;
    p.peak_reserved_bytes = m_peak_reserved;
    add_warnings(p);
    return p;
  }

  std::string no_activity_message() const {
    std::string msg = "no GPU activity (no kernel, gpu_memcpy or gpu_memset events): was the "
                      "profiler run with ProfilerActivity.CUDA?";
    if (m_bad_time.count + m_no_device.count > 0) {
      msg += fmt::format(" ({} events were skipped as unusable)",
                         m_bad_time.count + m_no_device.count);
    }
    return msg;
  }

  // The name and memory of the lowest-numbered device with activity, from deviceProperties
  // (by id; a single entry is taken as is).
  void describe_device(TraceProfile& p) const {
    const std::int64_t device = m_activity.device_spans.front().device;
    const DeviceProperties* match = nullptr;
    for (const auto& d : m_devices) {
      if (d.id && *d.id == static_cast<double>(device)) {
        match = &d;
      }
    }
    if (match == nullptr && m_devices.size() == 1) {
      match = &m_devices.front();
    }
    if (match != nullptr) {
      p.device_name = match->name;
      if (match->memory_bytes && *match->memory_bytes > 0 && std::isfinite(*match->memory_bytes)) {
        p.device_memory_bytes = match->memory_bytes;
      }
    }
  }

  void add_warnings(TraceProfile& p) const {
    const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
    if (m_bad_time.count > 0) {
      p.warnings.push_back(fmt::format(
          "{}: {} event{} without a usable \"ts\" or \"dur\" (missing, not a number, negative, or "
          "longer than a day) skipped; this is the first",
          m_bad_time.first,
          m_bad_time.count,
          plural(m_bad_time.count)));
    }
    if (m_no_device.count > 0) {
      p.warnings.push_back(fmt::format(
          "{}: {} GPU event{} without a device (no numeric args.device or pid) skipped; this is "
          "the first",
          m_no_device.first,
          m_no_device.count,
          plural(m_no_device.count)));
    }
  }

  JsonCursor m_json;
  const std::string& m_source;
  bool m_saw_events = false;
  std::string m_events_pointer;
  // Scratch for strings with escapes: one per field an event keeps, one for keys.
  std::string m_key;
  std::string m_ph;
  std::string m_cat;
  std::string m_name;
  detail::TraceActivity m_activity;
  std::vector<DeviceProperties> m_devices;
  std::optional<double> m_peak_allocated;
  std::optional<double> m_peak_reserved;
  SkipCount m_bad_time;
  SkipCount m_no_device;
  std::unordered_map<std::string_view, KernelClass> m_classes;
  std::deque<std::string> m_owned_names;
};

} // namespace

TraceProfile parse_torch_trace(std::string_view json_text, const std::string& source) {
  return TorchTraceReader(json_text, source).read();
}

} // namespace rightsize