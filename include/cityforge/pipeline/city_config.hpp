// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::pipeline {

/// How city.glb writes the road modules of the sections (`export.road_modules`).
enum class RoadModules : std::uint8_t {
  baked,      ///< Carriageways baked into the chunk meshes as crowned ribbons draped on the ground.
  instanced,  ///< Road bricks instanced with EXT_mesh_gpu_instancing (rigid, see city_glb).
};

/// "baked" or "instanced".
const char* to_string(RoadModules m);

/// How 3D Tiles content is compressed (`export.tile_compression`).
enum class TileCompression : std::uint8_t {
  none,     ///< Plain float32 / uint32 buffers: any glTF reader.
  meshopt,  ///< EXT_meshopt_compression (required) where it pays: smaller; the reader needs
            ///< meshoptimizer's decoder (three.js: GLTFLoader.setMeshoptDecoder).
};
/// "none" or "meshopt".
const char* to_string(TileCompression c);

/// The procedural textures city.glb embeds (`export.textures`): none (plain colours) or square
/// images of that many pixels per repeat (docs/materials.md).
enum class TextureSize : std::uint8_t { none, px64, px128, px256, px512, px1024 };
/// Pixels per side of a size (0 for none).
std::uint32_t texture_pixels(TextureSize t);

/// How city.glb writes instanced things (building modules, props): `export.instances` or
/// `generate --instances`.
enum class InstanceMode : std::uint8_t {
  ext,    ///< EXT_mesh_gpu_instancing: compact; engines, three.js, Babylon.js.
  nodes,  ///< One node per instance: tools without the extension (Blender 3.4), small cities.
  bake,   ///< Merged into one mesh per chunk: any tool, largest file.
};
/// "ext", "nodes" or "bake".
const char* to_string(InstanceMode m);
/// Parses a name as printed by to_string; false if unknown.
bool instance_mode_from_string(std::string_view name, InstanceMode* out);

/// How the exporters cut and dress the output (the `export` object of the city JSON). The road
/// and block surface heights are the roads stage's (roads::Config::road_raise_m, block_raise_m).
struct ExportSettings {
  double chunk_m = 100.0;         ///< Side of the square spatial chunks of city.glb. [10..5000]
  double volume_setback_m = 3.0;  ///< Block volumes are inset from the block edge. [0..50]
  /// Section carriageways baked (default) or instanced; junction surfaces are always baked.
  RoadModules road_modules = RoadModules::baked;
  /// Building modules and props as instances (default), nodes or baked meshes.
  InstanceMode instances = InstanceMode::ext;
  /// Procedural PBR textures embedded in city.glb (and the one-building glb).
  TextureSize textures = TextureSize::px256;
  /// 3D Tiles (--tiles): leaves are split until their content is about this many bytes.
  double tile_bytes = 4.0e6;
  /// 3D Tiles: tile content compressed with EXT_meshopt_compression (default) or not.
  TileCompression tile_compression = TileCompression::meshopt;
  /// 3D Tiles: where a generated city's local frame sits on the WGS84 ellipsoid (imported
  /// places use their own origin). Default (0, 0, 0): "Null Island", for lack of a place.
  double anchor_lon_deg = 0.0;
  double anchor_lat_deg = 0.0;
  double anchor_height_m = 0.0;  ///< Also used for imported places.
  // Imported places (set by `cityforge import`, not read from the city JSON):
  /// glTF asset.copyright (e.g. "© OpenStreetMap contributors"); "" writes none.
  std::string attribution;
  /// The local frame's WGS84 origin and PROJ definition, written to the glTF asset's extras.
  bool georeferenced = false;
  double origin_lon_deg = 0.0;
  double origin_lat_deg = 0.0;
  std::string local_crs;
};

/// The `buildings` object of the city JSON: which styles to use and the tag volumes.
struct BuildingSettings {
  /// "styles": BDF paths as written in the file (relative to the config's folder). Empty: the
  /// built-in styles.
  std::vector<std::string> style_files;
  /// (file name, JSON text) of every style to load, in order. parse_city_config fills it with
  /// the built-in styles when `style_files` is empty; a caller that reads files (the command
  /// line) replaces it with the texts of `style_files`.
  std::vector<std::pair<std::string, std::string>> style_sources;
  /// "tag_volumes": [{"tag", "polygon": [[x, y], ...], "z_m": [lo, hi]}] (seeds/000, 31:49).
  std::vector<buildings::TagVolume> tag_volumes;
  buildings::Config generator;
};

