// Engine and GPU-generation format support (docs/catalog.md, "Engine support").

#include "bundled.hpp"
#include "names.hpp"
#include "problems.hpp"

#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

namespace rightsize {

using detail::FieldReader;

namespace {

using detail::Problems;

enum class Role { weights, math, kv_cache };

const std::vector<std::string>& formats_of(Role role) {
  switch (role) {
  case Role::weights:
    return engine_weight_formats();
  case Role::math:
    return engine_math_formats();
  case Role::kv_cache:
    return engine_kv_formats();
  }
  return engine_math_formats();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

template <class V> std::vector<std::string> keys_of(const std::map<std::string, V>& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) {
    out.push_back(k);
  }
  return out;
}

// "low" < "medium" < "high"; "" (no rows consulted) ranks above all.
int confidence_rank(std::string_view c) {
  if (c == "low") {
    return 0;
  }
  if (c == "medium") {
    return 1;
  }
  return c == "high" ? 2 : 3;
}

// Reads the file's parts in order; each entry reports all of its problems.
class SupportReader {
public:
  SupportReader(EngineSupport& s, Problems& problems) : m_s(s), m_problems(problems) {}

  void read(const FieldReader& root) {
    m_problems.guard([&] {
      root.reject_unknown({"schema_version",
                           "engines_version",
                           "description",
                           "sources",
                           "generations",
                           "engines"});
    });
    m_problems.guard([&] { read_schema_version(root); });
    m_problems.guard([&] { m_s.version = root.string("engines_version"); });
    m_problems.guard([&] { (void)root.optional_string("description"); });
    m_problems.guard([&] { read_sources(root.object("sources")); });
    m_problems.guard([&] { read_generations(root.object("generations")); });
    m_problems.guard([&] { read_engines(root.array("engines")); });
  }

private:
  static void read_schema_version(const FieldReader& root) {
    if (root.integer("schema_version", detail::Range::positive(1e6)) != 1) {
      root.member("schema_version")
          .fail("unsupported engine support schema version (this rightsize reads 1)");
    }
  }

  void read_sources(const FieldReader& sources) {
    for (const auto& [key, value] : sources.json().items()) {
      m_problems.guard([&, key = key] {
        const auto f = sources.object(key);
        f.reject_unknown({"name", "location", "kind"});
        m_s.sources[key] = CatalogSource{
            f.string("name"), f.string("location"), f.optional_string("kind").value_or("")};
      });
    }
  }

  void read_generations(const FieldReader& generations) {
    for (const auto& [key, value] : generations.json().items()) {
      m_problems.guard([&, key = key] {
        const auto f = generations.object(key);
        f.reject_unknown({"vendor", "architecture"});
        EngineGeneration g;
        g.name = key;
        g.vendor = f.choice<std::string>("vendor", detail::vendor_choices());
        g.architecture = f.string("architecture");
        m_s.generations[key] = g;
      });
    }
  }

  void read_engines(const std::vector<FieldReader>& entries) {
    std::map<std::string, std::string> seen; // lower-case name -> where
    for (const auto& entry : entries) {
      EngineInfo e;
      const std::size_t errors_before = m_problems.count();
      if (!read_engine(entry, e)) {
        continue;
      }
      const auto [it, inserted] = seen.emplace(lower(e.name), entry.where("name"));
      if (!inserted) {
        m_problems.add(entry.where("name"),
                       fmt::format("engine \"{}\" is already listed at {}", e.name, it->second));
        continue;
      }
      // Cross-checks on an engine with unreadable rows would only repeat those problems.
      if (m_problems.count() == errors_before) {
        check_math_available(e);
        check_no_duplicate_rows(e.math, "math");
        check_no_duplicate_rows(e.kv_cache, "KV cache");
      }
      m_s.engines.push_back(std::move(e));
    }
  }

  // False when the entry is too broken to use (not an object, no name).
  bool read_engine(const FieldReader& entry, EngineInfo& e) {
    if (!entry.is_object()) {
      m_problems.guard([&] { entry.fail("an engine must be an object"); });
      return false;
    }
    m_problems.guard([&] {
      entry.reject_unknown({"name", "runs_on", "weights", "math", "kv_cache", "notes"});
    });
    bool named = false;
    m_problems.guard([&] {
      e.name = entry.string("name");
      if (e.name.empty()) {
        entry.member("name").fail("must not be empty");
      }
      named = true;
    });
    m_problems.guard([&] { read_runs_on(entry.object("runs_on"), e); });
    m_problems.guard([&] { (void)entry.optional_string("notes"); });
    read_rows(entry, "weights", Role::weights, e, e.weights);
    read_rows(entry, "math", Role::math, e, e.math);
    read_rows(entry, "kv_cache", Role::kv_cache, e, e.kv_cache);
    return named;
  }

