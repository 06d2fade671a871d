#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/layout_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/calibrate/bench_result.hpp>
#include <rightsize/calibrate/calibration_file.hpp>
#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/render/calibrate.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <sstream>

namespace rightsize::cli {

namespace {

namespace fs = std::filesystem;

struct CalibrateOptions {
  CommonOptions common;
  std::string spec;
  std::string gpu;
  LayoutOptions layout;
  std::string weights;
  std::string kv_cache;
  std::string client;
  std::vector<std::string> results;
  std::string output;
};

using CalibrateRenderer = void (*)(const CalibrationReport&, std::ostream&);
constexpr std::array<Format<CalibrateRenderer>, 2> k_formats{
    {{"table", render_calibrate_table}, {"json", render_calibrate_json}}};

// The data every run is estimated with.
struct Data {
  Catalog catalog;
  EngineSupport engines;
  Constants constants;
  Efficiency efficiency;
  Uncertainty uncertainty;
};

// A spec path as the calibration file records it: relative to the file's folder, so that the
// folder can move with its specs; as given without -o.
std::string recorded_spec_path(const std::string& spec, const std::string& output) {
  if (output.empty()) {
    return spec;
  }
  std::error_code ec;
  const fs::path folder = fs::absolute(output, ec).parent_path();
  const fs::path relative = fs::proximate(fs::absolute(spec, ec), folder, ec);
  return ec ? spec : relative.generic_string();
}

// One configuration's spec, GPU and layout, as estimate reads its flags.
struct Configuration {
  Spec spec;
  const Gpu* gpu = nullptr;
  Parallelism layout;
};

Configuration configuration(const std::string& spec_path,
                            const std::string& gpu_name,
                            const std::string& gpu_field,
                            const LayoutOptions& layout,
                            const std::string& weights,
                            const std::string& kv_cache,
                            const Data& d) {
  Configuration c;
  const Spec loaded = load_spec(spec_path);
  c.gpu = &d.catalog.resolve(gpu_name, gpu_field);
  c.spec = estimate_spec(loaded,
                         d.catalog,
                         *c.gpu,
                         dtype_option(weights, "--weights"),
                         dtype_option(kv_cache, "--kv-cache"),
                         &d.engines);
  c.layout = read_layout(layout, c.spec);
  check_layout_links(c.spec, *c.gpu, c.layout, 0);
  return c;
}

RunRecord record_of(const CalibrationRun& run,
                    const BenchRun& bench,
                    const Configuration& c,
                    const CalibrateOptions& o,
                    const std::string& spec_digest) {
  RunRecord r;
  r.result = run.name;
  r.result_digest = bench.digest;
  r.client = std::string(k_bench_client_names.name(bench.client));
  r.spec_file = recorded_spec_path(o.spec, o.output);
  r.spec_digest = spec_digest;
  r.model = c.spec.model.name;
  r.model_params = c.spec.model.params_total;
  r.weights_format = std::string(to_string(c.spec.precision.weights));
  r.kv_cache_format = std::string(to_string(c.spec.precision.kv_cache));
  r.engine = engine_name(c.spec);
  r.model_kind = std::string(c.spec.model.kind());
  r.gpu = c.gpu->name;
  r.family = run.family;
  r.layout = run.layout;
  r.weights = o.weights;
  r.kv_cache = o.kv_cache;
  r.load = run.load;
  r.ttft = run.ttft;
  r.tpot = run.tpot;
  r.output_tokens_per_s = run.output_tokens_per_s;
  return r;
}

// A run of the calibration file estimated again: its spec re-read from where the file records it
// (relative to the file), which must be unchanged.
CalibrationRun
run_of_record(const RunRecord& r, std::size_t index, const std::string& file, const Data& d) {
  const std::string where = fmt::format("{}:/runs/{}", file, index);
  fs::path spec = fs::path(r.spec_file);
  if (spec.is_relative()) {
    std::error_code ec;
    spec = fs::absolute(file, ec).parent_path() / spec;
  }
  std::string digest;
  try {
    digest = spec_file_digest(spec.string());
  } catch (const InputError& e) {
    throw InputError(where + "/spec/file",
                     fmt::format("the spec this run was calibrated with cannot be read ({}); "
                                 "restore it, or calibrate into a new file",
                                 e.what()));
  }
  if (digest != r.spec_digest) {
    throw InputError(where + "/spec/digest",
                     fmt::format("{} changed since this run was calibrated: its runs no longer "
                                 "describe it; calibrate into a new file",
                                 spec.string()));
  }
  LayoutOptions layout;
  layout.tp = r.layout.tp;
  layout.pp = r.layout.pp;
  layout.ep = r.layout.ep;
  layout.attention_dp = r.layout.attention_dp;
  const Configuration c =
      configuration(spec.string(), r.gpu, where + "/gpu", layout, r.weights, r.kv_cache, d);
  CalibrationRun run;
  run.name = r.result;
  run.spec = spec_at_load(c.spec, r.load);
  run.gpu = *c.gpu;
  run.layout = c.layout;
  run.load = r.load;
  run.family = d.efficiency.family_name(*c.gpu);
  run.ttft = r.ttft;
  run.tpot = r.tpot;
  run.output_tokens_per_s = r.output_tokens_per_s;
  return run;
}

// The runs of a calibration; `records` as the file keeps them, one per run, in the same order.
struct Runs {
  std::vector<CalibrationRun> runs;
  std::vector<RunRecord> records;
  long long replaced = 0; // by a later run of their configuration
};

// The runs of the result files; a later run of a configuration replaces an earlier one.
Runs read_new_runs(const CalibrateOptions& o, const Configuration& c, const Data& d) {
  const std::optional<BenchClient> forced =
      o.client.empty() ? std::nullopt : k_bench_client_names.find(o.client);
  const std::string spec_digest = spec_file_digest(o.spec);
  Runs out;
  for (const auto& path : o.results) {
    for (const BenchRun& bench : read_bench_results(path, forced)) {
      CalibrationRun run = calibration_run(c.spec, *c.gpu, c.layout, bench, d.efficiency);
      RunRecord record = record_of(run, bench, c, o, spec_digest);
      const auto same =
          std::find_if(out.records.begin(), out.records.end(), [&](const RunRecord& r) {
            return same_configuration(r, record);
          });
      if (same != out.records.end()) {
        out.runs.erase(out.runs.begin() + (same - out.records.begin()));
        out.records.erase(same);
        ++out.replaced;
      }
      out.runs.push_back(std::move(run));
      out.records.push_back(std::move(record));
    }
  }
  return out;
}

// The runs of the calibration file at `path` (none when it does not exist) that no new run
// replaces, estimated again; `replaced` counts the others.
Runs kept_file_runs(const std::string& path, const Runs& added, const Data& d) {
  Runs out;
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) {
    return out;
  }
  std::string text;
  const nlohmann::json document = detail::load_json_file(path, text);
  (void)site_calibration_from_json(document, path, detail::fnv1a_hex(text));
  const auto old = read_run_records(document, path);
  for (std::size_t i = 0; i < old.size(); ++i) {
    if (std::any_of(added.records.begin(), added.records.end(), [&](const RunRecord& n) {
          return same_configuration(n, old[i]);
        })) {
      ++out.replaced;
      continue;
    }
    out.runs.push_back(run_of_record(old[i], i, path, d));
    out.records.push_back(old[i]);
  }
  return out;
}

ExitCode calibrate(const CalibrateOptions& o, Context& ctx) {
  Data d{load_catalog(
             bundled_catalog_path(o.common), user_catalog_path(o.common), CatalogDetail::figures),
         load_engine_support(bundled_data_dir(o.common) + "/engines.json"),
         load_constants(o.common, {}),
         Efficiency::load(bundled_data_dir(o.common) + "/efficiency.json"),
         Uncertainty::load(bundled_data_dir(o.common) + "/uncertainty.json")};
  const Configuration c = configuration(o.spec, o.gpu, "--gpu", o.layout, o.weights, o.kv_cache, d);
  for (const auto& w : c.spec.warnings) {
    ctx.log->warn("{}: {}", c.spec.file, w);
  }
  const Runs added = read_new_runs(o, c, d);
  Runs all = kept_file_runs(o.output, added, d);
  const auto kept = static_cast<long long>(all.runs.size());
  all.runs.insert(all.runs.end(), added.runs.begin(), added.runs.end());
  all.records.insert(all.records.end(), added.records.begin(), added.records.end());
  CalibrationReport report = calibration_report(
      all.runs, std::move(all.records), d.efficiency, d.uncertainty, d.constants);
  report.output = o.output;
  report.added = static_cast<long long>(added.runs.size()) + added.replaced;
  report.replaced = added.replaced + all.replaced;
  report.kept = kept;
  std::ostringstream rendered;
  renderer(k_formats, o.common.format)(report, rendered);
  if (!o.output.empty()) {
    std::vector<RunRecord> written;
    for (const auto& r : report.runs) {
      written.push_back(r.record);
    }
    write_file_atomically(o.output,
                          detail::dump_json(calibration_document(written, report.fits), 2) + "\n");
  }
  ctx.out << rendered.str();
  return ExitCode::ok;
}

} // namespace

