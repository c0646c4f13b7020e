// SPDX-License-Identifier: Apache-2.0
// The agents' instanced meshes (agents.js): pedestrians knocked down by the driven car lie on
// the ground, from the stream's state byte (the live server) or the drive's own pose.
import assert from 'node:assert/strict';
import test from 'node:test';

let THREE = null;
let Agents = null;
try {
  THREE = await import('three');
  ({ Agents } = await import('../src/agents.js'));
} catch {
  // three is a dependency of the viewer (npm ci); without it there is nothing to run.
}
import { KIND_PEDESTRIAN, STATE_DOWN } from '../src/recording.js';

function frame(peds) {
  const n = peds.length;
  const f = { count: n, time_s: 0, ids: new Uint32Array(n), kinds: new Uint8Array(n).fill(KIND_PEDESTRIAN),
    x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n), heading: new Float32Array(n),
    speed: new Float32Array(n), lod: new Uint8Array(n), flags: new Uint8Array(n), variant: new Uint16Array(n),
    state: new Uint8Array(n) };
  peds.forEach((p, i) => {
    f.ids[i] = p.id;
    f.x[i] = p.x;
    f.y[i] = p.y;
    f.z[i] = p.z ?? 0;
    f.heading[i] = p.heading ?? 0;
    f.state[i] = p.state ?? 0;
  });
  return f;
}

/** The instance's local up (+y) and front (+x) in three coordinates, and its origin. */
function pose(mesh, slot) {
  const m = new THREE.Matrix4().fromArray(mesh.instanceMatrix.array, slot * 16);
  return {
    up: new THREE.Vector3(0, 1, 0).transformDirection(m),
    front: new THREE.Vector3(1, 0, 0).transformDirection(m),
    at: new THREE.Vector3().setFromMatrixPosition(m),
  };
}

test('pedestrians down lie face down, head along the heading; the others stand', { skip: !THREE && 'three not installed' }, () => {
  const agents = new Agents(new THREE.Scene());
  agents.viewer.set(0, 0, 0);
  agents.push(frame([
    { id: 1, x: 5, y: 0, heading: 0 },
    { id: 2, x: 10, y: 0, heading: Math.PI / 2, state: STATE_DOWN },
    { id: 3, x: 15, y: 0, heading: 0 },
  ]));
  agents.setDown(3, { x: 16, y: 2, z: 1, heading_rad: Math.PI });
  agents.update(1);
  const mesh = agents.meshes[KIND_PEDESTRIAN];
  assert.equal(mesh.count, 3);
  const standing = pose(mesh, 0);
  assert.ok(standing.up.distanceTo(new THREE.Vector3(0, 1, 0)) < 1e-6);
  // Down from the stream: north (three -z) is where its head points; its front faces down.
  const s = pose(mesh, 1);
  assert.ok(s.up.distanceTo(new THREE.Vector3(0, 0, -1)) < 1e-6, `up ${s.up.toArray()}`);
  assert.ok(s.front.distanceTo(new THREE.Vector3(0, -1, 0)) < 1e-6, `front ${s.front.toArray()}`);
  assert.ok(s.at.distanceTo(new THREE.Vector3(10, 0.15, 0)) < 1e-6);
  // Down by the drive: at the drive's pose, whatever the frame says.
  const d = pose(mesh, 2);
  assert.ok(d.up.distanceTo(new THREE.Vector3(-1, 0, 0)) < 1e-6, `up ${d.up.toArray()}`);
  assert.ok(d.at.distanceTo(new THREE.Vector3(16, 1.15, -2)) < 1e-6, `at ${d.at.toArray()}`);
  agents.clearDown();
  agents.update(1);
  assert.ok(pose(mesh, 2).up.distanceTo(new THREE.Vector3(0, 1, 0)) < 1e-6, 'standing again after clearDown');
});
