// Request lengths from a histogram: workload.length_histogram (docs/spec.md, "Length histograms").

#include "spec_test_helpers.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::test::ScratchDir;
using rightsize::test::spec_error;
using rightsize::test::write_spec;

namespace {

std::string with_workload(const std::string& fields) {
  return R"({"model": "models/llama", "workload": {"type": "inference", "concurrency": 8, )" +
         fields + "}}";
}

const char* k_two_bins = R"("length_histogram": [
    {"input_tokens": 512, "output_tokens": 256, "share": 3},
    {"input_tokens": 4096, "output_tokens": 512, "share": 1}])";

} // namespace

TEST_CASE("spec: a length histogram's shares, means and longest request", "[spec][lengths]") {
  ScratchDir dir;
  const Spec s = load_spec(write_spec(dir, with_workload(k_two_bins)));
  const InferenceWorkload& w = s.workload.inference;
  REQUIRE(w.length_histogram.size() == 2);
  // Shares 3 : 1 scaled to sum to 1.
  CHECK(w.length_histogram[0].share == Approx(0.75));
  CHECK(w.length_histogram[1].share == Approx(0.25));
  // By hand: 0.75 x 512 + 0.25 x 4096 = 1408 in, 0.75 x 256 + 0.25 x 512 = 320 out.
  CHECK(w.mean_prompt_tokens() == Approx(1408.0));
  CHECK(w.mean_output_tokens() == Approx(320.0));
  // Memory holds the longest of the bins: 4096 in, 512 out, 4608 in one request.
  CHECK(w.input_tokens == 4096);
  CHECK(w.output_tokens == 512);
  CHECK(w.longest_request() == 4608);
  CHECK_FALSE(w.fixed_lengths());
  CHECK(w.describe_lengths() ==
        "2 length bins, mean 1408 in + 320 out tokens (longest request 4608)");
  // The canonical form (what check digests) carries the bins; fixed lengths add nothing.
  const nlohmann::json j = validation_to_json(s);
  REQUIRE(j["workload"]["length_histogram"].size() == 2);
  CHECK(j["workload"]["length_histogram"][1]["share"] == 0.25);
  const Spec fixed =
      load_spec(write_spec(dir, with_workload(R"("input_tokens": 1408, "output_tokens": 320)")));
  CHECK(fixed.workload.inference.fixed_lengths());
  CHECK(fixed.workload.inference.mean_prompt_tokens() == 1408.0);
  CHECK_FALSE(validation_to_json(fixed)["workload"].contains("length_histogram"));
  CHECK_FALSE(validation_to_json(fixed)["workload"].contains("length_low_ratio"));
  // A range's low ratio enters the canonical form too: a changed range is a changed spec.
  const Spec ranged = load_spec(write_spec(
      dir,
      with_workload(R"("input_tokens": 2000, "output_tokens": 400, "length_low_ratio": 0.5)")));
  CHECK(ranged.workload.inference.mean_prompt_tokens() == Approx(1500.0));
  CHECK(ranged.workload.inference.mean_output_tokens() == Approx(300.0));
  CHECK(validation_to_json(ranged)["workload"]["length_low_ratio"] == 0.5);
}

