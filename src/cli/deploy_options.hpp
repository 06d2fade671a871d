#pragma once

// The options of `rightsize deploy` as its command line reads them, their checks beyond CLI11's,
// and the DeployOptions they make. cmd_deploy.cpp registers and runs the command. docs/deploy.md,
// "Options".

#include "cli/plan_setup.hpp"

#include <rightsize/deploy/deploy.hpp>

#include <CLI/App.hpp>

#include <string>

namespace rightsize::cli {

struct DeployCliOptions {
  PlanCliOptions plan;
  std::string engine;
  std::string autoscaler = "hpa";
  std::string name_space = "default";
  std::string image;
  std::string model_uri;
  std::string prometheus = "http://prometheus-operated.monitoring.svc:9090";
  std::string output_dir;
  std::string hf_token_secret;
  std::string model_cache = "pvc";
  std::string storage_class;
  std::string wake = "http-add-on";
  std::string wake_query;
  std::string topology_key;
  std::string rdma_resource;
  std::string adapter_values; // a file for prometheus-adapter's Helm chart's values
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
  CLI::Option* adapter_values = nullptr;
  CLI::Option* wake = nullptr;
  CLI::Option* wake_query = nullptr;
};

DeployChecked add_deploy_options(CLI::App& sub, DeployCliOptions& o);

// What the options say that CLI11 cannot check, refused (InputError) before anything is read:
// empty words, an output option with no directory, a Prometheus URL that is not http(s), a
// Secret or storage class name Kubernetes would refuse.
void check_options(const DeployCliOptions& o, const DeployChecked& checked);

// The library's options from the command line's.
DeployOptions deploy_options(const DeployCliOptions& o);

} // namespace rightsize::cli
