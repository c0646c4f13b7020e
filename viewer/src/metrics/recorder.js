// SPDX-License-Identifier: Apache-2.0
// Driver metrics for road-safety studies (issue 8, seeds/004): the driven car's samples at a
// fixed rate and its events (speeding, red-light and yellow-light entries, pedestrian near
// misses, collisions, lane departures) as episodes with start, duration and extremes; for
// studies (issue 25) also hazard responses (hazards.js), lane keeping, harsh accelerations and
// eyes off the road (driving.js), and collisions reported by the physics world.
// Pure: fed by step(dt, car, world); no DOM, no three.js, no clocks. docs/drive.md defines
// every metric and threshold.
// Time to collision on discs: Van der Horst, A time-based analysis of road user behaviour in
// normal and critical encounters, 1990 (TTC < 1.5 s as a conflict).

import { LaneIndex } from '../drive/lanes.js';
import {
  boxesOverlap,
  boxPointDistance,
  buildingRings,
  discTimeToCollision,
  PolygonGrid,
  boxCorners,
} from './geometry.js';
import { createDrivingTracker } from './driving.js';
import { createHazardTracker } from './hazards.js';
import { StopLines } from './signals.js';

/** How far a pedestrian hit at `v` m/s is thrown along the car's heading: a body sliding to
 *  rest, v^2 / (2 mu g) with mu = 0.7 (the order of reconstructed throw distances: ~1 m at
 *  10 km/h, ~5 m at 30, ~14 m at 50), at most 25 m. */
export function throwDistance(v) {
  return Math.min(25, (v * v) / (2 * 0.7 * 9.81));
}

/** Default thresholds (all exported with the metrics). */
export const THRESHOLDS = Object.freeze({
  sample_hz: 10,
  speeding_tolerance_frac: 0.05, // Speeding above limit + max(5% of limit, 2 km/h)...
  speeding_tolerance_mps: 2 / 3.6,
  speeding_hysteresis_mps: 0.25, // ...until the speed drops this far below that threshold.
  near_miss_ttc_s: 1.5, // Time to collision with a pedestrian below this is a near miss...
  near_miss_min_speed_mps: 1.0, // ...while the car moves at least this fast.
  near_miss_range_m: 40, // Pedestrians farther than this are not considered.
  pedestrian_radius_m: 0.3,
  episode_gap_s: 1.0, // A near miss or collision episode ends after this long clear.
  casualty_speed_mps: 1.5, // A pedestrian hit at least this fast falls: a casualty.
  lane_departure_margin_m: 0, // Departure: |lateral| > width/2 - car width/2 + this.
  lane_departure_hysteresis_m: 0.1, // Back in the lane below the threshold minus this.
  red_light_resolve_m: 8, // Distance past a stop line at which the movement taken is decided.
  stop_line_slack_m: 0.5, // A stop line extends this far beyond its lane's width.
  reaction_brake: 0.1, // Hazard reaction: brake pedal (0..1) at least this...
  reaction_steer_rad: 0.035, // ...or the road-wheel angle this far from its value at onset...
  hazard_reaction_window_s: 5, // ...before the hazard has been over this long.
  harsh_brake_mps2: 4.0, // Harsh braking: acceleration <= -this...
  harsh_accel_mps2: 3.0, // ...harsh acceleration: >= this...
  harsh_min_s: 0.3, // ...for at least this long.
  eyes_off_road_deg: 30, // Look direction farther than this from the road's direction.
  sdlp_min_speed_mps: 5, // Lane keeping (SDLP) counts above this speed.
});

/** Copies the known thresholds of obj into th (numbers >= 0; sample_hz > 0). Returns the
 *  rejected entries as messages ("<key>: expected ..., got ..."), empty when all were taken. */
export function applyThresholds(th, obj) {
  const rejected = [];
  for (const [k, v] of Object.entries(obj || {})) {
    if (!Object.prototype.hasOwnProperty.call(THRESHOLDS, k)) {
      rejected.push(`${k}: expected a known threshold, got an unknown key`);
    } else if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (k === 'sample_hz' && v === 0)) {
      rejected.push(`${k}: expected a number ${k === 'sample_hz' ? '> 0' : '>= 0'}, got ${JSON.stringify(v)}`);
    } else {
      th[k] = v;
    }
  }
  return rejected;
}