  void read_runs_on(const FieldReader& f, EngineInfo& e) {
    f.reject_unknown({"generations", "source", "note", "confidence"});
    e.generations = read_generation_list(f);
    read_provenance(f, e.runs_on);
  }

  void read_rows(const FieldReader& entry,
                 std::string_view key,
                 Role role,
                 const EngineInfo& e,
                 std::vector<EngineFormatRow>& rows) {
    m_problems.guard([&] {
      for (const auto& row : entry.array(key)) {
        m_problems.guard([&] { rows.push_back(read_row(row, role, e)); });
      }
    });
  }

  EngineFormatRow read_row(const FieldReader& f, Role role, const EngineInfo& e) {
    if (role == Role::weights) {
      f.reject_unknown({"format", "math", "generations", "kernel", "source", "note", "confidence"});
    } else {
      f.reject_unknown({"format", "generations", "kernel", "source", "note", "confidence"});
    }
    EngineFormatRow r;
    r.where = f.where();
    r.format = read_format(f.member("format"), role);
    if (role == Role::weights) {
      r.math = read_math_list(f);
    }
    r.generations = read_generation_list(f);
    check_engine_runs_on(f, e, r.generations);
    r.kernel = f.optional_string("kernel").value_or("");
    read_provenance(f, r.provenance);
    return r;
  }

  static std::string read_format(const FieldReader& f, Role role) {
    std::vector<std::pair<std::string, std::string>> options;
    for (const auto& name : formats_of(role)) {
      options.emplace_back(name, name);
    }
    return f.as_choice(options);
  }

  static std::vector<std::string> read_math_list(const FieldReader& f) {
    std::vector<std::string> out;
    const auto elements = f.array("math");
    if (elements.empty()) {
      f.member("math").fail("must list at least one math format");
    }
    for (const auto& m : elements) {
      const std::string name = read_format(m, Role::math);
      if (contains(out, name)) {
        m.fail("is listed twice");
      }
      out.push_back(name);
    }
    return out;
  }

  std::vector<std::string> read_generation_list(const FieldReader& f) const {
    std::vector<std::string> out;
    const auto elements = f.array("generations");
    if (elements.empty()) {
      f.member("generations").fail("must list at least one generation");
    }
    for (const auto& g : elements) {
      const std::string name = g.as_string();
      if (m_s.generations.count(name) == 0) {
        g.fail("is not a key of /generations" + did_you_mean(name, keys_of(m_s.generations)));
      }
      if (contains(out, name)) {
        g.fail("is listed twice");
      }
      out.push_back(name);
    }
    return out;
  }

  // A row may only name generations the engine runs on at all.
  static void check_engine_runs_on(const FieldReader& f,
                                   const EngineInfo& e,
                                   const std::vector<std::string>& generations) {
    if (e.generations.empty()) {
      return; // runs_on is broken and already reported
    }
    const auto elements = f.array("generations");
    for (std::size_t i = 0; i < generations.size(); ++i) {
      if (!contains(e.generations, generations[i])) {
        elements[i].fail(fmt::format("is not in this engine's runs_on/generations ({})",
                                     FieldReader::join(e.generations)));
      }
    }
  }

  void read_provenance(const FieldReader& f, Provenance& p) const {
    p.source = f.string("source");
    if (m_s.sources.count(p.source) == 0) {
      f.member("source").fail("is not a key of /sources" +
                              did_you_mean(p.source, keys_of(m_s.sources)));
    }
    p.note = f.optional_string("note").value_or("");
    p.confidence = f.choice<std::string>("confidence",
                                         {{"low", "low"}, {"medium", "medium"}, {"high", "high"}});
  }

  // Every generation of a weights row needs one of the row's math formats in the engine's
  // /math rows: a W8A8 row on Ampere would promise fp8 math that no tensor core has.
  void check_math_available(const EngineInfo& e) {
    for (const auto& row : e.weights) {
      for (const auto& g : row.generations) {
        const bool any = std::any_of(row.math.begin(), row.math.end(), [&](const std::string& m) {
          return std::any_of(e.math.begin(), e.math.end(), [&](const EngineFormatRow& r) {
            return r.format == m && contains(r.generations, g);
          });
        });
        if (!any) {
          m_problems.add(row.where + "/generations",
                         fmt::format("{} math ({}) is not available on {} in this engine's /math "
                                     "rows",
                                     FieldReader::join(row.math),
                                     row.format,
                                     g));
        }
      }
    }
  }

