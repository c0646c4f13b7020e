// SPDX-License-Identifier: Apache-2.0
// Small 2D geometry for the driver metrics: oriented boxes, discs, polygons and the
// constant-velocity time to collision. City metres, headings counter-clockwise from +x.

/** Corners of an oriented box {x, y, heading_rad, half_length_m, half_width_m}. */
export function boxCorners(b) {
  const c = Math.cos(b.heading_rad);
  const s = Math.sin(b.heading_rad);
  const out = [];
  for (const [l, w] of [[1, 1], [1, -1], [-1, -1], [-1, 1]]) {
    const lx = l * b.half_length_m;
    const wy = w * b.half_width_m;
    out.push([b.x + c * lx - s * wy, b.y + s * lx + c * wy]);
  }
  return out;
}

/** Whether two oriented boxes overlap (separating axis test). */
export function boxesOverlap(a, b) {
  for (const box of [a, b]) {
    const c = Math.cos(box.heading_rad);
    const s = Math.sin(box.heading_rad);
    for (const [ax, ay] of [[c, s], [-s, c]]) {
      const ra = projectRadius(a, ax, ay);
      const rb = projectRadius(b, ax, ay);
      const d = Math.abs((b.x - a.x) * ax + (b.y - a.y) * ay);
      if (d > ra + rb) return false;
    }
  }
  return true;
}

function projectRadius(b, ax, ay) {
  const c = Math.cos(b.heading_rad);
  const s = Math.sin(b.heading_rad);
  return b.half_length_m * Math.abs(c * ax + s * ay) + b.half_width_m * Math.abs(-s * ax + c * ay);
}

/** Distance from a point to an oriented box (0 inside). */
export function boxPointDistance(b, x, y) {
  const c = Math.cos(b.heading_rad);
  const s = Math.sin(b.heading_rad);
  const dx = x - b.x;
  const dy = y - b.y;
  const lx = Math.max(0, Math.abs(c * dx + s * dy) - b.half_length_m);
  const ly = Math.max(0, Math.abs(-s * dx + c * dy) - b.half_width_m);
  return Math.hypot(lx, ly);
}

/** Earliest t >= 0 at which two discs moving at constant velocity touch: relative position
 *  (px, py), relative velocity (vx, vy) of the second disc, sum of radii r. 0 when they
 *  already overlap, Infinity when they never meet. */
export function discTimeToCollision(px, py, vx, vy, r) {
  const c = px * px + py * py - r * r;
  if (c <= 0) return 0;
  const a = vx * vx + vy * vy;
  const b = px * vx + py * vy;
  if (a < 1e-12 || b >= 0) return Infinity; // Not closing.
  const disc = b * b - a * c;
  if (disc < 0) return Infinity; // Passes by.
  return (-b - Math.sqrt(disc)) / a;
}

/** Distance between two oriented boxes (0 when they overlap). Two disjoint convex polygons
 *  are nearest at a corner of one, so the least corner-to-box distance is exact. */
export function boxesDistance(a, b) {
  if (boxesOverlap(a, b)) return 0;
  let d = Infinity;
  for (const [x, y] of boxCorners(a)) d = Math.min(d, boxPointDistance(b, x, y));
  for (const [x, y] of boxCorners(b)) d = Math.min(d, boxPointDistance(a, x, y));
  return d;
}

/** Earliest t >= 0 at which a disc of radius r centred at (px, py), moving at (vx, vy)
 *  relative to a fixed oriented box, touches the box. 0 when they already touch, Infinity
 *  when they never meet. The touching set is the box grown by r with rounded corners: the
 *  union of two crossed rectangles and four corner discs, so the first entry into any of
 *  them is the first touch. */
export function boxDiscTimeToCollision(box, px, py, vx, vy, r) {
  if (boxPointDistance(box, px, py) <= r) return 0;
  const c = Math.cos(box.heading_rad);
  const s = Math.sin(box.heading_rad);
  const dx = px - box.x;
  const dy = py - box.y;
  // Into the box's frame: x along its heading, y to its left.
  const lx = c * dx + s * dy;
  const ly = -s * dx + c * dy;
  const lvx = c * vx + s * vy;
  const lvy = -s * vx + c * vy;
  const hl = box.half_length_m;
  const hw = box.half_width_m;
  let t = Math.min(rayBoxEntry(lx, ly, lvx, lvy, hl + r, hw), rayBoxEntry(lx, ly, lvx, lvy, hl, hw + r));
  for (const [cx, cy] of [[hl, hw], [hl, -hw], [-hl, -hw], [-hl, hw]]) {
    t = Math.min(t, discTimeToCollision(cx - lx, cy - ly, -lvx, -lvy, r));
  }
  return t;
}

