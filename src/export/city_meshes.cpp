// SPDX-License-Identifier: Apache-2.0
// The triangle meshes of city.glb cut into square chunks by triangle centroid. The meshes come
// built by their stages (block volumes, roofs, ground patches, freeway decks and pillars) or
// are made by their module's code a batch at a time as they are cut (the terrain by
// terrain::mesh_chunks, the road and block surfaces by roads::surface_mesh): this file only
// assigns triangles to chunks and parts.

#include "export/city_meshes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::exporter::detail {

const char* part_name(Part p) {
  switch (p) {
    case Part::terrain:
      return "terrain";
    case Part::road_artery:
      return "road_artery";
    case Part::road_main:
      return "road_main";
    case Part::road_local:
      return "road_local";
    case Part::sidewalk:
      return "sidewalk";
    case Part::block:
      return "block";
    case Part::volume:
      return "volume";
    case Part::roof:
      return "roof";
    case Part::parapet:
      return "parapet";
    case Part::freeway:
      return "freeway";
    case Part::marking:
      return "marking";
    case Part::ground_grass:
      return "ground_grass";
    case Part::ground_park:
      return "ground_park";
    case Part::ground_forest:
      return "ground_forest";
    case Part::ground_scrub:
      return "ground_scrub";
    case Part::ground_farmland:
      return "ground_farmland";
    case Part::ground_sand:
      return "ground_sand";
    case Part::ground_bare:
      return "ground_bare";
    case Part::ground_water:
      return "ground_water";
    case Part::ground_pavement:
      return "ground_pavement";
    case Part::ground_cemetery:
      return "ground_cemetery";
    case Part::path:
      return "path";
  }
  return "unknown";
}

Part ground_part(const dressing::GroundPatch& patch) {
  if (patch.path) return Part::path;
  const auto k = static_cast<std::size_t>(patch.kind);
  if (k >= dressing::kGroundKindCount) return Part::ground_grass;
  return static_cast<Part>(static_cast<std::size_t>(Part::ground_grass) + k);
}

Part road_part(layout::RoadClass c) {
  switch (c) {
    case layout::RoadClass::artery:
      return Part::road_artery;
    case layout::RoadClass::main:
      return Part::road_main;
    case layout::RoadClass::local:
      return Part::road_local;
  }
  return Part::road_local;
}

