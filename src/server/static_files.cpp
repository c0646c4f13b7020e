// SPDX-License-Identifier: Apache-2.0
// Content types, URL paths checked against their root and byte ranges for `cityforge serve`:
// nothing outside a root (.., encoded dots, absolute paths) is ever named.
#include "static_files.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace cityforge::server::detail {

namespace fs = std::filesystem;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view content_type(const fs::path& p) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kTypes = {{
      {".glb", "model/gltf-binary"},
      {".gltf", "model/gltf+json"},
      {".json", "application/json"},
      {".geojson", "application/json"},
      {".cfrec", "application/octet-stream"},
      {".ply", "application/octet-stream"},
      {".bin", "application/octet-stream"},
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript"},
      {".mjs", "text/javascript"},
      {".css", "text/css"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".svg", "image/svg+xml"},
      {".wasm", "application/wasm"},
      {".xml", "application/xml"},
      {".txt", "text/plain; charset=utf-8"},
      {".map", "application/json"},
  }};
  const std::string ext = p.extension().string();
  for (const auto& [e, type] : kTypes) {
    if (ext == e) return type;
  }
  return "application/octet-stream";
}

std::optional<std::string> url_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      const int hi = hex_value(in[i + 1]);
      const int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') return std::nullopt;
    out += c;
  }
  return out;
}

std::optional<fs::path> safe_relative(std::string_view decoded) {
  fs::path rel;
  std::size_t start = 0;
  while (start <= decoded.size()) {
    std::size_t end = decoded.find('/', start);
    if (end == std::string_view::npos) end = decoded.size();
    const std::string_view seg = decoded.substr(start, end - start);
    if (seg == "." || seg == "..") return std::nullopt;
    if (!seg.empty()) rel /= std::string(seg);
    start = end + 1;
  }
  return rel;
}

bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

RangeResult parse_range(std::string_view v, std::uint64_t size, ByteRange* out) {
  constexpr std::string_view kPrefix = "bytes=";
  if (v.substr(0, kPrefix.size()) != kPrefix) return RangeResult::none;
  v.remove_prefix(kPrefix.size());
  if (v.find(',') != std::string_view::npos) return RangeResult::none;
  const std::size_t dash = v.find('-');
  if (dash == std::string_view::npos) return RangeResult::none;
  const auto number = [](std::string_view s, std::uint64_t* n) {
    if (s.empty() || s.size() > 19) return false;
    *n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      *n = *n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
  };
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  const std::string_view sa = v.substr(0, dash);
  const std::string_view sb = v.substr(dash + 1);
  if (sa.empty()) {  // Suffix: the last n bytes.
    if (!number(sb, &b)) return RangeResult::none;
    if (b == 0 || size == 0) return RangeResult::unsatisfiable;
    out->first = size - std::min(b, size);
    out->last = size - 1;
    return RangeResult::ok;
  }
  if (!number(sa, &a)) return RangeResult::none;
  if (sb.empty()) {
    b = size == 0 ? 0 : size - 1;
  } else if (!number(sb, &b) || b < a) {
    return RangeResult::none;
  }
  if (a >= size) return RangeResult::unsatisfiable;
  out->first = a;
  out->last = std::min(b, size - 1);
  return RangeResult::ok;
}

}  // namespace cityforge::server::detail
