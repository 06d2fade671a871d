#pragma once

// Inside the catalog stage: the names the catalog's readers and lookups share. Not a public
// header.

#include <rightsize/catalog/catalog.hpp>

#include <string>
#include <utility>
#include <vector>

namespace rightsize::detail {

// The tensor precisions by their key in dense_tflop_per_s, in the catalog's order.
const std::vector<std::pair<std::string, TensorPrecision>>& precision_names();
std::vector<std::string> precision_keys();

// The vendors a catalog entry or engine generation may name: nvidia, amd, intel, google, aws.
const std::vector<std::pair<std::string, std::string>>& vendor_choices();

// "H100 SXM", "h100-sxm" and "H100_SXM" are the same name: lower case, letters and digits only.
std::string squash(const std::string& s);

} // namespace rightsize::detail
