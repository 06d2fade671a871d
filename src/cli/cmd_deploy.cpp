#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/deploy/deploy.hpp>
#include <rightsize/render/deploy.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
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
  std::string lock;
  bool lock_given = false;
};

// The lock's recommended configuration among the plan's candidates (the plan was made with the
// locked precision): the same GPU and layout, at the lock's replicas.
Candidate locked_candidate(const Plan& plan,
                           const LockedConfiguration& l,
                           const std::string& lock_path,
                           std::vector<std::string>& notes) {
  for (const Candidate& c : plan.candidates) {
    if (c.gpu->name == l.gpu && c.layout.tp == l.layout.tp && c.layout.pp == l.layout.pp &&
        c.layout.ep == l.layout.ep && to_string(c.spec->precision.weights) == l.weights &&
        to_string(c.spec->precision.kv_cache) == l.kv_cache) {
      Candidate out = c;
      if (c.replicas != l.replicas) {
        notes.push_back(fmt::format("{}: the spec now needs {} replicas of the locked "
                                    "configuration, the lock says {}: deploying {} (rightsize "
                                    "check reports the change)",
                                    lock_path,
                                    c.replicas,
                                    l.replicas,
                                    l.replicas));
        out.replicas = l.replicas;
      }
      return out;
    }
  }
  throw InputError(lock_path,
                   fmt::format("the locked configuration, {}, is no longer one the plan finds "
                               "for the spec as it is now; see rightsize check, and re-lock "
                               "with rightsize check --update",
                               configuration_text(l)));
}

// Writes one file per object under `dir`, each with the header; the directory is created. A
// directory holding other manifests is refused: `kubectl apply -f DIR` would apply them too
// (an HPA left from an earlier run beside a new ScaledObject).
void write_objects(const DeployReport& report, const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw InputError("--output", fmt::format("{} exists and is not a directory", dir));
  }
  std::vector<std::pair<fs::path, std::string>> files;
  const std::string header = deploy_header(report);
  for (const Node& object : report.objects) {
    files.emplace_back(fs::path(dir) / manifest_file_name(object), header + manifest_yaml(object));
  }
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const auto ours = std::find_if(files.begin(), files.end(), [&](const auto& f) {
        return f.first.filename() == entry.path().filename();
      });
      if (ours == files.end()) {
        const auto ext = entry.path().extension();
        if (ext == ".yaml" || ext == ".yml" || ext == ".json") {
          throw InputError("--output",
                           fmt::format("{} already holds {}, which kubectl apply -f would apply "
                                       "with these manifests; write to a new or empty directory",
                                       dir,
                                       entry.path().filename().string()));
        }
      } else if (!entry.is_regular_file()) {
        throw InputError("--output",
                         fmt::format("{} exists and is not a file", entry.path().string()));
      }
    }
  }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("--output", fmt::format("cannot create directory {}: {}", dir, ec.message()));
  }
  for (const auto& [path, text] : files) {
    write_file_atomically(path.string(), text);
  }
}

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

} // namespace

