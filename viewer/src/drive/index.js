// SPDX-License-Identifier: Apache-2.0
// Drive mode (issue 8): the user drives a car with the keyboard through the city; it is sent
// to the live simulation as the player, so traffic and pedestrians react, and its driver
// metrics are recorded for export. main.js imports this lazily and calls createDrive(ctx);
// the ctx contract and the metrics are in docs/drive.md.

import { createRecorder, toJSON, samplesCSV, eventsCSV, metricsObject } from '../metrics/index.js';
import { createKeyboard } from './input.js';
import { LaneIndex } from './lanes.js';
import { buildCarMesh } from './mesh.js';
import { observe } from './state.js';
import {
  CAR,
  createCar,
  footprint,
  frontAxle,
  stepCar,
  updateControls,
} from './physics.js';

const STEP_S = 0.01; // Physics and metrics step.
const MAX_FRAME_S = 0.25; // Longer frames (a stalled tab) are cut to this.
const SEND_HZ = 15; // Player messages to the live server.
const NEAR_M = 60; // Agents within this of the car are checked for metrics.

/** Nearest indexed lane to (x, y) within max_m, searching outwards; null if none. */
function nearestLane(index, x, y, max_m = 400) {
  for (let r = 10; r <= max_m; r *= 2) {
    let best = null;
    const cands = index.near(x, y, r);
    for (const id of [...cands.keys()].sort((a, b) => a - b)) {
      const p = index.project(id, x, y, cands.get(id));
      if (p && p.dist_m <= r && (!best || p.dist_m < best.dist_m)) best = p;
    }
    if (best) return best;
  }
  return null;
}

