#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::detail::FieldReader;
using rightsize::detail::Range;

TEST_CASE("error: edit distance and suggestions", "[error]") {
  CHECK(edit_distance("plan", "plan") == 0);
  CHECK(edit_distance("plna", "plan") == 2);
  CHECK(edit_distance("H100", "h100") == 0);
  CHECK(edit_distance("gpu_memry", "gpu_memory") == 1);
  CHECK(did_you_mean("gpu_memry", {"gpu_memory", "workload"}) == " (did you mean \"gpu_memory\"?)");
  CHECK(did_you_mean("xyzzy", {"plan", "check"}).empty());
  CHECK(did_you_mean("chek", {"check", "cheek", "plan"}) ==
        " (did you mean \"check\" or \"cheek\"?)");
}

TEST_CASE("error: InputError joins where and detail", "[error]") {
  const InputError e("spec.json:/workload/batch", "must be >= 1, got 0");
  CHECK(std::string(e.what()) == "spec.json:/workload/batch: must be >= 1, got 0");
  CHECK(e.where() == "spec.json:/workload/batch");
  CHECK(e.detail() == "must be >= 1, got 0");
  CHECK(std::string(InputError("", "plain").what()) == "plain");
  CHECK(to_int(ExitCode::input) == 2);
  CHECK(to_int(ExitCode::infeasible) == 3);
  CHECK(to_int(ExitCode::internal) == 4);
  CHECK(to_int(ExitCode::regression) == 1);
}

TEST_CASE("error: JSON syntax errors give line and column", "[error][json]") {
  REQUIRE_THROWS_WITH(detail::parse_json_text("{\n  \"a\": 1,\n  \"b\": ]\n}", "spec.json"),
                      Catch::StartsWith("spec.json:3:8: invalid JSON:"));
  REQUIRE_THROWS_WITH(detail::parse_json_text("   \n", "e.json"),
                      "e.json: file is empty, expected a JSON object");
  REQUIRE_THROWS_WITH(detail::parse_json_text(std::string("{\"a\":\0}", 7), "bin.json"),
                      "bin.json:1:6: not a JSON text file (binary or non-UTF-8 data)");
  REQUIRE_THROWS_WITH(detail::parse_json_text("{\"a\": 1, \"a\": 2}", "d.json"),
                      "d.json: duplicate key \"a\"");
  REQUIRE_THROWS_WITH(detail::parse_json_text("{\"a\": NaN}", "n.json"),
                      Catch::StartsWith("n.json:1:7: invalid JSON"));
}

TEST_CASE("error: a duplicate key is found among many, at any depth, in any object",
          "[error][json]") {
  // 1,500 distinct keys (an image classifier's id2label has 1,000), then one of them again.
  std::string many = "{";
  for (int i = 0; i < 1500; ++i) {
    many += "\"" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  }
  REQUIRE(detail::parse_json_text(many + "\"last\": 0}", "ok.json").size() == 1501);
  REQUIRE_THROWS_WITH(detail::parse_json_text(many + "\"777\": 0}", "d.json"),
                      "d.json: duplicate key \"777\"");
  // Objects at the same depth one after another: each starts with no keys.
  REQUIRE_NOTHROW(detail::parse_json_text(
      R"({"a": {"x": 1, "y": 2}, "b": {"x": 1, "y": 2}, "c": [{"x": 1}, {"x": 2}]})", "ok.json"));
  REQUIRE_THROWS_WITH(
      detail::parse_json_text(R"({"a": {"x": 1}, "b": {"y": 1, "z": {"q": 1}, "y": 2}})", "n.json"),
      "n.json: duplicate key \"y\"");
  REQUIRE_THROWS_WITH(detail::parse_json_text(R"([{"a": 1}, {"b": 1, "b": 2}])", "a.json"),
                      "a.json: duplicate key \"b\"");
  // The empty key, and keys that differ only past a prefix or in length.
  REQUIRE_THROWS_WITH(detail::parse_json_text(R"({"": 1, "a": 2, "": 3})", "e.json"),
                      "e.json: duplicate key \"\"");
  REQUIRE_NOTHROW(
      detail::parse_json_text(R"({"": 1, "k": 1, "kk": 1, "k\u0000": 1, "kk2": 1})", "ok.json"));
}

