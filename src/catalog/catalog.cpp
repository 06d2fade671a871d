// Loading the GPU catalog (docs/catalog.md): a complete document, or an overlay merged into the
// bundled catalog. One entry's fields are read and validated in gpu_reader.cpp; lookups by name
// are lookup.cpp.

#include "bundled.hpp"
#include "gpu_reader.hpp"
#include "names.hpp"
#include "problems.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace detail {

std::map<std::string, CatalogSource> read_sources(const FieldReader& root, Problems& problems) {
  std::map<std::string, CatalogSource> sources;
  problems.guard([&] {
    const auto s = root.object("sources");
    for (const auto& [key, value] : s.json().items()) {
      problems.guard([&, key = key] {
        const auto f = s.object(key);
        f.reject_unknown({"name", "location", "kind"});
        sources[key] = CatalogSource{
            f.string("name"), f.string("location"), f.optional_string("kind").value_or("")};
      });
    }
  });
  return sources;
}

void read_provenance(const FieldReader& field,
                     const std::map<std::string, CatalogSource>& sources,
                     Provenance& p) {
  p.source = field.string("source");
  if (sources.find(p.source) == sources.end()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : sources) {
      keys.push_back(k);
    }
    field.member("source").fail("is not a key of /sources" + did_you_mean(p.source, keys));
  }
  p.note = field.optional_string("note").value_or("");
  if (field.has("confidence")) {
    p.confidence = field.choice<std::string>(
        "confidence", {{"low", "low"}, {"medium", "medium"}, {"high", "high"}});
  }
}

} // namespace detail

namespace {

using detail::Problems;
using detail::read_sources;
using detail::squash;

// Where each catalog entry came from, so that errors name the file the user edited.
struct Origin {
  std::string file;
  std::string pointer;
};

Catalog parse_entries(const nlohmann::json& doc,
                      const std::vector<Origin>& origins,
                      const std::string& top_file,
                      std::string digest) {
  Problems problems;
  const FieldReader root(doc, top_file);
  if (!doc.is_object()) {
    root.fail("a catalog must be a JSON object");
  }
  Catalog c;
  problems.guard([&] {
    root.reject_unknown(
        {"schema_version", "catalog_version", "description", "sources", "gpus", "extends"});
  });
  problems.guard([&] {
    const auto v = root.integer("schema_version", Range::positive(1e6));
    if (v != 1) {
      root.member("schema_version")
          .fail("unsupported catalog schema version (this rightsize "
                "reads 1)");
    }
  });
  problems.guard([&] { c.version = root.string("catalog_version"); });
  c.sources = read_sources(root, problems);
  std::vector<FieldReader> entries;
  problems.guard([&] { entries = root.array("gpus"); });
  std::map<std::string, std::string> seen; // squashed name/alias -> where
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const FieldReader entry(entries[i].json(), origins[i].file, origins[i].pointer);
    if (!entry.is_object()) {
      problems.guard([&] { entry.fail("must be an object"); });
      continue;
    }
    Gpu g = detail::read_gpu(entry, c.sources, problems);
    std::vector<std::string> names{g.name};
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
    for (const auto& n : names) {
      if (n.empty()) {
        continue;
      }
      const auto [it, inserted] = seen.emplace(squash(n), entry.where());
      if (!inserted && it->second != entry.where()) {
        problems.add(entry.where("name"),
                     fmt::format("name or alias \"{}\" is already used at {}", n, it->second));
      }
    }
    c.gpus.push_back(std::move(g));
  }
  problems.throw_if_any();
  c.digest = std::move(digest);
  return c;
}

// A complete catalog document read from `file`; `digest` is that of what was read.
Catalog parse_complete(const nlohmann::json& json, const std::string& file, std::string digest) {
  std::vector<Origin> origins;
  if (json.is_object() && json.contains("gpus") && json["gpus"].is_array()) {
    for (std::size_t i = 0; i < json["gpus"].size(); ++i) {
      origins.push_back({file, "/gpus/" + std::to_string(i)});
    }
  }
  auto c = parse_entries(json, origins, file, std::move(digest));
  c.files = {file};
  return c;
}

// Prices merge by (provider, kind), so those two must be readable before merging; the rest of
// each price is validated with the merged catalog.
void check_overlay_prices(const FieldReader& entry) {
  if (!entry.has("prices")) {
    return;
  }
  for (const auto& price : entry.array("prices")) {
    if (!price.is_object()) {
      price.fail("a price must be an object {provider, kind, usd_per_gpu_hour, as_of, source}");
    }
    (void)price.optional_string("provider");
    (void)price.optional_string("kind");
    (void)price.optional_string("instance");
  }
}

