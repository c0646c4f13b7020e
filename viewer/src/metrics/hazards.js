// SPDX-License-Identifier: Apache-2.0
// Responses to the scenario's scripted hazards (issue 25; the viewer hazard view of
// docs/scenarios.md): per hazard, the driver's reaction time from its onset to the first
// brake or steering input, the closest approach (constant-velocity time to collision and
// distance) while it is active, and whether the car hit it. docs/drive.md defines each field.
// Reaction time as the first control input past a threshold: Green, How long does it take to
// stop? Methodological analysis of driver perception-brake times, Transportation Human
// Factors 2(3), 2000.

import {
  boxDiscTimeToCollision,
  boxesDistance,
  boxesOverlap,
  boxPointDistance,
  discTimeToCollision,
} from './geometry.js';

const r4 = (v) => (v === null || v === undefined || !Number.isFinite(v) ? v : Math.round(v * 1e4) / 1e4);
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** Earliest fraction u in [u0, 1] of a step at which a value moving linearly from a to b
 *  reaches level: value >= level, or |value| >= level when twoSided; null when it does not
 *  within the step. */
export function crossingFraction(a, b, u0, level, twoSided) {
  const at = (u) => a + u * (b - a);
  const hit = (v) => (twoSided ? Math.abs(v) >= level : v >= level);
  if (hit(at(u0))) return u0;
  if (!hit(b)) return null;
  const target = twoSided && b < 0 ? -level : level;
  return Math.min(1, Math.max(u0, (target - a) / (b - a)));
}

/** Tracker of the hazards seen in world.hazards. th: the recorder's thresholds (read live, so
 *  setThresholds applies). */
