#pragma once

// The GPU catalog: every SKU a buyer considers, every number with a source. Read from
// data/gpus.json (docs/catalog.md), optionally overlaid by a user's file that overrides or extends
// single fields (their negotiated prices). Units are converted to SI once, here.

#include <rightsize/core/units.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// Tensor (matrix) precisions with a dense throughput in the catalog.
enum class TensorPrecision { fp32, tf32, bf16, fp16, fp8, int8, fp4 };
std::string_view to_string(TensorPrecision p);
const std::vector<TensorPrecision>& all_tensor_precisions();

// Where a number came from: a key into Catalog::sources, plus an optional note on conflicts.
struct Provenance {
  std::string source;
  std::string note;
  std::string confidence; // "", "low", "medium", "high"
};

// The VM a GPU-only price needs to run (docs/catalog.md, "Prices"): priced per instance.
struct PriceHost {
  std::string name; // "n1-standard-4"
  UsdPerHour per_instance;
  Provenance provenance;
};

struct Price {
  std::string provider;
  // on_demand, spot, committed_1y and committed_3y (a provider's published 1- or 3-year
  // commitment, per hour), committed (a contract of unstated term: a team's own)
  std::string kind;
  // What one GPU costs with all it needs to run: the listed usd_per_gpu_hour for an "instance"
  // price; for a "gpu_only" price with a host, (listed x gpus_per_instance + host) /
  // gpus_per_instance; for a "gpu_only" price without one, the listed price (never used: usable()).
  UsdPerHour per_gpu;
  UsdPerHour listed_per_gpu; // usd_per_gpu_hour as the file gives it
  bool gpu_only = false;     // "includes": "gpu_only" (else "instance": the VM with its vCPU, RAM)
  // The file states gpus_per_instance. A price without it (an overlay's contract price) is a
  // 1-GPU instance whose shape is not known: a tensor-parallel replica may span such instances,
  // priced per GPU as before shapes were listed (price_pick.hpp).
  bool shape_stated = false;
  std::string instance;          // the shape the price is for ("g5.12xlarge"); empty when unstated
  int gpus_per_instance = 1;     // GPUs in that shape: a fleet rents whole instances of them
  std::optional<PriceHost> host; // a gpu_only price's VM, per instance
  std::string as_of;             // YYYY-MM-DD
  bool as_of_stated = true;      // false: the source is undated and as_of is when it was retrieved
  Provenance provenance;

  // A price plan, estimate and observe may rank and cost with: a whole instance, or a GPU-only
  // price completed with its host.
  [[nodiscard]] bool usable() const { return !gpu_only || host.has_value(); }
  [[nodiscard]] UsdPerHour per_instance() const {
    return per_gpu * static_cast<double>(gpus_per_instance);
  }
};

struct Purchase {
  Usd gpu;
  Usd server_share; // the GPU's share of its server (CPU, chassis, NICs, switches)
  std::string as_of;
  Provenance provenance;
  // GPUs in the smallest unit one buys: an HGX or OAM board's server (8), an NVL72 rack (72), a
  // PCIe server of a stated size. On-prem buys whole units; server_share is per GPU of this unit.
  int gpus_per_server = 1;
  Provenance server_provenance;
  // Units bought per GPU: 1, or for a MIG slice planned as a GPU of its own, the slices one GPU
  // holds (gpus_per_server then counts slices). Set by the planner, never read from a file.
  int units_per_gpu = 1;
  // The power one bought unit is charged on-prem: unset, the GPU's TDP; for a MIG slice, the
  // GPU's TDP over units_per_gpu, as its purchase is (the slices it holds share the GPU). Set by
  // the planner, never read from a file.
  std::optional<Watts> unit_tdp;
};

struct Mig {
  int max_instances = 0;
  std::vector<std::string> profiles;
};

// Every figure of a GPU: what Gpu holds but where each came from (a MIG slice's, derived from its
// GPU's, have no source of their own).
struct GpuFigures {
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor; // nvidia, amd, intel, google, aws
  std::string architecture;
  std::string generation; // compute capability / ISA: sm80, sm90, gfx942
  int release_year = 0;
  std::string form_factor;

