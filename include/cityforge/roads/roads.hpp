// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/fillet.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// The road processor (seeds/000, minutes 10-14): junctions, trimmed sections, road modules,
/// sidewalks and the lane graph that the simulation and SUMO drive on.
namespace cityforge::roads {

/// Road processor rules.
struct Config {
  double module_lengths_m[3] = {20.0, 10.0, 5.0};  ///< Road modules per width class, longest first.
  double min_module_scale = 0.5;   ///< The last 5 m module may shrink to 2.5 m... [Limit: (0, 1]]
  double max_module_scale = 1.5;   ///< ...or stretch to 7.5 m to absorb a remainder. [>= 1]
  double crown_m = 0.08;           ///< Camber: centre line above the curbs.
  double skirt_m = 0.3;            ///< Skirts hang this far below the surface edges.
  double curb_height_m = 0.15;     ///< Sidewalks sit this far above the road.
  double min_trim_m = 2.0;         ///< Shortest trim at a junction with 3+ legs.
  double crosswalk_width_m = 3.0;  ///< Crosswalk stripe band, just outside the junction.
  double stop_line_gap_m = 1.0;    ///< Stop line this far before the crosswalk.
  double yellow_s = 3.0;           ///< Signal clearance.
  double all_red_s = 1.5;
  double min_green_s = 12.0;
  double pedestrian_walk_s = 7.0;  ///< Walk interval before flashing don't-walk.
  /// Curb return radius per layout::RoadClass (artery, main, local): the city JSON's
  /// layout.classes.<class>.corner_radius_m. A corner between two classes uses the smaller
  /// radius. [Limit: 0..100]
  double corner_radius_m[3] = {9.0, 7.0, 5.0};
  double max_trim_share = 0.9;  ///< The two trims of an edge take at most this share of it.
  /// Carriageway curbs (before the class raise) sit this far above the terrain: markings,
  /// junction surfaces and the drawn road surface (meshes.hpp) all use it (the single owner of
  /// the road height). [Limit: 0..5]
  double road_raise_m = 0.05;
  /// Sidewalks and block surfaces (the curb tops) sit this far above the terrain; Output carries
  /// it so what stands on them (set dressing) stands on what is drawn. [Limit: 0..5]
  double block_raise_m = 0.15;
  /// Extra raise per layout::RoadClass (artery, main, local), see road_surface_raise in
  /// meshes.hpp; a junction surface takes the raise of its highest-class leg.
  double class_raise_m[3] = {0.04, 0.02, 0.0};
  /// Markings float this far above the road surface so they do not z-fight with it. [>= 0]
  double marking_lift_m = 0.01;
};

using LaneId = std::uint32_t;
inline constexpr LaneId kNoLane = 0xffffffffU;

/// How a junction is controlled.
enum class Control : std::uint8_t { none, yield, stop, signal };
const char* to_string(Control c);

/// One leg of a junction: a road edge end, with the distance its section is trimmed by.
struct Leg {
  layout::EdgeId edge = 0;
  bool at_edge_start = true;  ///< The leg is the edge's `from` end.
  double trim_m = 0.0;        ///< Arc length cut from that end of the edge's centre line.
  Vec2 direction;             ///< Unit vector leaving the junction along the edge.
};

/// A junction: the node, its legs counter-clockwise by leaving angle, its surface (the area
/// between the trimmed section ends, with curb returns of the classes' corner radius) and its
/// control.
struct Intersection {
  layout::NodeId node = 0;
  std::vector<Leg> legs;
  Polygon surface;  ///< Empty for dead ends and 2-leg bends (sections meet directly).
  Control control = Control::none;
};

/// A road section: one edge's centre line between its two trims, and its carriageway surface.
struct Section {
  layout::EdgeId edge = 0;
  double trim_start_m = 0.0;
  double trim_end_m = 0.0;
  /// Trimmed centre line, from the edge's `from` side: `corners` with every corner rounded
  /// (round_corners), the arcs sampled within 3 mm. Lanes, surfaces and markings follow it.
  Polyline centre;
  Polygon surface;  ///< Carriageway, curb to curb.
  /// The corners of the trimmed edge line (polyline_corners), before rounding.
  Polyline corners;
  /// Radius of the rounding of each inner corner: the outermost lane border's offset (half
  /// the carriageway plus the sidewalk) plus 0.5 m, so no lane border loops inside a corner
  /// (less where the corner's lines are too short: corner_fillet).
  double corner_radius_m = 0.0;
  /// At a bend without a junction (a mitre node), the rounding shared with the other section
  /// at the `from` ([0]) and `to` ([1]) end.
  std::array<CornerJoin, 2> joins{};
};

/// A road module instance of the point cloud ("9 bricks for 3 classes").
struct ModuleInstance {
  std::uint8_t road_class = 0;  ///< layout::RoadClass.
  std::uint8_t size = 0;        ///< Index into Config::module_lengths_m (0: 20 m, 1: 10 m, 2: 5 m).
  Vec3 position;                ///< Start of the module on the centre line (z on the terrain).
  double yaw_rad = 0.0;         ///< Heading of the module's +x axis.
  double scale = 1.0;           ///< Along +x; != 1 for at most one module per section.
  std::uint32_t owner = 0;      ///< Section index, or intersection index for junction fill.
  bool in_intersection = false;
};

/// Lane kinds (bit flags: a lane may be e.g. vehicle | intersection).
enum LaneTag : std::uint32_t {
  kVehicle = 1U << 0U,
  kSidewalk = 1U << 1U,
  kCrosswalk = 1U << 2U,
  kIntersection = 1U << 3U,
  kFreeway = 1U << 4U,
  kRamp = 1U << 5U,
  kParking = 1U << 6U,
  kYield = 1U << 7U,  ///< A permissive movement that must give way (e.g. left turn on green).
};

/// Which way a connector turns.
enum class Turn : std::uint8_t { none, through, right, left, u_turn };

/// A lane of the graph: a centre polyline (x, y, z) with its width, speed limit and links.
struct Lane {
  LaneId id = 0;
  std::uint32_t tags = 0;
  std::vector<Vec3> points;
  double width_m = 0.0;
  double length_m = 0.0;
  double speed_limit_mps = 0.0;
  std::vector<LaneId> successors;    ///< Sorted.
  std::vector<LaneId> predecessors;  ///< Sorted.
  std::int32_t section = -1;         ///< Index into Output::sections, or -1.
  std::int32_t intersection = -1;    ///< Index into Output::intersections, or -1.
  std::int32_t lane_index = -1;      ///< 0 = curb-side lane of its direction.
  bool forward = true;               ///< Along the edge's from -> to direction.
  Turn turn = Turn::none;            ///< For connectors.
  /// Lane changes on a section: the same-direction lane to the left (lane_index + 1) and to
  /// the right (lane_index - 1, towards the curb), or kNoLane. Not successors: a vehicle may
  /// move across anywhere along the lane.
  LaneId left_neighbour = kNoLane;
  LaneId right_neighbour = kNoLane;
  double traffic_density = 0.0;  ///< From the layout, 0..1.
  double pedestrian_density = 0.0;
  /// Vehicle connectors of junctions: the inner control points of the cubic Bezier from the
  /// first to the last point that `points` samples (bezier_connector), for exporters that write
  /// the curve itself (OpenDRIVE). Zero elsewhere, and in lane graphs read from lanes.json.
  std::array<Vec2, 2> handles{};
};

/// A signal phase: which connector and crosswalk lanes may go, for how long.
struct Phase {
  double green_s = 0.0;
  double yellow_s = 0.0;
  double all_red_s = 0.0;
  std::vector<LaneId> green;  ///< Connector lanes with right of way (sorted).
  std::vector<LaneId> walk;   ///< Crosswalk lanes with a walk signal (sorted).
};

/// Junctions joined by a vehicle link shorter than this (metres) act as one: their signal plans
/// share one cycle (the lane graph's coordination), the traffic simulation's junction coordinator
/// serves them as one cluster, and the MPI partition keeps them on one rank.
inline constexpr double kShortLinkM = 15.0;

/// The fixed-time plan of a signalised intersection.
struct SignalPlan {
  std::uint32_t intersection = 0;
  double offset_s = 0.0;
  std::vector<Phase> phases;
  double cycle_s() const;
};

/// The contract between the city and the simulation (DESIGN.md, "The lane graph").
struct LaneGraph {
  std::vector<Lane> lanes;
  std::vector<SignalPlan> signals;
};

/// What a road marking decal shows. Lines are white; the decal's texture is chosen by kind.
enum class MarkingKind : std::uint8_t {
  centre_solid,         ///< Single solid centre line (two-way main roads).
  centre_double_solid,  ///< Double solid centre line, one decal for both lines (arteries).
  lane_dashed,          ///< Dashed line: lane separators, and the centre line of local roads.
  edge_solid,           ///< Solid line along each curb.
  stop_line,            ///< Across the incoming lanes before a signal or stop junction.
  crosswalk_stripe,     ///< One zebra bar of a crosswalk, parallel to the traffic.
  arrow_through,        ///< Turn arrows on approach lanes, by the movements the lane allows.
  arrow_left,
  arrow_right,
  arrow_through_left,
  arrow_through_right,
};
const char* to_string(MarkingKind k);
/// A MarkingKind's bit in a set of kinds (SectionMarkings::of).
constexpr std::uint32_t marking_bit(MarkingKind k) { return 1U << static_cast<unsigned>(k); }
constexpr std::uint32_t kAllMarkings = 0xFFFFFFFFU;

/// One road marking instance, draped on the road surface (see road_surface_z). Its local +x
/// axis points along yaw_rad (along the road for lines and stripes, the direction of travel for
/// stop lines and arrows); length_m is measured along +x, width_m across.
struct Decal {
  MarkingKind kind = MarkingKind::centre_solid;
  Vec3 position;  ///< Centre of the decal, z on the road surface + Config::marking_lift_m.
  double yaw_rad = 0.0;
  double length_m = 0.0;
  double width_m = 0.0;
  /// The section (index into Output::sections) the decal lies on. Every marking of this version
  /// lies on a section: stop lines, crosswalk stripes and arrows sit on the leg's section just
  /// outside the junction surface.
  std::uint32_t section_or_intersection = 0;
  /// The decal's quad, or a strip polygon where the road bends under it: counter-clockwise
  /// seen from above, >= 4 points, every z on the road surface + Config::marking_lift_m.
  std::vector<Vec3> outline;
};

/// Counters of build_geometry (for stats.json and tests).
struct GeometryStats {
  std::uint32_t junctions = 0;         ///< Intersections with a surface.
  std::uint32_t trims_shrunk = 0;      ///< Edges whose two trims were scaled down to fit.
  std::uint32_t trims_grown = 0;       ///< Leg trims lengthened after a section overlap check.
  std::uint32_t surfaces_clipped = 0;  ///< Surfaces cut back where trims could not separate
                                       ///< them (sharp angles on short edges).
  std::uint32_t hints_ignored = 0;     ///< layout::RoadNode::control_hint on nodes that are no
                                       ///< junction of 3+ legs (bends, dead ends).
};

/// Everything the road processor produces.
struct Output {
  std::vector<Intersection> intersections;  ///< One per layout node, same index.
  std::vector<Section> sections;            ///< One per layout edge, same index.
  std::vector<ModuleInstance> modules;
  std::vector<Polygon> sidewalks;  ///< Sidewalk areas: the ring between each block and its curbs.
  LaneGraph lanes;
  GeometryStats geometry_stats;
  /// Sidewalks and block surfaces stand this far above the terrain (Config::block_raise_m).
  double block_raise_m = 0.15;
  /// The rules the roads were built with, so what lies on them finds their heights and
  /// markings (road_surface_z(city, roads, ground, roads.config, ...): the set dressing's
  /// decals).
  Config config;
};

/// Trims every section at its junctions, builds junction and section surfaces. The trim of a leg
/// grows with the width of its neighbours and shrinks with the angle between them, so surfaces
/// of different roads never overlap. Dead ends and bends between two roads of equal width get
/// no surface (two such sections meet on the bisector). Controls: signal where two or more legs
/// are arteries or main roads (3+ legs), stop where four or more legs are local, yield at the
/// other 3+ leg junctions, none elsewhere; a mapped layout::RoadNode::control_hint (imported
/// places) overrides that at junctions of 3+ legs (counted in hints_ignored elsewhere).
/// Surfaces are only separated from surfaces on a shared level (RoadEdge::layer; tunnels apart),
/// so a bridge crossing a road without a junction keeps both whole. Errors on edges with < 2
/// points, bad end nodes or width <= 0.
Result<Output> build_geometry(const layout::Output& city, const terrain::Heightfield& ground,
                              const Config& config);

/// Fills sections and junctions with road modules (20 / 10 / 5 m per class, fitted greedily,
/// only the last 5 m module scaled within [min_module_scale, max_module_scale]). Tunnel edges
/// (underground, not drawn) get none.
std::vector<ModuleInstance> fit_modules(const layout::Output& city, const Output& geometry,
                                        const terrain::Heightfield& ground, const Config& config);

/// Builds the lane graph on the trimmed geometry: driving lanes per direction per section,
/// connectors for every allowed movement inside junctions (smooth, continuous in position and
/// tangent), sidewalk and crosswalk lanes, controls and signal plans. Imported places: edges
/// with RoadEdge::lanes_backward >= 0 get lanes_forward() lanes along and lanes_back() against
/// them (none on one-way edges), all lanes sharing the carriageway; connectors only join
/// existing lanes; with RoadNetwork::mapped_crossings, crosswalks only at the leg ends whose
/// RoadEdge::crossings bit is set.
Result<LaneGraph> build_lane_graph(const layout::Output& city, const Output& geometry,
                                   const terrain::Heightfield& ground, const Config& config);

/// Sidewalk areas: each block grown by the widest sidewalk of its frontage roads, minus the
/// carriageways and junction surfaces around it. Corners follow the curb returns; sidewalks
/// never overlap road surfaces. In block order.
std::vector<Polygon> build_sidewalks(const layout::Output& city, const Output& geometry);

/// The line the lanes of section `section` are offset from (build_lane_graph): its trimmed
/// (rounded) centre line without repeated points, every point kept and long segments split
/// so points are at most 5 m apart; a section trimmed away
/// entirely keeps a 1 cm stub along its edge from the trim point so its lanes stay linked.
Polyline lane_reference(const layout::Output& city, const Output& roads, std::uint32_t section);

/// The point lateral_m left of section `section`'s trimmed centre line (right when negative)
/// at arc length s_m from its `from` end (clamped to the line): on the segment holding s, the
/// same fraction of the way between the two vertices offset by lateral_m (mitred at interior
/// vertices as polyline_offset does), so points trace polyline_offset(centre, lateral_m) and the
/// carriageway meshes' strips.
Vec2 section_point(const Output& roads, std::uint32_t section, double lateral_m, double s_m);

/// Height of the finished road surface at section_point(roads, section, lateral_m, s_m), by the
/// carriageway meshes' draping rule (meshes.hpp): ground.sample(p) + road_surface_raise(class) +
/// crown_m * max(0, 1 - |lateral_m| / half width) (the crown falls linearly from the centre
/// line to the curbs). Metres.
double road_surface_z(const layout::Output& city, const Output& roads,
                      const terrain::Heightfield& ground, const Config& config,
                      std::uint32_t section, double lateral_m, double s_m);

/// Height of junction `intersection`'s flat surface at p: ground.sample(p) +
/// road_surface_raise(junction_class) (no crown). Metres.
double junction_surface_z(const layout::Output& city, const Output& roads,
                          const terrain::Heightfield& ground, const Config& config,
                          std::uint32_t intersection, Vec2 p);

/// Road markings as decals on the built sections and lane graph (right-hand traffic):
/// - centre line on every two-way section: double solid on arteries (0.45 m wide: two 0.15 m
///   lines 0.15 m apart), single solid 0.15 m on main roads, dashed 0.15 m (lane_dashed) on
///   locals;
/// - lane separators between same-direction lanes: dashed, 0.15 m wide, 3 m dashes 9 m apart;
/// - edge lines 0.15 m wide, their outer side 0.2 m inside each curb;
/// - stop lines 0.4 m deep across the incoming lanes of every leg of signal and stop junctions,
///   stop_line_gap_m before the crosswalk;
/// - crosswalk stripes on the crosswalk lanes of 3+ leg junctions: 0.5 m bars, 0.5 m gaps,
///   across the carriageway, as long as the crosswalk lane is wide;
/// - one 5 m turn arrow per approach lane of a 3+ leg junction, 3 m before the stop line (or
///   crosswalk), for the movements the lane's connectors allow; lanes allowing every movement
///   or only left and right get none (no such kind).
/// Centre, edge and separator lines stop at the stop line or crosswalk. Markings from one end
/// use at most half the section, so short sections drop arrows first, then stop lines.
/// Long markings are cut into pieces of at most 5 m; each outline follows the road surface.
/// Output order: sections by index; within one, centre line, lane separators, edge lines, then
/// the crosswalk, stop line and arrows of its `from` end and of its `to` end. Deterministic.
/// Returns no decals when `roads` does not hold one section per edge and one intersection per
/// node of `city` (run() always does).
std::vector<Decal> build_markings(const layout::Output& city, const Output& roads,
                                  const terrain::Heightfield& ground, const Config& config);

/// The markings one section at a time: of(s) is the run of build_markings' decals on section s,
/// in the same order, so a caller can make them where it draws them and never hold the whole
/// city's (the export: hundreds of thousands of decals). Indexes the lanes once; of() is
/// thread-safe. No decals where build_markings gives none. All inputs must outlive it.
class SectionMarkings {
 public:
  SectionMarkings(const layout::Output& city, const Output& roads,
                  const terrain::Heightfield& ground, const Config& config);
  SectionMarkings(const SectionMarkings&) = delete;
  SectionMarkings& operator=(const SectionMarkings&) = delete;
  ~SectionMarkings();
  std::size_t sections() const { return m_sections; }
  /// Only the kinds in `kinds` (marking_bit), the same decals as the whole run has of them.
  std::vector<Decal> of(std::uint32_t section, std::uint32_t kinds = kAllMarkings) const;

 private:
  struct Impl;
  std::unique_ptr<const Impl> m_impl;
  std::size_t m_sections = 0;
};

/// The whole road stage: geometry, modules, lane graph. Deterministic at any thread count.
Result<Output> run(const layout::Output& city, const terrain::Heightfield& ground,
                   const Config& config, Seed seed);

}  // namespace cityforge::roads
