// Profiler traces: kernel classes on real kernel names, and torch.profiler traces cut from real
// ones (tests/data/observe/SOURCES.md) with figures checked by hand.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/observe/telemetry.hpp>
#include <rightsize/observe/trace.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

std::string fixture_path(const std::string& name) {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/data/observe/" + name;
}

std::string fixture(const std::string& name) {
  return read_input_file(fixture_path(name), k_max_telemetry_file_bytes, "trace");
}

double by_class(const TraceProfile& p, KernelClass k) {
  return p.busy_by_class_s[static_cast<std::size_t>(k)];
}

constexpr double k_us = 1e-6;

} // namespace

TEST_CASE("trace: kernel classes of real kernel names", "[trace]") {
  using K = KernelClass;
  const std::vector<std::pair<std::string, K>> cases = {
      // cuBLAS and CUTLASS GEMMs (HTA test traces, nsys reports of Hopper runs)
      {"volta_sgemm_128x32_nt", K::gemm},
      {"ampere_sgemm_128x64_nn", K::gemm},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>("
       "cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
       K::gemm},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
       "segment_k_off_kernel__5x_cublas",
       K::gemm},
      {"nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT", K::gemm},
      {"void splitKreduce_kernel<float, float, float, float, true, false, false>("
       "cublasSplitKParams<float>, float const*, float const*, float*, float const*)",
       K::gemm},
      {"void gemmk1_kernel<float, 256, 5, false, false, false, false, "
       "cublasGemvTensorStridedBatched<__half const>>(cublasGemmk1Params<float>)",
       K::gemm},
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0", K::gemm},
      {"bmm_Bfloat16_Bfloat16Bfloat16_Fp32_t128x64x128u2_s5_et1", K::gemm},
      {"triton_tem_fused_mm_0", K::gemm},
      // attention: FlashAttention 2 (its template arguments hold CUTLASS types), xformers'
      // memory-efficient kernels, cuDNN's SDPA, TensorRT-LLM, vLLM's paged attention
      {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)32, "
       "(int)4, (bool)0, (bool)0, cutlass::bfloat16_t>>(pytorch_flash::Flash_fwd_params)",
       K::attention},
      {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", K::attention},
      {"cudnn_generated_fort_native_sdpa_sm100_flash_fprop_f16_knob_36", K::attention},
      {"fmhaSm100aKernel_QE4m3KvE2m1OE4m3H128PagedKvDenseP16VarSeqQ8Kv128PersistentSwapsAbForGen",
       K::attention},
      {"void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, "
       "(vllm::Fp8KVCacheDataType)0, false, 512>(float*, float*, __nv_bfloat16*)",
       K::attention},
      {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
       "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*)",
       K::attention},
      // collectives: NCCL of several versions, vLLM's custom all-reduce, FlashInfer's fused one
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", K::communication},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       K::communication},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       K::communication},
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, "
       "vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
       K::communication},
      {"void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport",
       K::communication},
      // copies and sets (Kineto's names for CUPTI's records)
      {"Memcpy HtoD (Pinned -> Device)", K::memory_copy},
      {"Memcpy DtoD (Device -> Device)", K::memory_copy},
      {"Memset (Device)", K::memory_copy},
      // everything else
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>)",
       K::other},
      {"void vllm::rms_norm_kernel<c10::BFloat16, 8, 2, true>(c10::BFloat16*)", K::other},
      {"triton_poi_fused_add_cos_sin_0", K::other},
      {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>("
       "cudnn::bn_fw_tr_1C11_args<float>)",
       K::other},
  };
  for (const auto& [name, kind] : cases) {
    INFO(name);
    CHECK(to_string(classify_kernel(name)) == to_string(kind));
  }
  CHECK(classify_kernel("NCCLKERNEL_ALLGATHER") == K::communication); // case does not matter
  CHECK(classify_kernel("") == K::other);
}

TEST_CASE("trace: busy_fraction divides by the window times the devices", "[trace]") {
  TraceProfile p;
  CHECK(p.busy_fraction() == 0);
  p.window_s = 2;
  p.devices = 2;
  p.gpu_busy_s = 1;
  CHECK(p.busy_fraction() == Approx(0.25));
  p.devices = 0;
  CHECK(p.busy_fraction() == Approx(0.5));
  p.gpu_busy_s = 5;
  CHECK(p.busy_fraction() == 1);
}

