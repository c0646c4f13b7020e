// SPDX-License-Identifier: Apache-2.0
// Vehicle dynamics and collisions (src/drive/dynamics, docs/vehicles.md): braking distances,
// power oversteer, gear shifts, contacts, vehicle-file validation and the step cost.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';

import { createPhysicsWorld, initPhysics, validateVehicle } from '../src/drive/dynamics/index.js';

const NAMES = ['sports_rwd', 'pickup_4x4', 'hatchback'];
const DIR = new URL('../../data/vehicles/', import.meta.url);
const raw = (name) => JSON.parse(fs.readFileSync(new URL(`${name}.json`, DIR), 'utf8'));
const spec = (name) => validateVehicle(raw(name), `${name}.json`);
const KMH50 = 50 / 3.6;
const G = 9.81;

await initPhysics();

/** Holds the speed near target with the throttle (P control) for t_s, straight or steered. */
function cruise(world, car, target, t_s, steer = 0) {
  for (let i = 0; i < t_s * 100; i++) {
    const e = target - car.state().speed_mps;
    const throttle = Math.min(1, Math.max(0, 0.1 + 0.4 * e));
    world.step(0.01, { throttle, brake: e < -0.05 ? Math.min(1, -0.3 * e) : 0, steer });
  }
}

/** Full brake from 50 km/h on flat ground; returns {d, v0} (front-axle travel until rest). */
function stoppingDistance(name, grip) {
  const world = createPhysicsWorld({});
  const car = world.addCar(spec(name), { x: 0, y: 0, z: 0, heading_rad: 0, speed_mps: KMH50 }, { grip });
  cruise(world, car, KMH50, 1.5);
  const s0 = car.state();
  let t = 0;
  while (car.state().speed_mps > 0.05 && t < 10) {
    world.step(0.01, { throttle: 0, brake: 1, steer: 0 });
    t += 0.01;
  }
  const s1 = car.state();
  world.dispose();
  return { d: Math.hypot(s1.x - s0.x, s1.y - s0.y), v0: s0.speed_mps, t };
}

test('vehicle files: the shipped ones are valid and their names match the files', () => {
  for (const n of NAMES) assert.equal(spec(n).name, n);
  const s = spec('sports_rwd');
  assert.ok(s.body.mass_kg > 1300 && s.body.mass_kg < 1500);
  assert.equal(spec('pickup_4x4').drivetrain, 'awd');
  assert.equal(spec('hatchback').drivetrain, 'fwd');
});

test('vehicle files: errors name the file, the pointer, what was expected and what was found', () => {
  const bad = (mut) => {
    const j = raw('hatchback');
    mut(j);
    return () => validateVehicle(j, 'hatchback.json');
  };
  assert.throws(bad((j) => { j.body.mass_kg = -1200; }), {
    message: 'hatchback.json: /body/mass_kg: expected a number > 0, got -1200',
  });
  assert.throws(bad((j) => { j.tyres.grip = 1; }), { message: /^hatchback\.json: \/tyres\/grip: expected one of the keys .*, got "grip"$/ });
  assert.throws(bad((j) => { j.engine.torque_curve = [[1000, 100], [900, 120]]; }), {
    message: 'hatchback.json: /engine/torque_curve/1/0: expected an rpm > 1000 (strictly ascending), got 900',
  });
  assert.throws(bad((j) => { j.engine.torque_curve = [[1000, 100]]; }), { message: /\/engine\/torque_curve: expected an array of >= 2/ });
  assert.throws(bad((j) => { j.engine.torque_curve[2][1] = -5; }), { message: /\/engine\/torque_curve\/2\/1: expected a torque >= 0, got -5/ });
  assert.throws(bad((j) => { delete j.brakes.front_share; }), { message: /\/brakes\/front_share: expected a value \(the key is required\), got nothing/ });
  assert.throws(bad((j) => { j.brakes.front_share = 1.2; }), { message: /\/brakes\/front_share: expected a number in \[0, 1\], got 1.2/ });
  assert.throws(bad((j) => { j.gearbox.ratios = [3, 3.5]; }), { message: /\/gearbox\/ratios\/1: expected a ratio < 3 \(strictly descending\), got 3.5/ });
  assert.throws(bad((j) => { j.gearbox.downshift_rpm = 6000; }), { message: /\/gearbox\/downshift_rpm: expected a value < upshift_rpm/ });
  assert.throws(bad((j) => { j.body.cg_to_front_axle_m = 3; }), { message: /\/body\/cg_to_front_axle_m: expected a value < wheelbase_m/ });
  assert.throws(bad((j) => { j.drivetrain = '4wd'; }), { message: /\/drivetrain: expected "rwd", "fwd" or "awd", got "4wd"/ });
  assert.throws(bad((j) => { j.body.width_m = Infinity; }), { message: /\/body\/width_m: expected a number > 0/ });
});