  // Two math or KV cache rows for the same format and generation would make the source of an
  // answer ambiguous.
  void check_no_duplicate_rows(const std::vector<EngineFormatRow>& rows, std::string_view what) {
    std::map<std::pair<std::string, std::string>, std::string> seen;
    for (const auto& row : rows) {
      for (const auto& g : row.generations) {
        const auto [it, inserted] = seen.emplace(std::make_pair(row.format, g), row.where);
        if (!inserted) {
          m_problems.add(
              row.where + "/generations",
              fmt::format("{} {} on {} is already listed at {}", row.format, what, g, it->second));
        }
      }
    }
  }

  EngineSupport& m_s;
  Problems& m_problems;
};

// ---- Queries ----

// "sm80+" when the NVIDIA generations of `gens` are every known one from the lowest up; other
// generations (AMD) are listed by name.
std::string describe_generations(const EngineSupport& s, const std::vector<std::string>& gens) {
  // The number of "sm90"; -1 for names that are not "sm" and one to four digits.
  auto sm_number = [](const std::string& g) -> int {
    if (g.size() < 3 || g.size() > 6 || g.compare(0, 2, "sm") != 0 ||
        !std::all_of(g.begin() + 2, g.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
      return -1;
    }
    return std::stoi(g.substr(2));
  };
  std::vector<std::pair<int, std::string>> sm;
  std::vector<std::string> others;
  for (const auto& g : gens) {
    const int n = sm_number(g);
    if (n >= 0) {
      sm.emplace_back(n, g);
    } else {
      others.push_back(g);
    }
  }
  std::sort(sm.begin(), sm.end());
  std::vector<std::string> parts;
  if (!sm.empty()) {
    std::set<int> known_from_min;
    for (const auto& known : s.generations) {
      const int n = sm_number(known.first);
      if (n >= sm.front().first) {
        known_from_min.insert(n);
      }
    }
    std::set<int> listed;
    for (const auto& p : sm) {
      listed.insert(p.first);
    }
    if (sm.size() >= 2 && listed == known_from_min) {
      parts.push_back(sm.front().second + "+");
    } else {
      for (const auto& p : sm) {
        parts.push_back(p.second);
      }
    }
  }
  parts.insert(parts.end(), others.begin(), others.end());
  return FieldReader::join(parts);
}

std::string describe_sources(const std::vector<std::string>& keys) {
  return (keys.size() == 1 ? "source " : "sources ") + FieldReader::join(keys);
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && !contains(list, item)) {
    list.push_back(item);
  }
}

// One question to the data, answered step by step; each step either fills in the answer or stops
// it with a reason.
class SupportQuery {
public:
  SupportQuery(const EngineSupport& s, std::string_view engine, std::string_view generation)
      : m_s(s), m_engine_name(engine), m_generation_name(generation) {}

  SupportAnswer run(std::string_view weights, std::string_view kv, std::string_view activations) {
    m_a.weights = lower(weights);
    m_a.kv_cache = lower(kv);
    const std::string asked_math = lower(activations);
    if (find_engine() && find_generation() && known_formats(asked_math) && engine_runs_here() &&
        choose_weights(asked_math) && choose_kv_cache()) {
      m_a.status = SupportStatus::supported;
    }
    return std::move(m_a);
  }

private:
  bool find_engine() {
    m_engine = m_s.find(m_engine_name);
    if (m_engine == nullptr) {
      stop(SupportStatus::unknown,
           fmt::format("unknown engine \"{}\"{}; engine support lists {}",
                       m_engine_name,
                       did_you_mean(m_engine_name, m_s.engine_names()),
                       FieldReader::join(m_s.engine_names())));
      return false;
    }
    return true;
  }

  bool find_generation() {
    const auto it = m_s.generations.find(std::string(m_generation_name));
    if (it == m_s.generations.end()) {
      stop(SupportStatus::unknown,
           fmt::format("GPU generation \"{}\" is not in the engine support data: whether {} runs "
                       "on it is unknown",
                       m_generation_name,
                       m_engine->name));
      return false;
    }
    m_gen = &it->second;
    return true;
  }