// torch-train-step.json, two steps of rank 3 on an A100 (timestamps in us from T0):
//   window: the profiler's span, -100 to 2000                                     = 2100
//   busy: 320-480 (H2D copy, GEMM, fill) + 500-710 (GEMM, a concatenation on stream 20
//         inside it, memset) + 900-920 (D2H copy) + 1420-1800 (H2D, GEMM, fill)  = 770
//         while the events' durations add up to 870
//   idle: 2100 - 770 = 1330; input wait: the DataLoader spans 0-300 (a python_function
//         inside it does not count twice) and 900-1400, less the D2H copy at 900-920 = 780
//   by class: GEMM 100 + 200 + 300 = 600, other 20 + 100 + 40 = 160, copies 40+10+20+40 = 110
TEST_CASE("trace: a torch.profiler training step, checked by hand", "[trace]") {
  const TraceProfile p = parse_torch_trace(fixture("torch-train-step.json"), "train.json");
  CHECK(p.format == "torch");
  CHECK(p.source == "train.json");
  CHECK(p.device_name == "NVIDIA A100-PG509-200");
  REQUIRE(p.device_memory_bytes);
  CHECK(*p.device_memory_bytes == 42505273344.0);
  CHECK(p.devices == 1);
  CHECK(p.window_s == Approx(2100 * k_us));
  CHECK(p.gpu_busy_s == Approx(770 * k_us));
  CHECK(p.gpu_idle_s == Approx(1330 * k_us));
  CHECK(p.input_wait_s == Approx(780 * k_us));
  CHECK(p.busy_fraction() == Approx(770.0 / 2100.0));
  CHECK(by_class(p, KernelClass::gemm) == Approx(600 * k_us));
  CHECK(by_class(p, KernelClass::other) == Approx(160 * k_us));
  CHECK(by_class(p, KernelClass::memory_copy) == Approx(110 * k_us));
  CHECK(by_class(p, KernelClass::attention) == 0);
  CHECK(by_class(p, KernelClass::communication) == 0);
  CHECK(p.kernels == 6);
  CHECK(p.host_to_device_bytes == 2 * 256852.0);
  CHECK(p.host_to_device_s == Approx(80 * k_us));
  CHECK_FALSE(p.peak_memory_bytes);
  CHECK(p.warnings.empty());
}

TEST_CASE("trace: event order does not matter", "[trace]") {
  nlohmann::json doc = nlohmann::json::parse(fixture("torch-train-step.json"));
  auto& events = doc["traceEvents"];
  std::reverse(events.begin(), events.end());
  const TraceProfile p = parse_torch_trace(doc.dump(), "reversed.json");
  CHECK(p.gpu_busy_s == Approx(770 * k_us));
  CHECK(p.input_wait_s == Approx(780 * k_us));
  CHECK(p.window_s == Approx(2100 * k_us));
}

TEST_CASE("trace: a bare array of events is a trace", "[trace]") {
  nlohmann::json doc = nlohmann::json::parse(fixture("torch-train-step.json"));
  const TraceProfile p = parse_torch_trace(doc["traceEvents"].dump(), "events.json");
  CHECK(p.gpu_busy_s == Approx(770 * k_us));
  CHECK(p.device_name.empty()); // no deviceProperties
  CHECK_FALSE(p.device_memory_bytes);
}

// torch-memory-v100.json: 500 us of a V100 backward pass (device 1) recorded with
// profile_memory=True: three GPU "[memory]" events and a host one (Device Id -1) whose total,
// 64 GiB, must not count.
TEST_CASE("trace: peak memory comes from the GPU's [memory] events", "[trace]") {
  const TraceProfile p = parse_torch_trace(fixture("torch-memory-v100.json"), "mem.json");
  CHECK(p.device_name == "Tesla V100-SXM2-32GB");
  CHECK(p.devices == 1);
  REQUIRE(p.peak_memory_bytes);
  CHECK(*p.peak_memory_bytes == 5442176000.0);
  REQUIRE(p.peak_reserved_bytes);
  CHECK(*p.peak_reserved_bytes == 12782141440.0);
  // python3 on the fixture: the union of the kernel and memset spans of device 1, and the
  // first to the last event (the host's [memory] event included)
  CHECK(p.gpu_busy_s == Approx(262 * k_us));
  CHECK(p.window_s == Approx(467 * k_us));
  CHECK(p.kernels == 10);
  CHECK(p.warnings.empty());
}

