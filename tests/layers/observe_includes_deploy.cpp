// Compiled by layers.observe_cannot_include_deploy with observe's include flags: observe sits
// beside deploy, not above it (the GPU product names it reads are the catalog's), so this include
// must not compile.
#include <rightsize/catalog/gpu_products.hpp>
#include <rightsize/deploy/deploy.hpp>