/// The `dressing` object of the city JSON: biome files and set dressing rules.
struct DressingSettings {
  /// "biomes": biome JSON paths as written (relative to the config's folder). Empty: built-in.
  std::vector<std::string> biome_files;
  /// (file name, JSON text) of every biome; the built-in ones unless a caller that reads files
  /// replaces them with the texts of `biome_files`.
  std::vector<std::pair<std::string, std::string>> biome_sources;
  dressing::Config rules;
};

/// One static crowd group of the `crowd` object (`crowd.shepherds[i]`): plain data, placed by
/// the crowd module (crowd::place_shepherds) when `cityforge generate` writes shepherds.json.
struct ShepherdSetting {
  std::string name;                ///< Unique within the config; keys the group's random stream.
  std::vector<Vec2> polygon;       ///< The volume's footprint, x y metres; a simple polygon.
  std::uint32_t count = 0;         ///< Members wanted. [0..1e6]
  double density = 0;              ///< Cap in members per m2 of sidewalk inside; 0: no cap. [0..10]
  std::string behaviour = "idle";  ///< "idle" or "look_around".
  std::vector<double> variant_mix;  ///< Weight per appearance variant; empty: uniform.
};

/// The wandering shepherd of the `crowd` object (`crowd.wandering`).
struct WanderingSetting {
  std::uint32_t paths = 0;    ///< Closed loops over the sidewalks. [0..10000]
  std::uint32_t members = 0;  ///< Walkers spread over them. [0..1e6]
  double min_length_m = 300;  ///< Shortest loop kept (when any is this long). [0..1e5]
};

/// The `crowd` object of the city JSON: shepherds (seeds/002), written by `cityforge generate`
/// to shepherds.json. Absent: no shepherds.json.
struct CrowdSettings {
  bool present = false;  ///< The config has a `crowd` object.
  std::vector<ShepherdSetting> shepherds;
  WanderingSetting wandering;
};

/// Everything one city JSON file says: the inputs of the City Layout tool and the rules of
/// every stage. Missing keys take the defaults documented on each struct.
struct CityConfig {
  std::string name = "city";
  Seed seed = 1;
  layout::Inputs inputs;
  terrain::Config terrain;
  layout::Config layout;
  roads::Config roads;
  /// Elevated freeways (the `freeways` array): x, y inside the boundary (1 m tolerance) and
  /// the deck height above the ground.
  std::vector<freeway::FreewayCurve> freeways;
  lots::Config lots;           ///< The `lots` object.
  BuildingSettings buildings;  ///< The `buildings` object.
  DressingSettings dressing;   ///< The `dressing` object.
  /// The `rooftops` object: WFC rooftops on flat roofs (enabled by default).
  rooftops::RooftopConfig rooftops;
  ExportSettings exports;
  CrowdSettings crowd;  ///< The `crowd` object.
};

/// Parses a city JSON document. `source` names it in errors (a file path, or "<built-in>").
/// Rejects malformed JSON (with line and column), unknown keys, wrong types, non-finite or
/// absurd numbers, and then runs layout::validate. Error `where` is "<source>: <JSON pointer>".
/// Every key is declared once in the config field tables (src/pipeline/config_fields.cpp),
/// which also give the docs tables (config_docs_table) and the stages' cache keys.
Result<CityConfig> parse_city_config(std::string_view text, const std::string& source);

/// The canonical JSON of one part of the config, as hashed into the cache key of the stages
/// handed it: "inputs" (boundary, arteries, zones, water), "terrain", "layout", "roads",
/// "freeways", "styles" (style files and a hash of each text), "lots", "buildings" (tag volumes
/// and the generator's rules), "rooftops", "dressing" (biomes and rules), "export", "crowd".
/// Every member of the part's structs is in it, those without a JSON key too. "" for an
/// unknown name.
std::string config_slice(const CityConfig& config, std::string_view slice);

/// One documented key of the city JSON: a row of the key tables of docs/city-config.md,
/// generated from the config field tables.
struct ConfigKeyDoc {
  std::string object;  ///< The top-level object holding it; "" = the document's top level.
  /// The key within `object`: "block_short_m", "classes.{artery,main,local}.width_m" (one key
  /// per road class), "shepherds[].count" (a part of each element of an array).
  std::string key;
  std::string type;           ///< "number in [0, 2000]", "integer in [1, 12]", "true or false"...
  std::string default_value;  ///< Per road class ", "-separated.
  /// The CityPipeline stages that read it, ", "-separated: a change re-runs them and everything
  /// downstream of them. "—": no stage reads it (it is read when the outputs are written).
  std::string read_by;
  std::string meaning;
};

/// Every documented key, object by object in document order.
std::vector<ConfigKeyDoc> config_key_docs();

/// The markdown table of the keys of `object` ("" = the top level), as docs/city-config.md
/// has it.
std::string config_docs_table(std::string_view object);

}  // namespace cityforge::pipeline
