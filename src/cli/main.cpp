#include "cli/app.hpp"

// Under AddressSanitizer the process frees what it allocated, so that LeakSanitizer still reports
// what a command forgot to free.
#if defined(__SANITIZE_ADDRESS__)
#define RIGHTSIZE_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RIGHTSIZE_FREE_AT_EXIT 1
#endif
#endif

int main(int argc, char** argv) {
#ifdef RIGHTSIZE_FREE_AT_EXIT
  constexpr auto teardown = rightsize::cli::Teardown::free;
#else
  constexpr auto teardown = rightsize::cli::Teardown::leave_to_exit;
#endif
  return rightsize::cli::run({argv + 1, argv + argc}, std::cout, std::cerr, teardown);
}
