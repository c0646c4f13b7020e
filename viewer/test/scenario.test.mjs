// SPDX-License-Identifier: Apache-2.0
// The viewer side of scenarios (issue 25): trigger kinds, hazard actors' motion, the
// scenario's weather over time, determinism, input recording and replay, scripted inputs,
// loading /scenario.json and the actors' meshes.
import assert from 'node:assert/strict';
import test from 'node:test';

import { createCar, frontAxle, stepCar, updateControls } from '../src/drive/physics.js';
import {
  applyScenarioWeather,
  createHazardActors,
  createInputPlayer,
  createInputRecorder,
  createScenarioRunner,
  fogRange,
  fromJSON,
  loadScenario,
  recordingMismatch,
  scriptedInputs,
} from '../src/scenario/index.js';

let THREE = null;
try {
  THREE = await import('three');
} catch {
  // three is a dependency of the viewer (npm ci); without it the mesh test is skipped.
}

const STEP = 0.01;
const close = (a, b, tol = 1e-9, msg = '') => assert.ok(Math.abs(a - b) <= tol, `${msg} ${a} != ${b}`);

function scenario(hazards, extra = {}) {
  return { format: 'cityforge-scenario', version: 1, name: 'test', seed: 7, duration_s: 60,
    weather: { kind: 'clear', fog: false }, hazards, ...extra };
}

/** Runs the runner over n steps with the car at pose(t); returns every step's result. */
function run(runner, n, pose) {
  const out = [];
  for (let k = 0; k <= n; k++) out.push(runner.step(k * STEP, pose(k * STEP)));
  return out;
}

const east = (x0, v, y = 0) => (t) => ({ x: x0 + v * t, y, heading_rad: 0, speed_mps: v });
const firstFired = (res, id) => res.findIndex((r) => r.fired.includes(id));

test('time_s trigger fires at the first step at or after time_s (2.73 s: step 273)', () => {
  const r = createScenarioRunner(scenario([
    { id: 'a', kind: 'pedestrian_steps_out', trigger: { time_s: 2.73 }, at: [0, 5], heading_deg: 270, speed_mps: 1, travel_m: 3 },
    { id: 'b', kind: 'door_opens', trigger: { time_s: 0 }, at: [5, 5], heading_deg: 270 },
    { id: 'c', kind: 'pull_out', trigger: { time_s: 2.735 }, at: [9, 5], heading_deg: 0, speed_mps: 3, travel_m: 9 },
  ]));
  const res = run(r, 400, east(-100, 0));
  assert.equal(firstFired(res, 'a'), 273);
  assert.equal(firstFired(res, 'b'), 0);
  assert.equal(firstFired(res, 'c'), 274);
  assert.equal(res.filter((x) => x.fired.includes('a')).length, 1, 'fires once');
  assert.equal(res[272].hazards[0].state, 'pending');
  assert.equal(res[272].hazards[0].onset_t_s, null);
  assert.equal(res[273].hazards[0].state, 'active');
  close(res[273].hazards[0].onset_t_s, 2.73);
});

test('distance_m trigger: the front axle within d of at; position trigger: within radius_m', () => {
  const r = createScenarioRunner(scenario([
    { id: 'near', kind: 'red_light_runner', trigger: { distance_m: 25 }, at: [0, 0], heading_deg: 90, speed_mps: 10, travel_m: 40 },
    { id: 'pos', kind: 'sudden_fog', trigger: { position: [50, 3], radius_m: 5 }, visibility_m: 40 },
  ]));
  // Front axle from x = -100 eastwards at 10 m/s: 25 m from (0, 0) at 7.5 s; 5 m from (50, 3)
  // when x = 46 (|dy| = 3, dx = 4), at 14.6 s.
  const res = run(r, 2000, east(-100, 10));
  assert.equal(firstFired(res, 'near'), 750);
  assert.equal(firstFired(res, 'pos'), 1460);
  const h = res[750].hazards.find((x) => x.id === 'near');
  assert.equal(h.state, 'active');
  close(h.trigger_t_s, 7.5);
});

