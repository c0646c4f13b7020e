// SPDX-License-Identifier: Apache-2.0
// EXT_meshopt_compression of a finished glTF model: triangle index views as triangle streams,
// other index views as index sequences, attribute views (vertex and instance data) as vertex
// streams, each only where the encoding is smaller than the raw bytes.
// Based on: the EXT_meshopt_compression specification (Khronos glTF vendor extension: modes
// ATTRIBUTES / TRIANGLES / INDICES, byteStride rules, fallback buffers) and meshoptimizer's
// codecs (meshopt_encodeVertexBuffer, meshopt_encodeIndexBuffer, meshopt_encodeIndexSequence).

#include "export/detail/gltf_compress.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace cityforge::exporter::detail {

namespace {

enum class Mode { raw, attributes, triangles, indices };

/// How one buffer view is read and how it is to be encoded.
struct ViewPlan {
  int accessors = 0;          ///< Accessors reading the view.
  bool index = false;         ///< One of them is a primitive's indices.
  bool all_triangles = true;  ///< Every primitive indexing through it draws triangles.
  std::size_t element = 0;    ///< Element size of its accessors; SIZE_MAX when they differ.
  int first_accessor = -1;    ///< The (first) accessor reading it.
  Mode mode = Mode::raw;
  std::size_t stride = 0;  ///< Extension byteStride.
  std::size_t count = 0;   ///< Extension count.
  std::size_t length = 0;  ///< Parent byteLength afterwards (= stride * count).
  std::vector<unsigned char> encoded;
};

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

/// Reads `count` indices of `size` bytes (2 or 4) as uint32.
std::vector<unsigned> read_indices(const unsigned char* p, std::size_t count, std::size_t size) {
  std::vector<unsigned> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (size == 2) {
      std::uint16_t v = 0;
      std::memcpy(&v, p + 2 * i, 2);
      out[i] = v;
    } else {
      std::memcpy(&out[i], p + 4 * i, 4);
    }
  }
  return out;
}

/// Chooses mode, stride and count of a view from its readers (EXT_meshopt_compression's rules:
/// ATTRIBUTES needs a byteStride divisible by 4 and <= 256; TRIANGLES / INDICES a byteStride of
/// 2 or 4, TRIANGLES a count divisible by 3).
void choose_mode(ViewPlan& plan, const tinygltf::BufferView& view,
                 const tinygltf::Accessor* first) {
  if (plan.accessors == 0) return;  // Property tables, images: no element layout known.
  if (plan.index) {
    const std::size_t size = plan.element;
    if (plan.accessors != 1 || first->byteOffset != 0 || (size != 2 && size != 4) ||
        first->count * size != view.byteLength || view.byteStride != 0) {
      return;
    }
    plan.stride = size;
    plan.count = first->count;
    plan.length = view.byteLength;
    plan.mode = plan.all_triangles && first->count % 3 == 0 ? Mode::triangles : Mode::indices;
    return;
  }
  const std::size_t e = view.byteStride != 0 ? view.byteStride : plan.element;
  if (e != SIZE_MAX && e % 4 == 0 && e > 0 && e <= 256 && view.byteLength % e == 0) {
    plan.stride = e;
  } else if (view.byteStride == 0) {
    // The codec works on the view's bytes, not on the accessor: 4-byte records over the
    // view rounded up to 4 (into the zero padding before the next view) decode to the same
    // bytes. Only a view with no byteStride of its own may be regrouped so.
    plan.stride = 4;
  } else {
    return;
  }
  plan.length = round_up(view.byteLength, plan.stride);
  plan.count = plan.length / plan.stride;
  plan.mode = plan.count > 0 ? Mode::attributes : Mode::raw;
}

