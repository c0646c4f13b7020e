// SPDX-License-Identifier: Apache-2.0
// The city as an OGC 3D Tiles 1.1 tileset (explicit quadtree, glTF content, HLOD parents).
// Based on: OGC 3D Tiles 1.1 (tileset JSON, bounding box, geometricError, REPLACE refinement);
// WGS84 geodetic to ECEF and the local east-north-up frame (standard geodesy formulas).
//
// Steps: (1) the city is cut into export chunks once (chunk_city_meshes without roofs: roofs
// go with their buildings); every building, prop and rooftop tile gets the chunk it is written
// in. (2) A quadtree over the chunk grid is split while a tile's estimated content exceeds
// the target bytes. (3) Tiles are built level by level from the deepest up, each level's tiles
// as independent oneTBB tasks: a leaf writes its full detail and hands its parent a stand-in
// (its ground and building shells, simplified); a parent merges its children's stand-ins,
// drops buildings lower than its error budget, simplifies, writes that and hands it up.
// geometricError is measured: the larger of the simplification distances chained from the full
// detail up to the tile (each stand-in was simplified from the ones below it) and the tallest
// thing left out anywhere below it (props, facade relief, rooftop tiles, dropped buildings). (4)
// tileset.json last; the folder is renamed into place.

#include "cityforge/export/tiles.hpp"

#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>

#include "cityforge/buildings/kit.hpp"
#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "export/detail/gltf_textures.hpp"
#include "export/detail/tiles_content.hpp"
#include "export/detail/tiles_tree.hpp"

