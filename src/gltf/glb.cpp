// SPDX-License-Identifier: Apache-2.0
// GLB serialisation: tinygltf writes the JSON, the container is assembled here.
// Based on: The Khronos Group, glTF 2.0 Specification (GLB file format: header, JSON and BIN
// chunks, 4-byte alignment).
// tinygltf writes JSON through nlohmann::json (objects keyed in sorted order, doubles printed
// to round-trip), so the output is byte identical for identical inputs.
#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/gltf/tinygltf_model.hpp"

namespace cityforge::gltf {
namespace {

static_assert(std::endian::native == std::endian::little,
              "GLB headers are little endian; this writer copies memory as is");

/// A stream buffer appending to a byte vector: the GLB is written once, straight into the
/// result (a city's BIN chunk is hundreds of MB; every copy shows in time and peak memory).
class ByteSink final : public std::streambuf {
 public:
  explicit ByteSink(std::vector<std::uint8_t>& out) : m_out(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    m_out.insert(m_out.end(), reinterpret_cast<const std::uint8_t*>(s),
                 reinterpret_cast<const std::uint8_t*>(s) + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      m_out.push_back(static_cast<std::uint8_t>(traits_type::to_char_type(c)));
    }
    return traits_type::not_eof(c);
  }

 private:
  std::vector<std::uint8_t>& m_out;
};

/// A tinygltf value as JSON (binary values have no JSON form and become null).
nlohmann::json to_json(const tinygltf::Value& v) {
  switch (v.Type()) {
    case tinygltf::BOOL_TYPE:
      return v.Get<bool>();
    case tinygltf::INT_TYPE:
      return v.Get<int>();
    case tinygltf::REAL_TYPE:
      return v.Get<double>();
    case tinygltf::STRING_TYPE:
      return v.Get<std::string>();
    case tinygltf::ARRAY_TYPE: {
      nlohmann::json a = nlohmann::json::array();
      for (std::size_t i = 0; i < v.ArrayLen(); ++i)
        a.push_back(to_json(v.Get(static_cast<int>(i))));
      return a;
    }
    case tinygltf::OBJECT_TYPE: {
      nlohmann::json o = nlohmann::json::object();
      for (const std::string& k : v.Keys())
        o[k] = to_json(v.Get(k));
      return o;
    }
    default:
      return nullptr;
  }
}

nlohmann::json to_json(const tinygltf::ExtensionMap& extensions) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [name, value] : extensions)
    o[name] = to_json(value);
  return o;
}

/// The end of the JSON value starting at `at` in `s` (an array, object, string or number).
std::size_t value_end(const std::string& s, std::size_t at) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = at; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return i + 1;
      if (depth < 0) return i;
    } else if (depth == 0 && c == ',') {
      return i;
    }
  }
  return s.size();
}

/// [begin, end) of the value of the top-level member `key` of the compact JSON object `s`;
/// begin is npos when there is none. Strings are skipped, so a name that spells the key does
/// not match.
std::pair<std::size_t, std::size_t> member_value(const std::string& s, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      if (depth == 1 && s.compare(i, quoted.size(), quoted) == 0) {
        const std::size_t begin = i + quoted.size();
        return {begin, value_end(s, begin)};
      }
      i = value_end(s, i) - 1;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return {std::string::npos, std::string::npos};
}

/// A buffer view as tinygltf 2.7 writes it, plus its extensions (which it leaves out).
nlohmann::json view_json(const tinygltf::BufferView& v) {
  nlohmann::json o = nlohmann::json::object();
  o["buffer"] = v.buffer;
  o["byteLength"] = v.byteLength;
  if (v.byteStride >= 4) o["byteStride"] = v.byteStride;
  if (v.byteOffset > 0) o["byteOffset"] = v.byteOffset;
  if (v.target == TINYGLTF_TARGET_ARRAY_BUFFER ||
      v.target == TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER) {
    o["target"] = v.target;
  }
  if (!v.name.empty()) o["name"] = v.name;
  if (v.extras.Type() != tinygltf::NULL_TYPE) o["extras"] = to_json(v.extras);
  if (!v.extensions.empty()) o["extensions"] = to_json(v.extensions);
  return o;
}

