#include "cli/calibration_option.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/layout_options.hpp"
#include "cli/renderers.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <array>

namespace rightsize::cli {

namespace {

struct EstimateOptions {
  CommonOptions common;
  std::string spec;
  std::string gpu;
  LayoutOptions layout;
  long long batch = 0;
  std::string weights;
  std::string kv_cache;
  std::string confidence = "band";
  std::vector<std::string> assume;
  std::string calibration;
  int prefill_replicas = 0; // disaggregated: both pools' replicas, 0 when not given
  int decode_replicas = 0;
};

// --prefill-replicas and --decode-replicas go together, serve the spec's concurrency (no --batch)
// with replicas of one layout (no --dp, no --gpus beyond one replica's).
void check_pools(const EstimateOptions& o, const Parallelism& whole) {
  if ((o.prefill_replicas > 0) != (o.decode_replicas > 0)) {
    throw InputError(o.prefill_replicas > 0 ? "--decode-replicas" : "--prefill-replicas",
                     "a disaggregated estimate needs both --prefill-replicas and "
                     "--decode-replicas");
  }
  if (o.prefill_replicas > 0 && whole.dp > 1) {
    throw InputError(o.layout.dp > 0 ? "--dp" : "--gpus",
                     "a disaggregated estimate's replicas are --prefill-replicas and "
                     "--decode-replicas; --tp, --ep and --attention-dp lay out each of them");
  }
  if (o.prefill_replicas > 0 && o.batch > 0) {
    throw InputError("--batch",
                     "a disaggregated estimate serves the spec's concurrency; each decode "
                     "replica's batch follows from it");
  }
}

using EstimateRenderer = void (*)(const EstimateReport&, std::ostream&);
constexpr std::array<Format<EstimateRenderer>, 2> k_formats{
    {{"table", render_estimate_table}, {"json", render_estimate_json}}};

} // namespace

void register_estimate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EstimateOptions>();
  auto* sub = app.add_subcommand("estimate",
                                 "Evaluate one fixed GPU configuration: memory per "
                                 "GPU term by term, whether it fits, the largest "
                                 "batch and the longest context, speed, the spec's targets "
                                 "and the cost");
  sub->add_option("SPEC", o->spec, "A rightsize spec, a Hugging Face config.json or a model folder")
      ->required();
  sub->add_option("--gpu", o->gpu, "GPU name or alias (H100, L40S, ...)")->required();
  add_layout_options(*sub, o->layout);
  sub->add_option("--batch",
                  o->batch,
                  "Concurrent sequences per replica (inference) or micro-batch (training); "
                  "default: the spec's concurrency shared among the replicas, or for inference "
                  "without concurrency the largest that fits")
      ->transform(whole_number_in(1, 100000000));
  sub->add_option("--weights",
                  o->weights,
                  "Store the weights in this format (a plan's precision.weights: fp8, int4, ...)")
      ->type_name("DTYPE");
  sub->add_option("--kv-cache",
                  o->kv_cache,
                  "Keep the KV cache in this format (a plan's precision.kv_cache)")
      ->type_name("DTYPE");
  sub->add_option("--confidence",
                  o->confidence,
                  "Judge targets at the pessimistic edge of each prediction's uncertainty band "
                  "(band) or at the point estimate (point); docs/plan.md")
      ->check(CLI::IsMember({"band", "point"}))
      ->default_str("band");
  sub->add_option("--assume", o->assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  sub->add_option(
         "--prefill-replicas",
         o->prefill_replicas,
         "Serve disaggregated: this many prefill replicas (with --decode-replicas), each "
         "laid out as --tp, --ep, --attention-dp; docs/model.md, \"Disaggregated serving\"")
      ->transform(whole_number_in(1, 4096));
  sub->add_option("--decode-replicas",
                  o->decode_replicas,
                  "Serve disaggregated: this many decode replicas (with --prefill-replicas)")
      ->transform(whole_number_in(1, 4096));
  add_calibration_option(*sub, o->calibration);
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, format_names(k_formats));
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      const Spec loaded = load_spec(o->spec);
      const Catalog catalog = load_catalog(
          bundled_catalog_path(o->common), user_catalog_path(o->common), CatalogDetail::figures);
      const Gpu& gpu = catalog.resolve(o->gpu, "--gpu");
      const auto weights = dtype_option(o->weights, "--weights");
      const auto kv_cache = dtype_option(o->kv_cache, "--kv-cache");
      const EngineSupport engines =
          load_engine_support(bundled_data_dir(o->common) + "/engines.json");
      Spec spec = estimate_spec(loaded, catalog, gpu, weights, kv_cache, &engines);
      for (const auto& w : spec.warnings) {
        ctx.log->warn("{}: {}", spec.file, w);
      }
      const Constants constants = load_constants(o->common, o->assume);
      const Parallelism whole = read_layout(o->layout, spec);
      Efficiency efficiency = Efficiency::load(bundled_data_dir(o->common) + "/efficiency.json");
      Uncertainty uncertainty =
          Uncertainty::load(bundled_data_dir(o->common) + "/uncertainty.json");
      install_calibration(o->calibration, spec, efficiency, uncertainty, *ctx.log);
      check_pools(*o, whole);
      check_layout_links(spec, gpu, whole, o->prefill_replicas + o->decode_replicas);
      const auto batch = o->batch > 0 ? std::optional<long long>(o->batch) : std::nullopt;
      const EstimateEvaluation evaluation =
          o->prefill_replicas > 0
              ? estimate_disaggregated_configuration(std::move(spec),
                                                     gpu,
                                                     whole,
                                                     o->prefill_replicas,
                                                     o->decode_replicas,
                                                     constants,
                                                     efficiency,
                                                     uncertainty)
              : estimate_configuration(
                    std::move(spec), gpu, whole, batch, constants, efficiency, uncertainty);
      const EstimateReport report = estimate_report(
          evaluation, o->confidence == "band" ? Confidence::band : Confidence::point, today());
      renderer(k_formats, o->common.format)(report, ctx.out);
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