TEST_CASE("spec: a length histogram is the same traffic whatever the order of its bins",
          "[spec][lengths]") {
  ScratchDir dir;
  const Spec forward = load_spec(write_spec(dir, with_workload(k_two_bins)));
  const Spec reversed = load_spec(write_spec(dir, with_workload(R"("length_histogram": [
      {"input_tokens": 4096, "output_tokens": 512, "share": 1},
      {"input_tokens": 512, "output_tokens": 256, "share": 3}])")));
  // Sorted by length: the same bins, the same canonical form (check's digest).
  CHECK(validation_to_json(forward)["workload"] == validation_to_json(reversed)["workload"]);
  CHECK(reversed.workload.inference.length_histogram.front().input_tokens == 512);
  // Bins of the same lengths are one: two halves of one length are fixed lengths.
  const Spec halves = load_spec(write_spec(dir, with_workload(R"("length_histogram": [
      {"input_tokens": 700, "output_tokens": 70, "share": 0.5},
      {"input_tokens": 700, "output_tokens": 70, "share": 0.5}])")));
  REQUIRE(halves.workload.inference.length_histogram.size() == 1);
  CHECK(halves.workload.inference.length_histogram.front().share == 1.0);
  CHECK(halves.workload.inference.fixed_lengths());
  // Shares that sum to 1 stay as written.
  const Spec tenths = load_spec(write_spec(dir, with_workload(R"("length_histogram": [
      {"input_tokens": 1, "output_tokens": 1, "share": 0.6},
      {"input_tokens": 2, "output_tokens": 2, "share": 0.3},
      {"input_tokens": 3, "output_tokens": 3, "share": 0.1}])")));
  CHECK(tenths.workload.inference.length_histogram.front().share == 0.6);
}

TEST_CASE("spec: a bad length histogram is a one-line error naming the field", "[spec][lengths]") {
  CHECK_THAT(spec_error(with_workload(std::string(k_two_bins) + R"(, "input_tokens": 100)")),
             Catch::StartsWith("spec.json:/workload/input_tokens: give the lengths once"));
  CHECK_THAT(spec_error(with_workload(std::string(k_two_bins) + R"(, "length_low_ratio": 0.5)")),
             Catch::StartsWith("spec.json:/workload/length_low_ratio: give the lengths once"));
  CHECK_THAT(spec_error(with_workload(R"("length_histogram": [])")),
             Catch::StartsWith("spec.json:/workload/length_histogram: must hold 1 to 1000 bins"));
  CHECK_THAT(spec_error(with_workload(R"("length_histogram": {"input_tokens": 5})")),
             Catch::StartsWith("spec.json:/workload/length_histogram: must be an array"));
  CHECK_THAT(spec_error(with_workload(R"("length_histogram": [512])")),
             Catch::StartsWith("spec.json:/workload/length_histogram/0: must be an object"));
  CHECK_THAT(spec_error(with_workload(
                 R"("length_histogram": [{"input_tokens": 5, "output_tokens": 5, "share": 0}])")),
             Catch::StartsWith("spec.json:/workload/length_histogram/0/share: must be > 0"));
  CHECK_THAT(spec_error(with_workload(
                 R"("length_histogram": [{"input_tokens": 5, "output_tokens": 5, "share": -1}])")),
             Catch::StartsWith("spec.json:/workload/length_histogram/0/share"));
  CHECK_THAT(spec_error(with_workload(R"("length_histogram": [{"input_tokens": 5, "share": 1}])")),
             Catch::StartsWith("spec.json:/workload/length_histogram/0"));
  CHECK_THAT(
      spec_error(with_workload(
          R"("length_histogram": [{"input_tokens": 5, "output_tokens": 5, "share": 1, "weight": 2}])")),
      Catch::StartsWith("spec.json:/workload/length_histogram/0/weight: unknown field \"weight\""));
  CHECK_THAT(spec_error(with_workload(
                 R"("length_histogram": [{"input_tokens": 1.5, "output_tokens": 5, "share": 1}])")),
             Catch::StartsWith("spec.json:/workload/length_histogram/0/input_tokens"));
  // Llama-3.1-8B's 131072-token context: the longest bin is what must fit.
  CHECK_THAT(
      spec_error(with_workload(
          R"("length_histogram": [{"input_tokens": 100, "output_tokens": 10, "share": 9},
                                  {"input_tokens": 131000, "output_tokens": 100, "share": 1}])")),
      Catch::StartsWith("spec.json:/workload/length_histogram: the longest bin's 131100 tokens"));
  CHECK_THAT(spec_error(with_workload(std::string(k_two_bins) + R"(, "max_model_len": 4096)")),
             Catch::StartsWith("spec.json:/workload/max_model_len: is shorter than "
                               "length_histogram's longest requests (4608 tokens)"));
}
