// SPDX-License-Identifier: Apache-2.0
// Atomic file replacement: write a temporary file next to the target, flush it to disk, then
// rename it over the target (rename is atomic within one file system on POSIX).

#include "cityforge/core/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace cityforge {

namespace {

/// The temporaries of this process (list_temporary): the one piece of process-wide state here,
/// for the interrupt handler. Recursive: a commit holds it while its renames unlist.
struct Temporaries {
  std::recursive_mutex mutex;
  std::set<std::string> paths;       ///< Temporary files and folders.
  std::vector<std::string> folders;  ///< Made for staged files not yet committed, outermost first.
};

Temporaries& temporaries() {
  static Temporaries t;
  return t;
}

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

/// Writes what `parts` writes to a temporary file next to `path` and flushes it; returns its
/// name. On any failure the temporary file is removed.
Result<std::string> write_temporary(const std::string& path, const FileParts& parts) {
  if (path.empty()) {
    return Error::io("(empty path)", "cannot write a file without a name");
  }
  // The temporary name carries the process id, so two processes never share one; it lives in
  // the target's folder so the rename never crosses file systems.
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());

  // 1. Create the temporary file.
  list_temporary(tmp);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    unlist_temporary(tmp);
    return Error::io(path, "cannot create temporary file " + tmp + ": " + errno_text(err));
  }
  // 2. Write and flush it; on any failure remove it so no debris is left behind.
  const auto fail = [&](const std::string& what, int err) -> Error {
    ::unlink(tmp.c_str());
    unlist_temporary(tmp);
    return Error::io(path, what + " " + tmp + ": " + errno_text(err));
  };
  int write_error = 0;
  const ByteSink sink = [&](const void* data, std::size_t size) -> Status {
    if (write_error == 0) write_error = write_all(fd, data, size);
    if (write_error != 0)
      return Error::io(path, "cannot write " + tmp + ": " + errno_text(write_error));
    return Ok{};
  };
  const Status made = parts(sink);
  if (write_error != 0) {
    ::close(fd);
    return fail("cannot write", write_error);
  }
  if (!made) {
    ::close(fd);
    ::unlink(tmp.c_str());
    unlist_temporary(tmp);
    return made.error();
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fail("cannot flush", err);
  }
  if (::close(fd) != 0) {
    return fail("cannot close", errno);
  }
  return tmp;
}

Result<std::string> write_temporary(const std::string& path, const void* data, std::size_t size) {
  return write_temporary(path, [&](const ByteSink& sink) { return sink(data, size); });
}

/// Moves `tmp` over `path`, or removes it and names the failure.
Status move_into_place(const std::string& tmp, const std::string& path) {
  const std::lock_guard lock(temporaries().mutex);  // Not cut by an interrupt.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    unlist_temporary(tmp);
    return Error::io(path, "cannot rename to the target " + tmp + ": " + errno_text(err));
  }
  unlist_temporary(tmp);
  return Ok{};
}

/// Moves the folder `tmp` over the folder `path`: the old one aside, the new one in, the old
/// one removed.
Status move_folder_into_place(const std::string& tmp, const std::string& path) {
  namespace fs = std::filesystem;
  const std::lock_guard lock(temporaries().mutex);
  std::error_code ec;
  const fs::path target(path);
  std::string old_name = ".";  // Built in steps: GCC 12's -Wrestrict misfires on one "+" chain.
  old_name += target.filename().string();
  old_name += ".old-";
  old_name += std::to_string(::getpid());
  const fs::path old = target.parent_path() / old_name;
  if (fs::exists(target, ec)) fs::rename(target, old, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    unlist_temporary(tmp);
    return Error::io(path, "cannot move the old folder aside: " + ec.message());
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove_all(tmp, ec);
    unlist_temporary(tmp);
    return Error::io(path, "cannot rename " + tmp + " into place: " + why);
  }
  unlist_temporary(tmp);
  fs::remove_all(old, ec);
  return Ok{};
}

}  // namespace

Status write_file_atomic(const std::string& path, const void* data, std::size_t size) {
  Result<std::string> tmp = write_temporary(path, data, size);
  if (!tmp) return tmp.error();
  return move_into_place(*tmp, path);
}

bool process_gone(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

void remove_stale_temporaries(const std::string& folder) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t at = name.rfind(".tmp-");
    if (at == std::string::npos || at == 0 || !it->is_regular_file(ec)) continue;
    const std::string digits = name.substr(at + 5);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(digits.c_str(), nullptr, 10);
    if (pid > 0 && process_gone(pid)) {
      ::unlink(it->path().c_str());
    }
  }
}

