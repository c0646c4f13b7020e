// SPDX-License-Identifier: Apache-2.0
// Atomic file replacement: write a temporary file next to the target, flush it to disk, then
// rename it over the target (rename is atomic within one file system on POSIX).

#include "cityforge/core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace cityforge {

namespace {

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

/// Writes everything, retrying short writes and EINTR. Returns 0 or an errno value.
int write_all(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

Status write_file_atomic(const std::string& path, const void* data, std::size_t size) {
  if (path.empty()) {
    return Error::io("(empty path)", "cannot write a file without a name");
  }
  // The temporary name carries the process id, so two processes never share one; it lives in
  // the target's folder so the rename never crosses file systems.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());

  // 1. Create the temporary file.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return Error::io(path, "cannot create temporary file " + tmp + ": " + errno_text(err));
  }
  // 2. Write and flush it; on any failure remove it so no debris is left behind.
  const auto fail = [&](const std::string& what, int err) -> Status {
    ::unlink(tmp.c_str());
    return Error::io(path, what + " " + tmp + ": " + errno_text(err));
  };
  if (const int err = write_all(fd, data, size); err != 0) {
    ::close(fd);
    return fail("cannot write", err);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fail("cannot flush", err);
  }
  if (::close(fd) != 0) {
    return fail("cannot close", errno);
  }
  // 3. Move it into place.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail("cannot rename to the target", errno);
  }
  return Ok{};
}

}  // namespace cityforge
