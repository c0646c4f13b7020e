// SPDX-License-Identifier: Apache-2.0
// The OpenDRIVE writer's state (opendrive_writer.cpp: roads and lanes; opendrive_control.cpp:
// junctions, signals, signs, crosswalks, controllers and the side file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/export/opendrive.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "export/detail/opendrive_freeway.hpp"
#include "export/detail/opendrive_geometry.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter::detail {

using roads::kNoLane;
using roads::Lane;
using roads::LaneId;

inline std::string num_id(std::size_t v) { return std::to_string(v); }

inline Vec2 xy(Vec3 p) { return {p.x, p.y}; }

/// The lanes of one section road, by OpenDRIVE side.
struct RoadLanes {
  std::vector<LaneId> right;  ///< Forward lanes, -1 (next to the centre) outwards.
  std::vector<LaneId> left;   ///< Backward lanes, 1 outwards.
  LaneId walk_right = kNoLane;
  LaneId walk_left = kNoLane;
};

using LaneRef = OdrLaneRef;

/// The numeric part of one road, fitted before the text is written (in parallel).
struct Profiles {
  std::vector<OdrGeometry> geo;  ///< Connecting roads only (sections: Writer::m_geo).
  std::vector<Poly3> elevation;
  std::vector<Poly3> roll;
  std::vector<Poly3> stretch;  ///< 1 / cos(roll): the standard measures t across the roll.
  std::vector<ShapeRecord> shapes;
  double fit_error_m = -1.0;  ///< Connectors on their own curve: its distance from the samples.
};

/// Writes one map: run() once. With a sink, the map's text goes to it as it is written and
/// run()'s `xodr` stays empty.
class Writer {
 public:
  Writer(const layout::Output& city, const roads::Output& roads, const terrain::Heightfield& ground,
         const roads::Config& config, const OpenDriveOptions& options,
         const freeway::Output* freeway, const ByteSink* sink = nullptr)
      : m_city(city),
        m_roads(roads),
        m_ground(ground),
        m_config(config),
        m_options(options),
        m_freeway(freeway),
        m_x(sink) {}

  Result<OpenDriveFiles> run();

 private:
  void index_lanes();
  Profiles section_profiles(std::uint32_t k) const;
  Profiles connector_profiles(LaneId c, std::uint32_t junction) const;
  void section_road(std::uint32_t k, const Profiles& pr);
  void connecting_road(LaneId c, std::size_t road_id, std::uint32_t junction, const Profiles& pr);
  void lane_xml(const Lane& lane, int id, const char* type, const char* mark, LaneRef pred,
                LaneRef succ, double height_inner, double height_outer);

  void road_link(std::uint32_t k, bool at_start);
  void plan_view(const std::vector<OdrGeometry>& geo, const std::string& where);
  /// The elevation profile, then an open `<lateralProfile>` with the superelevation (the
  /// caller adds its crossfall and shapes and closes it); sets m_stretch.
  void heights(const Profiles& pr, const std::string& where);
  /// One record per piece: `open` (e.g. "      <elevation"), then `s_name` (s or sOffset) and
  /// a, b, c, d times `scale`.
  void profile(const char* open, const char* s_name, const std::vector<Poly3>& pieces, double scale,
               const std::string& where);
  void signals_of(std::uint32_t k);
  void objects_of(std::uint32_t k);
  void junction_xml(std::uint32_t j);
  void controllers_xml();
  std::string side_json() const;
  double stop_s(std::uint32_t k, bool forward) const;
  void build_heads();

  const layout::Output& m_city;
  const roads::Output& m_roads;
  const terrain::Heightfield& m_ground;
  const roads::Config& m_config;
  const OpenDriveOptions& m_options;
  const freeway::Output* m_freeway;
  FreewayMap m_fw;  // The freeway's roads (empty without one).
  XmlText m_x;
  OpenDriveStats m_stats;
  std::vector<RoadLanes> m_sections;
  std::vector<std::vector<OdrGeometry>> m_geo;    // Per section.
  std::vector<std::vector<LaneId>> m_connectors;  // Per intersection, ascending.
  std::vector<std::vector<LaneId>> m_crosswalks;  // Per section.
  std::vector<LaneRef> m_ref;                     // Per lane.
  std::vector<std::size_t> m_plan_of;             // Per intersection, or SIZE_MAX.
  // Signals: one controller per (junction, set of phases a movement is green in).
  struct Head {
    std::uint32_t road = 0;
    bool forward = true;
    std::vector<int> lanes;
    std::string controller;
    int type = 1000001;
  };
  std::vector<std::vector<Head>> m_heads;                                       // Per section road.
  std::vector<std::pair<std::string, std::vector<std::string>>> m_controllers;  // id, signals
  std::vector<std::vector<std::vector<std::string>>> m_phase_controllers;       // Per plan, phase.
  std::size_t m_signal_count = 0;
  /// 1 / cos(superelevation) along the road being written: the standard measures t across the
  /// rolled surface, our lanes' widths are in plan.
  std::vector<Poly3> m_stretch;
};

/// Writes stateless pieces: a link element's attributes.
inline void link_attrs(XmlText& x, const char* type, std::size_t id, const char* contact) {
  x.attr("elementType", type);
  x.attr("elementId", num_id(id));
  if (contact != nullptr) x.attr("contactPoint", contact);
}

}  // namespace cityforge::exporter::detail
