#pragma once

// A published run and rightsize's prediction of it, as compare and plan both show it
// (compare.cpp): one line for a person, one JSON object for a program.

#include <rightsize/core/json_writer.hpp>
#include <rightsize/plan/published.hpp>

#include <string>

namespace rightsize {

// "published: 3,538 output tokens/s on 1 x H200-SXM-141GB (TP1, fp8), tensorrt-llm offline
// 2048/128 [source, id]; rightsize predicts 3,100 (2,600-3,900) for that run (-12%)"
std::string published_line(const PublishedPrediction& p);
void write_published_json(detail::JsonWriter& w, const PublishedPrediction& p);

} // namespace rightsize
