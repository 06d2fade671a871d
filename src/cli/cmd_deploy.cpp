#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/deploy_options.hpp"
#include "cli/plan_setup.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/check/locked.hpp>
#include <rightsize/core/files.hpp>
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
  if (!o.adapter_values.empty()) {
    if (!report.adapter_values) {
      throw InputError("--adapter-values",
                       "this deployment has no HPA (a disaggregated one has no autoscaler)");
    }
    write_file_atomically(o.adapter_values,
                          "# prometheus-adapter's Helm chart (prometheus-community/"
                          "prometheus-adapter): helm upgrade --install prometheus-adapter "
                          "prometheus-community/prometheus-adapter --reuse-values -f " +
                              o.adapter_values + "\n" + deploy_header(report) +
                              manifest_yaml(*report.adapter_values));
    ctx.log->info("wrote prometheus-adapter's values to {}", o.adapter_values);
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
