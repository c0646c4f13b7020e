// SPDX-License-Identifier: Apache-2.0
// Side by side with Recast / DetourCrowd (issue 7): the same number of pedestrians walking to
// random goals over the same walkable area, stepped at 1/30 s for the same simulated time;
// prints agent updates per second for both and the ratio. Never asserts.
//
//   crowd_vs_detour LANES_JSON [--agents 1000,5000,20000] [--seconds 20] [--threads 2]
//                   [--window x0,y0,x1,y1] [--seed 1] [--json out.json] [--only-detour]
//
// Walkable area, both sides: the city's pedestrian lanes (roads::kSidewalk | kCrosswalk).
// - DetourCrowd: each lane becomes a band of its width around its centre polyline (two
//   triangles per segment) plus a disc of the lane's width at every polyline joint and end (so
//   that corners and lane-to-lane joins have no wedge-shaped gaps; a lane's ends stick out by
//   half its width). Recast rasterises the bands into a tiled navmesh (cells of --cell m,
//   agents eroded by their radius 0.25 m, height 1.8 m, climb 0.3 m so curbs are walkable).
//   Only the navmesh's largest connected component is used: starts and goals are uniform over
//   its area (polygon by area, then a point in it), so no agent is given an unreachable goal.
// - Ours: crowd::Crowd over the traffic::Network of the same lanes, navigation = goals, LOD off
//   (every agent at full fidelity each tick). The crowd spawns agents by the lanes' pedestrian
//   density and draws its goals itself; the bench cannot hand it DetourCrowd's points, so the
//   two sides have the same count of agents on the same area (same mean density) but not the
//   same individual starts and goals (ours: goal lanes drawn among the sidewalks, a point on
//   the lane; DetourCrowd: uniform over the navmesh area, crosswalks included; both anywhere
//   in the city, so in a 20 s run almost nobody reaches a goal on either side).
// - Path planning is not timed alike: ours plans every agent's whole route at create (timed as
//   `create`, outside upd/s) and again on arrival inside tick. DetourCrowd plans inside update,
//   time-sliced by constants compiled into the library (8 move requests and 100 A* iterations
//   of its path queue per update): each agent first walks the partial corridor of a quick
//   20-iteration search, and with long city-wide paths most agents are still waiting for their
//   full path after 20 s (reported as waiting_for_path_at_end; they do walk meanwhile).
// - Avoidance differs in kind: DetourCrowd samples velocities (66 per agent and step: 7 x 3
//   around the desired one plus 1, refined 3 times) against up to 6 neighbours within 12 radii
//   = 3 m and the navmesh walls of its local boundary; ours is force based (neighbours within
//   avoid_radius_m = 1.5 m, clamped to the lane bands).
// - --window x0,y0,x1,y1 (metres, x east, y north): both sides keep only the pedestrian lanes
//   lying wholly inside the window (lane ids are renumbered, references to dropped lanes
//   removed, vehicle lanes kept for our network's validation); default: the whole city.
//
// DetourCrowd: dtCrowd with max agents = N, the RecastDemo's "High (66)" obstacle avoidance
// preset (velBias 0.5, 7 adaptive divisions, 3 rings, depth 3), separation (weight 2),
// anticipate turns, visibility and topology optimisation, the RecastDemo's other agent
// parameters (acceleration 8 m/s2, collision query range 12 radii, path optimisation range 30
// radii); speeds as ours (1.35 m/s +- 15 %). An agent within --arrive-m of its goal counts a
// goal reached and is given a new random goal. DetourCrowd is single-threaded: its figures are
// one core whatever --threads says. Timed: crowd.update + the arrival checks, per step.
// Ours: Crowd::create (timed separately) then tick() under tbb::global_control(threads);
// updates = stats().updates, goals = stats().goals_reached.
// Random draws: cityforge::Rng (Stage::crowd); same seed, same DetourCrowd run.
#include <DetourCommon.h>
#include <DetourCrowd.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>
#include <Recast.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/crowd/crowd.hpp"
#include "cityforge/traffic/network.hpp"

// From DetourAssert.h, which declares it only without NDEBUG (this file is built with it);
// weak, since a library built with NDEBUG does not have it.
using dtAssertFailFunc = void(const char* expression, const char* file, int line);
__attribute__((weak)) void dtAssertFailSetCustom(dtAssertFailFunc* assertFailFunc);

