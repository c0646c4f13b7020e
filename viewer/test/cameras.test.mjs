// SPDX-License-Identifier: Apache-2.0
// Drive cameras (chase, cockpit, free) as pure functions of the car state, the controller that
// C cycles, the view put on a three.js camera, and the dashboard's formatting.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  CAMERA_MODES,
  CHASE,
  COCKPIT,
  cameraView,
  chaseView,
  cockpitFor,
  cockpitView,
  createCameraController,
  nextCameraMode,
  stepHeadYaw,
  viewHeadingOf,
  wrapAngle,
} from '../src/drive/cameras.js';
import { createDashboard, formatDashboard, gearLabel, roadLimit } from '../src/drive/dashboard.js';

let THREE = null;
try {
  THREE = await import('three');
} catch {
  // three.js not installed: the applyView test is skipped.
}

const near = (a, b, eps = 1e-9) => Math.abs(a - b) <= eps;
const nearP = (p, q, eps = 1e-9) => near(p.x, q.x, eps) && near(p.y, q.y, eps) && near(p.z, q.z, eps);

test('chase: 9 m behind, 3.4 m above, looking 6 m ahead; eases toward it', () => {
  const car = { x: 10, y: 20, z: 5, heading_rad: Math.PI / 3 };
  const c = Math.cos(car.heading_rad);
  const s = Math.sin(car.heading_rad);
  const v = chaseView(car, null, 0.016);
  assert.ok(nearP(v.position, { x: 10 - 9 * c, y: 20 - 9 * s, z: 8.4 }), JSON.stringify(v.position));
  assert.ok(nearP(v.target, { x: 10 + 6 * c, y: 20 + 6 * s, z: 6 }));
  assert.deepEqual(v.up, { x: 0, y: 0, z: 1 });
  assert.ok(near(v.view_heading_rad, car.heading_rad), 'looks along the car');
  // From a previous position, 0.05 s at 6/s moves 30 % of the way.
  const prev = { x: 0, y: 0, z: 0 };
  const w = chaseView(car, prev, 0.05);
  assert.ok(nearP(w.position, { x: 0.3 * v.position.x, y: 0.3 * v.position.y, z: 0.3 * v.position.z }));
  assert.ok(nearP(chaseView(car, prev, 1).position, v.position), 'long frames land on it');
  assert.equal(CHASE.back_m, 9);
});

test('cockpit: eye 0.4 m left, 1.2 m up, 0.3 m behind the windscreen; head yaw turns the view', () => {
  // Default car: windscreen front 0.425 m behind the front axle, eye 0.725 m behind.
  assert.ok(near(COCKPIT.windscreen_x_m, -0.425, 1e-12));
  const v = cockpitView({ x: 0, y: 0, z: 2, heading_rad: 0 });
  assert.ok(nearP(v.position, { x: -0.725, y: 0.4, z: 3.2 }, 1e-12), JSON.stringify(v.position));
  assert.equal(v.view_heading_rad, 0);
  assert.ok(v.target.x > v.position.x + 19 && near(v.target.y, 0.4, 1e-12));
  // Heading north: left is -x.
  const n = cockpitView({ x: 100, y: 50, z: 0, heading_rad: Math.PI / 2 });
  assert.ok(nearP(n.position, { x: 99.6, y: 49.275, z: 1.2 }, 1e-9), JSON.stringify(n.position));
  // Looking 90 degrees left from heading 170 degrees: wraps to -100 degrees.
  const h = (170 * Math.PI) / 180;
  const l = cockpitView({ x: 0, y: 0, z: 0, heading_rad: h }, Math.PI / 2);
  assert.ok(near(l.view_heading_rad, (-100 * Math.PI) / 180, 1e-12));
  assert.ok(near(viewHeadingOf(l.target.x - l.position.x, l.target.y - l.position.y), l.view_heading_rad, 1e-12));
  assert.equal(cameraView('free', { x: 0, y: 0, z: 0, heading_rad: 0 }), null);
  assert.throws(() => cameraView('drone', { x: 0, y: 0, z: 0, heading_rad: 0 }), /expected one of chase, cockpit, free/);
  // A taller vehicle sits its driver higher.
  const pickup = cockpitFor({ length_m: 5.3, wheelbase_m: 3.2, front_overhang_m: 0.95, height_m: 1.9 });
  assert.ok(near(pickup.eye_up_m, 1.55, 1e-12));
  assert.ok(near(pickup.windscreen_x_m, (0.95 - 4.35) / 2 - 0.2 + 5.3 / 4, 1e-12));
});

