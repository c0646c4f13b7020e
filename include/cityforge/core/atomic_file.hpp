// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"

namespace cityforge {

/// Where a file written in parts goes: each call appends `size` bytes; an error stops the
/// writer (a file that cannot be written, a disk that is full).
using ByteSink = std::function<Status(const void* data, std::size_t size)>;

/// What writes a file in parts to a sink; its own error (bad input) stops the file too.
using FileParts = std::function<Status(const ByteSink& sink)>;

/// Hands `text` to `sink` and empties it once it holds a megabyte (all of it when `all`), adding
/// what was handed on to `spilled`: for writers that append text and stream it as they go.
Status spill_text(std::string& text, const ByteSink& sink, std::size_t& spilled, bool all);

/// The bytes `parts` writes, in memory (tests, small files).
Result<std::vector<std::uint8_t>> collect_bytes(const FileParts& parts);

/// Writes bytes to `path` through a temporary file in the same folder and an atomic rename, so
/// a reader never sees a half-written file. The error names the path. Shared by every writer of
/// output files (the exporters, the islands, the command-line program).
Status write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline Status write_file_atomic(const std::string& path, const std::string& text) {
  return write_file_atomic(path, text.data(), text.size());
}

/// Temporary files and folders being written now are listed, so that an interrupted run can
/// remove them (the command line's SIGINT / SIGTERM handler). Every temporary made here is
/// listed while it exists; a writer elsewhere (the recording) lists its own.
void list_temporary(const std::string& path);
void unlist_temporary(const std::string& path);

/// Removes every listed temporary file and folder (and the folders StagedFiles made for files
/// not committed, when empty), waiting for a commit in progress to end first so no output is
/// left half old and half new; then holds the list, so no other thread makes a temporary or
/// starts a commit before the caller exits. Only for a process about to exit.
void remove_temporaries_and_hold();

/// Whether no process `pid` runs on this machine: none exists, or only its exit status waits to
/// be collected (a zombie, e.g. a rank whose job mpirun just ended).
bool process_gone(long pid);

/// Removes the temporary files (`NAME.tmp-PID`, above) that processes no longer running left in
/// `folder` (not in its subfolders): what a run killed before its renames leaves behind.
void remove_stale_temporaries(const std::string& folder);

/// Files written now under temporary names (flushed, next to their targets) and moved into place
/// together by commit(), so a run can write each output as soon as it is made and free it, yet
/// a failure before commit() leaves every old file as it was. Missing folders are made as
/// needed. What is not committed is removed when the object goes, with the folders it made.
/// Renames happen in the order the files were written.
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();
  Status write(const std::string& path, const void* data, std::size_t size);
  /// Stages a file written in parts as they are made (never held whole): a failure of `parts`
  /// or of the disk removes it and is the error.
  Status write_parts(const std::string& path, const FileParts& parts);
  Status write(const std::string& path, const std::string& text) {
    return write(path, text.data(), text.size());
  }
  /// The temporary name `path` is staged under; empty when it is not staged.
  std::string staged_path(const std::string& path) const {
    for (const auto& [tmp, target] : m_files)
      if (target == path) return tmp;
    return {};
  }
  /// Stages a finished folder (a tileset) written at `temporary`: at commit the folder at
  /// `path`, if any, is moved aside and removed, and `temporary` renamed into its place.
  /// Without a commit `temporary` is removed with its content.
  void stage_folder(const std::string& temporary, const std::string& path);
  /// Moves every staged file and folder into place, in the order staged; the first failed
  /// rename is the error (those before it are in place, the ones after it are removed). An
  /// interrupted process (remove_temporaries_and_hold) lets a commit in progress finish.
  Status commit();

 private:
  std::vector<std::pair<std::string, std::string>> m_files;  ///< (temporary, target).
  std::vector<bool> m_is_folder;                             ///< Per m_files entry.
  std::vector<std::string> m_folders;                        ///< Made here, outermost first.
  bool m_committed = false;
};

}  // namespace cityforge