namespace {

/// Chunk indices must fit int32 with room to spare; coordinates beyond this are rejected.
constexpr double kMaxChunkIndex = 1.0e9;
/// Triangles with less area than this (m2, after rounding to float) are dropped.
constexpr double kMinTriangleArea2 = 1e-12;

/// (cy, cx): std::less on it gives the (cy, cx) chunk order of the output.
using ChunkKey = std::pair<std::int32_t, std::int32_t>;

/// One item's triangles that fall into one chunk.
struct Piece {
  ChunkKey key;
  Part part = Part::terrain;
  Mesh mesh;
};
using Pieces = std::vector<Piece>;

using Float3 = std::array<float, 3>;

Float3 to_float3(double x, double y, double z) {
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

// ---- Input checks -------------------------------------------------------------------------

Status check_config(const Config& config) {
  if (!std::isfinite(config.chunk_m) || config.chunk_m <= 0.0) {
    return Error::invalid_input("export.chunk_m",
                                "expected > 0, got " + std::to_string(config.chunk_m));
  }
  return Ok{};
}

/// Why a mesh cannot be cut into chunks (a vertex not finite as float32, or more than
/// kMaxChunkIndex chunks from the origin), or null.
const char* mesh_problem(const Mesh& m, double chunk_m) {
  for (const Float3& v : m.positions) {
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
      return "a vertex does not fit float32 (not finite)";
    }
    if (std::fabs(v[0]) / chunk_m > kMaxChunkIndex || std::fabs(v[1]) / chunk_m > kMaxChunkIndex) {
      return "a vertex is too far from the origin for export.chunk_m";
    }
  }
  return nullptr;
}

/// One group of items to cut, named for errors: a held mesh and its part per item, or
/// `made` items that `make` makes when asked (item i's mesh and part), a batch at a time.
struct Group {
  std::string name;
  std::vector<const Mesh*> meshes;
  std::vector<Part> parts;
  std::size_t made = 0;
  std::function<std::pair<Mesh, Part>(std::size_t)> make;
  void add(const Mesh& m, Part p) {
    meshes.push_back(&m);
    parts.push_back(p);
  }
};

Group named(std::string name) {
  Group g;
  g.name = std::move(name);
  return g;
}

/// Items of a made group made and cut at once: bounds what is held to a batch's meshes and
/// pieces rather than the group's.
constexpr std::size_t kMadeBatch = 2048;

// ---- Chunking -----------------------------------------------------------------------------

bool degenerate(const Mesh& m, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  if (a == b || b == c || a == c) {
    return true;
  }
  const auto& pa = m.positions[a];
  const auto& pb = m.positions[b];
  const auto& pc = m.positions[c];
  const Vec3 ab{double{pb[0]} - pa[0], double{pb[1]} - pa[1], double{pb[2]} - pa[2]};
  const Vec3 ac{double{pc[0]} - pa[0], double{pc[1]} - pa[1], double{pc[2]} - pa[2]};
  const Vec3 n = cross(ab, ac);
  return dot(n, n) < 4.0 * kMinTriangleArea2;
}

/// Renormalised in float so the GPU (and the glTF validator) get unit vectors.
Float3 unit(Float3 n) {
  const double len = std::sqrt(double{n[0]} * n[0] + double{n[1]} * n[1] + double{n[2]} * n[2]);
  if (!(len > 0.0) || !std::isfinite(len)) {
    return {0.0f, 0.0f, 1.0f};
  }
  return to_float3(n[0] / len, n[1] / len, n[2] / len);
}

/// Cuts one item's mesh into pieces by triangle centroid, dropping degenerate triangles.
/// Pieces come out in chunk order; vertices keep their first-use order within a piece.
Pieces split_by_chunk(const Mesh& m, Part part, double chunk_m) {
  Pieces out;
  if (m.indices.empty()) {
    return out;
  }
  CF_ASSERT(m.normals.size() == m.positions.size(), "one normal per position");
  CF_ASSERT(m.uvs.empty() || m.uvs.size() == m.positions.size(), "one uv per position or none");
  // Texture coordinates by the item's own rule (planar_uvs) when it brings none: a chunk's part
  // gathers flat-shaded and smooth items, which must not change each other's mapping.
  const std::vector<std::array<float, 2>> derived =
      m.uvs.empty() ? planar_uvs(m) : std::vector<std::array<float, 2>>{};
  const std::vector<std::array<float, 2>>& uvs = m.uvs.empty() ? derived : m.uvs;
  // 1. Chunk of every kept triangle.
  const std::size_t tri_count = m.indices.size() / 3;
  std::vector<ChunkKey> keys(tri_count);
  std::vector<std::size_t> order;
  order.reserve(tri_count);
  for (std::size_t t = 0; t < tri_count; ++t) {
    const std::uint32_t a = m.indices[3 * t];
    const std::uint32_t b = m.indices[3 * t + 1];
    const std::uint32_t c = m.indices[3 * t + 2];
    if (degenerate(m, a, b, c)) {
      continue;
    }
    const double x = (double{m.positions[a][0]} + m.positions[b][0] + m.positions[c][0]) / 3.0;
    const double y = (double{m.positions[a][1]} + m.positions[b][1] + m.positions[c][1]) / 3.0;
    keys[t] = {static_cast<std::int32_t>(std::floor(y / chunk_m)),
               static_cast<std::int32_t>(std::floor(x / chunk_m))};
    order.push_back(t);
  }
  // 2. One piece per chunk, in chunk order, with its own compact vertex list: the triangles
  //    grouped by chunk (stably, so each chunk keeps mesh order) and visited once, a vertex
  //    stamped with the piece that last numbered it (a mesh over many chunks, such as a valley's
  //    terrain or ground patch, costs its size, not its size times its chunks).
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> remap(m.positions.size());
  std::vector<std::uint32_t> stamp(m.positions.size(), kUnset);
  std::uint32_t piece_no = 0;
  for (std::size_t i = 0; i < order.size(); ++piece_no) {
    const ChunkKey key = keys[order[i]];
    Piece piece{key, part, {}};
    for (; i < order.size() && keys[order[i]] == key; ++i) {
      const std::size_t t = order[i];
      for (std::size_t k = 0; k < 3; ++k) {
        const std::uint32_t v = m.indices[3 * t + k];
        if (stamp[v] != piece_no) {
          stamp[v] = piece_no;
          remap[v] = static_cast<std::uint32_t>(piece.mesh.positions.size());
          piece.mesh.positions.push_back(m.positions[v]);
          piece.mesh.normals.push_back(unit(m.normals[v]));
          piece.mesh.uvs.push_back(uvs[v]);
        }
        piece.mesh.indices.push_back(remap[v]);
      }
    }
    out.push_back(std::move(piece));
  }
  return out;
}

/// Which items to cut, by their index in the merge order (groups in order, each group's items
/// by index); every item when empty.
using ItemPick = std::function<bool(std::size_t item)>;

/// Cuts every (picked) item of a group in parallel, each into its own slot; `base` is the
/// group's first item in the merge order.
std::vector<Pieces> split_group(const Group& g, double chunk_m, const ItemPick& pick,
                                std::size_t base) {
  std::vector<Pieces> slots(g.meshes.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, g.meshes.size()),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i) {
                        if (pick && !pick(base + i)) continue;
                        slots[i] = split_by_chunk(*g.meshes[i], g.parts[i], chunk_m);
                      }
                    });
  return slots;
}

