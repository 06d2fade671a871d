// rightsize compare: published runs beside rightsize's prediction of each
// (include/rightsize/render/compare.hpp, docs/published.md).

#include "csv.hpp"
#include "plan_text.hpp"
#include "published_text.hpp"

#include <rightsize/core/json_writer.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/compare.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace rightsize {

namespace {

constexpr std::size_t k_width = 80;

std::string billions(double params) {
  return fmt::format("{:.1f}B", params / 1e9);
}

// "TP2", "TP1 PP8", "TP8 EP8"; a star when the source does not publish it.
std::string layout_cell(const PublishedPrediction& p) {
  const auto& l = p.layout;
  std::string s = fmt::format("TP{}", l.tp);
  if (l.pp > 1) {
    s += fmt::format(" PP{}", l.pp);
  }
  if (l.ep > 1) {
    s += fmt::format(" EP{}", l.ep);
  }
  return p.layout_chosen ? s + "*" : s;
}

// "fp8", "fp4/fp8", and "?" after a KV format the source does not state.
std::string formats_cell(const PublishedPrediction& p) {
  if (p.weights == "?") { // nothing to assume a KV cache for
    return "?";
  }
  const std::string kv = p.kv_cache + (p.kv_cache_assumed ? "?" : "");
  return p.weights == kv ? p.weights : p.weights + "/" + kv;
}

std::string scenario_cell(PublishedScenario s) {
  return s == PublishedScenario::interactive    ? "interact"
         : s == PublishedScenario::static_batch ? "static"
                                                : to_string(s);
}

std::string lengths_cell(const PublishedResult& r) {
  return fmt::format("{}{}/{}",
                     r.mean_lengths ? "~" : "",
                     r.input_tokens > 0 ? std::to_string(r.input_tokens) : "?",
                     r.output_tokens);
}

std::string error_cell(const PublishedPrediction& p) {
  if (!p.predicted) {
    return "-";
  }
  return fmt::format("{:+.0f}%", 100.0 * p.error());
}

std::string percent(double share) {
  return fmt::format("{:.0f}%", 100.0 * share);
}

std::string signed_percent(double share) {
  return fmt::format("{:+.0f}%", 100.0 * share);
}

std::string architecture_line(const Comparison& c) {
  const auto& m = *c.model;
  std::string also;
  for (const auto& name : m.same_architecture) {
    also += (also.empty() ? "" : ", ") + name;
  }
  return fmt::format("{}: {}, the architecture of {} ({} parameters){}",
                     c.spec_name,
                     c.spec_model,
                     m.name,
                     billions(m.parameters),
                     also.empty() ? "" : "; also " + also);
}

std::string summary_line(const PublishedSummary& s) {
  if (s.runs == 0) {
    return fmt::format("{}: no run predicted", s.scenario);
  }
  return fmt::format("{}: median |error| {} over {} run{}, median error {} ({})",
                     s.scenario,
                     percent(s.median_abs_error),
                     s.runs,
                     s.runs == 1 ? "" : "s",
                     signed_percent(s.median_error),
                     s.median_error >= 0 ? "rightsize above the published figure"
                                         : "rightsize below the published figure");
}

std::string no_match_line(const Comparison& c) {
  std::string models;
  for (const auto& m : c.published_models) {
    models += (models.empty() ? "" : ", ") + m;
  }
  return fmt::format("{}: no published run has the architecture of {} (published: {}); "
                     "rightsize compare --list shows them",
                     c.spec_name,
                     c.spec_model,
                     models);
}

std::map<std::string, int> source_numbers(const Comparison& c) {
  std::map<std::string, int> numbers;
  for (const auto& s : c.sources) {
    numbers.emplace(s.key, static_cast<int>(numbers.size()) + 1);
  }
  return numbers;
}

struct Column {
  std::string header;
  bool right = false;
  std::vector<std::string> cells;
};

void print_columns(const std::vector<Column>& columns, std::ostream& out) {
  std::vector<std::size_t> widths;
  for (const auto& col : columns) {
    std::size_t w = col.header.size();
    for (const auto& cell : col.cells) {
      w = std::max(w, cell.size());
    }
    widths.push_back(w);
  }
  const std::size_t rows = columns.empty() ? 0 : columns.front().cells.size();
  for (std::size_t r = 0; r <= rows; ++r) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& text = r == 0 ? columns[i].header : columns[i].cells[r - 1];
      const std::string pad(widths[i] - text.size(), ' ');
      line += (i == 0 ? "" : " ") + (columns[i].right ? pad + text : text + pad);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out << line << '\n';
  }
}

} // namespace

