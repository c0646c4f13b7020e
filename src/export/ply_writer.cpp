// SPDX-License-Identifier: Apache-2.0
// Instance point clouds as binary little-endian PLY (Houdini, CloudCompare, Blender read it):
// one vertex per instance with its position, heading, scale and attributes.
// Based on: G. Turk, The PLY Polygon File Format, 1994.
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "cityforge/export/export.hpp"

namespace cityforge::exporter {
namespace {

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

}  // namespace

Result<std::vector<std::uint8_t>> road_modules_ply(
    const std::vector<roads::ModuleInstance>& modules, const double (&module_lengths_m)[3]) {
  static_assert(std::endian::native == std::endian::little, "PLY is written little endian");
  const std::string header =
      "ply\nformat binary_little_endian 1.0\n"
      "comment cityforge road modules: one point per instance, at the module's start on the "
      "centre line; +x of the module along yaw; length = module_length_m * scale\n"
      "element vertex " +
      std::to_string(modules.size()) +
      "\nproperty float x\nproperty float y\nproperty float z\nproperty float yaw\n"
      "property float scale\nproperty float module_length_m\nproperty uchar road_class\n"
      "property uchar size\nproperty uint owner\nproperty uchar in_intersection\nend_header\n";
  std::vector<std::uint8_t> out(header.begin(), header.end());
  out.reserve(out.size() + modules.size() * 29);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const roads::ModuleInstance& m = modules[i];
    const double vals[] = {m.position.x, m.position.y, m.position.z, m.yaw_rad, m.scale};
    for (double v : vals) {
      if (!std::isfinite(v) || std::fabs(v) > 3.0e38) {
        return Error::invalid_input("modules[" + std::to_string(i) + "]",
                                    "expected finite float32 values, got " + std::to_string(v));
      }
      put(out, static_cast<float>(v));
    }
    put(out, static_cast<float>(module_lengths_m[m.size < 3 ? m.size : 2]));
    put(out, m.road_class);
    put(out, m.size);
    put(out, m.owner);
    put(out, static_cast<std::uint8_t>(m.in_intersection ? 1 : 0));
  }
  return out;
}

}  // namespace cityforge::exporter
