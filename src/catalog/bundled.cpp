// The bundled data compiled into the binary: the serialized form of the loaded values and the
// run-time lookup (bundled.hpp).

#include "bundled.hpp"

#include <rightsize/catalog/compiled_in.hpp>
#include <rightsize/core/error.hpp>

#include <filesystem>

namespace rightsize::detail {

// The fields of each struct, in one list that serves writing (const) and reading (BlobWriter and
// BlobReader, core/bundle.hpp, find them here).

template <class A, class T, if_is<T, Provenance> = 0> void describe(A& a, T& p) {
  a(p.source, p.note, p.confidence);
}
template <class A, class T, if_is<T, CatalogSource> = 0> void describe(A& a, T& s) {
  a(s.name, s.location, s.kind);
}
template <class A, class T, if_is<T, PriceHost> = 0> void describe(A& a, T& h) {
  a(h.name, h.per_instance, h.provenance);
}
template <class A, class T, if_is<T, Price> = 0> void describe(A& a, T& p) {
  a(p.provider, p.kind, p.per_gpu, p.listed_per_gpu, p.gpu_only, p.shape_stated, p.instance);
  a(p.gpus_per_instance);
  a(p.host, p.as_of, p.as_of_stated, p.provenance);
}
template <class A, class T, if_is<T, Purchase> = 0> void describe(A& a, T& p) {
  a(p.gpu,
    p.server_share,
    p.as_of,
    p.provenance,
    p.gpus_per_server,
    p.server_provenance,
    p.units_per_gpu,
    p.unit_tdp);
}
template <class A, class T, if_is<T, Mig> = 0> void describe(A& a, T& m) {
  a(m.max_instances, m.profiles);
}
template <class A, class T, if_is<T, Gpu> = 0> void describe(A& a, T& g) {
  a(g.name, g.aliases, g.vendor, g.architecture, g.generation, g.release_year, g.form_factor);
  a(g.memory, g.usable_memory, g.memory_bandwidth, g.dense, g.tdp);
  a(g.host_link, g.pcie_generation, g.gpu_link_kind, g.gpu_link, g.nvlink_domain, g.network);
  a(g.mig, g.prices, g.not_rentable, g.purchase);
  a.droppable(g.provenance); // dropped for CatalogDetail::figures
}
// Catalog::files and Catalog::sources_dropped are the loader's to set.
template <class A, class T, if_is<T, Catalog> = 0> void describe(A& a, T& c) {
  a(c.schema_version, c.version, c.digest, c.sources, c.gpus);
}
template <class A, class T, if_is<T, EngineGeneration> = 0> void describe(A& a, T& g) {
  a(g.name, g.vendor, g.architecture);
}
// EngineFormatRow::where is stored after the file's path (serialize_engine_support).
template <class A, class T, if_is<T, EngineFormatRow> = 0> void describe(A& a, T& r) {
  a(r.format, r.math, r.generations, r.kernel, r.provenance, r.where);
}
template <class A, class T, if_is<T, EngineInfo> = 0> void describe(A& a, T& e) {
  a(e.name, e.generations, e.runs_on, e.weights, e.math, e.kv_cache);
}
// EngineSupport::files is the loader's to set.
template <class A, class T, if_is<T, EngineSupport> = 0> void describe(A& a, T& s) {
  a(s.schema_version, s.version, s.sources, s.generations, s.engines);
}

template <class A, class T, if_is<T, PublishedSource> = 0> void describe(A& a, T& s) {
  a(s.key, s.title, s.url, s.repository, s.path, s.commit, s.date, s.engine_version, s.method);
}
// PublishedModel::results_file is stored relative to the index's folder
// (serialize_published_index).
template <class A, class T, if_is<T, PublishedModel> = 0> void describe(A& a, T& m) {
  a(m.key, m.name, m.same_architecture, m.layers, m.hidden, m.heads, m.kv_heads);
  a(m.intermediate, m.vocab, m.experts, m.experts_active, m.moe_intermediate, m.parameters);
  a(m.results_file);
}
template <class A, class T, if_is<T, PublishedResult> = 0> void describe(A& a, T& r) {
  a(r.id, r.source, r.location, r.model, r.model_name, r.system, r.gpu, r.gpus, r.tp, r.pp, r.ep);
  a(r.engine, r.engine_version, r.weights, r.kv_cache, r.scenario, r.input_tokens);
  a(r.output_tokens, r.mean_lengths, r.batch, r.ttft_ms, r.tpot_ms, r.output_tokens_per_s);
}
// The index alone: PublishedData::index_file is the loader's to set, and results and loaded are
// each table's (serialize_published_results).
template <class A, class T, if_is<T, PublishedData> = 0> void describe(A& a, T& d) {
  a(d.sources, d.models, d.digest);
}

// A field added to one of these structs must be added to its describe() above, or the embedded
// value would silently lack it. The sizes of this platform's layout catch that at compile time;
// update them together with describe().
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && defined(__LP64__)
static_assert(sizeof(Provenance) == 96, "a field of Provenance is missing from describe()");
static_assert(sizeof(CatalogSource) == 96, "a field of CatalogSource is missing from describe()");
static_assert(sizeof(PriceHost) == 136, "a field of PriceHost is missing from describe()");
static_assert(sizeof(Price) == 408, "a field of Price is missing from describe()");
static_assert(sizeof(Purchase) == 272, "a field of Purchase is missing from describe()");
static_assert(sizeof(Mig) == 32, "a field of Mig is missing from describe()");
static_assert(sizeof(Gpu) == 776, "a field of Gpu is missing from describe()");
static_assert(sizeof(Catalog) == 176, "a field of Catalog is missing from describe()");
static_assert(sizeof(EngineGeneration) == 96, "a field of EngineGeneration is missing");
static_assert(sizeof(EngineFormatRow) == 240, "a field of EngineFormatRow is missing");
static_assert(sizeof(EngineInfo) == 224, "a field of EngineInfo is missing from describe()");
static_assert(sizeof(EngineSupport) == 184, "a field of EngineSupport is missing");
static_assert(sizeof(PublishedSource) == 288, "a field of PublishedSource is missing");
static_assert(sizeof(PublishedModel) == 200, "a field of PublishedModel is missing");
static_assert(sizeof(PublishedResult) == 472, "a field of PublishedResult is missing");
static_assert(sizeof(PublishedData) == 184, "a field of PublishedData is missing");
#endif

namespace {

// The rows of every engine, for rewriting their `where`.
template <class S, class F> void for_each_row(S& support, F f) {
  for (auto& e : support.engines) {
    for (auto* rows : {&e.weights, &e.math, &e.kv_cache}) {
      for (auto& row : *rows) {
        f(row);
      }
    }
  }
}

// Where an index's results tables are resolved (read_model in published.cpp): its folder.
std::string index_folder(const std::string& index) {
  return (std::filesystem::path(index).parent_path() / "").string();
}

} // namespace

std::string serialize_catalog(const Catalog& catalog) {
  return serialize_blob(catalog);
}

Catalog deserialize_catalog(std::string_view blob, const std::string& file, CatalogDetail wanted) {
  const bool figures = wanted == CatalogDetail::figures;
  auto c = deserialize_blob<Catalog>(blob, figures);
  c.files = {file};
  c.sources_dropped = figures;
  return c;
}

std::string serialize_engine_support(const EngineSupport& support, const std::string& file) {
  EngineSupport relative = support;
  for_each_row(relative, [&](EngineFormatRow& row) {
    if (row.where.compare(0, file.size(), file) != 0) {
      throw InternalError("engine support row at " + row.where + " is not in " + file);
    }
    row.where.erase(0, file.size());
  });
  return serialize_blob(relative);
}

EngineSupport deserialize_engine_support(std::string_view blob, const std::string& file) {
  auto s = deserialize_blob<EngineSupport>(blob);
  for_each_row(s, [&](EngineFormatRow& row) { row.where.insert(0, file); });
  s.files = {file};
  return s;
}

std::optional<Catalog>
bundled_catalog(std::string_view text, const std::string& file, CatalogDetail wanted) {
  const BundledFile bundled = bundled_catalog_file();
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_catalog(bundled.value, file, wanted);
}

std::optional<EngineSupport> bundled_engine_support(std::string_view text,
                                                    const std::string& file) {
  const BundledFile bundled = bundled_engines_file();
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_engine_support(bundled.value, file);
}

std::string serialize_published_index(const PublishedData& data) {
  PublishedData relative;
  relative.sources = data.sources;
  relative.models = data.models;
  relative.digest = data.digest;
  const std::string folder = index_folder(data.index_file);
  for (auto& m : relative.models) {
    if (m.results_file.compare(0, folder.size(), folder) != 0) {
      throw InternalError("published results table " + m.results_file + " is not in " + folder);
    }
    m.results_file.erase(0, folder.size());
  }
  return serialize_blob(relative);
}

PublishedData deserialize_published_index(std::string_view blob, const std::string& file) {
  auto data = deserialize_blob<PublishedData>(blob);
  data.index_file = file;
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  for (auto& m : data.models) {
    m.results_file = (folder / m.results_file).string();
  }
  return data;
}

std::string serialize_published_results(const std::vector<PublishedResult>& results) {
  return serialize_blob(results);
}

std::vector<PublishedResult> deserialize_published_results(std::string_view blob) {
  return deserialize_blob<std::vector<PublishedResult>>(blob);
}

std::vector<PublishedResult>
deserialize_published_results(std::string_view blob,
                              const std::function<bool(const PublishedResult&)>& keep) {
  std::vector<PublishedResult> rows;
  BlobReader reader(blob);
  reader.read_where(rows, keep);
  reader.expect_end();
  return rows;
}

std::optional<PublishedData> bundled_published_index(std::string_view text,
                                                     const std::string& file) {
  const BundledFile bundled = bundled_published_index_file();
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_published_index(bundled.value, file);
}

std::optional<std::vector<PublishedResult>> bundled_published_results(const PublishedData& data,
                                                                      std::string_view model,
                                                                      std::string_view text) {
  // A table is checked against its index (sources, models): only the embedded index's will do.
  if (data.digest != bundled_published_index_digest()) {
    return std::nullopt;
  }
  const BundledFile bundled = bundled_published_table(model);
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_published_results(bundled.value);
}

} // namespace rightsize::detail

namespace rightsize {

std::string_view compiled_in_catalog_data(std::string_view name) {
  if (name == "gpus.json") {
    return detail::bundled_catalog_file().text;
  }
  if (name == "engines.json") {
    return detail::bundled_engines_file().text;
  }
  if (name == "deploy.json") {
    return detail::bundled_deploy_file().text;
  }
  if (name == "instances.json") {
    return detail::bundled_instances_file().text;
  }
  if (name == "published/published.json") {
    return detail::bundled_published_index_file().text;
  }
  return {};
}

} // namespace rightsize
