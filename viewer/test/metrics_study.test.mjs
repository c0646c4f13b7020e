// SPDX-License-Identifier: Apache-2.0
// Study-grade driver metrics (issue 25) on scripted car state sequences (node --test):
// hazard reactions and closest approach, lane keeping, speeding share, harsh accelerations,
// eyes off the road, reported collision contacts, thresholds and the run's identity.
import assert from 'node:assert/strict';
import test from 'node:test';

import { createCar } from '../src/drive/physics.js';
import { observe } from '../src/drive/state.js';
import { boxDiscTimeToCollision, boxesDistance, boxPointDistance } from '../src/metrics/geometry.js';
import { createRecorder, EVENT_COLUMNS, eventsCSV, metricsObject, SAMPLE_COLUMNS, samplesCSV,
  THRESHOLDS, toJSON } from '../src/metrics/index.js';
import { junction, LaneIndex } from './drive_fixture.mjs';

function setup(extra = {}) {
  const lanes = junction();
  const index = new LaneIndex(lanes);
  return { index, rec: createRecorder({ lanes, index, ...extra }) };
}

/** Feeds the recorder at 100 Hz: pose(t) -> {x, y, heading_rad, speed_mps (front axle),
 *  accel_mps2, brake, steer_rad, view_heading_rad}; world(t) -> the world's fields. */
function drive(rec, index, pose, world, seconds, dt = 0.01) {
  let match = null;
  for (let i = 0; i <= Math.round(seconds / dt); i++) {
    const t = i * dt;
    const p = pose(t);
    const car = createCar(p.x, p.y, p.heading_rad, p.speed_mps);
    car.accel_mps2 = p.accel_mps2 ?? 0;
    car.controls.brake = p.brake ?? 0;
    const box = observe(car, null, 0, index).box;
    match = index.match(box.x, box.y, p.heading_rad, match ? match.lane : null);
    const state = observe(car, match, 0, index);
    state.steer_rad = p.steer_rad ?? 0;
    state.view_heading_rad = p.view_heading_rad ?? null;
    rec.step(i === 0 ? 0 : dt, state, { sim_s: t, ...world(t) });
  }
}

const east = (x0, v, extra = () => ({})) => (t) => ({ x: x0 + v * t, y: -1.75, heading_rad: 0,
  speed_mps: v, ...extra(t) });
const byType = (rec, type) => rec.events().filter((e) => e.type === type);
const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

// A pedestrian hazard far from the car (no closest-approach effects), active in [on, off).
function farHazard(on, off, onset = on, extra = {}) {
  return (t) => ({ hazards: [{
    id: 'child', kind: 'pedestrian_steps_out', state: t < on ? 'pending' : t < off ? 'active' : 'done',
    onset_t_s: t < on ? null : onset, x: 100, y: 80, vx: 0, vy: 1.4, heading_rad: Math.PI / 2,
    length_m: 0.5, width_m: 0.5, ...extra }] });
}

