#include "cli/app.hpp"

int main(int argc, char** argv) {
  return rightsize::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
}
