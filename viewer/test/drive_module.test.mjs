// SPDX-License-Identifier: Apache-2.0
// createDrive with the ctx main.js passes (three.js from node_modules, a fake live socket,
// signals and agents): keys drive the car, player messages go out at 15 Hz, the chase camera
// follows, the metrics see the red light, stop sends player_off.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';

import { createDrive } from '../src/drive/index.js';
import { junction } from './drive_fixture.mjs';

let THREE = null;
try {
  THREE = await import('three');
} catch {
  // three is a dependency of the viewer (npm ci); without it this file has nothing to run.
}

// The shipped vehicle files, as main.js bundles them.
const VEHICLES = Object.fromEntries(['hatchback', 'sports_rwd', 'pickup_4x4'].map((n) => [n,
  JSON.parse(fs.readFileSync(new URL(`../../data/vehicles/${n}.json`, import.meta.url), 'utf8'))]));

function context() {
  const sent = [];
  let t = 100;
  const ctx = {
    THREE,
    scene: new THREE.Scene(),
    camera: new THREE.PerspectiveCamera(60, 16 / 9, 0.5, 5000),
    lanes: junction(),
    city: '/city/',
    toScene: (x, y, z) => new THREE.Vector3(x, z, -y),
    fromScene: (v) => ({ x: v.x, y: -v.z, z: v.y }),
    clock: () => t,
    signals: () => new Map([[1, 'red'], [2, 'red']]),
    send: (obj) => sent.push(obj),
    agents: () => ({ count: 2, ids: new Uint32Array([5, 6]), kinds: new Uint8Array([4, 5]),
      x: new Float32Array([0, -150]), y: new Float32Array([0, -9]), z: new Float32Array(2),
      heading: new Float32Array([0, 0]), speed: new Float32Array([0, 1.2]) }),
    events: new EventTarget(),
    vehicles: VEHICLES,
  };
  return { ctx, sent, advance: (dt) => (t += dt) };
}

test('drive module: keys, messages, camera, metrics and stop', { skip: !THREE && 'three not installed' }, async () => {
  const { ctx, sent, advance } = context();
  const drive = await createDrive(ctx);
  assert.equal(drive.active, false);
  const s0 = drive.start({ lane: 0, s_m: 150, speed_mps: 10 });
  assert.equal(drive.active, true);
  assert.equal(s0.lane, 0);
  // Rapier works in float32: the pose comes back to ~1e-5 m.
  assert.ok(Math.abs(s0.x + 50) < 1e-4 && Math.abs(s0.y + 1.75) < 1e-4, `at ${s0.x}, ${s0.y}`);
  const mesh = ctx.scene.getObjectByName('cityforge-player-car');
  assert.ok(mesh && mesh.visible);
  drive.keys.up = true;
  const lanes = new Set();
  for (let i = 0; i < 180; i++) { // 6 s at 30 frames per second
    advance(1 / 30);
    drive.update(1 / 30);
    lanes.add(drive.state().lane);
  }
  drive.keys.up = false;
  const s1 = drive.state();
  assert.ok(s1.speed_mps > 15, `speed ${s1.speed_mps}`);
  assert.ok(s1.x > 10, 'through the junction');
  assert.deepEqual([...lanes], [0, 1, 3]);
  // Player messages at 15 Hz with the front-axle pose.
  const players = sent.filter((m) => m.type === 'player');
  assert.ok(players.length >= 88 && players.length <= 92, `${players.length} messages`);
  const last = players[players.length - 1];
  for (const k of ['x', 'y', 'z', 'heading_rad', 'speed_mps']) assert.equal(typeof last[k], 'number');
  assert.ok(JSON.stringify(last).length < 200);
  // The chase camera is behind the car and above it.
  const cam = ctx.fromScene(ctx.camera.position);
  assert.ok(cam.x < s1.x - 5 && cam.z > 2, `camera at ${JSON.stringify(cam)}`);
  // The metrics: a red light, samples at 10 Hz, the player itself never a collision.
  const m = drive.metrics();
  assert.equal(m.summary.red_light_violations, 1);
  assert.equal(m.summary.collisions, 0);
  assert.equal(m.started_at_sim_s, 100);
  assert.ok(Math.abs(m.samples.length - 61) <= 1, `${m.samples.length} samples`);
  assert.equal(JSON.parse(drive.exportJSON()).format, 'cityforge-drive-metrics');
  assert.equal(drive.exportCSV().split('\n').length - 2, m.samples.length);
  drive.stop();
  assert.equal(drive.active, false);
  assert.equal(mesh.visible, false);
  assert.deepEqual(sent[sent.length - 1], { type: 'player_off' });
  // Stopped: updates do nothing; the recording stays for export.
  drive.update(1);
  assert.equal(drive.metrics().summary.red_light_violations, 1);
});

test('drive module: a start off every lane moves onto the nearest lane', { skip: !THREE && 'three not installed' }, async () => {
  const { ctx } = context();
  const drive = await createDrive(ctx);
  const s = drive.start({ x: -100, y: -30, heading_rad: 2 });
  assert.equal(s.lane, 6);
  assert.ok(Math.abs(s.heading_rad) < 1e-9, 'along the lane');
  const on = drive.start({ x: -100, y: -1.75, heading_rad: 0.1 });
  assert.equal(on.lane, 0);
  assert.ok(Math.abs(on.heading_rad - 0.1) < 1e-6, `heading ${on.heading_rad}`);
});

