#pragma once

// A scratch repository of specs for the check stage's tests: specs on the bundled Llama 3.1 8B
// chat example, checked with the library (run_check), never the CLI.

#include "test_paths.hpp"

#include <rightsize/check/run.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace rightsize::test {

class CheckRepo {
public:
  CheckRepo() {
    m_dir.write("config.json", R"({"schema_version": 1})");
    std::filesystem::create_directories(m_dir.path() + "/specs");
  }

  // A file of the specs' directory (the thresholds config lives beside it, not in it).
  [[nodiscard]] std::string path(const std::string& name) const {
    return m_dir.path() + "/specs/" + name;
  }
  [[nodiscard]] std::string config_path() const { return m_dir.path() + "/config.json"; }
  [[nodiscard]] std::string lock_path() const { return path("rightsize.lock.json"); }

  // The 8B chat example (2 x L40S-48GB in fp8 at $1.72/h), with `edit` applied.
  std::string write_spec(const std::string& name,
                         const std::function<void(nlohmann::json&)>& edit = {}) const {
    std::ifstream in(std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json");
    nlohmann::json spec = nlohmann::json::parse(in);
    spec["model"] = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/models/llama-3.1-8b/config.json";
    if (edit) {
      edit(spec);
    }
    return m_dir.write("specs/" + name, spec.dump(2));
  }
  // No GPU serves 100,000 output tokens/s on one GPU.
  std::string write_infeasible_spec(const std::string& name) const {
    return write_spec(name, [](nlohmann::json& s) {
      s["constraints"] = {{"max_gpus", 1}};
      s["workload"]["targets"]["output_tokens_per_s"] = 100000;
    });
  }

  // A request for `specs`, with the bundled data, an empty thresholds config (the defaults) and
  // a fixed date.
  [[nodiscard]] CheckRequest request(const std::vector<std::string>& specs) const {
    CheckRequest r;
    r.specs = specs;
    r.thresholds.config = config_path();
    r.data = {RIGHTSIZE_DATA_DIR, "", [] { return std::string("2026-12-01"); }};
    r.jobs = 1;
    return r;
  }
  static CheckRun check(const CheckRequest& r) {
    std::vector<CheckNote> notes;
    return run_check(r, notes);
  }
  // Locks `specs` as check --update does.
  void lock(const std::vector<std::string>& specs) const {
    CheckRequest r = request(specs);
    r.update = true;
    check(r);
  }

  [[nodiscard]] LockFile read_lock() const {
    return read_lock_file(lock_path(), /*allow_missing=*/false);
  }
  // Edits the lock's recommended configuration of `spec_file`.
  void edit_locked(const std::string& spec_file,
                   const std::function<void(LockedConfiguration&)>& edit) const {
    LockFile lock = read_lock();
    edit(*lock.entries.at(lock_key(spec_file)).recommended);
    write_lock_file(lock);
  }

private:
  ScratchDir m_dir;
};

} // namespace rightsize::test