void write_published_json(detail::JsonWriter& w, const PublishedPrediction& p) {
  const auto& r = p.result;
  w.begin_object();
  if (p.band) {
    w.key("band").begin_array().value(p.band->low).value(p.band->high).end_array();
  } else {
    w.key("band").null();
  }
  w.member("batch", r.batch).member("batch_predicted", p.batch);
  if (p.calibration) {
    w.key("calibration")
        .begin_object()
        .member("measured", p.calibration->measured)
        .member("text", p.calibration->text)
        .end_object();
  } else {
    w.key("calibration").null();
  }
  w.member("engine", r.engine).member("engine_version", r.engine_version).key("error");
  if (p.predicted) {
    w.value(p.error());
  } else {
    w.null();
  }
  w.member("gpu", r.gpu)
      .member("gpus", r.gpus)
      .member("id", r.id)
      .member("input_tokens", r.input_tokens)
      .member("kv_cache", p.kv_cache)
      .member("kv_cache_assumed", p.kv_cache_assumed)
      .key("layout")
      .begin_object()
      .member("ep", p.layout.ep)
      .member("pp", p.layout.pp)
      .member("tp", p.layout.tp)
      .end_object()
      .member("layout_published", !p.layout_chosen)
      .member("lengths", r.mean_lengths ? "mean" : "fixed")
      .member("location", r.location)
      .member("model_name", r.model_name)
      .member("output_tokens", r.output_tokens)
      .member("predicted_output_tokens_per_s", p.predicted)
      .member("published_output_tokens_per_s", r.output_tokens_per_s)
      .member("replicas", p.replicas)
      .member("scenario", to_string(r.scenario))
      .member("source", r.source)
      .member("system", r.system)
      .member("tpot_limit_ms", r.tpot_ms)
      .member("ttft_limit_ms", r.ttft_ms)
      .member("unpredicted", p.unpredicted)
      .member("weights", p.weights)
      .end_object();
}

std::string published_line(const PublishedPrediction& p) {
  const auto& r = p.result;
  const std::string run = fmt::format("{} x {} {}, {}, {} {} {}{}/{} tokens",
                                      r.gpus,
                                      r.gpu,
                                      r.tp ? layout_cell(p) : "(layout not published)",
                                      p.weights,
                                      r.engine,
                                      to_string(r.scenario),
                                      r.mean_lengths ? "~" : "",
                                      r.input_tokens,
                                      r.output_tokens);
  const std::string published =
      fmt::format("published, a run like this one: {}: {} output tokens/s ({})",
                  run,
                  format_count(r.output_tokens_per_s),
                  r.source);
  if (!p.predicted) {
    return published + "; rightsize does not predict it: " + p.unpredicted;
  }
  return fmt::format(
      "{}; rightsize predicts {}{} for it: {}",
      published,
      format_count(*p.predicted),
      p.band ? fmt::format(" ({}-{})", format_count(p.band->low), format_count(p.band->high)) : "",
      error_cell(p));
}

void render_compare_table(const Comparison& c, std::ostream& out) {
  if (!c.model) {
    out << wrap(no_match_line(c), k_width, 2) << '\n';
    return;
  }
  out << wrap(architecture_line(c), k_width, 2) << '\n';
  if (c.rows.empty()) {
    out << "no published run of it matches the filters\n";
    return;
  }
  out << wrap("published runs of this architecture and rightsize's prediction of each run: "
              "output tokens/s of all the run's GPUs",
              k_width,
              0)
      << "\n\n";
  const auto numbers = source_numbers(c);
  std::vector<Column> cols{{"GPU", false, {}},
                           {"GPUS", true, {}},
                           {"LAYOUT", false, {}},
                           {"W/KV", false, {}},
                           {"SCENARIO", false, {}},
                           {"IN/OUT", true, {}},
                           {"PUBLISHED", true, {}},
                           {"RIGHTSIZE", true, {}},
                           {"ERROR", true, {}},
                           {"SRC", true, {}}};
  bool chosen = false;
  bool mean = false;
  for (const auto& p : c.rows) {
    const auto& r = p.result;
    chosen = chosen || (p.layout_chosen && p.predicted);
    mean = mean || r.mean_lengths;
    cols[0].cells.push_back(r.gpu);
    cols[1].cells.push_back(std::to_string(r.gpus));
    cols[2].cells.push_back(p.predicted || r.tp ? layout_cell(p) : "-");
    cols[3].cells.push_back(formats_cell(p));
    cols[4].cells.push_back(scenario_cell(r.scenario));
    cols[5].cells.push_back(lengths_cell(r));
    cols[6].cells.push_back(format_count(r.output_tokens_per_s));
    cols[7].cells.push_back(p.predicted ? format_count(*p.predicted) : "-");
    cols[8].cells.push_back(error_cell(p));
    cols[9].cells.push_back(std::to_string(numbers.at(r.source)));
  }
  print_columns(cols, out);
  if (chosen) {
    out << wrap("* layout not published: the tensor-parallel size of the run's GPUs that "
                "rightsize predicts fastest",
                k_width,
                2)
        << '\n';
  }
  if (mean) {
    out << wrap(
               "~ lengths are the benchmark dataset's means; requests vary around them", k_width, 2)
        << '\n';
  }
  if (std::any_of(c.rows.begin(), c.rows.end(), [](const auto& p) { return p.kv_cache_assumed; })) {
    out << wrap("? KV cache format not published: the engine's default with those weights "
                "(docs/published.md)",
                k_width,
                2)
        << '\n';
  }
  out << '\n';
  for (const auto& s : c.summary) {
    out << wrap(summary_line(s), k_width, 2) << '\n';
  }
  std::vector<const PublishedPrediction*> unpredicted;
  for (const auto& p : c.rows) {
    if (!p.predicted) {
      unpredicted.push_back(&p);
    }
  }
  if (!unpredicted.empty()) {
    out << "\nnot predicted:\n";
    for (const auto* p : unpredicted) {
      out << wrap(fmt::format("  {} ({} x {}): {}",
                              p->result.id,
                              p->result.gpus,
                              p->result.gpu,
                              p->unpredicted),
                  k_width,
                  4)
          << '\n';
    }
  }
  out << "\nsources:\n";
  for (const auto& s : c.sources) {
    out << wrap(fmt::format("  {} {}: {}{}, {}",
                            numbers.at(s.key),
                            s.key,
                            s.title,
                            s.engine_version.empty() ? "" : " (" + s.engine_version + ")",
                            s.date),
                k_width,
                4)
        << '\n'
        << wrap("    " + s.method, k_width, 4) << '\n'
        << "    " << s.url << '\n';
  }
  out << '\n'
      << wrap("how: each run predicted on the spec's model with the run's GPU, layout, engine, "
              "formats and lengths; offline at the largest batch that fits, server and "
              "interactive at the most sequences whose TTFT and TPOT stay within the "
              "scenario's limits, static at the run's batch (docs/published.md)",
              k_width,
              2)
      << '\n';
}

