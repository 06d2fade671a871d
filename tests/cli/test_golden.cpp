// Golden CLI tests: each directory under tests/golden holds `args` (one line, split on spaces,
// paths relative to the repository root), and the expected `stdout.txt`, `stderr.txt` and
// `exit_code`. RIGHTSIZE_UPDATE_GOLDEN=1 rewrites the expected files; review the diff.

#include "cli_helpers.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Trailing whitespace on each line and trailing blank lines do not matter.
std::string normalize(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) {
      line.pop_back();
    }
    out += line + '\n';
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  return out;
}

std::vector<std::string> split_args(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> args;
  std::string a;
  while (in >> a) {
    args.push_back(a);
  }
  return args;
}

std::vector<std::string> golden_cases() {
  std::vector<std::string> cases;
  for (const auto& entry : fs::directory_iterator(fs::path(RIGHTSIZE_TESTS_DIR) / "golden")) {
    if (entry.is_directory() && fs::exists(entry.path() / "args")) {
      cases.push_back(entry.path().filename().string());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

struct WorkingDirectory {
  explicit WorkingDirectory(const fs::path& p) : previous(fs::current_path()) {
    fs::current_path(p);
  }
  ~WorkingDirectory() { fs::current_path(previous); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;
  fs::path previous;
};

} // namespace

TEST_CASE("golden: CLI output matches the expected files", "[golden][cli]") {
  const auto cases = golden_cases();
  REQUIRE(cases.size() >= 5);
  const bool update = std::getenv("RIGHTSIZE_UPDATE_GOLDEN") != nullptr;
  // Reports mark stale prices relative to today: golden files pin the day.
  ::setenv("RIGHTSIZE_TODAY", "2026-11-21", 1);
  ::unsetenv("RIGHTSIZE_CATALOG");
  const fs::path root = fs::path(RIGHTSIZE_TESTS_DIR).parent_path();
  for (const auto& name : cases) {
    DYNAMIC_SECTION(name) {
      const fs::path dir = fs::path(RIGHTSIZE_TESTS_DIR) / "golden" / name;
      const auto args = split_args(read_file(dir / "args"));
      rightsize::test::CliResult result;
      {
        WorkingDirectory cwd(root);
        result = rightsize::test::run_in_process(args);
      }
      // Absolute paths of this checkout become <root>, so the files hold in any clone.
      for (std::string* text : {&result.out, &result.err}) {
        const std::string prefix = fs::canonical(root).string();
        for (auto pos = text->find(prefix); pos != std::string::npos; pos = text->find(prefix)) {
          text->replace(pos, prefix.size(), "<root>");
        }
      }
      if (update) {
        std::ofstream(dir / "stdout.txt", std::ios::binary) << result.out;
        std::ofstream(dir / "stderr.txt", std::ios::binary) << result.err;
        std::ofstream(dir / "exit_code", std::ios::binary) << result.exit_code << '\n';
        continue;
      }
      CHECK(normalize(result.out) == normalize(read_file(dir / "stdout.txt")));
      CHECK(normalize(result.err) == normalize(read_file(dir / "stderr.txt")));
      CHECK(result.exit_code == std::stoi(read_file(dir / "exit_code")));
    }
  }
}
