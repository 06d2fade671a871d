#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/render/deploy.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <sstream>

namespace rightsize::cli {

namespace fs = std::filesystem;

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
};

// Writes one file per object under `dir`, each with the header; the directory is created.
void write_objects(const DeployReport& report, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("--output", fmt::format("cannot create directory {}: {}", dir, ec.message()));
  }
  const std::string header = deploy_header(report);
  for (const Node& object : report.objects) {
    write_file_atomically((fs::path(dir) / manifest_file_name(object)).string(),
                          header + manifest_yaml(object));
  }
}

} // namespace

void register_deploy(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<DeployCliOptions>();
  auto* sub = app.add_subcommand(
      "deploy",
      "Write Kubernetes manifests for the plan's recommendation: the engine's Deployment (or "
      "LeaderWorkerSet), Service, PodDisruptionBudget and an autoscaler sized from the capacity "
      "model; docs/deploy.md");
  sub->add_option("SPEC", o->plan.spec, "A rightsize spec or a Hugging Face config.json (serving)")
      ->required();
  add_plan_options(*sub, o->plan);
  auto* k8s = "Kubernetes";
  sub->add_option("--engine", o->engine, "Serving engine: vllm, sglang or tensorrt-llm (default: the spec's)")
      ->check(CLI::IsMember({"vllm", "sglang", "tensorrt-llm"}))
      ->group(k8s);
  sub->add_option("--autoscaler",
                  o->autoscaler,
                  "hpa (GPU metric through prometheus-adapter), keda (the engine's queue through "
                  "Prometheus) or none")
      ->check(CLI::IsMember({"hpa", "keda", "none"}))
      ->default_str("hpa")
      ->group(k8s);
  sub->add_option("--namespace", o->name_space, "Namespace of every object")
      ->default_str("default")
      ->group(k8s);
  sub->add_option("--image", o->image, "Container image (default: the engine's, data/deploy.json)")
      ->group(k8s);
  sub->add_option("--model-uri",
                  o->model_uri,
                  "The checkpoint to serve: a Hugging Face id or a path on a mounted volume "
                  "(default: the config's _name_or_path)")
      ->group(k8s);
  sub->add_option("--prometheus", o->prometheus, "Prometheus URL that KEDA queries")
      ->default_str(o->prometheus)
      ->group(k8s);
  sub->add_option("-o,--output",
                  o->output_dir,
                  "Write one file per object under DIR instead of one YAML stream to stdout")
      ->type_name("DIR");
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      if (o->name_space != dns_label(o->name_space)) {
        throw InputError("--namespace",
                         fmt::format("must be a DNS-1123 label (lower case letters, digits, '-'), "
                                     "got \"{}\"",
                                     o->name_space));
      }
      const auto run = run_plan(o->plan, ctx, [&](Spec& spec) {
        if (!o->engine.empty()) {
          spec.workload.inference.engine = o->engine == "vllm"     ? Engine::vllm
                                           : o->engine == "sglang" ? Engine::sglang
                                                                   : Engine::tensorrt_llm;
        }
      });
      const DeployData data = load_deploy_data(bundled_data_dir() + "/deploy.json");
      const std::string engine(to_string(run->spec.workload.inference.engine));
      if (data.engines.count(engine) == 0) {
        throw InputError(run->spec.file + ":/workload/engine",
                         fmt::format("engine {} has no serving recipe in data/deploy.json; "
                                     "deploy with --engine vllm, sglang or tensorrt-llm",
                                     engine));
      }
      if (!run->plan.feasible()) {
        ctx.log->error("nothing feasible: no GPU configuration satisfies {}; nothing to deploy",
                       run->spec.file);
        return ExitCode::infeasible;
      }
      DeployOptions options;
      options.autoscaler = o->autoscaler == "keda"   ? Autoscaler::keda
                           : o->autoscaler == "none" ? Autoscaler::none
                                                     : Autoscaler::hpa;
      options.name_space = o->name_space;
      options.image = o->image;
      options.model_uri = o->model_uri;
      options.prometheus = o->prometheus;
      const DeployInputs inputs{run->constants,
                                run->efficiency,
                                &run->uncertainty,
                                run->options.confidence,
                                data};
      const DeployReport report = make_deployment(run->plan, inputs, options);
      for (const auto& note : report.notes) {
        ctx.log->warn("{}: {}", run->spec.file, note);
      }
      if (o->output_dir.empty()) {
        std::ostringstream out;
        render_deploy_yaml(report, out);
        ctx.out << out.str();
      } else {
        write_objects(report, o->output_dir);
        ctx.log->info("wrote {} manifests under {}", report.objects.size(), o->output_dir);
      }
      return ExitCode::ok;
    };
  });
}

} // namespace rightsize::cli
