#pragma once

// Which numeric formats each serving engine runs on which GPU generation, read from
// data/engines.json (docs/catalog.md, "Engine support"). A planner asks supports() before it plans
// a precision on a GPU: fp8 weights on a T4 are not an fp8 plan on any engine that lacks a kernel
// for them, and fp8 weights on an A100 run at 16-bit math.
//
// Formats are names, not the model stage's DType (the catalog stage sits below it): weights
// "fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4", "fp4", "mxfp4" (DType's to_string names);
// math and KV cache "fp32", "bf16", "fp16", "fp8", "int8", "fp4" (TensorPrecision's names, so that
// SupportAnswer::math_precision() maps onto Gpu::rate()).

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/names.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rightsize {

// A GPU generation as the catalog's Gpu::generation names it ("sm75", "sm90", "gfx942").
struct EngineGeneration {
  std::string name;
  std::string vendor;       // nvidia, amd
  std::string architecture; // Turing, Hopper, CDNA 3, ...
};

// One sourced fact: `format` runs on `generations`. Weight rows also say which math formats the
// kernel computes in (preferred first); a row lists only the generations where it is the engine's
// default path, so fp8 weights on Hopper are W8A8, not Marlin.
struct EngineFormatRow {
  std::string format;
  std::vector<std::string> math; // weight rows only; empty for math and KV cache rows
  std::vector<std::string> generations;
  std::string kernel; // weight rows: "FP8 Marlin (W8A16)"; may be empty elsewhere
  Provenance provenance;
  std::string where; // "file:/json/pointer" of the row, for messages
};

struct EngineInfo {
  std::string name; // vllm, sglang, tensorrt-llm, transformers (as specs name them)
  std::vector<std::string> generations; // where the engine runs at all
  Provenance runs_on;
  std::vector<EngineFormatRow> weights; // in order of preference
  std::vector<EngineFormatRow> math;
  std::vector<EngineFormatRow> kv_cache;
};

struct EngineSupport {
  int schema_version = 1;
  std::string version;
  std::vector<std::string> files;
  std::map<std::string, CatalogSource> sources;
  std::map<std::string, EngineGeneration> generations;
  std::vector<EngineInfo> engines;

  // Case-insensitive lookup by engine name; nullptr when absent.
  [[nodiscard]] const EngineInfo* find(std::string_view engine) const;
  [[nodiscard]] std::vector<std::string> engine_names() const;
};

enum class SupportStatus {
  supported,   // the engine runs it; see math and notes for what it actually computes in
  unsupported, // the data says it does not run; reason says why
  unknown,     // the engine, generation or a format is not in the data; reason says which
};
inline constexpr NameRow<SupportStatus> k_support_status_rows[] = {
    {SupportStatus::supported, "supported"},
    {SupportStatus::unsupported, "unsupported"},
    {SupportStatus::unknown, "unknown"}};
inline constexpr NameTable<SupportStatus> k_support_status_names{k_support_status_rows};
std::string_view to_string(SupportStatus s);

// The answer to "does `engine` run these formats on this GPU?".
struct SupportAnswer {
  SupportStatus status = SupportStatus::unknown;
  std::string weights;  // as asked
  std::string kv_cache; // as stored: as asked, or the other 16-bit format (same size)
  std::string math;     // the precision the matrix multiplies run at; empty unless supported
  std::string kernel;   // the kernel path of the weights row used
  // One line when not supported or unknown: "vllm has no kernel for fp8 weights on sm75
  // (Turing): needs sm80+ (FP8 Marlin), source VLLM_FP8".
  std::string reason;
  std::vector<std::string> notes;   // substitutions made, one line each
  std::vector<std::string> sources; // keys of EngineSupport::sources behind the answer
  std::string confidence;           // lowest of the rows used: low, medium, high

  [[nodiscard]] bool runs() const { return status == SupportStatus::supported; }
  // Runs with the math and KV cache asked for, nothing substituted.
  [[nodiscard]] bool as_requested() const { return runs() && notes.empty(); }
  // `math` as a catalog precision, to look up Gpu::rate(); nullopt unless supported.
  [[nodiscard]] std::optional<TensorPrecision> math_precision() const;
};

// Reads data/engines.json. Every problem of the file is reported at once (InputErrors, or one
// InputError), each naming file:/json/pointer: unknown keys (with a suggestion), formats and
// generations that are not known, sources that are not keys of /sources, duplicate engines, a
// row whose generations the engine does not run on, a weights row with no math format available
// on one of its generations.
EngineSupport load_engine_support(const std::string& path);
EngineSupport parse_engine_support(const nlohmann::json& json, const std::string& file);

// Whether `engine` runs `weights` with a `kv_cache` cache on `gpu`, asking for `activations`
// math. Never throws for unknown names: those give SupportStatus::unknown with a reason.
// - Math: the first weights row for the format that lists the GPU's generation and offers
//   `activations` wins; otherwise the first such row with any math available there (fp8 weights
//   asking fp8 math on an A100 run FP8 Marlin at bf16; bf16 on a T4 runs fp16), with a note.
// - KV cache: a row for the format on the generation, or, for bf16/fp16, the other 16-bit
//   format (same bytes per element), with a note. Other formats are never substituted: they
//   change memory. An empty `kv_cache` asks nothing of the KV cache: a workload that keeps none
//   (an encoder's embeddings, a diffusion pipeline).
SupportAnswer supports(const EngineSupport& support,
                       std::string_view engine,
                       const Gpu& gpu,
                       std::string_view weights,
                       std::string_view kv_cache,
                       std::string_view activations);
// Same, by generation name ("sm90"), for callers without a catalog entry.
SupportAnswer supports(const EngineSupport& support,
                       std::string_view engine,
                       std::string_view generation,
                       std::string_view weights,
                       std::string_view kv_cache,
                       std::string_view activations);

// Format names accepted in each role, for validation and messages.
const std::vector<std::string>& engine_weight_formats();
const std::vector<std::string>& engine_math_formats();
const std::vector<std::string>& engine_kv_formats();

} // namespace rightsize
