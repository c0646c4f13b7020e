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

}  // namespace cityforge
