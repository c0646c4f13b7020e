// SPDX-License-Identifier: Apache-2.0
// Whole files read with a size bound (core/text_file.hpp).
#include "cityforge/core/text_file.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

namespace cityforge {

Result<std::uintmax_t> check_file_to_read(const std::string& path, std::uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return Error::io(path, "cannot open the file for reading: no such file");
  if (fs::is_directory(st)) return Error::io(path, "cannot read a folder as a file");
  const std::uintmax_t size = fs::is_regular_file(st) ? fs::file_size(path, ec) : 0;
  if (ec) return std::uintmax_t{0};
  if (size > max_bytes) {
    return Error::invalid_input(path, "the file is " + std::to_string(size) +
                                          " bytes; expected at most " + std::to_string(max_bytes) +
                                          " bytes for this kind of file");
  }
  return size;
}

Error file_too_long(const std::string& path, std::uint64_t max_bytes) {
  return Error::invalid_input(path, "the file is longer; expected at most " +
                                        std::to_string(max_bytes) + " bytes for this kind of file");
}

Result<std::string> read_file_text(const std::string& path, std::uint64_t max_bytes) {
  if (Result<std::uintmax_t> size = check_file_to_read(path, max_bytes); !size) return size.error();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Error::io(path, "cannot open the file for reading");
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f.get());
    if (n > 0) {
      // Not a regular file, or one that grew since it was checked.
      if (text.size() + n > max_bytes) return file_too_long(path, max_bytes);
      text.append(buffer, n);
    }
    if (n < sizeof buffer) break;
  }
  if (std::ferror(f.get())) return Error::io(path, "read failed");
  return text;
}

}  // namespace cityforge