  Bytes memory;                       // nominal capacity
  std::optional<Bytes> usable_memory; // what the driver reports, when sourced
  BytesPerSecond memory_bandwidth;
  std::map<TensorPrecision, FlopsPerSecond> dense; // absent: no such tensor rate
  Watts tdp;
  BytesPerSecond host_link; // per direction (PCIe x16, or NVLink-C2C)
  int pcie_generation = 0;  // 0 when the host link is NVLink-C2C
  // nvlink3, nvlink4, nvlink4-bridge, nvlink5, infinity-fabric, ici (TPU), neuronlink (AWS
  // Trainium, Inferentia), roce (Gaudi's on-chip Ethernet), none
  std::string gpu_link_kind;
  BytesPerSecond gpu_link; // per GPU, per direction; PCIe rate for cards without a link
  int nvlink_domain = 1;   // GPUs in one high-bandwidth domain
  BytesPerSecond network;  // inter-node network per GPU
  std::optional<Mig> mig;
  std::vector<Price> prices;
  // Why no cloud rents it, for a GPU without a cloud price ("sold in China only"); empty when
  // rentable. Every bundled GPU has a cloud price or this reason (docs/catalog.md).
  std::string not_rentable;
  std::optional<Purchase> purchase;

  // The capacity the estimator may plan against: usable when sourced, else nominal.
  [[nodiscard]] Bytes plannable_memory() const { return usable_memory.value_or(memory); }
  [[nodiscard]] bool has_nvlink() const { return gpu_link_kind != "none"; }
  // The dense rate at `p`, if the GPU has it.
  [[nodiscard]] std::optional<FlopsPerSecond> rate(TensorPrecision p) const;
};

struct Gpu : GpuFigures {
  // Field ("memory_gib", "dense_tflop_per_s.bf16", ...) -> where it came from. Empty for a MIG
  // slice (mig_slice): its figures are its GPU's shares, whose sources are its GPU's entry.
  std::map<std::string, Provenance> provenance;
};

struct CatalogSource {
  std::string name;
  std::string location;
  std::string kind;
};

// What a command reads of the catalog: every figure with its sources, or the figures alone
// (plan, check, deploy, estimate, compare, observe), which spares loading the bundled catalog's
// per-field sources (docs/performance.md).
enum class CatalogDetail { sources, figures };

struct Catalog {
  int schema_version = 1;
  std::string version;
  std::string digest;             // FNV-1a of the merged catalog JSON, for lock files
  std::vector<std::string> files; // what was read, in order
  std::map<std::string, CatalogSource> sources;
  std::vector<Gpu> gpus;
  // Loaded with CatalogDetail::figures from the bundled data: every Gpu::provenance is empty.
  bool sources_dropped = false;

  // Resolves a name a person would type ("H100", "a100-40gb", "L40S") case-insensitively over
  // names and aliases. Unknown or ambiguous names throw InputError at `where` with suggestions.
  [[nodiscard]] const Gpu& resolve(const std::string& name, const std::string& where) const;
  [[nodiscard]] const Gpu* find(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> names() const;
};

// Reads the bundled catalog, then the overlay (may be empty). An overlay with
// "extends": "bundled" merges into the bundled catalog (docs/catalog.md, "Your own prices");
// without it, it replaces the bundled catalog. Every problem of a file is reported at once
// (InputErrors).
// CatalogDetail::figures: the caller reads no Gpu::provenance, which may then be left empty.
Catalog load_catalog(const std::string& bundled_path,
                     const std::string& overlay_path = "",
                     CatalogDetail detail = CatalogDetail::sources);
// Parses one complete catalog document.
Catalog parse_catalog(const nlohmann::json& json, const std::string& file);

// Dates: "YYYY-MM-DD" -> days since 1970-01-01; nullopt when malformed or impossible.
std::optional<long> parse_date(const std::string& text);
// Whether a price dated `as_of` is older than `max_age_days` at `today` (both YYYY-MM-DD).
bool is_stale(const std::string& as_of, const std::string& today, long max_age_days);

} // namespace rightsize