// Earliest t >= 0 at which the point (ox, oy) + t (dx, dy) lies in [-ex, ex] x [-ey, ey]
// (slab method), Infinity when never.
function rayBoxEntry(ox, oy, dx, dy, ex, ey) {
  let t0 = 0;
  let t1 = Infinity;
  for (const [o, d, e] of [[ox, dx, ex], [oy, dy, ey]]) {
    if (Math.abs(d) < 1e-12) {
      if (Math.abs(o) > e) return Infinity;
      continue;
    }
    let a = (-e - o) / d;
    let b = (e - o) / d;
    if (a > b) [a, b] = [b, a];
    t0 = Math.max(t0, a);
    t1 = Math.min(t1, b);
    if (t0 > t1) return Infinity;
  }
  return t0;
}

/** Whether (x, y) lies inside a polygon ring [[x, y], ...] (even-odd rule). */
export function pointInRing(ring, x, y) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Grid of polygons (building footprints) for point queries. */
export class PolygonGrid {
  constructor(rings, cell_m = 32) {
    this.cell = cell_m;
    this.rings = rings;
    this.grid = new Map();
    rings.forEach((ring, id) => {
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      for (const [x, y] of ring) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
      }
      for (let cx = Math.floor(x0 / cell_m); cx <= Math.floor(x1 / cell_m); cx++) {
        for (let cy = Math.floor(y0 / cell_m); cy <= Math.floor(y1 / cell_m); cy++) {
          const k = `${cx},${cy}`;
          let list = this.grid.get(k);
          if (!list) this.grid.set(k, (list = []));
          list.push(id);
        }
      }
    });
  }

  /** Index of the first polygon containing (x, y), or -1. */
  find(x, y) {
    const list = this.grid.get(`${Math.floor(x / this.cell)},${Math.floor(y / this.cell)}`);
    if (!list) return -1;
    for (const id of list) if (pointInRing(this.rings[id], x, y)) return id;
    return -1;
  }
}

/** Building outer rings from layout.geojson (features with properties.layer "building"), or
 *  an array of rings passed through. */
export function buildingRings(buildings) {
  if (!buildings) return [];
  if (Array.isArray(buildings)) return buildings;
  // Imported places write WGS84 (RFC 7946); map it back onto the engine's local frame.
  const meta = buildings.cityforge;
  const toLocal =
    meta?.coordinates === 'wgs84' && meta.origin
      ? (p) => wgs84ToLocal(p[0], p[1], meta.origin.lon_deg, meta.origin.lat_deg)
      : (p) => p;
  const rings = [];
  for (const f of buildings.features || []) {
    if (f?.properties?.layer !== 'building' || !f.geometry) continue;
    if (f.geometry.type === 'Polygon') rings.push(f.geometry.coordinates[0].map(toLocal));
    else if (f.geometry.type === 'MultiPolygon') {
      for (const poly of f.geometry.coordinates) rings.push(poly[0].map(toLocal));
    }
  }
  return rings;
}

/** WGS84 degrees -> the local frame of an imported place (transverse Mercator around the
 *  origin), by its leading series terms: the same formula as core/geodesy.hpp, within a few
 *  millimetres up to ~10 km from the origin. */
export function wgs84ToLocal(lon, lat, lon0, lat0) {
  const a = 6378137.0;
  const e2 = 0.00669437999014;
  const rad = Math.PI / 180;
  const phi = lat * rad;
  const phi0 = lat0 * rad;
  const dl = (lon - lon0) * rad;
  const s = Math.sin(phi);
  const n = a / Math.sqrt(1 - e2 * s * s);
  const sm = Math.sin(0.5 * (phi + phi0));
  const m = (a * (1 - e2)) / Math.pow(1 - e2 * sm * sm, 1.5);
  const x = n * Math.cos(phi) * dl;
  const y = m * (phi - phi0) + (x * x * Math.tan(phi)) / (2 * n);
  return [x, y];
}
