// SPDX-License-Identifier: Apache-2.0
// Entrances (seeds/000, 30:36-30:58): every building with street frontage gets a door on a
// ground-floor street facade, and every door gets an exclusion box for street furniture.

#include <algorithm>
#include <cmath>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
namespace {

constexpr double kFrontageReachM = 1.0;  // Facade midpoint this close to a frontage edge.

struct Segment {
  Vec2 a;
  Vec2 b;
};

Vec2 closest_on(const Segment& s, Vec2 p) {
  const Vec2 d = s.b - s.a;
  const double l2 = dot(d, d);
  const double t = l2 > 0.0 ? std::clamp(dot(p - s.a, d) / l2, 0.0, 1.0) : 0.0;
  return s.a + d * t;
}

}  // namespace

void place_entrances(BuildingWork& work, const lots::Parcel& parcel, const Config& config) {
  const Style& style = *work.style;
  // 1. The parcel's frontage edges.
  std::vector<Segment> frontage;
  const Ring& pr = parcel.area.outer;
  for (std::size_t i = 0; i < pr.size() && i < parcel.frontage.size(); ++i) {
    if (parcel.frontage[i] != 0) {
      frontage.push_back({pr[i], pr[(i + 1) % pr.size()]});
    }
  }
  work.building.faces_street = !frontage.empty();

  // Ground-floor facades of the base's outer ring, by edge.
  std::vector<std::uint32_t> ground;
  for (std::size_t i = 0; i < work.facades.size(); ++i) {
    const Facade& f = work.facades[i];
    if (work.floors[f.floor].index == 0 && f.ring == 0) {
      ground.push_back(static_cast<std::uint32_t>(i));
    }
  }
  auto has_free_module = [&](const Facade& f) {
    for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
      if (!work.placed[k].corner && !work.placed[k].removed) {
        return true;
      }
    }
    return false;
  };

  std::vector<std::uint32_t> street;
  if (!frontage.empty() && !ground.empty()) {
    // 2. Street facades: near a frontage edge and facing the same way.
    for (std::uint32_t gi : ground) {
      const Facade& f = work.facades[gi];
      const Vec2 mid = f.a + f.dir * (0.5 * f.length_m);
      for (const Segment& s : frontage) {
        const Vec2 sd = normalize(s.b - s.a);
        const Vec2 sn{sd.y, -sd.x};
        if (dot(sn, f.normal) > 0.7 && distance(closest_on(s, mid), mid) <= kFrontageReachM) {
          street.push_back(gi);
          break;
        }
      }
    }
    // 3. Set back from the street: the facade facing the nearest frontage edge most.
    if (street.empty()) {
      const Vec2 c = ring_centroid(work.building.volumes.front().footprint.outer);
      std::size_t nearest = 0;
      double best_d = 1e300;
      for (std::size_t i = 0; i < frontage.size(); ++i) {
        const double d = distance(closest_on(frontage[i], c), c);
        if (d < best_d) {
          best_d = d;
          nearest = i;
        }
      }
      double best = -2.0;
      std::int32_t pick = -1;
      for (std::uint32_t gi : ground) {
        const Facade& f = work.facades[gi];
        if (!has_free_module(f)) {
          continue;
        }
        const Vec2 mid = f.a + f.dir * (0.5 * f.length_m);
        const double score = dot(f.normal, normalize(closest_on(frontage[nearest], mid) - mid));
        if (score > best + 1e-9) {
          best = score;
          pick = static_cast<std::int32_t>(gi);
        }
      }
      if (pick >= 0) {
        street.push_back(static_cast<std::uint32_t>(pick));
      }
    }
    // 4. No door on any street facade yet: force the style's entrance on the longest one.
    bool has_door = false;
    for (std::uint32_t gi : street) {
      const Facade& f = work.facades[gi];
      for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
        const Placed& p = work.placed[k];
        if (!p.removed && (style.modules[p.module].tags & kTagEntrance) != 0U) {
          has_door = true;
        }
      }
    }
    if (!has_door && style.entrance >= 0 &&
        static_cast<std::size_t>(style.entrance) < style.modules.size()) {
      std::int32_t pick = -1;
      for (std::uint32_t gi : street) {
        const Facade& f = work.facades[gi];
        if (has_free_module(f) &&
            (pick < 0 ||
             f.length_m > work.facades[static_cast<std::size_t>(pick)].length_m + 1e-9)) {
          pick = static_cast<std::int32_t>(gi);
        }
      }
      if (pick >= 0) {
        const Facade& f = work.facades[static_cast<std::size_t>(pick)];
        const double mid = 0.5 * f.length_m;
        std::int32_t best = -1;
        double best_d = 1e300;
        for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
          const Placed& p = work.placed[k];
          if (p.corner || p.removed) {
            continue;
          }
          const double d = std::abs(0.5 * (p.t0 + p.t1) - mid);
          if (d < best_d - 1e-9) {
            best_d = d;
            best = static_cast<std::int32_t>(k);
          }
        }
        if (best >= 0) {
          work.placed[static_cast<std::size_t>(best)].module =
              static_cast<std::uint32_t>(style.entrance);
        }
      }
    }
  }

  // 5. An entrance record with its exclusion box for every door on a street facade (every
  //    ground-floor door when the building has none): street furniture keeps out of them.
  for (std::uint32_t gi : street.empty() ? ground : street) {
    const Facade& f = work.facades[gi];
    for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
      const Placed& p = work.placed[k];
      if (p.removed || (style.modules[p.module].tags & kTagEntrance) == 0U) {
        continue;
      }
      const double w = p.t1 - p.t0;
      const Vec2 centre = f.a + f.dir * (0.5 * (p.t0 + p.t1));
      const Vec2 box = centre + f.normal * (0.5 * config.entrance_depth_m);
      Entrance e;
      e.building = work.building.id;
      e.position = {static_cast<float>(centre.x), static_cast<float>(centre.y),
                    static_cast<float>(f.z0_m)};
      e.yaw_rad = static_cast<float>(facade_yaw(f.dir));
      e.exclusion_centre = {static_cast<float>(box.x), static_cast<float>(box.y),
                            static_cast<float>(f.z0_m + 1.5)};
      e.exclusion_half = {static_cast<float>(0.5 * (w + 1.0)),
                          static_cast<float>(0.5 * config.entrance_depth_m), 1.5F};
      work.entrances.push_back(e);
    }
  }
}

}  // namespace cityforge::buildings::detail