test('delay_s: pending until trigger + delay, onset_t_s set from then', () => {
  const r = createScenarioRunner(scenario([
    { id: 'd', kind: 'pedestrian_steps_out', trigger: { time_s: 1 }, delay_s: 0.5, at: [0, 0], heading_deg: 0, speed_mps: 1, travel_m: 1 },
  ]));
  const res = run(r, 300, east(-100, 0));
  assert.equal(firstFired(res, 'd'), 100);
  assert.equal(res[149].hazards[0].state, 'pending');
  assert.equal(res[149].hazards[0].onset_t_s, null);
  assert.deepEqual(res[150].onsets, ['d']);
  close(res[150].hazards[0].onset_t_s, 1.5);
  assert.equal(res[150].hazards[0].state, 'active');
});

test('pedestrian_steps_out: accelerates over 0.3 s, walks travel_m along heading, then stops', () => {
  const r = createScenarioRunner(scenario([
    { id: 'p', kind: 'pedestrian_steps_out', trigger: { time_s: 1 }, at: [10, -5], heading_deg: 90, speed_mps: 2, travel_m: 6 },
  ]));
  const res = run(r, 600, east(-100, 0));
  const at = (t) => res[Math.round(t / STEP)].hazards[0];
  const a = 2 / 0.3;
  // Pending: at its start, not moving.
  assert.deepEqual([at(0.5).x, at(0.5).y, at(0.5).vx, at(0.5).vy], [10, -5, 0, 0]);
  // 0.2 s after onset: still accelerating.
  close(at(1.2).y, -5 + 0.5 * a * 0.2 * 0.2, 1e-9, 'y at 1.2 s');
  close(at(1.2).vy, a * 0.2, 1e-9, 'vy at 1.2 s');
  // 1 s after onset: 0.3 s ramp (0.3 m) + 0.7 s at 2 m/s.
  close(at(2).x, 10, 1e-9);
  close(at(2).y, -5 + 0.3 + 1.4, 1e-9, 'y at 2 s');
  close(at(2).vy, 2, 1e-9);
  close(at(2).heading_rad, Math.PI / 2, 1e-12);
  assert.equal(at(2).state, 'active');
  assert.equal(at(2).length_m, 0.5);
  // 6 m reached at 0.15 + 3 = 3.15 s after onset: stopped there.
  assert.equal(at(4.14).state, 'active');
  assert.equal(at(4.15).state, 'done');
  close(at(5).y, 1, 1e-9);
  assert.equal(at(5).vy, 0);
});

test('pull_out, red_light_runner (straight and along lanes) and door_opens move as specified', () => {
  // Lanes: 10 eastbound (0,0)->(50,0), its successor 11 northbound (50,0)->(50,50).
  const lanes = { lanes: [
    { id: 10, tags: ['vehicle'], points: [[0, 0, 1], [50, 0, 1]], successors: [11] },
    { id: 11, tags: ['vehicle'], points: [[50, 0, 1], [50, 50, 3]], successors: [] },
  ] };
  const haz = [
    { id: 'run', kind: 'red_light_runner', trigger: { time_s: 0 }, at: [10, 0.5], heading_deg: 0, speed_mps: 10, travel_m: 60 },
    { id: 'pull', kind: 'pull_out', trigger: { time_s: 0 }, at: [0, 10], heading_deg: 0, speed_mps: 4, travel_m: 12 },
    { id: 'door', kind: 'door_opens', trigger: { time_s: 0 }, at: [5, 20], heading_deg: 90 },
  ];
  const withLanes = run(createScenarioRunner(scenario(haz), { lanes }), 600, east(-100, 0));
  const straight = run(createScenarioRunner(scenario(haz)), 600, east(-100, 0));
  const get = (res, t, id) => res[Math.round(t / STEP)].hazards.find((h) => h.id === id);
  // Along the lanes: 40 m to the corner at 4 s, then 10 m north at 5 s, 2 m up by then.
  close(get(withLanes, 4, 'run').x, 50, 1e-9);
  close(get(withLanes, 5, 'run').x, 50, 1e-9);
  close(get(withLanes, 5, 'run').y, 10, 1e-9);
  close(get(withLanes, 5, 'run').vy, 10, 1e-9);
  close(get(withLanes, 5, 'run').z, 1.4, 1e-9);
  assert.equal(get(withLanes, 5.99, 'run').state, 'active');
  assert.equal(get(withLanes, 6, 'run').state, 'done');
  // Without lanes: straight east from `at`, 4.5 x 1.8.
  close(get(straight, 5, 'run').x, 60, 1e-9);
  close(get(straight, 5, 'run').y, 0.5, 1e-12);
  assert.equal(get(straight, 5, 'run').z, null);
  assert.deepEqual([get(straight, 5, 'run').length_m, get(straight, 5, 'run').width_m], [4.5, 1.8]);
  // pull_out: 2 m/s^2 to 4 m/s (2 s, 4 m), then 8 m more in 2 s.
  close(get(straight, 1, 'pull').x, 1, 1e-9);
  close(get(straight, 1, 'pull').vx, 2, 1e-9);
  close(get(straight, 3, 'pull').x, 8, 1e-9);
  assert.equal(get(straight, 4, 'pull').state, 'done');
  close(get(straight, 4, 'pull').x, 12, 1e-9);
  // door_opens: swings 90 degrees about its hinge in 0.5 s, then stands at `at`.
  const d0 = get(straight, 0, 'door');
  close(d0.x, 5.5, 1e-9);
  close(d0.y, 19.5, 1e-9);
  assert.equal(d0.state, 'active');
  const d1 = get(straight, 0.5, 'door');
  close(d1.x, 5, 1e-9);
  close(d1.y, 20, 1e-9);
  close(d1.heading_rad, Math.PI / 2, 1e-12);
  assert.equal(d1.state, 'done');
  assert.deepEqual([d1.length_m, d1.width_m, d1.vx, d1.vy], [1, 0.2, 0, 0]);
});