test('hazard reaction: brake at 2.73 s after onset at 2.00 s is 0.73 s, interpolated inside the step', () => {
  const a = setup();
  drive(a.rec, a.index, east(-150, 10, (t) => ({ brake: t >= 2.73 ? 1 : 0 })), farHazard(2, 4), 6);
  const h = byType(a.rec, 'hazard');
  assert.equal(h.length, 1);
  assert.equal(h[0].hazard_id, 'child');
  assert.equal(h[0].hazard_kind, 'pedestrian_steps_out');
  assert.equal(h[0].reaction, 'brake');
  near(h[0].reaction_time_s, 0.73, 0.01, 'step pedal');
  near(h[0].onset_t_s, 2, 1e-9, 'onset');
  near(h[0].t_end_s, 4, 0.011, 'end');

  // A pedal ramp crossing 0.1 between steps (at 2.7345 s), and an onset between steps.
  const ramp = (t) => ({ brake: Math.min(1, Math.max(0, (t - 2.7245) * 10)) });
  const b = setup();
  drive(b.rec, b.index, east(-150, 10, ramp), farHazard(2, 4), 6);
  near(byType(b.rec, 'hazard')[0].reaction_time_s, 0.7345, 0.0005, 'ramp');
  const c = setup();
  drive(c.rec, c.index, east(-150, 10, ramp), farHazard(2.005, 4, 2.004), 6);
  near(byType(c.rec, 'hazard')[0].reaction_time_s, 0.7305, 0.0005, 'onset between steps');

  // The scenario's threshold: pedal 0.5 is reached 0.04 s later on the same ramp.
  const d = setup({ thresholds: { reaction_brake: 0.5 } });
  drive(d.rec, d.index, east(-150, 10, ramp), farHazard(2, 4), 6);
  near(byType(d.rec, 'hazard')[0].reaction_time_s, 0.7745, 0.0005, 'threshold 0.5');

  // Braking released before the onset does not count; braking through the onset is 0 s.
  const e = setup();
  drive(e.rec, e.index, east(-150, 10, (t) => ({ brake: (t >= 1 && t < 1.5) || t >= 3.1 ? 1 : 0 })),
    farHazard(2, 4), 6);
  near(byType(e.rec, 'hazard')[0].reaction_time_s, 1.1, 0.01, 'released before onset');
  const f = setup();
  drive(f.rec, f.index, east(-150, 10, (t) => ({ brake: t >= 1.5 ? 0.4 : 0 })), farHazard(2, 4), 6);
  assert.equal(byType(f.rec, 'hazard')[0].reaction_time_s, 0);
  assert.equal(a.rec.summary().hazards, 1);
  assert.equal(a.rec.summary().hazards_reacted, 1);
  near(a.rec.summary().mean_reaction_time_s, 0.73, 0.01, 'mean');
});

test('hazard reaction by steering: the road-wheel angle leaving its value at onset', () => {
  // 0.02 rad held at onset, then turning right at 0.1 rad/s from 2.5 s: 0.035 rad away at 2.85 s.
  const steer = (t) => ({ steer_rad: 0.02 - Math.max(0, t - 2.5) * 0.1, brake: t >= 3 ? 1 : 0 });
  const a = setup();
  drive(a.rec, a.index, east(-150, 10, steer), farHazard(2, 4), 6);
  const h = byType(a.rec, 'hazard')[0];
  assert.equal(h.reaction, 'steer');
  near(h.reaction_time_s, 0.85, 0.0005, 'steer');
  // A larger steering threshold (set after creation): the brake at 3.0 s comes first.
  const b = setup();
  assert.deepEqual(b.rec.setThresholds({ reaction_steer_rad: 0.07 }), []);
  drive(b.rec, b.index, east(-150, 10, steer), farHazard(2, 4), 6);
  assert.equal(byType(b.rec, 'hazard')[0].reaction, 'brake');
  near(byType(b.rec, 'hazard')[0].reaction_time_s, 1.0, 0.01, 'brake first');
});

test('no reaction within 5 s after the hazard is over (or before the run ends) is null', () => {
  const late = setup();
  drive(late.rec, late.index, east(-150, 10, (t) => ({ brake: t >= 9.5 ? 1 : 0 })), farHazard(2, 4), 10);
  const h = byType(late.rec, 'hazard')[0];
  assert.equal(h.reaction, null);
  assert.equal(h.reaction_time_s, null);
  assert.equal(late.rec.summary().hazards_reacted, 0);
  assert.equal(late.rec.summary().mean_reaction_time_s, null);
  const inWindow = setup();
  drive(inWindow.rec, inWindow.index, east(-150, 10, (t) => ({ brake: t >= 8.5 ? 1 : 0 })), farHazard(2, 4), 10);
  near(byType(inWindow.rec, 'hazard')[0].reaction_time_s, 6.5, 0.01, 'in window');
  const ends = setup();
  drive(ends.rec, ends.index, east(-150, 10), farHazard(2, 8), 5);
  const open = byType(ends.rec, 'hazard')[0];
  assert.equal(open.reaction, null);
  assert.equal(open.ongoing, true);
});

