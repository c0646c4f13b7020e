// SPDX-License-Identifier: Apache-2.0
// Polyline measures and edits: arc-length queries, resampling, mitred offsets,
// Douglas-Peucker simplification and Chaikin smoothing, plus segment predicates.
// Based on: D. Douglas & T. Peucker, Algorithms for the reduction of the number of points
// required to represent a digitized line or its caricature, 1973; G. Chaikin, An algorithm for
// high speed curve generation, 1974.
#include "cityforge/core/polyline.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace cityforge {
namespace {

/// Mitre length limit as a multiple of the offset distance.
constexpr double kOffsetMitreLimit = 4.0;

/// Index of the segment containing arc length s and the arc length at its start. Skips
/// zero-length segments. Requires >= 2 points.
std::pair<std::size_t, double> locate(const Polyline& line, double s) {
  double start = 0.0;
  std::size_t last_nonzero = 0;
  bool found_nonzero = false;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const double seg = distance(line[i], line[i + 1]);
    if (seg <= 0.0) {
      continue;
    }
    last_nonzero = i;
    found_nonzero = true;
    if (s <= start + seg) {
      return {i, start};
    }
    start += seg;
  }
  if (!found_nonzero) {
    return {0, 0.0};
  }
  return {last_nonzero, start - distance(line[last_nonzero], line[last_nonzero + 1])};
}

}  // namespace

double polyline_length(const Polyline& line) {
  double total = 0.0;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    total += distance(line[i], line[i + 1]);
  }
  return total;
}

Vec2 polyline_point_at(const Polyline& line, double s) {
  if (line.empty()) {
    return {};
  }
  if (line.size() == 1 || !(s > 0.0)) {
    return line.front();
  }
  const auto [i, start] = locate(line, s);
  const double seg = distance(line[i], line[i + 1]);
  if (seg <= 0.0) {
    return line.front();
  }
  const double t = std::clamp((s - start) / seg, 0.0, 1.0);
  if (t >= 1.0) {
    return line[i + 1];
  }
  return lerp(line[i], line[i + 1], t);
}

Vec2 polyline_tangent_at(const Polyline& line, double s) {
  if (line.size() < 2) {
    return {};
  }
  const auto [i, start] = locate(line, s);
  (void)start;
  return normalize(line[i + 1] - line[i]);
}

Polyline polyline_dedupe(const Polyline& line, double eps_m) {
  Polyline out;
  out.reserve(line.size());
  for (const Vec2& p : line) {
    if (!out.empty() && (p == out.back() || distance(p, out.back()) < eps_m)) {
      continue;
    }
    out.push_back(p);
  }
  return out;
}

Polyline polyline_resample(const Polyline& line, double spacing_m) {
  Polyline src = polyline_dedupe(line);
  if (src.size() < 2 || !(spacing_m > 0.0) || !std::isfinite(spacing_m)) {
    return src;
  }
  const double total = polyline_length(src);
  const auto count = static_cast<std::size_t>(std::ceil(total / spacing_m));
  const std::size_t segments = std::max<std::size_t>(count, 1);
  const double step = total / static_cast<double>(segments);

  // Walk the source once, emitting the points at k * step in order.
  Polyline out;
  out.reserve(segments + 1);
  out.push_back(src.front());
  std::size_t i = 0;
  double seg_start = 0.0;
  double seg_len = distance(src[0], src[1]);
  for (std::size_t k = 1; k < segments; ++k) {
    const double s = step * static_cast<double>(k);
    while (i + 2 < src.size() && s > seg_start + seg_len) {
      seg_start += seg_len;
      ++i;
      seg_len = distance(src[i], src[i + 1]);
    }
    const double t = std::clamp((s - seg_start) / seg_len, 0.0, 1.0);
    out.push_back(lerp(src[i], src[i + 1], t));
  }
  out.push_back(src.back());
  return out;
}

Polyline polyline_offset(const Polyline& line, double distance_m) {
  Polyline src = polyline_dedupe(line);
  const std::size_t n = src.size();
  if (n < 2) {
    return src;
  }
  Polyline out(n);
  out[0] = src[0] + perp(normalize(src[1] - src[0])) * distance_m;
  out[n - 1] = src[n - 1] + perp(normalize(src[n - 1] - src[n - 2])) * distance_m;
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const Vec2 n0 = perp(normalize(src[i] - src[i - 1]));
    const Vec2 n1 = perp(normalize(src[i + 1] - src[i]));
    const Vec2 sum = n0 + n1;
    if (length(sum) < 1e-12) {
      // A full reversal has no mitre; stay beside the turning point.
      out[i] = src[i] + n0 * distance_m;
      continue;
    }
    const Vec2 bisector = normalize(sum);
    const double scale = std::min(1.0 / dot(bisector, n0), kOffsetMitreLimit);
    out[i] = src[i] + bisector * (distance_m * scale);
  }
  return out;
}

