#include "intervals.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/telemetry.hpp>
#include <rightsize/observe/trace.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace rightsize {

namespace {

// The patterns of each class, lower case, tried in this order: copies first (their names are
// fixed by CUPTI), then collectives, then attention (flash and fmha kernels carry CUTLASS types in
// their template arguments, so they must be tried before CUTLASS GEMMs), then GEMMs.
// docs/observe.md, "Traces", lists them with the real kernel names they come from.
constexpr std::array k_memory_copy_patterns = {std::string_view("memcpy"),
                                               std::string_view("memset")};
constexpr std::array k_communication_patterns = {std::string_view("nccl"),
                                                 std::string_view("rccl"),
                                                 std::string_view("msccl"),
                                                 std::string_view("all_reduce"),
                                                 std::string_view("allreduce"),
                                                 std::string_view("all_gather"),
                                                 std::string_view("allgather"),
                                                 std::string_view("reduce_scatter"),
                                                 std::string_view("reducescatter"),
                                                 std::string_view("all_to_all"),
                                                 std::string_view("alltoall"),
                                                 std::string_view("cross_device_reduce"),
                                                 std::string_view("deep_ep::"),
                                                 std::string_view("nvshmem")};
constexpr std::array k_attention_patterns = {std::string_view("flash"),
                                             std::string_view("fmha"),
                                             std::string_view("attention"),
                                             std::string_view("attn"),
                                             std::string_view("xformers"),
                                             std::string_view("sdpa")};
constexpr std::array k_gemm_patterns = {std::string_view("gemm"),
                                        std::string_view("gemv"),
                                        std::string_view("cutlass"),
                                        std::string_view("xmma"),
                                        std::string_view("nvjet"),
                                        std::string_view("cublas"),
                                        std::string_view("matmul"),
                                        std::string_view("wgmma"),
                                        std::string_view("cijk_"),
                                        std::string_view("marlin"),
                                        std::string_view("bmm_"),
                                        std::string_view("triton_tem_fused_mm"),
                                        std::string_view("triton_tem_fused_addmm"),
                                        std::string_view("triton_tem_fused_bmm")};

template <std::size_t N>
bool contains_any(std::string_view lower, const std::array<std::string_view, N>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](std::string_view p) {
    return lower.find(p) != std::string_view::npos;
  });
}

char lower_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr std::array<char, 16> k_sqlite_header = {
    'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};

bool starts_with_bytes(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

bool is_gzip(std::string_view head) {
  return starts_with_bytes(head, std::string_view("\x1f\x8b", 2));
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether the text starts, after blanks and a byte order mark, as a JSON object or array does
// (or is blank: the JSON reader says it is empty).
bool looks_like_json_document(std::string_view text) {
  if (starts_with_bytes(text, "\xEF\xBB\xBF")) {
    text.remove_prefix(3);
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos || text[first] == '{' || text[first] == '[';
}

[[noreturn]] void refuse_gzip(const std::string& path) {
  throw InputError(path,
                   "a compressed trace (gzip): gunzip it first (torch.profiler writes "
                   ".json.gz when the file name ends in .gz)");
}

// The first bytes of a regular file, to tell the formats apart without reading a large SQLite
// export into memory. Anything but a readable regular file is left to read_input_file's checks.
std::string file_head(const std::string& path, std::size_t n) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return read_input_file(path, k_max_telemetry_file_bytes, "trace").substr(0, n);
  }
  std::ifstream in(path, std::ios::binary);
  std::string head(n, '\0');
  in.read(head.data(), static_cast<std::streamsize>(n));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

} // namespace

std::string_view to_string(KernelClass k) {
  switch (k) {
  case KernelClass::gemm:
    return "gemm";
  case KernelClass::attention:
    return "attention";
  case KernelClass::communication:
    return "communication";
  case KernelClass::memory_copy:
    return "memory_copy";
  case KernelClass::other:
    return "other";
  case KernelClass::count:
    break;
  }
  return "unknown";
}

KernelClass classify_kernel(std::string_view name) {
  std::string lower(name.size(), '\0');
  std::transform(name.begin(), name.end(), lower.begin(), lower_ascii);
  if (contains_any(lower, k_memory_copy_patterns)) {
    return KernelClass::memory_copy;
  }
  if (contains_any(lower, k_communication_patterns)) {
    return KernelClass::communication;
  }
  if (contains_any(lower, k_attention_patterns)) {
    return KernelClass::attention;
  }
  if (contains_any(lower, k_gemm_patterns)) {
    return KernelClass::gemm;
  }
  return KernelClass::other;
}

double TraceProfile::busy_fraction() const {
  const double capacity = window_s * std::max(devices, 1);
  if (!(capacity > 0)) {
    return 0;
  }
  return std::clamp(gpu_busy_s / capacity, 0.0, 1.0);
}

TraceProfile read_trace(const std::string& path) {
  if (path == "-") {
    const std::string text = read_input_file(path, k_max_telemetry_file_bytes, "trace");
    if (starts_with_bytes(text, {k_sqlite_header.data(), k_sqlite_header.size()})) {
      throw InputError(path,
                       "an Nsight Systems export cannot be read from standard input: "
                       "give its path");
    }
    if (is_gzip(text)) {
      refuse_gzip(path);
    }
    return parse_torch_trace(text, path);
  }
  if (ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep")) {
    throw InputError(path,
                     "an Nsight Systems report: export it first with \"nsys export "
                     "--type sqlite\" and give the .sqlite file");
  }
  const std::string head = file_head(path, k_sqlite_header.size());
  if (head == std::string_view(k_sqlite_header.data(), k_sqlite_header.size())) {
    return read_nsys_sqlite(path);
  }
  if (is_gzip(head)) {
    refuse_gzip(path);
  }
  const std::string text = read_input_file(path, k_max_telemetry_file_bytes, "trace");
  if (!looks_like_json_document(text)) {
    throw InputError(path,
                     "not a trace: neither JSON (torch.profiler's Chrome trace) nor an "
                     "SQLite database (nsys export --type sqlite)");
  }
  return parse_torch_trace(text, path);
}

namespace detail {

bool contains_ignoring_case(std::string_view haystack, std::string_view lower_needle) {
  if (lower_needle.empty()) {
    return true;
  }
  if (haystack.size() < lower_needle.size()) {
    return false;
  }
  const std::size_t last = haystack.size() - lower_needle.size();
  for (std::size_t i = 0; i <= last; ++i) {
    std::size_t k = 0;
    while (k < lower_needle.size() && lower_ascii(haystack[i + k]) == lower_needle[k]) {
      ++k;
    }
    if (k == lower_needle.size()) {
      return true;
    }
  }
  return false;
}

bool is_input_loading_name(std::string_view name) {
  return contains_ignoring_case(name, "dataloader") ||
         contains_ignoring_case(name, "data_loader") ||
         contains_ignoring_case(name, "data loading");
}

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.start < b.start;
  });
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (!merged.empty() && i.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, i.end);
    } else {
      merged.push_back(i);
    }
  }
  return merged;
}

