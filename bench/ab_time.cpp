// Interleaved whole-process timing of two binaries on the same arguments.
//
//   rightsize_ab_time RUNS BINARY_A BINARY_B ARGS...
//
// Runs A and B alternately (A B, then B A, ...) RUNS times each after 5 warm-up pairs, standard
// output and error to /dev/null, and prints for each the median wall time (posix_spawn to wait4,
// about what `hyperfine -N` measures) with its quartiles, and the median CPU time (user + system,
// from wait4). On a machine shared with other work both binaries then see the same load, which
// separate hyperfine runs do not (docs/performance.md).
//
// It replaces bench/ab_time.py: a Python parent added 0.2 to 0.45 ms to every run of rightsize
// (its fork copied the interpreter's page tables, and the interpreter between runs evicted the
// caches the child then refilled), more for a larger child, which blurred a 3% difference.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

struct Sample {
  double wall_ms = 0;
  double cpu_ms = 0;
};

double ms(const timeval& t) {
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
}

// One run of `argv[0]` (any exit code: timing a failing command is allowed), or exits with a
// message when it cannot be started or is killed by a signal.
Sample run_once(std::vector<char*>& argv, const posix_spawn_file_actions_t& to_null) {
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (const int e = posix_spawn(&pid, argv[0], &to_null, nullptr, argv.data(), environ); e != 0) {
    std::fprintf(stderr, "rightsize_ab_time: cannot run %s: %s\n", argv[0], std::strerror(e));
    std::exit(2);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) {
    std::perror("rightsize_ab_time: wait4");
    std::exit(2);
  }
  const auto end = std::chrono::steady_clock::now();
  if (!WIFEXITED(status)) {
    std::fprintf(stderr, "rightsize_ab_time: %s did not exit normally\n", argv[0]);
    std::exit(2);
  }
  return {std::chrono::duration<double, std::milli>(end - start).count(),
          ms(usage.ru_utime) + ms(usage.ru_stime)};
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const std::size_t above = std::min(below + 1, v.size() - 1);
  return v[below] + (v[above] - v[below]) * (at - static_cast<double>(below));
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: rightsize_ab_time RUNS BINARY_A BINARY_B ARGS...\n");
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  if (runs < 1) {
    std::fprintf(stderr, "rightsize_ab_time: RUNS must be a positive number, got %s\n", argv[1]);
    return 2;
  }
  const std::array<char*, 2> binaries{argv[2], argv[3]};
  std::array<std::vector<char*>, 2> commands;
  for (std::size_t b = 0; b < 2; ++b) {
    commands[b].push_back(binaries[b]);
    commands[b].insert(commands[b].end(), argv + 4, argv + argc);
    commands[b].push_back(nullptr);
  }
  posix_spawn_file_actions_t to_null;
  posix_spawn_file_actions_init(&to_null);
  posix_spawn_file_actions_addopen(&to_null, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&to_null, 2, "/dev/null", O_WRONLY, 0);
  std::array<std::vector<Sample>, 2> samples;
  constexpr int k_warm_up = 5;
  for (int i = -k_warm_up; i < runs; ++i) {
    for (std::size_t k = 0; k < 2; ++k) {
      const std::size_t b = i % 2 == 0 ? k : 1 - k;
      const Sample s = run_once(commands[b], to_null);
      if (i >= 0) {
        samples[b].push_back(s);
      }
    }
  }
  posix_spawn_file_actions_destroy(&to_null);
  for (std::size_t b = 0; b < 2; ++b) {
    std::vector<double> wall;
    std::vector<double> cpu;
    for (const Sample& s : samples[b]) {
      wall.push_back(s.wall_ms);
      cpu.push_back(s.cpu_ms);
    }
    std::printf("%c %s: median wall %.3f ms (quartiles %.3f-%.3f), median CPU %.3f ms\n",
                b == 0 ? 'A' : 'B',
                binaries[b],
                quantile(wall, 0.5),
                quantile(wall, 0.25),
                quantile(wall, 0.75),
                quantile(cpu, 0.5));
  }
  return 0;
}
