// SPDX-License-Identifier: Apache-2.0
// Vehicle lights: when they are on, what each vehicle's flags and motion light, the 1.5 Hz
// blink, where the lamps go, and the cost for 5,000 vehicles (objects drawn and update time;
// renderer.info needs a GL context, so the draw calls are the drawable objects counted).
import assert from 'node:assert/strict';
import test from 'node:test';

let THREE = null;
let VL = null;
let Agents = null;
try {
  THREE = await import('three');
  VL = await import('../src/vehicle_lights.js');
  ({ Agents } = await import('../src/agents.js'));
} catch {
  // three.js not installed (npm ci not run): skipped below.
}
const skip = !VL && 'three not installed';

/** A frame in the decoders' shape from rows {id, kind, x, y, heading, speed, flags}. */
function frame(rows, time_s) {
  const n = rows.length;
  const f = {
    count: n,
    time_s,
    ids: new Uint32Array(n),
    kinds: new Uint8Array(n),
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    heading: new Float32Array(n),
    speed: new Float32Array(n),
    lod: new Uint8Array(n),
    variant: new Uint16Array(n),
    flags: new Uint8Array(n),
    state: new Uint8Array(n),
  };
  rows.forEach((r, i) => {
    f.ids[i] = r.id;
    f.kinds[i] = r.kind ?? 0;
    f.x[i] = r.x ?? 0;
    f.y[i] = r.y ?? 0;
    f.z[i] = r.z ?? 0;
    f.heading[i] = r.heading ?? 0;
    f.speed[i] = r.speed ?? 10;
    f.flags[i] = r.flags ?? 0;
  });
  return f;
}

function drawables(root) {
  let n = 0;
  root.traverseVisible((o) => {
    if ((o.isMesh || o.isPoints || o.isLine || o.isSprite) && (o.count === undefined || o.count > 0)) n++;
  });
  return n;
}

test('headlights are on at dusk and night and in rain, storm or fog', { skip }, () => {
  const { lightsOnFor } = VL;
  assert.equal(lightsOnFor(30, 'clear', false), false);
  assert.equal(lightsOnFor(30, 'cloudy', false), false);
  assert.equal(lightsOnFor(3.9, 'clear', false), true, 'under the street lights threshold (4 degrees)');
  assert.equal(lightsOnFor(4.1, 'clear', false), false);
  assert.equal(lightsOnFor(-20, 'clear', false), true);
  for (const k of ['rain', 'storm', 'fog']) assert.equal(lightsOnFor(40, k, false), true, k);
  assert.equal(lightsOnFor(40, 'clear', true), true, 'fog flag');
});

test('lamp states from flags, speed drops and player motion', { skip }, () => {
  const { lampStates, LAMP_BRAKE, LAMP_LEFT, LAMP_RIGHT, FLAG_BRAKING, FLAG_LEFT, FLAG_RIGHT, FLAG_NEW, FLAG_WAITING } = VL;
  const rowsA = [
    { id: 1, speed: 10 },
    { id: 2, speed: 10 },
    { id: 3, speed: 10 },
    { id: 4, speed: 0.5 },
    { id: 5, speed: 10 },
    { id: 6, kind: 4, x: 0, y: 0, speed: 10 },
    { id: 7, kind: 4, x: 50, y: 0, speed: 10 },
    { id: 8, kind: 5, speed: 0 },
    { id: 9, speed: 10 },
    { id: 10, kind: 4, x: 100, y: 0, heading: Math.PI / 2, speed: 10 },
    { id: 11, speed: 8 },
  ];
  const rowsB = [
    { id: 1, speed: 9.95, flags: FLAG_BRAKING }, // the simulation says braking
    { id: 2, speed: 9.7 }, // 3 m/s^2 between frames
    { id: 3, speed: 9.95 }, // 0.5 m/s^2: coasting
    { id: 4, speed: 0 }, // standing
    { id: 5, speed: 10, flags: FLAG_LEFT },
    { id: 6, kind: 4, x: 1, y: 0.1, speed: 10 }, // sideways to the left at 1 m/s
    { id: 7, kind: 4, x: 51, y: 0.01, speed: 10 }, // straight (0.1 m/s sideways)
    { id: 8, kind: 5, speed: 0 },
    { id: 9, speed: 2, flags: FLAG_NEW }, // a new id: nothing to compare with
    { id: 10, kind: 4, x: 100.1, y: 1, heading: Math.PI / 2, speed: 10 }, // north, drifting east: right
    { id: 11, speed: 8, flags: FLAG_RIGHT | FLAG_WAITING },
  ];
  const a = frame(rowsA, 5.0);
  const b = frame(rowsB, 5.1);
  const match = Int32Array.from(rowsB, (_, i) => i);
  const hold = new Map();
  const bits = lampStates(a, b, match, hold);
  assert.deepEqual(Array.from(bits), [
    LAMP_BRAKE,
    LAMP_BRAKE,
    0,
    LAMP_BRAKE,
    LAMP_LEFT,
    LAMP_LEFT,
    0,
    0,
    0,
    LAMP_RIGHT,
    LAMP_BRAKE | LAMP_RIGHT,
  ]);
  // Player 6 goes straight again: the indicator holds for 1 s of stream time, then stops.
  const c = frame(rowsB.map((r) => (r.id === 6 ? { ...r, x: 2, y: 0.1 } : r)), 5.5);
  assert.equal(lampStates(b, c, match, hold)[5], LAMP_LEFT, 'held');
  const d = frame(rowsB.map((r) => (r.id === 6 ? { ...r, x: 3, y: 0.1 } : r)), 6.3);
  assert.equal(lampStates(c, d, match, hold)[5], 0, 'released after the hold');
  // Without a previous frame only flags and standing count.
  const alone = lampStates(null, b, null, null);
  assert.equal(alone[1], 0);
  assert.equal(alone[3], LAMP_BRAKE);
  assert.equal(alone[5], 0);
});