/// The road and block surfaces of one kind as a made group (none when not `drawn`).
void surface_group(std::vector<Group>& groups, const char* name, const roads::SurfaceSource& source,
                   roads::SurfaceKind kind, bool drawn = true) {
  Group g = named(name);
  if (drawn) {
    g.made = roads::surface_count(source, kind);
    g.make = [&source, kind](std::size_t i) {
      roads::ClassMesh c = roads::surface_mesh(source, kind, i);
      Part part = road_part(c.road_class);
      if (kind == roads::SurfaceKind::sidewalk) part = Part::sidewalk;
      if (kind == roads::SurfaceKind::block) part = Part::block;
      if (kind == roads::SurfaceKind::marking) part = Part::marking;
      return std::pair<Mesh, Part>(std::move(c.mesh), part);
    };
  }
  groups.push_back(std::move(g));
}

/// The items of city.glb as groups, in the merge order.
Result<std::vector<Group>> groups_of(const CityGlbInputs& in,
                                     const std::vector<terrain::TerrainChunk>& terrain) {
  std::vector<Group> groups;
  groups.push_back(named("terrain"));
  for (const terrain::TerrainChunk& c : terrain)
    groups.back().add(c.mesh, Part::terrain);
  // Instanced section carriageways are written as road bricks instead (gltf_writer.cpp).
  using roads::SurfaceKind;
  if (in.road_surfaces != nullptr) {
    surface_group(groups, "road_meshes.carriageways", *in.road_surfaces, SurfaceKind::carriageway,
                  !instanced_roads(in));
    surface_group(groups, "road_meshes.sidewalks", *in.road_surfaces, SurfaceKind::sidewalk);
    surface_group(groups, "road_meshes.junctions", *in.road_surfaces, SurfaceKind::junction);
    surface_group(groups, "road_meshes.blocks", *in.road_surfaces, SurfaceKind::block);
  }
  if (in.buildings == nullptr) {
    groups.push_back(named("block_volumes"));
    if (in.block_volumes != nullptr) {
      for (const Mesh& m : *in.block_volumes)
        groups.back().add(m, Part::volume);
    }
  } else {
    // Per building: roof, parapets, then the gable ends and skillion sides of pitched roofs
    // (imported places) in plastered wall.
    groups.push_back(named("buildings.roofs"));
    for (const auto& roof : in.buildings->roofs) {
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::roof)], Part::roof);
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::trim)], Part::parapet);
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::wall)], Part::volume);
    }
  }
  // The mapped ground patches, made a batch at a time like the road surfaces.
  groups.push_back(named("dressing.ground_meshes"));
  if (const dressing::Output* d = in.dressing; d != nullptr) {
    groups.back().made = d->ground.size();
    groups.back().make = [d, &in](std::size_t i) {
      return std::pair<Mesh, Part>(
          dressing::ground_patch_mesh(d->ground[i], in.terrain, d->ground_raise_m),
          ground_part(d->ground[i]));
    };
  }
  if (in.road_surfaces != nullptr) {
    surface_group(groups, "road_meshes.markings", *in.road_surfaces, SurfaceKind::marking);
  }
  if (const freeway::Output* f = in.freeway; f != nullptr) {
    groups.push_back(named("freeway.decks"));
    for (const auto& c : f->deck_chunks)
      groups.back().add(c.mesh, Part::freeway);
    for (const auto& c : f->barrier_chunks)
      groups.back().add(c.mesh, Part::freeway);
    groups.push_back(named("freeway.pillar_meshes"));
    for (const Mesh& m : f->pillar_meshes)
      groups.back().add(m, Part::freeway);
  }
  return groups;
}

}  // namespace

