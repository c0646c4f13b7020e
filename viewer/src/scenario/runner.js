// SPDX-License-Identifier: Apache-2.0
// The scenario runner (issue 25, docs/scenarios.md): each physics step it fires the hazards'
// triggers, moves the hazard actors and gives the scenario's weather at that drive time. It is
// a pure function of the scenario and of the sequence of (drive time, car pose) it is given: no
// Math.random, no clock, so the same drive replays the same hazards to the bit. No DOM, no
// three.js.

import { LaneIndex } from '../drive/lanes.js';
import { wrapAngle } from '../drive/physics.js';

/** Actor sizes, speed profiles and fallbacks for values a served scenario always has. */
export const ACTORS = Object.freeze({
  pedestrian: { length_m: 0.5, width_m: 0.5, ramp_s: 0.3 }, // ramp: from rest to speed
  vehicle: { length_m: 4.5, width_m: 1.8 },
  pull_out_accel_mps2: 2.0, // a parked car pulling out gently
  door: { length_m: 1.0, width_m: 0.2, swing_s: 0.5, swing_rad: Math.PI / 2 },
  lane_snap_m: 3.0, // red_light_runner: a lane this close to `at`...
  lane_heading_rad: Math.PI / 6, // ...and within 30 degrees of heading_deg is followed.
  max_chain: 64, // lanes followed at most
  z_search_m: 15, // an actor's height: the nearest vehicle lane within this
  defaults: {
    pedestrian_steps_out: { speed_mps: 1.4, travel_m: 6 },
    red_light_runner: { speed_mps: 13.9, travel_m: 60 },
    pull_out: { speed_mps: 4, travel_m: 12 },
  },
});

const EPS = 1e-9;
const DEG = Math.PI / 180;
const KINDS = ['clear', 'cloudy', 'rain', 'storm'];
const num = (v, d) => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** Normalises a scenario weather to the viewer's kinds: "fog" is clear weather with fog (as in
 *  weather.js); an unknown kind keeps `prev`. */
function normWeather(kind, fog, prev) {
  if (kind === 'fog') return { kind: 'clear', fog: true };
  return { kind: KINDS.includes(kind) ? kind : prev.kind, fog: typeof fog === 'boolean' ? fog : prev.fog };
}

// -- Paths ----------------------------------------------------------------------------------

/** A polyline path [[x, y, z|null], ...] with cumulative lengths. */
function makePath(points) {
  const cum = [0];
  for (let i = 1; i < points.length; i++) {
    cum.push(cum[i - 1] + Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]));
  }
  return { points, cum, length: cum[cum.length - 1] };
}

/** Point and tangent heading at arc length s (clamped). */
function pathAt(path, s) {
  const { points, cum } = path;
  const sc = Math.min(path.length, Math.max(0, s));
  let i = 0;
  while (i + 2 < points.length && cum[i + 1] < sc) i++;
  const a = points[i];
  const b = points[i + 1];
  const seg = cum[i + 1] - cum[i];
  const u = seg > 0 ? (sc - cum[i]) / seg : 0;
  const z = a[2] === null || b[2] === null ? a[2] ?? b[2] : a[2] + u * (b[2] - a[2]);
  return { x: a[0] + u * (b[0] - a[0]), y: a[1] + u * (b[1] - a[1]), z, heading_rad: Math.atan2(b[1] - a[1], b[0] - a[0]) };
}

/** Height of the nearest vehicle lane within z_search_m of (x, y), or null. */
function groundZ(index, x, y) {
  if (!index) return null;
  const cands = index.near(x, y, ACTORS.z_search_m);
  let best = null;
  for (const id of [...cands.keys()].sort((a, b) => a - b)) {
    const p = index.project(id, x, y, cands.get(id));
    if (p && p.dist_m <= ACTORS.z_search_m && (!best || p.dist_m < best.dist_m - 1e-12)) best = p;
  }
  return best ? best.z : null;
}

/** Straight path of `travel` metres from (x, y) along heading. */
function straightPath(index, x, y, heading, travel) {
  const x1 = x + Math.cos(heading) * travel;
  const y1 = y + Math.sin(heading) * travel;
  return makePath([[x, y, groundZ(index, x, y)], [x1, y1, groundZ(index, x1, y1)]]);
}

/** A red-light runner's path along the vehicle lanes: the lane nearest `at` (within
 *  lane_snap_m, heading within lane_heading_rad), from the projection on, then each time the
 *  successor that turns least (through first, ties to the lower id), until travel_m; past the
 *  chain's end straight on. null when no lane fits. */