/** Footprint sizes of the simulation's vehicle kinds (traffic::default_params). */
export const VEHICLE_DIMS = Object.freeze({
  0: { length_m: 4.5, width_m: 1.8, name: 'car' },
  1: { length_m: 5.5, width_m: 2.0, name: 'van' },
  2: { length_m: 12.0, width_m: 2.55, name: 'bus' },
  3: { length_m: 10.0, width_m: 2.5, name: 'truck' },
});

/** Oriented box of a simulated vehicle whose position is its front-axle centre (0.9 m behind
 *  its front bumper, as our car's). */
export function vehicleBox(v) {
  const d = VEHICLE_DIMS[v.kind] || VEHICLE_DIMS[0];
  const back = d.length_m / 2 - 0.9;
  return {
    x: v.x - Math.cos(v.heading_rad) * back,
    y: v.y - Math.sin(v.heading_rad) * back,
    heading_rad: v.heading_rad,
    half_length_m: d.length_m / 2,
    half_width_m: d.width_m / 2,
  };
}

// Event types that span time (t_end_s, duration_s; ongoing at export while open).
const EPISODES = ['speeding', 'near_miss', 'collision', 'lane_departure', 'harsh_brake',
  'harsh_accel', 'eyes_off_road', 'hazard'];

const r4 = (v) => (v === null || v === undefined || !Number.isFinite(v) ? v : Math.round(v * 1e4) / 1e4);

/**
 * Creates a recorder.
 * options: {lanes (parsed lanes.json), index (LaneIndex over it, optional), buildings
 * (layout.geojson or rings, optional), city (name), car: {width_m, ...}, thresholds (e.g. the
 * scenario's; see THRESHOLDS and applyThresholds; rejected ones in rec.thresholdErrors)}.
 * step(dt_s, car, world):
 *   car: {x, y, heading_rad, speed_mps, accel_mps2, lane, lateral_m, heading_err_rad,
 *         width_m (lane), speed_limit_mps, connector (bool), front: {x, y} (bumper),
 *         box (footprint), controls: {throttle, brake, steer}, steer_rad (road-wheel angle,
 *         optional), view_heading_rad (camera look direction, optional)}
 *   world: {sim_s, signal(laneId) -> 'red'|'yellow'|'green'|'off'|null,
 *           pedestrians: [{id, x, y, vx, vy}], vehicles: [{id, kind, x, y, heading_rad}],
 *           hazards: the hazard view (optional), contacts: [{with, other_id, other_kind,
 *           impact_speed_mps, x, y}] from the physics world (optional; when given they replace
 *           the geometric collision test)}
 * setThresholds(obj) changes thresholds later (returns the rejected entries).
 */
