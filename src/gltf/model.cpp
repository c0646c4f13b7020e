// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the glTF writers: buffer views, accessors, primitives, quaternions.
#include <algorithm>
#include <cmath>
#include <string>

#include "cityforge/gltf/builder.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"

namespace cityforge::gltf {

namespace {

bool keep_undecoded(tinygltf::Image* /*image*/, const int /*index*/, std::string* /*err*/,
                    std::string* /*warn*/, int /*req_width*/, int /*req_height*/,
                    const unsigned char* /*bytes*/, int /*size*/, void* /*user*/) {
  return true;
}

}  // namespace

void skip_image_decoding(tinygltf::TinyGLTF& loader) {
  loader.SetImageLoader(&keep_undecoded, nullptr);
}

int add_view(tinygltf::Model& model, const void* data, std::size_t bytes, int target) {
  std::vector<unsigned char>& buf = model.buffers[0].data;
  buf.resize((buf.size() + 3) / 4 * 4, 0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = buf.size();
  view.byteLength = bytes;
  view.target = target;
  const auto* p = static_cast<const unsigned char*>(data);
  buf.insert(buf.end(), p, p + bytes);
  model.bufferViews.push_back(view);
  return static_cast<int>(model.bufferViews.size() - 1);
}

int add_accessor(tinygltf::Model& model, int view, int component, int type, std::size_t count) {
  tinygltf::Accessor a;
  a.bufferView = view;
  a.componentType = component;
  a.type = type;
  a.count = count;
  model.accessors.push_back(a);
  return static_cast<int>(model.accessors.size() - 1);
}

std::array<float, 3> to_y_up(const std::array<float, 3>& v) {
  // + 0.0f turns -0 (from y = 0) into +0, so min/max never read "-0.0".
  return {v[0], v[2], -v[1] + 0.0f};
}

Result<tinygltf::Primitive> add_primitive(tinygltf::Model& model, const Mesh& mesh, int material,
                                          const std::string& where) {
  std::vector<std::array<float, 3>> positions(mesh.positions.size());
  std::vector<std::array<float, 3>> normals(mesh.normals.size());
  std::vector<double> lo(3, 0.0);
  std::vector<double> hi(3, 0.0);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    positions[i] = to_y_up(mesh.positions[i]);
    normals[i] = to_y_up(mesh.normals[i]);
    for (std::size_t k = 0; k < 3; ++k) {
      if (!std::isfinite(positions[i][k]) || !std::isfinite(normals[i][k])) {
        return Error::invalid_input(where, "vertex " + std::to_string(i) + " is not finite");
      }
      // Exact float values as doubles: the validator compares them with the data bit for bit.
      const double v = positions[i][k];
      lo[k] = i == 0 ? v : std::min(lo[k], v);
      hi[k] = i == 0 ? v : std::max(hi[k], v);
    }
  }
  tinygltf::Primitive prim;
  prim.mode = TINYGLTF_MODE_TRIANGLES;
  prim.material = material;
  const int pos_view = add_view(model, positions.data(), positions.size() * sizeof(positions[0]),
                                TINYGLTF_TARGET_ARRAY_BUFFER);
  const int pos = add_accessor(model, pos_view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3,
                               positions.size());
  model.accessors[static_cast<std::size_t>(pos)].minValues = lo;
  model.accessors[static_cast<std::size_t>(pos)].maxValues = hi;
  const int nrm_view = add_view(model, normals.data(), normals.size() * sizeof(normals[0]),
                                TINYGLTF_TARGET_ARRAY_BUFFER);
  if (!mesh.uvs.empty() && mesh.uvs.size() != mesh.positions.size()) {
    return Error::internal(where, std::to_string(mesh.uvs.size()) + " texture coordinates for " +
                                      std::to_string(mesh.positions.size()) + " vertices");
  }
  const std::vector<std::array<float, 2>> uvs = mesh.uvs.empty() ? planar_uvs(mesh) : mesh.uvs;
  for (std::size_t i = 0; i < uvs.size(); ++i) {
    if (!std::isfinite(uvs[i][0]) || !std::isfinite(uvs[i][1])) {
      return Error::invalid_input(where,
                                  "texture coordinate " + std::to_string(i) + " is not finite");
    }
  }
  const int uv_view =
      add_view(model, uvs.data(), uvs.size() * sizeof(uvs[0]), TINYGLTF_TARGET_ARRAY_BUFFER);
  const int idx_view = add_view(model, mesh.indices.data(), mesh.indices.size() * 4,
                                TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  prim.attributes["POSITION"] = pos;
  prim.attributes["TEXCOORD_0"] =
      add_accessor(model, uv_view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2, uvs.size());
  prim.attributes["NORMAL"] = add_accessor(model, nrm_view, TINYGLTF_COMPONENT_TYPE_FLOAT,
                                           TINYGLTF_TYPE_VEC3, normals.size());
  prim.indices = add_accessor(model, idx_view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                              TINYGLTF_TYPE_SCALAR, mesh.indices.size());
  return prim;
}

int add_floats(tinygltf::Model& model, const std::vector<float>& v, int type, std::size_t n) {
  const int view = add_view(model, v.data(), v.size() * sizeof(float), 0);
  return add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, type, v.size() / n);
}

Quat quat_axis(int axis, double angle) {
  Quat q{0.0, 0.0, 0.0, std::cos(0.5 * angle)};
  q[static_cast<std::size_t>(axis)] = std::sin(0.5 * angle);
  return q;
}

Quat quat_mul(const Quat& a, const Quat& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

}  // namespace cityforge::gltf
