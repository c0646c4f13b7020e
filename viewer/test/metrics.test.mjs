// SPDX-License-Identifier: Apache-2.0
// Driver metrics on scripted trajectories through the synthetic junction (node --test).
import assert from 'node:assert/strict';
import test from 'node:test';

import { createRecorder, EVENT_COLUMNS, planState, SAMPLE_COLUMNS, eventsCSV, samplesCSV,
  toJSON } from '../src/metrics/index.js';
import { alongLanes, eastbound, junction, LaneIndex, LIMIT, script } from './drive_fixture.mjs';

function setup(extra = {}) {
  const lanes = junction();
  const index = new LaneIndex(lanes);
  const rec = createRecorder({ lanes, index, ...extra });
  return { lanes, index, rec };
}

const signalsAll = (state) => () => ({ signal: (id) => (id === 1 || id === 2 ? state : null) });
const byType = (rec, type) => rec.events().filter((e) => e.type === type);

test('driving through a red connector is exactly one red-light violation', () => {
  const { index, rec } = setup();
  // Front axle from x = -60 at 10 m/s for 8 s: crosses the stop line (x = -10) and the
  // junction onto lane 3.
  script(rec, index, eastbound(-60, 10), signalsAll('red'), 8);
  const red = byType(rec, 'red_light');
  assert.equal(red.length, 1);
  assert.equal(red[0].connector, 1);
  assert.equal(red[0].approach_lane, 0);
  // The front bumper (0.9 m ahead of the axle) reaches x = -10 when the axle is at -10.9.
  assert.ok(Math.abs(red[0].t_s - (60 - 10.9) / 10) <= 0.011, `t ${red[0].t_s}`);
  const s = rec.summary();
  assert.equal(s.red_light_violations, 1);
  assert.equal(s.yellow_light_entries, 0);
  assert.equal(s.signal_crossings, 1);
});

test('driving through on green is no violation', () => {
  const { index, rec } = setup();
  script(rec, index, eastbound(-60, 10), signalsAll('green'), 8);
  const s = rec.summary();
  assert.equal(s.red_light_violations, 0);
  assert.equal(s.yellow_light_entries, 0);
  assert.equal(s.signal_crossings, 1);
});

test('entering on yellow counts as yellow, not red', () => {
  const { index, rec } = setup();
  script(rec, index, eastbound(-60, 10), signalsAll('yellow'), 8);
  const s = rec.summary();
  assert.equal(s.red_light_violations, 0);
  assert.equal(s.yellow_light_entries, 1);
  assert.equal(byType(rec, 'yellow_light')[0].connector, 1);
});

test('the signal changing to red after the car crossed on green is no violation', () => {
  const { index, rec } = setup();
  // Bumper crosses at t = 4.91 s; red from t = 5 s.
  script(rec, index, eastbound(-60, 10), (t) => ({ signal: () => (t < 5 ? 'green' : 'red') }), 8);
  assert.equal(rec.summary().red_light_violations, 0);
  // Red from t = 4.9 s: the crossing happens during red.
  const b = setup();
  script(b.rec, b.index, eastbound(-60, 10), (t) => ({ signal: () => (t < 4.9 ? 'green' : 'red') }), 8);
  assert.equal(b.rec.summary().red_light_violations, 1);
});

test('a violation needs the movement taken to be red (right turn red, through green)', () => {
  const sig = () => ({ signal: (id) => (id === 2 ? 'red' : id === 1 ? 'green' : null) });
  const through = setup();
  script(through.rec, through.index, alongLanes(through.index, [0, 1, 3], 140, 10), sig, 8);
  assert.equal(through.rec.summary().red_light_violations, 0);
  const right = setup();
  script(right.rec, right.index, alongLanes(right.index, [0, 2, 4], 140, 8), sig, 8);
  const red = byType(right.rec, 'red_light');
  assert.equal(red.length, 1);
  assert.equal(red[0].connector, 2);
});

test('stopping before the stop line on red is no violation', () => {
  const { index, rec } = setup();
  // Decelerates from 10 m/s to a stop with the axle at x = -12 (bumper 1.1 m short).
  const pose = (t) => {
    const a = 100 / (2 * 38); // Stops after 38 m.
    const tt = Math.min(t, 10 / a);
    return { x: -50 + 10 * tt - 0.5 * a * tt * tt, y: -1.75, heading_rad: 0, speed_mps: Math.max(0, 10 - a * t) };
  };
  script(rec, index, pose, signalsAll('red'), 12);
  assert.equal(rec.summary().red_light_violations, 0);
  assert.equal(rec.summary().signal_crossings, 0);
});

test('plan clock: green, yellow, all-red and the other phase', () => {
  const lanes = junction();
  assert.equal(planState(lanes, 1, 0), 'green');
  assert.equal(planState(lanes, 1, 26), 'yellow');
  assert.equal(planState(lanes, 1, 29), 'red');
  assert.equal(planState(lanes, 1, 40), 'red');
  assert.equal(planState(lanes, 1, 61), 'green');
  assert.equal(planState(lanes, 3, 0), null);
});

