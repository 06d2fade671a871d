// Exact parameter counts and bytes from safetensors headers: an 8-byte little-endian header
// length N, then N bytes of JSON mapping tensor names to {dtype, shape, data_offsets}. Only the
// header is read; the tensor data is never touched. Format: github.com/huggingface/safetensors.

#include <rightsize/core/json_reader.hpp>
#include <rightsize/model/model.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_max_header_bytes = 100U * 1024U * 1024U;
constexpr double k_max_elements = 9007199254740992.0; // 2^53

// Bits per element of each safetensors dtype.
std::optional<double> dtype_bits(const std::string& dtype) {
  static const std::map<std::string, double> bits{{"F64", 64},
                                                  {"I64", 64},
                                                  {"U64", 64},
                                                  {"F32", 32},
                                                  {"I32", 32},
                                                  {"U32", 32},
                                                  {"F16", 16},
                                                  {"BF16", 16},
                                                  {"I16", 16},
                                                  {"U16", 16},
                                                  {"I8", 8},
                                                  {"U8", 8},
                                                  {"BOOL", 8},
                                                  {"F8_E4M3", 8},
                                                  {"F8_E5M2", 8},
                                                  {"F8_E8M0", 8},
                                                  {"F6_E2M3", 6},
                                                  {"F6_E3M2", 6},
                                                  {"F4", 4}};
  const auto it = bits.find(dtype);
  if (it == bits.end()) {
    return std::nullopt;
  }
  return it->second;
}

// The header length a shard announces in its first 8 bytes (little-endian); needs 8 bytes.
std::uint64_t announced_header_length(std::string_view start) {
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) {
    length = (length << 8U) | static_cast<unsigned char>(start[static_cast<std::size_t>(i)]);
  }
  return length;
}

bool header_length_fits(std::uint64_t length, std::uint64_t file_size) {
  return length != 0 && length <= file_size - 8 && length <= k_max_header_bytes;
}

// The first bytes of a shard: the 8-byte length and the header it announces (or fewer, when the
// file is shorter), read without touching the tensor data.
std::string read_shard_start(const fs::path& path, std::uint64_t& file_size) {
  const std::string name = path.string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw InputError(name, "is not a regular file, expected a safetensors file");
  }
  file_size = fs::file_size(path, ec);
  if (ec) {
    throw InputError(name, "cannot read safetensors file: " + ec.message());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(name, "cannot open safetensors file");
  }
  std::string start(8, '\0');
  in.read(start.data(), 8);
  start.resize(static_cast<std::size_t>(in.gcount()));
  if (start.size() < 8) {
    return start;
  }
  const std::uint64_t header_length = announced_header_length(start);
  if (!header_length_fits(header_length, file_size)) {
    return start; // parse_safetensors_header says why
  }
  start.resize(8 + static_cast<std::size_t>(header_length));
  in.read(start.data() + 8, static_cast<std::streamsize>(header_length));
  start.resize(8 + static_cast<std::size_t>(in.gcount()));
  return start;
}

} // namespace

