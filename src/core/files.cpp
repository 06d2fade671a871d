#include <rightsize/core/compiled_in.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace rightsize {

namespace {

std::string describe_errno(int err) {
  switch (err) {
  case ENOENT:
    return "no such file or directory";
  case EACCES:
  case EPERM:
    return "permission denied";
  case ENOTDIR:
    return "a component of the path is not a directory";
  case ENOSPC:
    return "no space left on device";
  case EROFS:
    return "read-only file system";
  case EDQUOT:
    return "disk quota exceeded";
  default:
    return std::strerror(err);
  }
}

std::string describe_file_type(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO (named pipe)";
  }
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "a device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

// Reads at most max_bytes + 1 bytes from fd: one byte more than allowed proves the input too big
// even where the size is not known up front (standard input, /proc files). `expected` (the size
// stat gave, or 0) sizes the buffer, so that a regular file is read straight into its string.
std::string read_capped(int fd,
                        const std::string& path,
                        std::size_t max_bytes,
                        std::string_view what,
                        std::size_t expected = 0) {
  std::string text(std::min(expected == 0 ? std::size_t{65536} : expected + 1, max_bytes + 1),
                   '\0');
  std::size_t used = 0;
  while (true) {
    if (used == text.size()) {
      text.resize(std::min(2 * text.size(), max_bytes + 1));
    }
    const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw InputError(path, "cannot read file: " + describe_errno(errno));
    }
    if (n == 0) {
      text.resize(used);
      return text;
    }
    used += static_cast<std::size_t>(n);
    if (used > max_bytes) {
      throw InputError(
          path,
          fmt::format("larger than the {} MiB limit for {}", max_bytes / (1024 * 1024), what));
    }
  }
}

class Fd {
public:
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd(Fd&& other) noexcept : m_fd(other.release()) {}
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  [[nodiscard]] int get() const { return m_fd; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd;
};

// Opens `path` for reading as read_input_file does: a regular file of at most `max_bytes`. Sets
// `size` to the size fstat gives.
Fd open_input_file(const std::string& path,
                   std::size_t max_bytes,
                   std::string_view what,
                   std::size_t& size) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError(path, "cannot read file: " + describe_errno(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    throw InputError(path, "is " + describe_file_type(info.st_mode) + ", expected a regular file");
  }
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    throw InputError(path,
                     fmt::format("file is {} bytes, larger than the {} MiB limit for {}",
                                 info.st_size,
                                 max_bytes / (1024 * 1024),
                                 what));
  }
  // O_NONBLOCK: should the path have been swapped for a FIFO since stat, open does not wait.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    throw InputError(path, "cannot read file: " + describe_errno(errno));
  }
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw InputError(path, "is " + describe_file_type(info.st_mode) + ", expected a regular file");
  }
  size = static_cast<std::size_t>(info.st_size);
  return fd;
}

// Whether what is left to read from `fd` is exactly `known`, read a piece at a time.
bool rest_is(int fd, const std::string& path, std::string_view known) {
  char piece[16 * 1024];
  std::size_t matched = 0;
  while (true) {
    const ssize_t n = ::read(fd, piece, sizeof piece);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw InputError(path, "cannot read file: " + describe_errno(errno));
    }
    if (n == 0) {
      return matched == known.size();
    }
    const auto got = static_cast<std::size_t>(n);
    if (got > known.size() - matched || std::memcmp(piece, known.data() + matched, got) != 0) {
      return false;
    }
    matched += got;
  }
}

CompiledInData g_compiled_in = nullptr;

// The compiled-in text of `path`, a path under k_compiled_in_data_dir.
std::string_view compiled_in_text(const std::string& path) {
  const std::string_view name = std::string_view(path).substr(k_compiled_in_data_dir.size() + 1);
  const std::string_view text = g_compiled_in != nullptr ? g_compiled_in(name) : std::string_view();
  if (text.empty()) {
    throw InputError(path,
                     "is not compiled into this binary and no data directory was found; give "
                     "one that holds it with --data DIR or RIGHTSIZE_DATA=DIR (docs/cli.md)");
  }
  return text;
}

} // namespace