bool instanced_roads(const CityGlbInputs& in) {
  return in.settings.road_modules == pipeline::RoadModules::instanced && in.roads != nullptr &&
         in.road_surfaces != nullptr && in.roads->sections.size() == in.layout.network.edges.size();
}

namespace {

/// Hands a piece of item `item` (in the merge order) to whoever collects them.
using TakePiece = std::function<void(Piece&, std::size_t item)>;

/// Makes and cuts the (picked) items of a made group a batch at a time (each batch in
/// parallel), handing the pieces to `take` in item order; fails on the first item (in order)
/// that cannot be cut. `base`: the group's first item in the merge order.
Status cut_made_group(const Group& g, double chunk_m, const TakePiece& take, const ItemPick& pick,
                      std::size_t base) {
  for (std::size_t first = 0; first < g.made; first += kMadeBatch) {
    const std::size_t n = std::min(kMadeBatch, g.made - first);
    std::vector<Pieces> slots(n);
    std::vector<const char*> problems(n, nullptr);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i) {
                          if (pick && !pick(base + first + i)) continue;
                          const auto [mesh, part] = g.make(first + i);
                          problems[i] = mesh_problem(mesh, chunk_m);
                          if (problems[i] == nullptr)
                            slots[i] = split_by_chunk(mesh, part, chunk_m);
                        }
                      });
    for (std::size_t i = 0; i < n; ++i) {
      if (problems[i] != nullptr) {
        return Error::invalid_input(g.name + "[" + std::to_string(first + i) + "]", problems[i]);
      }
      for (Piece& piece : slots[i]) {
        take(piece, base + first + i);
        piece.mesh = Mesh{};
      }
    }
  }
  return Ok{};
}

/// Cuts every (picked) item of the city into pieces, one per chunk it crosses, and hands each
/// piece to `take` in a fixed order (group, item, chunk), whatever the thread count.
Status cut_city(const CityGlbInputs& in, const TakePiece& take, const ItemPick& pick = {}) {
  if (Status s = check_config(in.settings); !s) return s.error();
  if (Status s = terrain::validate(in.terrain); !s) return s.error();
  if (in.road_surfaces != nullptr) {
    if (Status s = roads::check_surface_source(*in.road_surfaces); !s) return s.error();
  }
  const double chunk_m = in.settings.chunk_m;
  // 1. Every held item's mesh, checked (made ones are checked as they are made).
  std::vector<terrain::TerrainChunk> terrain_chunks = terrain::mesh_chunks(in.terrain, chunk_m);
  Result<std::vector<Group>> groups = groups_of(in, terrain_chunks);
  if (!groups) return groups.error();
  for (const Group& g : *groups) {
    for (std::size_t i = 0; i < g.meshes.size(); ++i) {
      if (const char* problem = mesh_problem(*g.meshes[i], chunk_m); problem != nullptr) {
        return Error::invalid_input(g.name + "[" + std::to_string(i) + "]", problem);
      }
    }
  }
  // 2. Group by group: its items cut into their own slots in parallel, then taken in a fixed
  //    order (kind, then item index), so thread count never shows. Each piece is released once
  //    taken and each group's pieces before the next is cut (the terrain's grid too, after its
  //    group): the chunks and one group's pieces are held at once, not every piece twice.
  std::size_t base = 0;
  for (std::size_t gi = 0; gi < groups->size(); ++gi) {
    const Group& g = (*groups)[gi];
    if (g.make) {
      if (Status s = cut_made_group(g, chunk_m, take, pick, base); !s) return s;
      base += g.made;
      continue;
    }
    std::vector<Pieces> group = split_group(g, chunk_m, pick, base);
    for (std::size_t i = 0; i < group.size(); ++i) {
      for (Piece& piece : group[i]) {
        take(piece, base + i);
        piece.mesh = Mesh{};
      }
    }
    base += g.meshes.size();
    if (gi == 0) {
      (*groups)[0].meshes.clear();
      terrain_chunks = {};
    }
  }
  return Ok{};
}

bool box_has(const ChunkBox& b, const ChunkFilter& keep) {
  for (std::int32_t cy = b.min_cy; cy <= b.max_cy; ++cy) {
    for (std::int32_t cx = b.min_cx; cx <= b.max_cx; ++cx) {
      if (keep(cy, cx)) return true;
    }
  }
  return false;
}

}  // namespace