namespace {

using cityforge::Rng;
using cityforge::Seed;
using cityforge::Stage;
using Clock = std::chrono::steady_clock;

constexpr float kDt = 1.0f / 30.0f;
constexpr float kRadius = 0.25f;  // crowd::Config::radius_m
constexpr float kHeight = 1.8f;
constexpr float kClimb = 0.3f;
constexpr float kSpeed = 1.35f;   // crowd::Config::speed_mps
constexpr float kJitter = 0.15f;  // crowd::Config::speed_jitter

// Debian's librecast is built without NDEBUG, so Detour's assertions are live. One of them,
// dtPathCorridor::setCorridor's `npath < m_maxPath`, is wrong (a merged path of exactly the
// maximum length is valid; removed upstream in recastnavigation PR #619, 2023) and aborts long
// walks. It is counted and ignored; any other failed assertion aborts. (Live assertions also
// cost DetourCrowd a little time; the Debian package is what the issue compares with.)
std::uint64_t g_ignored_asserts = 0;
void detour_assert_failed(const char* expression, const char* file, int line) {
  if (std::string_view(expression) == "npath < m_maxPath") {
    ++g_ignored_asserts;
    return;
  }
  std::fprintf(stderr, "crowd_vs_detour: Detour assertion failed: %s (%s:%d)\n", expression, file,
               line);
  std::abort();
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU seconds of the whole process (all threads): on a shared machine wall time also counts
// other people's work, CPU time does not.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool is_pedestrian(std::uint32_t tags) {
  return (tags & (cityforge::roads::kSidewalk | cityforge::roads::kCrosswalk)) != 0U;
}

// -- Window: keep the pedestrian lanes wholly inside, renumber -----------------------------------

struct Window {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool contains(const cityforge::Vec3& p) const {
    return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1;
  }
};

void restrict_to_window(cityforge::traffic::LanesFile& file, const Window& w) {
  using cityforge::roads::LaneId;
  auto& lanes = file.graph.lanes;
  std::vector<LaneId> remap(lanes.size(), cityforge::roads::kNoLane);
  std::vector<cityforge::roads::Lane> kept;
  for (auto& lane : lanes) {
    const bool keep = !is_pedestrian(lane.tags) ||
                      std::all_of(lane.points.begin(), lane.points.end(),
                                  [&](const cityforge::Vec3& p) { return w.contains(p); });
    if (keep) {
      remap[lane.id] = static_cast<LaneId>(kept.size());
      kept.push_back(std::move(lane));
    }
  }
  auto fix_list = [&](std::vector<LaneId>& ids) {
    std::vector<LaneId> out;
    for (LaneId id : ids) {
      if (id < remap.size() && remap[id] != cityforge::roads::kNoLane) {
        out.push_back(remap[id]);
      }
    }
    std::sort(out.begin(), out.end());
    ids = std::move(out);
  };
  auto fix_one = [&](LaneId& id) {
    if (id != cityforge::roads::kNoLane) {
      id = id < remap.size() ? remap[id] : cityforge::roads::kNoLane;
    }
  };
  for (auto& lane : kept) {
    lane.id = remap[lane.id];
    fix_list(lane.successors);
    fix_list(lane.predecessors);
    fix_one(lane.left_neighbour);
    fix_one(lane.right_neighbour);
  }
  for (auto& plan : file.graph.signals) {
    for (auto& phase : plan.phases) {
      fix_list(phase.green);
      fix_list(phase.walk);
    }
  }
  lanes = std::move(kept);
}

// -- Walkable triangles (Recast space: x east, y up, z south) -----------------------------------

struct Geometry {
  std::vector<float> verts;  // x y z per vertex, Recast space
  std::vector<int> tris;
  std::array<float, 3> bmin{1e30f, 1e30f, 1e30f};
  std::array<float, 3> bmax{-1e30f, -1e30f, -1e30f};
  double band_area_m2 = 0;  // sum of length x width of the lanes (overlaps counted twice)
  std::uint32_t lanes = 0;
};

int add_vertex(Geometry& g, double x, double y, double z) {
  const std::array<float, 3> v{static_cast<float>(x), static_cast<float>(z),
                               static_cast<float>(-y)};
  for (int k = 0; k < 3; ++k) {
    g.bmin[k] = std::min(g.bmin[k], v[k]);
    g.bmax[k] = std::max(g.bmax[k], v[k]);
  }
  g.verts.insert(g.verts.end(), v.begin(), v.end());
  return static_cast<int>(g.verts.size() / 3 - 1);
}

// Adds triangle a b c (city x y z) counter-clockwise seen from above (Recast normal +y).
void add_triangle(Geometry& g, const cityforge::Vec3& a, const cityforge::Vec3& b,
                  const cityforge::Vec3& c) {
  const double cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  if (std::abs(cross) < 1e-9) {
    return;
  }
  const int ia = add_vertex(g, a.x, a.y, a.z);
  const int ib = add_vertex(g, b.x, b.y, b.z);
  const int ic = add_vertex(g, c.x, c.y, c.z);
  if (cross > 0) {
    g.tris.insert(g.tris.end(), {ia, ib, ic});
  } else {
    g.tris.insert(g.tris.end(), {ia, ic, ib});
  }
}

void add_disc(Geometry& g, const cityforge::Vec3& c, double r) {
  constexpr int kSides = 12;
  for (int i = 0; i < kSides; ++i) {
    const double a0 = 2.0 * M_PI * i / kSides;
    const double a1 = 2.0 * M_PI * (i + 1) / kSides;
    add_triangle(g, c, {c.x + r * std::cos(a0), c.y + r * std::sin(a0), c.z},
                 {c.x + r * std::cos(a1), c.y + r * std::sin(a1), c.z});
  }
}

Geometry walkable_geometry(const cityforge::traffic::Network& net) {
  Geometry g;
  for (std::uint32_t lane = 0; lane < net.lane_count(); ++lane) {
    if (!is_pedestrian(net.tags[lane])) {
      continue;
    }
    const double half = 0.5 * net.width_m[lane];
    const std::uint32_t b = net.point_begin[lane];
    const std::uint32_t e = net.point_begin[lane + 1];
    if (e - b < 2 || half <= 0) {
      continue;
    }
    ++g.lanes;
    g.band_area_m2 += 2.0 * half * net.length_m[lane];
    for (std::uint32_t i = b; i + 1 < e; ++i) {
      const cityforge::Vec3 p = net.points[i];
      const cityforge::Vec3 q = net.points[i + 1];
      const double dx = q.x - p.x;
      const double dy = q.y - p.y;
      const double len = std::hypot(dx, dy);
      if (len < 1e-6) {
        continue;
      }
      const double nx = -dy / len * half;
      const double ny = dx / len * half;
      const cityforge::Vec3 pl{p.x + nx, p.y + ny, p.z};
      const cityforge::Vec3 pr{p.x - nx, p.y - ny, p.z};
      const cityforge::Vec3 ql{q.x + nx, q.y + ny, q.z};
      const cityforge::Vec3 qr{q.x - nx, q.y - ny, q.z};
      add_triangle(g, pr, qr, ql);
      add_triangle(g, pr, ql, pl);
    }
    for (std::uint32_t i = b; i < e; ++i) {
      add_disc(g, net.points[i], half);
    }
  }
  return g;
}

// -- Tiled Recast navmesh -------------------------------------------------------------------------

struct NavSettings {
  float cell_m = 0.125f;  // RecastDemo: cell = radius / 2
  float cell_h_m = 0.1f;
  int tile_cells = 256;
};

struct NavMesh {
  dtNavMesh* nav = nullptr;
  int tiles = 0;
  int polys = 0;
  double build_s = 0;
  double area_m2 = 0;  // polygons of the largest connected component
  double total_area_m2 = 0;
  int components = 0;
  // Largest component: polygon refs and their cumulative area (for uniform sampling).
  std::vector<dtPolyRef> refs;
  std::vector<double> cumulative;
  NavMesh() = default;
  NavMesh(const NavMesh&) = delete;
  NavMesh& operator=(const NavMesh&) = delete;
  ~NavMesh() { dtFreeNavMesh(nav); }
};

struct TileData {
  unsigned char* data = nullptr;
  int size = 0;
  int polys = 0;
};

TileData build_tile(const Geometry& g, const std::vector<int>& tile_tris, int tx, int ty,
                    const NavSettings& s) {
  TileData out;
  if (tile_tris.empty()) {
    return out;
  }
  rcContext ctx(false);
  rcConfig cfg{};
  cfg.cs = s.cell_m;
  cfg.ch = s.cell_h_m;
  cfg.walkableSlopeAngle = 45.0f;
  cfg.walkableHeight = static_cast<int>(std::ceil(kHeight / cfg.ch));
  cfg.walkableClimb = static_cast<int>(std::floor(kClimb / cfg.ch));
  cfg.walkableRadius = static_cast<int>(std::ceil(kRadius / cfg.cs));
  cfg.maxEdgeLen = static_cast<int>(12.0f / cfg.cs);
  cfg.maxSimplificationError = 1.3f;
  cfg.minRegionArea = 8 * 8;
  cfg.mergeRegionArea = 20 * 20;
  cfg.maxVertsPerPoly = DT_VERTS_PER_POLYGON;
  cfg.tileSize = s.tile_cells;
  cfg.borderSize = cfg.walkableRadius + 3;
  cfg.width = cfg.tileSize + 2 * cfg.borderSize;
  cfg.height = cfg.tileSize + 2 * cfg.borderSize;
  cfg.detailSampleDist = 6.0f * cfg.cs;
  cfg.detailSampleMaxError = 1.0f * cfg.ch;
  const float tile_m = static_cast<float>(s.tile_cells) * cfg.cs;
  cfg.bmin[0] = g.bmin[0] + static_cast<float>(tx) * tile_m - cfg.borderSize * cfg.cs;
  cfg.bmin[1] = g.bmin[1];
  cfg.bmin[2] = g.bmin[2] + static_cast<float>(ty) * tile_m - cfg.borderSize * cfg.cs;
  cfg.bmax[0] = g.bmin[0] + static_cast<float>(tx + 1) * tile_m + cfg.borderSize * cfg.cs;
  cfg.bmax[1] = g.bmax[1];
  cfg.bmax[2] = g.bmin[2] + static_cast<float>(ty + 1) * tile_m + cfg.borderSize * cfg.cs;

  // 1. Rasterise the tile's triangles, drop spans without head room.
  std::vector<int> tris;
  tris.reserve(tile_tris.size() * 3);
  for (int t : tile_tris) {
    tris.insert(tris.end(), g.tris.begin() + 3 * t, g.tris.begin() + 3 * t + 3);
  }
  const int nt = static_cast<int>(tile_tris.size());
  const int nv = static_cast<int>(g.verts.size() / 3);
  std::vector<unsigned char> areas(tile_tris.size(), 0);
  rcHeightfield* hf = rcAllocHeightfield();
  if (!rcCreateHeightfield(&ctx, *hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)) {
    rcFreeHeightField(hf);
    return out;
  }
  rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, g.verts.data(), nv, tris.data(), nt,
                          areas.data());
  rcRasterizeTriangles(&ctx, g.verts.data(), nv, tris.data(), areas.data(), nt, *hf,
                       cfg.walkableClimb);
  // No ledge filter: the bands float in empty space, so every border cell would count as a
  // ledge and the band would be eroded a second time.
  rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *hf);
  rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *hf);

  // 2. Compact heightfield, erode by the agent radius, regions, contours, polygons.
  rcCompactHeightfield* chf = rcAllocCompactHeightfield();
  const bool chf_ok =
      rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *hf, *chf);
  rcFreeHeightField(hf);
  rcContourSet* cset = rcAllocContourSet();
  rcPolyMesh* pmesh = rcAllocPolyMesh();
  rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
  const bool ok =
      chf_ok && rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf) &&
      rcBuildDistanceField(&ctx, *chf) &&
      rcBuildRegions(&ctx, *chf, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea) &&
      rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset) &&
      cset->nconts > 0 && rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh) &&
      rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist, cfg.detailSampleMaxError,
                            *dmesh) &&
      pmesh->npolys > 0 && pmesh->nverts < 0xffff;

  // 3. Detour tile data; every walkable polygon gets flag 1 (the default filter's include).
  if (ok) {
    std::vector<unsigned short> flags(static_cast<std::size_t>(pmesh->npolys), 0);
    for (int i = 0; i < pmesh->npolys; ++i) {
      flags[i] = pmesh->areas[i] == RC_WALKABLE_AREA ? 1 : 0;
    }
    dtNavMeshCreateParams p{};
    p.verts = pmesh->verts;
    p.vertCount = pmesh->nverts;
    p.polys = pmesh->polys;
    p.polyAreas = pmesh->areas;
    p.polyFlags = flags.data();
    p.polyCount = pmesh->npolys;
    p.nvp = pmesh->nvp;
    p.detailMeshes = dmesh->meshes;
    p.detailVerts = dmesh->verts;
    p.detailVertsCount = dmesh->nverts;
    p.detailTris = dmesh->tris;
    p.detailTriCount = dmesh->ntris;
    p.walkableHeight = kHeight;
    p.walkableRadius = kRadius;
    p.walkableClimb = kClimb;
    p.tileX = tx;
    p.tileY = ty;
    p.tileLayer = 0;
    dtVcopy(p.bmin, pmesh->bmin);
    dtVcopy(p.bmax, pmesh->bmax);
    p.cs = cfg.cs;
    p.ch = cfg.ch;
    p.buildBvTree = true;
    if (dtCreateNavMeshData(&p, &out.data, &out.size)) {
      out.polys = pmesh->npolys;
    }
  }
  rcFreeCompactHeightfield(chf);
  rcFreeContourSet(cset);
  rcFreePolyMesh(pmesh);
  rcFreePolyMeshDetail(dmesh);
  return out;
}

