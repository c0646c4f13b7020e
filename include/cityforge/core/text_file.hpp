// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

#include "cityforge/core/result.hpp"

namespace cityforge {

/// The bytes of the file at `path`, shared by every reader of the files users hand us. A file
/// longer than `max_bytes` is refused before it is read (invalid_input naming the path, its
/// size and the limit); a missing file, a folder or a failed read is an io Error naming the path.
Result<std::string> read_file_text(const std::string& path, std::uint64_t max_bytes);

/// The checks read_file_text makes before it reads, for readers that read a file their own way
/// (in pieces): the same Errors for a missing file, a folder and a file longer than
/// `max_bytes`. Returns the file's size (0 for what is not a regular file, such as a pipe:
/// its reader must count what it reads against the limit).
Result<std::uintmax_t> check_file_to_read(const std::string& path, std::uint64_t max_bytes);

/// The Error for a file found longer than `max_bytes` while read (its size unknown before).
Error file_too_long(const std::string& path, std::uint64_t max_bytes);

}  // namespace cityforge