test('hazard closest approach: a pedestrian disc on the path, then the car hits it', () => {
  // Front axle from x = -150 at 10 m/s (bumper at -149.1 + 10 t); a pedestrian of 0.5 m
  // (radius 0.25) stands at x = -100 on the lane's centre, active for t in [1, 2].
  const hz = (t) => ({ hazards: [{ id: 'p', kind: 'pedestrian_steps_out',
    state: t < 1 ? 'pending' : t <= 2.0001 ? 'active' : 'done', onset_t_s: t < 1 ? null : 1,
    x: -100, y: -1.75, vx: 0, vy: 0, heading_rad: 0, length_m: 0.5, width_m: 0.5 }] });
  const { index, rec } = setup();
  drive(rec, index, east(-150, 10), hz, 6);
  const h = byType(rec, 'hazard')[0];
  // Gap at t = 2: -100 - 0.25 - (-149.1 + 20) = 28.85 m, closing at 10 m/s.
  near(h.min_distance_m, 28.85, 1e-3, 'distance');
  near(h.ttc_min_s, 2.885, 1e-3, 'ttc');
  assert.equal(h.speed_at_min_ttc_mps, 10);
  assert.equal(h.collision, true); // Touches at t = 4.885 s, still within the window.
  assert.equal(h.impact_speed_mps, 10);
  const s = rec.summary();
  near(s.min_hazard_ttc_s, 2.885, 1e-3, 'summary ttc');
  assert.equal(s.hazard_collisions, 1);

  // Sudden fog has no position: no approach figures, the reaction still counts.
  const fog = setup();
  drive(fog.rec, fog.index, east(-150, 10, (t) => ({ brake: t >= 3 ? 1 : 0 })), (t) => ({ hazards: [{
    id: 'fog', kind: 'sudden_fog', state: t < 2 ? 'pending' : 'active', onset_t_s: t < 2 ? null : 2,
    x: null, y: null }] }), 4);
  const f = byType(fog.rec, 'hazard')[0];
  assert.equal(f.ttc_min_s, null);
  assert.equal(f.min_distance_m, null);
  assert.equal(f.collision, false);
  near(f.reaction_time_s, 1, 0.01, 'fog reaction');
  // A physics contact naming the hazard is a collision with it.
  const hit = setup();
  drive(hit.rec, hit.index, east(-150, 10), (t) => ({ ...farHazard(1, 3)(t),
    contacts: t >= 2 && t < 2.05 ? [{ with: 'pedestrian', other_id: 'child', other_kind: 'pedestrian',
      impact_speed_mps: 7, x: 0, y: 0 }] : [] }), 4);
  assert.equal(byType(hit.rec, 'hazard')[0].collision, true);
  assert.equal(hit.rec.summary().collisions_pedestrian, 1);
});