function lanePath(index, x, y, heading, travel) {
  const cands = index.near(x, y, ACTORS.lane_snap_m);
  let start = null;
  let bestScore = Infinity;
  for (const id of [...cands.keys()].sort((a, b) => a - b)) {
    const p = index.project(id, x, y, cands.get(id));
    if (!p || p.dist_m > ACTORS.lane_snap_m) continue;
    const err = Math.abs(wrapAngle(heading - p.lane_heading_rad));
    if (err > ACTORS.lane_heading_rad) continue;
    const score = p.dist_m + 0.8 * err;
    if (score < bestScore - 1e-12) [start, bestScore] = [p, score];
  }
  if (!start) return null;
  const a = index.pointAt(start.lane, start.s_m);
  const pts = [[a.x, a.y, a.z]];
  let total = 0;
  let lane = index.lane(start.lane);
  let from = start.seg + 1; // first polyline point after the projection
  for (let n = 0; n < ACTORS.max_chain && lane && total < travel; n++) {
    for (let i = from; i < lane.points.length; i++) {
      const q = lane.points[i];
      const last = pts[pts.length - 1];
      const d = Math.hypot(q[0] - last[0], q[1] - last[1]);
      if (d < 1e-6) continue;
      pts.push([q[0], q[1], q[2] ?? null]);
      total += d;
    }
    const n1 = pts.length - 1;
    const endH = n1 > 0 ? Math.atan2(pts[n1][1] - pts[n1 - 1][1], pts[n1][0] - pts[n1 - 1][0]) : start.lane_heading_rad;
    let next = null;
    let turn = Infinity;
    for (const sid of [...(lane.successors || [])].sort((p, q) => p - q)) {
      const sl = index.lane(sid);
      if (!index.has(sid) || !sl || sl.points.length < 2) continue;
      const h = Math.atan2(sl.points[sl.points.length - 1][1] - sl.points[0][1], sl.points[sl.points.length - 1][0] - sl.points[0][0]);
      const t = Math.abs(wrapAngle(h - endH)) - (sl.turn === 'through' ? 0.01 : 0);
      if (t < turn - 1e-12) [next, turn] = [sl, t];
    }
    lane = next;
    from = 0;
  }
  if (pts.length < 2) return null;
  if (total < travel) {
    const p = pts[pts.length - 1];
    const q = pts[pts.length - 2];
    const h = Math.atan2(p[1] - q[1], p[0] - q[0]);
    const rest = travel - total;
    pts.push([p[0] + Math.cos(h) * rest, p[1] + Math.sin(h) * rest, p[2]]);
  }
  return makePath(pts);
}

// -- Motion ---------------------------------------------------------------------------------

/** Distance and speed tau seconds after onset, accelerating at accel (Infinity: at speed at
 *  once) to speed, stopping at travel. */
function profile(tau, speed, accel, travel) {
  const tr = Number.isFinite(accel) && accel > 0 ? speed / accel : 0;
  let s;
  let v;
  if (tau < tr) {
    s = 0.5 * accel * tau * tau;
    v = accel * tau;
  } else {
    s = 0.5 * speed * tr + speed * (tau - tr);
    v = speed;
  }
  if (s >= travel - EPS) return { s: travel, v: 0, done: true };
  return { s, v, done: false };
}

/** Builds the hazard's actor: {pose(tau) -> {x, y, z, heading_rad, vx, vy, done}, length_m,
 *  width_m}, tau the seconds since onset (< 0: not yet started). */
