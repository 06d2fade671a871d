#pragma once

// For parsers whose public entry point reads a file: the input goes to one temporary file per
// process, rewritten for each run.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace rightsize::fuzz {

inline const std::string& temp_path(const char* suffix) {
  static const std::string path = [&] {
    std::string p = std::string("/tmp/rightsize-fuzz-XXXXXX") + suffix;
    const int fd = ::mkstemps(p.data(), static_cast<int>(std::string_view(suffix).size()));
    if (fd < 0) {
      std::abort();
    }
    ::close(fd);
    std::atexit([] { std::remove(temp_path("").c_str()); });
    return p;
  }();
  return path;
}

inline const std::string& write_temp(std::string_view content, const char* suffix) {
  const std::string& path = temp_path(suffix);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

} // namespace rightsize::fuzz
