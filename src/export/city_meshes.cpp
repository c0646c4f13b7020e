// SPDX-License-Identifier: Apache-2.0
// The triangle meshes of city.glb cut into square chunks by triangle centroid. The meshes come
// built by their stages (roads::SurfaceMeshes, block volumes, roofs, ground patches, freeway
// decks and pillars; the terrain by terrain::mesh_chunks): this file only assigns triangles to
// chunks and parts.

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

/// One group of items to cut: a mesh and its part per item, named for errors.
struct Group {
  std::string name;
  std::vector<const Mesh*> meshes;
  std::vector<Part> parts;
  void add(const Mesh& m, Part p) {
    meshes.push_back(&m);
    parts.push_back(p);
  }
};

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
        }
        piece.mesh.indices.push_back(remap[v]);
      }
    }
    out.push_back(std::move(piece));
  }
  return out;
}

/// Cuts every item of a group in parallel, each into its own slot.
std::vector<Pieces> split_group(const Group& g, double chunk_m) {
  std::vector<Pieces> slots(g.meshes.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, g.meshes.size()),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i) {
                        slots[i] = split_by_chunk(*g.meshes[i], g.parts[i], chunk_m);
                      }
                    });
  return slots;
}

/// The items of city.glb as groups, in the merge order.
Result<std::vector<Group>> groups_of(const CityGlbInputs& in,
                                     const std::vector<terrain::TerrainChunk>& terrain) {
  std::vector<Group> groups;
  groups.push_back({"terrain", {}, {}});
  for (const terrain::TerrainChunk& c : terrain)
    groups.back().add(c.mesh, Part::terrain);
  if (const roads::SurfaceMeshes* rm = in.road_meshes; rm != nullptr) {
    // Instanced section carriageways are written as road bricks instead (gltf_writer.cpp).
    groups.push_back({"road_meshes.carriageways", {}, {}});
    if (!instanced_roads(in)) {
      for (const roads::ClassMesh& c : rm->carriageways)
        groups.back().add(c.mesh, road_part(c.road_class));
    }
    groups.push_back({"road_meshes.sidewalks", {}, {}});
    for (const Mesh& m : rm->sidewalks)
      groups.back().add(m, Part::sidewalk);
    groups.push_back({"road_meshes.junctions", {}, {}});
    for (const roads::ClassMesh& c : rm->junctions)
      groups.back().add(c.mesh, road_part(c.road_class));
    groups.push_back({"road_meshes.blocks", {}, {}});
    for (const Mesh& m : rm->blocks)
      groups.back().add(m, Part::block);
  }
  if (in.buildings == nullptr) {
    groups.push_back({"block_volumes", {}, {}});
    if (in.block_volumes != nullptr) {
      for (const Mesh& m : *in.block_volumes)
        groups.back().add(m, Part::volume);
    }
  } else {
    // Per building: roof, parapets, then the gable ends and skillion sides of pitched roofs
    // (imported places) in plastered wall.
    groups.push_back({"buildings.roofs", {}, {}});
    for (const auto& roof : in.buildings->roofs) {
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::roof)], Part::roof);
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::trim)], Part::parapet);
      groups.back().add(roof[static_cast<std::size_t>(buildings::Material::wall)], Part::volume);
    }
  }
  if (const dressing::Output* d = in.dressing; d != nullptr) {
    if (d->ground_meshes.size() != d->ground.size()) {
      return Error::internal("dressing.ground_meshes",
                             "expected one mesh per ground patch (dressing::ground_patch_meshes)");
    }
    groups.push_back({"dressing.ground_meshes", {}, {}});
    for (std::size_t i = 0; i < d->ground.size(); ++i)
      groups.back().add(d->ground_meshes[i], ground_part(d->ground[i]));
  }
  if (const roads::SurfaceMeshes* rm = in.road_meshes; rm != nullptr) {
    groups.push_back({"road_meshes.markings", {}, {}});
    for (const Mesh& m : rm->markings)
      groups.back().add(m, Part::marking);
  }
  if (const freeway::Output* f = in.freeway; f != nullptr) {
    groups.push_back({"freeway.decks", {}, {}});
    for (const auto& c : f->deck_chunks)
      groups.back().add(c.mesh, Part::freeway);
    for (const auto& c : f->barrier_chunks)
      groups.back().add(c.mesh, Part::freeway);
    groups.push_back({"freeway.pillar_meshes", {}, {}});
    for (const Mesh& m : f->pillar_meshes)
      groups.back().add(m, Part::freeway);
  }
  return groups;
}

}  // namespace

bool instanced_roads(const CityGlbInputs& in) {
  return in.settings.road_modules == pipeline::RoadModules::instanced && in.roads != nullptr &&
         in.road_meshes != nullptr && in.roads->sections.size() == in.layout.network.edges.size();
}

namespace {

/// Cuts every item of the city into pieces, one per chunk it crosses, and hands each piece to
/// `take` in a fixed order (group, item, chunk), whatever the thread count.
Status cut_city(const CityGlbInputs& in, const std::function<void(Piece&)>& take) {
  if (Status s = check_config(in.settings); !s) return s.error();
  if (Status s = terrain::validate(in.terrain); !s) return s.error();
  const double chunk_m = in.settings.chunk_m;
  // 1. Every item's mesh, checked.
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
  for (std::size_t gi = 0; gi < groups->size(); ++gi) {
    std::vector<Pieces> group = split_group((*groups)[gi], chunk_m);
    for (Pieces& item : group) {
      for (Piece& piece : item) {
        take(piece);
        piece.mesh = Mesh{};
      }
    }
    if (gi == 0) {
      (*groups)[0].meshes.clear();
      terrain_chunks = {};
    }
  }
  return Ok{};
}

}  // namespace

Result<std::vector<ChunkMeshes>> chunk_city_meshes(const CityGlbInputs& in,
                                                   const ChunkFilter& keep) {
  std::map<ChunkKey, ChunkMeshes> chunks;
  const Status cut = cut_city(in, [&](Piece& piece) {
    if (keep && !keep(piece.key.first, piece.key.second)) return;
    ChunkMeshes& chunk = chunks[piece.key];
    chunk.cy = piece.key.first;
    chunk.cx = piece.key.second;
    chunk.parts[static_cast<std::size_t>(piece.part)].append(piece.mesh);
  });
  if (!cut) return cut.error();
  std::vector<ChunkMeshes> out;
  out.reserve(chunks.size());
  for (auto& [key, chunk] : chunks)
    out.push_back(std::move(chunk));
  return out;
}

Result<std::map<std::pair<std::int32_t, std::int32_t>, double>> chunk_mesh_bytes(
    const CityGlbInputs& in) {
  std::map<ChunkKey, double> bytes;
  const Status cut = cut_city(in, [&](Piece& piece) {
    bytes[piece.key] += 24.0 * static_cast<double>(piece.mesh.positions.size()) +
                        4.0 * static_cast<double>(piece.mesh.indices.size());
  });
  if (!cut) return cut.error();
  return bytes;
}

}  // namespace cityforge::exporter::detail
