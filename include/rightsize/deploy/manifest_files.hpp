#pragma once

// rightsize deploy -o DIR: the manifests written one file per object under a directory, for
// `kubectl apply -f DIR`.

#include <string>
#include <vector>

namespace rightsize {

// One file: its name under the directory ("deployment-llama-3-1-8b-chat.yaml") and its text.
struct ManifestFile {
  std::string name;
  std::string text;
};

// Writes each file under `dir` (created when missing), each atomically. Refused (InputError at
// --output) before anything is written: `dir` is a file; it already holds a .yaml, .yml or .json
// file not among `files`, which `kubectl apply -f DIR` would apply with them (an HPA left from an
// earlier run beside a new ScaledObject); one of `files` exists there and is not a regular file.
// The files of an earlier run with the same names are replaced.
void write_manifest_files(const std::vector<ManifestFile>& files, const std::string& dir);

} // namespace rightsize
