#pragma once

// What the trace readers (trace_torch.cpp, trace_nsys.cpp) take out of a trace before the
// analysis they share (trace.cpp): device activity spans, host input-loading spans and the
// window, in the trace's own time unit, and the interval arithmetic on them (union, length,
// overlap). docs/observe.md, "Traces".

#include <rightsize/observe/trace.hpp>

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace rightsize::detail {

// A closed time interval, start <= end.
struct Interval {
  double start;
  double end;
};

// The union of `intervals` as sorted, disjoint intervals; touching intervals are merged.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);
// The summed length of merged (disjoint) intervals.
double total_length(const std::vector<Interval>& merged);
// The length of the intersection of two merged interval lists.
double overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

// One kernel, copy or set on a GPU.
struct DeviceSpan {
  std::int64_t device; // the trace's device index
  double start;
  double end;
  KernelClass kind;
  bool host_to_device; // a copy from host memory to this device
};

struct TraceActivity {
  std::vector<DeviceSpan> device_spans;
  std::vector<Interval> input_loading; // host spans that load input (is_input_loading_name)
  std::size_t kernels = 0;             // kernel launches (not copies or sets)
  double host_to_device_bytes = 0;
  // The window: the earliest start and latest end of any event, host or device.
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();

  void see(double start, double end) {
    first = start < first ? start : first;
    last = end > last ? end : last;
  }
  [[nodiscard]] bool empty_window() const { return !(first <= last); }
};

// Fills the timing fields of `profile` (window, devices, busy, busy by class, host-to-device
// time and bytes, idle, input wait, kernels) from `activity`, whose times are in units of
// `seconds_per_unit` seconds. Sorts `activity`'s vectors.
void summarize_activity(TraceActivity& activity, double seconds_per_unit, TraceProfile& profile);

// Whether a host event's or NVTX range's name says the host is loading input: it contains,
// ignoring case, "dataloader", "data_loader" or "data loading" (torch.profiler's
// "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", a with_stack frame in
// torch/utils/data/dataloader.py, an NVTX range named by the user).
bool is_input_loading_name(std::string_view name);

// Whether `haystack` contains `lower_needle` (which must be lower case), ignoring ASCII case.
bool contains_ignoring_case(std::string_view haystack, std::string_view lower_needle);

// A day: the longest event a trace reader keeps; longer ones are corrupt timestamps.
inline constexpr double k_max_event_seconds = 86400.0;

} // namespace rightsize::detail