Polyline polyline_simplify(const Polyline& line, double tolerance_m) {
  Polyline src = polyline_dedupe(line);
  if (src.size() <= 2) {
    return src;
  }
  std::vector<char> keep(src.size(), 0);
  keep.front() = 1;
  keep.back() = 1;
  // An explicit stack instead of recursion: long lines cannot overflow the call stack.
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, src.size() - 1}};
  while (!stack.empty()) {
    const auto [first, last] = stack.back();
    stack.pop_back();
    double worst = -1.0;
    std::size_t worst_i = first;
    for (std::size_t i = first + 1; i < last; ++i) {
      const double d = segment_distance(src[first], src[last], src[i]);
      if (d > worst) {
        worst = d;
        worst_i = i;
      }
    }
    if (worst > tolerance_m && worst_i != first) {
      keep[worst_i] = 1;
      stack.emplace_back(first, worst_i);
      stack.emplace_back(worst_i, last);
    }
  }
  Polyline out;
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (keep[i] != 0) {
      out.push_back(src[i]);
    }
  }
  return out;
}

Polyline polyline_smooth(const Polyline& line, int iterations) {
  Polyline cur = polyline_dedupe(line);
  for (int it = 0; it < iterations && cur.size() > 2; ++it) {
    Polyline next;
    next.reserve(cur.size() * 2);
    next.push_back(cur.front());
    const std::size_t last_seg = cur.size() - 2;
    for (std::size_t i = 0; i + 1 < cur.size(); ++i) {
      const Vec2 a = cur[i];
      const Vec2 b = cur[i + 1];
      // The end segments keep their end points instead of cutting them.
      if (i != 0) {
        next.push_back(a * 0.75 + b * 0.25);
      }
      if (i != last_seg) {
        next.push_back(a * 0.25 + b * 0.75);
      }
    }
    next.push_back(cur.back());
    cur = std::move(next);
  }
  return cur;
}

double segment_distance(Vec2 a, Vec2 b, Vec2 p) {
  const Vec2 ab = b - a;
  const double len2 = dot(ab, ab);
  if (len2 <= 0.0) {
    return distance(a, p);
  }
  const double t = std::clamp(dot(p - a, ab) / len2, 0.0, 1.0);
  return distance(a + ab * t, p);
}

double polyline_distance(const Polyline& line, Vec2 p) {
  if (line.empty()) {
    return std::numeric_limits<double>::infinity();
  }
  if (line.size() == 1) {
    return distance(line[0], p);
  }
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    best = std::min(best, segment_distance(line[i], line[i + 1], p));
  }
  return best;
}

namespace {

/// Whether p, known to be collinear with segment ab, lies within its bounding box.
bool within_box(Vec2 a, Vec2 b, Vec2 p) {
  return p.x >= std::min(a.x, b.x) && p.x <= std::max(a.x, b.x) && p.y >= std::min(a.y, b.y) &&
         p.y <= std::max(a.y, b.y);
}

int orientation_sign(double v) { return (v > 0.0) - (v < 0.0); }

}  // namespace

bool segment_intersection(Vec2 a, Vec2 b, Vec2 c, Vec2 d, Vec2* out) {
  // 1. Boxes must overlap.
  if (std::max(a.x, b.x) < std::min(c.x, d.x) || std::max(c.x, d.x) < std::min(a.x, b.x) ||
      std::max(a.y, b.y) < std::min(c.y, d.y) || std::max(c.y, d.y) < std::min(a.y, b.y)) {
    return false;
  }
  Vec2 dummy;
  Vec2& res = out != nullptr ? *out : dummy;

  // 2. Degenerate segments are points.
  if (a == b || c == d) {
    if (a == b && c == d) {
      res = a;
      return a == c;
    }
    const Vec2 p = a == b ? a : c;
    const Vec2 s0 = a == b ? c : a;
    const Vec2 s1 = a == b ? d : b;
    if (cross(s1 - s0, p - s0) == 0.0 && within_box(s0, s1, p)) {
      res = p;
      return true;
    }
    return false;
  }

  // 3. Orientation of each end point against the other segment.
  const int o1 = orientation_sign(cross(b - a, c - a));
  const int o2 = orientation_sign(cross(b - a, d - a));
  const int o3 = orientation_sign(cross(d - c, a - c));
  const int o4 = orientation_sign(cross(d - c, b - c));
  if ((o1 * o2 > 0) || (o3 * o4 > 0)) {
    return false;
  }

  // 4. Collinear: overlap of the parameter intervals along ab.
  if ((o1 == 0 && o2 == 0) || (o3 == 0 && o4 == 0)) {
    const Vec2 ab = b - a;
    const double len2 = dot(ab, ab);
    const double tc = dot(c - a, ab) / len2;
    const double td = dot(d - a, ab) / len2;
    const double lo = std::max(0.0, std::min(tc, td));
    const double hi = std::min(1.0, std::max(tc, td));
    if (lo > hi) {
      return false;
    }
    if (lo <= 0.0) {
      res = a;
    } else {
      res = tc < td ? c : d;
    }
    return true;
  }

  // 5. Touching at an end point: report that exact point.
  if (o1 == 0) {
    res = c;
  } else if (o2 == 0) {
    res = d;
  } else if (o3 == 0) {
    res = a;
  } else if (o4 == 0) {
    res = b;
  } else {
    const double s3 = cross(d - c, a - c);
    const double s4 = cross(d - c, b - c);
    const double t = std::clamp(s3 / (s3 - s4), 0.0, 1.0);
    res = lerp(a, b, t);
  }
  return true;
}

}  // namespace cityforge