test('indicators blink at 1.5 Hz, half the time on, out of step between vehicles', { skip }, () => {
  const { blinkOn, blinkPhase } = VL;
  for (const id of [1, 77, 123456]) {
    const phase = blinkPhase(id);
    let on = 0;
    let switches = 0;
    let last = blinkOn(0, phase);
    for (let k = 1; k <= 10000; k++) {
      const v = blinkOn(k / 1000, phase);
      if (v) on++;
      if (v !== last) switches++;
      last = v;
    }
    assert.ok(Math.abs(on / 10000 - 0.5) < 0.01, `duty ${on / 10000}`);
    assert.ok(switches >= 29 && switches <= 31, `switches in 10 s: ${switches}`);
  }
  const phases = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((id) => Math.floor(blinkPhase(id) * 10)));
  assert.ok(phases.size >= 4, 'phases spread');
});

test('lamps sit on the vehicle and face its way (three frame: x, z, -y)', { skip }, () => {
  const scene = new THREE.Scene();
  const agents = new Agents(scene);
  const a = frame([{ id: 1, x: 100, y: 200, heading: 0, speed: 10 }], 1.0);
  const b = frame([{ id: 1, x: 101, y: 200, heading: 0, speed: 10, flags: VL.FLAG_LEFT }], 1.1);
  agents.push(a);
  agents.push(b);
  agents.update(1);
  const lights = new VL.VehicleLights(agents.group);
  lights.setOn(true);
  // A time when the indicator is lit.
  const phase = VL.blinkPhase(1);
  const t = (1 - phase + 0.1) / VL.BLINK_HZ;
  assert.equal(VL.blinkOn(t, phase), true);
  const st = lights.update(agents, t);
  assert.equal(st.lamps, 6, '2 head, 2 tail, 2 indicators');
  const m = new THREE.Matrix4();
  const p = new THREE.Vector3();
  const pos = [];
  for (let k = 0; k < st.lamps; k++) {
    lights.mesh.getMatrixAt(k, m);
    p.setFromMatrixPosition(m);
    const fwd = new THREE.Vector3(1, 0, 0).transformDirection(m);
    pos.push({ x: p.x, y: -p.z, z: p.y, fx: fwd.x, fy: -fwd.z });
  }
  // Headlights ahead of the front axle (x 101), facing +x; tails 3.6 m behind, facing -x.
  assert.ok(Math.abs(pos[0].x - 101.96) < 1e-4 && Math.abs(pos[0].y - 200.62) < 1e-4, JSON.stringify(pos[0]));
  assert.ok(Math.abs(pos[1].y - 199.38) < 1e-4);
  assert.ok(pos[0].fx > 0.99 && pos[2].fx < -0.99);
  assert.ok(Math.abs(pos[2].x - (101 - 3.66)) < 1e-4);
  // Indicators on the left side (+y), front and rear.
  assert.ok(pos[4].y > 200.8 && pos[5].y > 200.8, 'left indicators');
  const red = new THREE.Color();
  lights.mesh.getColorAt(2, red);
  assert.ok(red.r > 0 && red.r < 0.5 && red.g < 0.05, 'tail light dim red');
  // Off by day and not braking: nothing drawn, not even the mesh.
  lights.setOn(false);
  const day = lights.update(agents, t + 1 / VL.BLINK_HZ / 2); // indicator dark half a period later
  assert.equal(day.lamps, 0);
  assert.equal(lights.mesh.visible, false);
});

