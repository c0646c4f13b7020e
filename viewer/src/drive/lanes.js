// SPDX-License-Identifier: Apache-2.0
// Lane matching for the driven car: a uniform grid over the vehicle lanes' polylines
// (lanes.json, docs/lanes.md) answers "which lane is the car on, how far along it, how far
// off its centre line and at what heading error". A hysteresis margin keeps the current lane
// (and favours its successors and predecessors) so the answer does not flicker where
// connectors overlap inside junctions. Pure: no DOM, no three.js.

import { wrapAngle } from './physics.js';

/** Matching settings. */
export const MATCH = Object.freeze({
  cell_m: 16, // Grid cell size.
  search_m: 6, // Lanes whose centre line is farther than this are not candidates.
  heading_m_per_rad: 0.8, // Score penalty per radian of heading error (metres).
  keep_m: 0.6, // The current lane wins unless another scores this much better.
  linked_m: 0.3, // Bonus for the current lane's successors and predecessors.
  through_m: 0.1, // Bonus for through connectors (ties where connectors start together).
});

function isVehicleLane(lane) {
  const tags = lane.tags || [];
  return tags.includes('vehicle') || tags.includes('intersection') || tags.includes('freeway') ||
    tags.includes('ramp');
}

/** Spatial index over lane polylines. `lanesJson`: parsed lanes.json (or {lanes:[...]});
 *  `filter(lane)` selects the lanes to index (default: vehicle lanes and connectors). */
export class LaneIndex {
  constructor(lanesJson, { filter = isVehicleLane, ...opts } = {}) {
    this.opts = { ...MATCH, ...opts };
    this.lanes = lanesJson.lanes || [];
    this.byId = new Map();
    this.grid = new Map();
    this.cum = new Map(); // lane id -> cumulative length at each point
    for (const lane of this.lanes) {
      this.byId.set(lane.id, lane);
      if (!filter(lane) || !lane.points || lane.points.length < 2) continue;
      const pts = lane.points;
      const cum = new Float64Array(pts.length);
      for (let i = 1; i < pts.length; i++) {
        cum[i] = cum[i - 1] + Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
      }
      this.cum.set(lane.id, cum);
      for (let i = 0; i + 1 < pts.length; i++) this.#insert(lane.id, i, pts[i], pts[i + 1]);
    }
  }