namespace cityforge::exporter {

namespace {

namespace fs = std::filesystem;
using detail::assign_tiles;
using detail::Box3;
using detail::ChunkKey;
using detail::ChunkMeshes;
using detail::contains;
using detail::HlodMesh;
using detail::read_tile_reports;
using detail::Tile;
using detail::tile_reports;

constexpr double kPi = 3.14159265358979323846;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::int32_t floor_chunk(double v, double chunk_m) {
  return static_cast<std::int32_t>(std::floor(v / chunk_m));
}

/// Estimated content bytes per chunk: vertices, indices, instances. `mesh_bytes`: the chunks'
/// meshes (detail::chunk_census).
std::map<ChunkKey, double> chunk_weights(const CityGlbInputs& in, const detail::CityTiling& t,
                                         std::map<ChunkKey, double> mesh_bytes) {
  std::map<ChunkKey, double> w = std::move(mesh_bytes);
  for (const auto& [key, bricks] : t.bricks) {
    for (const auto& list : bricks)
      w[key] += 40.0 * static_cast<double>(list.size());
  }
  if (in.buildings != nullptr) {
    for (std::size_t b = 0; b < in.buildings->buildings.size(); ++b) {
      double bytes = 48.0 * in.buildings->buildings[b].instance_count;
      for (const Mesh& m : in.buildings->roofs[b])
        bytes += 28.0 * static_cast<double>(m.positions.size()) +
                 4.0 * static_cast<double>(m.indices.size());
      w[t.building_chunk[b]] += bytes;
    }
  }
  if (in.dressing != nullptr) {
    for (const dressing::Item& it : in.dressing->items)
      w[{floor_chunk(it.position[1], in.settings.chunk_m),
         floor_chunk(it.position[0], in.settings.chunk_m)}] += 40.0;
  }
  return w;
}

/// Splits tile `i` while its content is heavier than the target (down to one chunk).
void split(std::vector<Tile>& tiles, std::size_t i, const std::map<ChunkKey, double>& weights,
           double target) {
  double total = 0.0;
  for (const auto& [k, w] : weights) {
    if (contains(tiles[i], k)) total += w;
  }
  if (total <= target || tiles[i].side == 1) {
    tiles[i].leaf = true;
    return;
  }
  const std::int32_t half = tiles[i].side / 2;
  for (int q = 0; q < 4; ++q) {
    Tile c;
    c.level = tiles[i].level + 1;
    c.x = tiles[i].x * 2 + (q & 1);
    c.y = tiles[i].y * 2 + (q >> 1);
    c.cx0 = tiles[i].cx0 + (q & 1) * half;
    c.cy0 = tiles[i].cy0 + (q >> 1) * half;
    c.side = half;
    bool any = false;
    for (const auto& [k, w] : weights) {
      if (contains(c, k)) {
        any = true;
        break;
      }
    }
    if (!any) continue;
    tiles[i].children.push_back(tiles.size());
    tiles.push_back(c);
    split(tiles, tiles.size() - 1, weights, target);
  }
}

/// The tallest thing a leaf draws that its stand-in leaves out: props (their kit height times
/// their scale), facade relief (how far modules stand out of the wall) and rooftop tiles.
struct DetailHeights {
  std::vector<double> prop_height_m;  ///< Per prop of the catalogue.
  double facade_relief_m = 0.0;
  double rooftop_m = 0.0;
};

/// Every module and prop kit mesh the city instances, built once (in parallel).
detail::KitCache kit_cache(const CityGlbInputs& in) {
  detail::KitCache cache;
  std::vector<std::uint32_t> modules;
  if (in.buildings != nullptr) {
    std::vector<bool> used(in.styles->module_count(), false);
    for (const buildings::Instance& i : in.buildings->instances) {
      if (i.module < used.size()) used[i.module] = true;
    }
    for (const std::uint32_t m : in.buildings->modules_used) {  // When it kept no instances.
      if (m < used.size()) used[m] = true;
    }
    for (std::uint32_t m = 0; m < used.size(); ++m) {
      if (used[m]) modules.push_back(m);
    }
  }
  std::vector<buildings::ModuleMesh> built(modules.size());
  tbb::parallel_for(std::size_t{0}, modules.size(), [&](std::size_t k) {
    built[k] = detail::module_kit_mesh(*in.styles, modules[k]);
  });
  for (std::size_t k = 0; k < modules.size(); ++k)
    cache.modules.emplace(modules[k], std::move(built[k]));
  if (in.dressing != nullptr) {
    const std::size_t n = dressing::prop_catalog().size();
    std::vector<bool> used(n, false);
    for (const dressing::Item& it : in.dressing->items) {
      if (it.prop < n) used[it.prop] = true;
    }
    for (std::uint32_t p = 0; p < n; ++p) {
      if (used[p]) cache.props.emplace(p, dressing::build_prop_mesh(p));
    }
  }
  if (in.rooftops != nullptr) {
    std::vector<bool> used(in.rooftops->tile_names.size(), false);
    for (const rooftops::RooftopInstance& r : in.rooftops->instances) {
      if (r.tile < used.size()) used[r.tile] = true;
    }
    for (std::size_t k = 0; k < used.size(); ++k) {
      if (!used[k]) continue;
      const std::string& name = in.rooftops->tile_names[k];
      cache.rooftop_tiles.emplace(
          name, rooftops::rooftop_tile_mesh(name, in.rooftops->cell_m, in.rooftops->level_m));
    }
  }
  return cache;
}

/// Measured on the kit meshes the tiles instance (built once in kit_cache).
DetailHeights detail_heights(const CityGlbInputs& in, const detail::KitCache& kits) {
  DetailHeights d;
  d.prop_height_m.assign(dressing::prop_catalog().size(), 0.0);
  for (const auto& [prop, mesh] : kits.props) {
    for (const Mesh& m : mesh.parts) {
      for (const auto& v : m.positions)
        d.prop_height_m.at(prop) = std::max(d.prop_height_m.at(prop), static_cast<double>(v[2]));
    }
  }
  // Module frame: +y points out of the wall.
  for (const auto& [module, mesh] : kits.modules) {
    for (const Mesh& m : mesh.parts) {
      for (const auto& v : m.positions)
        d.facade_relief_m = std::max(d.facade_relief_m, static_cast<double>(v[1]));
    }
  }
  if (in.rooftops != nullptr && !in.rooftops->instances.empty()) d.rooftop_m = in.rooftops->level_m;
  return d;
}

double omitted_detail(const CityGlbInputs& in, const DetailHeights& d,
                      const detail::LeafItems& items) {
  double e = 0.0;
  for (const std::uint32_t i : items.props) {
    const dressing::Item& it = in.dressing->items[i];
    e = std::max(e, d.prop_height_m.at(it.prop) * std::fabs(static_cast<double>(it.scale_z)));
  }
  if (!items.buildings.empty()) e = std::max(e, d.facade_relief_m);
  if (!items.rooftops.empty()) e = std::max(e, d.rooftop_m);
  return e;
}

/// Removes the buildings (features) of `m` whose shells are lower than `min_height_m`; returns
/// the tallest one removed (0 if none).
double drop_low_buildings(HlodMesh& m, double min_height_m) {
  std::map<std::uint32_t, std::pair<float, float>> z;  // feature -> (min z, max z)
  for (std::size_t v = 0; v < m.positions.size(); ++v) {
    auto [it, fresh] = z.try_emplace(m.features[v], m.positions[v][2], m.positions[v][2]);
    if (!fresh) {
      it->second.first = std::min(it->second.first, m.positions[v][2]);
      it->second.second = std::max(it->second.second, m.positions[v][2]);
    }
  }
  double dropped = 0.0;
  std::vector<std::uint32_t> kept;
  kept.reserve(m.indices.size());
  for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    const auto& r = z.at(m.features[m.indices[t]]);
    const double h = static_cast<double>(r.second) - static_cast<double>(r.first);
    if (h < min_height_m) {
      dropped = std::max(dropped, h);
      continue;
    }
    kept.insert(kept.end(), {m.indices[t], m.indices[t + 1], m.indices[t + 2]});
  }
  m.indices = std::move(kept);
  return dropped;
}

/// Ratio of triangles a stand-in keeps per level: four children's stand-ins make a parent the
/// size of one of them.
constexpr double kStandinRatio = 0.25;
/// A tile's error budget is its side over this: buildings lower than the budget are dropped
/// and the simplifier may move the surface this far.
constexpr double kBudgetDivisor = 64.0;

/// The leaves' shared texture images, in the tileset's folder.
constexpr const char* kTextureFolder = "textures";

std::string fmt(double v, const char* f = "%.10g") {
  char buf[40];
  std::snprintf(buf, sizeof buf, f, v == 0.0 ? 0.0 : v);
  return buf;
}

void tile_json(std::string& out, const std::vector<Tile>& tiles, std::size_t i,
               const std::array<double, 16>* transform) {
  const Tile& t = tiles[i];
  out += "{";
  if (transform != nullptr) {
    out += "\"transform\":[";
    for (std::size_t k = 0; k < 16; ++k) {
      if (k) out += ',';
      out += fmt((*transform)[k], "%.17g");
    }
    out += "],";
  }
  out += "\"boundingVolume\":{\"box\":[";
  const double margin = 0.01;
  const std::array<double, 3> c{(t.box.lo[0] + t.box.hi[0]) / 2, (t.box.lo[1] + t.box.hi[1]) / 2,
                                (t.box.lo[2] + t.box.hi[2]) / 2};
  const std::array<double, 3> h{(t.box.hi[0] - t.box.lo[0]) / 2 + margin,
                                (t.box.hi[1] - t.box.lo[1]) / 2 + margin,
                                (t.box.hi[2] - t.box.lo[2]) / 2 + margin};
  const double box[12] = {c[0], c[1], c[2], h[0], 0, 0, 0, h[1], 0, 0, 0, h[2]};
  for (std::size_t k = 0; k < 12; ++k) {
    if (k) out += ',';
    out += fmt(box[k]);
  }
  out += "]},\"geometricError\":" + fmt(t.error_m, "%.6g");
  if (i == 0) out += ",\"refine\":\"REPLACE\"";
  if (!t.uri.empty()) out += ",\"content\":{\"uri\":\"" + t.uri + "\"}";
  if (!t.children.empty()) {
    out += ",\"children\":[";
    for (std::size_t k = 0; k < t.children.size(); ++k) {
      if (k) out += ",";
      tile_json(out, tiles, t.children[k], nullptr);
    }
    out += "]";
  }
  out += "}";
}

Status write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return Error::io(path.parent_path().string(), "cannot create the folder: " + ec.message());
  return write_file_atomic(path.string(), bytes.data(), bytes.size());
}