function makeActor(h, index) {
  const kind = h.kind;
  const at = h.at;
  const heading = num(h.heading_deg, 0) * DEG;
  const d = ACTORS.defaults[kind] || {};
  const speed = Math.max(0, num(h.speed_mps, d.speed_mps ?? 0));
  const travel = Math.max(0, num(h.travel_m, d.travel_m ?? 0));
  if (kind === 'door_opens') {
    // `at` is the open door's centre; it swings about its hinge (half its length back along
    // heading) from lying along the parked car (heading - 90 degrees) to pointing along heading.
    const { length_m, width_m, swing_s, swing_rad } = ACTORS.door;
    const hx = at[0] - Math.cos(heading) * length_m * 0.5;
    const hy = at[1] - Math.sin(heading) * length_m * 0.5;
    const z = groundZ(index, at[0], at[1]);
    const omega = swing_rad / swing_s;
    return {
      length_m,
      width_m,
      pose(tau) {
        const u = Math.min(1, Math.max(0, tau / swing_s));
        const ang = heading - swing_rad * (1 - u);
        const moving = tau >= 0 && tau < swing_s;
        const r = length_m * 0.5;
        const w = moving ? omega : 0;
        return {
          x: hx + Math.cos(ang) * r,
          y: hy + Math.sin(ang) * r,
          z,
          heading_rad: wrapAngle(ang),
          vx: moving ? -Math.sin(ang) * r * w : 0,
          vy: moving ? Math.cos(ang) * r * w : 0,
          done: tau >= swing_s - EPS,
        };
      },
    };
  }
  const dims = kind === 'pedestrian_steps_out' ? ACTORS.pedestrian : ACTORS.vehicle;
  let accel = Infinity; // red_light_runner: already at speed
  if (kind === 'pedestrian_steps_out') accel = speed / ACTORS.pedestrian.ramp_s;
  if (kind === 'pull_out') accel = ACTORS.pull_out_accel_mps2;
  const path = (kind === 'red_light_runner' && index && lanePath(index, at[0], at[1], heading, travel)) ||
    straightPath(index, at[0], at[1], heading, travel);
  return {
    length_m: dims.length_m,
    width_m: dims.width_m,
    path,
    pose(tau) {
      const m = tau < 0 ? { s: 0, v: 0, done: false } : profile(tau, speed, accel, travel);
      const p = pathAt(path, m.s);
      return { x: p.x, y: p.y, z: p.z, heading_rad: p.heading_rad, vx: m.v * Math.cos(p.heading_rad),
        vy: m.v * Math.sin(p.heading_rad), done: m.done };
    },
  };
}

// -- Triggers -------------------------------------------------------------------------------

/** A predicate (t_s, car) -> bool for the hazard's trigger. */
function makeTrigger(h) {
  const tr = h.trigger || {};
  if (typeof tr.time_s === 'number') return (t) => t >= tr.time_s - EPS;
  if (typeof tr.distance_m === 'number') {
    if (!Array.isArray(h.at)) throw new Error(`scenario: hazard "${h.id}": a distance_m trigger needs "at"`);
    return (t, car) => Math.hypot(car.x - h.at[0], car.y - h.at[1]) <= tr.distance_m + EPS;
  }
  if (Array.isArray(tr.position) && typeof tr.radius_m === 'number') {
    return (t, car) => Math.hypot(car.x - tr.position[0], car.y - tr.position[1]) <= tr.radius_m + EPS;
  }
  throw new Error(`scenario: hazard "${h.id}": expected a trigger with time_s, distance_m or position and radius_m`);
}

// -- The runner -----------------------------------------------------------------------------

/** Runner over a scenario (the /scenario.json object). opts.lanes: lanes.json (optional: actor
 *  heights and red-light runners that follow lanes); opts.index: a LaneIndex of the vehicle
 *  lanes to reuse instead. step(t_s, car) once per physics step, t_s non-decreasing drive time
 *  since the start, car {x, y (front axle), ...}; returns {hazards, weather, weather_changed,
 *  fired, onsets, ended}. */