  bool known_formats(const std::string& asked_math) {
    return known_format(m_a.weights, Role::weights, "weight") &&
           (m_a.kv_cache.empty() || known_format(m_a.kv_cache, Role::kv_cache, "KV cache")) &&
           (asked_math.empty() || known_format(asked_math, Role::math, "math"));
  }

  bool known_format(const std::string& name, Role role, std::string_view what) {
    if (contains(formats_of(role), name)) {
      return true;
    }
    stop(SupportStatus::unknown,
         fmt::format("unknown {} format \"{}\"{}; known: {}",
                     what,
                     name,
                     did_you_mean(name, formats_of(role)),
                     FieldReader::join(formats_of(role))));
    return false;
  }

  bool engine_runs_here() {
    use(m_engine->runs_on);
    if (contains(m_engine->generations, m_gen->name)) {
      return true;
    }
    stop(SupportStatus::unsupported,
         fmt::format("{} does not run on {}: it runs on {}, {}",
                     m_engine->name,
                     gen_label(),
                     describe_generations(m_s, m_engine->generations),
                     describe_sources({m_engine->runs_on.source})));
    return false;
  }

  // The first row for the weights that runs here and offers the asked math; else the first row
  // that runs here with any math available here.
  bool choose_weights(const std::string& asked_math) {
    std::vector<std::pair<const EngineFormatRow*, std::string>> options;
    for (const auto& row : m_engine->weights) {
      if (row.format != m_a.weights || !contains(row.generations, m_gen->name)) {
        continue;
      }
      for (const auto& m : row.math) {
        if (math_row(m) != nullptr) {
          options.emplace_back(&row, m);
        }
      }
    }
    if (options.empty()) {
      no_row(m_engine->weights, m_a.weights, "kernel for " + m_a.weights + " weights");
      return false;
    }
    const auto exact = std::find_if(
        options.begin(), options.end(), [&](const auto& o) { return o.second == asked_math; });
    const auto& [row, math] = exact != options.end() ? *exact : options.front();
    m_a.math = math;
    m_a.kernel = row->kernel;
    use(row->provenance);
    use(math_row(math)->provenance);
    if (!asked_math.empty() && math != asked_math) {
      m_a.notes.push_back(
          fmt::format("asked for {} math; {} runs {} weights on {} as {} at {} math",
                      asked_math,
                      m_engine->name,
                      m_a.weights,
                      gen_label(),
                      row->kernel.empty() ? "its only kernel" : row->kernel,
                      math));
    }
    return true;
  }

  // The asked format, or the other 16-bit one: bf16 and fp16 take the same bytes.
  bool choose_kv_cache() {
    const std::string asked = m_a.kv_cache;
    if (asked.empty()) {
      return true; // a workload without a KV cache: nothing to store
    }
    const EngineFormatRow* row = kv_row(asked);
    if (row == nullptr && (asked == "bf16" || asked == "fp16")) {
      const std::string other = asked == "bf16" ? "fp16" : "bf16";
      row = kv_row(other);
      if (row != nullptr) {
        m_a.kv_cache = other;
        m_a.notes.push_back(fmt::format("{} has no {} KV cache on {}: stores {} (same size)",
                                        m_engine->name,
                                        asked,
                                        gen_label(),
                                        other));
      }
    }
    if (row == nullptr) {
      m_a.math.clear();
      no_row(m_engine->kv_cache, asked, asked + " KV cache");
      return false;
    }
    use(row->provenance);
    return true;
  }

  const EngineFormatRow* math_row(const std::string& format) const {
    return find_row(m_engine->math, format);
  }
  const EngineFormatRow* kv_row(const std::string& format) const {
    return find_row(m_engine->kv_cache, format);
  }
  const EngineFormatRow* find_row(const std::vector<EngineFormatRow>& rows,
                                  const std::string& format) const {
    for (const auto& r : rows) {
      if (r.format == format && contains(r.generations, m_gen->name)) {
        return &r;
      }
    }
    return nullptr;
  }