/// Encodes the view's bytes (`src` holds plan.length bytes); keeps the result only if smaller.
Status encode(ViewPlan& plan, const std::vector<unsigned char>& src, std::size_t view_index) {
  std::size_t n = 0;
  if (plan.mode == Mode::attributes) {
    plan.encoded.resize(meshopt_encodeVertexBufferBound(plan.count, plan.stride));
    n = meshopt_encodeVertexBuffer(plan.encoded.data(), plan.encoded.size(), src.data(), plan.count,
                                   plan.stride);
  } else {
    const std::vector<unsigned> idx = read_indices(src.data(), plan.count, plan.stride);
    const std::size_t vertices =
        idx.empty() ? 0 : std::size_t{*std::max_element(idx.begin(), idx.end())} + 1;
    if (plan.mode == Mode::triangles) {
      plan.encoded.resize(meshopt_encodeIndexBufferBound(plan.count, vertices));
      n = meshopt_encodeIndexBuffer(plan.encoded.data(), plan.encoded.size(), idx.data(),
                                    plan.count);
    } else {
      plan.encoded.resize(meshopt_encodeIndexSequenceBound(plan.count, vertices));
      n = meshopt_encodeIndexSequence(plan.encoded.data(), plan.encoded.size(), idx.data(),
                                      plan.count);
    }
  }
  if (n == 0) {
    return Error::internal("glTF bufferView " + std::to_string(view_index),
                           "meshoptimizer failed to encode the view");
  }
  plan.encoded.resize(n);
  if (n >= plan.length) {
    plan.mode = Mode::raw;
    plan.encoded.clear();
    plan.encoded.shrink_to_fit();
  }
  return Ok{};
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::attributes:
      return "ATTRIBUTES";
    case Mode::triangles:
      return "TRIANGLES";
    case Mode::indices:
      return "INDICES";
    case Mode::raw:
      break;
  }
  return "";
}

void require_extension(tinygltf::Model& model) {
  for (std::vector<std::string>* list : {&model.extensionsUsed, &model.extensionsRequired}) {
    if (std::find(list->begin(), list->end(), kMeshoptCompression) == list->end()) {
      list->emplace_back(kMeshoptCompression);
    }
    std::sort(list->begin(), list->end());
  }
}

}  // namespace

