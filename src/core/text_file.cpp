// SPDX-License-Identifier: Apache-2.0
// Whole files read with a size bound (core/text_file.hpp).
#include "cityforge/core/text_file.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

namespace cityforge {

Result<std::string> read_file_text(const std::string& path, std::uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return Error::io(path, "cannot open the file for reading: no such file");
  if (fs::is_directory(st)) return Error::io(path, "cannot read a folder as a file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Error::io(path, "cannot open the file for reading");
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f.get());
    if (n > 0) {
      if (text.size() + n > max_bytes) {
        const std::uintmax_t size = fs::is_regular_file(st) ? fs::file_size(path, ec) : 0;
        return Error::invalid_input(
            path, "the file is " + (size > 0 && !ec ? std::to_string(size) + " bytes" : "longer") +
                      "; expected at most " + std::to_string(max_bytes) +
                      " bytes for this kind of file");
      }
      text.append(buffer, n);
    }
    if (n < sizeof buffer) break;
  }
  if (std::ferror(f.get())) return Error::io(path, "read failed");
  return text;
}

}  // namespace cityforge
