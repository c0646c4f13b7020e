// SPDX-License-Identifier: Apache-2.0
#pragma once

// Test helper: a glb with EXT_meshopt_compression turned back into the plain glb it stands
// for, so that tinygltf 2.7 (which takes a GLB's second buffer for the BIN chunk and cannot
// read fallback buffers) loads it and tests read its accessors as before.

#include <meshoptimizer.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace cityforge::exporter::testing {

/// Decodes one EXT_meshopt_compression view extension from `bin` into `count * byteStride`
/// bytes; throws on a decoder error.
inline std::vector<unsigned char> decode_meshopt_view(const nlohmann::json& ext,
                                                      const unsigned char* bin,
                                                      std::size_t bin_size) {
  const std::size_t offset = ext.value("byteOffset", std::size_t{0});
  const std::size_t length = ext.at("byteLength").get<std::size_t>();
  const std::size_t stride = ext.at("byteStride").get<std::size_t>();
  const std::size_t count = ext.at("count").get<std::size_t>();
  const std::string mode = ext.at("mode").get<std::string>();
  if (ext.at("buffer").get<int>() != 0 || offset + length > bin_size) {
    throw std::runtime_error("compressed data outside the BIN chunk");
  }
  std::vector<unsigned char> out(count * stride);
  int rc = -1;
  if (mode == "ATTRIBUTES") {
    rc = meshopt_decodeVertexBuffer(out.data(), count, stride, bin + offset, length);
  } else if (mode == "TRIANGLES") {
    rc = meshopt_decodeIndexBuffer(out.data(), count, stride, bin + offset, length);
  } else if (mode == "INDICES") {
    rc = meshopt_decodeIndexSequence(out.data(), count, stride, bin + offset, length);
  }
  if (rc != 0) throw std::runtime_error("meshopt decode failed (" + mode + ")");
  return out;
}

/// `glb` with every compressed view decoded into one plain BIN chunk (views 8-byte aligned),
/// the fallback buffer and the extension gone. A glb without the extension comes back as is.
inline std::vector<unsigned char> plain_glb(const std::vector<unsigned char>& glb) {
  auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, glb.data() + at, 4);
    return std::size_t{v};
  };
  const std::size_t json_len = u32(12);
  nlohmann::json j = nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + json_len);
  const std::vector<std::string> used = j.value("extensionsUsed", std::vector<std::string>{});
  if (std::find(used.begin(), used.end(), "EXT_meshopt_compression") == used.end()) return glb;
  const std::size_t bin_at = 20 + json_len;
  const std::size_t bin_len = bin_at + 8 <= glb.size() ? u32(bin_at) : 0;
  const unsigned char* bin = glb.data() + bin_at + 8;
  std::vector<unsigned char> out;
  for (nlohmann::json& view : j.at("bufferViews")) {
    std::vector<unsigned char> bytes;
    const std::size_t length = view.at("byteLength").get<std::size_t>();
    if (view.contains("extensions") && view["extensions"].contains("EXT_meshopt_compression")) {
      bytes = decode_meshopt_view(view["extensions"]["EXT_meshopt_compression"], bin, bin_len);
      view["extensions"].erase("EXT_meshopt_compression");
      if (view["extensions"].empty()) view.erase("extensions");
    } else {
      const std::size_t offset = view.value("byteOffset", std::size_t{0});
      bytes.assign(bin + offset, bin + offset + length);
    }
    bytes.resize(length);
    out.resize((out.size() + 7) / 8 * 8, 0);
    view["buffer"] = 0;
    view["byteOffset"] = out.size();
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  out.resize((out.size() + 3) / 4 * 4, 0);
  j["buffers"] = nlohmann::json::array({{{"byteLength", out.size()}}});
  for (const char* list : {"extensionsUsed", "extensionsRequired"}) {
    if (!j.contains(list)) continue;
    auto& l = j[list];
    l.erase(std::remove(l.begin(), l.end(), "EXT_meshopt_compression"), l.end());
    if (l.empty()) j.erase(list);
  }
  std::string text = j.dump();
  text.resize((text.size() + 3) / 4 * 4, ' ');
  std::vector<unsigned char> res;
  auto put32 = [&](std::size_t v) {
    const auto w = static_cast<std::uint32_t>(v);
    res.insert(res.end(), reinterpret_cast<const unsigned char*>(&w),
               reinterpret_cast<const unsigned char*>(&w) + 4);
  };
  put32(0x46546C67U);
  put32(2);
  put32(12 + 8 + text.size() + 8 + out.size());
  put32(text.size());
  put32(0x4E4F534AU);
  res.insert(res.end(), text.begin(), text.end());
  put32(out.size());
  put32(0x004E4942U);
  res.insert(res.end(), out.begin(), out.end());
  return res;
}

}  // namespace cityforge::exporter::testing