Status compress_meshopt(tinygltf::Model& model) {
  if (model.buffers.size() != 1 || !model.buffers[0].uri.empty()) {
    return Error::internal("glTF", "meshopt compression needs one embedded buffer, got " +
                                       std::to_string(model.buffers.size()));
  }
  const std::vector<unsigned char>& data = model.buffers[0].data;
  // 1. Who reads each view: accessors (their element size), primitives (indices, mode).
  std::vector<ViewPlan> plans(model.bufferViews.size());
  for (std::size_t v = 0; v < model.bufferViews.size(); ++v) {
    const tinygltf::BufferView& view = model.bufferViews[v];
    if (view.buffer != 0 || view.byteOffset + view.byteLength > data.size()) {
      return Error::internal("glTF bufferView " + std::to_string(v),
                             "the view is not inside buffer 0");
    }
  }
  std::vector<char> is_index(model.accessors.size(), 0);
  std::vector<char> non_triangles(model.accessors.size(), 0);
  for (const tinygltf::Mesh& mesh : model.meshes) {
    for (const tinygltf::Primitive& p : mesh.primitives) {
      if (p.indices < 0 || static_cast<std::size_t>(p.indices) >= model.accessors.size()) continue;
      is_index[static_cast<std::size_t>(p.indices)] = 1;
      if (p.mode != -1 && p.mode != TINYGLTF_MODE_TRIANGLES) {
        non_triangles[static_cast<std::size_t>(p.indices)] = 1;
      }
    }
  }
  for (std::size_t a = 0; a < model.accessors.size(); ++a) {
    const tinygltf::Accessor& acc = model.accessors[a];
    if (acc.bufferView < 0) continue;
    if (static_cast<std::size_t>(acc.bufferView) >= plans.size()) {
      return Error::internal("glTF accessor " + std::to_string(a), "no such bufferView");
    }
    ViewPlan& plan = plans[static_cast<std::size_t>(acc.bufferView)];
    const std::size_t element =
        static_cast<std::size_t>(
            tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(acc.componentType))) *
        static_cast<std::size_t>(
            tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(acc.type)));
    if (plan.accessors == 0) {
      plan.element = element;
      plan.first_accessor = static_cast<int>(a);
    } else if (plan.element != element) {
      plan.element = SIZE_MAX;
    }
    ++plan.accessors;
    plan.index = plan.index || is_index[a] != 0;
    plan.all_triangles = plan.all_triangles && non_triangles[a] == 0;
  }
  // 2. Encode each view that an accessor reads; keep the encodings that are smaller.
  bool any = false;
  for (std::size_t v = 0; v < plans.size(); ++v) {
    ViewPlan& plan = plans[v];
    const tinygltf::BufferView& view = model.bufferViews[v];
    choose_mode(plan, view,
                plan.first_accessor >= 0
                    ? &model.accessors[static_cast<std::size_t>(plan.first_accessor)]
                    : nullptr);
    if (plan.mode == Mode::raw) continue;
    std::vector<unsigned char> src(plan.length, 0);
    const std::size_t avail = std::min(plan.length, data.size() - view.byteOffset);
    std::memcpy(src.data(), data.data() + view.byteOffset, avail);
    if (Status s = encode(plan, src, v); !s) return s;
    any = any || plan.mode != Mode::raw;
  }
  if (!any) return Ok{};
  // 3. The new buffer 0: encoded views (4-byte aligned), raw views (4, or 8 for views no
  //    accessor reads: EXT_structural_metadata wants its tables 8-byte aligned).
  std::vector<unsigned char> out;
  for (std::size_t v = 0; v < plans.size(); ++v) {
    ViewPlan& plan = plans[v];
    tinygltf::BufferView& view = model.bufferViews[v];
    if (plan.mode == Mode::raw) {
      const auto from = data.begin() + static_cast<std::ptrdiff_t>(view.byteOffset);
      out.resize(round_up(out.size(), plan.accessors == 0 ? 8 : 4), 0);
      view.byteOffset = out.size();
      out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(view.byteLength));
      continue;
    }
    out.resize(round_up(out.size(), 4), 0);
    const std::size_t at = out.size();
    out.insert(out.end(), plan.encoded.begin(), plan.encoded.end());
    if (at > INT_MAX || plan.encoded.size() > INT_MAX || plan.count > INT_MAX) {
      return Error::internal("glTF bufferView " + std::to_string(v),
                             "compressed view beyond 2 GiB");
    }
    tinygltf::Value::Object ext;
    ext["buffer"] = tinygltf::Value(0);
    ext["byteOffset"] = tinygltf::Value(static_cast<int>(at));
    ext["byteLength"] = tinygltf::Value(static_cast<int>(plan.encoded.size()));
    ext["byteStride"] = tinygltf::Value(static_cast<int>(plan.stride));
    ext["count"] = tinygltf::Value(static_cast<int>(plan.count));
    ext["mode"] = tinygltf::Value(std::string(mode_name(plan.mode)));
    view.extensions[kMeshoptCompression] = tinygltf::Value(std::move(ext));
    view.buffer = 1;
    view.byteLength = plan.length;
  }
  out.resize(round_up(out.size(), 4), 0);
  // 4. The original bytes become the fallback buffer (only its byteLength is written).
  tinygltf::Buffer fallback;
  fallback.data = std::move(model.buffers[0].data);
  fallback.data.resize(round_up(fallback.data.size(), 4), 0);
  fallback.extensions[kMeshoptCompression] =
      tinygltf::Value(tinygltf::Value::Object{{"fallback", tinygltf::Value(true)}});
  model.buffers[0].data = std::move(out);
  model.buffers.push_back(std::move(fallback));
  require_extension(model);
  return Ok{};
}

}  // namespace cityforge::exporter::detail
