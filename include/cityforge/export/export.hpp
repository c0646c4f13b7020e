// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "cityforge/wfc/wfc.hpp"

/// Writers for everything a user gets out of a run. `export` is a C++ keyword, so the namespace
/// is `exporter`.
namespace cityforge::exporter {

/// Export settings: the `export` object of the city JSON (chunk size, setbacks, raises).
using Config = pipeline::ExportSettings;

/// Where the local frame sits on Earth; (0,0) with `georeferenced = false` for invented cities.
struct Origin {
  bool georeferenced = false;
  double lon_deg = 0.0;
  double lat_deg = 0.0;
  /// Imported places: local metres -> WGS84 (lon, lat) degrees. When set, layout.geojson is
  /// written in WGS84 as RFC 7946 requires.
  std::function<std::pair<double, double>(Vec2)> to_wgs84;
  std::string local_crs;    ///< The local frame's PROJ definition (metadata).
  std::string attribution;  ///< Data credit (metadata), e.g. "© OpenStreetMap contributors".
};

/// What city.glb is made of: the stage outputs (references where required, null pointers for
/// what is left out) and the export settings. Every mesh comes built by the stage that owns it
/// or is made by that module's code as it is cut (terrain::mesh_chunks, roads::surface_mesh);
/// city_glb only cuts them into chunks and writes them.
struct CityGlbInputs {
  const terrain::Heightfield& terrain;  ///< Drawn as the terrain mesh (terrain::mesh_chunks).
  const layout::Output& layout;
  const Config& settings;  ///< The `export` object: chunk size, road modules, instance mode.
  /// The road stage: its section modules become instanced bricks with
  /// settings.road_modules == instanced (when it holds one section per layout edge).
  const roads::Output* roads = nullptr;
  /// What the road and block surface meshes are made of; null: none drawn. They are made a
  /// batch at a time as they are cut into chunks (roads::surface_mesh), never all held.
  const roads::SurfaceSource* road_surfaces = nullptr;
  /// Placeholder block volumes (roads::build_block_volumes), drawn only without `buildings`.
  const std::vector<Mesh>* block_volumes = nullptr;
  /// Deck and barrier chunks and pillar meshes (part "freeway").
  const freeway::Output* freeway = nullptr;
  /// Roofs baked into the chunks, facade modules instanced; needs `styles`.
  const buildings::Output* buildings = nullptr;
  const buildings::StyleLibrary* styles = nullptr;
  /// Props instanced per category and chunk; its ground patch meshes baked (one part per kind).
  const dressing::Output* dressing = nullptr;
  const rooftops::RooftopOutput* rooftops = nullptr;  ///< WFC rooftop tiles, instanced per region.
  /// The lots of `buildings`: their zone and OSM id go into the tiles' building metadata
  /// (city.glb does not read them).
  const lots::Output* lots = nullptr;
  /// What makes the facade modules again when `buildings` does not hold them
  /// (buildings::Config::keep_instances false): the tileset makes each leaf's own.
  const buildings::LotInputs* facades = nullptr;
};

/// Builds `city.glb` (glTF 2.0 binary) in memory: one node per chunk_m x chunk_m chunk (named
/// "chunk_<cx>_<cy>", ordered by (cy, cx)), each with one mesh whose primitives are the parts
/// (terrain, road surfaces per class, sidewalks, blocks, volumes or roofs, ground patches,
/// markings, freeway) that fall in it (triangles are assigned by centroid; see
/// detail::chunk_city_meshes in city_meshes.hpp). Converts z-up engine coordinates to glTF's
/// y-up (x, z, -y). Positions are float32 with min/max, normals float32, indices uint32. Byte
/// identical for identical inputs. Fails (never emits NaN) if any coordinate is not finite.
/// With settings.road_modules == instanced and `roads` built, the section carriageways are
/// written as the road bricks (roads::road_bricks) that occur (one mesh per class x module length)
/// instanced per chunk with EXT_mesh_gpu_instancing (in extensionsUsed only); junction surfaces
/// stay baked. Instances are rigid: a module starts at the terrain height of its start and is
/// pitched and rolled to follow the ground to its end and across, but does not bend as the
/// baked ribbons do. See gltf_writer.cpp.
/// With `buildings` (and their `styles`), the block volumes give way to the buildings: roofs
/// are baked into the chunk meshes (materials "roof" and "parapet") and every facade module is
/// instanced per chunk (see gltf_buildings.cpp): one mesh per module that occurs, made by the
/// built-in kit, with per-instance _BUILDING, _FLOOR and _ROOM attributes. With `dressing`,
/// the props follow under the root as category -> chunk -> instances (gltf_props.cpp).
/// With `rooftops`, the WFC rooftop tiles follow under the root as "rooftops" -> region (4 x 4
/// chunks) -> instances of each (tile, mirrored, colour) kit mesh, colour variants as materials
/// (gltf_rooftops.cpp).
/// settings.instances chooses how instances are written: EXT_mesh_gpu_instancing (ext), one
/// node per instance (nodes) or baked into one mesh per chunk (bake) (gltf_instances.cpp).
Result<std::vector<std::uint8_t>> city_glb(const CityGlbInputs& in);
/// `cityforge wfc -o out.glb`: a solved square grid (`tiles`: a variant per cell, x fastest).
/// Cell (x, y, z) is drawn with its floor centre at ((x + 0.5) cell_m, (y + 0.5) cell_m,
/// z level_m), turned by the variant's quarter turns and mirrored as the variant says. Tiles
/// the rooftop kit knows get its mesh (rooftops::rooftop_tile_mesh, colour 0); others a slab in a
/// colour per base tile with a dark arrow along the tile's +x and a tab on its +y, so rotation
/// and mirroring are visible. Empty and "air" cells are not drawn. Instances per (base tile,
/// mirrored) with EXT_mesh_gpu_instancing. Byte identical for identical inputs.
Result<std::vector<std::uint8_t>> wfc_grid_glb(const wfc::Model& model, const wfc::Grid& grid,
                                               const std::vector<wfc::TileId>& tiles, double cell_m,
                                               double level_m);
/// `building.glb` for `cityforge building`: one node "building" whose children are the roof
/// mesh (style materials) and one instancing node per module, as in city_glb.
Result<std::vector<std::uint8_t>> building_glb(const buildings::Output& building,
                                               const buildings::StyleLibrary& styles);

/// `layout.geojson`: a FeatureCollection of roads (LineString with class, width, lanes,
/// sidewalk, speed, densities, from/to nodes; imported roads also their OSM highway, way id,
/// oneway, layer, bridge, tunnel), blocks and zones (Polygon), in local metres, or in WGS84
/// degrees when origin.to_wgs84 is set (imported places);
/// the top-level member "cityforge" holds units, origin and the crs note. Floats printed with
/// %.9g, keys in a fixed order: byte identical for identical inputs.
/// With `lots`, every lot (layer "lot": id, block, status, narrow, zone, target height,
/// parcels) follows; with `buildings` and `styles`, every building's base footprint (layer
/// "building": id, lot, style, shape, height_m, floors, base_z_m, tiers, rooms).
Result<std::string> layout_geojson(const layout::Output& city, const Origin& origin,
                                   const lots::Output* lots = nullptr,
                                   const buildings::Output* buildings = nullptr,
                                   const buildings::StyleLibrary* styles = nullptr);

/// `map.svg`: a top-down map: zones tinted by kind, blocks, roads drawn to width and coloured
/// by class, the boundary, a scale bar and a legend. North is up.
/// With `buildings`, their base footprints are drawn over the blocks.
std::string map_svg(const layout::Output& city, const buildings::Output* buildings = nullptr);

/// `lanes.json`: every lane of the lane graph (tags, width, length, speed, successors and
/// predecessors, points x y z), the junctions (node, position, control, legs with trims) and
/// the signal plans (phases with green connectors and walking crosswalks). Schema in
/// docs/lanes.md. Byte identical for identical inputs; rejects non-finite numbers.
Result<std::string> lanes_json(const roads::Output& roads, const layout::Output& city);
/// The same file handed to `sink` a megabyte at a time as it is written (a region's lane graph
/// is never held whole as text); the sink's error stops it.
Status lanes_json(const ByteSink& sink, const roads::Output& roads, const layout::Output& city);

/// The point clouds under `points/`, binary little-endian PLY, each handed to `sink` a megabyte
/// at a time as it is made (never held whole; collect_bytes gives the bytes in memory). A
/// non-finite value is an error naming the item, and stops the file.
///
/// `points/road_modules.ply`: the road module instances (x y z yaw scale module_length_m
/// road_class size owner in_intersection), for instancing in DCC tools.
Status road_modules_ply(const std::vector<roads::ModuleInstance>& modules,
                        const double (&module_lengths_m)[3], const ByteSink& sink);
/// `points/building_modules.ply`: every facade module instance (x y z yaw scale_x scale_z
/// module building lot floor room brand tags; room -1 = none); header comments map module
/// numbers to module ids. When `out` kept no instances (buildings::Config::keep_instances
/// false), they are made again lot by lot from `facades`, a wave of lots at a time: the same
/// bytes.
Status building_modules_ply(const buildings::Output& out, const buildings::StyleLibrary& styles,
                            const buildings::LotInputs* facades, const ByteSink& sink);

/// `points/props/<prop id>.ply`: the instances of one prop of the set dressing (x y z yaw
/// scale_x scale_y scale_z owner variant state).
Status prop_ply(const dressing::Output& out, std::uint32_t prop, const ByteSink& sink);
/// `points/parking_spots.ply`: where the simulation spawns parked cars (x y z yaw length_m edge
/// lane).
Status parking_ply(const dressing::Output& out, const ByteSink& sink);
/// `points/audio.ply`: the audio metadata grid (x y z surface reverb); the header comments name
/// the surface codes.
Status audio_ply(const dressing::Output& out, const ByteSink& sink);

/// Writes bytes to `path` through a temporary file and an atomic rename (core/atomic_file.hpp).
using cityforge::write_file_atomic;

/// A SUMO network in netconvert's "plain XML" form: the text of `city.nod.xml`,
/// `city.edg.xml`, `city.con.xml` and `city.tll.xml`. Schema and ids in docs/sumo.md.
struct SumoFiles {
  std::string nodes;        ///< `<nodes>`: id "n<node id>", x, y in local metres, type.
  std::string edges;        ///< `<edges>`: "e<edge id>f" (from -> to) and "e<edge id>b" (back).
  std::string connections;  ///< `<connections>`: lane to lane; empty: netconvert guesses.
  std::string tll;          ///< `<tlLogics>`: programs and link indices; empty: netconvert's.
};

/// The road network as SUMO plain XML. Every layout edge becomes two one-way edges sharing its
/// centre line (shape from `from` to `to`, reversed for the back edge) with spreadType "right",
/// `lanes_per_direction` lanes each of width width_m / (2 lanes), speed in m/s and a priority
/// by class (artery 3, main 2, local 1). `node_control[i]` is the roads::Control value of node
/// i (0 none, 1 yield, 2 stop, 3 signal) and sets the SUMO node type (traffic_light, priority,
/// allway_stop or priority_stop, right_before_left); empty leaves junction types to netconvert.
/// Dead ends are "priority" so netconvert builds their turnarounds. Nodes and edges appear in
/// id order, numbers as %.9g: byte identical for identical inputs. Fails, naming the element,
/// on non-finite coordinates, dangling node references, fewer than 2 points, lanes < 1,
/// speed or width <= 0, node ids that are not their index, or a node_control of the wrong
/// size or with values above 3.
Result<SumoFiles> sumo_plain_xml(const layout::Output& city,
                                 const std::vector<std::uint8_t>& node_control);

/// The same nodes and edges, with SUMO driving our lane graph instead of netconvert's guesses.
/// Node types follow each intersection's control (a signal becomes "traffic_light" only where
/// the roads stage built a SignalPlan). The connections file holds one `<connection from to
/// fromLane toLane>` per vehicle connector (predecessor lane -> successor lane; our lane_index
/// 0, the curb lane, is SUMO lane 0, the right-most) and per direct section-to-section join at
/// bends, grouped by node in node id order, within a node in lane id order; connectors joining
/// the same two lanes share one connection. The tll file holds one static `<tlLogic id="n<k>"
/// programID="0">` per signal plan, each phase written as green ('G', or 'g' for kYield
/// connectors), yellow ('y' for the links green in that phase) and all-red SUMO phases (zero
/// durations left out), so a program has the plan's cycle; then `<connection ... tl linkIndex>`
/// pins link i of node n<k> to the junction's i-th connection in the order above, which is the
/// character order of the state strings. Freeway lanes are not exported. Byte identical for
/// identical inputs. Fails, naming the element, where the lane graph does not fit the layout
/// (counts, lane links, sections, lane indices, connectors without exactly one predecessor and
/// successor, plans naming foreign lanes or with no positive cycle) and on the errors above.
Result<SumoFiles> sumo_plain_xml(const layout::Output& city, const roads::Output& roads);

}  // namespace cityforge::exporter
