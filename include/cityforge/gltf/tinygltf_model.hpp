// SPDX-License-Identifier: Apache-2.0
#pragma once

// tinygltf with the configuration every translation unit must share (the inline TinyGLTF
// constructor refers to the image loaders unless these are set): tinygltf never encodes or
// decodes an image here. Our textures are PNG bytes made by cityforge/materials and stored as
// buffer views; readers skip decoding (skip_image_decoding). cityforge_gltf compiles the
// implementation.
#ifndef TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE
#endif
#ifndef TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#endif
#ifndef TINYGLTF_NO_EXTERNAL_IMAGE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#endif
#include <tiny_gltf.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"

/// The tinygltf layer of the glTF library, for writers that need more of glTF than Builder
/// offers (the exporters: instancing extensions, extras, thousands of meshes). The only public
/// header that exposes a third-party type: include it only where a tinygltf::Model is built;
/// everything else uses cityforge/gltf/builder.hpp. One buffer (buffers[0]), tightly packed
/// 4-byte aligned views, float32 accessors.
namespace cityforge::gltf {

/// Lets `loader` read files with images without decoding them (tinygltf is built without its
/// image codecs): each image keeps its name, MIME type and buffer view or URI, and no pixels.
/// Without it, loading a glb with textures fails ("No LoadImageData callback specified").
void skip_image_decoding(tinygltf::TinyGLTF& loader);

/// Appends raw bytes as a new bufferView (4-byte aligned) of buffer 0 and returns its index.
int add_view(tinygltf::Model& model, const void* data, std::size_t bytes, int target);
/// Appends an accessor over a whole view and returns its index.
int add_accessor(tinygltf::Model& model, int view, int component, int type, std::size_t count);
/// Adds one primitive's accessors (POSITION with min/max, NORMAL, uint32 indices) of an
/// engine-frame (z-up) mesh, converted to y-up; fails on a non-finite value, naming `where`.
Result<tinygltf::Primitive> add_primitive(tinygltf::Model& model, const Mesh& mesh, int material,
                                          const std::string& where);
/// Appends one float accessor of `n`-component elements (no buffer view target: instance data).
int add_floats(tinygltf::Model& model, const std::vector<float>& v, int type, std::size_t n);

/// Adds the one scene `name` (holding node 0, the root) and serialises the model as GLB: the
/// JSON through tinygltf, the BIN chunk (buffer 0, padded to 4 bytes; left out when empty)
/// copied once, straight into the result. Consumes buffer 0's data. Buffers after the first
/// are written as their byteLength (the size of their data), uri and extensions, never their
/// data (EXT_meshopt_compression fallback buffers); extensions of buffer views, which tinygltf
/// leaves out, are written too. Byte identical for identical models. Errors name "<name>.glb".
Result<std::vector<std::uint8_t>> serialise_glb(tinygltf::Model& model, const std::string& name);

}  // namespace cityforge::gltf
