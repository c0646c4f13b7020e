// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/planar_graph.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::layout {

/// The three-level road hierarchy of the City Layout tool.
enum class RoadClass : std::uint8_t { artery = 0, main = 1, local = 2 };
inline constexpr std::size_t kRoadClassCount = 3;
const char* to_string(RoadClass c);

/// Geometry and traffic rules for one road class. Its curb return radius is the roads stage's
/// (roads::Config::corner_radius_m; the city JSON keeps it at layout.classes.<class>).
struct RoadClassSpec {
  double width_m = 10.0;          ///< Carriageway width, curb to curb. [Limit: > 0]
  int lanes_per_direction = 1;    ///< [Limit: 1..6]
  double sidewalk_width_m = 3.0;  ///< Each side. [Limit: >= 0]
  double speed_limit_kmh = 50.0;  ///< [Limit: > 0]
};

enum class ZoneKind : std::uint8_t { downtown, commercial, residential, industrial, park };
inline constexpr std::size_t kZoneKindCount = 5;
const char* to_string(ZoneKind k);

/// A zoning region drawn by the user: shapes the skyline ("vertical modelling") and densities.
struct Zone {
  std::string name;
  ZoneKind kind = ZoneKind::residential;
  Polygon area;
  double min_height_m = 6.0;   ///< Height at the zone's edge. [Limit: >= 0]
  double max_height_m = 20.0;  ///< Height at the zone's core. [Limit: >= min_height_m]
  double density = 0.5;        ///< Built / people density, 0..1.
};

/// An artery drawn by the artist: the router follows it within the corridor.
struct ArteryCurve {
  std::string name;
  Polyline points;
};

/// Inputs of the layout stage (from the city JSON).
struct Inputs {
  Polygon boundary;
  std::vector<ArteryCurve> arteries;
  std::vector<Zone> zones;
  std::vector<Polygon> water;  ///< Obstacles for routing; no roads are built on water.
};

/// Layout rules.
struct Config {
  std::array<RoadClassSpec, kRoadClassCount> classes{RoadClassSpec{22.0, 3, 5.0, 60.0},  // artery
                                                     RoadClassSpec{14.0, 2, 4.0, 50.0},  // main
                                                     RoadClassSpec{9.0, 1, 3.0, 40.0}};  // local
  double block_short_m = 80.0;         ///< Preferred block depth (American: ~80 m). [Limit: > 10]
  double block_long_m = 200.0;         ///< Preferred block length. [Limit: >= block_short_m]
  double block_size_tolerance = 0.25;  ///< Blocks may stretch +-25 % to fit a region. [0..0.9]
  int main_road_every = 3;             ///< Every n-th grid line is a main road. [Limit: >= 1]
  double corridor_m = 80.0;            ///< Max distance of a routed artery from its curve. [> 0]
  double artery_to_limit_m = 150.0;    ///< Artery ends this close to the city limit (along their
                                       ///< heading) are carried on to it. [>= 0]
  double cost_cell_m = 10.0;           ///< Routing grid resolution. [Limit: >= 2]
  double slope_weight = 40.0;          ///< Cost factor per unit slope (rise/run). [>= 0]
  double curve_weight = 1.0;           ///< Cost factor for drifting away from the curve. [>= 0]
  double merge_distance_m = 12.0;      ///< Nodes closer than this merge. [>= 0]
  double min_dangling_m = 40.0;        ///< Dead ends shorter than this are removed. [>= 0]
  double min_block_area_m2 = 400.0;    ///< Smaller leftovers are not blocks. [> 0]
  double zoning_cell_m = 20.0;         ///< Resolution of the height / density fields. [>= 1]
  double default_height_m = 9.0;       ///< Height outside every zone.
  double default_density = 0.3;        ///< Density outside every zone.
};

using NodeId = std::uint32_t;
using EdgeId = std::uint32_t;
using BlockId = std::uint32_t;

/// A junction or dead end of the road network.
struct RoadNode {
  NodeId id = 0;
  Vec2 pos;
  std::vector<EdgeId> edges;  ///< Incident edges, counter-clockwise by leaving angle.
  /// Imported places: the control mapped here (0 = decide by classes as for generated cities;
  /// else 1 + roads::Control: 1 none, 2 yield, 3 stop, 4 signal).
  std::uint8_t control_hint = 0;
  std::int64_t osm_node = 0;  ///< Imported places: the OSM node id (0 for generated cities).
};