double poly_area(const dtMeshTile* tile, const dtPoly* poly) {
  double area = 0;
  const float* v0 = &tile->verts[poly->verts[0] * 3];
  for (int j = 2; j < poly->vertCount; ++j) {
    area += dtTriArea2D(v0, &tile->verts[poly->verts[j - 1] * 3], &tile->verts[poly->verts[j] * 3]);
  }
  return 0.5 * std::abs(area);  // dtTriArea2D is twice the signed area
}

// Labels the polygons' connected components (links), keeps the largest for sampling.
void find_largest_component(NavMesh& m) {
  const dtNavMesh& nav = *m.nav;
  std::vector<int> base(static_cast<std::size_t>(nav.getMaxTiles()) + 1, 0);
  for (int t = 0; t < nav.getMaxTiles(); ++t) {
    const dtMeshTile* tile = nav.getTile(t);
    base[t + 1] =
        base[t] + ((tile != nullptr && tile->header != nullptr) ? tile->header->polyCount : 0);
  }
  const int total = base.back();
  std::vector<int> comp(static_cast<std::size_t>(total), -1);
  std::vector<double> comp_area;
  std::vector<std::pair<int, int>> stack;  // (tile, poly)
  for (int t = 0; t < nav.getMaxTiles(); ++t) {
    const dtMeshTile* tile = nav.getTile(t);
    if (tile == nullptr || tile->header == nullptr) {
      continue;
    }
    for (int p = 0; p < tile->header->polyCount; ++p) {
      if (comp[base[t] + p] >= 0 || tile->polys[p].flags == 0) {
        continue;
      }
      const int c = static_cast<int>(comp_area.size());
      comp_area.push_back(0);
      comp[base[t] + p] = c;
      stack.emplace_back(t, p);
      while (!stack.empty()) {
        const auto [ti, pi] = stack.back();
        stack.pop_back();
        const dtMeshTile* ct = nav.getTile(ti);
        const dtPoly* poly = &ct->polys[pi];
        comp_area[c] += poly_area(ct, poly);
        for (unsigned int l = poly->firstLink; l != DT_NULL_LINK; l = ct->links[l].next) {
          const dtMeshTile* nt = nullptr;
          const dtPoly* np = nullptr;
          nav.getTileAndPolyByRefUnsafe(ct->links[l].ref, &nt, &np);
          const int nti = static_cast<int>(nt - nav.getTile(0));
          const int npi = static_cast<int>(np - nt->polys);
          if (np->flags != 0 && comp[base[nti] + npi] < 0) {
            comp[base[nti] + npi] = c;
            stack.emplace_back(nti, npi);
          }
        }
      }
    }
  }
  m.components = static_cast<int>(comp_area.size());
  m.total_area_m2 = std::accumulate(comp_area.begin(), comp_area.end(), 0.0);
  if (comp_area.empty()) {
    return;
  }
  const int best =
      static_cast<int>(std::max_element(comp_area.begin(), comp_area.end()) - comp_area.begin());
  m.area_m2 = comp_area[best];
  double acc = 0;
  for (int t = 0; t < nav.getMaxTiles(); ++t) {
    const dtMeshTile* tile = nav.getTile(t);
    if (tile == nullptr || tile->header == nullptr) {
      continue;
    }
    for (int p = 0; p < tile->header->polyCount; ++p) {
      if (comp[base[t] + p] == best) {
        acc += poly_area(tile, &tile->polys[p]);
        m.refs.push_back(nav.getPolyRefBase(tile) | static_cast<dtPolyRef>(p));
        m.cumulative.push_back(acc);
      }
    }
  }
}

