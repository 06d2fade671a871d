// read_input_file_unless (core/files.hpp): a data file whose bytes are the compiled-in copy's is
// recognised without being held whole; any other file comes back as read_input_file gives it,
// with the same errors.

#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>

#include <catch2/catch.hpp>

#include <string>

using rightsize::InputError;
using rightsize::k_max_json_file_bytes;
using rightsize::read_input_file;
using rightsize::read_input_file_unless;
using rightsize::test::ScratchDir;

namespace {

std::optional<std::string> unless(const std::string& path, std::string_view known) {
  return read_input_file_unless(path, known, k_max_json_file_bytes, "JSON input");
}

// Text of `n` bytes that differs from one position to the next (a shifted piece would not match).
std::string text_of(std::size_t n) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = static_cast<char>('a' + (i * 7 + i / 26) % 26);
  }
  return s;
}

} // namespace

TEST_CASE("read_input_file_unless: the known bytes are recognised, anything else is read") {
  const ScratchDir dir;
  // Small, exactly one 16 KiB piece, and several pieces with a last partial one.
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{300}, std::size_t{16384}, std::size_t{70000}}) {
    const std::string known = text_of(n);
    const std::string same = dir.write("same.json", known);
    CHECK_FALSE(unless(same, known).has_value());

    // The same size, one byte changed: first, in a later piece, last.
    for (const std::size_t at : {std::size_t{0}, n / 2 + n / 3, n - 1}) {
      std::string edited = known;
      edited[at] = edited[at] == 'x' ? 'y' : 'x';
      const std::string path = dir.write("edited.json", edited);
      const auto text = unless(path, known);
      REQUIRE(text.has_value());
      CHECK(*text == edited); // read again from the start, whole
    }
    // One byte more or less.
    const std::string longer = dir.write("longer.json", known + "\n");
    CHECK(unless(longer, known) == known + "\n");
    const std::string shorter = dir.write("shorter.json", known.substr(0, n - 1));
    CHECK(unless(shorter, known) == known.substr(0, n - 1));
  }
}

TEST_CASE("read_input_file_unless: no known bytes means read the file") {
  const ScratchDir dir;
  const std::string empty = dir.write("empty.json", "");
  // An empty file is not "the known bytes" when none are known.
  CHECK(unless(empty, "") == std::string());
  const std::string some = dir.write("some.json", "{}");
  CHECK(unless(some, "") == std::string("{}"));
  CHECK(unless(some, "{}") == std::nullopt);
}

TEST_CASE("read_input_file_unless: the errors of read_input_file, naming the path") {
  const ScratchDir dir;
  const std::string missing = dir.path() + "/missing.json";
  CHECK_THROWS_MATCHES(unless(missing, "{}"),
                       InputError,
                       Catch::Matchers::Predicate<InputError>([&](const InputError& e) {
                         return std::string(e.what()).find(missing) != std::string::npos &&
                                std::string(e.what()).find("no such file") != std::string::npos;
                       }));
  CHECK_THROWS_AS(unless(dir.path(), "{}"), InputError); // a directory
  const std::string big = dir.write("big.json", "[1, 2, 3]");
  CHECK_THROWS_WITH(read_input_file_unless(big, "[1, 2, 3]", 4, "JSON input"),
                    Catch::Matchers::Contains("larger than"));
  CHECK(read_input_file(big, k_max_json_file_bytes, "JSON input") == "[1, 2, 3]");
}
