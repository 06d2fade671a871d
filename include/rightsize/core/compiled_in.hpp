#pragma once

// The data directory of a binary that is given none and finds none (docs/cli.md, "Where the data
// comes from"): the data compiled into it. A path under it, "<compiled-in>/gpus.json", names no
// file on disk. read_input_file (core/files.hpp) serves it from the text set_compiled_in_data's
// lookup gives for the name below the directory ("gpus.json", "published/published.json");
// read_input_file_unless returns nullopt for it when `known` is not empty, since the loader's
// embedded value is that file. A name the lookup does not know is an InputError naming the path,
// --data and RIGHTSIZE_DATA.

#include <string_view>

namespace rightsize {

inline constexpr std::string_view k_compiled_in_data_dir = "<compiled-in>";

// Whether `path` is k_compiled_in_data_dir + "/" + a name.
bool is_compiled_in_path(std::string_view path);

// The compiled-in text of a data file by its name below the data directory; empty when none.
using CompiledInData = std::string_view (*)(std::string_view name);
// Set by the program (cli::run) before it reads anything: the stages above core know their files.
void set_compiled_in_data(CompiledInData lookup);

} // namespace rightsize
