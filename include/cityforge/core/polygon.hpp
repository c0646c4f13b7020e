// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge {

/// A closed ring; the closing point is implicit (first != last).
using Ring = std::vector<Vec2>;

/// A polygon with holes. Canonical orientation: outer counter-clockwise, holes clockwise.
struct Polygon {
  Ring outer;
  std::vector<Ring> holes;
};

/// Signed area in m2: positive for counter-clockwise rings.
double ring_signed_area(const Ring& ring);
/// Area of the outer ring minus the holes (>= 0 for a canonical polygon).
double polygon_area(const Polygon& poly);
/// Perimeter of all rings in metres.
double polygon_perimeter(const Polygon& poly);
/// Area-weighted centroid of the outer ring.
Vec2 ring_centroid(const Ring& ring);
Aabb2 ring_bounds(const Ring& ring);

/// Even-odd point containment (points on the boundary may go either way).
bool ring_contains(const Ring& ring, Vec2 p);
/// Inside the outer ring and outside every hole.
bool polygon_contains(const Polygon& poly, Vec2 p);

/// Outer counter-clockwise, holes clockwise; removes consecutive duplicate points (and a
/// closing point equal to the first). Holes left with fewer than 3 points are dropped.
Polygon polygon_canonical(Polygon poly);

/// A self-intersection found in a ring: the indices of the two edges (edge i goes from point i
/// to point i+1, wrapping) and where they meet.
struct RingDefect {
  std::size_t edge_a = 0;
  std::size_t edge_b = 0;
  Vec2 at;
};
/// Checks that a ring is simple: >= 3 distinct points, non-zero area, no two non-adjacent edges
/// touching or crossing, no two adjacent edges folding back onto each other. Returns the first
/// defect found (lowest edge_a, then edge_b), or an empty vector. Zero-length edges (repeated
/// points) are skipped, so their neighbours count as adjacent. Encoding: fewer than 3 distinct
/// points gives {0, 0, first point}; a fold back gives the two edges and their shared point; a
/// zero-area ring without either gives its first two edges. The message of a user-facing error
/// is built from it by the caller.
std::vector<RingDefect> ring_self_intersections(const Ring& ring);

/// Bounds of a ring in the frame rotated by `angle_rad`: min/max.x along the direction
/// (cos, sin), min/max.y across it.
Aabb2 ring_bounds_rotated(const Ring& ring, double angle_rad);

/// The convex hull of points (Andrew's monotone chain), counter-clockwise, without collinear
/// points; fewer than 3 points are returned sorted as they are.
Ring convex_hull(std::vector<Vec2> pts);

/// Drops the vertices that add nothing to a ring, until none is left: a point within `eps_m` of
/// its predecessor, a spike (its two neighbours within `eps_m` of each other: a point's return
/// trip, as boolean results leave where a buffer ends on an edge), and a point within
/// `collinear_m` of the line through its neighbours (collinear points and zero-width turnbacks).
/// Keeps the ring's orientation; may return fewer than 3 points for a degenerate ring.
Ring ring_remove_degenerate(Ring ring, double eps_m = 1e-3, double collinear_m = 1e-3);

/// Whether a polygon is valid in the OGC sense (simple rings, holes inside the outer ring, no
/// overlapping holes). On failure, `reason` says why and where (from GEOS).
bool polygon_is_valid(const Polygon& poly, std::string* reason = nullptr);

// ---- Boolean operations and buffers (backed by GEOS; thread-safe; deterministic for the same
// ---- input order). Results are canonical polygons sorted by (min x, min y, area), then by
// ---- their points. Invalid inputs are repaired first (GEOSMakeValid); inputs that cannot be
// ---- converted (rings with < 3 points, non-finite values) or a GEOS failure give an empty result.

/// Union of all polygons.
std::vector<Polygon> polygon_union(const std::vector<Polygon>& polys);
/// a minus the union of bs.
std::vector<Polygon> polygon_difference(const Polygon& a, const std::vector<Polygon>& bs);
/// a intersect b.
std::vector<Polygon> polygon_intersection(const Polygon& a, const Polygon& b);
/// polygon_intersection(a, b) for every a in `as`, in order (the same results), with b made
/// valid once: for many small polygons against one large one (a block of hundreds of holes).
std::vector<std::vector<Polygon>> polygon_intersections(const std::vector<Polygon>& as,
                                                        const Polygon& b);
/// Offsets the polygon: distance_m < 0 insets (shrinks), > 0 grows. Mitred joins, mitre limited
/// to 4x the distance. An inset may split the polygon or make it vanish (empty result).
std::vector<Polygon> polygon_offset(const Polygon& poly, double distance_m);
/// The area within half_width_m of an open polyline, with flat (butt) ends and mitred joins.
std::vector<Polygon> polyline_buffer(const Polyline& line, double half_width_m);
/// The parts of the polyline inside the polygon, in order along the line. Pieces running along
/// the boundary may go either way. Not GEOS-backed; O(line points x polygon points).
std::vector<Polyline> clip_polyline(const Polyline& line, const Polygon& poly);

/// A triangulation in the plane: indices into `points`, counter-clockwise triangles.
struct Triangulation {
  std::vector<Vec2> points;
  std::vector<std::uint32_t> indices;
};
/// Triangulates a polygon with holes (constrained Delaunay, so triangles are well shaped).
/// Every triangle lies inside the polygon; the areas sum to polygon_area.
Triangulation triangulate(const Polygon& poly);

}  // namespace cityforge