// An overlay price replaces the bundled price of the same (provider, kind, instance); one that
// names no instance replaces every shape of its (provider, kind), as one price of a GPU there.
// New prices go in front, in the overlay's order (`added` so far), so that its errors point at
// the same index as in the overlay file.
void merge_price(nlohmann::json& prices, const nlohmann::json& p, std::size_t& added) {
  const auto same_kind = [&](const nlohmann::json& q) {
    return q.value("provider", "") == p.value("provider", "") &&
           q.value("kind", "") == p.value("kind", "");
  };
  const bool shaped = p.contains("instance") && p["instance"].is_string();
  const auto same = [&](const nlohmann::json& q) {
    return same_kind(q) && (!shaped || q.value("instance", "") == p["instance"].get<std::string>());
  };
  const auto first = std::find_if(prices.begin(), prices.end(), same);
  if (first == prices.end()) {
    prices.insert(prices.begin() + static_cast<std::ptrdiff_t>(added), p);
    ++added;
    return;
  }
  *first = p;
  if (!shaped) {
    nlohmann::json kept = nlohmann::json::array();
    for (auto it = prices.begin(); it != prices.end(); ++it) {
      if (it == first || !same(*it)) {
        kept.push_back(*it);
      }
    }
    prices = std::move(kept);
  }
}

// Overlay semantics (docs/catalog.md): objects merge field by field, prices merge by
// (provider, kind), other arrays and values replace.
void merge_into(nlohmann::json& base, const nlohmann::json& over) {
  for (const auto& [key, value] : over.items()) {
    if (key == "prices" && base.contains(key) && base[key].is_array() && value.is_array()) {
      std::size_t added = 0;
      for (const auto& p : value) {
        merge_price(base[key], p, added);
      }
    } else if (value.is_object() && base.contains(key) && base[key].is_object()) {
      merge_into(base[key], value);
    } else {
      base[key] = value;
    }
  }
}

} // namespace

Catalog parse_catalog(const nlohmann::json& json, const std::string& file) {
  return parse_complete(json, file, detail::fnv1a_hex(json.dump()));
}

namespace {
std::string read_json_text(const std::string& file) {
  return read_input_file(file, k_max_json_file_bytes, "JSON input");
}

Catalog load_complete(const std::string& file, CatalogDetail wanted) {
  // The bundled catalog, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_catalog_file();
  const auto text =
      read_input_file_unless(file, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_catalog(bundled.value, file, wanted);
  }
  return parse_complete(detail::parse_json_text(*text, file), file, detail::fnv1a_hex(*text));
}
} // namespace

Catalog load_catalog(const std::string& bundled_path,
                     const std::string& overlay_path,
                     CatalogDetail wanted) {
  if (overlay_path.empty()) {
    return load_complete(bundled_path, wanted);
  }
  const std::string overlay_text = read_json_text(overlay_path);
  const auto overlay = detail::parse_json_text(overlay_text, overlay_path);
  const FieldReader over(overlay, overlay_path);
  if (!overlay.is_object()) {
    over.fail("a catalog must be a JSON object");
  }
  if (!over.has("extends")) {
    return parse_complete(overlay, overlay_path, detail::fnv1a_hex(overlay_text));
  }
  if (over.string("extends") != "bundled") {
    over.member("extends").fail("must be \"bundled\" (or absent for a complete catalog)");
  }
  over.reject_unknown(
      {"schema_version", "extends", "sources", "gpus", "catalog_version", "description"});
  const std::string base_text = read_json_text(bundled_path);
  nlohmann::json merged = detail::parse_json_text(base_text, bundled_path);
  // The bundled catalog must itself be sound before anything is merged into it.
  auto bundled = detail::bundled_catalog(base_text, bundled_path);
  const Catalog base = bundled ? std::move(*bundled) : parse_complete(merged, bundled_path, "");
  const std::string base_version = merged.value("catalog_version", "");
  std::vector<Origin> origins;
  for (std::size_t i = 0; i < merged["gpus"].size(); ++i) {
    origins.push_back({bundled_path, "/gpus/" + std::to_string(i)});
  }
  if (over.has("sources")) {
    for (const auto& [key, value] : over.object("sources").json().items()) {
      merged["sources"][key] = value;
    }
  }
  if (over.has("catalog_version")) {
    merged["catalog_version"] = base_version + "+" + over.string("catalog_version");
  }
  if (over.has("gpus")) {
    const auto entries = over.array("gpus");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      const std::string pointer = "/gpus/" + std::to_string(i);
      const std::string name = e.string("name");
      const Gpu* existing = base.find(name);
      if (existing == nullptr) {
        merged["gpus"].push_back(e.json());
        origins.push_back({overlay_path, pointer});
        continue;
      }
      const auto index = static_cast<std::size_t>(existing - base.gpus.data());
      check_overlay_prices(e);
      nlohmann::json patch = e.json();
      patch.erase("name"); // the overlay may use an alias; the bundled name stays
      // Prices for a GPU the bundled catalog calls not rentable (a team's quote for MI355X, a
      // refreshed price list's GB200) answer why it was: the mark goes, unless the overlay sets it.
      if (patch.contains("prices") && patch["prices"].is_array() && !patch["prices"].empty() &&
          !patch.contains("not_rentable")) {
        merged["gpus"][index].erase("not_rentable");
      }
      merge_into(merged["gpus"][index], patch);
      origins[index] = {overlay_path, pointer};
    }
  }
  auto c =
      parse_entries(merged, origins, overlay_path, detail::fnv1a_hex(base_text + overlay_text));
  c.files = {bundled_path, overlay_path};
  return c;
}

} // namespace rightsize
