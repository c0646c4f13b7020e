// SPDX-License-Identifier: Apache-2.0
// Drive mode (issues 8 and 25): the user drives a car through the city with the keyboard or a
// gamepad; the car is a Rapier vehicle (docs/vehicles.md) that collides with buildings,
// traffic and pedestrians; it is sent to the live simulation as the player, so traffic and
// pedestrians react; a scenario (docs/scenarios.md) scripts hazards and weather; the driver's
// metrics are recorded for export and the inputs for identical replays. main.js imports this
// lazily and awaits createDrive(ctx); the ctx contract and the metrics are in docs/drive.md.

import { boxesOverlap, buildingRings } from '../metrics/geometry.js';
import { vehicleBox } from '../metrics/recorder.js';
import { createRecorder, toJSON, samplesCSV, eventsCSV, metricsObject } from '../metrics/index.js';
import {
  createHazardActors,
  createInputPlayer,
  createInputRecorder,
  createScenarioRunner,
  fromJSON,
  recordingMismatch,
} from '../scenario/index.js';
import { createPhysicsWorld, initPhysics, validateVehicle } from './dynamics/index.js';
import { createHeadlights } from '../vehicle_lights.js';
import { cockpitFor, createCameraHooks } from './cameras.js';
import { createDashboard } from './dashboard.js';
import { createInput } from './input.js';
import { LaneIndex } from './lanes.js';
import { buildCarMesh } from './mesh.js';
import { laneFields } from './state.js';
import { STATE_DOWN } from '../recording.js';

export { createDriveSettings } from './settings_ui.js';

const STEP_S = 0.01; // Physics, scenario and metrics step.
const MAX_FRAME_S = 0.25; // Longer frames (a stalled tab) are cut to this.
const SEND_HZ = 15; // Player messages to the live server.
const NEAR_M = 60; // Agents within this of the car are checked for metrics and collisions.
// Pedal and steering ramps of digital inputs (keys), per second, as before issue 25.
const RATES = { throttle: 3.0, brake: 5.0, steer: 2.5, steer_return: 4.0 };
// Tyre grip by weather (docs/vehicles.md): the thesis (seeds/004) halves grip in rain.
const GRIP = { clear: 1, cloudy: 1, fog: 1, rain: 0.5, storm: 0.45 };
// Sizes of the stream's vehicle kinds (car, van, bus, truck), as the metrics use them.
const KIND_SIZE = [[4.5, 1.8], [5.5, 2.0], [12, 2.55], [10, 2.5]];
const KIND_NAME = ['car', 'van', 'bus', 'truck'];
// Paint of the shipped vehicles' meshes (others: red).
const VEHICLE_COLOUR = { sports_rwd: 0xd81b1b, pickup_4x4: 0x2f4f6f, hatchback: 0xe3a21a };

/** Grip factor of a weather kind (unknown kinds: dry). */
export function weatherGrip(kind) {
  return GRIP[kind] ?? 1;
}

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

/** Height lookup from the lanes' points: (x, y) -> the mean z of the points in the nearest
 *  20 m cell holding any (rings up to 5 cells out), or null. */
function heightGrid(lanesJson, cell = 20) {
  const sum = new Map();
  for (const lane of lanesJson?.lanes || []) {
    for (const p of lane.points || []) {
      if (!Number.isFinite(p[2])) continue;
      const key = `${Math.floor(p[0] / cell)},${Math.floor(p[1] / cell)}`;
      const c = sum.get(key) || [0, 0];
      c[0] += p[2];
      c[1] += 1;
      sum.set(key, c);
    }
  }
  return (x, y) => {
    const i = Math.floor(x / cell);
    const j = Math.floor(y / cell);
    for (let r = 0; r <= 5; r++) {
      let z = 0;
      let n = 0;
      for (let di = -r; di <= r; di++) {
        for (let dj = -r; dj <= r; dj++) {
          if (Math.max(Math.abs(di), Math.abs(dj)) !== r) continue;
          const c = sum.get(`${i + di},${j + dj}`);
          if (c) {
            z += c[0] / c[1];
            n++;
          }
        }
      }
      if (n) return z / n;
    }
    return null;
  };
}