bool is_compiled_in_path(std::string_view path) {
  return path.size() > k_compiled_in_data_dir.size() &&
         path.substr(0, k_compiled_in_data_dir.size()) == k_compiled_in_data_dir &&
         path[k_compiled_in_data_dir.size()] == '/';
}

void set_compiled_in_data(CompiledInData lookup) {
  g_compiled_in = lookup;
}

std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string_view what) {
  if (path == "-") {
    return read_capped(STDIN_FILENO, "-", max_bytes, what);
  }
  if (is_compiled_in_path(path)) {
    return std::string(compiled_in_text(path));
  }
  std::size_t size = 0;
  const Fd fd = open_input_file(path, max_bytes, what, size);
  return read_capped(fd.get(), path, max_bytes, what, size);
}

std::optional<std::string> read_input_file_unless(const std::string& path,
                                                  std::string_view known,
                                                  std::size_t max_bytes,
                                                  std::string_view what) {
  if (path == "-" || known.empty()) {
    return read_input_file(path, max_bytes, what);
  }
  if (is_compiled_in_path(path)) {
    return std::nullopt; // the embedded value is the compiled-in file
  }
  std::size_t size = 0;
  const Fd fd = open_input_file(path, max_bytes, what, size);
  if (size == known.size()) {
    if (rest_is(fd.get(), path, known)) {
      return std::nullopt;
    }
    if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
      throw InputError(path, "cannot read file: " + describe_errno(errno));
    }
  }
  return read_capped(fd.get(), path, max_bytes, what, size);
}

namespace {

// `content` in a temporary file beside `path`, written, flushed to disk and closed, with the mode
// `path` has (or 0666 minus the umask): its name. On failure nothing is left and an InputError
// names `path`.
std::string stage_file(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    throw InputError(path,
                     "cannot write: is " + describe_file_type(existing.st_mode) +
                         ", expected a regular file");
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".rightsize-XXXXXX")).string();
  Fd fd(::mkstemp(temp.data()));
  if (fd.get() < 0) {
    throw InputError(path, "cannot write: " + describe_errno(errno));
  }
  const auto fail = [&](int err) {
    ::unlink(temp.c_str());
    throw InputError(path, "cannot write: " + describe_errno(err));
  };
  mode_t mode = 0666;
  if (exists) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  if (::fchmod(fd.get(), mode) != 0) {
    fail(errno);
  }
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail(errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) {
    fail(errno);
  }
  return temp;
}

} // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temp = stage_file(path, content);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw InputError(path, "cannot write: " + describe_errno(err));
  }
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  // 1. Every file staged beside its target; a failure removes what was staged.
  std::vector<std::string> staged;
  const auto unlink_all = [](const std::vector<std::string>& paths) {
    for (const auto& p : paths) {
      if (!p.empty()) {
        ::unlink(p.c_str());
      }
    }
  };
  try {
    for (const auto& [path, content] : files) {
      staged.push_back(stage_file(path, content));
    }
  } catch (...) {
    unlink_all(staged);
    throw;
  }
  // 2. Each existing target kept under a second name (a hard link), to put back on failure.
  std::vector<std::string> kept(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      continue; // a new file
    }
    std::string backup = staged[i] + ".old";
    if (::link(path.c_str(), backup.c_str()) != 0) {
      const int err = errno;
      unlink_all(staged);
      unlink_all(kept);
      throw InputError(path, "cannot write: " + describe_errno(err));
    }
    kept[i] = std::move(backup);
  }
  // 3. The staged files renamed over their targets; a failure puts back what was replaced.
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(staged[i].c_str(), files[i].first.c_str()) == 0) {
      staged[i].clear();
      continue;
    }
    const int err = errno;
    for (std::size_t j = 0; j < i; ++j) {
      if (!kept[j].empty()) {
        ::rename(kept[j].c_str(), files[j].first.c_str());
        kept[j].clear();
      } else {
        ::unlink(files[j].first.c_str());
      }
    }
    unlink_all(staged);
    unlink_all(kept);
    throw InputError(files[i].first, "cannot write: " + describe_errno(err));
  }
  unlink_all(kept);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

} // namespace rightsize