/// Removes the temporary folders `prefix`PID in `parent` of writers that are gone (killed: a
/// rank of theirs died, or the machine stopped), so they do not pile up.
void remove_stale(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(parent.empty() ? fs::path(".") : parent, ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && process_gone(pid)) {
      std::error_code rm;
      fs::remove_all(it->path(), rm);
    }
  }
}

/// Removes a temporary folder when the writer leaves early.
struct TempDir {
  fs::path path;
  bool keep = false;
  bool listed = false;  ///< Listed as a temporary (list_temporary), so an interrupt removes it.
  ~TempDir() {
    if (listed) unlist_temporary(path.string());
    if (keep || path.empty()) return;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// Thread time per phase, microseconds (stats.json "timings"."tiles_thread_seconds").
struct Phases {
  std::atomic<std::int64_t> leaf{0};
  std::atomic<std::int64_t> standin{0};
  std::atomic<std::int64_t> parent{0};
  std::atomic<std::int64_t> write{0};
};

/// Builds tile `t` (its children already built) and writes it under `tmp`: a leaf's full
/// detail, or a parent's merged and simplified stand-in; fills its box, error, stand-in for
/// its parent, size and uri.
Status build_tile(const CityGlbInputs& in, const detail::CityTiling& tiling,
                  const detail::KitCache& kits, const DetailHeights& heights,
                  const TilesetOptions& options, const detail::TextureSet* textures,
                  std::vector<Tile>& tiles, Tile& t, const fs::path& tmp, Phases& phases) {
  const double side_m = t.side * in.settings.chunk_m;
  const double budget = side_m / kBudgetDivisor;
  const std::string rel =
      std::to_string(t.level) + "/" + std::to_string(t.x) + "/" + std::to_string(t.y) + ".glb";
  if (options.before_tile) {
    if (Status st = options.before_tile("tiles/" + rel); !st) return st;
  }
  Result<detail::TileFile> file = Error::internal(rel, "not built");
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](std::atomic<std::int64_t>& acc) {
    const auto now = std::chrono::steady_clock::now();
    acc += std::chrono::duration_cast<std::chrono::microseconds>(now - t0).count();
    t0 = now;
  };
  if (t.leaf) {
    // The textures folder from <level>/<x>/<y>.glb.
    file = detail::leaf_tile(in, tiling, t.items, kits, side_m, "tiles/" + rel, options.meshopt,
                             textures, "../../" + std::string(kTextureFolder) + "/");
    lap(phases.leaf);
    HlodMesh ground = detail::leaf_ground(t.items.chunks);
    HlodMesh shells = detail::leaf_shells(in, t.items.buildings);
    detail::Simplified g = detail::simplify_hlod(ground, kStandinRatio, budget);
    detail::Simplified s =
        detail::simplify_hlod(shells, kStandinRatio, budget, detail::HlodShading::flat);
    t.ground = std::move(g.mesh);
    t.shells = std::move(s.mesh);
    t.error_m = 0.0;
    t.chain_m = std::max(g.deviation_m, s.deviation_m);
    t.detail_m = omitted_detail(in, heights, t.items);
    lap(phases.standin);
  } else {
    HlodMesh ground;
    HlodMesh shells;
    double child_chain = 0.0;
    double child_detail = 0.0;
    double child_error = 0.0;
    for (const std::size_t c : t.children) {
      detail::append_hlod(ground, tiles[c].ground);
      detail::append_hlod(shells, tiles[c].shells);
      child_chain = std::max(child_chain, tiles[c].chain_m);
      child_detail = std::max(child_detail, tiles[c].detail_m);
      child_error = std::max(child_error, tiles[c].error_m);
      tiles[c].ground = {};
      tiles[c].shells = {};
    }
    const double dropped = drop_low_buildings(shells, budget);
    detail::Simplified g = detail::simplify_hlod(ground, kStandinRatio, budget);
    detail::Simplified s =
        detail::simplify_hlod(shells, kStandinRatio, budget, detail::HlodShading::flat);
    t.ground = std::move(g.mesh);
    t.shells = std::move(s.mesh);
    // Where the surface was simplified, it lies within the chained distances of the full
    // detail; where something was left out, within that thing's height. The largest of the
    // two bounds the whole tile. A parent that changed nothing still ranks above its
    // children (by 1 mm).
    t.chain_m = child_chain + std::max(g.deviation_m, s.deviation_m);
    t.detail_m = std::max(child_detail, dropped);
    t.error_m = std::max({t.chain_m, t.detail_m, child_error + 1e-3});
    lap(phases.standin);
    file = detail::parent_tile(in, t.ground, t.shells, "tiles/" + rel, options.meshopt);
    lap(phases.parent);
  }
  if (!file) return file.error();
  if (Status st = write_bytes(tmp / rel, file->bytes); !st) return st;
  lap(phases.write);
  t.box = file->bounds;
  for (const std::size_t c : t.children)
    t.box.add(tiles[c].box);
  t.bytes = file->bytes.size();
  t.uri = rel;
  return Ok{};
}

/// tileset.json into the temporary folder, then the folder into place (replacing an older
/// tileset, which is moved aside first and removed last).
Status finish_tileset(const std::vector<Tile>& tiles, const TilesetOptions& options, TempDir& tmp,
                      const fs::path& final_dir) {
  const std::array<double, 16> transform = enu_to_ecef(options.anchor);
  std::string json = "{\"asset\":{\"version\":\"1.1\",\"generator\":\"cityforge\"},";
  const Tile& root = tiles[0];
  const double diag = std::hypot(root.box.hi[0] - root.box.lo[0], root.box.hi[1] - root.box.lo[1],
                                 root.box.hi[2] - root.box.lo[2]);
  json += "\"geometricError\":" + fmt(std::max(diag, 2.0 * root.error_m), "%.6g") + ",\"root\":";
  tile_json(json, tiles, 0, &transform);
  json += "}\n";
  if (Status st = write_file_atomic((tmp.path / "tileset.json").string(), json); !st) return st;
  if (options.staged != nullptr) {  // Renamed into place with the city's other files.
    options.staged->stage_folder(tmp.path.string(), final_dir.string());
    tmp.keep = true;
    tmp.listed = false;  // The staged files own it now.
    return Ok{};
  }
  std::error_code ec;
  const fs::path old = final_dir.parent_path() /
                       ("." + final_dir.filename().string() + ".old-" + std::to_string(::getpid()));
  if (fs::exists(final_dir, ec)) fs::rename(final_dir, old, ec);
  if (ec)
    return Error::io(final_dir.string(), "cannot move the old tileset aside: " + ec.message());
  fs::rename(tmp.path, final_dir, ec);
  if (ec)
    return Error::io(final_dir.string(), "cannot rename the tileset into place: " + ec.message());
  tmp.keep = true;
  fs::remove_all(old, ec);
  return Ok{};
}

}  // namespace