void register_deploy(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<DeployCliOptions>();
  auto* sub = app.add_subcommand(
      "deploy",
      "Write Kubernetes manifests for the plan's recommendation: the engine's Deployment (or "
      "LeaderWorkerSet), Service, PodDisruptionBudget and an autoscaler sized from the capacity "
      "model; docs/deploy.md");
  sub->add_option("SPEC",
                  o->plan.spec,
                  "A rightsize spec, a Hugging Face config.json or a model folder (serving)")
      ->required();
  add_catalog_option(*sub, o->plan.common);
  add_plan_options(*sub, o->plan);
  auto* k8s = "Kubernetes";
  sub->add_option("--engine",
                  o->engine,
                  "Serving engine: vllm, sglang or tensorrt-llm (default: the spec's)")
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
  CLI::Option* image_option =
      sub->add_option(
             "--image", o->image, "Container image (default: the engine's, data/deploy.json)")
          ->group(k8s);
  CLI::Option* uri_option =
      sub->add_option("--model-uri",
                      o->model_uri,
                      "The checkpoint to serve: a Hugging Face id or a path on a mounted volume "
                      "(default: the config's _name_or_path)")
          ->group(k8s);
  sub->add_option("--prometheus", o->prometheus, "Prometheus URL that KEDA queries")
      ->default_str(o->prometheus)
      ->group(k8s);
  CLI::Option* lock_option =
      sub->add_option("--lock",
                      o->lock,
                      "Deploy the configuration locked for this spec (rightsize plan --lock; "
                      "default: rightsize.lock.json beside the spec) instead of a fresh plan's")
          ->expected(0, 1)
          ->type_name("[FILE]");
  CLI::Option* output_option =
      sub->add_option("-o,--output",
                      o->output_dir,
                      "Write one file per object under DIR instead of one YAML stream to stdout")
          ->type_name("DIR");
  sub->callback([&ctx, o, sub, lock_option, image_option, uri_option, output_option]() {
    o->lock_given = lock_option->count() > 0;
    const nlohmann::json given = given_settings(*sub, o->plan);
    require_word(image_option, o->image, "--image");
    require_word(uri_option, o->model_uri, "--model-uri");
    if (output_option->count() > 0 && o->output_dir.empty()) {
      throw InputError("--output", "must name a directory");
    }
    const auto& url = o->prometheus;
    const auto scheme = url.find("://");
    if ((url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) ||
        url.size() <= scheme + 3) {
      throw InputError("--prometheus",
                       fmt::format("must be an http:// or https:// URL, got \"{}\"", url));
    }
    ctx.action = [&ctx, o, given]() {
      if (o->name_space != dns_label(o->name_space)) {
        throw InputError("--namespace",
                         fmt::format("must be a DNS-1123 label (at most 63 lower-case letters, "
                                     "digits and '-', starting and ending with a letter or digit), "
                                     "got \"{}\"",
                                     o->name_space));
      }
      // A locked configuration: its entry, and the plan made with its precision.
      std::optional<LockedConfiguration> locked;
      std::string lock_path;
      if (o->lock_given) {
        lock_path = o->lock.empty()
                        ? (fs::path(o->plan.spec).parent_path() / "rightsize.lock.json").string()
                        : o->lock;
        const LockFile lock = read_lock_file(lock_path, /*allow_missing=*/false);
        const auto it = lock.entries.find(lock_key(o->plan.spec));
        if (it == lock.entries.end()) {
          throw InputError(lock_path,
                           "has no lock for " + lock_key(o->plan.spec) +
                               "; create it with 'rightsize plan " + o->plan.spec + " --lock'");
        }
        if (!it->second.recommended) {
          throw InputError(lock_path,
                           "locks no configuration for " + lock_key(o->plan.spec) +
                               ": nothing was feasible when it was written");
        }
        locked = it->second.recommended;
        // The settings the lock was planned with (docs/ci.md), the command line's over them.
        if (!it->second.settings.is_null()) {
          nlohmann::json settings = it->second.settings;
          for (const auto& [key, value] : given.items()) {
            settings[key] = value;
          }
          PlanCliOptions replayed = settings_from_json(
              settings,
              lock_path,
              "/locks/" + detail::escape_pointer_token(lock_key(o->plan.spec)) + "/settings");
          replayed.common = o->plan.common;
          replayed.spec = o->plan.spec;
          o->plan = replayed;
        }
      }
      const auto adjust = [&](Spec& spec) {
        if (!o->engine.empty()) {
          spec.workload.inference.engine = *k_engine_names.find(o->engine);
          if (const auto refused =
                  image_engine_refusal(spec.model, spec.workload.inference.engine)) {
            throw InputError("--engine", fmt::format("{}, got \"{}\"", *refused, o->engine));
          }
        }
        if (locked) {
          const auto dtype = [&](const std::string& name, const char* field) {
            const auto d = parse_dtype(name);
            if (!d) {
              throw InputError(lock_path + ":" + field, "unknown format \"" + name + "\"");
            }
            return *d;
          };
          // The checkpoint stays as stored; the locked format is the one allowed variant.
          const DType weights = dtype(locked->weights, "weights");
          dtype(locked->kv_cache, "kv_cache");
          spec.precision.allow.clear();
          if (weights != spec.precision.weights) {
            spec.precision.allow.push_back(weights);
          }
        }
      };
      const ScopedData<PlanRun> run(ctx, run_plan(o->plan, ctx, adjust));
      const DeployData data = load_deploy_data(bundled_data_dir() + "/deploy.json");
      serving_recipe(run->spec, data);
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
      const DeployInputs inputs{
          run->constants, run->efficiency, &run->uncertainty, run->options.confidence, data};
      std::optional<Candidate> chosen;
      std::vector<std::string> lock_notes;
      if (locked && run->plan.feasible()) {
        chosen = locked_candidate(run->plan, *locked, lock_path, lock_notes);
      }
      DeployReport report =
          make_deployment(run->plan, inputs, options, chosen ? &*chosen : nullptr);
      report.notes.insert(report.notes.begin(), lock_notes.begin(), lock_notes.end());
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
