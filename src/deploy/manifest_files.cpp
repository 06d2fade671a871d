// The manifests written to a directory.

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/deploy/manifest_files.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

namespace rightsize {

namespace fs = std::filesystem;

namespace {

// What is already in `dir` that would be applied beside `files`, or replaced while not a file.
void refuse_stale(const std::vector<std::pair<fs::path, std::string>>& files,
                  const std::string& dir) {
  std::error_code ec;
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

} // namespace

void write_manifest_files(const std::vector<ManifestFile>& manifests, const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw InputError("--output", fmt::format("{} exists and is not a directory", dir));
  }
  std::vector<std::pair<fs::path, std::string>> files;
  for (const ManifestFile& m : manifests) {
    files.emplace_back(fs::path(dir) / m.name, m.text);
  }
  if (fs::is_directory(dir, ec)) {
    refuse_stale(files, dir);
  }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("--output", fmt::format("cannot create directory {}: {}", dir, ec.message()));
  }
  std::vector<std::pair<std::string, std::string>> writes;
  for (const auto& [path, text] : files) {
    writes.emplace_back(path.string(), text);
  }
  write_files_atomically(writes);
}

} // namespace rightsize