void render_compare_json(const Comparison& c, std::ostream& out) {
  std::string text;
  detail::JsonWriter w(text);
  w.begin_object();
  if (c.model) {
    const auto& m = *c.model;
    w.key("model")
        .begin_object()
        .member("key", m.key)
        .member("name", m.name)
        .member("parameters", m.parameters)
        .member("same_architecture", m.same_architecture)
        .end_object();
  } else {
    w.key("model").null();
  }
  w.member("published_models", c.published_models).key("rows").begin_array();
  for (const auto& p : c.rows) {
    write_published_json(w, p);
  }
  w.end_array().member("schema_version", 1).key("sources").begin_array();
  for (const auto& s : c.sources) {
    w.begin_object()
        .member("date", s.date)
        .member("engine_version", s.engine_version)
        .member("key", s.key)
        .member("method", s.method)
        .member("title", s.title)
        .member("url", s.url)
        .end_object();
  }
  w.end_array()
      .key("spec")
      .begin_object()
      .member("model", c.spec_model)
      .member("name", c.spec_name)
      .end_object()
      .key("summary")
      .begin_array();
  for (const auto& s : c.summary) {
    w.begin_object()
        .member("median_abs_error", s.median_abs_error)
        .member("median_error", s.median_error)
        .member("runs", s.runs)
        .member("scenario", s.scenario)
        .end_object();
  }
  w.end_array().end_object();
  out << text << '\n';
}

void render_compare_markdown(const Comparison& c, std::ostream& out) {
  if (!c.model) {
    out << no_match_line(c) << '\n';
    return;
  }
  out << "### Published runs: " << c.model->name << "\n\n" << architecture_line(c) << "\n\n";
  if (c.rows.empty()) {
    out << "No published run of it matches the filters.\n";
    return;
  }
  const auto numbers = source_numbers(c);
  out << "| GPU | GPUs | layout | weights/KV | engine | scenario | in/out | published tok/s | "
         "rightsize tok/s | error | source |\n"
      << "|---|---:|---|---|---|---|---:|---:|---:|---:|---|\n";
  for (const auto& p : c.rows) {
    const auto& r = p.result;
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | [{}] |\n",
                       r.gpu,
                       r.gpus,
                       p.predicted || r.tp ? layout_cell(p) : "-",
                       formats_cell(p),
                       r.engine,
                       to_string(r.scenario),
                       lengths_cell(r),
                       format_count(r.output_tokens_per_s),
                       p.predicted ? format_count(*p.predicted) : "-",
                       p.predicted ? error_cell(p) : "not predicted: " + p.unpredicted,
                       numbers.at(r.source));
  }
  out << '\n';
  for (const auto& s : c.summary) {
    out << "- " << summary_line(s) << '\n';
  }
  out << '\n';
  for (const auto& s : c.sources) {
    out << fmt::format("[{}]: {} {}{}, {}. {} <{}>\n",
                       numbers.at(s.key),
                       s.key,
                       s.title,
                       s.engine_version.empty() ? "" : " (" + s.engine_version + ")",
                       s.date,
                       s.method,
                       s.url);
  }
}