/// Sets what tinygltf 2.7 leaves out of its JSON: the extensions of buffer views (e.g.
/// EXT_meshopt_compression) and the buffers after the first, written as their byteLength, uri
/// (when set) and extensions, without data (fallback buffers, whose bytes are not stored).
/// Only those two members are rewritten: the rest of the text (accessor bounds: most of a
/// tile's JSON) stays as tinygltf printed it.
Status add_buffer_extensions(std::string& json, const tinygltf::Model& model,
                             const std::vector<tinygltf::Buffer>& extra, const std::string& name) {
  nlohmann::json views = nlohmann::json::array();
  for (const tinygltf::BufferView& v : model.bufferViews)
    views.push_back(view_json(v));
  const auto [vb, ve] = member_value(json, "bufferViews");
  if (vb == std::string::npos) {
    return Error::internal(name + ".glb", "no bufferViews to give their extensions");
  }
  json.replace(vb, ve - vb, views.dump());
  if (extra.empty()) return Ok{};
  // Buffer 0 stays as written; the others follow it.
  std::string more;
  for (const tinygltf::Buffer& b : extra) {
    nlohmann::json o = nlohmann::json::object();
    o["byteLength"] = b.data.size();
    if (!b.uri.empty()) o["uri"] = b.uri;
    if (!b.extensions.empty()) o["extensions"] = to_json(b.extensions);
    more += ',';
    more += o.dump();
  }
  const auto [bb, be] = member_value(json, "buffers");
  if (bb == std::string::npos || json[be - 1] != ']') {
    return Error::internal(name + ".glb", "no buffers to add the fallback buffers to");
  }
  json.insert(be - 1, more);
  return Ok{};
}

}  // namespace

// The container is assembled here, not by tinygltf, so the BIN chunk (hundreds of MB for a city)
// is copied once, straight into the result (tinygltf's own GLB writer copies it twice more).
Result<std::vector<std::uint8_t>> serialise_glb(tinygltf::Model& model, const std::string& name) {
  tinygltf::Scene scene;
  scene.name = name;
  scene.nodes.push_back(0);
  model.scenes.push_back(std::move(scene));
  model.defaultScene = 0;
  // Buffers after the first are written by add_buffer_extensions, not by tinygltf (which would
  // embed their data).
  std::vector<tinygltf::Buffer> extra;
  if (model.buffers.size() > 1) {
    extra.assign(std::make_move_iterator(model.buffers.begin() + 1),
                 std::make_move_iterator(model.buffers.end()));
    model.buffers.resize(1);
  }
  std::vector<unsigned char> bin = std::move(model.buffers[0].data);
  model.buffers[0].data.clear();
  bin.resize((bin.size() + 3) / 4 * 4, 0);
  if (bin.empty()) {
    model.buffers.clear();
  }
  // 1. The JSON, through tinygltf (with an empty buffer, whose byteLength is patched below).
  std::vector<std::uint8_t> glb_json;
  {
    ByteSink sink(glb_json);
    std::ostream out(&sink);
    tinygltf::TinyGLTF writer;
    if (!writer.WriteGltfSceneToStream(&model, out, /*prettyPrint=*/false,
                                       /*writeBinary=*/true) ||
        !out || glb_json.size() < 20) {
      return Error::internal(name + ".glb", "tinygltf failed to serialise the model");
    }
  }
  const auto u32_at = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, glb_json.data() + at, 4);
    return v;
  };
  const std::uint32_t json_len = u32_at(12);
  if (20 + std::size_t{json_len} > glb_json.size()) {
    return Error::internal(name + ".glb", "tinygltf wrote a truncated JSON chunk");
  }
  std::string json(glb_json.begin() + 20, glb_json.begin() + 20 + json_len);
  while (!json.empty() && json.back() == ' ')
    json.pop_back();
  if (!bin.empty()) {
    const std::string from = "\"buffers\":[{\"byteLength\":0}]";
    const auto at = json.find(from);
    if (at == std::string::npos) {
      return Error::internal(name + ".glb", "no buffer entry to give its byteLength");
    }
    json.replace(at, from.size(),
                 "\"buffers\":[{\"byteLength\":" + std::to_string(bin.size()) + "}]");
  }
  const bool view_extensions =
      std::any_of(model.bufferViews.begin(), model.bufferViews.end(),
                  [](const tinygltf::BufferView& v) { return !v.extensions.empty(); });
  if (view_extensions || !extra.empty()) {
    if (Status s = add_buffer_extensions(json, model, extra, name); !s) return s.error();
  }
  json.resize((json.size() + 3) / 4 * 4, ' ');
  // 2. The container: header, JSON chunk, BIN chunk.
  const std::size_t total = 12 + 8 + json.size() + (bin.empty() ? 0 : 8 + bin.size());
  if (total > 0xFFFFFFFFULL) {
    return Error::invalid_input(name + ".glb", "the city is larger than a GLB can hold (4 GiB)");
  }
  std::vector<std::uint8_t> bytes;
  bytes.reserve(total);
  const auto put32 = [&](std::uint32_t v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + 4);
  };
  put32(0x46546C67U);  // "glTF"
  put32(2);
  put32(static_cast<std::uint32_t>(total));
  put32(static_cast<std::uint32_t>(json.size()));
  put32(0x4E4F534AU);  // "JSON"
  bytes.insert(bytes.end(), json.begin(), json.end());
  if (!bin.empty()) {
    put32(static_cast<std::uint32_t>(bin.size()));
    put32(0x004E4942U);  // "BIN\0"
    bytes.insert(bytes.end(), bin.begin(), bin.end());
  }
  return bytes;
}

}  // namespace cityforge::gltf