int ceil_log2(unsigned int v) {
  int bits = 0;
  while ((1U << bits) < v) {
    ++bits;
  }
  return bits;
}

std::optional<std::string> build_navmesh(const Geometry& g, const NavSettings& s, NavMesh& m) {
  const auto t0 = Clock::now();
  const float tile_m = static_cast<float>(s.tile_cells) * s.cell_m;
  const int tw = static_cast<int>(std::ceil((g.bmax[0] - g.bmin[0]) / tile_m));
  const int th = static_cast<int>(std::ceil((g.bmax[2] - g.bmin[2]) / tile_m));
  // 1. Bin triangles to the tiles their bounds (plus the tile border) touch.
  const float border_m = (std::ceil(kRadius / s.cell_m) + 3.0f) * s.cell_m;
  std::vector<std::vector<int>> bins(static_cast<std::size_t>(tw) * th);
  for (std::size_t t = 0; t < g.tris.size() / 3; ++t) {
    float lo[2] = {1e30f, 1e30f};
    float hi[2] = {-1e30f, -1e30f};
    for (int k = 0; k < 3; ++k) {
      const float* v = &g.verts[3 * g.tris[3 * t + k]];
      lo[0] = std::min(lo[0], v[0]);
      hi[0] = std::max(hi[0], v[0]);
      lo[1] = std::min(lo[1], v[2]);
      hi[1] = std::max(hi[1], v[2]);
    }
    const int x0 = std::max(0, static_cast<int>((lo[0] - border_m - g.bmin[0]) / tile_m));
    const int x1 = std::min(tw - 1, static_cast<int>((hi[0] + border_m - g.bmin[0]) / tile_m));
    const int y0 = std::max(0, static_cast<int>((lo[1] - border_m - g.bmin[2]) / tile_m));
    const int y1 = std::min(th - 1, static_cast<int>((hi[1] + border_m - g.bmin[2]) / tile_m));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        bins[static_cast<std::size_t>(y) * tw + x].push_back(static_cast<int>(t));
      }
    }
  }
  // 2. Build the tiles in parallel.
  std::vector<TileData> tiles(bins.size());
  tbb::parallel_for(std::size_t{0}, bins.size(), [&](std::size_t i) {
    tiles[i] = build_tile(g, bins[i], static_cast<int>(i % tw), static_cast<int>(i / tw), s);
  });
  // 3. Add them to a navmesh sized for the tiles built (32-bit refs: tile + poly bits <= 22).
  int used = 0;
  int max_polys = 1;
  for (const auto& t : tiles) {
    if (t.data != nullptr) {
      ++used;
      max_polys = std::max(max_polys, t.polys);
    }
  }
  const int tile_bits = ceil_log2(static_cast<unsigned>(std::max(used, 1)));
  const int poly_bits = ceil_log2(static_cast<unsigned>(max_polys));
  auto free_all = [&] {
    for (auto& t : tiles) {
      dtFree(t.data);
      t.data = nullptr;
    }
  };
  if (used == 0) {
    free_all();
    return "no navmesh tile built (no walkable lanes?)";
  }
  if (tile_bits + poly_bits > 22) {
    free_all();
    return "navmesh too large for 32-bit polygon refs (" + std::to_string(used) +
           " tiles of up to " + std::to_string(max_polys) +
           " polygons): use a larger --tile or a --window";
  }
  dtNavMeshParams params{};
  dtVcopy(params.orig, g.bmin.data());
  params.tileWidth = tile_m;
  params.tileHeight = tile_m;
  params.maxTiles = 1 << tile_bits;
  params.maxPolys = 1 << poly_bits;
  m.nav = dtAllocNavMesh();
  if (dtStatusFailed(m.nav->init(&params))) {
    free_all();
    return "dtNavMesh::init failed";
  }
  for (auto& t : tiles) {
    if (t.data == nullptr) {
      continue;
    }
    if (dtStatusFailed(m.nav->addTile(t.data, t.size, DT_TILE_FREE_DATA, 0, nullptr))) {
      dtFree(t.data);
    } else {
      ++m.tiles;
      m.polys += t.polys;
    }
    t.data = nullptr;
  }
  find_largest_component(m);
  m.build_s = seconds_since(t0);
  if (m.refs.empty()) {
    return "navmesh has no walkable polygon";
  }
  return std::nullopt;
}