test('hazard closest approach: a red-light runner as an oriented box, against brute force', () => {
  // The runner drives north at 8 m/s through x = -100 (4.5 x 1.8 m box); the car east at 10 m/s.
  const runner = (t) => ({ id: 'rlr', kind: 'red_light_runner', state: t < 1 ? 'pending' : t < 3 ? 'active' : 'done',
    onset_t_s: t < 1 ? null : 1, x: -100, y: -40 + 8 * t, vx: 0, vy: 8, heading_rad: Math.PI / 2,
    length_m: 4.5, width_m: 1.8 });
  const { index, rec } = setup();
  drive(rec, index, east(-150, 10), (t) => ({ hazards: [runner(t)] }), 4);
  const h = byType(rec, 'hazard')[0];
  // Brute force: step the two shapes forwards by 1 ms from each active state and find the
  // first touch of any of the car's three discs (centre and +-1.35 m, radius 0.9).
  let best = Infinity;
  let bestDist = Infinity;
  for (let i = 100; i < 300; i++) {
    const t = i * 0.01;
    const r = runner(t);
    const cx = -150 + 10 * t - 1.35;
    const carBox = { x: cx, y: -1.75, heading_rad: 0, half_length_m: 2.25, half_width_m: 0.9 };
    const box = { x: r.x, y: r.y, heading_rad: r.heading_rad, half_length_m: 2.25, half_width_m: 0.9 };
    bestDist = Math.min(bestDist, boxesDistance(carBox, box));
    for (let tau = 0; tau < best && tau < 6; tau += 0.001) {
      const moved = { ...box, y: box.y + 8 * tau };
      if ([-1.35, 0, 1.35].some((k) => boxPointDistance(moved, cx + k + 10 * tau, -1.75) <= 0.9)) {
        best = Math.min(best, tau);
        break;
      }
    }
  }
  assert.ok(Number.isFinite(best));
  near(h.ttc_min_s, best, 0.0015, 'ttc');
  near(h.min_distance_m, bestDist, 1e-3, 'distance');
});

test('geometry: disc against a moving box and box-to-box distance', () => {
  const box = { x: 0, y: 0, heading_rad: 0, half_length_m: 2, half_width_m: 1 };
  // Head on along the axis: the disc's edge reaches x = 2 when its centre is at 2.5.
  near(boxDiscTimeToCollision(box, 10, 0, -2, 0, 0.5), 3.75, 1e-9, 'head on');
  // Towards the corner (2, 1) along the diagonal: touches at distance 0.5 from the corner.
  const d = Math.hypot(3, 3) - 0.5;
  near(boxDiscTimeToCollision(box, 5, 4, -3 / Math.hypot(3, 3), -3 / Math.hypot(3, 3), 0.5), d, 1e-9, 'corner');
  assert.equal(boxDiscTimeToCollision(box, 5, 4, 1, 0, 0.5), Infinity);
  assert.equal(boxDiscTimeToCollision(box, 2.3, 0, 1, 0, 0.5), 0);
  // Rotated by 90 degrees: its long side now along y.
  const rot = { ...box, heading_rad: Math.PI / 2 };
  near(boxDiscTimeToCollision(rot, 0, 10, 0, -1, 0.5), 7.5, 1e-9, 'rotated');
  near(boxesDistance(box, { ...box, x: 7 }), 3, 1e-12, 'side by side');
  near(boxesDistance(box, { ...box, x: 7, y: 5 }), Math.hypot(3, 3), 1e-12, 'corners');
  assert.equal(boxesDistance(box, { ...box, x: 1, heading_rad: 0.5 }), 0);
});

test('lane keeping: SDLP and mean |lateral| on lanes outside junctions above 5 m/s', () => {
  // Lateral 0.3 m for half of each second and -0.1 m for the other half: mean 0.1, SD 0.2.
  // Then 3 m/s with 0.8 m off centre (too slow to count).
  const lat = (t) => (t < 8 ? ((t + 1e-7) % 1 < 0.5 ? 0.3 : -0.1) : 0.8);
  const pose = (t) => ({ x: -190 + 10 * Math.min(t, 8) + 3 * Math.max(0, t - 8), y: -1.75 + lat(t),
    heading_rad: 0, speed_mps: t < 8 ? 10 : 3 });
  const a = setup();
  drive(a.rec, a.index, pose, () => ({}), 10);
  const s = a.rec.summary();
  near(s.sdlp_m, 0.2, 1e-3, 'sdlp');
  near(s.mean_lateral_m, 0.1, 1e-3, 'mean');
  near(s.mean_abs_lateral_m, 0.2, 1e-3, 'mean abs');
  near(s.lane_keeping_time_s, 8, 0.011, 'time');

  // A sine of amplitude 0.25 m over whole periods: SD 0.25 / sqrt(2).
  const b = setup();
  drive(b.rec, b.index, (t) => ({ x: -190 + 10 * t, y: -1.75 + 0.25 * Math.sin(Math.PI * t), heading_rad: 0,
    speed_mps: 10 }), () => ({}), 8);
  near(b.rec.summary().sdlp_m, 0.25 / Math.SQRT2, 1e-3, 'sine');

  // 0.5 m off centre only on the junction's connector: not counted.
  const c = setup();
  drive(c.rec, c.index, (t) => {
    const x = -60 + 10 * t;
    return { x, y: -1.75 + (x > -6 && x < 8 ? -0.5 : 0), heading_rad: 0, speed_mps: 10 };
  }, () => ({}), 8);
  assert.ok(c.rec.summary().sdlp_m < 1e-4, `junction ${c.rec.summary().sdlp_m}`);
  assert.ok(c.rec.summary().lane_keeping_time_s < 7.5);
});

