#pragma once

// Writing rightsize deploy's manifests as YAML (yaml-cpp's emitter), with each value's comment.

#include <rightsize/deploy/deploy.hpp>

#include <ostream>
#include <string>

namespace rightsize {

// One object as a YAML document (no "---").
std::string manifest_yaml(const Node& object);
// Every object as one multi-document stream, after a header of comments that summarize the
// settings (what was deployed, its capacity, cold start, the notes).
void render_deploy_yaml(const DeployReport& report, std::ostream& out);
// The header alone (the same comment lines), for the files written one per object.
std::string deploy_header(const DeployReport& report);
// "deployment-llama-3-1-8b-chat.yaml": the file name of one object under -o DIR.
std::string manifest_file_name(const Node& object);

} // namespace rightsize