double total_length(const std::vector<Interval>& merged) {
  double sum = 0;
  for (const Interval& i : merged) {
    sum += i.end - i.start;
  }
  return sum;
}

double overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double sum = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].start, b[j].start);
    const double hi = std::min(a[i].end, b[j].end);
    if (hi > lo) {
      sum += hi - lo;
    }
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

namespace {

// One device's spans, in units of the trace: its busy union, per class and for host-to-device
// copies, and the part of the host's input loading that fell into its idle time.
struct DeviceTotals {
  double busy = 0;
  std::array<double, k_kernel_class_count> by_class{};
  double host_to_device = 0;
  double input_wait = 0;
};

DeviceTotals device_totals(const DeviceSpan* begin,
                           const DeviceSpan* end,
                           const std::vector<Interval>& loading) {
  std::vector<Interval> all;
  std::array<std::vector<Interval>, k_kernel_class_count> by_class;
  std::vector<Interval> copies_in;
  all.reserve(static_cast<std::size_t>(end - begin));
  for (const DeviceSpan* s = begin; s != end; ++s) {
    all.push_back({s->start, s->end});
    by_class[static_cast<std::size_t>(s->kind)].push_back({s->start, s->end});
    if (s->host_to_device) {
      copies_in.push_back({s->start, s->end});
    }
  }
  DeviceTotals t;
  const std::vector<Interval> busy = merge_intervals(std::move(all));
  t.busy = total_length(busy);
  for (std::size_t c = 0; c < k_kernel_class_count; ++c) {
    t.by_class[c] = total_length(merge_intervals(std::move(by_class[c])));
  }
  t.host_to_device = total_length(merge_intervals(std::move(copies_in)));
  // The loading spans lie inside the window, so what of them is not busy is idle.
  t.input_wait = total_length(loading) - overlap_length(loading, busy);
  return t;
}

} // namespace

void summarize_activity(TraceActivity& activity, double seconds_per_unit, TraceProfile& profile) {
  auto& spans = activity.device_spans;
  std::sort(spans.begin(), spans.end(), [](const DeviceSpan& a, const DeviceSpan& b) {
    return a.device != b.device ? a.device < b.device : a.start < b.start;
  });
  const std::vector<Interval> loading = merge_intervals(std::move(activity.input_loading));
  activity.input_loading.clear();
  const double window = activity.empty_window() ? 0 : activity.last - activity.first;

  profile.window_s = window * seconds_per_unit;
  profile.kernels = activity.kernels;
  profile.host_to_device_bytes = activity.host_to_device_bytes;
  profile.devices = 0;
  double busy = 0;
  double idle = 0;
  double wait = 0;
  double copies_in = 0;
  std::array<double, k_kernel_class_count> by_class{};
  for (std::size_t i = 0; i < spans.size();) {
    std::size_t j = i;
    while (j < spans.size() && spans[j].device == spans[i].device) {
      ++j;
    }
    const DeviceTotals t = device_totals(spans.data() + i, spans.data() + j, loading);
    ++profile.devices;
    busy += t.busy;
    idle += std::max(0.0, window - t.busy);
    wait += std::max(0.0, t.input_wait);
    copies_in += t.host_to_device;
    for (std::size_t c = 0; c < k_kernel_class_count; ++c) {
      by_class[c] += t.by_class[c];
    }
    i = j;
  }
  profile.gpu_busy_s = busy * seconds_per_unit;
  profile.gpu_idle_s = idle * seconds_per_unit;
  profile.input_wait_s = wait * seconds_per_unit;
  profile.host_to_device_s = copies_in * seconds_per_unit;
  for (std::size_t c = 0; c < k_kernel_class_count; ++c) {
    profile.busy_by_class_s[c] = by_class[c] * seconds_per_unit;
  }
}

} // namespace detail

} // namespace rightsize