  #key(cx, cy) {
    return cx * 73856093 + cy * 19349663; // Cells are small integers; collisions only merge.
  }

  #insert(laneId, seg, a, b) {
    const c = this.opts.cell_m;
    const x0 = Math.floor(Math.min(a[0], b[0]) / c);
    const x1 = Math.floor(Math.max(a[0], b[0]) / c);
    const y0 = Math.floor(Math.min(a[1], b[1]) / c);
    const y1 = Math.floor(Math.max(a[1], b[1]) / c);
    for (let cx = x0; cx <= x1; cx++) {
      for (let cy = y0; cy <= y1; cy++) {
        const k = this.#key(cx, cy);
        let list = this.grid.get(k);
        if (!list) this.grid.set(k, (list = []));
        list.push(laneId, seg);
      }
    }
  }

  /** Whether the lane is indexed (a vehicle lane or connector). */
  has(laneId) {
    return this.cum.has(laneId);
  }

  lane(laneId) {
    return this.byId.get(laneId);
  }

  /** Length of an indexed lane along its polyline. */
  length(laneId) {
    const cum = this.cum.get(laneId);
    return cum ? cum[cum.length - 1] : 0;
  }

  /** Projection of (x, y) on one lane: s along it (clamped to the polyline), distance,
   *  signed lateral offset (left of the lane's direction positive), the tangent heading and
   *  the centre line's z there. */
  project(laneId, x, y, segs = null) {
    const lane = this.byId.get(laneId);
    const cum = this.cum.get(laneId);
    if (!lane || !cum) return null;
    const pts = lane.points;
    let best = null;
    const n = pts.length - 1;
    const count = segs ? segs.length : n;
    for (let j = 0; j < count; j++) {
      const i = segs ? segs[j] : j;
      const a = pts[i];
      const b = pts[i + 1];
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const len2 = dx * dx + dy * dy;
      let u = len2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / len2 : 0;
      u = Math.min(1, Math.max(0, u));
      const px = a[0] + u * dx;
      const py = a[1] + u * dy;
      const d = Math.hypot(x - px, y - py);
      if (best === null || d < best.dist_m - 1e-12) {
        const len = Math.sqrt(len2);
        const lateral = len > 0 ? (dx * (y - a[1]) - dy * (x - a[0])) / len : 0;
        best = {
          lane: laneId,
          seg: i,
          s_m: cum[i] + u * (cum[i + 1] - cum[i]),
          dist_m: d,
          lateral_m: lateral,
          lane_heading_rad: Math.atan2(dy, dx),
          z: a[2] + u * (b[2] - a[2]),
          // How far the point lies beyond either end of the lane (0 inside).
          beyond_m: (i === 0 && u === 0) || (i === n - 1 && u === 1) ? d : 0,
        };
      }
    }
    return best;
  }

  /** Point, heading and z at distance s along a lane (clamped). */
  pointAt(laneId, s_m) {
    const lane = this.byId.get(laneId);
    const cum = this.cum.get(laneId);
    if (!lane || !cum) return null;
    const pts = lane.points;
    const s = Math.min(cum[cum.length - 1], Math.max(0, s_m));
    let i = 0;
    while (i + 2 < pts.length && cum[i + 1] < s) i++;
    const seg = cum[i + 1] - cum[i];
    const u = seg > 0 ? (s - cum[i]) / seg : 0;
    const a = pts[i];
    const b = pts[i + 1];
    return {
      x: a[0] + u * (b[0] - a[0]),
      y: a[1] + u * (b[1] - a[1]),
      z: a[2] + u * (b[2] - a[2]),
      heading_rad: Math.atan2(b[1] - a[1], b[0] - a[0]),
    };
  }

  /** Candidate lanes near (x, y): Map lane id -> segment indices in the searched cells. */
  near(x, y, radius_m = this.opts.search_m) {
    const c = this.opts.cell_m;
    const out = new Map();
    const x0 = Math.floor((x - radius_m) / c);
    const x1 = Math.floor((x + radius_m) / c);
    const y0 = Math.floor((y - radius_m) / c);
    const y1 = Math.floor((y + radius_m) / c);
    for (let cx = x0; cx <= x1; cx++) {
      for (let cy = y0; cy <= y1; cy++) {
        const list = this.grid.get(this.#key(cx, cy));
        if (!list) continue;
        for (let i = 0; i < list.length; i += 2) {
          let segs = out.get(list[i]);
          if (!segs) out.set(list[i], (segs = []));
          if (!segs.includes(list[i + 1])) segs.push(list[i + 1]);
        }
      }
    }
    return out;
  }

  /** The lane the car at (x, y) with this heading is on, given the lane it was on before
   *  (`current`, or null). Returns {lane, s_m, dist_m, lateral_m, heading_err_rad, z,
   *  width_m, speed_limit_mps, intersection} or null when no lane is within search_m.
   *  Deterministic: ties go to the lower lane id. */
  match(x, y, heading_rad, current = null) {
    const o = this.opts;
    const cands = this.near(x, y, o.search_m);
    const cur = current === null || current === undefined ? null : this.byId.get(current);
    const linked = new Set(cur ? [...(cur.successors || []), ...(cur.predecessors || [])] : []);
    let best = null;
    let bestScore = Infinity;
    const ids = [...cands.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const p = this.project(id, x, y, cands.get(id));
      if (!p || p.dist_m > o.search_m) continue;
      const err = wrapAngle(heading_rad - p.lane_heading_rad);
      let score = p.dist_m + o.heading_m_per_rad * Math.abs(err);
      if (id === current) score -= o.keep_m;
      else if (linked.has(id)) score -= o.linked_m;
      // Connectors leaving one lane start at the same point: until they part, the through
      // movement (the likeliest) wins the tie.
      if (this.byId.get(id).turn === 'through') score -= o.through_m;
      if (score < bestScore - 1e-9) {
        bestScore = score;
        best = { ...p, heading_err_rad: err };
      }
    }
    if (!best) return null;
    const lane = this.byId.get(best.lane);
    return {
      lane: best.lane,
      s_m: best.s_m,
      dist_m: best.dist_m,
      lateral_m: best.lateral_m,
      heading_err_rad: best.heading_err_rad,
      beyond_m: best.beyond_m,
      z: best.z,
      width_m: lane.width_m ?? 3.5,
      speed_limit_mps: lane.speed_limit_mps ?? null,
      intersection: lane.intersection ?? -1,
    };
  }
}
