// SPDX-License-Identifier: Apache-2.0
// Meshes of the mapped ground patches of an imported place: draped like the block surfaces,
// a little above them, water flat at its shore height.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <string>

#include "cityforge/dressing/dressing.hpp"
#include "cityforge/roads/meshes.hpp"

namespace cityforge::dressing {

Mesh ground_patch_mesh(const GroundPatch& patch, const terrain::Heightfield& ground,
                       double block_raise_m) {
  if (patch.area.outer.size() < 3) return {};
  if (patch.kind != GroundKind::water || patch.path) {
    return roads::draped_surface(patch.area, ground,
                                 block_raise_m + (patch.path ? kPathRaiseM : kGroundPatchRaiseM));
  }
  Mesh m;
  const Triangulation t = triangulate(patch.area);
  const double z = patch.z_m + block_raise_m + kWaterRaiseM;
  for (const Vec2& p : t.points) {
    m.positions.push_back(
        {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)});
    m.normals.push_back({0.0f, 0.0f, 1.0f});
  }
  m.indices = t.indices;
  return m;
}

Status check_ground_patches(const std::vector<GroundPatch>& patches) {
  for (std::size_t i = 0; i < patches.size(); ++i) {
    const std::string where = "dressing.ground[" + std::to_string(i) + "]";
    if (Status s = roads::check_finite(patches[i].area, where); !s) return s.error();
    if (!std::isfinite(patches[i].z_m)) {
      return Error::invalid_input(where + ".z_m", "expected a finite height");
    }
  }
  return Ok{};
}

Result<std::vector<Mesh>> ground_patch_meshes(const std::vector<GroundPatch>& patches,
                                              const terrain::Heightfield& ground,
                                              double block_raise_m) {
  if (Status s = check_ground_patches(patches); !s) return s.error();
  std::vector<Mesh> out(patches.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, patches.size()),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        out[i] = ground_patch_mesh(patches[i], ground, block_raise_m);
                      }
                    });
  return out;
}

}  // namespace cityforge::dressing
