// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: the HLOD stand-ins of the 3D Tiles parent tiles. A parent tile
/// draws its children's content merged into a few meshes (building shells, ground) and
/// simplified by meshoptimizer to a measured error in metres, which becomes the tile's
/// geometricError.
namespace cityforge::exporter::detail {

/// Feature id of a vertex that belongs to no feature (ground, roads).
inline constexpr std::uint32_t kNoFeature = 0xFFFFFFFFU;

/// A triangle mesh with a colour and a feature id per vertex: what a parent tile draws. All
/// per-vertex vectors have the same length; triangles are counter-clockwise seen from outside.
struct HlodMesh {
  std::vector<std::array<float, 3>> positions;       ///< Engine frame (z up), metres.
  std::vector<std::array<float, 3>> normals;         ///< Unit length.
  std::vector<std::array<std::uint8_t, 4>> colours;  ///< Linear RGBA, 0..255.
  /// Per vertex: the feature id (row of the tile's property table) or kNoFeature. The three
  /// vertices of a triangle share one.
  std::vector<std::uint32_t> features;
  std::vector<std::uint32_t> indices;  ///< Three per triangle.

  /// No triangles.
  bool empty() const { return indices.empty(); }
  std::size_t triangle_count() const { return indices.size() / 3; }
};

/// Appends `src` with one colour and one feature id for all of its vertices.
void append_hlod(HlodMesh& dst, const Mesh& src, std::array<std::uint8_t, 4> colour,
                 std::uint32_t feature);
/// Appends `src`, offsetting its indices.
void append_hlod(HlodMesh& dst, const HlodMesh& src);

/// The LOD1 shell of one building, all vertices with `feature`: the walls of every volume
/// (outer ring and holes) from base_z_m + z0_m to base_z_m + z1_m in `wall` colour, one flat
/// quad per ring edge; its roof meshes (`roofs`, the building's buildings::Output::roofs entry)
/// in `roof` colour, except the Material::wall part (gable walls of imported roofs) in `wall`
/// colour. A building without any roof triangle gets a flat cap on each volume top instead.
/// Outward normals, counter-clockwise triangles seen from outside; the shell is closed except
/// at its base, which stands on the ground and is never seen (so no triangles are spent there).
HlodMesh building_shell(const buildings::Building& b,
                        const std::array<Mesh, buildings::kMaterialCount>& roofs,
                        std::array<std::uint8_t, 4> wall, std::array<std::uint8_t, 4> roof,
                        std::uint32_t feature);

/// What simplify_hlod returns.
struct Simplified {
  HlodMesh mesh;
  /// The simplifier's error in metres (meshopt's result_error times meshopt_simplifyScale), the
  /// largest over the feature groups; 0 if nothing was removed. An area-weighted mean of
  /// squared distances to the input's planes, so it understates the largest deviation.
  double error_m = 0.0;
  /// The measured deviation in metres: the largest distance from an input vertex to the output
  /// surface of its feature (the one-sided Hausdorff distance sampled at the input vertices);
  /// 0 if nothing was removed. What a parent tile's geometricError should be built from.
  double deviation_m = 0.0;
};

/// How simplify_hlod sets the output normals.
enum class HlodShading : std::uint8_t {
  /// Each vertex keeps its input normal (of one of the input vertices welded into it): smooth
  /// surfaces such as the ground.
  smooth,
  /// One normal per face, vertices shared only by the triangles of one plane: building shells,
  /// whose welded corners would otherwise shade round.
  flat,
};

/// Simplifies `in` with meshopt_simplify towards `target_ratio` (0..1) of its triangles without
/// moving any input vertex further than `max_error_m` metres from the result: meshopt's own
/// bound is an area-weighted mean of squared distances to the input's planes, so each group is
/// simplified, its deviation measured, and redone with half meshopt's bound while it is too
/// far (three times at most; then the group stays as it was). First welds vertices at one position
/// with one colour and feature (chunk meshes split their vertices at every seam, flat shells at
/// every edge), so the simplifier sees connected surfaces; normals are then set by `shading`. Each
/// feature id (kNoFeature included) is simplified on its own, so vertices of different features are
/// never merged and every output triangle keeps one feature. Drops unused vertices; colours and
/// features stay with their vertices. Triangles come grouped by feature, in order of each feature's
/// first triangle in `in`. Deterministic: the same input gives the same output bytes.
Simplified simplify_hlod(const HlodMesh& in, double target_ratio, double max_error_m,
                         HlodShading shading = HlodShading::smooth);

/// Adds `mesh` as one glTF triangle primitive with material `material` to `model`: POSITION
/// (float32 VEC3 with min/max, converted to glTF's y up), NORMAL, COLOR_0 (normalized unsigned
/// byte VEC4) and uint32 indices. With `property_table >= 0` also `_FEATURE_ID_0` (float SCALAR,
/// exact up to 2^24) and the primitive extension EXT_mesh_features {featureIds: [{featureCount
/// (the number of distinct ids), attribute: 0, propertyTable}]}; the caller declares the
/// extensions in extensionsUsed. Fails, naming `where`, on a non-finite position or normal, on
/// an empty mesh, and with a property table on a kNoFeature vertex or an id >= 2^24.
Result<tinygltf::Primitive> add_hlod_primitive(tinygltf::Model& model, const HlodMesh& mesh,
                                               int material, int property_table,
                                               const std::string& where);

}  // namespace cityforge::exporter::detail
