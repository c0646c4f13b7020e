// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// Real places (seeds/004): an OpenStreetMap extract (XML or PBF, read with libosmium) and an
/// optional DEM (GeoTIFF, SRTM .hgt, ArcInfo ASCII, read with GDAL; one file or several tiles
/// mosaicked by GDAL) become the same stage inputs a generated city has: a heightfield, a
/// layout::Output (road network and blocks), a lots::Output with one parcel per mapped
/// building, and the mapped features the set dressing places (ground areas, water, paths,
/// street furniture, barriers). Everything is projected with PROJ onto a local transverse
/// Mercator frame (metres, x east, y north) around the centre of the imported bounds, whose
/// WGS84 origin travels with the city.
namespace cityforge::osm {

// ---- Tags and bounds ------------------------------------------------------------------------

/// The tags of an object, sorted by key, keys unique.
using Tags = std::vector<std::pair<std::string, std::string>>;
/// The value of `key`, or "" when absent.
std::string_view tag(const Tags& tags, std::string_view key);

/// A WGS84 box in degrees.
struct GeoBox {
  double min_lon = 0.0;
  double min_lat = 0.0;
  double max_lon = 0.0;
  double max_lat = 0.0;
  bool valid() const;  ///< Finite, min < max, inside [-180, 180] x [-90, 90].
  bool contains(double lon, double lat) const;
};
/// Parses "minlon,minlat,maxlon,maxlat" (the --bbox option). The error names `where`.
Result<GeoBox> parse_bbox(std::string_view text, std::string_view where = "--bbox");

// ---- Projection -------------------------------------------------------------------------------

/// The local metric frame: transverse Mercator on WGS84 centred on (lon0, lat0), through PROJ.
/// Calls are serialised internally (one PROJ context), so a Projection may be shared.
class Projection {
 public:
  /// Fails (invalid_input) for a non-finite or out-of-range origin or when PROJ refuses.
  static Result<Projection> around(double lon0_deg, double lat0_deg);
  Projection(Projection&&) noexcept;
  Projection& operator=(Projection&&) noexcept;
  ~Projection();
  /// WGS84 degrees -> local metres.
  Vec2 to_local(double lon_deg, double lat_deg) const;
  /// Local metres -> WGS84 degrees (lon, lat).
  std::pair<double, double> to_wgs84(Vec2 p) const;
  double lon0() const { return m_lon0; }
  double lat0() const { return m_lat0; }
  /// The PROJ definition of the local frame ("+proj=tmerc +lat_0=... +lon_0=... ...").
  const std::string& definition() const { return m_definition; }