struct NavPoint {
  dtPolyRef ref = 0;
  std::array<float, 3> pos{};
};

// Uniform over the largest component's area: a polygon by area, then a point in it.
NavPoint random_point(const NavMesh& m, const dtNavMeshQuery& query, Rng& rng) {
  const double u = rng.uniform01() * m.cumulative.back();
  const std::size_t i = std::min<std::size_t>(
      static_cast<std::size_t>(std::upper_bound(m.cumulative.begin(), m.cumulative.end(), u) -
                               m.cumulative.begin()),
      m.refs.size() - 1);
  const dtMeshTile* tile = nullptr;
  const dtPoly* poly = nullptr;
  m.nav->getTileAndPolyByRefUnsafe(m.refs[i], &tile, &poly);
  float verts[3 * DT_VERTS_PER_POLYGON];
  float areas[DT_VERTS_PER_POLYGON];
  for (int j = 0; j < poly->vertCount; ++j) {
    dtVcopy(&verts[3 * j], &tile->verts[poly->verts[j] * 3]);
  }
  NavPoint out;
  out.ref = m.refs[i];
  const auto s = static_cast<float>(rng.uniform01());
  const auto t = static_cast<float>(rng.uniform01());
  dtRandomPointInConvexPoly(verts, poly->vertCount, areas, s, t, out.pos.data());
  float h = 0;
  if (dtStatusSucceed(query.getPolyHeight(out.ref, out.pos.data(), &h))) {
    out.pos[1] = h;
  }
  return out;
}

// -- DetourCrowd run
// -------------------------------------------------------------------------------

struct SideResult {
  double setup_s = 0;  // DetourCrowd: adding agents and first move requests; ours: create
  double wall_s = 0;
  double cpu_s = 0;  // process CPU time of the stepping loop
  std::uint64_t steps = 0;
  std::uint64_t updates = 0;
  std::uint64_t goals = 0;
  double mean_speed_mps = 0;           // over agents at the end
  double moving_share = -1;            // DetourCrowd: agent steps at > 0.1 m/s over all agent steps
  std::uint64_t waiting_for_path = 0;  // DetourCrowd: agents without a path at the end
  std::string note;
  double updates_per_s() const { return wall_s > 0 ? static_cast<double>(updates) / wall_s : 0; }
  double updates_per_cpu_s() const { return cpu_s > 0 ? static_cast<double>(updates) / cpu_s : 0; }
  double step_ms() const { return steps > 0 ? 1000.0 * wall_s / static_cast<double>(steps) : 0; }
};