Result<ChunkList> chunk_city_meshes(const CityGlbInputs& in, const ChunkFilter& keep,
                                    const std::vector<ChunkBox>* items) {
  ChunkList out;
  std::map<ChunkKey, std::size_t> at;  // Chunk -> its place in `out`.
  // With the items' chunk boxes, an item none of whose chunks is kept is not even made.
  ItemPick pick;
  if (keep && items != nullptr) {
    pick = [&](std::size_t item) { return item < items->size() && box_has((*items)[item], keep); };
  }
  const Status cut = cut_city(
      in,
      [&](Piece& piece, std::size_t) {
        if (keep && !keep(piece.key.first, piece.key.second)) return;
        const auto [it, fresh] = at.try_emplace(piece.key, out.size());
        if (fresh) {
          out.emplace_back();
          out.back().cy = piece.key.first;
          out.back().cx = piece.key.second;
        }
        out[it->second].parts[static_cast<std::size_t>(piece.part)].append(piece.mesh);
      },
      pick);
  if (!cut) return cut.error();
  at.clear();
  std::sort(out.begin(), out.end(), [](const ChunkMeshes& a, const ChunkMeshes& b) {
    return ChunkKey{a.cy, a.cx} < ChunkKey{b.cy, b.cx};
  });
  return out;
}

Result<ChunkCensus> chunk_census(const CityGlbInputs& in, const Ranks& ranks) {
  // 1. This rank's share: every size()-th item (neighbouring items, often of one size, spread
  //    over the ranks).
  const auto size = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::map<ChunkKey, double> bytes;
  std::map<std::size_t, ChunkBox> boxes;  // Items without a piece have none (and are not kept).
  const Status cut = cut_city(
      in,
      [&](Piece& piece, std::size_t item) {
        // Whole numbers of bytes: sums are exact in any order, so any rank count adds up alike.
        bytes[piece.key] += 24.0 * static_cast<double>(piece.mesh.positions.size()) +
                            4.0 * static_cast<double>(piece.mesh.indices.size());
        auto [it, fresh] = boxes.try_emplace(item);
        ChunkBox& b = it->second;
        const auto [cy, cx] = piece.key;
        if (fresh) b = {cy, cx, cy, cx};
        b.min_cy = std::min(b.min_cy, cy);
        b.min_cx = std::min(b.min_cx, cx);
        b.max_cy = std::max(b.max_cy, cy);
        b.max_cx = std::max(b.max_cx, cx);
      },
      [&](std::size_t item) { return item % size == me; });
  if (Status st = agree(ranks, cut); !st) return st.error();
  ChunkCensus out;
  if (size == 1) {
    out.bytes = std::move(bytes);
    out.items.resize(boxes.empty() ? 0 : boxes.rbegin()->first + 1);
    for (const auto& [item, b] : boxes)
      out.items[item] = b;
    return out;
  }
  // 2. Every rank's counts and boxes to every rank.
  ByteWriter w;
  w.put<std::uint64_t>(boxes.empty() ? 0 : boxes.rbegin()->first + 1);
  w.put<std::uint64_t>(bytes.size());
  for (const auto& [k, v] : bytes) {
    w.put(k.first);
    w.put(k.second);
    w.put(v);
  }
  w.put<std::uint64_t>(boxes.size());
  for (const auto& [item, b] : boxes) {
    w.put<std::uint64_t>(item);
    w.put(b);
  }
  for (const std::string& part : all_gather(ranks, w.take())) {
    ByteReader r(part, "chunk census");
    std::uint64_t n = 0;
    std::uint64_t count = 0;
    if (Status s = r.get(n); !s) return s.error();
    out.items.resize(std::max<std::size_t>(out.items.size(), n));
    if (Status s = r.get(count); !s) return s.error();
    for (std::uint64_t k = 0; k < count; ++k) {
      ChunkKey key;
      double v = 0.0;
      for (const Status& s : {r.get(key.first), r.get(key.second), r.get(v)}) {
        if (!s) return s.error();
      }
      out.bytes[key] += v;
    }
    if (Status s = r.get(count); !s) return s.error();
    for (std::uint64_t k = 0; k < count; ++k) {
      std::uint64_t item = 0;
      ChunkBox b;
      if (Status s = r.get(item); !s) return s.error();
      if (Status s = r.get(b); !s) return s.error();
      if (item >= out.items.size()) return Error::internal("chunk census", "an item out of range");
      out.items[item] = b;
    }
  }
  return out;
}

}  // namespace cityforge::exporter::detail