 private:
  struct Impl;
  Projection() = default;
  std::unique_ptr<Impl> m_impl;
  double m_lon0 = 0.0;
  double m_lat0 = 0.0;
  std::string m_definition;
};

// ---- Reading an extract ------------------------------------------------------------------------

/// A tagged node the import uses (signals, crossings, street furniture, trees...).
struct Node {
  std::int64_t id = 0;
  double lon = 0.0;
  double lat = 0.0;
  Vec2 pos;  ///< Local metres.
  Tags tags;
};

/// A linear way (highway, barrier, waterway, railway): node ids and their local positions.
/// Closed ways (roundabouts) repeat the first node at the end.
struct Way {
  std::int64_t id = 0;
  std::vector<std::int64_t> refs;
  std::vector<Vec2> points;  ///< Local metres, one per ref.
  Tags tags;
};

/// An area: a closed way or a multipolygon relation, assembled by libosmium's area assembler.
struct Area {
  std::int64_t osm_id = 0;        ///< Way or relation id.
  bool from_relation = false;     ///< A multipolygon relation (else a closed way).
  std::vector<Polygon> polygons;  ///< Outer rings counter-clockwise with their holes clockwise.
  Tags tags;
};

/// What was read and what had to be skipped (each skip is a warning, never a crash).
struct ReadStats {
  std::size_t nodes = 0;                 ///< Nodes in the file.
  std::size_t ways = 0;                  ///< Ways in the file.
  std::size_t relations = 0;             ///< Relations in the file.
  std::size_t ways_missing_nodes = 0;    ///< Ways with a node not in the file: skipped.
  std::size_t areas_invalid = 0;         ///< Areas the assembler could not close or that self-
                                         ///< intersect beyond repair: skipped.
  std::size_t relations_incomplete = 0;  ///< Multipolygons with members outside the file.
};

struct ReadOptions {
  /// Import only this box; default: the file's header bounds, else the extent of its nodes.
  std::optional<GeoBox> bbox;
};

/// The parts of an extract the import uses, in local metres, sorted by id.
struct Extract {
  std::string source;  ///< The file (for messages).
  GeoBox bounds;       ///< The imported box (see ReadOptions::bbox).
  double lon0 = 0.0;   ///< Centre of `bounds`: the origin of the local frame.
  double lat0 = 0.0;
  std::vector<Node> nodes;  ///< Tagged nodes inside `bounds`.
  std::vector<Way> ways;    ///< Linear ways with at least one node inside `bounds`.
  std::vector<Area> areas;  ///< Areas with a node inside `bounds`.
  ReadStats stats;
  std::vector<std::string> warnings;  ///< One line per kind of skip, with counts and examples.
};

/// Reads an OSM XML (.osm) or PBF (.osm.pbf / .pbf) file. Errors name the file and the place in
/// it (line and column for XML, the block for PBF) and what was expected: truncated or
/// malformed XML, a bad PBF block, a bbox that holds nothing, a file that is neither.
Result<Extract> read_file(const std::string& path, const ReadOptions& options = {});
/// The same for OSM XML held in memory; `name` stands for the file in messages (fuzz target).
Result<Extract> read_xml(std::string_view xml, std::string_view name,
                         const ReadOptions& options = {});
/// The same for an OSM PBF held in memory (fuzz target).
Result<Extract> read_pbf(std::string_view pbf, std::string_view name,
                         const ReadOptions& options = {});

// ---- Terrain ------------------------------------------------------------------------------------

struct DemStats {
  std::string driver;            ///< GDAL driver ("GTiff", "SRTMHGT", "AAIGrid").
  std::string crs;               ///< The DEM's CRS as "EPSG:<code>" or its name.
  std::size_t voids_filled = 0;  ///< Heightfield samples whose DEM cells were voids.
  double min_m = 0.0;
  double max_m = 0.0;
};

/// Reads a DEM and resamples it (bilinear, voids filled by inverse-distance interpolation from
/// the nearest valid cells) onto a heightfield covering `area` (local metres) at `cell_m`.
/// Errors name the file: unreadable, no or unknown CRS, not covering `area` (with both
/// extents in degrees), all voids.
Result<terrain::Heightfield> read_dem(const std::string& path, const Projection& projection,
                                      const Aabb2& area, double cell_m, DemStats* stats = nullptr);
/// The DEM files `args` name (each a file, or a folder meaning every .tif, .tiff, .hgt and .asc
/// file directly in it, case-insensitive), sorted by path with duplicates dropped, so the same
/// files in any order give the same list. Errors: an argument that does not exist; a folder
/// holding no DEM file. No arguments give none.
Result<std::vector<std::string>> dem_files(const std::vector<std::string>& args);
/// Reads several DEM tiles as one: sorted by path (the result does not depend on their order),
/// mosaicked by GDAL (an in-memory VRT, GDALBuildVRT at the finest resolution among them; where
/// tiles overlap the later path wins) and resampled as read_dem does. One path is read_dem.
/// Cells no tile covers are voids (filled, counted in `stats`). `stats->driver` lists the
/// tiles' drivers ("SRTMHGT", "GTiff+SRTMHGT"). Errors name the file: any read_dem error of one
/// tile, tiles in different CRS (both files and both CRS named), tiles whose values differ in
/// scale, offset or unit, a tile GDAL leaves out of the mosaic (with GDAL's reason).
Result<terrain::Heightfield> read_dem_mosaic(const std::vector<std::string>& paths,
                                             const Projection& projection, const Aabb2& area,
                                             double cell_m, DemStats* stats = nullptr);
/// A flat heightfield (all 0) covering `area` at `cell_m` (imports without a DEM).
terrain::Heightfield flat_ground(const Aabb2& area, double cell_m);

/// Terrain conditioning under the roads (cut and fill).
struct ConditionConfig {
  double shoulder_m = 2.0;  ///< Beyond the carriageway + sidewalks, fully on the profile.
  double blend_m = 12.0;    ///< Then eased back to the natural ground over this distance.
  double smooth_m = 30.0;   ///< Profile smoothing window along a way.
  double max_grade = 0.15;  ///< Profiles are eased towards this grade where steeper.
  /// Easing the grade moves node heights, and the profile between them, at most this far from
  /// the (smoothed) ground, so a steep street stays steep rather than carving the hill.
  double max_node_shift_m = 6.0;
};
struct ConditionStats {
  std::size_t samples_changed = 0;
  double max_cut_m = 0.0;
  double max_fill_m = 0.0;
};
/// Smooths a height profile along every surface road (nodes shared by their edges), and sets
/// the ground under each road and its sidewalks to the profile, easing back to the natural
/// ground beyond; so roads drape on ground that neither floats nor sinks under them. Bridges
/// and tunnels leave the ground alone. Deterministic.
/// Details: junctions (3+ legs) are flat over the widest leg's half width, then each leg's
/// grade ramps up over two cells; samples take the profile at their nearest station, and so do
/// all corners of every cell whose centre is within half a cell diagonal of the road (a road
/// narrower than a cell still gets planar cells under it); where roads compete, a road's own
/// surface beats a neighbour's cell corners, then the nearest road wins, then the lower edge
/// index. The ground is flat across and piecewise linear along a road only where the cells
/// are small against the road spacing: at 28 m cells in a dense town, cells are shared by
/// roads at different heights and the bilinear ground departs from the terrain mesh's
/// triangles. Andorra (5,414 edges), road points where the two differ by > 0.2 m: 20 % at
/// 28 m cells (8 % on the unconditioned DEM), 3.4 % at 10 m, 1 % at 5 m.
ConditionStats condition_terrain(terrain::Heightfield& ground, const layout::RoadNetwork& network,
                                 const ConditionConfig& config = {});

// ---- Roads ------------------------------------------------------------------------------------

/// Defaults of one OSM highway class (docs/import.md has the table).
struct HighwaySpec {
  std::string_view name;         ///< "motorway", "motorway_link", "primary", ...
  layout::RoadClass road_class;  ///< The engine class (module kits, raises, lights).
  bool vehicles = true;          ///< false: footway, path, cycleway...: a path, not a road.
  double width_m = 0.0;          ///< Carriageway (or path) width.
  int lanes = 1;                 ///< Lanes per direction (two-way).
  bool oneway = false;           ///< Implied oneway (motorway, _link).
  double sidewalk_m = 0.0;       ///< Each side, when `sidewalk` is not tagged.
  bool lit = false;              ///< Street lights when `lit` is not tagged.
  double speed_kmh = 50.0;
};
/// The class table, in a fixed order; `RoadEdge::highway` indexes it (+1; 0 = generated).
const std::vector<HighwaySpec>& highway_table();
/// Index of `name` in highway_table(), or -1.
int find_highway(std::string_view name);

/// A length tag ("width", "est_width"): "7", "7.5 m", "7,5", "23 ft", "12'6\"" -> metres;
/// nullopt when unreadable or not positive.
std::optional<double> parse_length_m(std::string_view text);
/// A "maxspeed" value: "50", "30 mph", "10 knots", "DE:urban" (50), "DE:rural" (100),
/// "DE:motorway" / "none" (130), "*:living_street" / "walk" (7), "DE:zone30" / "zone:30" (30)
/// -> km/h; nullopt for "signals", "variable" and anything unreadable.
std::optional<double> parse_maxspeed_kmh(std::string_view text);

/// A path (footway, cycleway, path, steps, pedestrian, track...) drawn as a strip, outside the
/// vehicle network.
struct PathWay {
  std::int64_t osm_way = 0;
  int highway = 0;  ///< Index into highway_table().
  Polyline points;
  double width_m = 2.0;
  std::int8_t layer = 0;
  bool bridge = false;
  bool tunnel = false;  ///< Not drawn.
};

/// How highway ways were turned into the network (for stats.json and the census test).
struct RoadCensus {
  std::size_t highway_ways = 0;      ///< highway=* ways read (inside the bounds).
  std::size_t vehicle_ways = 0;      ///< Ways that became network edges.
  std::size_t path_ways = 0;         ///< Ways that became paths.
  std::size_t skipped_ways = 0;      ///< Other highway values (proposed, platform, ...),
                                     ///< area=yes squares, and ways with no piece left over
                                     ///< min_edge_m (highway_ways = vehicle + path + skipped).
  std::size_t tunnel_ways = 0;       ///< Underground (not drawn; in the lane graph).
  std::size_t edges = 0;             ///< Network edges after splitting at shared nodes.
  std::size_t signal_nodes = 0;      ///< highway=traffic_signals nodes read.
  std::size_t signals_mapped = 0;    ///< Junctions they made signalised (control_hint 4;
                                     ///< unmapped junctions never get a signal).
  std::size_t crossing_nodes = 0;    ///< highway=crossing nodes read.
  std::size_t crossings_mapped = 0;  ///< Junction legs they gave a crosswalk.
};

struct NetworkConfig {
  double signal_snap_m = 25.0;  ///< A signal node this far along a way from a junction signals it.
  double crossing_snap_m = 25.0;  ///< Likewise for crossings and junction legs.
  double min_edge_m = 0.5;        ///< Shorter pieces are merged into their neighbours.
};

struct NetworkBuild {
  layout::Output layout;  ///< Boundary = the bounds; network; blocks (faces of layer 0).
  std::vector<PathWay> paths;
  RoadCensus census;
  std::vector<std::string> warnings;
};

/// Splits highway ways at shared nodes into a planar network per layer (bridges and tunnels
/// join others only at their shared nodes), clipped to `area`, with per-edge attributes from
/// the class table overridden by tags; signals and crossings from nodes; blocks from the
/// faces of the surface network. Deterministic.
Result<NetworkBuild> build_network(const Extract& extract, const Aabb2& area,
                                   const NetworkConfig& config = {});

// ---- Buildings ----------------------------------------------------------------------------------

struct BuildingCensus {
  std::size_t building_areas = 0;      ///< building=* areas (ways and relations) inside the bounds.
  std::size_t part_areas = 0;          ///< building:part=* areas.
  std::size_t buildings = 0;           ///< Buildings made (one lot, one parcel each).
  std::size_t parts_used = 0;          ///< Parts that became volumes of their building.
  std::size_t skipped_invalid = 0;     ///< Self-intersecting beyond repair, or degenerate.
  std::size_t skipped_tiny = 0;        ///< Under BuildingConfig::min_area_m2.
  std::size_t heights_tagged = 0;      ///< height or building:levels given.
  std::size_t heights_drawn = 0;       ///< Drawn from the seeded distribution.
  std::size_t roofs_by_shape[6] = {};  ///< By lots::RoofShape.
};

struct BuildingConfig {
  double min_area_m2 = 6.0;
  double level_m = 3.2;  ///< Storey height for building:levels.
  double ground_level_m = 4.0;
};

struct BuildingBuild {
  lots::Output lots;  ///< One lot per building, status buildable, one parcel with its DNA.
  BuildingCensus census;
  std::vector<std::string> warnings;
};

/// A height in metres from an OSM height value (height, min_height, roof:height): "12",
/// "12.5 m", "12,5", "40'", "40 ft", "40'6\"", "250 cm", "0"; nothing when unreadable.
std::optional<double> parse_height_m(std::string_view value);

/// Mapped buildings (with holes and parts) inside `area` as lots whose DNA carries the imported
/// footprint, heights and roof; styles picked from `styles` by building type, levels and area;
/// missing heights drawn from a seeded distribution by type and area. Deterministic.
Result<BuildingBuild> build_buildings(const Extract& extract, const Aabb2& area,
                                      const layout::Output& layout,
                                      const buildings::StyleLibrary& styles,
                                      const BuildingConfig& config, Seed seed);

// ---- Land use, water, furniture, barriers
// ---------------------------------------------------------

struct FeatureCensus {
  std::size_t ground_areas = 0;  ///< landuse / natural / leisure areas used.
  std::size_t water_areas = 0;
  std::size_t props_mapped = 0;  ///< Street furniture nodes placed.
  std::size_t trees_mapped = 0;
  std::size_t barrier_ways = 0;
};

struct FeatureBuild {
  dressing::Mapped mapped;
  FeatureCensus census;
  std::vector<std::string> warnings;
};

/// Land use and natural areas, water, amenity and street furniture nodes, trees and barriers
/// inside `area` as the set dressing's mapped input (paths from `paths`). Deterministic.
FeatureBuild build_features(const Extract& extract, const Aabb2& area,
                            const std::vector<PathWay>& paths);

}  // namespace cityforge::osm