export function createHazardTracker(th) {
  const recs = new Map(); // hazard id -> record, in order of onset sighting

  // 1. Closest approach and contact: the car as three discs along its axis (as for near
  // misses), a pedestrian as a disc of radius max(width, length) / 2, vehicles and doors as
  // oriented boxes centred on (x, y).
  function approach(rec, h, car) {
    const box = car.box;
    const r = box.half_width_m;
    const off = Math.max(0, box.half_length_m - r);
    const c = Math.cos(car.heading_rad);
    const s = Math.sin(car.heading_rad);
    const cvx = car.speed_mps * c;
    const cvy = car.speed_mps * s;
    const hvx = finite(h.vx) ? h.vx : 0;
    const hvy = finite(h.vy) ? h.vy : 0;
    const len = finite(h.length_m) ? h.length_m : 0;
    const wid = finite(h.width_m) ? h.width_m : 0;
    let ttc = Infinity;
    let dist;
    let touch;
    if (h.kind === 'pedestrian_steps_out') {
      const radius = Math.max(len, wid) / 2 || th.pedestrian_radius_m;
      for (const k of [-off, 0, off]) {
        ttc = Math.min(ttc, discTimeToCollision(h.x - box.x - c * k, h.y - box.y - s * k,
          hvx - cvx, hvy - cvy, r + radius));
      }
      const d = boxPointDistance(box, h.x, h.y);
      dist = Math.max(0, d - radius);
      touch = d < radius;
    } else {
      const hb = {
        x: h.x,
        y: h.y,
        heading_rad: finite(h.heading_rad) ? h.heading_rad : 0,
        half_length_m: (len || 4.5) / 2,
        half_width_m: (wid || 1.8) / 2,
      };
      for (const k of [-off, 0, off]) {
        ttc = Math.min(ttc, boxDiscTimeToCollision(hb, box.x + c * k, box.y + s * k, cvx - hvx,
          cvy - hvy, r));
      }
      dist = boxesDistance(box, hb);
      touch = boxesOverlap(box, hb);
    }
    return { ttc, dist, touch };
  }

  function collide(rec, speed) {
    if (rec.ev.collision) return;
    rec.ev.collision = true;
    rec.ev.impact_speed_mps = r4(Math.abs(speed));
  }

  // 2. Reaction: the first crossing of the brake or steering threshold after onset, placed
  // inside the step by linear interpolation of the inputs (the recorder runs at 100 Hz).
  function react(rec, t0, t1, prev, car) {
    if (rec.onset > t1 + 1e-9) return;
    const u0 = t1 > t0 ? Math.min(1, Math.max(0, (rec.onset - t0) / (t1 - t0))) : 1;
    const b1 = car.controls?.brake ?? 0;
    const b0 = prev ? prev.brake : b1;
    const st1 = finite(car.steer_rad) ? car.steer_rad : null;
    const st0 = prev && finite(prev.steer_rad) ? prev.steer_rad : st1;
    if (rec.ref_steer === undefined) {
      rec.ref_steer = st1 === null ? null : st0 + u0 * (st1 - st0);
    } else if (rec.ref_steer === null && st1 !== null) {
      rec.ref_steer = st1; // The steering angle became known only now.
    }
    const ub = crossingFraction(b0, b1, u0, th.reaction_brake, false);
    const us = rec.ref_steer === null || st1 === null ? null
      : crossingFraction(st0 - rec.ref_steer, st1 - rec.ref_steer, u0, th.reaction_steer_rad, true);
    let u = null;
    let how = null;
    if (ub !== null) [u, how] = [ub, 'brake'];
    if (us !== null && (u === null || us < u)) [u, how] = [us, 'steer'];
    if (u === null) return;
    const tc = t0 + u * (t1 - t0);
    if (rec.done_t !== null && tc > rec.done_t + th.hazard_reaction_window_s + 1e-9) return;
    rec.ev.reaction = how;
    rec.ev.reaction_time_s = r4(Math.max(0, tc - rec.onset));
    rec.reacted = true;
  }

  /** One recorder step from t0 to t1 (drive time). prev: {brake, steer_rad} at t0, or null.
   *  emit(event) adds a new hazard event; base(type) builds its common fields. */
  function step(t0, t1, prev, car, world, emit, base) {
    const list = Array.isArray(world.hazards) ? world.hazards : null;
    const contactIds = new Set();
    for (const c of Array.isArray(world.contacts) ? world.contacts : []) {
      if (c && c.hazard_id !== undefined) contactIds.add(c.hazard_id);
      if (c && c.other_id !== undefined) contactIds.add(c.other_id);
    }
    if (list) {
      const present = new Set();
      for (const h of list) {
        if (!h || h.id === undefined || h.state === 'pending') continue;
        present.add(h.id);
        let rec = recs.get(h.id);
        if (!rec) {
          const onset = finite(h.onset_t_s) ? h.onset_t_s : t1;
          const ev = base('hazard');
          ev.t_s = r4(onset);
          Object.assign(ev, {
            hazard_id: h.id, hazard_kind: h.kind ?? null, onset_t_s: r4(onset), reaction: null,
            reaction_time_s: null, ttc_min_s: null, min_distance_m: null,
            speed_at_min_ttc_mps: null, collision: false, impact_speed_mps: null,
          });
          rec = { onset, ref_steer: undefined, done_t: null, reacted: false, closed: false,
            ttc: Infinity, ev };
          recs.set(h.id, rec);
          emit(ev);
        }
        // A pedestrian knocked down (state 'down') is over as a hazard.
        if ((h.state === 'done' || h.state === 'down') && rec.done_t === null) {
          rec.done_t = t1;
          rec.ev.t_end_s = r4(t1);
          rec.ev.duration_s = r4(t1 - rec.onset);
        }
        if (contactIds.has(h.id)) collide(rec, car.speed_mps);
        if (!finite(h.x) || !finite(h.y) || rec.closed) continue;
        const a = approach(rec, h, car);
        if (a.touch) collide(rec, car.speed_mps);
        if (h.state !== 'active') continue;
        if (a.ttc < rec.ttc) {
          rec.ttc = a.ttc;
          rec.ev.ttc_min_s = r4(a.ttc);
          rec.ev.speed_at_min_ttc_mps = r4(Math.abs(car.speed_mps));
        }
        rec.ev.min_distance_m = r4(Math.min(rec.ev.min_distance_m ?? Infinity, a.dist));
      }
      // A hazard that left the list is over.
      for (const [id, rec] of recs) {
        if (present.has(id) || rec.done_t !== null) continue;
        rec.done_t = t1;
        rec.ev.t_end_s = r4(t1);
        rec.ev.duration_s = r4(t1 - rec.onset);
      }
    }
    // 3. Reactions, until the hazard has been over for the reaction window.
    for (const rec of recs.values()) {
      if (rec.closed) continue;
      if (!rec.reacted) react(rec, t0, t1, prev, car);
      if (rec.done_t !== null && t1 >= rec.done_t + th.hazard_reaction_window_s) rec.closed = true;
    }
  }

  function summary() {
    const all = [...recs.values()];
    const reacted = all.filter((r) => r.reacted);
    const ttcs = all.map((r) => r.ttc).filter(Number.isFinite);
    return {
      hazards: all.length,
      hazards_reacted: reacted.length,
      mean_reaction_time_s: reacted.length
        ? r4(reacted.reduce((a, r) => a + r.ev.reaction_time_s, 0) / reacted.length) : null,
      min_hazard_ttc_s: ttcs.length ? r4(Math.min(...ttcs)) : null,
      hazard_collisions: all.filter((r) => r.ev.collision).length,
    };
  }

  return { step, summary };
}
