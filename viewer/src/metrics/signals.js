// SPDX-License-Identifier: Apache-2.0
// Stop lines of signalised connectors and the fixed-time plan clock of lanes.json
// (docs/lanes.md). A connector's stop line is the line through its first point, across its
// first segment: the end of the approach lane, where the junction begins.

const CELL_M = 32;

/** The set of connector lanes that some signal plan controls. */
export function signalLaneIds(lanesJson) {
  const ids = new Set();
  for (const plan of lanesJson.signals || []) {
    for (const ph of plan.phases || []) for (const id of ph.green || []) ids.add(id);
  }
  return ids;
}

/** Signal state of a connector at simulated time t_s from the plans alone ('green',
 *  'yellow', 'red'), or null for lanes no plan controls. The live stream's states are
 *  authoritative; this is the fallback when no stream is available. */
export function planState(lanesJson, laneId, t_s) {
  for (const plan of lanesJson.signals || []) {
    const phases = plan.phases || [];
    if (!phases.some((ph) => (ph.green || []).includes(laneId))) continue;
    const cycle = plan.cycle_s;
    let u = (t_s - (plan.offset_s || 0)) % cycle;
    if (u < 0) u += cycle;
    for (const ph of phases) {
      const has = (ph.green || []).includes(laneId);
      if (u < ph.green_s) return has ? 'green' : 'red';
      u -= ph.green_s;
      if (u < ph.yellow_s) return has ? 'yellow' : 'red';
      u -= ph.yellow_s;
      if (u < ph.all_red_s) return 'red';
      u -= ph.all_red_s;
    }
    return 'red';
  }
  return null;
}

/** Stop lines of the signal connectors, indexed on a grid by their first point. */
export class StopLines {
  constructor(lanesJson, signalIds = signalLaneIds(lanesJson)) {
    this.lines = [];
    this.grid = new Map();
    this.byLane = new Map((lanesJson.lanes || []).map((l) => [l.id, l]));
    for (const id of [...signalIds].sort((a, b) => a - b)) {
      const lane = this.byLane.get(id);
      if (!lane || !lane.points || lane.points.length < 2) continue;
      const [a, b] = lane.points;
      const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
      if (len <= 0) continue;
      const line = {
        lane: id,
        x: a[0],
        y: a[1],
        tx: (b[0] - a[0]) / len,
        ty: (b[1] - a[1]) / len,
        half_width_m: (lane.width_m ?? 3.5) / 2,
        predecessors: lane.predecessors || [],
      };
      this.lines.push(line);
      const k = `${Math.floor(a[0] / CELL_M)},${Math.floor(a[1] / CELL_M)}`;
      let list = this.grid.get(k);
      if (!list) this.grid.set(k, (list = []));
      list.push(line);
    }
  }

  /** Stop lines crossed forwards by the segment (x0, y0) -> (x1, y1): the point moved from
   *  behind the line to on or past it, within the lane's width (plus slack_m) of its centre,
   *  heading within 60 degrees of the connector's. Each with the fraction u of the step at
   *  which it crossed. Sorted by lane id. */
  crossed(x0, y0, x1, y1, slack_m = 0.5) {
    const out = [];
    const mx = x1 - x0;
    const my = y1 - y0;
    const step = Math.hypot(mx, my);
    if (step < 1e-9) return out;
    const cx0 = Math.floor((Math.min(x0, x1) - 4) / CELL_M);
    const cx1 = Math.floor((Math.max(x0, x1) + 4) / CELL_M);
    const cy0 = Math.floor((Math.min(y0, y1) - 4) / CELL_M);
    const cy1 = Math.floor((Math.max(y0, y1) + 4) / CELL_M);
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++) {
        for (const l of this.grid.get(`${cx},${cy}`) || []) {
          const d0 = (x0 - l.x) * l.tx + (y0 - l.y) * l.ty;
          const d1 = (x1 - l.x) * l.tx + (y1 - l.y) * l.ty;
          if (!(d0 < 0 && d1 >= 0)) continue;
          if ((mx * l.tx + my * l.ty) / step < 0.5) continue;
          const u = -d0 / (d1 - d0);
          const px = x0 + u * mx - l.x;
          const py = y0 + u * my - l.y;
          const lat = -px * l.ty + py * l.tx;
          if (Math.abs(lat) > l.half_width_m + slack_m) continue;
          out.push({ line: l, u });
        }
      }
    }
    return out.sort((a, b) => a.line.lane - b.line.lane);
  }
}