SafetensorsTotals parse_safetensors_header(std::string_view file_start,
                                           std::uint64_t file_size,
                                           const std::string& name) {
  if (file_size < 8 || file_start.size() < 8) {
    throw InputError(name,
                     fmt::format("truncated safetensors file: {} bytes, shorter than the "
                                 "8-byte header length",
                                 file_size));
  }
  const std::uint64_t header_length = announced_header_length(file_start);
  if (!header_length_fits(header_length, file_size)) {
    throw InputError(name,
                     fmt::format("safetensors header length {} does not fit in the file "
                                 "({} bytes): truncated or not a safetensors file",
                                 header_length,
                                 file_size));
  }
  if (file_start.size() < 8 + header_length) {
    throw InputError(name, "truncated safetensors header");
  }
  const std::string_view header = file_start.substr(8, static_cast<std::size_t>(header_length));
  const auto json = detail::parse_json_text(header, name + " (header)");
  const FieldReader root(json, name + " (header)");
  if (!json.is_object()) {
    root.fail("safetensors header must be a JSON object");
  }
  const double data_size = static_cast<double>(file_size - 8 - header_length);
  SafetensorsTotals totals;
  for (const auto& [tensor, info] : json.items()) {
    if (tensor == "__metadata__") {
      continue;
    }
    const auto t = root.object(tensor);
    const auto dtype = t.string("dtype");
    const auto bits_per = dtype_bits(dtype);
    if (!bits_per) {
      t.member("dtype").fail("unknown safetensors dtype");
    }
    // Element counts stay exact integers (below 2^53), so a lying shape cannot turn into an
    // infinite or rounded parameter count.
    double elements = 1.0;
    for (const auto& d : t.array("shape")) {
      elements *= static_cast<double>(d.as_integer(Range::non_negative(1e15)));
      if (elements > k_max_elements) {
        t.member("shape").fail_plain(
            fmt::format("has more than {:.0f} elements: not a real tensor", k_max_elements));
      }
    }
    const auto offsets = t.array("data_offsets");
    if (offsets.size() != 2) {
      t.member("data_offsets").fail_plain("must be [begin, end]");
    }
    const auto begin = static_cast<double>(offsets[0].as_integer(Range::non_negative(1e18)));
    const auto end = static_cast<double>(offsets[1].as_integer(Range::non_negative(1e18)));
    if (end < begin || end > data_size) {
      t.member("data_offsets")
          .fail_plain(fmt::format("[{}, {}] lies outside the {} bytes of tensor data: the header "
                                  "lies about the file or the file is truncated",
                                  begin,
                                  end,
                                  data_size));
    }
    // As the safetensors reference checks it: elements x bits must be whole bytes (sub-byte
    // dtypes such as F4 pack two elements per byte) and equal the span of data_offsets.
    const double bits = elements * *bits_per;
    if (std::fmod(bits, 8.0) != 0.0) {
      t.member("shape").fail_plain(
          fmt::format("{:.0f} {} elements are not a whole number of bytes", elements, dtype));
    }
    const double expected = bits / 8.0;
    if (end - begin != expected) {
      t.member("data_offsets")
          .fail_plain(
              fmt::format("span {} bytes but shape and dtype need {}", end - begin, expected));
    }
    totals.bytes += end - begin;
    totals.elements_by_dtype[dtype] += elements;
  }
  return totals;
}

bool read_safetensors(const std::string& directory, ModelArch& model) {
  const fs::path dir(directory);
  const fs::path single = dir / "model.safetensors";
  const fs::path index = dir / "model.safetensors.index.json";
  std::vector<fs::path> shards;
  std::optional<double> index_total;
  std::error_code ec;
  if (fs::exists(index, ec)) {
    const auto json = detail::load_json_file(index.string());
    const FieldReader r(json, index.string());
    std::set<std::string> files;
    for (const auto& [tensor, file] : r.object("weight_map").json().items()) {
      if (!file.is_string()) {
        r.object("weight_map").member(tensor).fail("must be a file name");
      }
      files.insert(file.get<std::string>());
    }
    for (const auto& f : files) {
      shards.push_back(dir / f);
    }
    if (const auto meta = r.optional_object("metadata")) {
      index_total = meta->optional_number("total_size", Range::positive(1e16));
    }
  } else if (fs::exists(single, ec)) {
    shards.push_back(single);
  } else {
    return false;
  }

  SafetensorsTotals all;
  bool missing_shard = false;
  for (const auto& shard : shards) {
    if (!fs::exists(shard, ec)) {
      missing_shard = true;
      continue;
    }
    std::uint64_t file_size = 0;
    const std::string start = read_shard_start(shard, file_size);
    const auto t = parse_safetensors_header(start, file_size, shard.string());
    all.bytes += t.bytes;
    for (const auto& [dtype, n] : t.elements_by_dtype) {
      all.elements_by_dtype[dtype] += n;
    }
  }
  if (missing_shard) {
    if (!index_total) {
      return false;
    }
    // Only the index is here: its total_size is the exact byte count, the count stays derived.
    model.safetensors_bytes = bytes(*index_total);
    model.provenance.emplace_back("weight_bytes", index.string() + ":/metadata/total_size");
    return true;
  }
  model.safetensors_bytes = bytes(all.bytes);
  double elements = 0;
  model.safetensors_params_by_dtype.clear();
  for (const auto& [dtype, n] : all.elements_by_dtype) {
    model.safetensors_params_by_dtype.emplace_back(dtype, n);
    elements += n;
  }
  model.provenance.emplace_back("weight_bytes", "safetensors headers in " + directory);
  // Packed quantized tensors (int32 holding eight int4) do not count parameters; keep the
  // derived count for quantized checkpoints and use the headers for bytes only.
  if (!model.quantization.quantized() && elements > 0) {
    const double scale = elements / model.params_total;
    model.params_total = elements;
    model.params_active *= scale;
    model.param_source = "safetensors";
    model.provenance.emplace_back("params_total", "safetensors headers in " + directory);
  }
  return true;
}

} // namespace rightsize