void list_temporary(const std::string& path) {
  Temporaries& t = temporaries();
  const std::lock_guard lock(t.mutex);
  t.paths.insert(path);
}

void unlist_temporary(const std::string& path) {
  Temporaries& t = temporaries();
  const std::lock_guard lock(t.mutex);
  t.paths.erase(path);
}

void remove_temporaries_and_hold() {
  Temporaries& t = temporaries();
  t.mutex.lock();  // Never unlocked: the process exits next.
  std::error_code ec;
  for (const std::string& p : t.paths)
    std::filesystem::remove_all(p, ec);
  for (auto it = t.folders.rbegin(); it != t.folders.rend(); ++it)
    ::rmdir(it->c_str());
}

StagedFiles::~StagedFiles() {
  std::error_code ec;
  for (std::size_t i = 0; i < m_files.size(); ++i) {
    if (m_is_folder[i]) {
      std::filesystem::remove_all(m_files[i].first, ec);
    } else {
      ::unlink(m_files[i].first.c_str());
    }
    unlist_temporary(m_files[i].first);
  }
  Temporaries& t = temporaries();
  {
    const std::lock_guard lock(t.mutex);
    for (const std::string& f : m_folders) {
      const auto it = std::find(t.folders.begin(), t.folders.end(), f);
      if (it != t.folders.end()) t.folders.erase(it);
    }
  }
  if (m_committed) return;
  // Not committed: the folders made for the files go too (innermost first; only when empty).
  for (auto it = m_folders.rbegin(); it != m_folders.rend(); ++it)
    ::rmdir(it->c_str());
}

Status spill_text(std::string& text, const ByteSink& sink, std::size_t& spilled, bool all) {
  constexpr std::size_t kSpillBytes = std::size_t{1} << 20;
  if (text.empty() || (!all && text.size() < kSpillBytes)) return Ok{};
  const Status s = sink(text.data(), text.size());
  spilled += text.size();
  text.clear();
  return s;
}

Result<std::vector<std::uint8_t>> collect_bytes(const FileParts& parts) {
  std::vector<std::uint8_t> out;
  const Status made = parts([&](const void* data, std::size_t size) -> Status {
    const auto* p = static_cast<const std::uint8_t*>(data);
    out.insert(out.end(), p, p + size);
    return Ok{};
  });
  if (!made) return made.error();
  return out;
}

Status StagedFiles::write(const std::string& path, const void* data, std::size_t size) {
  return write_parts(path, [&](const ByteSink& sink) { return sink(data, size); });
}

Status StagedFiles::write_parts(const std::string& path, const FileParts& parts) {
  // The missing folders above the file, outermost first.
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p = std::filesystem::path(path).parent_path();
       !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing.insert(missing.begin(), p);
    if (p == p.parent_path()) break;
  }
  for (const std::filesystem::path& p : missing) {
    if (!std::filesystem::create_directory(p, ec) && ec) {
      return Error::io(p.string(), "cannot create the folder: " + ec.message());
    }
    m_folders.push_back(p.string());
    const std::lock_guard lock(temporaries().mutex);
    temporaries().folders.push_back(p.string());
  }
  Result<std::string> tmp = write_temporary(path, parts);
  if (!tmp) return tmp.error();
  m_files.emplace_back(std::move(*tmp), path);
  m_is_folder.push_back(false);
  return Ok{};
}

void StagedFiles::stage_folder(const std::string& temporary, const std::string& path) {
  list_temporary(temporary);
  m_files.emplace_back(temporary, path);
  m_is_folder.push_back(true);
}

Status StagedFiles::commit() {
  const std::lock_guard lock(temporaries().mutex);  // An interrupt waits for the whole commit.
  std::vector<std::pair<std::string, std::string>> files = std::move(m_files);
  const std::vector<bool> is_folder = std::move(m_is_folder);
  m_files.clear();
  m_is_folder.clear();
  m_committed = true;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [tmp, target] = files[i];
    if (Status st =
            is_folder[i] ? move_folder_into_place(tmp, target) : move_into_place(tmp, target);
        !st) {
      std::error_code ec;
      for (std::size_t k = i + 1; k < files.size(); ++k) {
        std::filesystem::remove_all(files[k].first, ec);
        unlist_temporary(files[k].first);
      }
      return st;
    }
  }
  return Ok{};
}

}  // namespace cityforge