test('braking from 50 km/h: dry 9-14 m, wet (grip 0.5) 17-28 m and longer than dry', () => {
  for (const n of NAMES) {
    const mu = spec(n).tyres.friction;
    const dry = stoppingDistance(n, 1.0);
    const wet = stoppingDistance(n, 0.5);
    const ideal = (v, m) => (v * v) / (2 * m * G);
    console.log(`# ${n}: dry ${dry.d.toFixed(2)} m (${dry.t.toFixed(2)} s, v0 ${dry.v0.toFixed(2)} m/s, ` +
      `ideal mu=${mu}: ${ideal(dry.v0, mu).toFixed(2)} m), wet ${wet.d.toFixed(2)} m (${wet.t.toFixed(2)} s, ` +
      `ideal ${ideal(wet.v0, mu / 2).toFixed(2)} m)`);
    assert.ok(Math.abs(dry.v0 - KMH50) < 0.3 && Math.abs(wet.v0 - KMH50) < 0.3, `${n} start speed`);
    assert.ok(dry.d >= 9 && dry.d <= 14, `${n} dry ${dry.d}`);
    assert.ok(wet.d >= 17 && wet.d <= 28, `${n} wet ${wet.d}`);
    assert.ok(wet.d > 1.5 * dry.d, `${n} wet ${wet.d} vs dry ${dry.d}`);
    // Never better than the tyres allow (friction-limited: d >= v^2 / (2 mu g)).
    assert.ok(dry.d >= 0.97 * ideal(dry.v0, mu), `${n} dry beats its tyres`);
  }
});

/** Steady turn at 50 km/h and 4 m/s^2 (kinematic), then full throttle for 2.5 s with the same
 *  steering. Returns the largest yaw-rate ratio r / (v tan(delta) / L) (1 = neutral steer) and
 *  the largest |sideslip| of the throttle phase, and whether it spun (heading change > 90 deg
 *  more than neutral steer would give). */
function powerOnTurn(name) {
  const s = spec(name);
  const L = s.body.wheelbase_m;
  const delta = Math.atan((4 * L) / (KMH50 * KMH50));
  const limit = ((s.steering.max_angle_deg * Math.PI) / 180) / (1 + (KMH50 / 12) ** 2);
  const steer = delta / limit;
  const world = createPhysicsWorld({});
  const car = world.addCar(s, { x: 0, y: 0, z: 0, heading_rad: 0, speed_mps: KMH50 });
  cruise(world, car, KMH50, 3, steer);
  const base = car.state();
  let maxRatio = 0;
  let maxBeta = 0;
  let turned = 0;
  let neutral = 0;
  let prev = base.heading_rad;
  for (let i = 0; i < 250; i++) {
    world.step(0.01, { throttle: 1, brake: 0, steer });
    const st = car.state();
    const rNeutral = (st.speed_mps * Math.tan(st.steer_rad)) / L;
    maxRatio = Math.max(maxRatio, st.yaw_rate_rps / rNeutral);
    maxBeta = Math.max(maxBeta, Math.abs(st.sideslip_rad));
    let dh = st.heading_rad - prev;
    dh = Math.atan2(Math.sin(dh), Math.cos(dh));
    turned += dh;
    neutral += rNeutral * 0.01;
    prev = st.heading_rad;
  }
  world.dispose();
  return { ratio_start: base.yaw_rate_rps / ((base.speed_mps * Math.tan(base.steer_rad)) / L), maxRatio, maxBeta, spun: turned - neutral > Math.PI / 2 };
}

