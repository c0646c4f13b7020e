// SPDX-License-Identifier: Apache-2.0
// How the tileset's work is shared between ranks: whole subtrees to each rank, balanced by
// estimated content; what a rank reports back to rank 0 (tile records and stand-ins).
#include <algorithm>

#include "cityforge/core/ranks.hpp"
#include "export/detail/tiles_tree.hpp"

namespace cityforge::exporter::detail {
namespace {

/// Work units a rank gets at least: more balance the load better (the heaviest unit first to
/// the least loaded rank), fewer leave rank 0 less to build above them.
constexpr std::size_t kUnitsPerRank = 8;

void put_mesh(ByteWriter& w, const HlodMesh& m) {
  w.put_vector(m.positions);
  w.put_vector(m.normals);
  w.put_vector(m.colours);
  w.put_vector(m.features);
  w.put_vector(m.indices);
}

Status get_mesh(ByteReader& r, HlodMesh& m) {
  for (const Status& s :
       {r.get_vector(m.positions), r.get_vector(m.normals), r.get_vector(m.colours),
        r.get_vector(m.features), r.get_vector(m.indices)}) {
    if (!s) return s;
  }
  return Ok{};
}

}  // namespace

std::vector<int> assign_tiles(const std::vector<Tile>& tiles,
                              const std::map<ChunkKey, double>& weights, int ranks) {
  std::vector<int> owner(tiles.size(), 0);
  if (ranks <= 1) return owner;
  // Content weight of every subtree, from the leaves up (children come after their parent).
  std::vector<double> weight(tiles.size(), 0.0);
  for (std::size_t i = tiles.size(); i-- > 0;) {
    if (tiles[i].leaf) {
      for (const auto& [k, w] : weights) {
        if (contains(tiles[i], k)) weight[i] += w;
      }
    }
    for (const std::size_t c : tiles[i].children)
      weight[i] += weight[c];
  }
  int depth = 0;
  for (const Tile& t : tiles)
    depth = std::max(depth, t.level);
  std::vector<std::size_t> units;
  for (int level = 0; level <= depth; ++level) {
    units.clear();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      if (tiles[i].level == level || (tiles[i].leaf && tiles[i].level < level)) units.push_back(i);
    }
    if (units.size() >= kUnitsPerRank * static_cast<std::size_t>(ranks)) break;
  }
  std::stable_sort(units.begin(), units.end(),
                   [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  std::fill(owner.begin(), owner.end(), -1);
  std::vector<std::size_t> stack;
  for (const std::size_t u : units) {
    const auto r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[static_cast<std::size_t>(r)] += weight[u];
    stack.assign(1, u);
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      owner[i] = r;
      stack.insert(stack.end(), tiles[i].children.begin(), tiles[i].children.end());
    }
  }
  return owner;
}

std::string tile_reports(const std::vector<Tile>& tiles, const std::vector<int>& owner, int me) {
  ByteWriter w;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    if (owner[i] != me) continue;
    const Tile& t = tiles[i];
    w.put<std::uint64_t>(i);
    w.put(t.box);
    w.put(t.error_m);
    w.put(t.chain_m);
    w.put(t.detail_m);
    w.put<std::uint64_t>(t.bytes);
    w.put_string(t.uri);
    put_mesh(w, t.ground);
    put_mesh(w, t.shells);
  }
  return w.take();
}

Status read_tile_reports(const std::string& bytes, std::vector<Tile>& tiles,
                         const std::vector<int>& owner, int from) {
  ByteReader r(bytes, "tiles from rank " + std::to_string(from));
  while (!r.done()) {
    std::uint64_t i = 0;
    std::uint64_t size = 0;
    if (Status s = r.get(i); !s) return s;
    if (i >= tiles.size() || owner[i] != from) {
      return Error::internal("tiles from rank " + std::to_string(from),
                             "reported a tile it was not given");
    }
    Tile& t = tiles[i];
    for (const Status& s :
         {r.get(t.box), r.get(t.error_m), r.get(t.chain_m), r.get(t.detail_m), r.get(size),
          r.get_string(t.uri), get_mesh(r, t.ground), get_mesh(r, t.shells)}) {
      if (!s) return s;
    }
    t.bytes = size;
  }
  return Ok{};
}

}  // namespace cityforge::exporter::detail