test('weather: base, changes at at_s, sudden_fog from its onset with visibility_m', () => {
  const r = createScenarioRunner(scenario([
    { id: 'fog', kind: 'sudden_fog', trigger: { time_s: 30 }, delay_s: 2, visibility_m: 40 },
  ], { weather: { kind: 'rain', fog: false, changes: [{ at_s: 60, kind: 'storm' }, { at_s: 10, kind: 'fog' }, { at_s: 20, kind: 'cloudy', fog: false }] } }));
  const res = run(r, 7000, east(-100, 0));
  const w = (t) => res[Math.round(t / STEP)].weather;
  assert.deepEqual(w(0), { kind: 'rain', fog: false, visibility_m: null });
  assert.deepEqual(w(9.99), { kind: 'rain', fog: false, visibility_m: null });
  assert.deepEqual(w(10), { kind: 'clear', fog: true, visibility_m: null }, 'kind fog: clear with fog');
  assert.deepEqual(w(20), { kind: 'cloudy', fog: false, visibility_m: null });
  assert.deepEqual(w(31.99), { kind: 'cloudy', fog: false, visibility_m: null });
  assert.deepEqual(w(32), { kind: 'cloudy', fog: true, visibility_m: 40 });
  assert.deepEqual(w(60), { kind: 'storm', fog: true, visibility_m: 40 }, 'sudden fog outlasts changes');
  const changedAt = res.map((x, k) => (x.weather_changed ? k : -1)).filter((k) => k >= 0);
  assert.deepEqual(changedAt, [0, 1000, 2000, 3200, 6000]);
  const fogView = res[3200].hazards[0];
  assert.equal(fogView.state, 'active');
  assert.equal(fogView.x, null);
  close(fogView.onset_t_s, 32);
  assert.equal(res[6000].ended, true);
  assert.equal(res[5999].ended, false);
});