SideResult run_detour(const NavMesh& m, std::uint32_t n, double seconds, Seed seed,
                      float arrive_m) {
  SideResult r;
  const auto t0 = Clock::now();
  dtCrowd* crowd = dtAllocCrowd();
  if (!crowd->init(static_cast<int>(n), kRadius, m.nav)) {
    dtFreeCrowd(crowd);
    r.note = "dtCrowd::init failed";
    return r;
  }
  // RecastDemo's "High (66)" preset, in slot 3 like the demo.
  dtObstacleAvoidanceParams oa = *crowd->getObstacleAvoidanceParams(0);
  oa.velBias = 0.5f;
  oa.adaptiveDivs = 7;
  oa.adaptiveRings = 3;
  oa.adaptiveDepth = 3;
  crowd->setObstacleAvoidanceParams(3, &oa);

  const dtNavMeshQuery& query = *crowd->getNavMeshQuery();
  Rng rng(seed, Stage::crowd, 0xDE70U);
  dtCrowdAgentParams ap{};
  ap.radius = kRadius;
  ap.height = kHeight;
  ap.maxAcceleration = 8.0f;
  ap.collisionQueryRange = kRadius * 12.0f;
  ap.pathOptimizationRange = kRadius * 30.0f;
  ap.separationWeight = 2.0f;
  ap.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO |
                   DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION;
  ap.obstacleAvoidanceType = 3;
  ap.queryFilterType = 0;
  std::vector<NavPoint> goals(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const NavPoint start = random_point(m, query, rng);
    ap.maxSpeed = kSpeed * static_cast<float>(rng.uniform(1.0 - kJitter, 1.0 + kJitter));
    const int idx = crowd->addAgent(start.pos.data(), &ap);
    if (idx < 0) {
      r.note = "addAgent failed at agent " + std::to_string(i);
      dtFreeCrowd(crowd);
      return r;
    }
    goals[idx] = random_point(m, query, rng);
    crowd->requestMoveTarget(idx, goals[idx].ref, goals[idx].pos.data());
  }
  r.setup_s = seconds_since(t0);

  const auto steps = static_cast<std::uint64_t>(std::llround(seconds / kDt));
  const float arrive2 = arrive_m * arrive_m;
  std::uint64_t moving = 0;
  const double c1 = process_cpu_s();
  const auto t1 = Clock::now();
  for (std::uint64_t step = 0; step < steps; ++step) {
    crowd->update(kDt, nullptr);
    for (std::uint32_t i = 0; i < n; ++i) {
      const dtCrowdAgent* ag = crowd->getAgent(static_cast<int>(i));
      if (!ag->active || ag->state != DT_CROWDAGENT_STATE_WALKING) {
        continue;
      }
      moving += dtVlenSqr(ag->vel) > 0.01f ? 1 : 0;
      if (dtVdist2DSqr(ag->npos, goals[i].pos.data()) < arrive2) {
        ++r.goals;
        goals[i] = random_point(m, query, rng);
        crowd->requestMoveTarget(static_cast<int>(i), goals[i].ref, goals[i].pos.data());
      }
    }
  }
  r.wall_s = seconds_since(t1);
  r.cpu_s = process_cpu_s() - c1;
  r.steps = steps;
  r.updates = steps * n;
  r.moving_share =
      static_cast<double>(moving) / static_cast<double>(std::max<std::uint64_t>(1, r.updates));
  double speed = 0;
  std::uint32_t invalid = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const dtCrowdAgent* ag = crowd->getAgent(static_cast<int>(i));
    speed += dtVlen(ag->vel);
    if (ag->targetState != DT_CROWDAGENT_TARGET_VALID) {
      ++r.waiting_for_path;
    }
    if (ag->state != DT_CROWDAGENT_STATE_WALKING) {
      ++invalid;
    }
  }
  r.mean_speed_mps = speed / n;
  if (invalid > 0) {
    r.note = std::to_string(invalid) + " agents not walking (off the navmesh)";
  }
  dtFreeCrowd(crowd);
  return r;
}

// -- Our crowd ------------------------------------------------------------------------------------

SideResult run_ours(const cityforge::traffic::Network& net, std::uint32_t n, double seconds,
                    int threads, Seed seed) {
  SideResult r;
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  namespace crowd = cityforge::crowd;
  crowd::Config config;
  config.dt_s = kDt;
  config.pedestrians = n;
  config.navigation = crowd::Navigation::goals;
  config.lod.enabled = false;
  const auto t0 = Clock::now();
  auto created = crowd::Crowd::create(net, config, seed);
  r.setup_s = seconds_since(t0);
  if (!created.ok()) {
    r.note = "Crowd::create: " + created.error().to_string();
    return r;
  }
  crowd::Crowd& c = *created.value();
  const auto steps = static_cast<std::uint64_t>(std::llround(seconds / kDt));
  const std::uint64_t updates0 = c.stats().updates;
  const std::uint64_t goals0 = c.stats().goals_reached;
  const double c1 = process_cpu_s();
  const auto t1 = Clock::now();
  for (std::uint64_t step = 0; step < steps; ++step) {
    c.tick();
  }
  r.wall_s = seconds_since(t1);
  r.cpu_s = process_cpu_s() - c1;
  r.steps = steps;
  r.updates = c.stats().updates - updates0;
  r.goals = c.stats().goals_reached - goals0;
  double speed = 0;
  const auto views = c.views();
  for (const auto& v : views) {
    speed += v.speed_mps;
  }
  r.mean_speed_mps = views.empty() ? 0 : speed / static_cast<double>(views.size());
  if (c.size() != n) {
    r.note = "crowd has " + std::to_string(c.size()) + " pedestrians, asked " + std::to_string(n);
  }
  const auto& per_lod = c.stats().per_lod;
  if (per_lod[0] != c.size()) {
    r.note += (r.note.empty() ? "" : "; ") + std::to_string(c.size() - per_lod[0]) +
              " pedestrians not at high LOD";
  }
  return r;
}

