// SPDX-License-Identifier: Apache-2.0
// Instance point clouds as binary little-endian PLY (Houdini, CloudCompare, Blender read it):
// one vertex per instance with its position, heading, scale and attributes.
// Based on: G. Turk, The PLY Polygon File Format, 1994.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/export/export.hpp"

namespace cityforge::exporter {
namespace {

/// A PLY file's bytes handed to the sink a megabyte at a time: a file of millions of points is
/// never held whole (the building modules of a region are gigabytes).
class PlyOut {
 public:
  explicit PlyOut(const ByteSink& sink) : m_sink(sink) { m_bytes.reserve(kFlushBytes + 256); }
  template <class T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    m_bytes.insert(m_bytes.end(), bytes, bytes + sizeof(T));
  }
  void text(const std::string& s) { m_bytes.insert(m_bytes.end(), s.begin(), s.end()); }
  /// After each point: hands the bytes on once a megabyte has gathered.
  Status next() { return m_bytes.size() >= kFlushBytes ? flush() : Status(Ok{}); }
  Status flush() {
    Status st = m_sink(m_bytes.data(), m_bytes.size());
    m_bytes.clear();
    return st;
  }

 private:
  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
  const ByteSink& m_sink;
  std::vector<std::uint8_t> m_bytes;
};

}  // namespace

Status road_modules_ply(const std::vector<roads::ModuleInstance>& modules,
                        const double (&module_lengths_m)[3], const ByteSink& sink) {
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
  PlyOut out(sink);
  out.text(header);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const roads::ModuleInstance& m = modules[i];
    const double vals[] = {m.position.x, m.position.y, m.position.z, m.yaw_rad, m.scale};
    for (double v : vals) {
      if (!std::isfinite(v) || std::fabs(v) > 3.0e38) {
        return Error::invalid_input("modules[" + std::to_string(i) + "]",
                                    "expected finite float32 values, got " + std::to_string(v));
      }
      out.put(static_cast<float>(v));
    }
    out.put(static_cast<float>(module_lengths_m[m.size < 3 ? m.size : 2]));
    out.put(m.road_class);
    out.put(m.size);
    out.put(m.owner);
    out.put(static_cast<std::uint8_t>(m.in_intersection ? 1 : 0));
    if (Status st = out.next(); !st) return st;
  }
  return out.flush();
}

Status building_modules_ply(const buildings::Output& out, const buildings::StyleLibrary& styles,
                            const buildings::LotInputs* facades, const ByteSink& sink) {
  std::string header =
      "ply\nformat binary_little_endian 1.0\n"
      "comment cityforge building modules: one point per instance at the module's origin (left "
      "end of its bottom edge on the facade plane); +x of the module along yaw, +y out of the "
      "building, z up; width = module width * scale_x, height = mesh height * scale_z\n";
  for (std::uint32_t m = 0; m < styles.module_count(); ++m)
    header += "comment module " + std::to_string(m) + " " + styles.module(m).id + "\n";
  header += "element vertex " + std::to_string(out.stats.instances) +
            "\nproperty float x\nproperty float y\nproperty float z\nproperty float yaw\n"
            "property float scale_x\nproperty float scale_z\nproperty uint module\n"
            "property uint building\nproperty uint lot\nproperty ushort floor\n"
            "property int room\nproperty ushort brand\nproperty uint tags\nend_header\n";
  PlyOut bytes(sink);
  bytes.text(header);
  std::size_t i = 0;
  const auto put_instance = [&](const buildings::Instance& in) -> Status {
    const float vals[] = {in.position[0], in.position[1], in.position[2],
                          in.yaw_rad,     in.scale_x,     in.scale_z};
    for (float v : vals) {
      if (!std::isfinite(v)) {
        return Error::invalid_input("buildings.instances[" + std::to_string(i) + "]",
                                    "expected finite values");
      }
      bytes.put(v);
    }
    bytes.put(in.module);
    bytes.put(in.building);
    bytes.put(in.lot);
    bytes.put(in.floor);
    bytes.put(in.room == buildings::kNoRoom ? std::int32_t{-1}
                                            : static_cast<std::int32_t>(in.room));
    bytes.put(in.brand);
    bytes.put(in.tags);
    ++i;
    return bytes.next();
  };
  if (out.instances_kept) {
    for (const buildings::Instance& in : out.instances) {
      if (Status st = put_instance(in); !st) return st.error();
    }
    return bytes.flush();
  }
  // Made again: the buildings of each block (a run of ids: lots come by block), a wave of
  // blocks in parallel.
  if (facades == nullptr || facades->lots == nullptr) {
    return Error::internal("buildings.instances", "not kept and nothing to make them from");
  }
  std::vector<std::vector<std::uint32_t>> lots;
  const auto block_of = [&](std::uint32_t b) {
    const std::uint32_t lot = out.buildings[b].lot;
    return lot < facades->lots->lots.size() ? facades->lots->lots[lot].block : lot;
  };
  for (std::uint32_t b = 0; b < out.buildings.size(); ++b) {
    if (b == 0 || block_of(b) != block_of(b - 1)) lots.emplace_back();
    lots.back().push_back(b);
  }
  constexpr std::size_t kWave = 256;
  for (std::size_t w = 0; w < lots.size(); w += kWave) {
    const std::size_t n = std::min(kWave, lots.size() - w);
    std::vector<std::optional<Result<std::vector<buildings::Instance>>>> made(n);
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
      made[k].emplace(buildings::instances_of(out, lots[w + k], facades));
    });
    for (auto& m : made) {
      if (!*m) return m->error();
      for (const buildings::Instance& in : **m) {
        if (Status st = put_instance(in); !st) return st.error();
      }
    }
  }
  if (i != out.stats.instances) {
    return Error::internal("buildings.instances", "made " + std::to_string(i) + " again, not " +
                                                      std::to_string(out.stats.instances));
  }
  return bytes.flush();
}

