#pragma once

// Reading untrusted input files with limits, and writing the files people keep (locks, reports)
// so that a failure never leaves a truncated or half-written file behind. Contract:
// docs/reliability.md.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize {

// The largest JSON file rightsize reads (spec, config.json, catalog overlay, lock): 64 MiB.
inline constexpr std::size_t k_max_json_file_bytes = std::size_t{64} * 1024 * 1024;

// The whole content of `path`, which must be a regular file of at most `max_bytes` (or "-" for
// standard input, under the same cap). A FIFO, device, socket or directory is refused before it
// is opened, so that nothing blocks or reads forever. `what` names the input in the size error
// ("JSON input"). Throws InputError naming the path.
std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string_view what);

// read_input_file, unless the file's bytes are exactly `known` (not empty): then nullopt, the file
// compared as it is read, 16 KiB at a time, and never held whole. For the data files whose
// shipped bytes are compiled in (core/bundle.hpp): a file left as shipped costs a comparison,
// not a copy. The same errors as read_input_file.
std::optional<std::string> read_input_file_unless(const std::string& path,
                                                  std::string_view known,
                                                  std::size_t max_bytes,
                                                  std::string_view what);

// Writes `content` to `path` atomically: a temporary file in the same directory, written,
// flushed to disk and checked, then renamed over `path`. On any failure the temporary file is
// removed, `path` is left as it was, and an InputError names `path` and the reason. A new file
// gets mode 0666 minus the umask; an existing file keeps its mode.
void write_file_atomically(const std::string& path, std::string_view content);

// Writes several files as one: every file staged beside its target first, then each existing
// target kept under a second name (a hard link), then every staged file renamed over its target.
// A failure at any step removes what was staged and puts back every target as it was (a new one
// removed), then throws InputError naming the file. For `deploy -o DIR`: the directory holds the
// old manifests or the new ones, never a mix.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

// Whether two paths name the same existing file (false when either does not exist).
bool same_file(const std::string& a, const std::string& b);

} // namespace rightsize