export function createRecorder(options = {}) {
  const lanes = options.lanes || { lanes: [] };
  const th = { ...THRESHOLDS };
  const thresholdErrors = applyThresholds(th, options.thresholds);
  const carWidth = options.car?.width_m ?? 1.8;
  const index = options.index || new LaneIndex(lanes);
  const stopLines = options.stopLines || new StopLines(lanes);
  const rings = buildingRings(options.buildings);
  const buildings = rings.length ? new PolygonGrid(rings) : null;
  const byId = new Map((lanes.lanes || []).map((l) => [l.id, l]));
  let s; // All mutable state, reset by start().

  function start(sim_s = 0) {
    s = {
      started_at_sim_s: sim_s,
      t: 0,
      next_sample: 0,
      sample_k: 0,
      distance: 0,
      max_speed: 0,
      time_speeding: 0,
      time_departed: 0,
      min_ttc: Infinity,
      samples: [],
      events: [],
      prevFront: null,
      speeding: null,
      departure: null,
      pending: [], // Stop-line crossings waiting for the movement to be known.
      nearMiss: new Map(), // pedestrian id -> open episode
      contacts: new Map(), // "vehicle:id" / "pedestrian:id" / "building:id" -> open episode
      last_limit: null,
      crossings: 0,
      prev: null, // {brake, steer_rad} after the previous step (hazard reactions)
      hazards: createHazardTracker(th),
      driving: createDrivingTracker(th),
      max_impact: null,
      casualties: [], // casualty events, in order
      casualtyIds: new Set(),
    };
  }
  start(0);

  function base(type, car, world) {
    return {
      type,
      t_s: r4(s.t),
      sim_s: r4(world.sim_s ?? s.started_at_sim_s + s.t),
      x: r4(car.x),
      y: r4(car.y),
      lane: car.lane ?? null,
      speed_mps: r4(Math.abs(car.speed_mps)),
    };
  }

  // Events are listed in the order they began: one known only later (a harsh episode once it
  // lasted long enough, a hazard seen after its onset) goes before those that began after it.
  function insertEvent(e) {
    let i = s.events.length;
    while (i > 0 && s.events[i - 1].t_s > e.t_s) i--;
    s.events.splice(i, 0, e);
  }

  function closeEpisode(ev, t_end) {
    ev.t_end_s = r4(t_end);
    ev.duration_s = r4(t_end - ev.t_s);
  }

  // 1. Speeding episodes against the lane's limit.
  // The legal limit is the road's: connectors inside junctions carry the simulation's turning
  // speeds (20 km/h right, 30 km/h left), so there the limit of the lane the car came from
  // holds; off road, the last one.
  function legalLimit(car) {
    const own = car.speed_limit_mps;
    if (own !== null && own !== undefined && !car.connector) s.last_limit = own;
    else if (s.last_limit === null && own !== null && own !== undefined) s.last_limit = own;
    return s.last_limit;
  }

  function speeding(dt, car, world) {
    const limit = legalLimit(car);
    const v = Math.abs(car.speed_mps);
    if (limit === null || limit === undefined) return;
    const tol = Math.max(th.speeding_tolerance_frac * limit, th.speeding_tolerance_mps);
    const over = v > limit + tol;
    const ep = s.speeding;
    if (ep) {
      if (v <= limit + tol - th.speeding_hysteresis_mps || ep._limit !== limit) {
        closeEpisode(ep, s.t);
        delete ep._limit;
        s.speeding = null;
      } else {
        s.time_speeding += dt;
        ep.max_speed_mps = r4(Math.max(ep.max_speed_mps, v));
        ep.max_excess_mps = r4(Math.max(ep.max_excess_mps, v - limit));
        ep.distance_m = r4(ep.distance_m + v * dt);
        return;
      }
    }
    if (over) {
      const e = base('speeding', car, world);
      e.speed_limit_mps = r4(limit);
      e.max_speed_mps = r4(v);
      e.max_excess_mps = r4(v - limit);
      e.distance_m = 0;
      e._limit = limit;
      s.events.push(e);
      s.speeding = e;
    }
  }

  // 2. Stop-line crossings, resolved to the connector the car takes.
  function redLights(car, world) {
    const f = car.front || car;
    if (s.prevFront) {
      const hits = stopLines.crossed(s.prevFront.x, s.prevFront.y, f.x, f.y, th.stop_line_slack_m);
      // Group by approach: the connectors leaving the same lane end are one decision.
      const seen = new Set();
      for (const h of hits) {
        const approach = h.line.predecessors[0] ?? -1 - h.line.lane;
        if (seen.has(approach)) continue;
        seen.add(approach);
        const approachLane = byId.get(approach);
        const options = (approachLane?.successors || [h.line.lane]).map((id) => ({
          lane: id,
          signal: world.signal ? world.signal(id) ?? null : null,
        }));
        s.crossings += 1;
        s.pending.push({
          approach,
          first: h.line,
          options,
          x: f.x,
          y: f.y,
          ev: base('stop_line', car, world),
        });
      }
    }
    s.prevFront = { x: f.x, y: f.y };
    s.pending = s.pending.filter((p) => !resolve(p, car, f));
  }

  function resolve(p, car, f) {
    const dx = f.x - p.first.x;
    const dy = f.y - p.first.y;
    const along = dx * p.first.tx + dy * p.first.ty;
    if (along < -0.5) return true; // Backed over the line again: no entry.
    const classes = new Set(p.options.map((o) => o.signal));
    let chosen = null;
    if (classes.size === 1) chosen = p.options[0];
    else if (p.options.some((o) => o.lane === car.lane) && along >= th.red_light_resolve_m) {
      chosen = p.options.find((o) => o.lane === car.lane);
    } else if (along >= 2 * th.red_light_resolve_m || car.lane === null) {
      // Not on any option (yet): the option whose centre line is nearest the front.
      let best = Infinity;
      for (const o of p.options) {
        const pr = index.project(o.lane, f.x, f.y);
        if (pr && pr.dist_m < best) {
          best = pr.dist_m;
          chosen = o;
        }
      }
      chosen = chosen || p.options[0];
    }
    if (!chosen) return false;
    if (chosen.signal === 'red' || chosen.signal === 'yellow') {
      const e = p.ev;
      e.type = chosen.signal === 'red' ? 'red_light' : 'yellow_light';
      e.connector = chosen.lane;
      e.approach_lane = p.approach >= 0 ? p.approach : null;
      e.signal = chosen.signal;
      s.events.push(e);
    }
    return true;
  }

  // 3. Pedestrian near misses (constant-velocity time to collision on discs).
  function nearMisses(car, world) {
    const v = Math.abs(car.speed_mps);
    const box = car.box;
    const r = box.half_width_m;
    const c = Math.cos(car.heading_rad);
    const sn = Math.sin(car.heading_rad);
    const off = Math.max(0, box.half_length_m - r);
    const cvx = car.speed_mps * c;
    const cvy = car.speed_mps * sn;
    const active = new Set();
    for (const p of world.pedestrians || []) {
      const dx = p.x - box.x;
      const dy = p.y - box.y;
      if (dx * dx + dy * dy > th.near_miss_range_m ** 2) continue;
      let ttc = Infinity;
      for (const k of [-off, 0, off]) {
        const t = discTimeToCollision(dx - c * k, dy - sn * k, (p.vx || 0) - cvx, (p.vy || 0) - cvy,
          r + th.pedestrian_radius_m);
        ttc = Math.min(ttc, t);
      }
      if (v < th.near_miss_min_speed_mps || !(ttc < th.near_miss_ttc_s)) continue;
      s.min_ttc = Math.min(s.min_ttc, ttc);
      active.add(p.id);
      const dist = boxPointDistance(box, p.x, p.y);
      let ep = s.nearMiss.get(p.id);
      if (!ep) {
        ep = base('near_miss', car, world);
        ep.pedestrian = p.id;
        ep.ttc_min_s = r4(ttc);
        ep.min_distance_m = r4(dist);
        ep.speed_at_min_ttc_mps = r4(v);
        ep._clear = 0;
        s.events.push(ep);
        s.nearMiss.set(p.id, ep);
      }
      ep._clear = 0;
      if (ttc < ep.ttc_min_s) {
        ep.ttc_min_s = r4(ttc);
        ep.speed_at_min_ttc_mps = r4(v);
      }
      ep.min_distance_m = r4(Math.min(ep.min_distance_m, dist));
      ep._last = s.t;
    }
    return active;
  }

  // 4. Collisions: the physics world's contacts when it reports them, else the footprint
  // against vehicles, pedestrians and buildings.
  function reportedContacts(contacts) {
    const touching = [];
    const seen = new Set();
    for (const c of contacts) {
      if (!c || !['building', 'prop', 'vehicle', 'pedestrian'].includes(c.with)) continue;
      const key = `${c.with}:${c.other_id ?? ''}`;
      if (seen.has(key)) continue; // Several contact points with one object.
      seen.add(key);
      touching.push({ key, with: c.with, id: c.other_id ?? null, kind: c.other_kind ?? c.with,
        impact: Number.isFinite(c.impact_speed_mps) ? Math.abs(c.impact_speed_mps) : null,
        cx: c.x, cy: c.y });
    }
    return touching;
  }

  function collisions(car, world) {
    if (Array.isArray(world.contacts)) return touch(car, world, reportedContacts(world.contacts));
    const box = car.box;
    const touching = [];
    for (const v of world.vehicles || []) {
      if (Math.hypot(v.x - box.x, v.y - box.y) > 15) continue;
      if (boxesOverlap(box, vehicleBox(v))) {
        touching.push({ key: `vehicle:${v.id}`, with: 'vehicle', id: v.id, kind: VEHICLE_DIMS[v.kind]?.name ?? 'vehicle' });
      }
    }
    for (const p of world.pedestrians || []) {
      if (boxPointDistance(box, p.x, p.y) < th.pedestrian_radius_m) {
        touching.push({ key: `pedestrian:${p.id}`, with: 'pedestrian', id: p.id, kind: 'pedestrian' });
      }
    }
    if (buildings) {
      const pts = [[box.x, box.y], ...boxCorners(box)];
      for (const [x, y] of pts) {
        const b = buildings.find(x, y);
        if (b >= 0) {
          touching.push({ key: `building:${b}`, with: 'building', id: b, kind: 'building' });
          break;
        }
      }
    }
    return touch(car, world, touching);
  }

  function touch(car, world, touching) {
    const active = new Set();
    for (const t of touching) {
      active.add(t.key);
      let ep = s.contacts.get(t.key);
      if (!ep) {
        ep = base('collision', car, world);
        ep.with = t.with;
        ep.other_id = t.id;
        ep.other_kind = t.kind;
        const impact = t.impact ?? Math.abs(car.speed_mps);
        ep.impact_speed_mps = r4(impact);
        if (Number.isFinite(t.cx) && Number.isFinite(t.cy)) {
          ep.contact_x = r4(t.cx);
          ep.contact_y = r4(t.cy);
        }
        s.max_impact = Math.max(s.max_impact ?? 0, impact);
        s.events.push(ep);
        s.contacts.set(t.key, ep);
        if (t.with === 'pedestrian' && impact >= th.casualty_speed_mps && !s.casualtyIds.has(t.id)) {
          // Knocked down: thrown ahead along the car's heading, where it comes to rest it stays.
          s.casualtyIds.add(t.id);
          const c = base('casualty', car, world);
          c.other_id = t.id;
          c.impact_speed_mps = r4(impact);
          c.at_x = r4(Number.isFinite(t.cx) ? t.cx : car.front?.x ?? car.x);
          c.at_y = r4(Number.isFinite(t.cy) ? t.cy : car.front?.y ?? car.y);
          c.heading_rad = r4(car.heading_rad);
          c.throw_m = r4(throwDistance(impact));
          c.rest_x = r4(c.at_x + Math.cos(car.heading_rad) * c.throw_m);
          c.rest_y = r4(c.at_y + Math.sin(car.heading_rad) * c.throw_m);
          s.events.push(c);
          s.casualties.push(c);
        }
      }
      ep._clear = 0;
      ep._last = s.t;
    }
    return active;
  }

  function expire(map, active, dt) {
    for (const [key, ep] of map) {
      if (active.has(key)) continue;
      ep._clear = (ep._clear || 0) + dt;
      if (ep._clear >= th.episode_gap_s) {
        closeEpisode(ep, ep._last);
        delete ep._clear;
        delete ep._last;
        map.delete(key);
      }
    }
  }

  // 5. Lane departures: outside the lane's marked width (connectors inside junctions are
  // exempt; off every lane counts).
  function departures(dt, car, world) {
    let out = false;
    let side = null;
    let excess = 0;
    if (car.lane === null || car.lane === undefined) {
      out = true;
      side = 'off_road';
    } else if (!car.connector) {
      const limit = (car.width_m ?? 3.5) / 2 - carWidth / 2 + th.lane_departure_margin_m;
      const lat = Math.abs(car.lateral_m);
      const ep = s.departure;
      const bound = ep ? limit - th.lane_departure_hysteresis_m : limit;
      out = lat > bound;
      side = car.lateral_m > 0 ? 'left' : 'right';
      excess = lat - limit;
    }
    const ep = s.departure;
    if (out) {
      s.time_departed += dt;
      if (!ep) {
        const e = base('lane_departure', car, world);
        e.side = side;
        e.max_lateral_m = r4(Math.abs(car.lateral_m ?? 0));
        e.max_excess_m = r4(Math.max(0, excess));
        s.events.push(e);
        s.departure = e;
      } else {
        ep.max_lateral_m = r4(Math.max(ep.max_lateral_m, Math.abs(car.lateral_m ?? 0)));
        ep.max_excess_m = r4(Math.max(ep.max_excess_m, excess));
        if (side === 'off_road') ep.side = 'off_road';
      }
    } else if (ep) {
      closeEpisode(ep, s.t);
      s.departure = null;
    }
  }

  function sample(car, world) {
    const k = car.controls || {};
    s.samples.push({
      t_s: r4(s.t),
      sim_s: r4(world.sim_s ?? s.started_at_sim_s + s.t),
      x: r4(car.x),
      y: r4(car.y),
      z: r4(car.z ?? 0),
      heading_deg: r4((car.heading_rad * 180) / Math.PI),
      speed_mps: r4(Math.abs(car.speed_mps)),
      accel_mps2: r4(car.accel_mps2 ?? 0),
      lane: car.lane ?? null,
      speed_limit_mps: r4(s.last_limit),
      lateral_m: r4(car.lateral_m ?? null),
      throttle: r4(k.throttle ?? 0),
      brake: r4(k.brake ?? 0),
      steer: r4(k.steer ?? 0),
      steer_rad: r4(Number.isFinite(car.steer_rad) ? car.steer_rad : null),
      view_heading_deg: r4(Number.isFinite(car.view_heading_rad) ? (car.view_heading_rad * 180) / Math.PI : null),
    });
  }

  /** Advances by dt_s with the car's state after that step. */
  function step(dt, car, world = {}) {
    s.t += dt;
    const v = Math.abs(car.speed_mps);
    s.distance += v * dt;
    s.max_speed = Math.max(s.max_speed, v);
    speeding(dt, car, world);
    redLights(car, world);
    expire(s.nearMiss, nearMisses(car, world), dt);
    expire(s.contacts, collisions(car, world), dt);
    departures(dt, car, world);
    const mk = (type) => base(type, car, world);
    s.driving.step(dt, s.t, car, insertEvent, mk);
    s.hazards.step(s.prev ? s.prev.t : s.t, s.t, s.prev, car, world, insertEvent, mk);
    s.prev = { t: s.t, brake: car.controls?.brake ?? 0, steer_rad: car.steer_rad };
    while (s.t + 1e-9 >= s.next_sample) {
      sample(car, world);
      s.sample_k += 1;
      s.next_sample = s.sample_k / th.sample_hz;
    }
  }

  function count(type, pred = () => true) {
    return s.events.filter((e) => e.type === type && pred(e)).length;
  }

  function summary() {
    return {
      duration_s: r4(s.t),
      distance_m: r4(s.distance),
      mean_speed_mps: r4(s.t > 0 ? s.distance / s.t : 0),
      max_speed_mps: r4(s.max_speed),
      time_speeding_s: r4(s.time_speeding),
      speeding_episodes: count('speeding'),
      signal_crossings: s.crossings,
      red_light_violations: count('red_light'),
      yellow_light_entries: count('yellow_light'),
      near_misses: count('near_miss'),
      min_ttc_s: Number.isFinite(s.min_ttc) ? r4(s.min_ttc) : null,
      collisions: count('collision'),
      collisions_vehicle: count('collision', (e) => e.with === 'vehicle'),
      collisions_pedestrian: count('collision', (e) => e.with === 'pedestrian'),
      casualties: s.casualties.length,
      collisions_building: count('collision', (e) => e.with === 'building'),
      lane_departures: count('lane_departure'),
      time_out_of_lane_s: r4(s.time_departed),
      collisions_prop: count('collision', (e) => e.with === 'prop'),
      max_impact_speed_mps: r4(s.max_impact),
      speeding_share: r4(s.t > 0 ? s.time_speeding / s.t : 0),
      ...s.driving.summary(s.t),
      ...s.hazards.summary(),
    };
  }

  /** Events so far, in the order they began; open episodes end now (ongoing: true). */
  function events() {
    return s.events.map((e) => {
      const o = {};
      for (const [k, v] of Object.entries(e)) if (!k.startsWith('_')) o[k] = v;
      if (EPISODES.includes(e.type) && o.t_end_s === undefined) {
        const end = e.type === 'speeding' || e.type === 'lane_departure' ? s.t : e._last ?? s.t;
        o.t_end_s = r4(end);
        o.duration_s = r4(end - e.t_s);
        o.ongoing = true;
      }
      return o;
    });
  }

  return {
    thresholds: th,
    thresholdErrors,
    setThresholds: (obj) => applyThresholds(th, obj),
    start,
    step,
    summary,
    events,
    samples: () => s.samples,
    /** Pedestrians knocked down so far (the casualty events, in order). */
    casualties: () => s.casualties,
    startedAt: () => s.started_at_sim_s,
    time: () => s.t,
  };
}