test('speeding share is time speeding over the drive time', () => {
  const { index, rec } = setup();
  const profile = (t) => (t < 2 ? 10 : t < 5 ? 16 : t < 7 ? 12 : t < 8 ? 17 : 10);
  let x = -190;
  let last = 0;
  drive(rec, index, (t) => {
    x += profile(last) * (t - last);
    last = t;
    return { x, y: -1.75, heading_rad: 0, speed_mps: profile(t) };
  }, () => ({}), 9);
  const s = rec.summary();
  near(s.speeding_share, s.time_speeding_s / s.duration_s, 1e-4, 'share');
  near(s.speeding_share, 4 / 9, 0.005, 'share value');
});

test('harsh braking and acceleration episodes of at least 0.3 s', () => {
  // -5 in [2, 2.5) with -6 in [2.2, 2.3); -5 for 0.2 s (too short); +3.5 in [6, 7);
  // -4.5 in [8, 8.35); -5 from 9.5 s to the end (ongoing).
  const acc = (t) => (t >= 2.2 && t < 2.3 ? -6 : (t >= 2 && t < 2.5) || (t >= 4 && t < 4.2) ? -5
    : t >= 6 && t < 7 ? 3.5 : t >= 8 && t < 8.35 ? -4.5 : t >= 9.5 ? -5 : 0);
  const pose = east(-190, 10, (t) => ({ accel_mps2: acc(t + 1e-7) }));
  const { index, rec } = setup();
  drive(rec, index, pose, () => ({}), 10);
  const hb = byType(rec, 'harsh_brake');
  assert.equal(hb.length, 3);
  near(hb[0].t_s, 2, 0.011, 'start');
  near(hb[0].duration_s, 0.5, 0.011, 'duration');
  assert.equal(hb[0].peak_accel_mps2, -6);
  near(hb[1].duration_s, 0.35, 0.011, 'second');
  assert.equal(hb[1].peak_accel_mps2, -4.5);
  assert.equal(hb[2].ongoing, true);
  const ha = byType(rec, 'harsh_accel');
  assert.equal(ha.length, 1);
  near(ha[0].duration_s, 1, 0.011, 'accel');
  assert.equal(ha[0].peak_accel_mps2, 3.5);
  const s = rec.summary();
  assert.equal(s.harsh_brakes, 3);
  assert.equal(s.harsh_accels, 1);
  const ts = rec.events().map((e) => e.t_s);
  assert.deepEqual(ts, [...ts].sort((a, b) => a - b), 'events in the order they began');
  // Threshold 5.5: only the 0.1 s at -6 passes it, too short.
  const b = setup({ thresholds: { harsh_brake_mps2: 5.5 } });
  drive(b.rec, b.index, pose, () => ({}), 10);
  assert.equal(b.rec.summary().harsh_brakes, 0);
});