std::array<double, 16> enu_to_ecef(const GeoAnchor& anchor) {
  constexpr double a = 6378137.0;            // WGS84 semi-major axis
  constexpr double f = 1.0 / 298.257223563;  // WGS84 flattening
  const double e2 = f * (2.0 - f);
  const double lon = anchor.lon_deg * kPi / 180.0;
  const double lat = anchor.lat_deg * kPi / 180.0;
  const double sl = std::sin(lon), cl = std::cos(lon), sp = std::sin(lat), cp = std::cos(lat);
  const double n = a / std::sqrt(1.0 - e2 * sp * sp);
  const double x = (n + anchor.height_m) * cp * cl;
  const double y = (n + anchor.height_m) * cp * sl;
  const double z = (n * (1.0 - e2) + anchor.height_m) * sp;
  // Columns: east, north, up, origin.
  return {-sl, cl, 0.0, 0.0, -sp * cl, -sp * sl, cp, 0.0, cp * cl, cp * sl, sp, 0.0, x, y, z, 1.0};
}

Status check_tileset_folder(const std::string& dir) {
  // Replace only what is a tileset: a file or a foreign folder by that name stays.
  const fs::path p(dir);
  std::error_code ec;
  if (fs::exists(p, ec) && !(fs::is_directory(p, ec) && fs::exists(p / "tileset.json", ec))) {
    return Error::invalid_input(p.string(),
                                "exists and is not a tileset (no tileset.json in it); remove it "
                                "or write to another folder");
  }
  return Ok{};
}