function approach(value, target, rate, dt) {
  if (value < target) return Math.min(target, value + rate * dt);
  return Math.max(target, value - rate * dt);
}

/** Pedal and steering values from held keys (ramped) or analog targets (taken as they are).
 *  In reverse the pedals swap (ArrowDown drives backwards, ArrowUp brakes), as docs/drive.md
 *  says; the physics selects reverse when the brake is held at rest. */
export function controlsFrom(prev, input, gear, dt) {
  const reverse = gear < 0;
  const c = { ...prev };
  if (input.analog) {
    c.throttle = reverse ? input.brake : input.throttle;
    c.brake = reverse ? input.throttle : input.brake;
    c.steer = input.steer;
  } else {
    const go = reverse ? input.down : input.up;
    const stop = reverse ? input.up : input.down;
    c.throttle = go ? approach(c.throttle, 1, RATES.throttle, dt) : 0;
    c.brake = stop ? approach(c.brake, 1, RATES.brake, dt) : 0;
    const want = (input.left ? 1 : 0) - (input.right ? 1 : 0);
    c.steer = approach(c.steer, want, want === 0 ? RATES.steer_return : RATES.steer, dt);
  }
  c.handbrake = !!input.handbrake;
  return c;
}

export async function createDrive(ctx) {
  const THREE = ctx.THREE;
  const index = new LaneIndex(ctx.lanes || { lanes: [] });
  const vehicles = {}; // name -> validated spec
  for (const [name, json] of Object.entries(ctx.vehicles || {})) vehicles[name] = validateVehicle(json, `${name}.json`);
  const scenario = ctx.scenario || null;
  let spec = scenario && scenario.vehicle_spec
    ? validateVehicle(scenario.vehicle_spec, `${scenario.vehicle_spec.name || 'vehicle'}.json`)
    : vehicles[ctx.vehicle] || vehicles.hatchback || Object.values(vehicles)[0] || null;
  if (!spec) throw new Error('drive mode: no vehicle file (ctx.vehicles or the scenario\'s vehicle_spec)');
  await initPhysics();
  const rings = ctx.buildings ? buildingRings(ctx.buildings) : [];
  // Keyboard and gamepads (same keys / attach / detach as createKeyboard, plus poll()).
  const keyboard = createInput(typeof window !== 'undefined' ? window : null, {
    nav: typeof navigator !== 'undefined' ? navigator : null,
    storage: typeof window !== 'undefined' ? window.localStorage : null,
  });
  let cams = null; // camera hooks (chase / cockpit / free), made once the vehicle is known
  let dashboard = null;
  let headlights = null;
  const send = ctx.send || (() => {});
  const clock = ctx.clock || (() => 0);
  const dims = () => ({
    length_m: spec.body.length_m,
    width_m: spec.body.width_m,
    wheelbase_m: spec.body.wheelbase_m,
    front_overhang_m: spec.body.front_overhang_m,
    rear_overhang_m: spec.body.length_m - spec.body.front_overhang_m - spec.body.wheelbase_m,
    vehicle: spec.name,
  });
  // Thresholds set in the panel (setThresholds) hold over the scenario's for every drive after.
  const userThresholds = {};
  const newRecorder = () => createRecorder({ lanes: ctx.lanes, index, buildings: ctx.buildings, car: dims(),
    thresholds: { ...(scenario?.thresholds || {}), ...userThresholds } });
  let recorder = newRecorder();
  let physics = null; // Rapier world (rebuilt at each start: a clean, repeatable drive)
  let car = null; // its car
  let st = null; // car.state() after the last step
  let controls = { throttle: 0, brake: 0, steer: 0, handbrake: false };
  let match = null;
  let active = false;
  let acc = 0;
  let sendAcc = 0;
  let mesh = null;
  let cam = null; // Smoothed chase camera (city frame).
  let stepIndex = 0;
  let runner = null;
  let scen = null; // the runner's last step
  let actors = null;
  let inputs = null; // input recorder of this drive
  let player = null; // input player when replaying
  let grip = 1;
  let look = 0; // where the driver looks, relative to the heading, / pi (an input: replays keep it)
  let manual = false; // frames do not step the car (tests and batch studies use advance())
  let world = { sim_s: 0, pedestrians: [], vehicles: [], signal: () => null, hazards: [], contacts: [] };
  const contactLog = [];
  // Pedestrians the car knocked down (the recorder's casualty events): id -> pose where they
  // lie. They leave the collision world and the metrics' pedestrians.
  const downed = new Map();
  let casualtiesSeen = 0;
  // Traffic vehicles the car was started inside of (live traffic can stand where a drive
  // starts): kept out of the collision world until they no longer overlap the car, so the
  // physics does not fling the car out of them.
  const ghosts = new Set();
  const overlapsCar = (v) => {
    const b = carState().box;
    return boxesOverlap({ ...b, half_length_m: b.half_length_m + 0.5, half_width_m: b.half_width_m + 0.5 },
      vehicleBox(v));
  };

  // 1. City <-> scene mapping, taken from ctx.toScene so any axis convention works.
  const vec = (v) => (Array.isArray(v) ? new THREE.Vector3(v[0], v[1], v[2]) : new THREE.Vector3(v.x, v.y, v.z));
  const toScene = (x, y, zz) => vec(ctx.toScene(x, y, zz));
  const fromScene = (v) => {
    const c = ctx.fromScene(v);
    return Array.isArray(c) ? { x: c[0], y: c[1], z: c[2] } : c;
  };
  const o = () => toScene(0, 0, 0);
  const axis = (x, y, zz) => toScene(x, y, zz).sub(o());

  // Road height under a point: the lane the car is matched to (its polyline's z), else the
  // mean height of the lane points in the nearest 20 m cell that has any (buildings and props
  // stand on that, so walls are where the car meets them on a hillside too).
  let roadZ = 0;
  const heights = heightGrid(ctx.lanes);
  const groundHeight = (x, y) => {
    if (match && index.has(match.lane)) {
      const p = index.project(match.lane, x, y);
      if (p && Number.isFinite(p.z)) return p.z;
    }
    return heights(x, y) ?? roadZ;
  };

  /** The car as the metrics and the test hook see it (docs/drive.md, state). */
  function carState() {
    const d = dims();
    const c = Math.cos(st.heading_rad);
    const s = Math.sin(st.heading_rad);
    const mid = d.front_overhang_m - d.length_m / 2; // footprint centre ahead of the front axle
    const box = { x: st.x + c * mid, y: st.y + s * mid, heading_rad: st.heading_rad,
      half_length_m: d.length_m / 2, half_width_m: d.width_m / 2 };
    return {
      x: st.x,
      y: st.y,
      z: roadZ, // the road under the car (the physics' z is the wheel centres')
      heading_rad: st.heading_rad,
      speed_mps: st.speed_mps,
      accel_mps2: st.accel_mps2,
      gear: st.gear,
      rpm: st.rpm,
      steer_rad: st.steer_rad,
      yaw_rate_rps: st.yaw_rate_rps,
      sideslip_rad: st.sideslip_rad,
      ...laneFields(match, index),
      controls: { ...controls },
      view_heading_rad: st.heading_rad + look * Math.PI,
      vehicle: spec.name,
      front: { x: st.x + c * d.front_overhang_m, y: st.y + s * d.front_overhang_m },
      box,
    };
  }

  // 2. The world the metrics and the collision world see: agents near the car, the signal
  // states, the scenario's hazards; once a frame (hazards every step).
  function sampleWorld() {
    const peds = [];
    const vehs = [];
    const a = ctx.agents ? ctx.agents() : null;
    if (a && a.count && st) {
      for (let i = 0; i < a.count; i++) {
        const kind = a.kinds[i];
        if (kind === 4) continue; // Ourselves, echoed by the server.
        const dx = a.x[i] - st.x;
        const dy = a.y[i] - st.y;
        if (dx * dx + dy * dy > NEAR_M * NEAR_M) continue;
        const h = a.heading[i];
        const v = a.speed[i];
        if (kind === 5) {
          if (downed.has(a.ids[i]) || (a.state && a.state[i] === STATE_DOWN)) continue;
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
      hazards: scen ? scen.hazards : [],
      contacts: [],
    };
  }

  /** The camera's look direction relative to the car's heading, / pi, in [-1, 1] (0 before
   *  a camera exists or when it looks straight down). */
  function lookOf() {
    const h = ctx.viewHeading ? ctx.viewHeading(st) : cams ? cams.viewHeading(st) : null;
    if (h === null || h === undefined || !Number.isFinite(h)) return 0;
    const d = Math.atan2(Math.sin(h - st.heading_rad), Math.cos(h - st.heading_rad));
    return Math.round((d / Math.PI) * 1e4) / 1e4;
  }

  /** Traffic, crowd and hazard actors as the physics world's kinematic bodies. */
  function physicsAgents() {
    for (const id of [...ghosts]) {
      const v = world.vehicles.find((w) => w.id === id);
      if (!v || !overlapsCar(v)) ghosts.delete(id);
    }
    const vehs = world.vehicles.filter((v) => !ghosts.has(v.id)).map((v) => {
      const [l, w] = KIND_SIZE[v.kind] || KIND_SIZE[0];
      return { id: v.id, kind: KIND_NAME[v.kind] ?? 'vehicle', x: v.x, y: v.y, heading_rad: v.heading_rad, length_m: l, width_m: w,
        speed_mps: v.speed_mps };
    });
    const peds = world.pedestrians.filter((p) => !downed.has(p.id));
    for (const h of scen ? scen.hazards : []) {
      if (h.x === null || h.state === 'down' || h.state === 'pending' && h.kind !== 'pull_out') continue;
      if (h.kind === 'pedestrian_steps_out') {
        peds.push({ id: h.id, x: h.x, y: h.y, vx: h.vx, vy: h.vy });
      } else {
        // Hazard boxes are centred on (x, y); the physics places a vehicle by its front axle
        // (0.9 m behind its front): shift the centre forwards.
        const fwd = h.length_m / 2 - 0.9;
        vehs.push({ id: h.id, kind: h.kind, x: h.x + Math.cos(h.heading_rad) * fwd,
          y: h.y + Math.sin(h.heading_rad) * fwd, heading_rad: h.heading_rad, length_m: h.length_m,
          width_m: h.width_m, speed_mps: Math.hypot(h.vx, h.vy) });
      }
    }
    return { vehicles: vehs, pedestrians: peds };
  }

  function applyWeather(kind) {
    grip = weatherGrip(kind);
    if (physics) physics.setGrip(grip);
  }

  // 3. One physics step: inputs, the Rapier car, lane match, scenario, metrics.
  function step(input) {
    const k = stepIndex++;
    if (player) {
      const p = player.at(k);
      controls = { throttle: p.throttle, brake: p.brake, steer: p.steer, handbrake: p.handbrake };
      look = p.look;
    } else {
      controls = controlsFrom(controls, input, st.gear, STEP_S);
      look = lookOf();
    }
    if (inputs) inputs.record(k, { ...controls, gear: st.gear < 0 ? -1 : 1, look });
    const contacts = physics.step(STEP_S, controls);
    st = car.state();
    const box = carState().box;
    match = index.match(box.x, box.y, st.heading_rad, match ? match.lane : null);
    if (match) roadZ = match.z;
    if (runner) {
      scen = runner.step(stepIndex * STEP_S, carState());
      world.hazards = scen.hazards;
      if (scen.weather_changed) {
        applyWeather(scen.weather.fog && scen.weather.kind === 'clear' ? 'fog' : scen.weather.kind);
        if (ctx.onScenarioWeather) ctx.onScenarioWeather(scen.weather);
      }
      if (k % 10 === 0) physics.setAgents(physicsAgents());
    }
    world.contacts = contacts;
    for (const c of contacts) contactLog.push({ t_s: stepIndex * STEP_S, ...c });
    recorder.step(STEP_S, carState(), world);
    const fallen = recorder.casualties();
    while (casualtiesSeen < fallen.length) knockDown(fallen[casualtiesSeen++]);
  }

  // A casualty: the pedestrian is thrown ahead and lies where it comes to rest (the recorder's
  // rest_x, rest_y), head along the car's heading, and stays down. A scenario's pedestrian
  // stops in the runner; a simulation's is drawn lying by
  // the viewer (ctx.onCasualty) and reported to the live server, whose crowd takes it out of
  // the walk and flees (docs/live.md, "hit").
  function knockDown(c) {
    const pose = { x: c.rest_x, y: c.rest_y, z: groundHeight(c.rest_x, c.rest_y), heading_rad: c.heading_rad };
    downed.set(c.other_id, pose);
    if (typeof c.other_id === 'string') {
      if (runner) runner.knockDown(c.other_id, pose);
    } else {
      send({ type: 'hit', id: c.other_id });
      if (ctx.onCasualty) ctx.onCasualty(c.other_id, pose);
    }
    physics.setAgents(physicsAgents());
  }

  function placeMesh() {
    if (!mesh) return;
    const c = Math.cos(st.heading_rad);
    const s = Math.sin(st.heading_rad);
    const ex = axis(c, s, 0).normalize();
    const ey = axis(-s, c, 0).normalize();
    const ez = axis(0, 0, 1).normalize();
    const p = toScene(st.x, st.y, roadZ);
    mesh.matrix.set(ex.x, ey.x, ez.x, p.x, ex.y, ey.y, ez.y, p.y, ex.z, ey.z, ez.z, p.z, 0, 0, 0, 1);
    mesh.matrixWorldNeedsUpdate = true;
  }

  function placeCamera(dt) {
    const camera = ctx.camera;
    if (!camera) return;
    if (ctx.placeCamera && ctx.placeCamera(carState(), dt, { toScene, axis })) return;
    if (cams && cams.placeCamera({ x: st.x, y: st.y, z: roadZ, heading_rad: st.heading_rad }, dt, { toScene })) return;
    const h = st.heading_rad;
    const want = { x: st.x - Math.cos(h) * 9, y: st.y - Math.sin(h) * 9, z: roadZ + 3.4 };
    if (!cam) cam = { ...want };
    const k = Math.min(1, dt * 6);
    cam.x += (want.x - cam.x) * k;
    cam.y += (want.y - cam.y) * k;
    cam.z += (want.z - cam.z) * k;
    camera.position.copy(toScene(cam.x, cam.y, cam.z));
    camera.up.copy(axis(0, 0, 1).normalize());
    camera.lookAt(toScene(st.x + Math.cos(h) * 6, st.y + Math.sin(h) * 6, roadZ + 1.0));
    camera.updateMatrixWorld();
  }

  function sendPlayer() {
    send({
      type: 'player',
      x: Math.round(st.x * 100) / 100,
      y: Math.round(st.y * 100) / 100,
      z: Math.round(roadZ * 100) / 100,
      heading_rad: Math.round(st.heading_rad * 1e4) / 1e4,
      speed_mps: Math.round(Math.max(0, st.speed_mps) * 100) / 100,
    });
  }

  /** The start pose {x, y, z, heading_rad} of a pose request (docs/drive.md). */
  function resolvePose(pose) {
    if (pose.lane !== undefined && pose.lane !== null) {
      if (!index.has(pose.lane)) throw new Error(`drive.start: lane ${pose.lane} is not a vehicle lane`);
      const p = index.pointAt(pose.lane, pose.s_m ?? 0);
      return { x: p.x, y: p.y, z: p.z, heading_rad: p.heading_rad, lane: pose.lane };
    }
    if (Number.isFinite(pose.x) && Number.isFinite(pose.y)) {
      const h = pose.heading_rad ?? 0;
      const m = index.match(pose.x, pose.y, h, null);
      if (m) return { x: pose.x, y: pose.y, z: m.z, heading_rad: h, lane: null };
      // Off every vehicle lane (the camera target on a roof or in a park): start on the
      // nearest lane instead, along it.
      const near = nearestLane(index, pose.x, pose.y);
      if (near) {
        const p = index.pointAt(near.lane, near.s_m);
        return { x: p.x, y: p.y, z: p.z, heading_rad: p.heading_rad, lane: null };
      }
      return { x: pose.x, y: pose.y, z: 0, heading_rad: h, lane: null };
    }
    const c = ctx.camera ? fromScene(ctx.camera.position) : { x: 0, y: 0 };
    const near = nearestLane(index, c.x, c.y);
    if (!near) throw new Error('drive.start: no vehicle lane within 400 m of the camera');
    const p = index.pointAt(near.lane, near.s_m);
    return { x: p.x, y: p.y, z: p.z, heading_rad: p.heading_rad, lane: null };
  }

  /** The scenario's start as a pose request. */
  function scenarioPose() {
    const s = scenario.start;
    if (s.lane !== undefined) return { lane: s.lane, s_m: s.s_m ?? 0 };
    return { x: s.x, y: s.y, heading_rad: (s.heading_deg * Math.PI) / 180 };
  }

  function begin(pose, opts) {
    if (physics) physics.dispose();
    const p = resolvePose(pose);
    roadZ = p.z;
    match = null;
    const props = typeof ctx.props === 'function' ? ctx.props() : ctx.props;
    physics = createPhysicsWorld({ groundHeight, buildings: rings, props: props || [] });
    car = physics.addCar(spec, { x: p.x, y: p.y, z: p.z, heading_rad: p.heading_rad, speed_mps: pose.speed_mps ?? 0 },
      { grip });
    st = car.state();
    controls = { throttle: 0, brake: 0, steer: 0, handbrake: false };
    const box = carState().box;
    match = index.match(box.x, box.y, st.heading_rad, p.lane);
    stepIndex = 0;
    look = 0;
    acc = 0;
    sendAcc = 1;
    cam = null;
    contactLog.length = 0;
    downed.clear();
    casualtiesSeen = 0;
    if (ctx.onCasualty) ctx.onCasualty(null, null); // a new drive: no one lies down (the server's stay)
    player = opts.player || null;
    runner = opts.scenario ? createScenarioRunner(scenario, { index }) : null;
    inputs = createInputRecorder({ scenario: scenario?.name ?? null, seed: scenario?.seed ?? null,
      file_hash: scenario?.file_hash ?? null, step_s: STEP_S });
    recorder = newRecorder();
    recorder.start(clock());
    sampleWorld();
    ghosts.clear();
    for (const v of world.vehicles) if (overlapsCar(v)) ghosts.add(v.id);
    if (runner) {
      scen = runner.step(0, carState());
      world.hazards = scen.hazards;
      applyWeather(scen.weather.fog && scen.weather.kind === 'clear' ? 'fog' : scen.weather.kind);
      if (ctx.onScenarioWeather) ctx.onScenarioWeather(scen.weather);
      if (!actors && THREE && ctx.scene) actors = createHazardActors(THREE, ctx.toScene, { scene: ctx.scene });
    } else {
      scen = null;
    }
    physics.setAgents(physicsAgents());
    recorder.step(0, carState(), world);
    if (THREE && ctx.scene && mesh && mesh.userData.vehicle !== spec.name) {
      // Another vehicle: a mesh of its size (the headlights move over).
      ctx.scene.remove(mesh);
      if (headlights) mesh.remove(headlights.group);
      mesh = null;
    }
    if (THREE && ctx.scene && !mesh) {
      const d = dims();
      mesh = buildCarMesh(THREE, { ...d, height_m: spec.body.height_m, wheel_radius_m: spec.tyres.radius_m },
        VEHICLE_COLOUR[spec.name] ?? 0xd81b1b);
      mesh.userData.vehicle = spec.name;
      mesh.matrixAutoUpdate = false;
      ctx.scene.add(mesh);
      if (headlights) mesh.add(headlights.group);
    }
    if (mesh && !headlights) {
      headlights = createHeadlights();
      mesh.add(headlights.group);
    }
    if (mesh) mesh.visible = true;
    if (ctx.camera && !cams) cams = createCameraHooks({ camera: ctx.camera, rig: ctx.rig, fromScene, cockpit: cockpitFor(spec.body) });
    if (!dashboard && typeof document !== 'undefined') dashboard = createDashboard(document);
    if (dashboard) {
      dashboard.reset();
      dashboard.show(true);
    }
    if (!player) keyboard.attach();
    active = true;
    placeMesh();
    placeCamera(1);
    return api.state();
  }

  const api = {
    get active() {
      return active;
    },
    /** Starts driving at {lane, s_m} or {x, y, heading_rad} (front-axle pose; a point off
     *  every vehicle lane moves to the nearest lane, along it), optionally with speed_mps;
     *  with no pose: at the scenario's start when a scenario is loaded, else on the vehicle
     *  lane nearest the camera. A scenario runs (hazards, weather) when it starts at its own
     *  start. Starts a new metrics and input recording. */
    start(pose) {
      const own = !pose && !!scenario;
      return begin(own ? scenarioPose() : pose || {}, { scenario: own });
    },
    stop() {
      if (!active) return;
      active = false;
      keyboard.detach();
      if (mesh) mesh.visible = false;
      if (cams) cams.release();
      if (dashboard) dashboard.show(false);
      if (actors) actors.update([], { z: 0 });
      send({ type: 'player_off' });
    },
    /** Replays a recorded drive (the JSON of exportInputs) from the scenario's start: the same
     *  inputs step by step, so the same car path, hazards and metrics. */
    replay(recording) {
      if (!scenario) throw new Error('drive.replay: no scenario is loaded');
      const r = fromJSON(recording);
      const why = recordingMismatch(r, scenario);
      if (why) throw new Error(`drive.replay: the recording is of another scenario (${why})`);
      return begin(scenarioPose(), { scenario: true, player: createInputPlayer(r) });
    },
    /** Steps the drive by `seconds` now, without waiting for frames (tests and batch studies):
     *  with `script` its inputs: a list [{t_s, throttle, brake, steer, handbrake}] (drive
     *  time; each entry holds until a later one) or a driver function (state, t_s) ->
     *  {throttle, brake, steer, handbrake} called every step; else the held keys. Stops early
     *  when the scenario ends. Returns the state. */
    advance(seconds, script = null) {
      if (!active) throw new Error('drive.advance: not driving');
      let scripted = null;
      if (typeof script === 'function') scripted = () => script(api.state(), stepIndex * STEP_S);
      else if (script) scripted = createScriptPlayer(script);
      const n = Math.round(seconds / STEP_S);
      for (let i = 0; i < n && active; i++) {
        if (scripted) {
          const c = scripted(stepIndex);
          step({ analog: true, throttle: c.throttle, brake: c.brake, steer: c.steer, handbrake: c.handbrake });
        } else {
          step(keyboard.keys);
        }
        if (i % 10 === 9) {
          sampleWorld();
          placeCamera(10 * STEP_S);
        }
        if (scen && scen.ended) break;
      }
      placeMesh();
      if (actors && scen) actors.update(scen.hazards, { z: roadZ });
      return api.state();
    },
    /** With `on`, frames no longer step the car (only advance() does): scripted runs in a
     *  page that keeps drawing frames stay exact. */
    setManual(on) {
      manual = !!on;
    },
    /** Called every animation frame with the real seconds since the last one. */
    update(dt_s) {
      if (!active || !car || manual) return;
      const dt = Math.min(Math.max(0, dt_s || 0), MAX_FRAME_S);
      sampleWorld();
      if (!runner) physics.setAgents(physicsAgents());
      const targets = keyboard.poll(); // once a frame: the camera key acts once per press
      if (cams) cams.setInput(targets);
      if (headlights) headlights.setOn(ctx.lightsOn ? ctx.lightsOn() : false);
      const input = ctx.input ? ctx.input(targets, dt) : targets;
      acc += dt;
      while (acc >= STEP_S - 1e-9) {
        step(input);
        acc -= STEP_S;
      }
      placeMesh();
      if (actors && scen) actors.update(scen.hazards, { z: roadZ });
      placeCamera(dt);
      if (dashboard) dashboard.update(api.state(), { redline_rpm: spec.engine.redline_rpm, idle_rpm: spec.engine.idle_rpm });
      sendAcc += dt;
      if (sendAcc >= 1 / SEND_HZ) {
        sendAcc = 0;
        sendPlayer();
      }
      if (scen && scen.ended) {
        api.stop();
        if (ctx.onScenarioEnd) ctx.onScenarioEnd(api.metrics());
      }
    },
    state() {
      if (!car) return null;
      const { front, box, ...s } = carState();
      return s;
    },
    keys: keyboard.keys,
    /** The metric thresholds in force (a copy; docs/drive.md, Thresholds). */
    thresholds: () => ({ ...recorder.thresholds }),
    /** Sets metric thresholds for this drive and every later one (over the scenario's); returns
     *  the rejected entries as messages ("<key>: expected ..., got ..."), empty when all were
     *  taken. */
    setThresholds(obj) {
      const rejected = recorder.setThresholds(obj);
      const bad = new Set(rejected.map((m) => m.slice(0, m.indexOf(':'))));
      for (const [k, v] of Object.entries(obj || {})) if (!bad.has(k)) userThresholds[k] = v;
      return rejected;
    },
    /** Keyboard and gamepads: bindings, setBinding(device, action, sources),
     *  resetBindings(device?, action?), gamepads() (docs/drive.md "Controls and gamepads"). */
    input: keyboard,
    /** The drive camera: 'chase' | 'cockpit' | 'free' (key C cycles; setCamera picks). */
    get cameraMode() {
      return cams ? cams.controller.mode : 'chase';
    },
    setCamera(mode) {
      if (cams) cams.controller.setMode(mode);
    },
    /** The vehicles to choose from (name -> label) and the one driven. */
    vehicles: () => Object.fromEntries(Object.entries(vehicles).map(([n, v]) => [n, v.label])),
    get vehicle() {
      return spec.name;
    },
    /** Chooses the vehicle of the next start (a shipped name). */
    setVehicle(name) {
      if (!vehicles[name]) throw new Error(`drive.setVehicle: unknown vehicle "${name}"`);
      spec = vehicles[name];
      recorder = newRecorder();
    },
    /** Tyre grip from the viewer's weather (clear, cloudy, rain, storm, fog). */
    setWeather(kind, fog = false) {
      if (scen) return; // a scenario's own weather wins
      applyWeather(fog && (kind === 'clear' || kind === 'cloudy') ? 'fog' : kind);
    },
    grip: () => grip,
    /** Solid props the next start's collision world will hold (they load in the background). */
    propCount: () => {
      const props = typeof ctx.props === 'function' ? ctx.props() : ctx.props;
      return props ? props.length : 0;
    },
    scenario: () => scenario,
    hazards: () => (scen ? scen.hazards : []),
    scenarioWeather: () => (scen ? scen.weather : null),
    contacts: () => contactLog.slice(),
    /** Collision world build time of the last start (ms). */
    physicsBuildMs: () => (physics ? physics.build_ms : null),
    /** Simulated seconds of the stream or recording (ctx.clock), for tests and studies. */
    clock: () => clock(),
    exportInputs: () => JSON.stringify(inputs),
    metrics: () => metricsObject(recorder, meta()),
    exportJSON: () => toJSON(recorder, { ...meta(), exported_at: new Date().toISOString() }),
    exportCSV: () => samplesCSV(recorder, meta()),
    exportEventsCSV: () => eventsCSV(recorder, meta()),
    /** Saves 'json', 'csv' (samples and events, two files), 'events-csv' or 'inputs'. */
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
      const base = scenario ? `cityforge-drive-${scenario.name}-${stamp}` : `cityforge-drive-${stamp}`;
      if (kind === 'json') save(api.exportJSON(), `${base}.json`, 'application/json');
      if (kind === 'csv') save(api.exportCSV(), `${base}-samples.csv`, 'text/csv');
      if (kind === 'csv' || kind === 'events-csv') save(api.exportEventsCSV(), `${base}-events.csv`, 'text/csv');
      if (kind === 'inputs') save(api.exportInputs(), `${base}-inputs.json`, 'application/json');
    },
    get recorder() {
      return recorder;
    },
    index,
  };

  function meta() {
    return {
      city: ctx.city ?? null,
      car: dims(),
      scenario: scenario ? { name: scenario.name, seed: scenario.seed, file_hash: scenario.file_hash } : undefined,
    };
  }

  /** Per-step analog inputs of a script [{t_s, ...}] (drive time; later entries win). */
  function createScriptPlayer(script) {
    const entries = script.map((e) => ({ ...e, k: Math.max(0, Math.ceil(e.t_s / STEP_S - 1e-6)) }))
      .sort((a, b) => a.k - b.k);
    return (k) => {
      const c = { throttle: 0, brake: 0, steer: 0, handbrake: false };
      for (const e of entries) {
        if (e.k > k) break;
        for (const f of ['throttle', 'brake', 'steer', 'handbrake']) if (e[f] !== undefined) c[f] = e[f];
      }
      return c;
    };
  }

  return api;
}