Status prop_ply(const dressing::Output& out, std::uint32_t prop, const ByteSink& sink) {
  const auto& catalog = dressing::prop_catalog();
  if (prop >= catalog.size()) {
    return Error::invalid_input("prop " + std::to_string(prop), "not in the prop catalogue");
  }
  std::size_t n = 0;
  for (const dressing::Item& it : out.items)
    n += it.prop == prop ? 1 : 0;
  const std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment cityforge prop '" + catalog[prop].id + "' (" +
      dressing::to_string(catalog[prop].category) +
      "): one point per instance at its origin; +x of the prop along yaw, z up\n"
      "element vertex " +
      std::to_string(n) +
      "\nproperty float x\nproperty float y\nproperty float z\nproperty float yaw\n"
      "property float scale_x\nproperty float scale_y\nproperty float scale_z\n"
      "property uint owner\nproperty uchar variant\nproperty uchar state\nend_header\n";
  PlyOut bytes(sink);
  bytes.text(header);
  for (std::size_t i = 0; i < out.items.size(); ++i) {
    const dressing::Item& it = out.items[i];
    if (it.prop != prop) continue;
    const float vals[] = {it.position[0], it.position[1], it.position[2], it.yaw_rad,
                          it.scale_x,     it.scale_y,     it.scale_z};
    for (float v : vals) {
      if (!std::isfinite(v)) {
        return Error::invalid_input("dressing.items[" + std::to_string(i) + "]",
                                    "expected finite values");
      }
      bytes.put(v);
    }
    bytes.put(it.owner);
    bytes.put(it.variant);
    bytes.put(it.state);
    if (Status st = bytes.next(); !st) return st;
  }
  return bytes.flush();
}

Status parking_ply(const dressing::Output& out, const ByteSink& sink) {
  const std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment cityforge parking spots: centre of each "
      "spot on the road, yaw along the curb in the lane's direction of travel\nelement vertex " +
      std::to_string(out.parking.size()) +
      "\nproperty float x\nproperty float y\nproperty float z\nproperty float yaw\n"
      "property float length_m\nproperty uint edge\nproperty uint lane\nend_header\n";
  PlyOut bytes(sink);
  bytes.text(header);
  for (std::size_t i = 0; i < out.parking.size(); ++i) {
    const dressing::ParkingSpot& p = out.parking[i];
    const float vals[] = {p.position[0], p.position[1], p.position[2], p.yaw_rad, p.length_m};
    for (float v : vals) {
      if (!std::isfinite(v)) {
        return Error::invalid_input("dressing.parking[" + std::to_string(i) + "]",
                                    "expected finite values");
      }
      bytes.put(v);
    }
    bytes.put(p.edge);
    bytes.put(p.lane);
    if (Status st = bytes.next(); !st) return st;
  }
  return bytes.flush();
}

Status audio_ply(const dressing::Output& out, const ByteSink& sink) {
  std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment cityforge audio metadata: surface type and "
      "reverb (share of rays hitting a building) on a grid over the walkable surface\n";
  for (std::uint8_t k = 0; k <= static_cast<std::uint8_t>(dressing::Surface::water); ++k) {
    header += "comment surface " + std::to_string(k) + " " +
              dressing::to_string(static_cast<dressing::Surface>(k)) + "\n";
  }
  header += "element vertex " + std::to_string(out.audio.size()) +
            "\nproperty float x\nproperty float y\nproperty float z\nproperty uchar surface\n"
            "property float reverb\nend_header\n";
  PlyOut bytes(sink);
  bytes.text(header);
  for (std::size_t i = 0; i < out.audio.size(); ++i) {
    const dressing::AudioPoint& a = out.audio[i];
    for (float v : {a.position[0], a.position[1], a.position[2]}) {
      if (!std::isfinite(v)) {
        return Error::invalid_input("dressing.audio[" + std::to_string(i) + "]",
                                    "expected finite values");
      }
      bytes.put(v);
    }
    bytes.put(static_cast<std::uint8_t>(a.surface));
    bytes.put(a.reverb);
    if (Status st = bytes.next(); !st) return st;
  }
  return bytes.flush();
}

}  // namespace cityforge::exporter
