// The bundled data compiled into the binary: the serialized form of the loaded values and the
// run-time lookup (bundled.hpp).

#include "bundled.hpp"

#include <rightsize/core/error.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

namespace rightsize::detail {

namespace {

// Written in front of every blob, so that a blob of another layout is refused, not misread.
constexpr std::string_view k_magic = "rightsize-bundle-1";

// The fields of each struct, in one list that serves writing (const) and reading.
template <class T, class U>
using if_is = std::enable_if_t<std::is_same_v<std::remove_const_t<T>, U>, int>;

template <class A, class T, if_is<T, Provenance> = 0> void describe(A& a, T& p) {
  a(p.source, p.note, p.confidence);
}
template <class A, class T, if_is<T, CatalogSource> = 0> void describe(A& a, T& s) {
  a(s.name, s.location, s.kind);
}
template <class A, class T, if_is<T, Price> = 0> void describe(A& a, T& p) {
  a(p.provider, p.kind, p.per_gpu, p.as_of, p.as_of_stated, p.provenance);
}
template <class A, class T, if_is<T, Purchase> = 0> void describe(A& a, T& p) {
  a(p.gpu,
    p.server_share,
    p.as_of,
    p.provenance,
    p.gpus_per_server,
    p.server_provenance,
    p.units_per_gpu);
}
template <class A, class T, if_is<T, Mig> = 0> void describe(A& a, T& m) {
  a(m.max_instances, m.profiles);
}
template <class A, class T, if_is<T, Gpu> = 0> void describe(A& a, T& g) {
  a(g.name, g.aliases, g.vendor, g.architecture, g.generation, g.release_year, g.form_factor);
  a(g.memory, g.usable_memory, g.memory_bandwidth, g.dense, g.tdp);
  a(g.host_link, g.pcie_generation, g.gpu_link_kind, g.gpu_link, g.nvlink_domain, g.network);
  a(g.mig, g.prices, g.purchase, g.provenance);
}
// Catalog::files is the loader's to set.
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

// A field added to one of these structs must be added to its describe() above, or the embedded
// value would silently lack it. The sizes of this platform's layout catch that at compile time;
// update them together with describe().
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && defined(__LP64__)
static_assert(sizeof(Provenance) == 96, "a field of Provenance is missing from describe()");
static_assert(sizeof(CatalogSource) == 96, "a field of CatalogSource is missing from describe()");
static_assert(sizeof(Price) == 208, "a field of Price is missing from describe()");
static_assert(sizeof(Purchase) == 256, "a field of Purchase is missing from describe()");
static_assert(sizeof(Mig) == 32, "a field of Mig is missing from describe()");
static_assert(sizeof(Gpu) == 728, "a field of Gpu is missing from describe()");
static_assert(sizeof(Catalog) == 168, "a field of Catalog is missing from describe()");
static_assert(sizeof(EngineGeneration) == 96, "a field of EngineGeneration is missing");
static_assert(sizeof(EngineFormatRow) == 240, "a field of EngineFormatRow is missing");
static_assert(sizeof(EngineInfo) == 224, "a field of EngineInfo is missing from describe()");
static_assert(sizeof(EngineSupport) == 184, "a field of EngineSupport is missing");
#endif

template <class T> constexpr bool is_quantity = false;
template <class Tag> constexpr bool is_quantity<Quantity<Tag>> = true;

class BlobWriter {
public:
  BlobWriter() { m_out.append(k_magic); }

  template <class... T> void operator()(const T&... values) { (write(values), ...); }
  std::string take() { return std::move(m_out); }

private:
  template <class T> void write(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      raw(static_cast<std::uint8_t>(value ? 1 : 0));
    } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      raw(static_cast<std::int64_t>(value));
    } else if constexpr (std::is_same_v<T, double>) {
      raw(value);
    } else if constexpr (is_quantity<T>) {
      raw(value.si());
    } else {
      describe(*this, value);
    }
  }
  void write(const std::string& s) {
    size(s.size());
    m_out.append(s);
  }
  template <class T> void write(const std::vector<T>& v) {
    size(v.size());
    for (const auto& e : v) {
      write(e);
    }
  }
  template <class K, class V> void write(const std::map<K, V>& m) {
    size(m.size());
    for (const auto& [k, v] : m) {
      write(k);
      write(v);
    }
  }
  template <class T> void write(const std::optional<T>& o) {
    write(o.has_value());
    if (o) {
      write(*o);
    }
  }