test('key C cycles chase -> cockpit -> free -> chase; the head turns at its rate', () => {
  assert.deepEqual(CAMERA_MODES, ['chase', 'cockpit', 'free']);
  assert.equal(nextCameraMode('chase'), 'cockpit');
  assert.equal(nextCameraMode('free'), 'chase');
  const cam = createCameraController();
  const car = { x: 0, y: 0, z: 0, heading_rad: 1 };
  assert.equal(cam.update(car, 0.016).mode, 'chase');
  assert.equal(cam.update(car, 0.016, { camera_next: true }).mode, 'cockpit');
  assert.equal(cam.changed, true);
  cam.update(car, 0.1, { look: 1 });
  assert.ok(near(cam.head_yaw_rad, 0.4, 1e-12), `head ${cam.head_yaw_rad}`);
  for (let i = 0; i < 10; i++) cam.update(car, 0.1, { look: 1 });
  assert.ok(near(cam.head_yaw_rad, Math.PI / 2, 1e-12), 'stops at 90 degrees');
  assert.ok(near(cam.view.view_heading_rad, wrapAngle(1 + Math.PI / 2), 1e-12));
  for (let i = 0; i < 5; i++) cam.update(car, 0.1, {});
  assert.equal(cam.head_yaw_rad, 0, 'back to the road when released');
  assert.equal(cam.update(car, 0.016, { camera_next: true }), null, 'free: the viewer keeps the camera');
  assert.equal(cam.mode, 'free');
  assert.equal(cam.update(car, 0.016, { camera_next: true }).mode, 'chase');
  assert.equal(cam.update(car, 0.016).mode, 'chase');
  assert.equal(cam.changed, false, 'no change this frame');
  cam.setMode('free');
  assert.equal(cam.update(car, 0.016), null);
  assert.equal(cam.changed, true, 'a setMode between updates shows at the next update');
  assert.equal(stepHeadYaw(0, -1, 10), -Math.PI / 2);
  assert.equal(viewHeadingOf(0, 0, -1), null, 'straight down: no heading');
});

test('applyView puts the view on a three.js camera (x, z, -y)', { skip: !THREE && 'three not installed' }, async () => {
  const { applyView } = await import('../src/drive/cameras.js');
  const camera = new THREE.PerspectiveCamera(55, 16 / 9, 1, 6000);
  const toScene = (x, y, z) => new THREE.Vector3(x, z, -y);
  for (const mode of ['chase', 'cockpit']) {
    const car = { x: 30, y: -40, z: 2, heading_rad: 2.5 };
    const v = cameraView(mode, car, { head_yaw_rad: mode === 'cockpit' ? -0.4 : 0 });
    applyView(camera, v, toScene);
    const d = new THREE.Vector3();
    camera.getWorldDirection(d);
    // Back to the city frame: (x, -z, y).
    const h = viewHeadingOf(d.x, -d.z, d.y);
    assert.ok(near(h, v.view_heading_rad, 1e-6), `${mode}: ${h} vs ${v.view_heading_rad}`);
    assert.ok(near(camera.position.y, v.position.z, 1e-9));
    assert.equal(camera.near, v.near_m);
  }
});

test('camera hooks for drive/index.js: C press, free orbit carried along, release', { skip: !THREE && 'three not installed' }, async () => {
  const { createCameraHooks } = await import('../src/drive/cameras.js');
  const camera = new THREE.PerspectiveCamera(55, 16 / 9, 1, 6000);
  const rig = { enabled: false, controls: { target: new THREE.Vector3(), update() {} } };
  const toScene = (x, y, z) => new THREE.Vector3(x, z, -y);
  const fromScene = (v) => ({ x: v.x, y: -v.z, z: v.y });
  const hooks = createCameraHooks({ camera, rig, fromScene });
  const car = { x: 0, y: 0, z: 0, heading_rad: 0.3 };
  assert.equal(hooks.viewHeading(car), 0.3, 'before the first frame: the heading');
  assert.equal(hooks.placeCamera(car, 1, { toScene }), true);
  assert.equal(rig.enabled, false);
  assert.ok(near(camera.position.y, 3.4, 1e-9), 'chase height');
  hooks.setInput({ camera_next: true, look: 0 });
  hooks.placeCamera(car, 0.016, { toScene });
  hooks.placeCamera(car, 0.016, { toScene }); // several frames, one press
  assert.equal(hooks.controller.mode, 'cockpit');
  assert.equal(camera.near, 0.25);
  hooks.setInput({ camera_next: true });
  hooks.placeCamera(car, 0.016, { toScene });
  assert.equal(hooks.controller.mode, 'free');
  assert.equal(rig.enabled, true, 'orbit controls take over');
  assert.ok(near(rig.controls.target.x, 0) && near(rig.controls.target.z, 0));
  const before = camera.position.clone();
  hooks.placeCamera({ ...car, x: 5, y: 2 }, 0.016, { toScene });
  assert.ok(near(camera.position.x - before.x, 5, 1e-9) && near(camera.position.z - before.z, -2, 1e-9), 'carried with the car');
  assert.ok(near(rig.controls.target.x, 5, 1e-9));
  camera.position.set(0, 10, 0);
  camera.lookAt(0, 0, -10); // looking north and down
  camera.updateMatrixWorld();
  assert.ok(near(hooks.viewHeading(car), Math.PI / 2, 1e-9), `free heading ${hooks.viewHeading(car)}`);
  hooks.release();
  assert.equal(camera.near, 1);
  assert.equal(rig.enabled, true);
  assert.equal(hooks.controller.mode, 'free', 'the mode stays for the next drive');
  hooks.placeCamera(car, 1, { toScene });
  rig.enabled = false; // main.js's start wrapper
  hooks.placeCamera(car, 0.016, { toScene });
  assert.equal(rig.enabled, true, 'free again on the next frame');
});

