#pragma once

// Paths of test fixtures and a scratch directory that removes itself.

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace rightsize::test {

inline std::string config_path(const std::string& model) {
  return std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/" + model + "/config.json";
}

class ScratchDir {
public:
  ScratchDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("rightsize-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] std::string path() const { return m_path.string(); }
  // Writes `content` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto p = m_path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

private:
  std::filesystem::path m_path;
};

} // namespace rightsize::test
