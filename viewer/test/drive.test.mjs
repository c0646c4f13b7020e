// SPDX-License-Identifier: Apache-2.0
// Car physics and lane matching of drive mode (node --test, no browser).
import assert from 'node:assert/strict';
import test from 'node:test';

import { CAR, createCar, frontAxle, steerLimit } from '../src/drive/physics.js';
import { alongLanes, hold, junction, LaneIndex } from './drive_fixture.mjs';
import { controlOf } from '../src/drive/input.js';

test('full throttle from rest accelerates straight ahead', () => {
  const car = createCar(0, 0, 0);
  hold(car, { up: true }, 5);
  const f = frontAxle(car);
  assert.ok(car.speed_mps > 10 && car.speed_mps < 15, `speed ${car.speed_mps}`);
  assert.ok(f.x > 25 && f.x < 40, `x ${f.x}`);
  assert.equal(car.heading_rad, 0);
  assert.ok(Math.abs(f.y) < 1e-9);
});

test('coasting slows down and never reverses', () => {
  const car = createCar(0, 0, 0, 5);
  hold(car, {}, 60);
  assert.equal(car.speed_mps, 0);
});

test('full brake stops from 20 m/s within the 1 g distance plus the pedal travel', () => {
  const car = createCar(0, 0, 0, 20);
  let stopped = null;
  hold(car, { down: true }, 4, 0.01, (c) => {
    if (stopped === null && c.speed_mps === 0) stopped = frontAxle(c).x;
  });
  const ideal = (20 * 20) / (2 * CAR.max_brake_mps2); // 20.4 m
  assert.ok(stopped !== null, 'car stopped');
  assert.ok(stopped >= ideal, `stopped at ${stopped} m, 1 g needs ${ideal}`);
  // Pedal reaches full in 1 / brake_rate = 0.2 s: at most 20 m/s x 0.2 s more.
  assert.ok(stopped <= ideal + 20 / CAR.brake_rate + 0.5, `stopped at ${stopped} m`);
  // Braking never beats 1 g.
  assert.ok(car.accel_mps2 >= -CAR.max_brake_mps2 - CAR.rolling_mps2 - 1e-6 || car.speed_mps <= 0);
});

test('holding brake at rest reverses, capped at the reverse speed; throttle then brakes', () => {
  const car = createCar(0, 0, 0, 0);
  hold(car, { down: true }, 10);
  assert.equal(car.gear, -1);
  assert.ok(car.speed_mps < -5 && car.speed_mps >= -CAR.max_reverse_mps, `speed ${car.speed_mps}`);
  assert.ok(frontAxle(car).x < -20);
  hold(car, { up: true }, 3);
  assert.ok(car.speed_mps >= 0);
});

test('steering left turns counter-clockwise, right clockwise, on the bicycle model radius', () => {
  const left = createCar(0, 0, 0, 8);
  hold(left, { left: true, up: true }, 0.5);
  const h0 = left.heading_rad;
  assert.ok(h0 > 0);
  const right = createCar(0, 0, 0, 8);
  hold(right, { right: true, up: true }, 0.5);
  assert.ok(right.heading_rad < 0);
  assert.ok(Math.abs(right.heading_rad + h0) < 1e-9, 'symmetric');
  // Full lock held at constant speed: yaw rate v / L tan(delta).
  const c = createCar(0, 0, 0, 5);
  hold(c, { left: true }, 1); // Steering input fully in.
  const v = c.speed_mps;
  const before = c.heading_rad;
  hold(c, { left: true }, 0.01);
  const yaw = (c.heading_rad - before) / 0.01;
  const expect = (v / CAR.wheelbase_m) * Math.tan(steerLimit(v));
  assert.ok(Math.abs(yaw - expect) / expect < 0.02, `yaw ${yaw} expected ${expect}`);
});

test('steering limit falls with speed and keeps lateral acceleration in bounds', () => {
  assert.ok(steerLimit(0) === CAR.max_steer_rad);
  assert.ok(steerLimit(30) < steerLimit(10) && steerLimit(10) < steerLimit(2));
  for (const v of [5, 10, 20, 30, 45]) {
    const aLat = (v * v * Math.tan(steerLimit(v))) / CAR.wheelbase_m;
    assert.ok(aLat <= CAR.max_lat_accel_mps2 + 1e-9, `a_lat ${aLat} at ${v} m/s`);
  }
});

