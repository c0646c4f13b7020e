// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "cityforge/core/result.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: EXT_meshopt_compression of a finished model (gltf_compress.cpp).
namespace cityforge::exporter::detail {

/// The extension's name, as it appears in extensionsUsed / extensionsRequired.
inline constexpr const char* kMeshoptCompression = "EXT_meshopt_compression";

/// Compresses the buffer views of a finished model with meshoptimizer's codecs
/// (EXT_meshopt_compression). The model must have one buffer whose data holds every view.
///
/// Views read by accessors are encoded: index views of triangle lists (uint16/uint32, one
/// accessor over the whole view) in mode TRIANGLES, other index views in mode INDICES, every
/// other accessor view (vertex and instance attributes) in mode ATTRIBUTES with the accessor's
/// element size as byteStride when it is a multiple of 4 (at most 256), else with byteStride 4
/// over the view's bytes rounded up to 4 (the zero padding that follows every view). A view is
/// encoded only when its encoding is smaller than its bytes. Views no accessor reads
/// (EXT_structural_metadata property tables, images) are never encoded.
///
/// Afterwards buffer 0 (the GLB BIN chunk) holds the encoded views (4-byte aligned) and the raw
/// ones (4-byte aligned, 8 for views no accessor reads: property tables need it); buffer 1 is
/// the fallback buffer (extension {"fallback": true}, no uri) that the encoded views keep their
/// original byteOffset / byteLength in, and whose data is the original buffer (serialise_glb
/// writes only its byteLength). EXT_meshopt_compression joins extensionsUsed and
/// extensionsRequired (sorted). When no view pays, the model is left as it was. Same model,
/// same bytes. Fails, naming "glTF", on a model that is not one buffer or whose accessors or
/// views lie outside it.
Status compress_meshopt(tinygltf::Model& model);

}  // namespace cityforge::exporter::detail