test('speeding episodes: count, duration, maximum excess; within tolerance is not speeding', () => {
  const { index, rec } = setup();
  // 10 m/s for 2 s, 16 for 3 s, 12 for 2 s, 17 for 1 s; limit 13.89, threshold 14.58 m/s.
  const profile = (t) => (t < 2 ? 10 : t < 5 ? 16 : t < 7 ? 12 : t < 8 ? 17 : 10);
  let x = -190;
  let last = 0;
  const pose = (t) => {
    x += profile(last) * (t - last);
    last = t;
    return { x, y: -1.75, heading_rad: 0, speed_mps: profile(t) };
  };
  script(rec, index, pose, () => ({}), 9);
  const sp = byType(rec, 'speeding');
  assert.equal(sp.length, 2);
  assert.ok(Math.abs(sp[0].duration_s - 3) < 0.02, `duration ${sp[0].duration_s}`);
  assert.ok(Math.abs(sp[0].max_excess_mps - (16 - LIMIT)) < 1e-3);
  assert.ok(Math.abs(sp[1].max_excess_mps - (17 - LIMIT)) < 1e-3);
  assert.equal(sp[0].speed_limit_mps, Math.round(LIMIT * 1e4) / 1e4);
  const s = rec.summary();
  assert.equal(s.speeding_episodes, 2);
  assert.ok(Math.abs(s.time_speeding_s - 4) < 0.03, `time ${s.time_speeding_s}`);
  assert.equal(s.max_speed_mps, 17);

  // Turning speeds of connectors are not limits: 12 m/s round a 20 km/h right turn is not
  // speeding (the approach's 50 km/h holds); 15 m/s straight through is.
  const turn = setup();
  turn.lanes.lanes[2].speed_limit_mps = 20 / 3.6;
  const rturn = createRecorder({ lanes: turn.lanes, index: new LaneIndex(turn.lanes) });
  script(rturn, turn.index, alongLanes(turn.index, [0, 2, 4], 150, 12), () => ({}), 6);
  assert.equal(rturn.summary().speeding_episodes, 0);
  assert.ok(rturn.samples().every((q) => Math.abs(q.speed_limit_mps - LIMIT) < 1e-3));
  const fast = setup();
  script(fast.rec, fast.index, alongLanes(fast.index, [0, 1, 3], 150, 15), () => ({}), 6);
  assert.equal(fast.rec.summary().speeding_episodes, 1);

  const slow = setup();
  script(slow.rec, slow.index, eastbound(-190, 14.5), () => ({}), 5);
  assert.equal(slow.rec.summary().speeding_episodes, 0);
});

test('a pedestrian crossing ahead: late braking is one near miss, early braking and passing at distance none', () => {
  // The pedestrian walks north at 1.4 m/s across the car's lane at x = -40. The car comes at
  // 10 m/s (front axle from x = -80) and brakes at 8 m/s^2 from t = brake_s.
  const crossing = (t) => ({ pedestrians: [{ id: 7, x: -40, y: -7 + 1.4 * t, vx: 0, vy: 1.4 }] });
  const braking = (brake_s) => (t) => {
    const tt = Math.max(0, t - brake_s);
    const ts = Math.min(tt, 10 / 8);
    const x = -80 + 10 * Math.min(t, brake_s) + 10 * ts - 4 * ts * ts;
    return { x, y: -1.75, heading_rad: 0, speed_mps: Math.max(0, 10 - 8 * tt) };
  };
  const a = setup();
  script(a.rec, a.index, braking(2.6), crossing, 8); // Stops 6.5 m short of the pedestrian.
  const nm = byType(a.rec, 'near_miss');
  assert.equal(nm.length, 1);
  assert.equal(nm[0].pedestrian, 7);
  assert.ok(nm[0].ttc_min_s < 1.5 && nm[0].ttc_min_s > 1, `ttc ${nm[0].ttc_min_s}`);
  assert.equal(a.rec.summary().collisions, 0);
  assert.equal(a.rec.summary().near_misses, 1);
  assert.equal(a.rec.summary().min_ttc_s, nm[0].ttc_min_s);

  const early = setup();
  script(early.rec, early.index, braking(1.5), crossing, 8);
  assert.equal(early.rec.summary().near_misses, 0);

  // Walking along the sidewalk 7 m to the side, and standing 3.5 m to the side: none.
  const aside = (t) => ({ pedestrians: [
    { id: 8, x: -60 + 1.4 * t, y: -8.75, vx: 1.4, vy: 0 },
    { id: 9, x: -40, y: -5.25, vx: 0, vy: 0 },
  ] });
  const b = setup();
  script(b.rec, b.index, eastbound(-80, 10), aside, 8);
  assert.equal(b.rec.summary().near_misses, 0);

  // The car standing still while a pedestrian walks towards it: not the driver's near miss.
  const c = setup();
  script(c.rec, c.index, () => ({ x: -40, y: -1.75, heading_rad: 0, speed_mps: 0 }),
    (t) => ({ pedestrians: [{ id: 3, x: -30 + 0 * t, y: -8 + 1.4 * t, vx: 0, vy: 1.4 }] }), 3);
  assert.equal(c.rec.summary().near_misses, 0);
});