test('5,000 vehicles: one draw call for all lamps; frame cost', { skip }, () => {
  const N = 5000;
  const scene = new THREE.Scene();
  const agents = new Agents(scene);
  agents.viewer.set(0, 50, 0);
  const rows = (t) =>
    Array.from({ length: N }, (_, i) => {
      const h = (i * 0.37) % (2 * Math.PI);
      return {
        id: i,
        kind: i % 10 === 9 ? 1 + (i % 3) : 0,
        x: (i % 71) * 14 - 500 + Math.cos(h) * t * 10,
        y: Math.floor(i / 71) * 14 - 500 + Math.sin(h) * t * 10,
        heading: h,
        speed: i % 4 === 0 ? 8 - t * 20 : 10, // a quarter brake at 2 m/s^2
        flags: i % 5 === 0 ? VL.FLAG_LEFT : 0,
      };
    });
  agents.push(frame(rows(0), 10));
  agents.push(frame(rows(0.1), 10.1));
  agents.update(0);
  const before = drawables(agents.group); // the agents' own instanced meshes
  const lights = new VL.VehicleLights(agents.group);
  lights.setOn(true);
  let agentMs = 0;
  let lightMs = 0;
  const F = 60;
  let st = null;
  for (let f = 0; f < F; f++) {
    const t0 = performance.now();
    agents.update(f / F);
    const t1 = performance.now();
    st = lights.update(agents, f / 60);
    lightMs += performance.now() - t1;
    agentMs += t1 - t0;
  }
  assert.equal(st.vehicles, N);
  assert.equal(st.braking, N / 4);
  assert.equal(st.indicating, N / 5);
  assert.ok(st.lamps >= N * 4 && st.lamps <= N * 4 + (N / 5) * 2, `lamps ${st.lamps}`);
  const added = drawables(agents.group) - before;
  assert.equal(added, 1, 'all lamps in one InstancedMesh');
  assert.equal(st.draw_calls, 1);
  let meshes = 0;
  lights.mesh.parent.traverse((o) => {
    if (o.name === 'vehicle_lights') meshes++;
  });
  assert.equal(meshes, 1);
  // Day: only the braking and indicating vehicles' lamps.
  lights.setOn(false);
  const day = lights.update(agents, 0.1);
  assert.ok(day.lamps <= (N / 4) * 2 + (N / 5) * 2 && day.lamps >= (N / 4) * 2, `day lamps ${day.lamps}`);
  console.log(
    `# 5000 vehicles: ${st.lamps} lamps at night (${day.lamps} by day), draw calls added: ${added}; ` +
      `(agents' meshes: ${before}); agents.update ${(agentMs / F).toFixed(2)} ms, vehicle lights update ${(lightMs / F).toFixed(2)} ms per frame ` +
      `(${F} frames, node ${process.version})`,
  );
});

test('player headlights: a spot pair in the car frame, on and off by intensity', { skip }, () => {
  const hl = VL.createHeadlights();
  assert.equal(hl.lights.length, 2);
  assert.equal(hl.on, false);
  assert.ok(hl.lights.every((l) => l.isSpotLight && l.intensity === 0 && l.visible));
  hl.setOn(true);
  assert.ok(hl.lights.every((l) => l.intensity > 0));
  const car = new THREE.Group();
  car.add(hl.group);
  car.position.set(10, 0, 0);
  car.updateMatrixWorld(true);
  for (const l of hl.lights) {
    const from = new THREE.Vector3().setFromMatrixPosition(l.matrixWorld);
    const to = new THREE.Vector3().setFromMatrixPosition(l.target.matrixWorld);
    assert.ok(to.x - from.x > 20, 'shines forward');
    assert.ok(to.z < from.z, 'down to the road');
    assert.ok(Math.sign(to.y) === Math.sign(from.y), 'each on its side');
  }
  hl.setOn(false);
  assert.ok(hl.lights.every((l) => l.intensity === 0));
  assert.equal(VL.createHeadlights({ count: 1 }).lights.length, 1);
});
