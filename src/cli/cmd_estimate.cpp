#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

namespace rightsize::cli {

namespace {

struct EstimateOptions {
  CommonOptions common;
  std::string spec;
  std::string gpu;
  int gpus = 0;
  int tp = 0;
  int pp = 0;
  int dp = 0;
  int ep = 0;
  long long batch = 0;
  std::vector<std::string> assume;
};

constexpr long long k_max_gpus = 100000;

// --gpus alone means tensor parallelism over all of them; given parts must multiply to --gpus.
Parallelism layout(const EstimateOptions& o, const Spec& spec) {
  Parallelism p;
  p.pp = o.pp > 0 ? o.pp : 1;
  p.dp = o.dp > 0 ? o.dp : 1;
  p.tp = o.tp > 0 ? o.tp : (o.gpus > 0 ? o.gpus / (p.pp * p.dp) : 1);
  p.ep = o.ep > 0 ? o.ep : 1;
  // Checked in 64 bits before anything multiplies the parts as int.
  const long long total = static_cast<long long>(o.tp > 0 ? o.tp : 1) * p.pp * p.dp;
  if (total > k_max_gpus) {
    throw InputError("--tp",
                     fmt::format("tp {} x pp {} x dp {} = {} GPUs, more than the {} rightsize "
                                 "estimates",
                                 o.tp > 0 ? o.tp : 1,
                                 p.pp,
                                 p.dp,
                                 total,
                                 k_max_gpus));
  }
  if (o.gpus > 0 && p.gpus() != o.gpus) {
    throw InputError(
        "--gpus",
        fmt::format(
            "{} GPUs do not match tp {} x pp {} x dp {} = {}", o.gpus, p.tp, p.pp, p.dp, p.gpus()));
  }
  if (p.tp < 1) {
    throw InputError("--gpus",
                     fmt::format("{} GPUs cannot be split into pp {} x dp {}", o.gpus, p.pp, p.dp));
  }
  if (spec.model.heads % p.tp != 0) {
    throw InputError("--tp",
                     fmt::format("tensor parallelism must divide the {} attention heads, "
                                 "got {}",
                                 spec.model.heads,
                                 p.tp));
  }
  if (p.pp > spec.model.layers) {
    throw InputError("--pp",
                     fmt::format("pipeline stages cannot exceed the {} layers, got {}",
                                 spec.model.layers,
                                 p.pp));
  }
  if (p.ep > 1 &&
      ((p.tp * p.dp) % p.ep != 0 || !spec.model.is_moe() || spec.model.experts % p.ep != 0)) {
    throw InputError("--ep",
                     fmt::format("expert parallelism needs a mixture of experts whose "
                                 "experts it divides, and must divide tp x dp = {}, got {}",
                                 p.tp * p.dp,
                                 p.ep));
  }
  return p;
}

} // namespace

Constants load_constants(const std::vector<std::string>& assume) {
  Constants c = Constants::load(bundled_data_dir() + "/memory.json");
  for (const auto& a : assume) {
    const auto eq = a.find('=');
    if (eq == std::string::npos) {
      throw InputError("--assume", "expected NAME=VALUE, got \"" + a + "\"");
    }
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod(a.substr(eq + 1), &used);
      if (used != a.size() - eq - 1) {
        throw std::invalid_argument("trailing characters");
      }
    } catch (const std::exception&) {
      throw InputError("--assume", "expected a number after '=', got \"" + a + "\"");
    }
    c.set(a.substr(0, eq), value, "--assume " + a);
  }
  return c;
}

void register_estimate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EstimateOptions>();
  auto* sub = app.add_subcommand("estimate",
                                 "Evaluate one fixed GPU configuration: memory per "
                                 "GPU term by term, whether it fits, the largest "
                                 "batch and the longest context");
  sub->add_option("SPEC", o->spec, "A rightsize spec or a Hugging Face config.json")->required();
  sub->add_option("--gpu", o->gpu, "GPU name or alias (H100, L40S, ...)")->required();
  sub->add_option("--gpus", o->gpus, "GPUs in total (default: tp x pp x dp)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--tp", o->tp, "Tensor-parallel size")->check(CLI::Range(1, 1024));
  sub->add_option("--pp", o->pp, "Pipeline-parallel stages")->check(CLI::Range(1, 1024));
  sub->add_option("--dp", o->dp, "Data-parallel replicas")->check(CLI::Range(1, 100000));
  sub->add_option("--ep", o->ep, "Expert-parallel size")->check(CLI::Range(1, 100000));
  sub->add_option("--batch",
                  o->batch,
                  "Concurrent sequences (inference) or micro-batch (training); default: the "
                  "spec's, or for inference without concurrency the largest that fits")
      ->check(CLI::Range(1LL, 100000000LL));
  sub->add_option("--assume", o->assume, "Override a model constant: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, {"table", "json"});
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      const Spec spec = load_spec(o->spec);
      for (const auto& w : spec.warnings) {
        ctx.log->warn("{}: {}", spec.file, w);
      }
      const Catalog catalog = load_catalog(bundled_catalog_path(), user_catalog_path(o->common));
      const Gpu& gpu = catalog.resolve(o->gpu, "--gpu");
      const Constants constants = load_constants(o->assume);
      const Parallelism p = layout(*o, spec);
      const std::optional<long long> batch =
          o->batch > 0 ? std::optional<long long>(o->batch) : std::nullopt;
      EstimateReport report{spec, gpu, p, estimate_memory(spec, gpu, p, constants, batch), {}, {}};
      const Efficiency efficiency = Efficiency::load(bundled_data_dir() + "/efficiency.json");
      if (spec.workload.is_training()) {
        report.training = estimate_training(spec, gpu, p, report.memory, efficiency);
      } else {
        report.inference = estimate_inference(spec, gpu, p, report.memory, efficiency, constants);
      }
      if (o->common.format == "json") {
        render_estimate_json(report, ctx.out);
      } else {
        render_estimate_table(report, ctx.out);
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