Result<TilesetStats> write_tileset(const CityGlbInputs& in, const std::string& dir,
                                   const TilesetOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if ((in.buildings == nullptr) != (in.styles == nullptr)) {
    return Error::internal("tileset", "buildings need their style library (and back)");
  }
  if (!(options.tile_bytes >= 65536.0)) {
    return Error::invalid_input("export.tile_bytes", "expected at least 65536 bytes");
  }
  const fs::path final_dir(dir);
  if (Status st = check_tileset_folder(dir); !st) return st.error();
  const double chunk_m = in.settings.chunk_m;
  const Ranks& ranks = options.ranks != nullptr ? *options.ranks : single_rank();
  const int me = ranks.rank();
  // 1. The city cut into chunks; roofs go with their buildings instead. One rank keeps every
  //    chunk. Several ranks only count each chunk's bytes here (the quadtree needs them all),
  //    each a share of the items (chunk_census), and, once the tiles are dealt, make and cut
  //    again only the items that fall in their own tiles' chunks, keeping those chunks alone
  //    (step 3): a rank never holds the whole city's chunk meshes, nor makes them all.
  detail::CityTiling tiling;
  CityGlbInputs ground = in;
  ground.buildings = nullptr;
  ground.styles = nullptr;
  if (in.buildings != nullptr) ground.block_volumes = nullptr;
  std::map<ChunkKey, double> mesh_bytes;
  std::vector<detail::ChunkBox> item_chunks;  // Several ranks: what each item is cut into.
  {
    if (ranks.size() == 1) {
      Result<detail::ChunkList> chunks = detail::chunk_city_meshes(ground);
      if (!chunks) return chunks.error();
      tiling.chunks = std::move(*chunks);
      for (const ChunkMeshes& c : tiling.chunks) {
        double& bytes = mesh_bytes[{c.cy, c.cx}];
        for (const Mesh& m : c.parts)
          bytes += 24.0 * static_cast<double>(m.positions.size()) +
                   4.0 * static_cast<double>(m.indices.size());
      }
    } else {
      Result<detail::ChunkCensus> counted = detail::chunk_census(ground, ranks);
      if (!counted) return counted.error();
      mesh_bytes = std::move(counted->bytes);
      item_chunks = std::move(counted->items);
    }
    tiling.instanced_roads = detail::instanced_roads(ground);
    if (tiling.instanced_roads) {
      Result<detail::BrickInstances> bricks = detail::group_road_instances(*in.roads, chunk_m);
      if (!bricks) return bricks.error();
      tiling.bricks = std::move(*bricks);
      tiling.brick_meshes = roads::road_bricks(*in.road_surfaces);
    }
  }
  if (in.buildings != nullptr) {
    for (const buildings::Building& b : in.buildings->buildings) {
      Aabb2 box;
      for (const buildings::Volume& v : b.volumes) {
        for (const Vec2& p : v.footprint.outer)
          box.add(p);
      }
      const Vec2 c = box.empty() ? Vec2{0, 0} : (box.min + box.max) * 0.5;
      if (!std::isfinite(c.x) || !std::isfinite(c.y) || std::fabs(c.x / chunk_m) > 1e9 ||
          std::fabs(c.y / chunk_m) > 1e9) {
        return Error::invalid_input("buildings[" + std::to_string(b.id) + "]",
                                    "footprint is not finite (or too far)");
      }
      tiling.building_chunk.emplace_back(floor_chunk(c.y, chunk_m), floor_chunk(c.x, chunk_m));
    }
  }
  double chunking_s = seconds_since(started);
  // 2. The quadtree over the chunk grid.
  const std::map<ChunkKey, double> weights = chunk_weights(in, tiling, std::move(mesh_bytes));
  if (weights.empty()) return Error::invalid_input("tileset", "the city has nothing to draw");
  std::int32_t min_cx = INT32_MAX, min_cy = INT32_MAX, max_cx = INT32_MIN, max_cy = INT32_MIN;
  for (const auto& [k, w] : weights) {
    min_cx = std::min(min_cx, k.second);
    max_cx = std::max(max_cx, k.second);
    min_cy = std::min(min_cy, k.first);
    max_cy = std::max(max_cy, k.first);
  }
  std::int32_t side = 1;
  while (side < max_cx - min_cx + 1 || side < max_cy - min_cy + 1)
    side *= 2;
  std::vector<Tile> tiles(1);
  tiles[0].cx0 = min_cx;
  tiles[0].cy0 = min_cy;
  tiles[0].side = side;
  split(tiles, 0, weights, options.tile_bytes);
  // Leaf items: each chunk (and with it every object assigned to it) in exactly one leaf.
  std::map<ChunkKey, std::size_t> leaf_of;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    if (!tiles[i].leaf) continue;
    for (const auto& [k, w] : weights) {
      if (contains(tiles[i], k)) leaf_of[k] = i;
    }
  }
  for (const auto& [k, bricks] : tiling.bricks)
    tiles[leaf_of.at(k)].items.brick_chunks.push_back(k);
  for (std::uint32_t b = 0; b < tiling.building_chunk.size(); ++b)
    tiles[leaf_of.at(tiling.building_chunk[b])].items.buildings.push_back(b);
  if (in.dressing != nullptr) {
    for (std::uint32_t i = 0; i < in.dressing->items.size(); ++i) {
      const dressing::Item& it = in.dressing->items[i];
      const ChunkKey k{floor_chunk(it.position[1], chunk_m), floor_chunk(it.position[0], chunk_m)};
      tiles[leaf_of.at(k)].items.props.push_back(i);
    }
  }
  if (in.rooftops != nullptr) {
    for (std::uint32_t i = 0; i < in.rooftops->instances.size(); ++i) {
      const rooftops::RooftopInstance& r = in.rooftops->instances[i];
      const ChunkKey k =
          r.building < tiling.building_chunk.size()
              ? tiling.building_chunk[r.building]
              : ChunkKey{floor_chunk(r.position[1], chunk_m), floor_chunk(r.position[0], chunk_m)};
      const auto it = leaf_of.find(k);
      if (it == leaf_of.end()) {
        return Error::invalid_input("rooftops.instances[" + std::to_string(i) + "]",
                                    "stands outside every tile");
      }
      tiles[it->second].items.rooftops.push_back(i);
    }
  }
  // 3. Tiles, deepest level first, into a temporary folder next to `dir` that rank 0 makes.
  //    Each rank builds the subtrees it is given; rank 0 then builds the levels above them from
  //    the stand-ins the others send (the same bytes whoever builds a tile).
  TempDir tmp;
  {
    Status made = Ok{};
    std::string path;
    if (me == 0) {
      const std::string prefix = "." + final_dir.filename().string() + ".tmp-";
      const fs::path p = final_dir.parent_path() / (prefix + std::to_string(::getpid()));
      remove_stale(final_dir.parent_path(), prefix);
      std::error_code ec;
      fs::remove_all(p, ec);
      list_temporary(p.string());
      tmp.path = p;
      tmp.listed = true;
      fs::create_directories(p, ec);
      if (ec) made = Error::io(p.string(), "cannot create the folder: " + ec.message());
      path = p.string();
    }
    if (Status st = agree(ranks, made); !st) return st.error();
    tmp.path = ranks.broadcast(path);
    tmp.keep = me != 0;  // Rank 0 alone removes it.
  }
  const detail::KitCache kits = kit_cache(in);
  const DetailHeights heights = detail_heights(in, kits);
  // The procedural textures (export.textures): every surface's, made by each rank (the leaves'
  // materials need their scale and shade) and written once by rank 0 into the textures folder,
  // which the leaves' images refer to, so no tile repeats an image.
  std::optional<detail::TextureSet> textures;
  std::size_t texture_bytes = 0;
  std::size_t texture_files = 0;
  if (const std::uint32_t px = pipeline::texture_pixels(in.settings.textures); px > 0) {
    std::array<bool, materials::kSurfaceCount> all{};
    all.fill(true);
    Result<detail::TextureSet> made = detail::make_texture_set(all, px, "tiles/textures");
    Status ok = made ? Status(Ok{}) : Status(made.error());
    if (ok) {
      // And every decal's pictures (decal_<kind>.<map>.png).
      std::array<bool, materials::kDecalCount> decals{};
      decals.fill(true);
      Result<detail::DecalSet> pictures = detail::make_decal_set(decals, px, "tiles/textures");
      if (pictures) {
        made->decals = std::move(*pictures);
      } else {
        ok = Status(pictures.error());
      }
    }
    if (ok && me == 0) {
      for (std::size_t s = 0; s < materials::kSurfaceCount && ok; ++s) {
        for (std::size_t k = 0; k < detail::kTextureMaps.size() && ok; ++k) {
          const std::vector<std::uint8_t>& png = made->surfaces[s]->png[k];
          ok = write_bytes(tmp.path / kTextureFolder /
                               detail::texture_file_name(static_cast<materials::Surface>(s), k),
                           png);
          texture_bytes += png.size();
          ++texture_files;
        }
      }
      for (std::size_t d = 0; d < materials::kDecalCount && ok; ++d) {
        for (const bool normal : {false, true}) {
          const detail::DecalImages& pictures = made->decals.decals[d].value();
          const std::vector<std::uint8_t>& png = normal ? pictures.normal : pictures.base_colour;
          if (png.empty() || !ok) continue;
          ok = write_bytes(tmp.path / kTextureFolder /
                               detail::decal_file_name(static_cast<materials::Decal>(d), normal),
                           png);
          texture_bytes += png.size();
          ++texture_files;
        }
      }
    }
    if (Status st = agree(ranks, ok); !st) return st.error();
    textures = std::move(*made);
  }
  std::size_t depth = 0;
  for (const Tile& t : tiles)
    depth = std::max<std::size_t>(depth, static_cast<std::size_t>(t.level));
  const std::vector<int> owner = assign_tiles(tiles, weights, ranks.size());
  if (ranks.size() > 1) {
    const auto chunks_started = std::chrono::steady_clock::now();
    const auto keep = [&](std::int32_t cy, std::int32_t cx) {
      const auto it = leaf_of.find({cy, cx});
      if (it == leaf_of.end()) return false;
      const int o = owner[it->second];
      return o == me || (o < 0 && me == 0);
    };
    Result<detail::ChunkList> chunks = detail::chunk_city_meshes(ground, keep, &item_chunks);
    item_chunks = {};
    Status cut = chunks ? Status(Ok{}) : Status(chunks.error());
    if (Status st = agree(ranks, cut); !st) return st.error();
    tiling.chunks = std::move(*chunks);
    chunking_s += seconds_since(chunks_started);
  }
  for (const ChunkMeshes& c : tiling.chunks)
    tiles[leaf_of.at({c.cy, c.cx})].items.chunks.push_back(&c);
  std::size_t mine = 0;
  for (const int o : owner)
    mine += o == me || (o < 0 && me == 0) ? 1 : 0;
  std::mutex progress_mutex;
  Phases phases;
  std::size_t written = 0;
  std::vector<std::optional<Error>> errors(tiles.size());
  // Builds the tiles of `who` (a rank, or -1: the levels above the work units), level by level.
  const auto build_levels = [&](int who) -> Status {
    for (std::size_t level = depth + 1; level-- > 0;) {
      std::vector<std::size_t> at_level;
      for (std::size_t i = 0; i < tiles.size(); ++i) {
        if (static_cast<std::size_t>(tiles[i].level) == level && owner[i] == who)
          at_level.push_back(i);
      }
      tbb::parallel_for(std::size_t{0}, at_level.size(), [&](std::size_t k) {
        Tile& t = tiles[at_level[k]];
        if (Status st = build_tile(in, tiling, kits, heights, options,
                                   textures ? &*textures : nullptr, tiles, t, tmp.path, phases);
            !st) {
          errors[at_level[k]] = st.error();
          return;
        }
        if (options.progress) {
          std::lock_guard<std::mutex> lock(progress_mutex);
          options.progress(++written, mine);
        }
      });
      for (const std::size_t i : at_level) {
        if (errors[i]) return *errors[i];
      }
    }
    return Ok{};
  };
  const auto work_started = std::chrono::steady_clock::now();
  const Status built = build_levels(me);
  TilesetStats stats;
  stats.rank_seconds = seconds_since(work_started);
  if (Status st = agree(ranks, built); !st) return st.error();
  Status top = Ok{};
  if (ranks.size() > 1) {
    const std::vector<std::string> parts = ranks.gather(tile_reports(tiles, owner, me));
    for (std::size_t r = 1; r < parts.size() && top; ++r)
      top = read_tile_reports(parts[r], tiles, owner, static_cast<int>(r));
  }
  if (me != 0) {
    // Rank 0 finishes the tileset; its verdict is everyone's.
    if (Status st = agree(ranks, Ok{}); !st) return st.error();
    stats.seconds = seconds_since(started);
    return stats;
  }
  if (top) top = build_levels(-1);
  if (top) top = finish_tileset(tiles, options, tmp, final_dir);
  if (Status st = agree(ranks, top); !st) return st.error();
  for (const Tile& t : tiles) {
    ++stats.tiles;
    stats.bytes += t.bytes;
    if (t.leaf) {
      ++stats.leaves;
      stats.max_leaf_bytes = std::max(stats.max_leaf_bytes, t.bytes);
      stats.buildings += t.items.buildings.size();
    } else {
      ++stats.parents;
    }
  }
  stats.textures = texture_files;
  stats.texture_bytes = texture_bytes;
  stats.depth = depth;
  stats.root_bytes = tiles[0].bytes;
  stats.root_geometric_error_m = tiles[0].error_m;
  stats.seconds = seconds_since(started);
  stats.chunking_s = chunking_s;
  stats.leaves_s = static_cast<double>(phases.leaf.load()) / 1e6;
  stats.standins_s = static_cast<double>(phases.standin.load()) / 1e6;
  stats.parents_s = static_cast<double>(phases.parent.load()) / 1e6;
  stats.write_s = static_cast<double>(phases.write.load()) / 1e6;
  return stats;
}

}  // namespace cityforge::exporter