test('eyes off the road: look direction beyond 30 degrees from the lane direction', () => {
  const deg = Math.PI / 180;
  // Car heading 0 on lane 0 until 7 s, then crabbing at 0.3 rad (the lane still runs east).
  const view = (t) => (t >= 1 && t < 2.5 ? 40 * deg : t >= 3 && t < 4 ? 20 * deg
    : t >= 5 && t < 5.5 ? -35 * deg : t >= 6 && t < 7 ? null : t >= 7 && t < 8 ? 0.3 + 20 * deg : 0);
  const pose = (t) => {
    const h = t >= 7 ? 0.3 : 0;
    const v = view(t + 1e-7);
    return { x: -190 + 10 * t, y: -1.75, heading_rad: h, speed_mps: 10,
      view_heading_rad: v === null ? null : v + (t >= 7 && t < 8 ? 0 : h) };
  };
  const { index, rec } = setup();
  drive(rec, index, pose, () => ({}), 8.5);
  const ev = byType(rec, 'eyes_off_road');
  assert.equal(ev.length, 3);
  near(ev[0].duration_s, 1.5, 0.011, 'first');
  near(ev[0].max_off_road_deg, 40, 1e-3, 'angle');
  near(ev[1].duration_s, 0.5, 0.011, 'second');
  near(ev[2].t_s, 7, 0.011, 'crabbing');
  near(ev[2].max_off_road_deg, 0.3 / deg + 20, 0.01, 'crabbing angle');
  near(rec.summary().eyes_off_road_s, 3, 0.03, 'total');
  assert.equal(rec.summary().eyes_off_road_episodes, 3);
  const wide = setup();
  wide.rec.setThresholds({ eyes_off_road_deg: 45 });
  drive(wide.rec, wide.index, pose, () => ({}), 8.5);
  assert.equal(wide.rec.summary().eyes_off_road_s, 0);
});

test('collisions reported by the physics world, counted by kind with their impact speed', () => {
  const at = (t, a, b) => t >= a && t < b;
  const contacts = (t) => [
    ...(at(t, 1, 1.2) ? [{ with: 'building', other_id: 5, other_kind: 'building', impact_speed_mps: 4.2, x: 1, y: 2 }] : []),
    ...(at(t, 2, 2.1) ? [{ with: 'prop', other_id: 9, other_kind: 'bollard', impact_speed_mps: 3, x: 3, y: 4 }] : []),
    ...(at(t, 3, 3.1) || at(t, 5, 5.1) ? [{ with: 'vehicle', other_id: 3, other_kind: 'car', impact_speed_mps: 6, x: 5, y: 6 }] : []),
    ...(at(t, 6, 6.05) ? [1, 2].map((k) => ({ with: 'pedestrian', other_id: 4, other_kind: 'pedestrian',
      impact_speed_mps: 2 + k, x: k, y: 0 })) : []),
  ];
  // A pedestrian stands on the car's path: with contacts given, the geometric test is off.
  const peds = [{ id: 77, x: -150, y: -1.75, vx: 0, vy: 0 }];
  const { index, rec } = setup();
  drive(rec, index, east(-190, 10), (t) => ({ contacts: contacts(t), pedestrians: peds }), 7);
  const s = rec.summary();
  assert.equal(s.collisions, 5);
  assert.equal(s.collisions_building, 1);
  assert.equal(s.collisions_prop, 1);
  assert.equal(s.collisions_vehicle, 2);
  assert.equal(s.collisions_pedestrian, 1);
  assert.equal(s.max_impact_speed_mps, 6);
  const col = byType(rec, 'collision');
  assert.deepEqual(col.map((e) => e.impact_speed_mps), [4.2, 3, 6, 6, 3]);
  assert.equal(col[1].other_kind, 'bollard');
  assert.equal(col[0].contact_x, 1);
  assert.equal(col[4].other_id, 4);
  // Without contacts, today's geometric test finds the pedestrian.
  const geo = setup();
  drive(geo.rec, geo.index, east(-190, 10), () => ({ pedestrians: peds }), 7);
  assert.equal(geo.rec.summary().collisions_pedestrian, 1);
  assert.equal(geo.rec.summary().collisions_prop, 0);
});

