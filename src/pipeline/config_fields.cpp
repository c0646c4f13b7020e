// SPDX-License-Identifier: Apache-2.0
// The field tables of the city JSON: every member of every config struct a stage is handed,
// declared once with its JSON key, range and meaning (or as hidden: not in the JSON, still part
// of the cache key). Parsing, the docs tables of docs/city-config.md and the stage cache keys
// all come from here; undeclared_members() (checked by a test) fails when a struct gains a
// member that is not declared here.
#include "pipeline/detail/config_schema.hpp"

namespace cityforge::pipeline::detail {
namespace {

// Every stage but `styles` draws from the seed.
constexpr const char* kSeeded =
    "terrain, zoning, layout, roads, freeway, lots, buildings, rooftops, dressing";

using Files = std::vector<std::string>;
using Sources = std::vector<std::pair<std::string, std::string>>;

constexpr SubDoc kShepherdDocs[] = {
    {"[].name", "string", "**required**",
     "Unique; the group's positions are drawn from a random stream keyed by the seed and this "
     "name, so renaming a group moves its members."},
    {"[].polygon", "`[[x, y], ...]`", "**required**",
     "A simple polygon: the volume's footprint (heights play no part). Members stand on the "
     "sidewalks (not crosswalks) inside it."},
    {"[].count", "integer in [0, 1000000]", "**required**", "Members wanted."},
    {"[].density", "number in [0, 10]", "0",
     "Cap in members per m2 of sidewalk inside the polygon (lane width x centre-line length "
     "inside): the group gets min(count, floor(density x area)). 0: no cap. Members keep >= "
     "0.6 m apart; a crowded polygon gets fewer (generate says how many)."},
    {"[].behaviour", "\"idle\" or \"look_around\"", "\"idle\"", "What the members do."},
    {"[].variant_mix", "`[weight, ...]`", "uniform",
     "Weights per appearance variant (index = variant), >= 0, one positive."},
};

}  // namespace

template <>
const Table& table_of<CityConfig>() {
  static const Table t{
      "CityConfig",
      "",
      aggregate_arity<CityConfig>(),
      {
          text<&CityConfig::name>("name", "Shown in the summary and stats.json."),
          free_text("description", "Free text."),
          read_by(custom<&CityConfig::seed>(
                      "seed", &read_seed, &plain_text<Seed>, "integer >= 0", nullptr,
                      "Default seed (`--seed` overrides). Same seed and file give "
                      "byte-identical outputs."),
                  kSeeded),
          nested<&CityConfig::inputs>(""),
          nested<&CityConfig::terrain>("terrain"),
          nested<&CityConfig::layout>("layout"),
          nested<&CityConfig::roads>("roads"),
          nested<&CityConfig::exports>("export"),
          read_by(custom<&CityConfig::freeways>(
                      "freeways", &read_freeways, &freeways_text,
                      "`[{name, points, lanes_per_direction, design_speed_kmh}]`", "[]",
                      "Elevated freeways: `points` are `[x, y, deck height above the ground]` "
                      "inside the boundary (1 m tolerance), `lanes_per_direction` 1..6 (3), "
                      "`design_speed_kmh` 20..200 (90: sets the smallest curve radius)."),
                  "freeway"),
          nested<&CityConfig::lots>("lots"),
          nested<&CityConfig::buildings>("buildings"),
          nested<&CityConfig::rooftops>("rooftops"),
          nested<&CityConfig::dressing>("dressing"),
          nested<&CityConfig::crowd>("crowd"),
      }};
  return t;
}

template <>
const Table& table_of<layout::Inputs>() {
  static const Table t{
      "layout::Inputs",
      "zoning, layout",
      aggregate_arity<layout::Inputs>(),
      {
          read_by(custom<&layout::Inputs::boundary>(
                      "boundary", &read_boundary, &polygon_text, "`[[x, y], ...]`", "**required**",
                      "The city limit: a simple polygon (no self-intersections), >= 1 ha, "
                      "<= 100 km a side."),
                  "terrain, zoning, layout"),
          custom<&layout::Inputs::arteries>(
              "arteries", &read_arteries, &arteries_text, "`[{name, points}]`", "[]",
              "The artist's artery curves. Every point must lie inside the boundary. Each is "
              "routed as a least-cost path over the terrain within `layout.corridor_m` of its "
              "curve; an end within `layout.artery_to_limit_m` of the limit (along its heading) "
              "is carried on to the limit."),
          custom<&layout::Inputs::zones>(
              "zones", &read_zones, &zones_text, "`[{name, kind, polygon, height_m, density}]`",
              "**required**",
              "Non-empty. `kind`: downtown, commercial, residential, industrial or park. "
              "`height_m: [min, max]`: building height at the zone's edge and at its core (the "
              "skyline rises with depth into the zone). `density` 0..1. Later zones win where "
              "zones overlap."),
          custom<&layout::Inputs::water>("water", &read_water, &water_text,
                                         "`[[[x, y], ...], ...]`", "[]",
                                         "Polygons no road or block may cover; arteries route "
                                         "around them."),
      }};
  return t;
}

template <>
const Table& table_of<terrain::Config>() {
  using C = terrain::Config;
  static const Table t{
      "terrain::Config",
      "terrain",
      aggregate_arity<C>(),
      {
          number<&C::amplitude_m>("amplitude_m", 0, 2000, "Peak deviation from 0; 0 = flat."),
          number<&C::scale_m>("scale_m", 1, 1e6, "Wavelength of the first noise octave."),
          integer<&C::octaves>("octaves", 1, 12, "Noise octaves."),
          number<&C::persistence>("persistence", 0.01, 0.99, "Amplitude factor per octave."),
          number<&C::cell_m>("cell_m", 1, 1000, "Heightfield grid spacing."),
          number<&C::margin_m>("margin_m", 0, 10000, "Extra ground around the city's bounds."),
      }};
  return t;
}

template <>
const Table& table_of<layout::RoadClassSpec>() {
  using C = layout::RoadClassSpec;
  static const Table t{
      "layout::RoadClassSpec",
      nullptr,
      aggregate_arity<C>(),
      {
          number<&C::width_m>("width_m", 0.5, 200, "Carriageway width, curb to curb."),
          integer<&C::lanes_per_direction>("lanes_per_direction", 1, 6, "Lanes each way."),
          number<&C::sidewalk_width_m>("sidewalk_width_m", 0, 50, "Sidewalk width, each side."),
          number<&C::speed_limit_kmh>("speed_limit_kmh", 1, 300, "Speed limit."),
      }};
  return t;
}

template <>
const Table& table_of<layout::Config>() {
  using C = layout::Config;
  static const Table t{
      "layout::Config",
      "zoning, layout",
      aggregate_arity<C>(),
      {
          nested<&C::classes>("classes/{class}"),
          number<&C::block_short_m>("block_short_m", 10.01, 2000,
                                    "Preferred block depth (American blocks)."),
          number<&C::block_long_m>("block_long_m", 10.01, 5000,
                                   "Preferred block length; >= `block_short_m`."),
          number<&C::block_size_tolerance>(
              "block_size_tolerance", 0, 0.9,
              "Blocks stretch up to this share (+-) so a whole number fits a region."),
          integer<&C::main_road_every>("main_road_every", 1, 100,
                                       "Every n-th grid line is a main road."),
          number<&C::corridor_m>("corridor_m", 1, 5000,
                                 "How far a routed artery may stray from its curve."),
          number<&C::artery_to_limit_m>("artery_to_limit_m", 0, 5000,
                                        "Artery ends this close to the limit are carried on to "
                                        "it."),
          number<&C::cost_cell_m>("cost_cell_m", 2, 200, "Resolution of the routing cost grid."),
          number<&C::slope_weight>("slope_weight", 0, 1e6,
                                   "Routing cost per unit slope (rise / run)."),
          number<&C::curve_weight>("curve_weight", 0, 1e6,
                                   "Routing cost of drifting from the curve."),
          number<&C::merge_distance_m>("merge_distance_m", 0, 100,
                                       "Junctions closer than this merge into one."),
          number<&C::min_dangling_m>("min_dangling_m", 0, 1000,
                                     "Dead ends shorter than this are removed."),
          number<&C::min_block_area_m2>("min_block_area_m2", 1, 1e8,
                                        "Smaller leftovers are not blocks."),
          number<&C::zoning_cell_m>("zoning_cell_m", 1, 1000,
                                    "Resolution of the height and density fields."),
          number<&C::default_height_m>("default_height_m", 0, 1000,
                                       "Building height outside every zone."),
          number<&C::default_density>("default_density", 0, 1, "Density outside every zone."),
      }};
  return t;
}

template <>
const Table& table_of<roads::Config>() {
  using C = roads::Config;
  static const Table t{
      "roads::Config",
      "roads",
      aggregate_arity<C>(),
      {
          number<&C::corner_radius_m>(
              "/layout/classes/{class}/corner_radius_m", 0, 100,
              "Curb return radius at junctions (the roads stage rounds the corners and trims "
              "the legs with it); a corner between two classes takes the smaller."),
          hidden<&C::module_lengths_m>("module_lengths_m"),
          number<&C::min_module_scale>("min_module_scale", 0.1, 1.0,
                                       "The last (5 m) road module of a section may shrink to "
                                       "this scale..."),
          number<&C::max_module_scale>("max_module_scale", 1.0, 3.0,
                                       "...or stretch to this one to absorb a remainder."),
          number<&C::crown_m>("crown_m", 0, 1, "Camber: the centre line above the curbs."),
          number<&C::skirt_m>("skirt_m", 0, 5, "Skirts hang this far below the surface edges."),
          number<&C::curb_height_m>("curb_height_m", 0, 1,
                                    "Sidewalk lanes sit this far above the road."),
          number<&C::min_trim_m>("min_trim_m", 0, 100,
                                 "Shortest trim of a leg at a junction with 3+ legs."),
          number<&C::crosswalk_width_m>("crosswalk_width_m", 0.5, 20,
                                        "Crosswalk band, just outside the junction."),
          number<&C::stop_line_gap_m>("stop_line_gap_m", 0, 20,
                                      "Stop line this far before the crosswalk."),
          moved("lane_width_m",
                "roads.lane_width_m was never read and is no longer accepted: a lane is its "
                "carriageway's width (layout.classes.<class>.width_m) over its lanes; remove "
                "the key"),
          number<&C::yellow_s>("yellow_s", 1, 10, "Signal clearance (yellow)."),
          number<&C::all_red_s>("all_red_s", 0, 10, "All-red interval between phases."),
          number<&C::min_green_s>("min_green_s", 3, 120,
                                  "Shortest green; busier phases get up to twice as long."),
          number<&C::pedestrian_walk_s>("pedestrian_walk_s", 1, 60,
                                        "Walk interval before flashing don't-walk."),
          hidden<&C::max_trim_share>("max_trim_share"),
          number<&C::road_raise_m>("road_raise_m", 0, 5,
                                   "Carriageways sit this far above the terrain (markings, "
                                   "junction surfaces and the exported road meshes)."),
          number<&C::block_raise_m>("block_raise_m", 0, 5,
                                    "Sidewalks and block surfaces sit this far above the "
                                    "terrain (the curb); street furniture and ground cover "
                                    "stand on them."),
          hidden<&C::class_raise_m>("class_raise_m"),
          hidden<&C::marking_lift_m>("marking_lift_m"),
      }};
  return t;
}

template <>
const Table& table_of<ExportSettings>() {
  using C = ExportSettings;
  static const Table t{
      "ExportSettings",
      "",
      aggregate_arity<C>(),
      {
          number<&C::chunk_m>("chunk_m", 10, 5000, "Side of the square chunks of city.glb."),
          number<&C::volume_setback_m>("volume_setback_m", 0, 50,
                                       "Block volumes are inset from the block edge (only "
                                       "when a city is exported without buildings)."),
          moved("block_raise_m",
                "moved to /roads/block_raise_m: the roads stage owns the road and curb surface "
                "heights"),
          moved("road_raise_m",
                "moved to /roads/road_raise_m: the roads stage owns the road and curb surface "
                "heights"),
          choice<&C::road_modules>(
              "road_modules", kRoadModuleNames,
              "\"baked\": carriageways baked into the chunk meshes; \"instanced\": the road "
              "modules of sections written as road bricks with glTF `EXT_mesh_gpu_instancing`, "
              "each brick rigid but pitched and rolled to follow the ground from its start to "
              "its end and across, junctions still baked (on curves the joints between bricks "
              "show hairline gaps that the baked mode does not have)."),
          choice<&C::instances>("instances", kInstanceModeNames,
                                "How building modules and props are written, see "
                                "[dressing.md](dressing.md); `--instances` overrides."),
          choice<&C::textures>(
              "textures", kTextureSizeNames,
              "Procedural PBR textures (base colour, normal, metallic-roughness) embedded in "
              "city.glb, this many pixels per repeat, or \"none\" for plain colours; see "
              "[materials.md](materials.md)."),
          number<&C::tile_bytes>("tile_bytes", 65536, 1e9,
                                 "3D Tiles (`--tiles`): a leaf tile is split into four until its "
                                 "content is about this many bytes (or it is one chunk), see "
                                 "[tiles.md](tiles.md)."),
          choice<&C::tile_compression>(
              "tile_compression", kTileCompressionNames,
              "3D Tiles: \"meshopt\" compresses the vertex, index and instance data of the "
              "tile content with glTF `EXT_meshopt_compression` (a required extension: the "
              "viewer needs meshoptimizer's decoder) where it makes a view smaller; \"none\" "
              "writes plain buffers that any glTF reader takes."),
          number<&C::anchor_lon_deg>("anchor_lon_deg", -180, 180,
                                     "3D Tiles: longitude of a generated city's origin on the "
                                     "globe (imported places use their own)."),
          number<&C::anchor_lat_deg>("anchor_lat_deg", -90, 90,
                                     "3D Tiles: latitude of a generated city's origin."),
          number<&C::anchor_height_m>("anchor_height_m", -1000, 10000,
                                      "3D Tiles: ellipsoidal height of the city's z = 0 (also "
                                      "for imported places)."),
          hidden<&C::attribution>("attribution"),
          hidden<&C::georeferenced>("georeferenced"),
          hidden<&C::origin_lon_deg>("origin_lon_deg"),
          hidden<&C::origin_lat_deg>("origin_lat_deg"),
          hidden<&C::local_crs>("local_crs"),
      }};
  return t;
}

template <>
const Table& table_of<lots::Config>() {
  using C = lots::Config;
  static const Table t{
      "lots::Config",
      "lots",
      aggregate_arity<C>(),
      {
          number<&C::min_lot_area_m2>("min_lot_area_m2", 1, 1e6,
                                      "Smaller pieces are `too_small` and left to set "
                                      "dressing."),
          number<&C::max_lot_depth_m>("max_lot_depth_m", 5, 1000,
                                      "Blocks deeper than twice this are first split back to "
                                      "back."),
          number<&C::base_lot_area_m2>("base_lot_area_m2", 10, 1e6,
                                       "Largest lot for a 10 m building."),
          number<&C::area_per_height_m>("area_per_height_m", 0, 1e5,
                                        "Extra lot area allowed per metre of height above 10 m: "
                                        "big footprints only where a tall building can use "
                                        "them."),
          number<&C::area_jitter>("area_jitter", 0, 0.9,
                                  "+- share of random variation in lot size, so subdivision "
                                  "does not look linear."),
          number<&C::narrow_height_m>("narrow_height_m", 0, 1000,
                                      "Lots whose target height is below this may become New "
                                      "York rows of narrow parcels with staggered rear lines "
                                      "(buildings that touch)..."),
          number<&C::narrow_share>("narrow_share", 0, 1, "...this share of them (drawn per lot)."),
          number<&C::narrow_min_width_m>("narrow_min_width_m", 1, 200,
                                         "Narrowest frontage of those parcels."),
          number<&C::narrow_max_width_m>("narrow_max_width_m", 1, 200,
                                         "Widest frontage of those parcels; >= "
                                         "`narrow_min_width_m`."),
          number<&C::max_aspect>("max_aspect", 1.01, 100,
                                 "Lots longer than this (oriented box aspect) are `bad_aspect`; "
                                 "a library footprint is fitted inside them when one fits "
                                 "(`replaced`), else they are left to dressing."),
          number<&C::min_compactness>("min_compactness", 0.001, 0.99,
                                      "Lots less compact than this (4 pi A / P^2) are `sliver`, "
                                      "handled as `bad_aspect`."),
          number<&C::frontage_tolerance_m>("frontage_tolerance_m", 0, 10,
                                           "How close a parcel edge must lie to the street "
                                           "side to count as frontage."),
          number<&C::building_gap_m>("building_gap_m", 0, 50,
                                     "Footprints are inset this far from their parcel."),
          number<&C::lot_gap_m>("lot_gap_m", 0, 100,
                                "Distance kept between buildings of neighbouring lots; 0 lets "
                                "them share party walls (continuous street walls), whose hidden "
                                "modules the generator removes."),
          number<&C::height_jitter>("height_jitter", 0, 0.9,
                                    "+- share of noise on the zoning height."),
          check(&check_narrow_widths),
          custom<&C::footprint_mix>(
              "footprint_mix", &read_footprint_mix, &footprint_mix_text, "`{shape: share}`",
              "see lots.hpp",
              "The wanted share of each of the 17 footprints (rectangle, l_shape, u_shape, "
              "t_shape, h_shape, c_shape, courtyard, plus, z_shape, chamfered, rounded, wedge, "
              "trapezoid, stepped, e_shape, podium_tower, cylinder). Shapes not named get 0. A "
              "shape is only drawn where its shortest wall is at least the style's "
              "`min_wall_m`, and, beside a lot line another parcel shares (with no "
              "`lot_gap_m`), only if it keeps that side one whole wall, mirrored if need be "
              "(docs/buildings.md)."),
      }};
  return t;
}

template <>
const Table& table_of<buildings::Config>() {
  using C = buildings::Config;
  static const Table t{"buildings::Config",
                       nullptr,
                       aggregate_arity<C>(),
                       {
                           hidden<&C::occlusion_push_m>("occlusion_push_m"),
                           hidden<&C::entrance_depth_m>("entrance_depth_m"),
                           hidden<&C::keep_facade_spans>("keep_facade_spans"),
                           hidden<&C::keep_instances>("keep_instances"),
                       }};
  return t;
}

template <>
const Table& table_of<BuildingSettings>() {
  using C = BuildingSettings;
  static const Table t{
      "BuildingSettings",
      "",
      aggregate_arity<C>(),
      {
          read_by(custom<&C::style_files>(
                      "styles", &read_styles, &plain_text<Files>, "`[path, ...]`", "built-in",
                      "Building definition files (paths relative to this file); default: the "
                      "four built-in styles of `data/styles/`, see [styles.md](styles.md)."),
                  "styles"),
          read_by(hidden<&C::style_sources>("style_sources", &sources_text), "styles"),
          read_by(custom<&C::tag_volumes>("tag_volumes", &read_tag_volumes, &tag_volumes_text,
                                          "`[{tag, polygon, z_m}]`", "[]",
                                          "Volume overrides; see below."),
                  "buildings"),
          nested<&C::generator>("", "buildings"),
      }};
  return t;
}

template <>
const Table& table_of<rooftops::RooftopConfig>() {
  using C = rooftops::RooftopConfig;
  static const Table t{
      "rooftops::RooftopConfig",
      "rooftops",
      aggregate_arity<C>(),
      {
          boolean<&C::enabled>("enabled", "WFC rooftops on flat roofs."),
          number<&C::cell_m>("cell_m", 1.5, 10, "Horizontal cell."),
          number<&C::level_m>("level_m", 1.5, 10, "Vertical cell."),
          uinteger<&C::levels>("levels", 1, 4, "Cell layers above the roof."),
          number<&C::min_area_m2>("min_area_m2", 0, 1e6, "Smaller roofs stay bare."),
          number<&C::inset_m>("inset_m", 0, 10,
                              "Cells keep this far inside the roof edge (parapet)."),
          count<&C::backtrack_budget>("backtrack_budget", 100000,
                                      "Backtracking steps per roof before a restart."),
          count<&C::max_restarts>("max_restarts", 100, "Restarts per roof before it stays bare."),
          hidden<&C::keep_cells>("keep_cells"),
      }};
  return t;
}

template <>
const Table& table_of<dressing::Config>() {
  using C = dressing::Config;
  static const Table t{
      "dressing::Config",
      nullptr,
      aggregate_arity<C>(),
      {
          number<&C::tile_m>("tile_m", 0.2, 20, "Sidewalk tile length along the curb."),
          hidden<&C::tile_variants>("tile_variants"),
          number<&C::ground_tile_m>("ground_tile_m", 0.5, 50, "Ground cover point spacing."),
          custom<&C::light_spacing_m>("light_spacing_m", &read_light_spacing,
                                      &plain_text<double[3]>,
                                      "`[artery, main, local]`, each in [5, 1000]", nullptr,
                                      "Street light spacing per road class."),
          hidden<&C::light_curb_offset_m>("light_curb_offset_m"),
          number<&C::tree_spacing_m>("tree_spacing_m", 2, 500,
                                     "Street trees in pits along sidewalks wider than 3 m."),
          number<&C::park_tree_spacing_m>("park_tree_spacing_m", 1, 500,
                                          "Minimum distance between park trees (Poisson "
                                          "disk)."),
          number<&C::hydrant_spacing_m>("hydrant_spacing_m", 5, 5000, "Fire hydrants."),
          number<&C::bin_spacing_m>("bin_spacing_m", 5, 5000, "Litter bins."),
          number<&C::bench_spacing_m>("bench_spacing_m", 5, 5000, "Benches."),
          number<&C::bus_stop_spacing_m>("bus_stop_spacing_m", 50, 50000,
                                         "Bus stops along arteries and main roads."),
          number<&C::parking_spot_m>("parking_spot_m", 2, 30,
                                     "Parking spot length along the curb."),
          hidden<&C::parking_clear_crosswalk_m>("parking_clear_crosswalk_m"),
          hidden<&C::parking_clear_hydrant_m>("parking_clear_hydrant_m"),
          hidden<&C::parking_clear_intersection_m>("parking_clear_intersection_m"),
          hidden<&C::entrance_clear_m>("entrance_clear_m"),
          hidden<&C::min_zone_area_m2>("min_zone_area_m2"),
          number<&C::audio_grid_m>("audio_grid_m", 1, 100, "Audio point spacing."),
          number<&C::audio_radius_m>("audio_radius_m", 1, 1000,
                                     "Ray length of the reverb estimate."),
          hidden<&C::audio_rays>("audio_rays"),
          number<&C::grime_share>("grime_share", 0, 1,
                                  "Decals: share of wall pieces (about 2.5 m of a building's "
                                  "footprint edge) with grime at their foot."),
          number<&C::tyre_mark_share>("tyre_mark_share", 0, 1,
                                      "Decals: share of the approach lanes of signal and stop "
                                      "junctions with tyre marks before the stop line."),
          number<&C::oil_share>("oil_share", 0, 1,
                                "Decals: share of parking spots with an oil stain."),
          number<&C::crack_spacing_m>("crack_spacing_m", 1, 100000,
                                      "Decals: one crack per this many metres of carriageway "
                                      "and of each sidewalk, on average."),
      }};
  return t;
}

template <>
const Table& table_of<DressingSettings>() {
  using C = DressingSettings;
  static const Table t{
      "DressingSettings",
      "dressing",
      aggregate_arity<C>(),
      {
          custom<&C::biome_files>("biomes", &read_biomes, &plain_text<Files>, "`[path, ...]`",
                                  "built-in",
                                  "Biome JSON files (paths relative to this file); default: "
                                  "the built-in ones in `data/biomes/`. See "
                                  "[dressing.md](dressing.md)."),
          hidden<&C::biome_sources>("biome_sources", &sources_text),
          nested<&C::rules>(""),
      }};
  return t;
}

template <>
const Table& table_of<WanderingSetting>() {
  using C = WanderingSetting;
  static const Table t{
      "WanderingSetting",
      nullptr,
      aggregate_arity<C>(),
      {
          count<&C::paths>("paths", 10000,
                           "Closed loops over the sidewalks (block perimeters without "
                           "crosswalks: a walker's position is a function of time alone, never "
                           "of signals), drawn by length x pedestrian density."),
          count<&C::members>("members", 1000000,
                             "Walkers spread over the loops by length, each at a constant "
                             "1.1..1.6 m/s."),
          number<&C::min_length_m>("min_length_m", 0, 1e5,
                                   "Shortest loop drawn (when no loop is that long, all are "
                                   "candidates)."),
          check(&check_wandering),
      }};
  return t;
}

template <>
const Table& table_of<CrowdSettings>() {
  using C = CrowdSettings;
  static const Table t{
      "CrowdSettings",
      "",
      aggregate_arity<C>(),
      {
          hidden<&C::present>("present"),
          custom<&C::shepherds>("shepherds", &read_shepherds, &shepherds_text,
                                "`[{name, polygon, count, density, behaviour, variant_mix}]`", "[]",
                                "Static groups.", kShepherdDocs),
          nested<&C::wandering>("wandering"),
      }};
  return t;
}

}  // namespace cityforge::pipeline::detail
