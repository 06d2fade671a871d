// rightsize deploy's manifests as YAML. Strings that YAML would read as another type ("40",
// "true", "1e3", "") are double-quoted, so a KEDA threshold stays the string Kubernetes wants.

#include <rightsize/core/units_format.hpp>
#include <rightsize/render/deploy.hpp>

#include <fmt/format.h>

#include <cctype>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace rightsize {

namespace {

// Whether a plain scalar would not read back as this string.
bool needs_quotes(const std::string& s) {
  if (s.empty()) {
    return true;
  }
  static const char* const special[] = {"true", "false", "yes", "no", "on", "off", "null",
                                        "True", "False", "Yes", "No", "On", "Off", "Null",
                                        "TRUE", "FALSE", "YES", "NO", "ON", "OFF", "NULL",
                                        "~",    "y",     "n",   "Y",  "N"};
  for (const char* word : special) {
    if (s == word) {
      return true;
    }
  }
  // Anything that starts like a number (digits, a sign or a point before a digit): YAML 1.1 and
  // 1.2 read many such forms as numbers or dates (0x1F, 1e3, 1_000, 12:30, 2026-11-21).
  const auto digit = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
  return digit(s[0]) ||
         (s.size() > 1 && std::string_view("+-.").find(s[0]) != std::string_view::npos &&
          digit(s[1]));
}

void emit(YAML::Emitter& out, const Node& n);

void emit_comment(YAML::Emitter& out, const Node& n) {
  if (!n.comment().empty()) {
    out << YAML::Comment(n.comment());
  }
}

void emit(YAML::Emitter& out, const Node& n) {
  switch (n.kind()) {
  case Node::Kind::map:
    out << YAML::BeginMap;
    for (const auto& [key, value] : n.entries()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, value);
    }
    out << YAML::EndMap;
    break;
  case Node::Kind::seq:
    out << YAML::BeginSeq;
    for (const auto& item : n.items()) {
      emit(out, item);
    }
    out << YAML::EndSeq;
    break;
  case Node::Kind::string:
    if (needs_quotes(n.text())) {
      out << YAML::DoubleQuoted << n.text();
    } else {
      out << n.text();
    }
    break;
  case Node::Kind::document:
    out << YAML::Literal << manifest_yaml(n.items().front());
    break;
  case Node::Kind::integer:
  case Node::Kind::number:
  case Node::Kind::boolean:
    out << n.text();
    break;
  }
  emit_comment(out, n);
}

std::string comment_lines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    out += line.empty() ? "#\n" : "# " + line + "\n";
  }
  return out;
}

} // namespace

std::string manifest_yaml(const Node& object) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  emit(out, object);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') {
    text += '\n';
  }
  return text;
}