export function createScenarioRunner(spec, opts = {}) {
  const index = opts.index || (opts.lanes ? new LaneIndex(opts.lanes) : null);
  const base = normWeather(spec.weather?.kind, !!spec.weather?.fog, { kind: 'clear', fog: false });
  const changes = (spec.weather?.changes || [])
    .map((c, i) => ({ ...c, i }))
    .sort((a, b) => a.at_s - b.at_s || a.i - b.i);
  const duration = num(spec.duration_s, Infinity);
  const hazards = (spec.hazards || []).map((h) => {
    if (h.kind !== 'sudden_fog' && !Array.isArray(h.at)) {
      throw new Error(`scenario: hazard "${h.id}": ${h.kind} needs "at"`);
    }
    return {
      h,
      trigger: makeTrigger(h),
      actor: h.kind === 'sudden_fog' ? null : makeActor(h, index),
      delay: Math.max(0, num(h.delay_s, 0)),
      fired_t: null, // drive time the trigger fired
      onset: null, // fired_t + delay
      onsetSeen: false,
      down: null, // {x, y, z, heading_rad} once the car knocked the pedestrian down
    };
  });
  let lastT = -Infinity;
  let lastWeather = null;

  function weatherAt(t) {
    let w = base;
    for (const c of changes) {
      if (c.at_s > t + EPS) break;
      w = normWeather(c.kind, c.fog, w);
    }
    let vis = null;
    for (const r of hazards) {
      if (r.h.kind !== 'sudden_fog' || r.onset === null || t < r.onset - EPS) continue;
      const v = num(r.h.visibility_m, null);
      vis = vis === null || (v !== null && v < vis) ? v : vis;
      w = { kind: w.kind, fog: true };
    }
    return { kind: w.kind, fog: w.fog, visibility_m: vis };
  }

  function view(r, t) {
    const h = r.h;
    const started = r.onset !== null && t >= r.onset - EPS;
    const state = !started ? 'pending' : h.kind === 'sudden_fog' ? 'active' : null;
    const common = { id: h.id, kind: h.kind, state, onset_t_s: started ? r.onset : null, trigger_t_s: r.fired_t };
    if (!r.actor) {
      return { ...common, x: null, y: null, z: null, vx: null, vy: null, heading_rad: null, length_m: 0,
        width_m: 0, visibility_m: num(h.visibility_m, null) };
    }
    if (r.down) {
      return { ...common, state: 'down', x: r.down.x, y: r.down.y, z: r.down.z, vx: 0, vy: 0,
        heading_rad: r.down.heading_rad, length_m: r.actor.length_m, width_m: r.actor.width_m };
    }
    const p = r.actor.pose(started ? Math.max(0, t - r.onset) : -1);
    return { ...common, state: state ?? (p.done ? 'done' : 'active'), x: p.x, y: p.y, z: p.z,
      vx: p.vx, vy: p.vy, heading_rad: p.heading_rad, length_m: r.actor.length_m, width_m: r.actor.width_m };
  }

  return {
    spec,
    duration_s: duration,
    /** A pedestrian hazard the car hit (a casualty, metrics/recorder.js) falls at (x, y) with
     *  its head along heading_rad and stays there, state 'down', from now on. Returns false for
     *  an unknown id or a hazard that is not a pedestrian. */
    knockDown(id, { x, y, heading_rad }) {
      const r = hazards.find((q) => q.h.id === id);
      if (!r || r.h.kind !== 'pedestrian_steps_out' || r.down) return false;
      const was = view(r, lastT);
      r.down = { x, y, z: was.z ?? null, heading_rad };
      return true;
    },
    /** Advances to drive time t_s with the car there. */
    step(t_s, car) {
      if (!(t_s >= lastT)) throw new Error(`scenario runner: time went back from ${lastT} to ${t_s}`);
      lastT = t_s;
      const fired = [];
      const onsets = [];
      for (const r of hazards) {
        if (r.fired_t === null && r.trigger(t_s, car)) {
          r.fired_t = t_s;
          r.onset = t_s + r.delay;
          fired.push(r.h.id);
        }
        if (r.onset !== null && !r.onsetSeen && t_s >= r.onset - EPS) {
          r.onsetSeen = true;
          onsets.push(r.h.id);
        }
      }
      const weather = weatherAt(t_s);
      const changed = !lastWeather || lastWeather.kind !== weather.kind || lastWeather.fog !== weather.fog ||
        lastWeather.visibility_m !== weather.visibility_m;
      lastWeather = weather;
      return { hazards: hazards.map((r) => view(r, t_s)), weather, weather_changed: changed, fired, onsets,
        ended: t_s >= duration - EPS };
    },
  };
}

/** Linear-fog distances for a visibility (metres): the fog reaches 95 % (the meteorological
 *  5 % contrast threshold) at visibility_m. */
export function fogRange(visibility_m) {
  const near = Math.min(20, visibility_m * 0.1);
  return { near, far: near + (visibility_m - near) / 0.95 };
}

/** Applies a runner weather to the viewer: weather.set(kind, fog) when it differs (weather.js
 *  also tells the live server), then the visibility over the fog distances weather.js set.
 *  Call after every step that changed it and after every server `env` (which re-applies
 *  weather.js's own distances). */
export function applyScenarioWeather(weather, scene, w) {
  if (weather.kind !== w.kind || weather.fog !== w.fog) weather.set(w.kind, w.fog);
  if (w.visibility_m !== null && scene && scene.fog) {
    const r = fogRange(w.visibility_m);
    scene.fog.near = r.near;
    scene.fog.far = r.far;
  }
}
