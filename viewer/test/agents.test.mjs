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

let models = null;
try {
  models = await import('../src/agent_models.js');
} catch {
  // as above: three is missing
}

/** Slots of `mesh` holding the agent drawn at three position (x, -y). */
function slotsAt(mesh, x, y) {
  const out = [];
  for (let s = 0; s < mesh.count; s++) {
    const m = mesh.instanceMatrix.array;
    if (Math.abs(m[s * 16 + 12] - x) < 1e-3 && Math.abs(m[s * 16 + 14] + y) < 1e-3) out.push(s);
  }
  return out;
}

test('the person is rigged with 11 bones, ~1.3k triangles, and carries every accessory', { skip: !models && 'three not installed' }, () => {
  const g = models.personModel();
  const tris = models.triangleCount(g);
  assert.ok(tris >= 800 && tris <= 2500, `${tris} triangles`);
  const rig = g.attributes.aRig.array;
  const bones = new Set(), parts = new Set();
  let top = 0;
  for (let i = 0; i < rig.length; i += 2) {
    bones.add(rig[i]);
    parts.add(rig[i + 1]);
    top = Math.max(top, g.attributes.position.getY(i / 2));
  }
  assert.equal(bones.size, 11);
  assert.equal(models.BONES.length, 11);
  assert.equal(parts.size, models.PARTS.length, 'every part and accessory has geometry');
  assert.ok(top > 1.7 && top < 1.85, `height ${top}`);
  for (const kind of ['car', 'van', 'bus', 'truck', 'player']) {
    const v = models.vehicleModel(kind);
    const w = v.attributes.aWheel.array;
    let wheels = 0, steering = 0;
    for (let i = 3; i < w.length; i += 4) {
      if (w[i] > 0.5) wheels++;
      if (w[i] > 1.5) steering++;
    }
    assert.ok(wheels > 0 && steering > 0 && steering < wheels, `${kind}: rolling and steering wheels`);
    assert.ok(models.triangleCount(v) < 600, `${kind}: low poly`);
  }
});

test('outfits are colour matched and the same for an id at every level', { skip: !models && 'three not installed' }, () => {
  const lum = (hex) => {
    const c = new THREE.Color(hex);
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
  };
  const seen = new Set();
  for (let h = 1; h < 5000; h++) {
    const a = models.appearance(Math.imul(h, 2654435761) >>> 0);
    assert.ok(Math.abs(lum(a.top) - lum(models.BOTTOMS[a.bottom])) >= 0.12, `top ${a.top} bottom ${a.bottom}`);
    assert.deepEqual(a, models.appearance(Math.imul(h, 2654435761) >>> 0));
    seen.add(a.accessories);
  }
  assert.ok(seen.size >= 6, `accessory combinations ${seen.size}`);
});

/** Agents walking / driving along +x from x0 by `step` metres per update; returns the agents. */
function movingFrame(peds, cars, x) {
  const all = [...peds.map((p) => ({ ...p, kind: KIND_PEDESTRIAN })), ...cars.map((c) => ({ ...c, kind: 0 }))];
  const f = frame(all);
  all.forEach((p, i) => {
    f.kinds[i] = p.kind;
    f.x[i] = x + (p.dx ?? 0);
    f.y[i] = p.y ?? 0;
    f.speed[i] = p.speed ?? 1.4;
    f.heading[i] = p.heading ?? 0;
  });
  return f;
}

test('walk cycles advance with the distance walked, wheels roll with the distance driven', { skip: !models && 'three not installed' }, () => {
  const agents = new Agents(new THREE.Scene());
  agents.viewer.set(0, 0, 0);
  const walk = { id: 7, y: 3, speed: 1.4 };
  const car = { id: 9, y: -3, speed: 10 };
  const probe = () => [agents.probe.pedestrians.find((p) => p.id === 7), agents.probe.vehicles.find((v) => v.id === 9)];
  agents.push(movingFrame([walk], [car], 0));
  agents.update(1);
  const [p0, v0] = probe();
  agents.push(movingFrame([walk], [car], 0.35));
  agents.update(1);
  const [p1, v1] = probe();
  assert.equal(p1.gait, 1);
  const dphase = (p1.phase - p0.phase + 1) % 1;
  assert.ok(Math.abs(dphase - 0.35 / models.cycleLength(1)) < 1e-6, `phase advanced ${dphase}`);
  assert.ok(Math.abs(v1.roll - v0.roll - 0.35 / models.WHEEL_RADIUS.car) < 1e-4, `rolled ${v1.roll - v0.roll}`);
  assert.equal(agents.drawn.animated_pedestrians, 1);
  assert.equal(agents.drawn.wheeled_vehicles, 1);
  // Standing still: the phase stays and the gait is idle.
  agents.push(movingFrame([{ ...walk, speed: 0 }], [car], 0.35));
  agents.update(1);
  const [p2] = probe();
  assert.equal(p2.phase, p1.phase);
  assert.equal(p2.gait, 0);
  // A left turn (heading growing) steers the front wheels left (positive).
  for (let k = 1; k <= 8; k++) {
    const f = movingFrame([], [{ ...car, heading: 0.05 * k }], 0.35 + k);
    agents.push(f);
    agents.update(1);
  }
  assert.ok(probe()[1].steer > 0.05, `steer ${probe()[1].steer}`);
});

test('levels fade by complementary dithering and the bodies keep to a triangle budget', { skip: !models && 'three not installed' }, () => {
  const agents = new Agents(new THREE.Scene());
  agents.viewer.set(0, 0, 0);
  agents.push(frame([{ id: 1, x: 10, y: 0 }, { id: 2, x: 40, y: 0 }, { id: 3, x: 60, y: 0 }, { id: 4, x: 200, y: 0 }]));
  agents.update(1);
  const [body, boxes, far] = agents.levels[KIND_PEDESTRIAN];
  assert.deepEqual(slotsAt(body, 10, 0).length, 1);
  assert.deepEqual(slotsAt(boxes, 60, 0).length, 1);
  assert.deepEqual(slotsAt(far, 200, 0).length, 1);
  // At 40 m (the bodies' distance) both levels draw it, with the same threshold and opposite sides.
  const [sb] = slotsAt(body, 40, 0), [sx] = slotsAt(boxes, 40, 0);
  const fb = body.geometry.attributes.aFade.array, fx = boxes.geometry.attributes.aFade.array;
  assert.ok(fb[sb * 2] > 0 && fb[sb * 2] < 1);
  assert.equal(fb[sb * 2], fx[sx * 2]);
  assert.deepEqual([fb[sb * 2 + 1], fx[sx * 2 + 1]], [0, 1]);
  assert.equal(agents.drawn.fading, 1);
  // A dense crowd near the camera: no more bodies than the budget allows, the nearest ones.
  const crowd = [];
  for (let i = 0; i < 600; i++) crowd.push({ id: 100 + i, x: 2 + (i % 30), y: Math.floor(i / 30) });
  agents.push(frame(crowd));
  agents.update(1);
  const bodies = agents.drawn.animated_pedestrians;
  assert.ok(bodies * agents.drawn.person_triangles <= 200_000 * 1.05, `${bodies} bodies`);
  assert.ok(bodies > 50 && agents.drawn.person_radius_m < 40, `radius ${agents.drawn.person_radius_m}`);
});