export function createDrive(ctx) {
  const THREE = ctx.THREE;
  const index = new LaneIndex(ctx.lanes || { lanes: [] });
  const recorder = createRecorder({ lanes: ctx.lanes, index, buildings: ctx.buildings, car: CAR });
  const keyboard = createKeyboard(typeof window !== 'undefined' ? window : null);
  const send = ctx.send || (() => {});
  const clock = ctx.clock || (() => 0);
  let car = null;
  let match = null;
  let z = 0;
  let active = false;
  let acc = 0;
  let sendAcc = 0;
  let mesh = null;
  let cam = null; // Smoothed chase camera (city frame).
  let world = { sim_s: 0, pedestrians: [], vehicles: [], signal: () => null };

  // 1. City <-> scene mapping, taken from ctx.toScene so any axis convention works.
  const vec = (v) => (Array.isArray(v) ? new THREE.Vector3(v[0], v[1], v[2]) : new THREE.Vector3(v.x, v.y, v.z));
  const toScene = (x, y, zz) => vec(ctx.toScene(x, y, zz));
  const fromScene = (v) => {
    const c = ctx.fromScene(v);
    return Array.isArray(c) ? { x: c[0], y: c[1], z: c[2] } : c;
  };
  const o = () => toScene(0, 0, 0);
  const axis = (x, y, zz) => toScene(x, y, zz).sub(o());

  function carState() {
    return observe(car, match, z, index);
  }

  // 2. The world the metrics see: agents near the car and the signal states, once a frame.
  function sampleWorld() {
    const f = frontAxle(car);
    const peds = [];
    const vehs = [];
    const a = ctx.agents ? ctx.agents() : null;
    if (a && a.count) {
      for (let i = 0; i < a.count; i++) {
        const kind = a.kinds[i];
        if (kind === 4) continue; // Ourselves, echoed by the server.
        const dx = a.x[i] - f.x;
        const dy = a.y[i] - f.y;
        if (dx * dx + dy * dy > NEAR_M * NEAR_M) continue;
        const h = a.heading[i];
        const v = a.speed[i];
        if (kind === 5) {
          peds.push({ id: a.ids[i], x: a.x[i], y: a.y[i], vx: v * Math.cos(h), vy: v * Math.sin(h) });
        } else {
          vehs.push({ id: a.ids[i], kind, x: a.x[i], y: a.y[i], heading_rad: h, speed_mps: v });
        }
      }
    }
    const sig = ctx.signals ? ctx.signals() : null;
    world = {
      sim_s: clock(),
      pedestrians: peds,
      vehicles: vehs,
      signal: (id) => (sig && sig.get ? sig.get(id) ?? null : null),
    };
  }

  // 3. One physics step: controls, bicycle model, lane match, terrain height, metrics.
  function step(dt) {
    updateControls(car, keyboard.keys, dt);
    stepCar(car, dt);
    const fp = footprint(car);
    match = index.match(fp.x, fp.y, car.heading_rad, match ? match.lane : null);
    if (match) z += (match.z - z) * Math.min(1, dt * 8);
    recorder.step(dt, carState(), world);
  }

  function placeMesh() {
    if (!mesh) return;
    const f = frontAxle(car);
    const c = Math.cos(car.heading_rad);
    const s = Math.sin(car.heading_rad);
    const ex = axis(c, s, 0).normalize();
    const ey = axis(-s, c, 0).normalize();
    const ez = axis(0, 0, 1).normalize();
    const p = toScene(f.x, f.y, z);
    mesh.matrix.set(ex.x, ey.x, ez.x, p.x, ex.y, ey.y, ez.y, p.y, ex.z, ey.z, ez.z, p.z, 0, 0, 0, 1);
    mesh.matrixWorldNeedsUpdate = true;
  }

  function placeCamera(dt) {
    const camera = ctx.camera;
    if (!camera) return;
    const f = frontAxle(car);
    const h = car.heading_rad;
    const want = { x: f.x - Math.cos(h) * 9, y: f.y - Math.sin(h) * 9, z: z + 3.4 };
    if (!cam) cam = { ...want };
    const k = Math.min(1, dt * 6);
    cam.x += (want.x - cam.x) * k;
    cam.y += (want.y - cam.y) * k;
    cam.z += (want.z - cam.z) * k;
    camera.position.copy(toScene(cam.x, cam.y, cam.z));
    camera.up.copy(axis(0, 0, 1).normalize());
    camera.lookAt(toScene(f.x + Math.cos(h) * 6, f.y + Math.sin(h) * 6, z + 1.0));
    camera.updateMatrixWorld();
  }

  function sendPlayer() {
    const f = frontAxle(car);
    send({
      type: 'player',
      x: Math.round(f.x * 100) / 100,
      y: Math.round(f.y * 100) / 100,
      z: Math.round(z * 100) / 100,
      heading_rad: Math.round(car.heading_rad * 1e4) / 1e4,
      speed_mps: Math.round(Math.max(0, car.speed_mps) * 100) / 100,
    });
  }

  const api = {
    get active() {
      return active;
    },
    /** Starts driving at {lane, s_m} or {x, y, heading_rad} (front-axle pose; a point off
     *  every vehicle lane moves to the nearest lane, along it), optionally with speed_mps;
     *  with no pose, on the vehicle lane nearest the camera. Starts a new metrics recording. */
    start(pose = {}) {
      let x;
      let y;
      let h;
      if (pose.lane !== undefined && pose.lane !== null) {
        if (!index.has(pose.lane)) throw new Error(`drive.start: lane ${pose.lane} is not a vehicle lane`);
        const p = index.pointAt(pose.lane, pose.s_m ?? 0);
        ({ x, y } = p);
        h = p.heading_rad;
        z = p.z;
      } else if (Number.isFinite(pose.x) && Number.isFinite(pose.y)) {
        x = pose.x;
        y = pose.y;
        h = pose.heading_rad ?? 0;
        if (!index.match(x, y, h, null)) {
          // Off every vehicle lane (the camera target on a roof or in a park): start on the
          // nearest lane instead, along it.
          const near = nearestLane(index, x, y);
          if (near) {
            const p = index.pointAt(near.lane, near.s_m);
            ({ x, y } = p);
            h = p.heading_rad;
            z = p.z;
          }
        }
      } else {
        const c = ctx.camera ? fromScene(ctx.camera.position) : { x: 0, y: 0 };
        const near = nearestLane(index, c.x, c.y);
        if (!near) throw new Error('drive.start: no vehicle lane within 400 m of the camera');
        const p = index.pointAt(near.lane, near.s_m);
        ({ x, y } = p);
        h = p.heading_rad;
        z = p.z;
      }
      car = createCar(x, y, h, pose.speed_mps ?? 0);
      const fp = footprint(car);
      match = index.match(fp.x, fp.y, h, pose.lane ?? null);
      if (match && pose.lane === undefined) z = match.z;
      acc = 0;
      sendAcc = 1;
      cam = null;
      recorder.start(clock());
      sampleWorld();
      recorder.step(0, carState(), world);
      if (THREE && ctx.scene && !mesh) {
        mesh = buildCarMesh(THREE);
        mesh.matrixAutoUpdate = false;
        ctx.scene.add(mesh);
      }
      if (mesh) mesh.visible = true;
      keyboard.attach();
      active = true;
      placeMesh();
      placeCamera(1);
      return api.state();
    },
    stop() {
      if (!active) return;
      active = false;
      keyboard.detach();
      if (mesh) mesh.visible = false;
      send({ type: 'player_off' });
    },
    /** Called every animation frame with the real seconds since the last one. */
    update(dt_s) {
      if (!active || !car) return;
      const dt = Math.min(Math.max(0, dt_s || 0), MAX_FRAME_S);
      sampleWorld();
      acc += dt;
      while (acc >= STEP_S - 1e-9) {
        step(STEP_S);
        acc -= STEP_S;
      }
      placeMesh();
      placeCamera(dt);
      sendAcc += dt;
      if (sendAcc >= 1 / SEND_HZ) {
        sendAcc = 0;
        sendPlayer();
      }
    },
    state() {
      if (!car) return null;
      const { controls, front, box, ...st } = carState();
      return st;
    },
    keys: keyboard.keys,
    /** Simulated seconds of the stream or recording (ctx.clock), for tests and studies. */
    clock: () => clock(),
    metrics: () => metricsObject(recorder, { city: ctx.city ?? null, car: CAR }),
    exportJSON: () => toJSON(recorder, { city: ctx.city ?? null, car: CAR, exported_at: new Date().toISOString() }),
    exportCSV: () => samplesCSV(recorder),
    exportEventsCSV: () => eventsCSV(recorder),
    /** Saves 'json', 'csv' (samples and events, two files) or 'events-csv' as downloads. */
    download(kind = 'json') {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const save = (text, name, type) => {
        const url = URL.createObjectURL(new Blob([text], { type }));
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      };
      if (kind === 'json') save(api.exportJSON(), `cityforge-drive-${stamp}.json`, 'application/json');
      if (kind === 'csv') save(api.exportCSV(), `cityforge-drive-${stamp}-samples.csv`, 'text/csv');
      if (kind === 'csv' || kind === 'events-csv') {
        save(api.exportEventsCSV(), `cityforge-drive-${stamp}-events.csv`, 'text/csv');
      }
    },
    recorder,
    index,
  };

  return api;
}
