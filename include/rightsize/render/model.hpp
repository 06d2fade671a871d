#pragma once

// Rendering of the normalized model (`rightsize model`) and of spec validation
// (`rightsize validate`). Computing stays in spec/model; these only format.

#include <rightsize/spec/spec.hpp>

#include <ostream>

namespace rightsize {

void render_model_json(const Spec& spec, std::ostream& out);
void render_model_table(const Spec& spec, std::ostream& out);

// The Hugging Face families rightsize reads (`rightsize model --list`).
void render_families_json(std::ostream& out);
void render_families_table(std::ostream& out);

// One summary of a validated spec, for `rightsize validate`.
void render_validation_text(const Spec& spec, std::ostream& out);

} // namespace rightsize