test('power in a 50 km/h turn: the RWD sports car oversteers, the 4x4 pickup does not', () => {
  const sports = powerOnTurn('sports_rwd');
  const pickup = powerOnTurn('pickup_4x4');
  const hatch = powerOnTurn('hatchback');
  const fmt = (r) => `yaw ratio before ${r.ratio_start.toFixed(2)}, max ${r.maxRatio.toFixed(2)}, max |sideslip| ${(r.maxBeta * 180 / Math.PI).toFixed(1)} deg, spun ${r.spun}`;
  console.log(`# sports_rwd: ${fmt(sports)}\n# pickup_4x4: ${fmt(pickup)}\n# hatchback: ${fmt(hatch)}`);
  // Before the throttle all three follow the steady turn near neutral steer.
  for (const r of [sports, pickup, hatch]) assert.ok(r.ratio_start > 0.8 && r.ratio_start < 1.2, fmt(r));
  // Oversteer: yaw rate 1.5x neutral steer or sideslip over 10 degrees.
  assert.ok(sports.maxRatio > 1.5 || sports.maxBeta > 0.175, `sports: ${fmt(sports)}`);
  assert.ok(pickup.maxRatio < 1.15 && pickup.maxBeta < 0.05 && !pickup.spun, `pickup: ${fmt(pickup)}`);
});

test('gearbox: full throttle from rest shifts up at upshift_rpm; braking shifts down at downshift_rpm', () => {
  for (const n of NAMES) {
    const s = spec(n);
    const world = createPhysicsWorld({});
    const car = world.addCar(s, { x: 0, y: 0, z: 0, heading_rad: 0, speed_mps: 0 });
    const maxRpm = new Map();
    let gear = 1;
    const ups = [];
    for (let i = 0; i < 2500 && gear < 4; i++) {
      world.step(0.01, { throttle: 1, brake: 0, steer: 0 });
      const st = car.state();
      if (st.gear !== gear) {
        ups.push({ from: gear, to: st.gear, rpm: maxRpm.get(gear) });
        gear = st.gear;
      }
      maxRpm.set(st.gear, Math.max(maxRpm.get(st.gear) || 0, st.rpm));
    }
    assert.ok(ups.length >= 3, `${n}: ${JSON.stringify(ups)}`);
    for (const u of ups) {
      assert.equal(u.to, u.from + 1);
      assert.ok(u.rpm >= s.gearbox.upshift_rpm && u.rpm <= s.gearbox.upshift_rpm * 1.04, `${n} upshift ${JSON.stringify(u)}`);
    }
    const downs = [];
    let minRpm = Infinity;
    for (let i = 0; i < 3000 && car.state().speed_mps > 0.5; i++) {
      world.step(0.01, { throttle: 0, brake: 0.25, steer: 0 });
      const st = car.state();
      if (st.gear !== gear) {
        downs.push({ from: gear, to: st.gear, rpm: minRpm });
        gear = st.gear;
        minRpm = Infinity;
      }
      minRpm = Math.min(minRpm, st.rpm);
    }
    console.log(`# ${n}: up ${ups.map((u) => `${u.from}->${u.to} at ${u.rpm.toFixed(0)}`).join(', ')}; ` +
      `down ${downs.map((u) => `${u.from}->${u.to} at ${u.rpm.toFixed(0)}`).join(', ')} rpm`);
    assert.ok(downs.length >= 2, `${n}: ${JSON.stringify(downs)}`);
    assert.equal(car.state().gear, 1);
    for (const d of downs) {
      assert.equal(d.to, d.from - 1);
      assert.ok(d.rpm <= s.gearbox.downshift_rpm && d.rpm >= s.gearbox.downshift_rpm * 0.8, `${n} downshift ${JSON.stringify(d)}`);
    }
    world.dispose();
  }
});

