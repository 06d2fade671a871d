// An LD_PRELOAD library for tests/cli/test_write_faults.sh: a disk that fails halfway through a
// run. With RIGHTSIZE_FAIL_RENAME_AT=N, the N-th rename() (from 1) fails with EROFS and the others
// succeed (a directory that refuses one replacement, then lets the rollback through); with
// RIGHTSIZE_FAIL_WRITE_AFTER=N, write() to a file (not standard input, output or error) succeeds
// N times and then fails with ENOSPC (a full disk). Without them it changes nothing.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

namespace {

long budget(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? -1 : std::strtol(v, nullptr, 10);
}

// Whether the call is allowed: -1 always; else while calls are left, counting them down.
bool allowed(long& left) {
  if (left < 0) {
    return true;
  }
  if (left == 0) {
    return false;
  }
  --left;
  return true;
}

} // namespace

extern "C" int rename(const char* from, const char* to) {
  using Fn = int (*)(const char*, const char*);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "rename"));
  static const long at = budget("RIGHTSIZE_FAIL_RENAME_AT");
  static long calls = 0;
  if (++calls == at) {
    errno = EROFS;
    return -1;
  }
  return real(from, to);
}

extern "C" ssize_t write(int fd, const void* data, size_t bytes) {
  using Fn = ssize_t (*)(int, const void*, size_t);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "write"));
  static long left = budget("RIGHTSIZE_FAIL_WRITE_AFTER");
  if (fd > 2 && !allowed(left)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, data, bytes);
}