test('runner is deterministic: same car history -> identical hazards; no Math.random, no clock', () => {
  const spec = scenario([
    { id: 'p', kind: 'pedestrian_steps_out', trigger: { distance_m: 30 }, at: [40, -6], heading_deg: 90, speed_mps: 1.8, travel_m: 7, delay_s: 0.25 },
    { id: 'r', kind: 'red_light_runner', trigger: { position: [20, 0], radius_m: 8 }, at: [60, -40], heading_deg: 90, speed_mps: 12, travel_m: 80 },
    { id: 'u', kind: 'pull_out', trigger: { time_s: 3.33 }, at: [80, 4], heading_deg: 180, speed_mps: 5, travel_m: 15 },
    { id: 'o', kind: 'door_opens', trigger: { distance_m: 12 }, at: [90, 2.5], heading_deg: 270 },
    { id: 'f', kind: 'sudden_fog', trigger: { time_s: 9 }, visibility_m: 60 },
  ]);
  // A car driven by the physics with ramped keys: throttle, brake, steer.
  const history = [];
  const car = createCar(0, 0, 0, 8);
  for (let k = 0; k <= 1500; k++) {
    const t = k * STEP;
    updateControls(car, { up: t < 6, down: t > 9 && t < 10, left: t > 4 && t < 4.5, right: false, handbrake: false }, STEP);
    stepCar(car, STEP);
    history.push({ ...frontAxle(car), heading_rad: car.heading_rad, speed_mps: car.speed_mps });
  }
  const random = Math.random;
  const now = Date.now;
  const perfNow = performance.now;
  Math.random = () => assert.fail('Math.random used');
  Date.now = () => assert.fail('Date.now used');
  performance.now = () => assert.fail('performance.now used');
  let a;
  let b;
  try {
    a = run(createScenarioRunner(spec), 1500, (t) => history[Math.round(t / STEP)]);
    b = run(createScenarioRunner(structuredClone(spec)), 1500, (t) => history[Math.round(t / STEP)]);
  } finally {
    Math.random = random;
    Date.now = now;
    performance.now = perfNow;
  }
  assert.deepStrictEqual(a, b);
  for (const id of ['p', 'r', 'u', 'o', 'f']) assert.ok(firstFired(a, id) >= 0, `${id} fired`);
  // A different history gives a different result (the comparison can fail).
  const c = run(createScenarioRunner(spec), 1500, (t) => ({ ...history[Math.round(t / STEP)], y: 30 }));
  assert.notDeepStrictEqual(a, c);
  const back = createScenarioRunner(spec);
  back.step(1, history[0]);
  assert.throws(() => back.step(0.5, history[0]), /time went back/);
});

test('recorded inputs -> JSON -> player replay the drive identically and store only changes', () => {
  const meta = { scenario: 'night-rain-downtown', seed: 7, file_hash: 'ab'.repeat(32), step_s: STEP };
  const rec = createInputRecorder(meta);
  const car = createCar(0, 0, 0, 0);
  const trace = [];
  const N = 2000;
  for (let k = 0; k < N; k++) {
    const t = k * STEP;
    const keys = { up: t < 8, down: t >= 12 && t < 14, left: t > 3 && t < 3.6, right: t > 9 && t < 9.3, handbrake: t > 15 && t < 15.5 };
    updateControls(car, keys, STEP);
    rec.record(k, { ...car.controls, gear: car.gear, look: t > 5 && t < 6 ? 0.75 : 0 });
    stepCar(car, STEP);
    trace.push([car.rx, car.ry, car.heading_rad, car.speed_mps]);
  }
  const text = JSON.stringify(rec);
  const loaded = fromJSON(text);
  assert.equal(loaded.steps, N);
  assert.equal(loaded.scenario, 'night-rain-downtown');
  assert.equal(loaded.file_hash, meta.file_hash);
  assert.ok(loaded.changes.length < N / 4, `${loaded.changes.length} rows for ${N} steps`);
  const player = createInputPlayer(text);
  const again = createCar(0, 0, 0, 0);
  for (let k = 0; k < N; k++) {
    const c = player.at(k);
    Object.assign(again.controls, { throttle: c.throttle, brake: c.brake, steer: c.steer, handbrake: c.handbrake });
    again.gear = c.gear;
    stepCar(again, STEP);
    assert.deepStrictEqual([again.rx, again.ry, again.heading_rad, again.speed_mps], trace[k], `step ${k}`);
  }
  assert.equal(player.at(550).look, 0.75);
  assert.equal(player.at(1520).handbrake, true);
  // Random access agrees with the forward walk.
  const p2 = createInputPlayer(loaded);
  for (const k of [1999, 0, 1234, 5, 1500, 1500, 3]) assert.deepEqual(p2.at(k), player.at(k));
  assert.equal(recordingMismatch(loaded, { name: 'night-rain-downtown', seed: 7, file_hash: meta.file_hash }), null);
  assert.match(recordingMismatch(loaded, { name: 'night-rain-downtown', seed: 8, file_hash: meta.file_hash }), /^seed/);
  assert.throws(() => rec.record(5, {}), /step 5 after step 1999/);
  assert.throws(() => fromJSON({ ...JSON.parse(text), changes: [[0, 2, 0, 0, 0, 1, 0]] }), /throttle: expected a number in \[0, 1\], got 2/);
  assert.throws(() => fromJSON({ format: 'other' }), /expected format/);
});