test('brake held at rest selects reverse; the throttle then drives backwards', () => {
  const world = createPhysicsWorld({});
  const car = world.addCar(spec('hatchback'), { x: 0, y: 0, z: 0, heading_rad: 1.0, speed_mps: 0 });
  for (let i = 0; i < 50; i++) world.step(0.01, { throttle: 0, brake: 1, steer: 0 });
  assert.equal(car.state().gear, -1);
  for (let i = 0; i < 200; i++) world.step(0.01, { throttle: 0.5, brake: 0, steer: 0 });
  const st = car.state();
  assert.ok(st.speed_mps < -1, `speed ${st.speed_mps}`);
  assert.ok(st.x < 0 && st.y < 0, `moved backwards along heading 1 rad: ${st.x}, ${st.y}`);
  world.dispose();
});

/** Drives the sports car from x=0 east at ~8 m/s for t_s and returns the contacts and the
 *  speed just before the first. */
function driveInto(worldOpts, agents, t_s = 6) {
  const world = createPhysicsWorld(worldOpts);
  const car = world.addCar(spec('sports_rwd'), { x: 0, y: 0, z: 0, heading_rad: 0, speed_mps: 8 });
  if (agents) world.setAgents(agents);
  const contacts = [];
  let before = null;
  for (let i = 0; i < t_s * 100; i++) {
    const v = car.state().speed_mps;
    const c = world.step(0.01, { throttle: Math.min(1, Math.max(0, 0.3 + 0.5 * (8 - v))), brake: 0, steer: 0 });
    if (c.length && before === null) before = v;
    contacts.push(...c);
  }
  const st = car.state();
  world.dispose();
  return { contacts, before, state: st };
}

test('collisions: a building wall stops the car and gives exactly one contact', () => {
  const b = [[20, -5], [30, -5], [30, 5], [20, 5], [20, -5]];
  const r = driveInto({ buildings: [[[40, -40], [50, -40], [50, -30]], b] }, null); // Same 100 m tile.
  assert.equal(r.contacts.length, 1, JSON.stringify(r.contacts));
  const c = r.contacts[0];
  assert.equal(c.with, 'building');
  assert.equal(c.other_id, 1);
  assert.ok(Math.abs(c.impact_speed_mps - r.before) < 0.1 * r.before, `impact ${c.impact_speed_mps} vs ${r.before}`);
  assert.ok(Math.abs(c.x - 20) < 0.5, `contact x ${c.x}`);
  // The wall held: the front bumper (0.85 m ahead of the axle) stays outside the footprint.
  assert.ok(r.state.x + 0.85 < 20.2, `front axle at ${r.state.x}`);
});

test('collisions: a prop and a pedestrian give one contact each, a traffic car one', () => {
  const prop = driveInto({ props: [{ id: 'p7', x: 20, y: 0.3, radius_m: 0.15, kind: 'lamp' }] }, null);
  assert.equal(prop.contacts.length, 1, JSON.stringify(prop.contacts));
  assert.equal(prop.contacts[0].with, 'prop');
  assert.equal(prop.contacts[0].other_id, 'p7');
  assert.equal(prop.contacts[0].other_kind, 'lamp');
  assert.ok(Math.abs(prop.contacts[0].impact_speed_mps - prop.before) < 0.1 * prop.before);

  const ped = driveInto({}, { pedestrians: [{ id: 42, x: 20, y: -3, vx: 0, vy: 1.2 }] });
  assert.equal(ped.contacts.length, 1, JSON.stringify(ped.contacts));
  assert.equal(ped.contacts[0].with, 'pedestrian');
  assert.equal(ped.contacts[0].other_id, 42);
  // Relative speed: the car's 8 m/s and the pedestrian's 1.2 m/s across.
  assert.ok(Math.abs(ped.contacts[0].impact_speed_mps - Math.hypot(ped.before, 1.2)) < 0.8);
  // Pedestrians are sensors: the car is not stopped.
  assert.ok(ped.state.x > 35, `car at ${ped.state.x}`);

  const veh = driveInto({}, { vehicles: [{ id: 9, kind: 'bus', x: 30, y: 0, heading_rad: 0, length_m: 12, width_m: 2.55, speed_mps: 2 }] });
  assert.equal(veh.contacts.length, 1, JSON.stringify(veh.contacts));
  assert.equal(veh.contacts[0].with, 'vehicle');
  assert.equal(veh.contacts[0].other_kind, 'bus');
  assert.ok(Math.abs(veh.contacts[0].impact_speed_mps - (veh.before - 2)) < 1.0, JSON.stringify(veh.contacts[0]));
});