void render_compare_csv(const Comparison& c, std::ostream& out) {
  out << "id,source,gpu,gpus,tp,pp,ep,layout_published,weights,kv_cache,engine,scenario,"
         "input_tokens,output_tokens,lengths,published_output_tokens_per_s,"
         "predicted_output_tokens_per_s,band_low,band_high,error,unpredicted\n";
  for (const auto& p : c.rows) {
    const auto& r = p.result;
    const auto number = [](std::optional<double> v) {
      return v ? fmt::format("{:.6g}", *v) : std::string();
    };
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(r.id),
                       csv_escape(r.source),
                       csv_escape(r.gpu),
                       r.gpus,
                       p.layout.tp,
                       p.layout.pp,
                       p.layout.ep,
                       p.layout_chosen ? "false" : "true",
                       p.weights,
                       p.kv_cache,
                       r.engine,
                       to_string(r.scenario),
                       r.input_tokens,
                       r.output_tokens,
                       r.mean_lengths ? "mean" : "fixed",
                       number(r.output_tokens_per_s),
                       number(p.predicted),
                       number(p.band ? std::optional<double>(p.band->low) : std::nullopt),
                       number(p.band ? std::optional<double>(p.band->high) : std::nullopt),
                       p.predicted ? fmt::format("{:.4f}", p.error()) : std::string(),
                       csv_escape(p.unpredicted));
  }
}

void render_published_models_table(const PublishedData& data, std::ostream& out) {
  std::vector<Column> cols{{"MODEL", false, {}},
                           {"PARAMETERS", true, {}},
                           {"RUNS", true, {}},
                           {"SAME ARCHITECTURE", false, {}}};
  std::vector<std::string> gpu_lines;
  for (const auto& m : data.models) {
    int runs = 0;
    std::vector<std::string> gpus;
    for (const auto& r : data.results) {
      if (r.model == m.key) {
        ++runs;
        if (std::find(gpus.begin(), gpus.end(), r.gpu) == gpus.end()) {
          gpus.push_back(r.gpu);
        }
      }
    }
    std::string also;
    for (const auto& n : m.same_architecture) {
      also += (also.empty() ? "" : ", ") + n;
    }
    std::sort(gpus.begin(), gpus.end());
    std::string gpu_list;
    for (const auto& g : gpus) {
      gpu_list += (gpu_list.empty() ? "" : ", ") + g;
    }
    cols[0].cells.push_back(m.key);
    cols[1].cells.push_back(billions(m.parameters));
    cols[2].cells.push_back(std::to_string(runs));
    cols[3].cells.push_back(also.empty() ? "-" : also);
    gpu_lines.push_back(wrap("  on " + gpu_list, k_width, 5));
  }
  std::ostringstream table;
  print_columns(cols, table);
  std::istringstream lines(table.str());
  std::string line;
  std::getline(lines, line);
  out << line << '\n';
  for (const auto& gpu_line : gpu_lines) {
    std::getline(lines, line);
    out << line << '\n' << gpu_line << '\n';
  }
  // The index's path on a line of its own: wrapped inside a sentence, its length would move the
  // line breaks from one checkout to another.
  out << '\n'
      << wrap(fmt::format("{} published runs from {} sources; rightsize compare SPEC shows the "
                          "runs of a spec's model beside rightsize's prediction of each",
                          data.results.size(),
                          data.sources.size()),
              k_width,
              0)
      << "\nindex: " << data.index_file << '\n';
}

void render_published_models_json(const PublishedData& data, std::ostream& out) {
  std::string text;
  detail::JsonWriter w(text);
  w.begin_object().key("models").begin_array();
  for (const auto& m : data.models) {
    long long runs = 0;
    for (const auto& r : data.results) {
      runs += r.model == m.key ? 1 : 0;
    }
    w.begin_object()
        .member("key", m.key)
        .member("name", m.name)
        .member("parameters", m.parameters)
        .member("runs", runs)
        .member("same_architecture", m.same_architecture)
        .end_object();
  }
  w.end_array().member("results", static_cast<long long>(data.results.size()));
  w.member("schema_version", 1).key("sources").begin_array();
  for (const auto& [key, s] : data.sources) {
    w.begin_object()
        .member("date", s.date)
        .member("engine_version", s.engine_version)
        .member("key", s.key)
        .member("method", s.method)
        .member("title", s.title)
        .member("url", s.url)
        .end_object();
  }
  w.end_array().end_object();
  out << text << '\n';
}

} // namespace rightsize