test('dashboard: km/h, gear, rpm bar, the lane limit held through junctions', () => {
  const d = formatDashboard({ speed_mps: 13.9, gear: 3, rpm: 2450, speed_limit_mps: 50 / 3.6, lane: 7, connector: false });
  assert.equal(d.speed_text, '50');
  assert.equal(d.gear, '3');
  assert.equal(d.rpm_text, '2500');
  assert.ok(near(d.rpm_frac, 2450 / 7000, 1e-12));
  assert.equal(d.limit_text, '50');
  assert.equal(d.over_limit, false);
  assert.equal(formatDashboard({ speed_mps: 15, speed_limit_mps: 50 / 3.6, lane: 1 }).over_limit, true, '54 km/h in a 50');
  assert.equal(formatDashboard({ speed_mps: 14.3, speed_limit_mps: 50 / 3.6, lane: 1 }).over_limit, false, 'within 5 %');
  assert.equal(formatDashboard({ speed_mps: -3, gear: -1 }).speed_text, '11', 'reverse shows the magnitude');
  assert.deepEqual([gearLabel(-1), gearLabel(0), gearLabel(1), gearLabel(undefined)], ['R', 'N', '1', '']);
  const r = formatDashboard({ speed_mps: 0, rpm: 6800 }, { redline_rpm: 7000 });
  assert.equal(r.redline, true);
  assert.equal(formatDashboard({ speed_mps: 0 }).rpm_frac, null, 'no rpm: no bar');
  assert.equal(formatDashboard({ speed_mps: 0 }).limit_text, '–');
  // Connectors (turning speeds) and off road keep the last road lane's limit.
  let lim = roadLimit(null, { lane: 3, connector: false, speed_limit_mps: 13.89 });
  lim = roadLimit(lim, { lane: 9, connector: true, speed_limit_mps: 5.56 });
  assert.equal(lim, 13.89);
  lim = roadLimit(lim, { lane: null });
  assert.equal(lim, 13.89);
  assert.equal(roadLimit(lim, { lane: 4, connector: false, speed_limit_mps: 8.33 }), 8.33);
});

test('dashboard overlay shows the formatted state (fake DOM)', () => {
  const make = (tag) => ({
    tag,
    style: {},
    children: [],
    textContent: '',
    appendChild(c) {
      this.children.push(c);
      c.parent = this;
    },
    remove() {
      const i = this.parent.children.indexOf(this);
      this.parent.children.splice(i, 1);
    },
  });
  const doc = { createElement: make, body: make('body') };
  const dash = createDashboard(doc, doc.body);
  assert.equal(doc.body.children.length, 1);
  dash.show(true);
  assert.equal(dash.root.style.display, 'flex');
  dash.update({ speed_mps: 10, gear: 2, rpm: 3000, speed_limit_mps: 8.33, lane: 1, connector: false });
  const all = [];
  const walk = (e) => {
    all.push(e.textContent);
    e.children.forEach(walk);
  };
  walk(dash.root);
  assert.ok(all.includes('36') && all.includes('2') && all.includes('30') && all.includes('3000 rpm'), all.join('|'));
  const d = dash.update({ speed_mps: 10, gear: 2, lane: 5, connector: true, speed_limit_mps: 2.8 });
  assert.equal(d.limit_text, '30', 'junction keeps the road limit');
  assert.equal(d.over_limit, true);
  dash.dispose();
  assert.equal(doc.body.children.length, 0);
});