test('slopes: the car follows groundHeight and rolls back down a 10 % grade', () => {
  const world = createPhysicsWorld({ groundHeight: (x) => 0.1 * x + 5 });
  const car = world.addCar(spec('hatchback'), { x: 0, y: 0, heading_rad: 0, speed_mps: 0 });
  for (let i = 0; i < 300; i++) world.step(0.01, { throttle: 0, brake: 0, steer: 0 });
  const st = car.state();
  assert.ok(Math.abs(st.z - (0.1 * st.x + 5)) < 0.1, `z ${st.z} at x ${st.x}`);
  assert.ok(st.speed_mps < -0.3, `rolls back: ${st.speed_mps}`);
  world.dispose();
});

/** n square footprints in a grid of 10 m blocks with 20 m streets. */
function syntheticCity(n) {
  const side = Math.ceil(Math.sqrt(n));
  const rings = [];
  for (let i = 0; i < n; i++) {
    const x0 = (i % side) * 30 - side * 15 + 10;
    const y0 = Math.floor(i / side) * 30 - side * 15 + 10;
    rings.push([[x0, y0], [x0 + 10, y0], [x0 + 10, y0 + 3], [x0 + 6, y0 + 3], [x0 + 6, y0 + 10], [x0, y0 + 10], [x0, y0]]);
  }
  return rings;
}

test('cost: 7,000 buildings build fast; one step with ~200 agents is cheap', () => {
  const buildings = syntheticCity(7000);
  const t0 = performance.now();
  const world = createPhysicsWorld({ buildings, groundHeight: (x, y) => 0.01 * x + 0.005 * y });
  const buildMs = performance.now() - t0;
  const car = world.addCar(spec('sports_rwd'), { x: -5, y: -5, heading_rad: 0.3, speed_mps: 10 });
  const vehicles = [];
  const pedestrians = [];
  for (let i = 0; i < 100; i++) {
    vehicles.push({ id: i, kind: 'car', x: -500 + 10 * i, y: -5 + (i % 4) * 3.5, heading_rad: 0, length_m: 4.5, width_m: 1.8, speed_mps: 10 });
    pedestrians.push({ id: 1000 + i, x: -495 + 10 * i, y: 5, vx: 1.2, vy: 0 });
  }
  world.setAgents({ vehicles, pedestrians });
  const times = [];
  for (let i = 0; i < 400; i++) {
    if (i % 6 === 0) world.setAgents({ vehicles, pedestrians }); // Agents arrive at ~16 Hz.
    const t = performance.now();
    world.step(0.01, { throttle: 0.3, brake: 0, steer: 0.05 });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const med = times[times.length >> 1];
  console.log(`# 7000 buildings: world build ${buildMs.toFixed(0)} ms; step with 200 agents: median ` +
    `${med.toFixed(3)} ms, p95 ${times[Math.floor(times.length * 0.95)].toFixed(3)} ms; car at ` +
    `${car.state().x.toFixed(1)}, ${car.state().y.toFixed(1)}`);
  assert.ok(buildMs < 2000, `build ${buildMs} ms`);
  assert.ok(med < 3, `step ${med} ms`);
  world.dispose();
});
