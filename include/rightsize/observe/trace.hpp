#pragma once

// A profiler trace summarized as right-sizing needs it: how much of the window the GPU was busy,
// on what kind of work, and how long it waited on the host. Read from a PyTorch profiler
// Chrome-trace JSON (torch.profiler's export_chrome_trace) or an Nsight Systems SQLite export
// (nsys export --type sqlite). docs/observe.md, "Traces".

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

enum class KernelClass : std::uint8_t { gemm, attention, communication, memory_copy, other, count };
inline constexpr std::size_t k_kernel_class_count = static_cast<std::size_t>(KernelClass::count);
// "gemm", "attention", "communication", "memory_copy", "other"
std::string_view to_string(KernelClass k);

// The class of a kernel by its name (cuBLAS/CUTLASS GEMMs, flash/paged attention, NCCL, memcpy
// and memset, everything else), documented in docs/observe.md with the patterns.
KernelClass classify_kernel(std::string_view name);

struct TraceProfile {
  std::string source;
  std::string format;                        // "torch" or "nsys"
  std::string device_name;                   // "NVIDIA H100 80GB HBM3" when the trace says
  std::optional<double> device_memory_bytes; // the device's total memory when the trace says
  int devices = 0;                           // GPUs with activity in the trace

  double window_s = 0;   // from the first to the last event, host or device
  double gpu_busy_s = 0; // union of all device activity (kernels, copies, sets), per device, summed
  // Device time by class: each class's union per device, summed; classes overlap one another
  // where streams run concurrently (an all-reduce under a GEMM), so they may add up to more.
  std::array<double, k_kernel_class_count> busy_by_class_s{};
  std::size_t kernels = 0;

  double host_to_device_bytes = 0;
  double host_to_device_s = 0;

  // Device idle time (the window minus the device's busy union: no kernel, copy or set on any
  // of its streams), summed over devices, and the part of it during which the host was loading
  // input (a host event or NVTX range whose name says DataLoader or data loading): the GPU
  // waits on input.
  double gpu_idle_s = 0;
  double input_wait_s = 0;

  // Peak memory on one GPU (the highest of the devices), when the trace recorded it: with
  // torch.profiler's profile_memory=True, the caching allocator's "Total Allocated" (tensors)
  // and "Total Reserved" (tensors plus the cache, what has to fit); with nsys'
  // --cuda-memory-usage=true, device memory allocated through CUDA, as reserved.
  std::optional<double> peak_memory_bytes;
  std::optional<double> peak_reserved_bytes;

  std::vector<std::string> warnings;

  [[nodiscard]] double busy_fraction() const; // gpu_busy_s / (window_s * max(devices, 1)), 0..1
};

// Reads either format, told apart by content (SQLite's header, else JSON). Throws InputError
// naming the file (and the JSON pointer or table) for a file that is not a trace.
TraceProfile read_trace(const std::string& path);
TraceProfile parse_torch_trace(std::string_view json_text, const std::string& source);
TraceProfile read_nsys_sqlite(const std::string& path);

} // namespace rightsize