namespace {

std::string layout_words(const Parallelism& p) {
  std::string layout = fmt::format("TP={}", p.tp);
  if (p.pp > 1) {
    layout += fmt::format(", PP={}", p.pp);
  }
  if (p.ep > 1) {
    layout += fmt::format(", EP={}", p.ep);
  }
  if (p.attention_dp > 1) {
    layout += fmt::format(", attention DP={}", p.attention_dp);
  }
  return layout;
}

// A disaggregated deployment's first lines: both pools, what each replica holds.
std::string disaggregated_header(const ServingSettings& p, const ServingSettings& d) {
  std::string text = fmt::format(
      "rightsize deploy: {} disaggregated as {} prefill + {} decode replicas of {} x {} ({}), "
      "{} {} under llm-d\n",
      d.name,
      p.replicas,
      d.replicas,
      d.gpus_per_replica,
      d.gpu,
      layout_words(d.layout),
      d.engine,
      d.engine_version);
  text += fmt::format("prefill replica: up to {} prompts at once (all that fit); it holds each "
                      "only until its KV cache is sent\n",
                      p.capacity_per_replica);
  text +=
      fmt::format("decode replica: up to {} concurrent sequences, {}; the plan runs {}\n",
                  d.capacity_per_replica,
                  d.latency_bound ? "the most at which the latency targets hold" : "all that fit",
                  d.planned_per_replica);
  text += fmt::format(
      "replicas: {} prefill and {} decode, fixed (no autoscaler)\n", p.replicas, d.replicas);
  return text;
}

// Where the weights come from, the cold start that follows, and what a pod asks of its node.
std::string weights_lines(const ServingSettings& s) {
  const auto& w = s.weights;
  std::string text;
  if (w.from_hub) {
    text +=
        fmt::format("weights: {} from the Hugging Face Hub{}{}\n",
                    s.model_uri,
                    w.cache == ModelCache::pvc ? fmt::format(" into PersistentVolumeClaim {} ({})",
                                                             w.cache_claim,
                                                             format_bytes(w.cache_size))
                                               : std::string(", by each pod (--model-cache none)"),
                    w.token ? fmt::format("; the token from Secret {} (key {}), which must exist",
                                          w.token->name,
                                          w.token->key)
                            : std::string());
  }
  if (w.from_hub && w.cache == ModelCache::pvc) {
    text += fmt::format("cold start: about {} ({} of weights per node from the cache, then the "
                        "engine's start); the first start downloads {} before it, about {}\n",
                        format_seconds(s.cold_start),
                        format_bytes(s.weights_read_per_node),
                        format_bytes(w.checkpoint),
                        format_seconds(w.download));
  } else if (w.from_hub) {
    text += fmt::format("cold start: about {} (every start downloads {}, about {}, then reads {} "
                        "per node and starts the engine)\n",
                        format_seconds(s.cold_start),
                        format_bytes(w.checkpoint),
                        format_seconds(w.download),
                        format_bytes(s.weights_read_per_node));
  } else {
    text += fmt::format("cold start: about {} ({} of weights per node, then the engine's start)\n",
                        format_seconds(s.cold_start),
                        format_bytes(s.weights_read_per_node));
  }
  text += fmt::format("per pod: {} vCPUs, {} of memory, {} of scratch disk besides its GPUs\n",
                      s.host.cpus,
                      format_bytes(s.host.memory),
                      format_bytes(s.host.ephemeral));
  return text;
}

} // namespace

std::string deploy_header(const DeployReport& report) {
  const ServingSettings& s = report.settings;
  const std::string layout = layout_words(s.layout);
  std::string text;
  if (report.prefill) {
    text = disaggregated_header(*report.prefill, s);
  } else {
    text = fmt::format("rightsize deploy: {} as {} replica{} of {} ({}), {} {}\n",
                       s.name,
                       s.replicas,
                       s.replicas > 1 ? "s" : "",
                       s.partition.empty()
                           ? fmt::format("{} x {}", s.gpus_per_replica, s.gpu)
                           : fmt::format("a {} MIG slice of an {}", s.partition, s.gpu),
                       layout,
                       s.engine,
                       s.engine_version);
    text += fmt::format(
        "per replica: {} on {} node{}; up to {} concurrent {}, {}; the plan runs {}\n",
        s.partition.empty()
            ? fmt::format("{} GPU{}", s.gpus_per_replica, s.gpus_per_replica > 1 ? "s" : "")
            : std::string("1 MIG slice"),
        s.nodes_per_replica,
        s.nodes_per_replica > 1 ? "s" : "",
        s.capacity_per_replica,
        s.images ? "images" : "sequences",
        s.latency_bound  ? "the most at which the latency targets hold"
        : s.engine_bound ? "the engine's cap on sequences (more fit)"
                         : "all that fit",
        s.planned_per_replica);
    if (s.autoscaled) {
      text += fmt::format("replicas: {} now; the autoscaler keeps them between {} and {} (the peak "
                          "month of the growth horizon)\n",
                          s.replicas,
                          s.min_replicas,
                          s.max_replicas);
    } else {
      text += fmt::format(
          "replicas: {}, fixed (no autoscaler){}\n",
          s.replicas,
          s.max_replicas > s.replicas
              ? fmt::format("; the peak month of the growth horizon needs {}", s.max_replicas)
              : "");
    }
  }
  text += weights_lines(s);
  for (const auto& note : report.notes) {
    text += "note: " + note + "\n";
  }
  text += "docs/deploy.md explains every number; apply with kubectl apply -f\n";
  return comment_lines(text);
}

void render_deploy_yaml(const DeployReport& report, std::ostream& out) {
  out << deploy_header(report);
  for (const Node& object : report.objects) {
    out << "---\n" << manifest_yaml(object);
  }
}

std::string manifest_file_name(const Node& object) {
  std::string kind;
  if (const Node* k = object.find("kind")) {
    for (const char ch : k->text()) {
      kind += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  const Node* name = object.at({"metadata", "name"});
  return kind + "-" + (name != nullptr ? name->text() : std::string("object")) + ".yaml";
}

} // namespace rightsize