// torch-nccl-overlap.json: 20 kernels of a DDP backward pass on an A100 (bare array); an NCCL
// all-reduce on stream 40 runs under the compute kernels of stream 7.
TEST_CASE("trace: overlapping streams count once, classes may overlap", "[trace]") {
  const TraceProfile p = parse_torch_trace(fixture("torch-nccl-overlap.json"), "nccl.json");
  CHECK(p.devices == 1);
  CHECK(p.kernels == 20);
  // python3 on the fixture: the all-reduce alone is 2636.669 us, the union of everything
  // 2923.288 us, while the classes add up to the sum of the kernels, 3248.403 us: compute runs
  // under the all-reduce.
  CHECK(by_class(p, KernelClass::communication) == Approx(2636.669 * k_us));
  double classes = 0;
  for (const double v : p.busy_by_class_s) {
    classes += v;
  }
  CHECK(classes == Approx(3248.403 * k_us));
  CHECK(p.gpu_busy_s == Approx(2923.288 * k_us));
  CHECK(p.window_s == Approx(3033.684 * k_us));
}

// torch-kineto-legacy.json: a 2022 Kineto trace with the old categories "Kernel" and "Runtime".
TEST_CASE("trace: older Kineto categories are read", "[trace]") {
  const TraceProfile p = parse_torch_trace(fixture("torch-kineto-legacy.json"), "old.json");
  CHECK(p.kernels == 4);
  CHECK(p.devices == 1);
  // the window runs from the profiler's span to the "Record Window End" instant
  CHECK(p.window_s == Approx((1665536375821491.0 - 1665536373657908.0) * k_us));
  CHECK(p.gpu_busy_s == Approx(30 * k_us));
  CHECK(by_class(p, KernelClass::gemm) == Approx(21 * k_us)); // gemmk1 (cuBLAS) and CUTLASS
}

TEST_CASE("trace: an AMD MI250 trace (ROCm), with copies that give no bytes", "[trace]") {
  const TraceProfile p = parse_torch_trace(fixture("torch-amd-mi250.json"), "amd.json");
  CHECK(p.device_name == "AMD Radeon Graphics"); // deviceProperties id 2
  CHECK(p.devices == 1);
  CHECK(p.kernels == 14);
  CHECK(p.host_to_device_bytes == 0);
  CHECK(p.host_to_device_s == Approx((22.441 + 15.72) * k_us));
  CHECK(p.gpu_busy_s == Approx(149.0425 * k_us));
  CHECK(by_class(p, KernelClass::gemm) == Approx(30.24 * k_us)); // hipBLASLt's Cijk_ kernels
}

TEST_CASE("trace: a trace with no GPU activity is an error", "[trace]") {
  REQUIRE_THROWS_WITH(parse_torch_trace(fixture("torch-cpu-only.json"), "cpu.json"),
                      "cpu.json: no GPU activity (no kernel, gpu_memcpy or gpu_memset events): "
                      "was the profiler run with ProfilerActivity.CUDA?");
}

TEST_CASE("trace: read_trace tells the formats apart by content", "[trace]") {
  ScratchDir dir;
  SECTION("JSON, whatever the name") {
    const std::string path = dir.write("trace.sqlite", fixture("torch-train-step.json"));
    const TraceProfile p = read_trace(path);
    CHECK(p.format == "torch");
    CHECK(p.source == path);
    CHECK(p.gpu_busy_s == Approx(770 * k_us));
  }
  SECTION("gzip") {
    const std::string path = dir.write("trace.json.gz", std::string("\x1f\x8b\x08\x00\x00", 5));
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": a compressed trace (gzip): gunzip it first "
                               "(torch.profiler writes .json.gz when the file "
                               "name ends in .gz)");
  }
  SECTION("a missing file") {
    REQUIRE_THROWS_WITH(read_trace(dir.path() + "/none.json"),
                        dir.path() + "/none.json: cannot read file: no such file or directory");
  }
  SECTION("a directory") {
    REQUIRE_THROWS_AS(read_trace(dir.path()), InputError);
  }
  SECTION("an Nsight Systems report that was not exported") {
    const std::string path = dir.write("report1.nsys-rep", std::string("\x00\x01QDSTRM", 8));
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": an Nsight Systems report: export it first "
                               "with \"nsys export --type sqlite\" and give "
                               "the .sqlite file");
  }
  SECTION("a binary file") {
    const std::string path = dir.write("trace.bin", std::string("\x89PNG\r\n\x1a\n", 8));
    REQUIRE_THROWS_WITH(read_trace(path),
                        path + ": not a trace: neither JSON (torch.profiler's "
                               "Chrome trace) nor an SQLite database (nsys "
                               "export --type sqlite)");
  }
  SECTION("an empty file") {
    const std::string path = dir.write("empty.json", "");
    REQUIRE_THROWS_WITH(read_trace(path), path + ": file is empty, expected a JSON trace");
  }
}
