// SPDX-License-Identifier: Apache-2.0
// The lane graph cut for MPI ranks (cityforge/traffic/partition.hpp): lanes joined into units by
// union-find (junction + connectors + crosswalks + approaches; same-direction neighbours; a
// merge lane with its feeders and theirs; a block's sidewalks joined end to end), the unit
// graph weighted by expected vehicles and pedestrians (two constraints; a block linked to the
// units of its sidewalks' nearest vehicle lanes) and cut by METIS_PartGraphKway with a fixed
// seed.
// Based on: Karypis, Kumar (1998), "A fast and high quality multilevel scheme for partitioning
// irregular graphs", SIAM J. Sci. Comput. 20(1).
#include "cityforge/traffic/partition.hpp"

#include <dlfcn.h>
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "cityforge/core/loadable.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/spatial_hash.hpp"

namespace cityforge::traffic {

namespace {

// METIS is loaded with dlopen the first time a cut needs it (libmetis.so.5, Debian libmetis5;
// CITYFORGE_METIS_LIBRARY names another file) rather than linked: only runs over several
// ranks cut the lane graph, and a linked library costs every start of the program, --help and
// the island included, about half a millisecond.
struct Metis {
  decltype(&::METIS_SetDefaultOptions) set_default_options = nullptr;
  decltype(&::METIS_PartGraphKway) part_graph_kway = nullptr;
  std::string error;  // Why it could not be loaded; empty when it was.
};

const Metis& metis() {
  static const Metis api = [] {
    Metis out;
    const SystemLibrary lib = open_system_library(
        "CITYFORGE_METIS_LIBRARY", "libmetis.so.5",
        "METIS, which cuts the lane graph over MPI ranks: Debian package libmetis5, which "
        "scripts/install-deps.sh installs");
    if (lib.handle == nullptr) {
      out.error = lib.error;
      return out;
    }
    out.set_default_options = reinterpret_cast<decltype(&::METIS_SetDefaultOptions)>(
        dlsym(lib.handle, "METIS_SetDefaultOptions"));
    out.part_graph_kway = reinterpret_cast<decltype(&::METIS_PartGraphKway)>(
        dlsym(lib.handle, "METIS_PartGraphKway"));
    if (out.set_default_options == nullptr || out.part_graph_kway == nullptr) {
      out.error = lib.name + " has no METIS_SetDefaultOptions or METIS_PartGraphKway (METIS 5)";
    }
    return out;  // The library stays loaded for the life of the process.
  }();
  return api;
}

constexpr auto kShortLinkM = static_cast<float>(roads::kShortLinkM);

struct UnionFind {
  std::vector<std::uint32_t> root;
  explicit UnionFind(std::uint32_t n) : root(n) { std::iota(root.begin(), root.end(), 0U); }
  std::uint32_t find(std::uint32_t x) {
    while (root[x] != x)
      x = root[x] = root[root[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    root[std::max(a, b)] = std::min(a, b);  // Smallest index roots: independent of join order.
  }
};

}  // namespace

double lane_weight(const Network& net, LaneId lane) {
  if (!net.is(lane, roads::kVehicle)) return 0.0;
  return static_cast<double>(net.length_m[lane]) * (0.25 + net.traffic_density[lane]);
}

double pedestrian_weight(const Network& net, LaneId lane) {
  if (!net.is(lane, roads::kSidewalk) || lane >= net.pedestrian_density.size()) return 0.0;
  return static_cast<double>(net.length_m[lane]) * net.pedestrian_density[lane];
}

std::vector<LaneId> nearest_vehicle_lanes(const Network& net) {
  const std::uint32_t lanes = net.lane_count();
  std::vector<LaneId> out(lanes, kNoLane);
  // The vehicle lanes' segments (by their first point's index), indexed by box.
  constexpr double kCellM = 40.0;
  BoxIndex segments(kCellM);
  std::vector<LaneId> point_lane(net.points.size(), kNoLane);
  bool any = false;
  for (LaneId l = 0; l < lanes; ++l) {
    if (!net.is(l, roads::kVehicle)) continue;
    for (std::uint32_t k = net.point_begin[l]; k + 1 < net.point_begin[l + 1]; ++k) {
      point_lane[k] = l;
      Aabb2 box;
      box.add(Vec2{net.points[k].x, net.points[k].y});
      box.add(Vec2{net.points[k + 1].x, net.points[k + 1].y});
      segments.insert(k, box);
      any = true;
    }
  }
  if (!any) return out;
  std::vector<std::uint32_t> found;
  for (LaneId l = 0; l < lanes; ++l) {
    if (!net.is(l, roads::kSidewalk) || net.is(l, roads::kVehicle)) continue;
    // The point half way along the sidewalk.
    const std::uint32_t b = net.point_begin[l];
    const std::uint32_t e = net.point_begin[l + 1];
    Vec2 p{net.points[b].x, net.points[b].y};
    const float half = 0.5f * net.point_s[e - 1];
    for (std::uint32_t k = b; k + 1 < e; ++k) {
      if (net.point_s[k + 1] < half) continue;
      const float span = net.point_s[k + 1] - net.point_s[k];
      const double t = span > 0 ? (half - net.point_s[k]) / span : 0.0;
      const Vec3 q = net.points[k] + (net.points[k + 1] - net.points[k]) * t;
      p = Vec2{q.x, q.y};
      break;
    }
    // Wider squares round it until the nearest segment found lies within the square's reach
    // (then no segment outside it is nearer).
    double best = std::numeric_limits<double>::infinity();
    LaneId best_lane = kNoLane;
    for (double reach = kCellM; reach < 1e6; reach *= 2) {
      segments.query_radius(p, reach, found);
      for (const std::uint32_t k : found) {
        const double d = segment_distance(Vec2{net.points[k].x, net.points[k].y},
                                          Vec2{net.points[k + 1].x, net.points[k + 1].y}, p);
        if (d < best || (d == best && point_lane[k] < best_lane)) {
          best = d;
          best_lane = point_lane[k];
        }
      }
      if (best <= reach) break;
    }
    out[l] = best_lane;
  }
  return out;
}

double Partition::imbalance() const {
  if (part_weight.empty()) return 1.0;
  const double total = std::accumulate(part_weight.begin(), part_weight.end(), 0.0);
  const double mean = total / static_cast<double>(part_weight.size());
  const double most = *std::max_element(part_weight.begin(), part_weight.end());
  return mean > 0 ? most / mean : 1.0;
}

Result<Partition> partition_network(const Network& net, std::uint32_t parts, std::uint64_t seed) {
  if (parts < 1 || parts > 1024) {
    return Error::invalid_input("ranks", "expected 1 to 1024 parts, got " + std::to_string(parts));
  }
  const std::uint32_t lanes = net.lane_count();
  const std::uint32_t junctions = net.intersection_count();
  Partition out;
  out.parts = parts;
  out.lane_part.assign(lanes, 0);
  out.part_weight.assign(parts, 0.0);
  out.part_pedestrians.assign(parts, 0.0);

  // Units: lanes lanes + one node per junction.
  UnionFind uf(lanes + junctions);
  const auto sidewalk = [&](LaneId l) {
    return net.is(l, roads::kSidewalk) && !net.is(l, roads::kCrosswalk) &&
           !net.is(l, roads::kVehicle);
  };
  for (LaneId l = 0; l < lanes; ++l) {
    const std::int32_t j = net.intersection[l];
    if (j >= 0 && static_cast<std::uint32_t>(j) < junctions && !sidewalk(l)) {
      uf.join(l, lanes + static_cast<std::uint32_t>(j));
      if (net.is(l, roads::kVehicle)) {
        for (std::uint32_t q = net.pred_begin[l]; q < net.pred_begin[l + 1]; ++q) {
          uf.join(net.pred[q], lanes + static_cast<std::uint32_t>(j));
        }
      }
    }
    // Junctions joined by a link too short to wait on are served as one cluster by the
    // coordinator: one unit (the simulation's threshold is 15 m).
    if (j >= 0 && static_cast<std::uint32_t>(j) < junctions && net.is(l, roads::kVehicle)) {
      for (std::uint32_t q = net.succ_begin[l]; q < net.succ_begin[l + 1]; ++q) {
        const LaneId d = net.succ[q];
        if (net.intersection[d] >= 0 || net.length_m[d] >= kShortLinkM) continue;
        for (std::uint32_t q2 = net.succ_begin[d]; q2 < net.succ_begin[d + 1]; ++q2) {
          const std::int32_t b = net.intersection[net.succ[q2]];
          if (b >= 0 && static_cast<std::uint32_t>(b) < junctions) {
            uf.join(lanes + static_cast<std::uint32_t>(j), lanes + static_cast<std::uint32_t>(b));
          }
        }
      }
    }
    if (net.left[l] != kNoLane) uf.join(l, net.left[l]);
    if (net.right[l] != kNoLane) uf.join(l, net.right[l]);
    // A merge is served like a junction by one rank: the merge lane with the lanes that feed it
    // and theirs (the coordinator weighs the fronts of both, docs/traffic.md "Over MPI ranks").
    if (net.merge[l] != 0U && net.is(l, roads::kVehicle)) {
      for (std::uint32_t q = net.pred_begin[l]; q < net.pred_begin[l + 1]; ++q) {
        const LaneId p = net.pred[q];
        uf.join(l, p);
        for (std::uint32_t q2 = net.pred_begin[p]; q2 < net.pred_begin[p + 1]; ++q2)
          uf.join(l, net.pred[q2]);
      }
    }
  }
  // Blocks: the sidewalks joined end to end (ends within 5 cm, as the crowd's walk network
  // joins them), each block one unit, so its pedestrian lanes go to one rank together. Where
  // sidewalks run on across side streets without a crosswalk they join up across whole
  // districts (one component of 17 km in the default city, 23 km and more in the 4x5 km): a
  // block stops growing at kBlockM of sidewalk (joins in lane order, so the same blocks on every
  // rank), which keeps a city block whole and cuts those runs into pieces of about that length.
  {
    constexpr double kBlockM = 1500.0;
    std::vector<double> block_m(lanes + junctions, 0.0);  // By union-find root.
    for (LaneId l = 0; l < lanes; ++l) {
      if (sidewalk(l)) block_m[uf.find(l)] += net.length_m[l];
    }
    constexpr double kJoinM = 0.05;
    SpatialHash ends(kJoinM);  // The sidewalks' end points, by their index in net.points.
    std::vector<LaneId> end_lane(net.points.size(), kNoLane);
    const auto each_end = [&](auto&& f) {
      for (LaneId l = 0; l < lanes; ++l) {
        if (!sidewalk(l) || net.point_begin[l + 1] == net.point_begin[l]) continue;
        for (const std::uint32_t k : {net.point_begin[l], net.point_begin[l + 1] - 1})
          f(l, k, Vec2{net.points[k].x, net.points[k].y});
      }
    };
    each_end([&](LaneId l, std::uint32_t k, Vec2 p) {
      ends.insert(k, p);
      end_lane[k] = l;
    });
    std::vector<std::uint32_t> near;
    each_end([&](LaneId l, std::uint32_t, Vec2 p) {
      ends.query_radius(p, kJoinM, near);
      for (const std::uint32_t k : near) {
        const LaneId o = end_lane[k];
        if (o == l || distance(p, Vec2{net.points[k].x, net.points[k].y}) > kJoinM) continue;
        const std::uint32_t a = uf.find(l);
        const std::uint32_t b = uf.find(o);
        if (a == b || block_m[a] + block_m[b] > kBlockM) continue;
        uf.join(a, b);
        block_m[uf.find(a)] = block_m[a] + block_m[b];
      }
    });
  }
  std::vector<std::uint32_t> unit_of(lanes);
  std::map<std::uint32_t, std::uint32_t> unit_index;  // Root -> unit, in ascending root order.
  for (LaneId l = 0; l < lanes; ++l)
    unit_index.emplace(uf.find(l), 0U);
  std::uint32_t units = 0;
  for (auto& [root, index] : unit_index)
    index = units++;
  for (LaneId l = 0; l < lanes; ++l)
    unit_of[l] = unit_index[uf.find(l)];
  out.units = units;

  // Vertex weights in centi-vehicles (METIS wants integers > 0 to balance by), edges by links.
  std::vector<double> unit_weight(units, 0.0);
  for (LaneId l = 0; l < lanes; ++l)
    unit_weight[unit_of[l]] += lane_weight(net, l);
  // A block's pedestrians are its unit's second weight (both balanced), and each of its
  // sidewalks links it to the unit of the vehicle lane nearest that sidewalk.
  const std::vector<LaneId> nearest =
      parts > 1 ? nearest_vehicle_lanes(net) : std::vector<LaneId>(lanes, kNoLane);
  std::vector<double> unit_pedestrians(units, 0.0);
  double pedestrians = 0;
  for (LaneId l = 0; l < lanes; ++l) {
    unit_pedestrians[unit_of[l]] += pedestrian_weight(net, l);
    pedestrians += pedestrian_weight(net, l);
  }
  const idx_t constraints = pedestrians > 0 ? 2 : 1;
  std::vector<std::map<std::uint32_t, idx_t>> adjacent(units);
  for (LaneId l = 0; l < lanes; ++l) {
    for (std::uint32_t q = net.succ_begin[l]; q < net.succ_begin[l + 1]; ++q) {
      const std::uint32_t a = unit_of[l];
      const std::uint32_t b = unit_of[net.succ[q]];
      if (a == b) continue;
      ++adjacent[a][b];
      ++adjacent[b][a];
    }
    if (nearest[l] != kNoLane && unit_of[l] != unit_of[nearest[l]]) {
      ++adjacent[unit_of[l]][unit_of[nearest[l]]];
      ++adjacent[unit_of[nearest[l]]][unit_of[l]];
    }
  }

  std::vector<std::uint32_t> unit_part(units, 0);
  if (parts > 1 && units <= parts) {
    for (std::uint32_t u = 0; u < units; ++u)
      unit_part[u] = u % parts;
  } else if (parts > 1) {
    std::vector<idx_t> xadj{0};
    std::vector<idx_t> adjncy;
    std::vector<idx_t> adjwgt;
    std::vector<idx_t> vwgt(static_cast<std::size_t>(units) * constraints);
    for (std::uint32_t u = 0; u < units; ++u) {
      const std::size_t at = static_cast<std::size_t>(u) * constraints;
      vwgt[at] = 1 + static_cast<idx_t>(std::lround(std::min(unit_weight[u] * 100.0, 1e8)));
      if (constraints == 2)
        vwgt[at + 1] = static_cast<idx_t>(std::lround(std::min(unit_pedestrians[u] * 100.0, 1e8)));
      for (const auto& [v, w] : adjacent[u]) {
        adjncy.push_back(static_cast<idx_t>(v));
        adjwgt.push_back(w);
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    const Metis& api = metis();
    if (!api.error.empty()) return Error::internal("partition", api.error);
    idx_t options[METIS_NOPTIONS];
    api.set_default_options(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 1000003U);
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nvtxs = static_cast<idx_t>(units);
    idx_t ncon = constraints;
    idx_t nparts = static_cast<idx_t>(parts);
    idx_t edgecut = 0;
    std::vector<idx_t> part(units, 0);
    // Allowed imbalance per constraint: the vehicles as tight as METIS's default for one
    // constraint, the pedestrians a little looser (whole blocks are coarser units than lanes).
    real_t ubvec[2] = {static_cast<real_t>(1.03), static_cast<real_t>(1.04)};
    const int rc = api.part_graph_kway(
        &nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(), &nparts,
        nullptr, constraints == 2 ? ubvec : nullptr, options, &edgecut, part.data());
    if (rc != METIS_OK) {
      return Error::internal("partition", "METIS_PartGraphKway failed (code " + std::to_string(rc) +
                                              ") on " + std::to_string(units) + " units");
    }
    for (std::uint32_t u = 0; u < units; ++u)
      unit_part[u] = static_cast<std::uint32_t>(part[u]);
  }

  for (LaneId l = 0; l < lanes; ++l) {
    out.lane_part[l] = static_cast<std::uint16_t>(unit_part[unit_of[l]]);
    out.part_weight[out.lane_part[l]] += lane_weight(net, l);
  }
  for (LaneId l = 0; l < lanes; ++l)
    out.part_pedestrians[out.lane_part[l]] += pedestrian_weight(net, l);
  for (LaneId l = 0; l < lanes; ++l) {
    bool cut = false;
    for (std::uint32_t q = net.succ_begin[l]; q < net.succ_begin[l + 1]; ++q) {
      if (out.lane_part[net.succ[q]] != out.lane_part[l]) {
        ++out.cut_links;
        cut = true;
      }
    }
    if (cut) ++out.cut_lanes;
  }
  return out;
}

}  // namespace cityforge::traffic