test('scriptedInputs: exact at step boundaries', () => {
  const p = scriptedInputs([{ t_s: 0, throttle: 0.6 }, { t_s: 2.73, brake: 1, throttle: 0 }, { t_s: 2.735, steer: -0.5 }],
    { duration_s: 5, scenario: 's', seed: 1 });
  assert.equal(p.steps, 500);
  assert.deepEqual(p.at(0), { throttle: 0.6, brake: 0, steer: 0, handbrake: false, gear: 1, look: 0 });
  assert.deepEqual(p.at(272), { throttle: 0.6, brake: 0, steer: 0, handbrake: false, gear: 1, look: 0 });
  assert.deepEqual(p.at(273), { throttle: 0, brake: 1, steer: 0, handbrake: false, gear: 1, look: 0 });
  assert.equal(p.at(273).steer, 0);
  assert.equal(p.at(274).steer, -0.5, 'between steps: from the next step');
  assert.equal(p.at(499).brake, 1);
  assert.equal(p.meta.scenario, 's');
  // Boundaries that are not exact binary fractions.
  for (const k of [1, 7, 29, 57, 100, 273, 1001, 3333]) {
    const q = scriptedInputs([{ t_s: k * 0.01, throttle: 1 }, { t_s: (k / 100), brake: 0.5 }]);
    assert.equal(q.at(k - 1).throttle, 0, `t = ${k / 100}`);
    assert.equal(q.at(k).throttle, 1, `t = ${k / 100}`);
    assert.equal(q.at(k).brake, 0.5);
  }
  assert.throws(() => scriptedInputs([{ t_s: -1, throttle: 1 }]), /t_s: expected a number >= 0/);
  assert.throws(() => scriptedInputs([{ t_s: 0, steer: 2 }]), /steer: expected a number in \[-1, 1\]/);
});

test('loadScenario: the scenario, null on 404, errors otherwise', async () => {
  const spec = scenario([]);
  const urls = [];
  const reply = (status, body) => async (url) => {
    urls.push(url);
    return { status, ok: status >= 200 && status < 300, json: async () => body };
  };
  assert.deepEqual(await loadScenario(reply(200, spec), '/'), spec);
  assert.equal(urls[0], '/scenario.json');
  assert.equal(await loadScenario(reply(404, null), '/x/'), null);
  assert.equal(urls[1], '/x/scenario.json');
  await assert.rejects(loadScenario(reply(500, null), '/'), /HTTP 500/);
  await assert.rejects(loadScenario(reply(200, { format: 'cityforge-lanes' }), '/'), /expected format/);
});

test('applyScenarioWeather sets the weather once and the fog distances from visibility_m', () => {
  const sets = [];
  const weather = { kind: 'clear', fog: false, set(k, f) { sets.push([k, f]); this.kind = k; this.fog = f; } };
  const scene = { fog: { near: 20, far: 550 } };
  applyScenarioWeather(weather, scene, { kind: 'rain', fog: true, visibility_m: 40 });
  applyScenarioWeather(weather, scene, { kind: 'rain', fog: true, visibility_m: 40 });
  assert.deepEqual(sets, [['rain', true]]);
  const r = fogRange(40);
  assert.deepEqual(scene.fog, r);
  // Linear fog reaches 95 % at the visibility.
  close((40 - r.near) / (r.far - r.near), 0.95, 1e-12);
});