test('keys map to controls', () => {
  assert.equal(controlOf({ code: 'ArrowUp' }), 'up');
  assert.equal(controlOf({ code: 'KeyW' }), 'up');
  assert.equal(controlOf({ code: 'KeyS' }), 'down');
  assert.equal(controlOf({ code: 'KeyA' }), 'left');
  assert.equal(controlOf({ code: 'ArrowRight' }), 'right');
  assert.equal(controlOf({ code: 'Space' }), 'handbrake');
  assert.equal(controlOf({ code: 'KeyQ', key: 'q' }), null);
});

test('lane match: lane, s, signed lateral offset and heading error', () => {
  const index = new LaneIndex(junction());
  const m = index.match(-100, -1.25, 0.1, null);
  assert.equal(m.lane, 0);
  assert.ok(Math.abs(m.s_m - 100) < 1e-6);
  assert.ok(Math.abs(m.lateral_m - 0.5) < 1e-9, 'left of the lane is positive');
  assert.ok(Math.abs(m.heading_err_rad - 0.1) < 1e-9);
  assert.equal(m.speed_limit_mps, 50 / 3.6);
  assert.equal(index.match(-100, -2.25, 0, null).lateral_m, -0.5);
  // Same place, facing west: the westbound lane beside it.
  assert.equal(index.match(-100, 1.0, Math.PI, null).lane, 5);
  // Sidewalks are not vehicle lanes; far from every lane there is no match.
  assert.equal(index.match(-100, -9, 0, null).lane, 6);
  assert.equal(index.match(-100, -40, 0, null), null);
  // z follows the lane's points.
  const p = index.pointAt(0, 5);
  assert.ok(Math.abs(p.z - 0.01 * (5 / 5)) < 1e-9);
});

function matches(index, pose, seconds) {
  const seq = [];
  let cur = null;
  for (let t = 0; t <= seconds; t += 0.01) {
    const p = pose(t);
    const m = index.match(p.x, p.y, p.heading_rad, cur);
    cur = m ? m.lane : null;
    if (seq[seq.length - 1] !== cur) seq.push(cur);
  }
  return seq;
}

test('lane match follows the junction without flicker (through and right turn)', () => {
  const index = new LaneIndex(junction());
  assert.deepEqual(matches(index, alongLanes(index, [0, 1, 3], 150, 10), 8), [0, 1, 3]);
  // Turning right, the through connector (same start) holds until the turn parts from it.
  assert.deepEqual(matches(index, alongLanes(index, [0, 2, 4], 150, 8), 8), [0, 1, 2, 4]);
});

test('where connectors start together the through movement is matched first', () => {
  const lanes = junction();
  // Swap the connectors' ids' roles: the right turn gets the lower id of the two.
  lanes.lanes[1].turn = 'right';
  lanes.lanes[2].turn = 'through';
  const index = new LaneIndex(lanes);
  // At the stop line the approach's end and both connectors' starts are equally near.
  assert.equal(index.match(-10, -1.75, 0, null).lane, 2);
  assert.equal(new LaneIndex(junction()).match(-10, -1.75, 0, null).lane, 1);
});

test('lane change switches once, past the midpoint (hysteresis)', () => {
  const index = new LaneIndex(junction());
  let cur = 0;
  let switches = 0;
  let switchY = null;
  for (let i = 0; i <= 350; i++) {
    const y = -1.75 - (3.5 * i) / 350;
    const m = index.match(-100, y, -0.05, cur);
    if (m.lane !== cur) {
      switches++;
      switchY = y;
      cur = m.lane;
    }
  }
  assert.equal(cur, 6);
  assert.equal(switches, 1);
  assert.ok(switchY < -3.5 - 0.2, `switched at y = ${switchY}`);
  // And back: also only once.
  for (let i = 0; i <= 350; i++) {
    const m = index.match(-100, -5.25 + (3.5 * i) / 350, 0.05, cur);
    if (m.lane !== cur) {
      switches++;
      cur = m.lane;
    }
  }
  assert.equal(cur, 0);
  assert.equal(switches, 2);
});
