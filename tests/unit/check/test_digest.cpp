// The spec digest a lock records (docs/ci.md, "What a lock holds").

#include <rightsize/check/lock.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;

// validate names no KV cache format for an embedding or image generation workload (null), but
// the spec digest keeps it: locks written before still match these specs (the digests are those
// `plan --lock` wrote before the change).
TEST_CASE("check: digests of image workload specs did not move with validate's KV cache",
          "[check]") {
  const std::string examples = RIGHTSIZE_EXAMPLES_DIR;
  CHECK(digest_spec(load_spec(examples + "/siglip-image-embeddings.json")) == "f33a0e7d6a34dc70");
  CHECK(digest_spec(load_spec(examples + "/sdxl-image-generation.json")) == "1c12f8e5e9dc6bce");
}