  // "vllm has no kernel for fp8 weights on sm75 (Turing): needs sm80+ (FP8 Marlin) or sm89+
  // (FP8 W8A8), sources ..."
  void no_row(const std::vector<EngineFormatRow>& rows,
              const std::string& format,
              const std::string& what) {
    // Rows of one kernel are described together: "sm75, sm80, sm86 (FP8 Marlin)".
    std::vector<std::pair<std::string, std::vector<std::string>>> by_kernel;
    std::vector<std::string> sources;
    m_a.sources.clear();
    m_a.confidence.clear();
    for (const auto& r : rows) {
      if (r.format != format) {
        continue;
      }
      auto it = std::find_if(
          by_kernel.begin(), by_kernel.end(), [&](const auto& k) { return k.first == r.kernel; });
      if (it == by_kernel.end()) {
        it = by_kernel.insert(by_kernel.end(), {r.kernel, {}});
      }
      for (const auto& g : r.generations) {
        add_unique(it->second, g);
      }
      add_unique(sources, r.provenance.source);
      use(r.provenance);
    }
    std::vector<std::string> needs;
    for (const auto& [kernel, gens] : by_kernel) {
      const std::string described = describe_generations(m_s, gens);
      needs.push_back(kernel.empty() ? described : fmt::format("{} ({})", described, kernel));
    }
    std::string reason = fmt::format("{} has no {} on {}", m_engine->name, what, gen_label());
    if (needs.empty()) {
      reason += ": the engine support data lists none on any GPU";
    } else {
      std::string joined;
      for (std::size_t i = 0; i < needs.size(); ++i) {
        joined += (i == 0 ? "" : " or ") + needs[i];
      }
      reason += ": needs " + joined + ", " + describe_sources(sources);
    }
    stop(SupportStatus::unsupported, reason);
  }

  void use(const Provenance& p) {
    add_unique(m_a.sources, p.source);
    if (confidence_rank(p.confidence) < confidence_rank(m_a.confidence)) {
      m_a.confidence = p.confidence;
    }
  }

  void stop(SupportStatus status, std::string reason) {
    m_a.status = status;
    m_a.reason = std::move(reason);
    m_a.math.clear();
    m_a.kernel.clear();
    m_a.notes.clear();
  }

  [[nodiscard]] std::string gen_label() const {
    return m_gen->name + " (" + m_gen->architecture + ")";
  }

  const EngineSupport& m_s;
  std::string m_engine_name;
  std::string m_generation_name;
  const EngineInfo* m_engine = nullptr;
  const EngineGeneration* m_gen = nullptr;
  SupportAnswer m_a;
};

} // namespace

const std::vector<std::string>& engine_weight_formats() {
  static const std::vector<std::string> names{
      "fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4", "fp4", "mxfp4"};
  return names;
}

const std::vector<std::string>& engine_math_formats() {
  static const std::vector<std::string> names{"fp32", "bf16", "fp16", "fp8", "int8", "fp4"};
  return names;
}

const std::vector<std::string>& engine_kv_formats() {
  return engine_math_formats();
}

std::string_view to_string(SupportStatus s) {
  return k_support_status_names.name(s);
}

std::optional<TensorPrecision> SupportAnswer::math_precision() const {
  if (!runs()) {
    return std::nullopt;
  }
  for (const TensorPrecision p : all_tensor_precisions()) {
    if (to_string(p) == math) {
      return p;
    }
  }
  return std::nullopt;
}

const EngineInfo* EngineSupport::find(std::string_view engine) const {
  for (const auto& e : engines) {
    if (FieldReader::iequals(e.name, engine)) {
      return &e;
    }
  }
  return nullptr;
}

std::vector<std::string> EngineSupport::engine_names() const {
  std::vector<std::string> out;
  for (const auto& e : engines) {
    out.push_back(e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

EngineSupport parse_engine_support(const nlohmann::json& json, const std::string& file) {
  const FieldReader root(json, file);
  if (!json.is_object()) {
    root.fail("engine support data must be a JSON object");
  }
  EngineSupport s;
  s.files = {file};
  Problems problems;
  SupportReader(s, problems).read(root);
  problems.throw_if_any();
  return s;
}

EngineSupport load_engine_support(const std::string& path) {
  // The bundled file, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_engines_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_engine_support(bundled.value, path);
  }
  return parse_engine_support(detail::parse_json_text(*text, path), path);
}

SupportAnswer supports(const EngineSupport& support,
                       std::string_view engine,
                       std::string_view generation,
                       std::string_view weights,
                       std::string_view kv_cache,
                       std::string_view activations) {
  return SupportQuery(support, engine, generation).run(weights, kv_cache, activations);
}

SupportAnswer supports(const EngineSupport& support,
                       std::string_view engine,
                       const Gpu& gpu,
                       std::string_view weights,
                       std::string_view kv_cache,
                       std::string_view activations) {
  return supports(support, engine, gpu.generation, weights, kv_cache, activations);
}

} // namespace rightsize
