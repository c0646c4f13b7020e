// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>

#include "cityforge/core/result.hpp"

namespace cityforge {

/// Writes bytes to `path` through a temporary file in the same folder and an atomic rename, so
/// a reader never sees a half-written file. The error names the path. Shared by every writer of
/// output files (the exporters, the islands, the command-line program).
Status write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline Status write_file_atomic(const std::string& path, const std::string& text) {
  return write_file_atomic(path, text.data(), text.size());
}

}  // namespace cityforge