std::vector<std::uint32_t> parse_counts(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    out.push_back(static_cast<std::uint32_t>(std::stoul(item)));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"crowd_vs_detour: our crowd side by side with Recast / DetourCrowd"};
  std::string lanes_path;
  std::string agents_text = "1000,5000,20000";
  std::string threads_text = "2";
  std::string window_text;
  std::string json_path;
  double seconds = 20.0;
  Seed seed = 1;
  float arrive_m = 1.0f;
  bool only_detour = false;
  bool only_ours = false;
  NavSettings nav_settings;
  app.add_option("lanes", lanes_path, "lanes.json of a generated city")->required();
  app.add_option("--agents", agents_text, "agent counts, comma separated");
  app.add_option("--seconds", seconds, "simulated seconds per run")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads_text,
                 "thread counts for our crowd, comma separated (DetourCrowd is single-threaded)");
  app.add_option("--window", window_text, "x0,y0,x1,y1: keep pedestrian lanes inside (metres)");
  app.add_option("--seed", seed, "seed of both sides");
  app.add_option("--arrive-m", arrive_m, "DetourCrowd: goal reached within this distance");
  app.add_option("--cell", nav_settings.cell_m, "Recast cell size (m)");
  app.add_option("--tile", nav_settings.tile_cells, "Recast tile size (cells)");
  app.add_option("--json", json_path, "write the results here");
  app.add_flag("--only-detour", only_detour, "skip our crowd");
  app.add_flag("--only-ours", only_ours, "skip DetourCrowd");
  CLI11_PARSE(app, argc, argv);
  if (dtAssertFailSetCustom != nullptr) {
    dtAssertFailSetCustom(detour_assert_failed);
  }
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> threads;
  try {
    counts = parse_counts(agents_text);
    threads = parse_counts(threads_text);
  } catch (const std::exception&) {
    std::fprintf(stderr,
                 "crowd_vs_detour: --agents / --threads: expected numbers like 1000,5000\n");
    return 2;
  }

  // 1. The lanes, the network (ours) and the walkable triangles (DetourCrowd).
  auto loaded = cityforge::traffic::load_lanes_json(lanes_path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "crowd_vs_detour: %s\n", loaded.error().to_string().c_str());
    return 1;
  }
  nlohmann::json out;
  out["lanes"] = lanes_path;
  if (!window_text.empty()) {
    std::vector<double> w;
    std::stringstream ss(window_text);
    std::string item;
    while (std::getline(ss, item, ',')) {
      w.push_back(std::stod(item));
    }
    if (w.size() != 4 || w[0] >= w[2] || w[1] >= w[3]) {
      std::fprintf(stderr, "crowd_vs_detour: --window: expected x0,y0,x1,y1 with x0<x1, y0<y1\n");
      return 2;
    }
    restrict_to_window(loaded.value(), Window{w[0], w[1], w[2], w[3]});
    out["window"] = w;
  }
  auto built = cityforge::traffic::build_network(loaded->graph, loaded->controls);
  if (!built.ok()) {
    std::fprintf(stderr, "crowd_vs_detour: %s\n", built.error().to_string().c_str());
    return 1;
  }
  const cityforge::traffic::Network& net = built.value();
  const std::uint32_t max_threads = *std::max_element(threads.begin(), threads.end());

  NavMesh navmesh;
  Geometry geometry;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, max_threads);
    geometry = walkable_geometry(net);
    if (!only_ours) {
      if (auto err = build_navmesh(geometry, nav_settings, navmesh)) {
        std::fprintf(stderr, "crowd_vs_detour: %s\n", err->c_str());
        return 1;
      }
    }
  }
  std::printf("walkable: %u pedestrian lanes, %.0f m2 of bands (length x width)\n", geometry.lanes,
              geometry.band_area_m2);
  out["pedestrian_lanes"] = geometry.lanes;
  out["band_area_m2"] = geometry.band_area_m2;
  if (!only_ours) {
    std::printf(
        "navmesh: %d tiles, %d polygons, %d components, %.0f m2 (largest %.0f m2, agents use it), "
        "cell %.3f m, built in %.2f s with %u threads\n",
        navmesh.tiles, navmesh.polys, navmesh.components, navmesh.total_area_m2, navmesh.area_m2,
        static_cast<double>(nav_settings.cell_m), navmesh.build_s, max_threads);
    out["navmesh"] = {{"tiles", navmesh.tiles},
                      {"polygons", navmesh.polys},
                      {"components", navmesh.components},
                      {"area_m2", navmesh.total_area_m2},
                      {"largest_component_m2", navmesh.area_m2},
                      {"cell_m", nav_settings.cell_m},
                      {"tile_cells", nav_settings.tile_cells},
                      {"build_s", navmesh.build_s},
                      {"build_threads", max_threads}};
  }
  std::fflush(stdout);

  // 2. The runs.
  struct Row {
    std::uint32_t agents = 0;
    std::optional<SideResult> detour;
    std::vector<std::pair<std::uint32_t, SideResult>> ours;
  };
  std::vector<Row> rows;
  for (std::uint32_t n : counts) {
    Row row;
    row.agents = n;
    if (!only_ours) {
      std::fprintf(stderr, "detour: %u agents...\n", n);
      row.detour = run_detour(navmesh, n, seconds, seed, arrive_m);
      std::fprintf(stderr,
                   "  %.0f updates/s, %.3f ms/step, %llu goals, %.0f %% of agent steps moving, "
                   "%llu agents waiting for a path at the end, mean speed %.2f m/s %s\n",
                   row.detour->updates_per_s(), row.detour->step_ms(),
                   static_cast<unsigned long long>(row.detour->goals),
                   100.0 * row.detour->moving_share,
                   static_cast<unsigned long long>(row.detour->waiting_for_path),
                   row.detour->mean_speed_mps, row.detour->note.c_str());
    }
    if (!only_detour) {
      for (std::uint32_t t : threads) {
        std::fprintf(stderr, "ours: %u agents, %u threads...\n", n, t);
        SideResult r = run_ours(net, n, seconds, static_cast<int>(t), seed);
        std::fprintf(stderr, "  %.0f updates/s, %.3f ms/step, %llu goals, mean speed %.2f m/s %s\n",
                     r.updates_per_s(), r.step_ms(), static_cast<unsigned long long>(r.goals),
                     r.mean_speed_mps, r.note.c_str());
        row.ours.emplace_back(t, r);
      }
    }
    rows.push_back(std::move(row));
  }

  // 3. Table and JSON.
  std::printf(
      "\n%.0f s simulated at 1/30 s steps. upd/s: agent updates per wall second; upd/cpu-s: per "
      "CPU second of the process (all threads; robust when the machine is shared). DetourCrowd "
      "runs on 1 thread (it has no parallel update).\n",
      seconds);
  std::printf("%7s %8s | %11s %11s %8s %6s | %3s %11s %11s %8s %6s %7s | %7s %7s\n", "agents",
              "per m2", "detour upd/s", "upd/cpu-s", "ms/step", "goals", "thr", "ours upd/s",
              "upd/cpu-s", "ms/step", "goals", "create", "ratio", "cpu rat");
  auto side_json = [](const SideResult& r) {
    return nlohmann::json{{"setup_s", r.setup_s},
                          {"wall_s", r.wall_s},
                          {"cpu_s", r.cpu_s},
                          {"updates_per_cpu_s", r.updates_per_cpu_s()},
                          {"steps", r.steps},
                          {"updates", r.updates},
                          {"updates_per_s", r.updates_per_s()},
                          {"step_ms", r.step_ms()},
                          {"goals_reached", r.goals},
                          {"mean_speed_mps", r.mean_speed_mps},
                          {"note", r.note}};
  };
  auto detour_json = [&](const SideResult& r) {
    nlohmann::json j = side_json(r);
    j["moving_share"] = r.moving_share;
    j["waiting_for_path_at_end"] = r.waiting_for_path;
    return j;
  };
  nlohmann::json jrows = nlohmann::json::array();
  const double area = navmesh.area_m2 > 0 ? navmesh.area_m2 : geometry.band_area_m2;
  for (const auto& row : rows) {
    nlohmann::json jr{{"agents", row.agents}, {"agents_per_m2", row.agents / area}};
    const double dt_ups = row.detour ? row.detour->updates_per_s() : 0;
    if (row.detour) {
      jr["detour"] = detour_json(*row.detour);
    }
    nlohmann::json jo = nlohmann::json::array();
    const std::size_t lines = std::max<std::size_t>(1, row.ours.size());
    for (std::size_t k = 0; k < lines; ++k) {
      std::printf("%7u %8.4f |", row.agents, row.agents / area);
      if (k == 0 && row.detour) {
        std::printf(" %11.0f %11.0f %8.2f %6llu |", dt_ups, row.detour->updates_per_cpu_s(),
                    row.detour->step_ms(), static_cast<unsigned long long>(row.detour->goals));
      } else {
        std::printf(" %11s %11s %8s %6s |", "-", "-", "-", "-");
      }
      if (k < row.ours.size()) {
        const auto& [t, r] = row.ours[k];
        const double ratio = dt_ups > 0 ? r.updates_per_s() / dt_ups : 0;
        const double cpu_ratio = row.detour && row.detour->updates_per_cpu_s() > 0
                                     ? r.updates_per_cpu_s() / row.detour->updates_per_cpu_s()
                                     : 0;
        std::printf(" %3u %11.0f %11.0f %8.2f %6llu %6.2fs | %6.1fx %6.1fx\n", t, r.updates_per_s(),
                    r.updates_per_cpu_s(), r.step_ms(), static_cast<unsigned long long>(r.goals),
                    r.setup_s, ratio, cpu_ratio);
        nlohmann::json j = side_json(r);
        j["threads"] = t;
        if (dt_ups > 0) {
          j["ratio_to_detour"] = ratio;
          j["cpu_ratio_to_detour"] = cpu_ratio;
        }
        jo.push_back(j);
      } else {
        std::printf(" %3s %11s %11s %8s %6s %7s | %7s %7s\n", "-", "-", "-", "-", "-", "-", "-",
                    "-");
      }
    }
    jr["ours"] = jo;
    jrows.push_back(jr);
  }
  out["seconds"] = seconds;
  out["dt_s"] = kDt;
  out["seed"] = seed;
  out["rows"] = jrows;
  out["detour_ignored_asserts"] = g_ignored_asserts;
  if (g_ignored_asserts > 0) {
    std::printf("(Detour's invalid `npath < m_maxPath` assertion failed %llu times, ignored)\n",
                static_cast<unsigned long long>(g_ignored_asserts));
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path + ".tmp");
    f << out.dump(2) << "\n";
    f.close();
    if (!f || std::rename((json_path + ".tmp").c_str(), json_path.c_str()) != 0) {
      std::fprintf(stderr, "crowd_vs_detour: cannot write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