test('hazard actors: hidden while pending (a pull_out car parked), placed from the view', { skip: !THREE && 'three not installed' }, () => {
  const scene = new THREE.Scene();
  const toScene = (x, y, z) => new THREE.Vector3(x, z, -y);
  const actors = createHazardActors(THREE, toScene, { scene });
  const r = createScenarioRunner(scenario([
    { id: 'p', kind: 'pedestrian_steps_out', trigger: { time_s: 1 }, at: [3, 4], heading_deg: 90, speed_mps: 2, travel_m: 6 },
    { id: 'u', kind: 'pull_out', trigger: { time_s: 1 }, at: [10, 0], heading_deg: 0, speed_mps: 4, travel_m: 10 },
    { id: 'f', kind: 'sudden_fog', trigger: { time_s: 0 }, visibility_m: 50 },
  ]));
  const car = { x: 0, y: 0 };
  actors.update(r.step(0, car).hazards, { z: 2 });
  const ped = scene.getObjectByName('cityforge-hazard-p');
  const veh = scene.getObjectByName('cityforge-hazard-u');
  assert.ok(ped && veh);
  assert.equal(ped.visible, false);
  assert.equal(veh.visible, true, 'parked before it pulls out');
  assert.equal(scene.getObjectByName('cityforge-hazard-f'), undefined);
  let res;
  for (let k = 1; k <= 200; k++) res = r.step(k * STEP, car);
  actors.update(res.hazards, { z: 2 });
  const h = res.hazards[0];
  scene.updateMatrixWorld(true);
  const p = new THREE.Vector3().setFromMatrixPosition(ped.matrixWorld);
  assert.equal(ped.visible, true);
  assert.ok(p.distanceTo(toScene(h.x, h.y, 2)) < 1e-9, 'at the view position, car height when z is null');
  // The figure faces the heading (north = scene -z): its local +x maps there.
  const fwd = new THREE.Vector3(1, 0, 0).transformDirection(ped.matrixWorld);
  assert.ok(fwd.distanceTo(new THREE.Vector3(0, 0, -1)) < 1e-9);
  actors.dispose();
  assert.equal(scene.getObjectByName('cityforge-hazard-actors'), undefined);
});

test('a pedestrian hazard the car knocks down lies where it fell and stays down', { skip: !THREE && 'three not installed' }, () => {
  const scene = new THREE.Scene();
  const toScene = (x, y, z) => new THREE.Vector3(x, z, -y);
  const actors = createHazardActors(THREE, toScene, { scene });
  const r = createScenarioRunner(scenario([
    { id: 'p', kind: 'pedestrian_steps_out', trigger: { time_s: 1 }, at: [3, 4], heading_deg: 270, speed_mps: 2, travel_m: 6 },
    { id: 'u', kind: 'pull_out', trigger: { time_s: 1 }, at: [10, 0], heading_deg: 0, speed_mps: 4, travel_m: 10 },
  ]));
  const car = { x: 0, y: 0 };
  let res;
  for (let k = 0; k <= 150; k++) res = r.step(k * STEP, car);
  assert.equal(res.hazards[0].state, 'active');
  assert.equal(r.knockDown('u', { x: 0, y: 0, heading_rad: 0 }), false, 'a car is not knocked down');
  assert.equal(r.knockDown('nobody', { x: 0, y: 0, heading_rad: 0 }), false);
  assert.equal(r.knockDown('p', { x: 3.5, y: 2.5, heading_rad: 0 }), true);
  assert.equal(r.knockDown('p', { x: 9, y: 9, heading_rad: 1 }), false, 'once');
  for (let k = 151; k <= 600; k++) res = r.step(k * STEP, car);
  const h = res.hazards[0];
  assert.deepEqual([h.state, h.x, h.y, h.vx, h.vy, h.heading_rad], ['down', 3.5, 2.5, 0, 0, 0]);
  actors.update(res.hazards, { z: 2 });
  const ped = scene.getObjectByName('cityforge-hazard-p');
  scene.updateMatrixWorld(true);
  // Lying: its up (+z local) along the heading (east = scene +x), its front down.
  const up = new THREE.Vector3(0, 0, 1).transformDirection(ped.matrixWorld);
  const front = new THREE.Vector3(1, 0, 0).transformDirection(ped.matrixWorld);
  assert.ok(up.distanceTo(new THREE.Vector3(1, 0, 0)) < 1e-9, `up ${up.toArray()}`);
  assert.ok(front.distanceTo(new THREE.Vector3(0, -1, 0)) < 1e-9, `front ${front.toArray()}`);
  const p = new THREE.Vector3().setFromMatrixPosition(ped.matrixWorld);
  assert.ok(p.distanceTo(toScene(3.5, 2.5, 2.15)) < 1e-6, 'on the ground, lifted by half its thickness');
});