  void size(std::size_t n) { raw(static_cast<std::uint64_t>(n)); }
  // In the host's byte order: the blob is read by the binary built beside it.
  template <class T> void raw(T value) {
    std::array<char, sizeof value> bytes{};
    std::memcpy(bytes.data(), &value, sizeof value);
    m_out.append(bytes.data(), bytes.size());
  }

  std::string m_out;
};

class BlobReader {
public:
  explicit BlobReader(std::string_view blob) : m_rest(blob) {
    if (m_rest.substr(0, k_magic.size()) != k_magic) {
      throw InternalError("bundled data: not a blob of this build");
    }
    m_rest.remove_prefix(k_magic.size());
  }

  template <class... T> void operator()(T&... values) { (read(values), ...); }
  void expect_end() const {
    if (!m_rest.empty()) {
      throw InternalError("bundled data: bytes left over");
    }
  }

private:
  template <class T> void read(T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      value = raw<std::uint8_t>() != 0;
    } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      value = static_cast<T>(raw<std::int64_t>());
    } else if constexpr (std::is_same_v<T, double>) {
      value = raw<double>();
    } else if constexpr (is_quantity<T>) {
      value = T(raw<double>());
    } else {
      describe(*this, value);
    }
  }
  void read(std::string& s) {
    const std::size_t n = size();
    s.assign(take(n), n);
  }
  template <class T> void read(std::vector<T>& v) {
    const std::size_t n = size();
    v.clear();
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      read(v.emplace_back());
    }
  }
  // Written in key order, so each entry goes in at the end.
  template <class K, class V> void read(std::map<K, V>& m) {
    const std::size_t n = size();
    m.clear();
    for (std::size_t i = 0; i < n; ++i) {
      K key{};
      read(key);
      read(m.emplace_hint(m.end(), std::move(key), V{})->second);
    }
  }
  template <class T> void read(std::optional<T>& o) {
    o.reset();
    if (raw<std::uint8_t>() != 0) {
      read(o.emplace());
    }
  }

  std::size_t size() {
    const auto n = raw<std::uint64_t>();
    if (n > m_rest.size()) {
      throw InternalError("bundled data: truncated");
    }
    return static_cast<std::size_t>(n);
  }
  const char* take(std::size_t n) {
    if (n > m_rest.size()) {
      throw InternalError("bundled data: truncated");
    }
    const char* p = m_rest.data();
    m_rest.remove_prefix(n);
    return p;
  }
  template <class T> T raw() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }

  std::string_view m_rest;
};

template <class T> T deserialize(std::string_view blob) {
  T value;
  BlobReader reader(blob);
  reader(value);
  reader.expect_end();
  return value;
}

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

} // namespace

std::string serialize_catalog(const Catalog& catalog) {
  BlobWriter writer;
  writer(catalog);
  return writer.take();
}

Catalog deserialize_catalog(std::string_view blob, const std::string& file) {
  auto c = deserialize<Catalog>(blob);
  c.files = {file};
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
  BlobWriter writer;
  writer(relative);
  return writer.take();
}

EngineSupport deserialize_engine_support(std::string_view blob, const std::string& file) {
  auto s = deserialize<EngineSupport>(blob);
  for_each_row(s, [&](EngineFormatRow& row) { row.where.insert(0, file); });
  s.files = {file};
  return s;
}

std::optional<Catalog> bundled_catalog(std::string_view text, const std::string& file) {
  const BundledFile bundled = bundled_catalog_file();
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_catalog(bundled.value, file);
}

std::optional<EngineSupport> bundled_engine_support(std::string_view text,
                                                    const std::string& file) {
  const BundledFile bundled = bundled_engines_file();
  if (bundled.value.empty() || text != bundled.text) {
    return std::nullopt;
  }
  return deserialize_engine_support(bundled.value, file);
}

} // namespace rightsize::detail
