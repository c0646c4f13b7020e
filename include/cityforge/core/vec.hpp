// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>

namespace cityforge {

/// A 2D point or vector in metres (x east, y north). Double precision: a city spans kilometres
/// and geometry predicates need headroom.
struct Vec2 {
  double x = 0.0;
  double y = 0.0;

  constexpr Vec2& operator+=(Vec2 o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr Vec2& operator-=(Vec2 o) {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr Vec2& operator*=(double s) {
    x *= s;
    y *= s;
    return *this;
  }
  friend constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
  friend constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
  friend constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
  friend constexpr Vec2 operator*(Vec2 a, double s) { return {a.x * s, a.y * s}; }
  friend constexpr Vec2 operator*(double s, Vec2 a) { return {a.x * s, a.y * s}; }
  friend constexpr Vec2 operator/(Vec2 a, double s) { return {a.x / s, a.y / s}; }
  friend constexpr bool operator==(Vec2 a, Vec2 b) = default;
};

constexpr double dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
/// z of the 3D cross product: > 0 when b is counter-clockwise from a.
constexpr double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
inline double length(Vec2 a) { return std::hypot(a.x, a.y); }
inline double distance(Vec2 a, Vec2 b) { return length(a - b); }
/// Unit vector along a; (0,0) for a zero vector.
inline Vec2 normalize(Vec2 a) {
  const double l = length(a);
  return l > 0.0 ? a / l : Vec2{};
}
/// a rotated 90 degrees counter-clockwise (the left normal of a direction).
constexpr Vec2 perp(Vec2 a) { return {-a.y, a.x}; }
constexpr Vec2 lerp(Vec2 a, Vec2 b, double t) { return a + (b - a) * t; }
inline Vec2 rotate(Vec2 a, double angle_rad) {
  const double c = std::cos(angle_rad);
  const double s = std::sin(angle_rad);
  return {c * a.x - s * a.y, s * a.x + c * a.y};
}

/// A 3D point or vector in metres (x east, y north, z up).
struct Vec3 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;

  friend constexpr Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend constexpr Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend constexpr Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
  friend constexpr bool operator==(Vec3 a, Vec3 b) = default;
};

constexpr double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(Vec3 a) {
  const double l = length(a);
  return l > 0.0 ? a * (1.0 / l) : Vec3{};
}

/// Axis-aligned box in the plane. Empty when min > max.
struct Aabb2 {
  Vec2 min{1e300, 1e300};
  Vec2 max{-1e300, -1e300};

  void add(Vec2 p) {
    min = {std::fmin(min.x, p.x), std::fmin(min.y, p.y)};
    max = {std::fmax(max.x, p.x), std::fmax(max.y, p.y)};
  }
  bool empty() const { return min.x > max.x || min.y > max.y; }
  bool contains(Vec2 p) const {
    return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y;
  }
  bool overlaps(const Aabb2& o) const {
    return !(o.min.x > max.x || o.max.x < min.x || o.min.y > max.y || o.max.y < min.y);
  }
  Vec2 size() const { return max - min; }
  Vec2 center() const { return (min + max) * 0.5; }
};

}  // namespace cityforge