test('a pedestrian hit is a collision; a stopped vehicle hit is a collision with a vehicle', () => {
  const a = setup();
  script(a.rec, a.index, eastbound(-80, 10), () => ({ pedestrians: [{ id: 4, x: -40, y: -1.75, vx: 0, vy: 0 }] }), 6);
  const col = byType(a.rec, 'collision');
  assert.equal(col.length, 1);
  assert.equal(col[0].with, 'pedestrian');
  assert.ok(a.rec.summary().near_misses === 1, 'the approach was a near miss first');

  const b = setup();
  const parked = [{ id: 11, kind: 2, x: 60, y: -1.75, heading_rad: 0, speed_mps: 0 }];
  script(b.rec, b.index, eastbound(20, 10), () => ({ vehicles: parked }), 5);
  const vc = byType(b.rec, 'collision');
  assert.equal(vc.length, 1);
  assert.equal(vc[0].with, 'vehicle');
  assert.equal(vc[0].other_kind, 'bus');
  assert.equal(vc[0].other_id, 11);
  assert.equal(b.rec.summary().collisions_vehicle, 1);
});

test('driving into a building is a collision with it', () => {
  const building = [[-30, -12], [-20, -12], [-20, -6], [-30, -6], [-30, -12]];
  const { index, rec } = setup({ buildings: [building] });
  script(rec, index, eastbound(-60, 5, -8.5), () => ({}), 10);
  const c = byType(rec, 'collision');
  assert.equal(c.length, 1);
  assert.equal(c[0].with, 'building');
});

test('lane departure episodes: drifting over the marking twice, and none inside the junction', () => {
  const { index, rec } = setup();
  // Lateral offset -1.2 m (threshold 1.75 - 0.9 = 0.85 m) during t in [1, 2) and [3, 3.5).
  const off = (t) => ((t >= 1 && t < 2) || (t >= 3 && t < 3.5) ? -1.2 : 0);
  script(rec, index, (t) => ({ x: -150 + 10 * t, y: -1.75 + off(t), heading_rad: 0, speed_mps: 10 }), () => ({}), 5);
  const d = byType(rec, 'lane_departure');
  assert.equal(d.length, 2);
  assert.equal(d[0].side, 'right');
  assert.ok(Math.abs(d[0].duration_s - 1) < 0.02);
  assert.ok(Math.abs(d[1].duration_s - 0.5) < 0.02);
  assert.ok(Math.abs(d[0].max_lateral_m - 1.2) < 0.01);
  assert.ok(Math.abs(rec.summary().time_out_of_lane_s - 1.5) < 0.03);

  // 1.2 m off centre only while on the junction's connector: not a departure.
  const j = setup();
  script(j.rec, j.index, (t) => {
    const x = -30 + 10 * t;
    return { x, y: -1.75 + (x > -6 && x < 8 ? -1.2 : 0), heading_rad: 0, speed_mps: 10 };
  }, () => ({}), 5);
  assert.equal(j.rec.summary().lane_departures, 0);
});

test('exports: JSON document, samples CSV at 10 Hz and events CSV', () => {
  const { index, rec } = setup();
  script(rec, index, eastbound(-60, 10), signalsAll('red'), 8);
  const doc = JSON.parse(toJSON(rec, { city: 'test' }));
  assert.equal(doc.format, 'cityforge-drive-metrics');
  assert.equal(doc.version, 1);
  assert.equal(doc.city, 'test');
  assert.equal(doc.summary.red_light_violations, 1);
  assert.equal(doc.thresholds.near_miss_ttc_s, 1.5);
  assert.equal(doc.samples.length, 81); // t = 0, 0.1, ..., 8.0
  assert.equal(doc.samples[10].t_s, 1);
  assert.equal(doc.events.filter((e) => e.type === 'red_light').length, 1);
  const lines = samplesCSV(rec).trim().split('\n');
  assert.equal(lines[0], SAMPLE_COLUMNS.join(','));
  assert.equal(lines.length, 82);
  const row = lines[11].split(',');
  assert.equal(Number(row[SAMPLE_COLUMNS.indexOf('speed_mps')]), 10);
  assert.equal(Number(row[SAMPLE_COLUMNS.indexOf('lane')]), 0);
  const ev = eventsCSV(rec).trim().split('\n');
  assert.equal(ev[0], EVENT_COLUMNS.join(','));
  assert.ok(ev.slice(1).some((l) => l.startsWith('red_light,')));
  // Same inputs, same bytes.
  const again = setup();
  script(again.rec, again.index, eastbound(-60, 10), signalsAll('red'), 8);
  assert.equal(toJSON(again.rec, { city: 'test' }), toJSON(rec, { city: 'test' }));
});