test('drive module: a pedestrian the car hits falls, stays down and counts as a casualty', { skip: !THREE && 'three not installed' }, async () => {
  const { ctx, sent, advance } = context();
  // A pedestrian standing on lane 0, 40 m ahead of the start, and a slow walker beside it.
  ctx.agents = () => ({ count: 2, ids: new Uint32Array([9, 10]), kinds: new Uint8Array([5, 5]),
    x: new Float32Array([-110, -60]), y: new Float32Array([-1.75, -9]), z: new Float32Array(2),
    heading: new Float32Array([Math.PI / 2, 0]), speed: new Float32Array([0, 0.5]),
    state: new Uint8Array([0, 0]) });
  const calls = [];
  ctx.onCasualty = (id, pose) => calls.push([id, pose && { ...pose }]);
  const drive = await createDrive(ctx);
  drive.start({ lane: 0, s_m: 50, speed_mps: 12 });
  assert.deepEqual(calls, [[null, null]], 'a new drive clears the fallen');
  for (let i = 0; i < 240; i++) { // 8 s: the car coasts into the pedestrian and past
    advance(1 / 30);
    drive.update(1 / 30);
  }
  const m = drive.metrics();
  assert.equal(m.summary.collisions_pedestrian, 1, 'one contact, not one per frame');
  assert.equal(m.summary.casualties, 1);
  const c = m.events.find((e) => e.type === 'casualty');
  assert.ok(c, 'a casualty event');
  assert.equal(c.other_id, 9);
  assert.ok(c.impact_speed_mps > 8, `impact ${c.impact_speed_mps}`);
  assert.ok(Math.abs(c.at_x + 110) < 1.5 && Math.abs(c.at_y + 1.75) < 1.5, `at ${c.at_x}, ${c.at_y}`);
  // The viewer draws it lying there, the server is told, and it left the collision world.
  assert.equal(calls.length, 2);
  assert.equal(calls[1][0], 9);
  assert.ok(Math.abs(calls[1][1].heading_rad - c.heading_rad) < 1e-9);
  // Thrown ahead along the car's heading, v^2 / (2 x 0.7 x 9.81) m: it lies there.
  assert.ok(Math.abs(c.throw_m - c.impact_speed_mps ** 2 / (2 * 0.7 * 9.81)) < 1e-3, `throw ${c.throw_m}`);
  assert.ok(c.throw_m > 4, `thrown ${c.throw_m} m`);
  assert.ok(Math.abs(calls[1][1].x - (c.at_x + Math.cos(c.heading_rad) * c.throw_m)) < 1e-3);
  assert.ok(Math.abs(calls[1][1].y - (c.at_y + Math.sin(c.heading_rad) * c.throw_m)) < 1e-3);
  assert.deepEqual([calls[1][1].x, calls[1][1].y], [c.rest_x, c.rest_y]);
  assert.deepEqual(sent.filter((s) => s.type === 'hit'), [{ type: 'hit', id: 9 }]);
  assert.ok(drive.state().x > -100, `the car went on past the body: x ${drive.state().x}`);
  const csv = drive.exportEventsCSV();
  assert.ok(csv.split('\n')[0].includes('at_x'), 'events CSV has the casualty columns');
});

test('drive module: a car started inside a traffic vehicle is not flung out of it', { skip: !THREE && 'three not installed' }, async () => {
  const { ctx, advance } = context();
  // A car of the traffic standing where the drive starts (lane 0 at s = 150: x = -50).
  let vx = -49;
  ctx.agents = () => ({ count: 1, ids: new Uint32Array([77]), kinds: new Uint8Array([0]),
    x: new Float32Array([vx]), y: new Float32Array([-1.75]), z: new Float32Array(1),
    heading: new Float32Array([0]), speed: new Float32Array([0]), state: new Uint8Array(1) });
  const drive = await createDrive(ctx);
  const s0 = drive.start({ lane: 0, s_m: 150 });
  for (let i = 0; i < 60; i++) { // 2 s
    advance(1 / 30);
    drive.update(1 / 30);
  }
  const s1 = drive.state();
  assert.ok(Math.hypot(s1.x - s0.x, s1.y - s0.y) < 0.5, `moved ${s1.x - s0.x}, ${s1.y - s0.y}`);
  assert.equal(drive.contacts().length, 0, 'no collision with the one it started in');
  // Once that car has driven off and comes back into the way, it is solid again.
  vx = -20;
  for (let i = 0; i < 10; i++) { advance(1 / 30); drive.update(1 / 30); }
  drive.keys.up = true;
  for (let i = 0; i < 150 && drive.contacts().length === 0; i++) { advance(1 / 30); drive.update(1 / 30); }
  drive.keys.up = false;
  assert.equal(drive.contacts()[0]?.with, 'vehicle', 'it is in the collision world again');
});