test('thresholds: contract defaults, scenario values at creation, setThresholds later, all exported', () => {
  assert.equal(THRESHOLDS.reaction_brake, 0.1);
  assert.equal(THRESHOLDS.reaction_steer_rad, 0.035);
  assert.equal(THRESHOLDS.harsh_brake_mps2, 4);
  assert.equal(THRESHOLDS.harsh_accel_mps2, 3);
  assert.equal(THRESHOLDS.eyes_off_road_deg, 30);
  const { rec } = setup({ thresholds: { near_miss_ttc_s: 2, bogus: 1, harsh_accel_mps2: -1 } });
  assert.equal(rec.thresholds.near_miss_ttc_s, 2);
  assert.equal(rec.thresholds.harsh_accel_mps2, 3);
  assert.equal(rec.thresholdErrors.length, 2);
  assert.match(rec.thresholdErrors.join('\n'), /harsh_accel_mps2: expected a number >= 0, got -1/);
  assert.deepEqual(rec.setThresholds({ eyes_off_road_deg: 45, speeding_tolerance_frac: 0.1 }), []);
  assert.deepEqual(rec.setThresholds({ sample_hz: 0 }).length, 1);
  const doc = metricsObject(rec);
  assert.equal(doc.thresholds.eyes_off_road_deg, 45);
  assert.equal(doc.thresholds.near_miss_ttc_s, 2);
  assert.equal(doc.thresholds.speeding_tolerance_frac, 0.1);
  assert.equal(doc.thresholds.sample_hz, 10);
});

test('exports: the run identity, new columns after the old ones, hazard rows', () => {
  const { index, rec } = setup();
  drive(rec, index, east(-150, 10, (t) => ({ brake: t >= 2.73 ? 1 : 0, steer_rad: 0.01 })), farHazard(2, 4), 5);
  const scenario = { name: 'night-rain', seed: 7, file_hash: 'ab12' };
  const doc = JSON.parse(toJSON(rec, { city: 'c', scenario }));
  assert.deepEqual(Object.keys(doc).slice(0, 4), ['format', 'version', 'scenario', 'city']);
  assert.deepEqual(doc.scenario, scenario);
  assert.equal(JSON.parse(toJSON(rec, { city: 'c' })).scenario, undefined);
  const withId = samplesCSV(rec, { scenario }).split('\n');
  assert.equal(withId[0], '# scenario=night-rain seed=7 file_hash=ab12');
  assert.equal(withId[1], SAMPLE_COLUMNS.join(','));
  assert.equal(eventsCSV(rec, { scenario }).split('\n')[0], '# scenario=night-rain seed=7 file_hash=ab12');
  assert.equal(samplesCSV(rec).split('\n')[0], SAMPLE_COLUMNS.join(','));
  assert.equal(samplesCSV(rec, { scenario }), `${withId[0]}\n${samplesCSV(rec)}`);
  assert.deepEqual(SAMPLE_COLUMNS.slice(0, 14), ['t_s', 'sim_s', 'x', 'y', 'z', 'heading_deg', 'speed_mps',
    'accel_mps2', 'lane', 'speed_limit_mps', 'lateral_m', 'throttle', 'brake', 'steer']);
  assert.equal(EVENT_COLUMNS[27], 'ongoing');
  assert.equal(doc.samples[5].steer_rad, 0.01);
  const ev = eventsCSV(rec).trim().split('\n');
  const row = ev.find((l) => l.startsWith('hazard,')).split(',');
  assert.equal(row[EVENT_COLUMNS.indexOf('hazard_id')], 'child');
  assert.equal(row[EVENT_COLUMNS.indexOf('reaction')], 'brake');
  near(Number(row[EVENT_COLUMNS.indexOf('reaction_time_s')]), 0.73, 0.01, 'csv reaction');
  assert.equal(row[EVENT_COLUMNS.indexOf('collision')], 'false');
  // Every event field has a column.
  for (const e of rec.events()) for (const k of Object.keys(e)) assert.ok(EVENT_COLUMNS.includes(k), k);
});
