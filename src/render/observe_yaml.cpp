// rightsize observe's report as YAML (the JSON report's document, for the tools of a platform team
// that read YAML), and the patches of re-sized owners. docs/observe.md, "The report" and "Something
// to apply".

#include "observe_text.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/render/observe.hpp>

#include <fmt/format.h>

#include <cctype>
#include <yaml-cpp/yaml.h>

namespace rightsize {

namespace {

// Strings double-quoted (a pod named "1e3" or "no" stays a string), numbers in JSON's shortest
// form, null as null.
void emit_json(YAML::Emitter& out, const nlohmann::json& j) {
  switch (j.type()) {
  case nlohmann::json::value_t::object:
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key << key << YAML::Value;
      emit_json(out, value);
    }
    out << YAML::EndMap;
    break;
  case nlohmann::json::value_t::array:
    out << YAML::BeginSeq;
    for (const auto& item : j) {
      emit_json(out, item);
    }
    out << YAML::EndSeq;
    break;
  case nlohmann::json::value_t::string:
    // Names from the inputs may not be UTF-8: the JSON report's replacement character, as YAML
    // must be Unicode.
    out << YAML::DoubleQuoted << detail::valid_utf8(j.get<std::string>());
    break;
  case nlohmann::json::value_t::boolean:
    out << j.get<bool>();
    break;
  case nlohmann::json::value_t::null:
    out << YAML::Null;
    break;
  default: // numbers
    out << j.dump();
    break;
  }
}

} // namespace

void render_observe_yaml(const ObserveReport& report, std::ostream& out) {
  YAML::Emitter yaml;
  yaml.SetIndent(2);
  emit_json(yaml, observe_report_json(report));
  out << "# rightsize observe: the report (data/observe-report.schema.json, as YAML)\n"
      << yaml.c_str() << '\n';
}

std::string owner_patch_yaml(const OwnerPatch& p) {
  YAML::Emitter yaml;
  yaml.SetIndent(2);
  yaml << YAML::BeginMap;
  // The path from the object down to its pod spec, one map per key; the replicas in the first.
  for (std::size_t i = 0; i < p.pod_spec_path.size(); ++i) {
    yaml << YAML::Key << p.pod_spec_path[i] << YAML::Value << YAML::BeginMap;
    if (i == 0 && p.replicas) {
      yaml << YAML::Key << "replicas" << YAML::Value << *p.replicas;
    }
  }
  yaml << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap << YAML::Key << p.node_label
       << YAML::Value << YAML::DoubleQuoted << p.node_value << YAML::EndMap;
  yaml << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  yaml << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << p.owner.container;
  yaml << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (const char* side : {"limits", "requests"}) {
    yaml << YAML::Key << side << YAML::Value << YAML::BeginMap;
    yaml << YAML::Key << p.resource << YAML::Value << p.per_pod;
    if (!p.old_resource.empty()) {
      yaml << YAML::Key << p.old_resource << YAML::Value << YAML::Null; // removed
    }
    yaml << YAML::EndMap;
  }
  yaml << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  for (std::size_t i = 0; i < p.pod_spec_path.size(); ++i) {
    yaml << YAML::EndMap;
  }
  yaml << YAML::EndMap;
  std::string kind = p.owner.kind;
  for (char& c : kind) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const std::string replicas =
      p.replicas
          ? "# it sets spec.replicas: a HorizontalPodAutoscaler or ScaledObject that manages "
            "them sets its own bounds instead\n"
          : "";
  return fmt::format("# rightsize observe: {}\n"
                     "# kubectl patch {} {} -n {} --patch-file {}\n"
                     "{}{}\n",
                     p.why,
                     kind,
                     p.owner.name,
                     p.owner.namespace_name,
                     p.file_name,
                     replicas,
                     yaml.c_str());
}

} // namespace rightsize
