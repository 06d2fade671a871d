#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::detail::CsvColumns;
using rightsize::detail::CsvRecordReader;
using rightsize::detail::CsvTable;
using rightsize::detail::parse_csv;
using rightsize::detail::Range;

TEST_CASE("csv: quoted fields, doubled quotes, CR LF and blank lines", "[core][csv]") {
  const auto t = parse_csv("a,b,c\r\n"
                           "1,\"x, y\",\"say \"\"hi\"\"\"\r\n"
                           "\r\n"
                           "2,\"two\nlines\",\n"
                           "3,,last",
                           "t.csv",
                           10);
  REQUIRE(t.header == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0].line == 2);
  CHECK(t.records[0].fields == std::vector<std::string_view>{"1", "x, y", "say \"hi\""});
  CHECK(t.records[1].line == 4);
  CHECK(t.records[1].fields == std::vector<std::string_view>{"2", "two\nlines", ""});
  // The quoted line break moved the count on: the next record starts on line 6.
  CHECK(t.records[2].line == 6);
  CHECK(t.records[2].fields == std::vector<std::string_view>{"3", "", "last"});
}

TEST_CASE("csv: fields stay valid when the table moves, and a short text is copied",
          "[core][csv]") {
  auto make = [] { return parse_csv("a,b\nx,\"q\"\"uote\"\"d\"\n", "t.csv", 10); };
  std::vector<CsvTable> tables;
  tables.push_back(make());
  tables.push_back(make()); // moves the first
  for (const auto& t : tables) {
    REQUIRE(t.records.size() == 1);
    CHECK(t.records[0].fields[0] == "x");
    CHECK(t.records[0].fields[1] == "q\"uote\"d");
  }
}

TEST_CASE("csv: malformed text is refused with its line", "[core][csv]") {
  REQUIRE_THROWS_WITH(parse_csv("", "t.csv", 10),
                      "t.csv: is empty: expected a header line naming the columns");
  REQUIRE_THROWS_WITH(parse_csv("a,b\n1\n", "t.csv", 10),
                      "t.csv:2: has 1 fields, the header names 2 columns");
  REQUIRE_THROWS_WITH(
      parse_csv("a,b\n1,x\"y\n", "t.csv", 10),
      "t.csv:2: a quote inside an unquoted field (quote the whole field and double the quote)");
  REQUIRE_THROWS_WITH(parse_csv("a,b\n1,\"open\n", "t.csv", 10),
                      "t.csv:2: a quoted field is not closed before the end of the file");
  REQUIRE_THROWS_WITH(parse_csv("a,b\n1,\"x\"y\n", "t.csv", 10),
                      "t.csv:2: text after the closing quote of a field");
  REQUIRE_THROWS_WITH(parse_csv("a,,c\n", "t.csv", 10),
                      "t.csv:1: column 2 of the header has no name");
  REQUIRE_THROWS_WITH(parse_csv("a,b,a\n", "t.csv", 10),
                      "t.csv:1: column \"a\" appears twice in the header");
  REQUIRE_THROWS_WITH(parse_csv("a\n1\n2\n3\n", "t.csv", 2), "t.csv:4: more than 2 records");
  REQUIRE_THROWS_WITH(parse_csv(std::string("a\n1\0\n", 5), "t.csv", 2),
                      "t.csv:2:2: a NUL byte (is this a binary file?)");
  REQUIRE_THROWS_WITH(parse_csv("a\n\xff\n", "t.csv", 2), "t.csv:2:1: not valid UTF-8 text");
  REQUIRE_THROWS_WITH(parse_csv("a,b\n1,x\ry\n", "t.csv", 10),
                      "t.csv:2: a carriage return that does not end the line");
}

TEST_CASE("csv: fields read by column, with the column in every error", "[core][csv]") {
  const auto t = parse_csv("name,n,x,kind\n"
                           "a,12,2.5,fast\n"
                           "b,1.5,nan,slowe\n"
                           "c,,0x10,\n"
                           "d,99999999999999999,1e400,fast\n",
                           "t.csv",
                           10);
  const CsvColumns columns(t);
  REQUIRE_NOTHROW(columns.require({"name", "n"}));
  REQUIRE_THROWS_WITH(columns.require({"gpus"}), "t.csv:1: the header has no column \"gpus\"");
  REQUIRE_THROWS_WITH(columns.reject_unknown({"name", "n", "x", "kinds"}),
                      "t.csv:1: unknown column \"kind\" (did you mean \"kinds\"?)");

  const CsvRecordReader a(t, t.records[0]);
  CHECK(a.string("name") == "a");
  CHECK(a.integer("n", Range{1, 100}) == 12);
  CHECK(a.number("x", Range::positive()) == 2.5);
  CHECK(a.choice<int>("kind", {{"fast", 1}, {"slow", 2}}) == 1);
  CHECK_FALSE(a.optional_string("missing_column"));
  REQUIRE_THROWS_WITH(a.integer("n", Range{1, 10}),
                      "t.csv:2: column \"n\": must be between 1 and 10, got \"12\"");

  const CsvRecordReader b(t, t.records[1]);
  REQUIRE_THROWS_WITH(b.integer("n", Range{1, 10}),
                      "t.csv:3: column \"n\": must be an integer, got \"1.5\"");
  REQUIRE_THROWS_WITH(b.number("x", Range::positive()),
                      "t.csv:3: column \"x\": must be a number, got \"nan\"");
  REQUIRE_THROWS_WITH(b.choice<int>("kind", {{"fast", 1}, {"slow", 2}}),
                      "t.csv:3: column \"kind\": must be one of fast, slow (did you mean "
                      "\"slow\"?), got \"slowe\"");

  const CsvRecordReader c(t, t.records[2]);
  CHECK_FALSE(c.optional_integer("n", Range{1, 10}));
  REQUIRE_THROWS_WITH(c.string("kind"), "t.csv:4: column \"kind\": required field is empty");
  REQUIRE_THROWS_WITH(c.number("x", Range::positive()),
                      "t.csv:4: column \"x\": must be a number, got \"0x10\"");

  const CsvRecordReader d(t, t.records[3]);
  REQUIRE_THROWS_WITH(d.integer("n", Range{1, 1e18}),
                      "t.csv:5: column \"n\": must be an integer, got \"99999999999999999\"");
  REQUIRE_THROWS_WITH(d.number("x", Range::positive()),
                      "t.csv:5: column \"x\": must be a number, got \"1e400\"");
}