/// A road section between two nodes: a polyline with its class and attributes.
struct RoadEdge {
  EdgeId id = 0;
  NodeId from = 0;
  NodeId to = 0;
  RoadClass road_class = RoadClass::local;
  Polyline points;  ///< From `from` to `to`, >= 2 points.
  double width_m = 0.0;
  int lanes_per_direction = 1;
  double sidewalk_width_m = 0.0;
  double speed_limit_kmh = 0.0;
  double length_m = 0.0;
  double traffic_density = 0.0;     ///< Expected vehicle density, 0..1.
  double pedestrian_density = 0.0;  ///< Expected pedestrian density, 0..1.
  std::int32_t artery_index = -1;   ///< Source artery curve, -1 for grid roads.
  // Imported places (osm module); generated cities keep the defaults.
  /// Lanes against the from -> to direction: -1 = lanes_per_direction (two-way, symmetric),
  /// 0 = one-way from -> to, else that many (lanes:backward). lanes_per_direction then counts
  /// the forward lanes.
  int lanes_backward = -1;
  std::int8_t layer = 0;  ///< OSM layer; edges of different layers never share a junction
                          ///< except at the ends of a bridge or tunnel.
  bool bridge = false;
  bool tunnel = false;       ///< Underground: in the lane graph, not drawn.
  bool lit = true;           ///< Street lights along it.
  std::uint8_t highway = 0;  ///< 1 + index into osm::highway_table(); 0 = generated.
  std::int64_t osm_way = 0;  ///< The OSM way it came from (0 = generated).
  /// Mapped crosswalks (highway=crossing near the end): bit 0 at `from`, bit 1 at `to`.
  /// Only read when RoadNetwork::mapped_crossings is set.
  std::uint8_t crossings = 0;
  /// turn:lanes (forward / backward) as tagged, "" = not mapped.
  std::string turn_lanes_forward;
  std::string turn_lanes_backward;
  int lanes_forward() const { return lanes_per_direction; }
  int lanes_back() const { return lanes_backward < 0 ? lanes_per_direction : lanes_backward; }
};

/// The planar road network: edges meet only at shared nodes.
struct RoadNetwork {
  std::vector<RoadNode> nodes;
  std::vector<RoadEdge> edges;
  /// Imported places: crosswalks only where RoadEdge::crossings maps them (else at every leg
  /// of 3+ leg junctions, as for generated cities).
  bool mapped_crossings = false;
};

/// A city block: a face of the network minus road and sidewalk width.
struct Block {
  BlockId id = 0;
  Polygon area;
  std::vector<EdgeId> frontage;  ///< Road edges bounding the face the block came from, sorted.
  ZoneKind zone = ZoneKind::residential;
  std::int32_t zone_index = -1;  ///< Index into Output::zones, -1 outside every zone.
  double target_height_m = 0.0;  ///< Height field at the block's centroid.
  double density = 0.0;
};

/// A scalar raster over the city (height or density), bilinear sampling.
struct Field {
  Vec2 origin;
  double cell_m = 20.0;
  std::uint32_t nx = 0;
  std::uint32_t ny = 0;
  std::vector<float> values;
  double sample(Vec2 p) const;
};

/// The region between arteries and its fitted grid pattern.
struct Region {
  Polygon area;
  double angle_deg = 0.0;  ///< Orientation of the grid's long axis.
  double block_w_m = 0.0;  ///< Spacing of the grid lines across the long axis.
  double block_l_m = 0.0;  ///< Spacing along the long axis.
  double fit_score = 0.0;  ///< Share of the region covered by whole blocks, 0..1.
};

/// The "soup of metadata" the later stages consume.
struct Output {
  Polygon boundary;
  RoadNetwork network;
  std::vector<Block> blocks;
  std::vector<Zone> zones;
  std::vector<Region> regions;
  std::vector<Polyline> routed_arteries;  ///< Per input artery, the routed path (before noding).
  Field height_field;   ///< Target building height in metres ("vertical modelling").
  Field density_field;  ///< 0..1.
};

/// Checks the inputs (simple boundary, arteries inside it, valid zones). The error names the
/// offending element as `where` (e.g. "arteries[1].points[3]").
Status validate(const Inputs& in, const Config& config);

/// The zoning fields ("vertical modelling"): target building height and density over the city.
/// Independent of the terrain, so the pipeline runs it beside the terrain stage.
struct Zoning {
  Field height;   ///< Metres.
  Field density;  ///< 0..1.
};
/// Builds the zoning fields from the zones. Deterministic for a seed at any thread count.
Result<Zoning> build_zoning(const Inputs& in, const Config& config, Seed seed);

/// Runs the City Layout tool: routes arteries over the terrain, fits a grid per region between
/// them, builds the planar network and the blocks, with densities and heights from `zoning`.
/// Deterministic for a seed at any thread count.
Result<Output> run(const Inputs& in, const terrain::Heightfield& ground, const Zoning& zoning,
                   const Config& config, Seed seed);
/// The same, building the zoning fields itself.
Result<Output> run(const Inputs& in, const terrain::Heightfield& ground, const Config& config,
                   Seed seed);

/// Blocks of a road network built elsewhere (imported places), by the rules of generated
/// cities: the faces of the planar graph of `road_segments` (each tagged with the EdgeId of its
/// road in `net`, so bridges or tunnels left out bound no block) and of in.boundary, noded with
/// a 1e-6 m snap, minus road and sidewalk width, inside the boundary, off in.water; target
/// heights and densities from `height` and `density`. Deterministic.
std::vector<Block> network_blocks(const std::vector<TaggedSegment>& road_segments,
                                  const RoadNetwork& net, const Inputs& in, const Config& config,
                                  const Field& height, const Field& density);

/// Total road length in metres per class.
std::array<double, kRoadClassCount> road_length_by_class(const RoadNetwork& net);

}  // namespace cityforge::layout