void register_calibrate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* sub = app.add_subcommand(
      "calibrate",
      "Fit the estimator's efficiency factors to a site's own benchmark runs (vLLM, SGLang, "
      "genai-perf, AIPerf, trtllm-bench result files) and write them to a calibration file "
      "that --calibration reads");
  sub->add_option("SPEC", o->spec, "The spec the runs served: model, precision and engine")
      ->required();
  sub->add_option("RESULT", o->results, "Result files of the benchmark client (one or more)")
      ->required();
  sub->add_option("--gpu", o->gpu, "The GPU the runs ran on (H100, L40S, ...)")->required();
  add_layout_options(*sub, o->layout);
  sub->add_option("--weights", o->weights, "The weights' format the runs served (fp8, int4, ...)")
      ->type_name("DTYPE");
  sub->add_option("--kv-cache", o->kv_cache, "The KV cache's format the runs served")
      ->type_name("DTYPE");
  sub->add_option("--client",
                  o->client,
                  "Read every RESULT as this client's format instead of recognising it")
      ->check(CLI::IsMember(k_bench_client_names.primary_names()))
      ->type_name("CLIENT");
  sub->add_option("-o,--output",
                  o->output,
                  "Calibration file to create, or to add the runs to (a run of the same "
                  "configuration replaces the older); without it nothing is written")
      ->type_name("FILE");
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->callback([&ctx, o]() { ctx.action = [&ctx, o]() { return calibrate(*o, ctx); }; });
}

} // namespace rightsize::cli