TEST_CASE("error: unreadable files are one-line input errors", "[error][json]") {
  REQUIRE_THROWS_WITH(detail::load_json_file("/nonexistent/spec.json"),
                      "/nonexistent/spec.json: cannot read file: no such file or directory");
  REQUIRE_THROWS_WITH(detail::load_json_file(RIGHTSIZE_TESTS_DIR),
                      std::string(RIGHTSIZE_TESTS_DIR) +
                          ": is a directory, expected a regular file");
}

TEST_CASE("error: FieldReader names the file, pointer, expectation and value", "[error][json]") {
  const auto doc = nlohmann::json::parse(
      R"({"workload": {"batch": 0, "type": "inferense", "gpu_memry": 1, "tokens": 2.5,
          "name": 7, "nested": {"a/b": -1}}})");
  const FieldReader root(doc, "spec.json");
  const auto workload = root.object("workload");
  REQUIRE_THROWS_WITH(workload.integer("batch", Range{1, 1e6}),
                      "spec.json:/workload/batch: must be between 1 and 1e+06, got 0");
  REQUIRE_THROWS_WITH(workload.integer("tokens", Range::positive()),
                      "spec.json:/workload/tokens: must be an integer, got 2.5");
  REQUIRE_THROWS_WITH(workload.string("name"), "spec.json:/workload/name: must be a string, got 7");
  REQUIRE_THROWS_WITH(workload.string("model"),
                      "spec.json:/workload/model: required field is missing");
  REQUIRE_THROWS_WITH(workload.object("nested").number("a/b", Range::positive()),
                      "spec.json:/workload/nested/a~1b: must be > 0, got -1");
  REQUIRE_THROWS_WITH(
      workload.reject_unknown({"batch", "type", "gpu_memory", "tokens", "name", "nested"}),
      "spec.json:/workload/gpu_memry: unknown field \"gpu_memry\" (did you mean \"gpu_memory\"?)");
  enum class Kind { inference, training };
  REQUIRE_THROWS_WITH(
      workload.choice<Kind>("type", {{"inference", Kind::inference}, {"training", Kind::training}}),
      "spec.json:/workload/type: must be one of inference, training (did you mean \"inference\"?), "
      "got \"inferense\"");
  CHECK(root.object("workload").optional_number("absent", Range::positive()) == std::nullopt);
  CHECK(workload.integer("batch", Range::non_negative()) == 0);
}

TEST_CASE("error: absurd numbers are rejected by range", "[error][json]") {
  const auto doc =
      nlohmann::json::parse(R"({"tokens": 1e30, "neg": -5, "huge": 1e308, "inexact": 1e17})");
  const FieldReader root(doc, "s.json");
  // A whole number out of range says the range, not "must be an integer" (issue 43).
  REQUIRE_THROWS_WITH(root.integer("tokens", Range::positive(1e15)),
                      "s.json:/tokens: must be > 0 and <= 1e+15, got 1e+30");
  REQUIRE_THROWS_WITH(root.integer("huge", Range{1, 1e7}),
                      "s.json:/huge: must be between 1 and 1e+07, got 1e+308");
  REQUIRE_THROWS_WITH(root.integer("inexact", Range::positive()),
                      "s.json:/inexact: must be an integer of at most 2^53 (9007199254740992), "
                      "exactly as JSON numbers hold, got 1e+17");
  REQUIRE_THROWS_WITH(root.number("tokens", Range::positive(1e15)),
                      "s.json:/tokens: must be > 0 and <= 1e+15, got 1e+30");
  REQUIRE_THROWS_WITH(root.number("neg", Range::non_negative()),
                      "s.json:/neg: must be >= 0, got -5");
}
