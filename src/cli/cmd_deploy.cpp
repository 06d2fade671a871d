#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/check/locked.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/deploy/manifest_files.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/render/deploy.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <sstream>

namespace rightsize::cli {

namespace {

struct DeployCliOptions {
  PlanCliOptions plan;
  std::string engine;
  std::string autoscaler = "hpa";
  std::string name_space = "default";
  std::string image;
  std::string model_uri;
  std::string prometheus = "http://prometheus-operated.monitoring.svc:9090";
  std::string output_dir;
  std::string lock;
  bool lock_given = false;
  bool autoscaler_given = false;
};

// The options CLI11 checks beyond their values' syntax.
struct DeployChecked {
  CLI::Option* lock = nullptr;
  CLI::Option* image = nullptr;
  CLI::Option* model_uri = nullptr;
  CLI::Option* output = nullptr;
  CLI::Option* autoscaler = nullptr;
};

// An option given as an empty string, or as a word that would read as a flag.
void require_word(const CLI::Option* option, const std::string& value, const std::string& name) {
  if (option->count() == 0) {
    return;
  }
  if (value.empty()) {
    throw InputError(name, "must not be empty");
  }
  if (value.front() == '-') {
    throw InputError(name, fmt::format("must not start with '-', got \"{}\"", value));
  }
  if (value.find_first_of(" \t\n") != std::string::npos) {
    throw InputError(name, fmt::format("must not contain spaces, got \"{}\"", value));
  }
}

DeployChecked add_deploy_options(CLI::App& sub, DeployCliOptions& o) {
  DeployChecked checked;
  sub.add_option("SPEC",
                 o.plan.spec,
                 "A rightsize spec, a Hugging Face config.json or a model folder (serving)")
      ->required();
  add_catalog_option(sub, o.plan.common);
  add_plan_options(sub, o.plan.settings);
  auto* k8s = "Kubernetes";
  sub.add_option(
         "--engine", o.engine, "Serving engine: vllm, sglang or tensorrt-llm (default: the spec's)")
      ->check(CLI::IsMember({"vllm", "sglang", "tensorrt-llm"}))
      ->group(k8s);
  checked.autoscaler =
      sub.add_option(
             "--autoscaler",
             o.autoscaler,
             "hpa (GPU metric through prometheus-adapter), keda (the engine's queue through "
             "Prometheus) or none")
          ->check(CLI::IsMember({"hpa", "keda", "none"}))
          ->default_str("hpa")
          ->group(k8s);
  sub.add_option("--namespace", o.name_space, "Namespace of every object")
      ->default_str("default")
      ->group(k8s);
  checked.image = sub.add_option("--image",
                                 o.image,
                                 "Container image (default: the engine's, data/deploy.json)")
                      ->group(k8s);
  checked.model_uri =
      sub.add_option("--model-uri",
                     o.model_uri,
                     "The checkpoint to serve: a Hugging Face id or a path on a mounted volume "
                     "(default: the config's _name_or_path)")
          ->group(k8s);
  sub.add_option("--prometheus", o.prometheus, "Prometheus URL that KEDA queries")
      ->default_str(o.prometheus)
      ->group(k8s);
  checked.lock =
      sub.add_option("--lock",
                     o.lock,
                     "Deploy the configuration locked for this spec (rightsize plan --lock; "
                     "default: rightsize.lock.json beside the spec) instead of a fresh plan's")
          ->expected(0, 1)
          ->type_name("[FILE]");
  checked.output =
      sub.add_option("-o,--output",
                     o.output_dir,
                     "Write one file per object under DIR instead of one YAML stream to stdout")
          ->type_name("DIR");
  return checked;
}

// What the options say that CLI11 cannot check, refused before anything is read.
void check_options(const DeployCliOptions& o, const DeployChecked& checked) {
  require_word(checked.image, o.image, "--image");
  require_word(checked.model_uri, o.model_uri, "--model-uri");
  if (checked.output->count() > 0 && o.output_dir.empty()) {
    throw InputError("--output", "must name a directory");
  }
  const auto& url = o.prometheus;
  const auto scheme = url.find("://");
  if ((url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) || url.size() <= scheme + 3) {
    throw InputError("--prometheus",
                     fmt::format("must be an http:// or https:// URL, got \"{}\"", url));
  }
}

// When the plan ranks first a disaggregated configuration that deploy cannot write for llm-d (no
// recipe for the engine, a replica across nodes): the best aggregated configuration, planned
// again without disaggregation, and a note naming both, so that plan's and deploy's answers are
// not silently different.
std::optional<Candidate>
aggregated_instead(const PlanRun& run, const DeployData& data, std::vector<std::string>& notes) {
  if (!run.plan.feasible()) {
    return std::nullopt;
  }
  const Candidate& c = run.plan.candidates.front();
  const auto refused = disaggregated_deploy_refusal(c, data);
  if (!refused) {
    return std::nullopt;
  }
  PlanOptions options = run.options;
  options.disaggregate = false;
  Plan plan = make_plan(run.spec, run.catalog, run.constants, run.efficiency, options);
  if (!plan.feasible()) {
    return std::nullopt;
  }
  const DisaggregatedLayout& l = c.disaggregation->pools.layout;
  notes.push_back(fmt::format("rightsize plan ranks a disaggregated configuration first ({} x {}, "
                              "{} prefill + {} decode replicas of TP{}, {}), which deploy cannot "
                              "write for llm-d ({}): this is the best aggregated one "
                              "(docs/deploy.md)",
                              c.total_gpus(),
                              c.gpu->name,
                              l.prefill.replicas,
                              l.decode.replicas,
                              c.layout.tp,
                              format_usd_per_hour(c.cost.per_hour),
                              *refused));
  return std::move(plan.candidates.front());
}

// The spec as deployed: the engine the command line names, the formats the lock holds.
void adjust_spec(const DeployCliOptions& o, const std::optional<LockedPlan>& locked, Spec& spec) {
  if (!o.engine.empty()) {
    spec.workload.inference.engine = *k_engine_names.find(o.engine);
    if (const auto refused = image_engine_refusal(spec.model, spec.workload.inference.engine)) {
      throw InputError("--engine", fmt::format("{}, got \"{}\"", *refused, o.engine));
    }
  }
  if (locked) {
    restrict_to_locked_formats(*locked, spec);
  }
}

DeployOptions deploy_options(const DeployCliOptions& o) {
  DeployOptions options;
  options.autoscaler = o.autoscaler == "keda"   ? Autoscaler::keda
                       : o.autoscaler == "none" ? Autoscaler::none
                                                : Autoscaler::hpa;
  options.name_space = o.name_space;
  options.image = o.image;
  options.model_uri = o.model_uri;
  options.prometheus = o.prometheus;
  options.autoscaler_given = o.autoscaler_given;
  return options;
}

// One YAML stream to standard output, or one file per object under -o DIR.
void write_report(Context& ctx, const DeployReport& report, const std::string& dir) {
  if (dir.empty()) {
    std::ostringstream out;
    render_deploy_yaml(report, out);
    ctx.out << out.str();
    return;
  }
  std::vector<ManifestFile> files;
  const std::string header = deploy_header(report);
  for (const Node& object : report.objects) {
    files.push_back({manifest_file_name(object), header + manifest_yaml(object)});
  }
  write_manifest_files(files, dir);
  ctx.log->info("wrote {} manifests under {}", report.objects.size(), dir);
}

ExitCode deploy(Context& ctx, DeployCliOptions& o, const nlohmann::json& given) {
  if (o.name_space != dns_label(o.name_space)) {
    throw InputError("--namespace",
                     fmt::format("must be a DNS-1123 label (at most 63 lower-case letters, "
                                 "digits and '-', starting and ending with a letter or digit), "
                                 "got \"{}\"",
                                 o.name_space));
  }
  // A locked configuration: its entry, and the plan made with its settings and formats.
  std::optional<LockedPlan> locked;
  if (o.lock_given) {
    locked = read_locked_plan(
        o.lock.empty() ? default_lock_path(o.plan.spec) : o.lock, o.plan.spec, given);
    if (locked->settings) {
      o.plan.settings = *locked->settings;
    }
    // An aggregated lock is looked up among aggregated configurations: a disaggregated one that
    // beats it on the same GPU would take its place in the plan.
    o.plan.disaggregate = locked->configuration.prefill_replicas > 0;
  }
  const ScopedData<PlanRun> run(
      ctx, run_plan(o.plan, ctx, [&](Spec& spec) { adjust_spec(o, locked, spec); }));
  const DeployData data = load_deploy_data(bundled_data_dir(o.plan.common) + "/deploy.json");
  serving_recipe(run->spec, data);
  if (!run->plan.feasible()) {
    ctx.log->error("nothing feasible: {}; nothing to deploy",
                   infeasible_because(run->plan).empty()
                       ? "no GPU configuration satisfies " + run->spec.file
                       : run->spec.file + ": " + infeasible_because(run->plan));
    return ExitCode::infeasible;
  }
  const DeployInputs inputs{
      run->constants, run->efficiency, &run->uncertainty, run->options.confidence, data};
  std::optional<Candidate> chosen;
  std::vector<std::string> lock_notes;
  if (locked) {
    chosen = locked_candidate(run->plan, *locked, lock_notes);
  } else {
    chosen = aggregated_instead(*run, data, lock_notes);
  }
  DeployReport report =
      make_deployment(run->plan, inputs, deploy_options(o), chosen ? &*chosen : nullptr);
  report.notes.insert(report.notes.begin(), lock_notes.begin(), lock_notes.end());
  for (const auto& note : report.notes) {
    ctx.log->warn("{}: {}", run->spec.file, note);
  }
  write_report(ctx, report, o.output_dir);
  return ExitCode::ok;
}

} // namespace

void register_deploy(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<DeployCliOptions>();
  auto* sub = app.add_subcommand(
      "deploy",
      "Write Kubernetes manifests for the plan's recommendation: the engine's Deployment (or "
      "LeaderWorkerSet), Service, PodDisruptionBudget and an autoscaler sized from the capacity "
      "model, or llm-d's DisaggregatedSet of a disaggregated recommendation's prefill and "
      "decode pools; docs/deploy.md");
  const DeployChecked checked = add_deploy_options(*sub, *o);
  sub->callback([&ctx, o, sub, checked]() {
    o->lock_given = checked.lock->count() > 0;
    o->autoscaler_given = checked.autoscaler->count() > 0;
    const nlohmann::json given = given_settings(*sub, o->plan.settings);
    check_options(*o, checked);
    ctx.action = [&ctx, o, given]() { return deploy(ctx, *o, given); };
  });
}

} // namespace rightsize::cli
