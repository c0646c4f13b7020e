// SPDX-License-Identifier: Apache-2.0
// One car of the vehicle-dynamics world: a Rapier rigid-body chassis on a
// DynamicRayCastVehicleController (four ray-cast wheels with spring-damper suspension and
// lateral tyre friction), with our own longitudinal tyre, engine, gearbox and brake model on top.
// Body frame: x forward, y left, z up, origin at the centre of gravity. Units: m, s, kg, N.
// Based on: Rapier's ray-cast vehicle controller (a port of Bullet's btRaycastVehicle);
// friction circle and load-limited traction after Gillespie, Fundamentals of Vehicle Dynamics,
// 1992, ch. 2-3; resistances after Wong, Theory of Ground Vehicles, 4th ed., 2008, ch. 1 and 3.

import { createGearbox, engineOutput, updateGearbox } from './powertrain.js';

/** Model constants (not in the vehicle file). */
export const DYN = Object.freeze({
  step_s: 0.01, // Fixed physics step.
  gravity_mps2: 9.81,
  steer_ref_mps: 12, // Steering limit max_angle / (1 + (v / this)^2), as docs/drive.md.
  stop_mps: 0.2, // Below this the car counts as at rest (direction changes).
  abs_frac: 0.95, // ABS holds each braked tyre at this fraction of its peak force.
  slide_frac: 0.8, // A locked (handbrake) tyre slides at this fraction of peak friction...
  locked_side_frac: 0.3, // ...and keeps this fraction of its lateral grip.
  driveline_eff: 0.9, // Engine torque reaching the wheels.
  wheel_inertia_kgm2: 1.2, // One wheel with tyre and brake disc.
  engine_inertia_kgm2: 0.15, // Crank and flywheel (seen by driven wheels through the gear).
  rolling_coeff: 0.012, // Rolling resistance, fraction of the weight.
  drag_cd: 0.33,
  frontal_area_frac: 0.85, // Frontal area = this * width * height.
  air_density_kgpm3: 1.2,
  clearance_frac: 0.5, // Body underside above ground, fraction of the tyre radius.
});

// Collision groups (16-bit membership << 16 | 16-bit filter).
export const GROUP = Object.freeze({ ground: 1, car: 2, world: 4, agent: 8 });
export const groups = (member, filter) => ((member & 0xffff) << 16) | (filter & 0xffff);
const WHEEL_RAY_GROUPS = groups(GROUP.car, GROUP.ground);

const FRONT = [true, true, false, false]; // Wheels: front left, front right, rear left, rear right.
const SHARE = {
  rwd: [0, 0, 0.5, 0.5],
  fwd: [0.5, 0.5, 0, 0],
  awd: [0.25, 0.25, 0.25, 0.25], // Locked 50:50 centre, open axle differentials.
};

function rotate(q, v) {
  // v' = q v q*, for a unit quaternion {x, y, z, w}.
  const { x, y, z, w } = q;
  const tx = 2 * (y * v.z - z * v.y);
  const ty = 2 * (z * v.x - x * v.z);
  const tz = 2 * (x * v.y - y * v.x);
  return {
    x: v.x + w * tx + (y * tz - z * ty),
    y: v.y + w * ty + (z * tx - x * tz),
    z: v.z + w * tz + (x * ty - y * tx),
  };
}

const dot = (a, b) => a.x * b.x + a.y * b.y + a.z * b.z;

/** Plane z = c + gx (x - cx) + gy (y - cy) through sample points by least squares. */
function fitPlane(pts, cx, cy) {
  let sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, sz = 0, sxz = 0, syz = 0;
  for (const p of pts) {
    const dx = p.x - cx;
    const dy = p.y - cy;
    sxx += dx * dx; sxy += dx * dy; syy += dy * dy; sx += dx; sy += dy;
    sz += p.z; sxz += dx * p.z; syz += dy * p.z;
  }
  const n = pts.length;
  // Normal equations [[n sx sy] [sx sxx sxy] [sy sxy syy]] [c gx gy] = [sz sxz syz].
  const m = [n, sx, sy, sx, sxx, sxy, sy, sxy, syy];
  const det3 = (a) => a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  const d = det3(m);
  if (Math.abs(d) < 1e-9) return { c: sz / n, gx: 0, gy: 0 };
  const col = (k, r) => m.map((v, i) => (i % 3 === k ? r[(i / 3) | 0] : v));
  const r = [sz, sxz, syz];
  return { c: det3(col(0, r)) / d, gx: det3(col(1, r)) / d, gy: det3(col(2, r)) / d };
}

/** Creates a car in the Rapier world `rw` at a front-axle pose. Internal: use world.addCar. */
export function createVehicle(R, rw, spec, pose, opts) {
  const b = spec.body;
  const m = b.mass_kg;
  const g = DYN.gravity_mps2;
  const a = b.cg_to_front_axle_m;
  const rear = b.wheelbase_m - a;
  const r = spec.tyres.radius_m;
  const rl = spec.suspension.rest_length_m;
  const k = spec.suspension.stiffness;
  const h = b.cg_height_m;
  const heading = pose.heading_rad || 0;
  const c = Math.cos(heading);
  const s = Math.sin(heading);

  // 1. Chassis: a box body from bumper to bumper, mass and inertia from the spec at the CG.
  const clearance = DYN.clearance_frac * r;
  const hz = Math.max(0.2, (b.height_m - clearance) / 2);
  const cgX = pose.x - c * a;
  const cgY = pose.y - s * a;
  const cgZ = (pose.z || 0) + h;
  const v0 = pose.speed_mps || 0;
  const body = rw.createRigidBody(
    R.RigidBodyDesc.dynamic()
      .setTranslation(cgX, cgY, cgZ)
      .setRotation({ x: 0, y: 0, z: Math.sin(heading / 2), w: Math.cos(heading / 2) })
      .setLinvel(c * v0, s * v0, 0)
      .setCanSleep(false)
      .setCcdEnabled(true),
  );
  const boxX = a + b.front_overhang_m - b.length_m / 2; // Box centre ahead of the CG.
  const boxZ = clearance + hz - h;
  const ix = (m / 12) * (b.width_m ** 2 + b.height_m ** 2);
  const iy = (m / 12) * (b.length_m ** 2 + b.height_m ** 2);
  const iz = (m / 12) * (b.length_m ** 2 + b.width_m ** 2);
  const collider = rw.createCollider(
    R.ColliderDesc.cuboid(b.length_m / 2, b.width_m / 2, hz)
      .setTranslation(boxX, 0, boxZ)
      .setMassProperties(m, { x: -boxX, y: 0, z: -boxZ }, { x: ix, y: iy, z: iz }, { x: 0, y: 0, z: 0, w: 1 })
      .setFriction(0.3)
      .setCollisionGroups(groups(GROUP.car, GROUP.ground | GROUP.car | GROUP.world | GROUP.agent))
      .setActiveEvents(R.ActiveEvents.COLLISION_EVENTS),
    body,
  );

  // 2. Ground under the car: a static box whose top follows groundHeight, re-fitted each step.
  const ground = rw.createCollider(
    R.ColliderDesc.cuboid(30, 30, 1).setCollisionGroups(groups(GROUP.ground, GROUP.car)).setFriction(0.8),
  );

  // 3. Wheels: hard points placed so the body sits level at cg_height_m on its springs.
  const ctl = rw.createVehicleController(body);
  ctl.indexUpAxis = 2;
  ctl.setIndexForwardAxis = 0; // Rapier's setter has this name.
  const loads = [0, 1, 2, 3].map((i) => (m * g * (FRONT[i] ? rear : a)) / b.wheelbase_m / 2);
  const hard = [];
  for (let i = 0; i < 4; i++) {
    const sag = loads[i] / k;
    const p = {
      x: FRONT[i] ? a : -rear,
      y: i % 2 === 0 ? b.track_m / 2 : -b.track_m / 2,
      z: r + rl - sag - h,
    };
    hard.push(p);
    // Axle -y: Rapier's forward is contact normal x axle, which is +x for a z-up normal.
    ctl.addWheel(p, { x: 0, y: 0, z: -1 }, { x: 0, y: -1, z: 0 }, rl, r);
    ctl.setWheelSuspensionStiffness(i, k / m); // Rapier scales spring and dampers by the mass.
    ctl.setWheelSuspensionCompression(i, spec.suspension.damping_compression / m);
    ctl.setWheelSuspensionRelaxation(i, spec.suspension.damping_relaxation / m);
    ctl.setWheelMaxSuspensionTravel(i, spec.suspension.max_travel_m);
    ctl.setWheelMaxSuspensionForce(i, 4 * m * g);
    ctl.setWheelSideFrictionStiffness(i, spec.tyres.side_stiffness);
  }

  const car = {
    spec,
    body,
    collider,
    ground,
    ctl,
    hard,
    grip: opts && opts.grip != null ? opts.grip : 1,
    gearbox: createGearbox(),
    reverse: v0 < 0,
    latch: false, // Brake held since the last direction change.
    omega: [0, 1, 2, 3].map(() => v0 / r), // Wheel spin, rad/s (positive = forward).
    spinning: [false, false, false, false],
    slip: [0, 0, 0, 0],
    steer_rad: 0,
    rpm: spec.engine.idle_rpm,
    speed_mps: v0,
    accel_mps2: 0,
    controls: { throttle: 0, brake: 0, steer: 0, handbrake: false },
    dispose() {
      rw.removeVehicleController(ctl);
      rw.removeCollider(ground, false);
      rw.removeRigidBody(body);
    },
  };
  if (car.reverse) car.gearbox.gear = car.gearbox.target = -1;
  car.state = () => vehicleState(car);
  return car;
}

function frame(car) {
  const q = car.body.rotation();
  return {
    t: car.body.translation(),
    q,
    fwd: rotate(q, { x: 1, y: 0, z: 0 }),
    left: rotate(q, { x: 0, y: 1, z: 0 }),
    up: rotate(q, { x: 0, y: 0, z: 1 }),
  };
}

/** Re-fits the car's ground box to groundHeight under its four wheels. */
export function placeGround(car, groundHeight) {
  const f = frame(car);
  const pts = car.hard.map((p) => {
    const w = rotate(f.q, p);
    const x = f.t.x + w.x;
    const y = f.t.y + w.y;
    return { x, y, z: groundHeight(x, y) };
  });
  const { c, gx, gy } = fitPlane(pts, f.t.x, f.t.y);
  const n = Math.hypot(gx, gy, 1);
  const nx = -gx / n;
  const ny = -gy / n;
  const nz = 1 / n;
  // Quaternion turning +z onto the normal: axis z x n, half-angle form.
  const qw = Math.sqrt((1 + nz) / 2);
  const qs = 1 / (2 * qw);
  car.ground.setRotation({ x: -ny * qs, y: nx * qs, z: 0, w: qw });
  car.ground.setTranslation({ x: f.t.x - nx, y: f.t.y - ny, z: c - nz });
}

/** Sets wheel forces, steering and friction for the next step from the car's controls. */
export function prepareVehicle(car, dt) {
  const { spec, ctl } = car;
  const k = car.controls;
  const throttle = Math.min(1, Math.max(0, +k.throttle || 0));
  const brake = Math.min(1, Math.max(0, +k.brake || 0));
  const steer = Math.min(1, Math.max(-1, +k.steer || 0));
  const handbrake = !!k.handbrake;
  const f = frame(car);
  const lv = car.body.linvel();
  const av = car.body.angvel();
  const vLong = dot(lv, f.fwd);
  const r = spec.tyres.radius_m;
  const mu = spec.tyres.friction * car.grip;

  // 1. Direction: brake held at rest (throttle released) swaps forward and reverse, once per hold.
  if (brake === 0) car.latch = false;
  if (Math.abs(vLong) <= DYN.stop_mps && brake > 0 && throttle === 0 && !car.latch) {
    car.reverse = !car.reverse;
    car.latch = true;
    const gb = car.gearbox;
    gb.gear = gb.target = car.reverse ? -1 : 1;
    gb.shift_left_s = 0;
  }

  // 2. Steering: road-wheel angle falls with speed as in the kinematic model.
  const maxSteer = (spec.steering.max_angle_deg * Math.PI) / 180;
  car.steer_rad = (steer * maxSteer) / (1 + (vLong / DYN.steer_ref_mps) ** 2);

  // 3. Engine and gearbox from the driven wheels' spin.
  const share = SHARE[spec.drivetrain];
  let wsum = 0;
  let wn = 0;
  for (let i = 0; i < 4; i++) {
    if (share[i] > 0) {
      wsum += car.omega[i];
      wn++;
    }
  }
  const wheelOmega = Math.abs(wsum / wn);
  updateGearbox(car.gearbox, spec, wheelOmega, throttle, dt);
  const eng = engineOutput(spec, car.gearbox, wheelOmega, brake > 0.05 ? 0 : throttle);
  car.rpm = eng.rpm;
  const gear = car.gearbox.gear;
  const ratio = gear === 0 ? 0 : (gear < 0 ? spec.gearbox.reverse_ratio : spec.gearbox.ratios[gear - 1]) * spec.gearbox.final_drive;
  const axleTorque = eng.torque_nm * ratio * DYN.driveline_eff * (gear < 0 ? -1 : 1);
  const inertia = DYN.wheel_inertia_kgm2 + (DYN.engine_inertia_kgm2 * ratio * ratio) / Math.max(1, wn);

  // 4. Each wheel: drive (with wheel spin), ABS brake or locked handbrake; the friction the
  // tyre has left for cornering follows the friction circle.
  const cos = Math.cos(car.steer_rad);
  const sin = Math.sin(car.steer_rad);
  for (let i = 0; i < 4; i++) {
    const contact = ctl.wheelIsInContact(i);
    const load = contact ? Math.max(0, ctl.wheelSuspensionForce(i) || 0) : 0;
    const cap = mu * load;
    const dir = FRONT[i]
      ? { x: f.fwd.x * cos + f.left.x * sin, y: f.fwd.y * cos + f.left.y * sin, z: f.fwd.z * cos + f.left.z * sin }
      : f.fwd;
    const p = contact ? ctl.wheelContactPoint(i) : f.t;
    const rx = p.x - f.t.x;
    const ry = p.y - f.t.y;
    const rz = p.z - f.t.z;
    const vp = { x: lv.x + av.y * rz - av.z * ry, y: lv.y + av.z * rx - av.x * rz, z: lv.z + av.x * ry - av.y * rx };
    const vw = dot(vp, dir);
    const brakeT = brake * spec.brakes.max_torque_nm * (FRONT[i] ? spec.brakes.front_share : 1 - spec.brakes.front_share) / 2;
    let force = 0;
    let brakeLimit = 0;
    let used = 0;
    let side = 1;
    if (handbrake && !FRONT[i]) {
      brakeLimit = DYN.slide_frac * cap;
      used = 1;
      side = DYN.locked_side_frac;
      car.omega[i] = 0;
      car.spinning[i] = false;
      car.slip[i] = Math.abs(vw) > DYN.stop_mps ? -Math.sign(vw) : 0;
    } else if (brakeT > 0) {
      brakeLimit = Math.min(brakeT / r, DYN.abs_frac * cap);
      used = cap > 0 ? brakeLimit / cap : 0;
      car.omega[i] = vw / r;
      car.spinning[i] = false;
      car.slip[i] = 0;
    } else {
      const torque = axleTorque * share[i];
      force = spinModel(car, i, torque, vw, cap, r, inertia, dt);
      used = cap > 0 ? Math.abs(force) / cap : 0;
    }
    ctl.setWheelSteering(i, FRONT[i] ? car.steer_rad : 0);
    ctl.setWheelEngineForce(i, force);
    ctl.setWheelBrake(i, brakeLimit * dt);
    ctl.setWheelFrictionSlip(i, side * mu * Math.sqrt(Math.max(0, 1 - 0.75 * Math.min(1, used) ** 2)));
  }

  // 5. Rolling resistance and aerodynamic drag at the CG; they stop the car, never reverse it.
  const b = spec.body;
  const resist = DYN.rolling_coeff * b.mass_kg * DYN.gravity_mps2 +
    0.5 * DYN.air_density_kgpm3 * DYN.drag_cd * DYN.frontal_area_frac * b.width_m * b.height_m * vLong * vLong;
  const dv = Math.min(Math.abs(vLong) * b.mass_kg, resist * dt);
  if (Math.abs(vLong) > 1e-3) {
    const j = -Math.sign(vLong) * dv;
    car.body.applyImpulse({ x: f.fwd.x * j, y: f.fwd.y * j, z: f.fwd.z * j }, true);
  }
}

/** Driven wheel: the tyre passes the drive force up to its grip; beyond it the wheel spins up
 *  (its inertia takes the rest of the torque) and the tyre gives its peak force until the wheel
 *  has caught up with the road again. Returns the force on the road (N, + forward). */
function spinModel(car, i, torque, vw, cap, r, inertia, dt) {
  const want = torque / r;
  if (!car.spinning[i] && Math.abs(want) <= cap) {
    car.omega[i] = vw / r;
    car.slip[i] = 0;
    return want;
  }
  const slipVel = car.omega[i] * r - vw;
  const dirn = car.spinning[i] ? Math.sign(slipVel) || Math.sign(want) : Math.sign(want);
  const force = dirn * cap;
  car.omega[i] += ((torque - force * r) / inertia) * dt;
  const after = car.omega[i] * r - vw;
  car.spinning[i] = !(after * dirn <= 0 && Math.abs(want) <= cap);
  if (!car.spinning[i]) car.omega[i] = vw / r;
  car.slip[i] = car.spinning[i] ? after / Math.max(Math.abs(vw), 1) : 0;
  return force;
}

/** Updates the derived quantities after a world step. */
export function finishVehicle(car, dt) {
  const f = frame(car);
  const lv = car.body.linvel();
  const c = Math.hypot(f.fwd.x, f.fwd.y) || 1;
  const speed = (lv.x * f.fwd.x + lv.y * f.fwd.y) / c;
  car.accel_mps2 = (speed - car.speed_mps) / dt;
  car.speed_mps = speed;
}

/** The car's state (see docs/vehicles.md). Position: front-axle centre on the road. */
export function vehicleState(car) {
  const f = frame(car);
  const b = car.spec.body;
  const p = rotate(f.q, { x: b.cg_to_front_axle_m, y: 0, z: -b.cg_height_m });
  const heading = Math.atan2(f.fwd.y, f.fwd.x);
  const lv = car.body.linvel();
  const hx = Math.cos(heading);
  const hy = Math.sin(heading);
  const vLong = lv.x * hx + lv.y * hy;
  const vLat = -lv.x * hy + lv.y * hx;
  return {
    x: f.t.x + p.x,
    y: f.t.y + p.y,
    z: f.t.z + p.z,
    heading_rad: heading,
    speed_mps: car.speed_mps,
    accel_mps2: car.accel_mps2,
    yaw_rate_rps: car.body.angvel().z,
    sideslip_rad: Math.hypot(vLong, vLat) > 0.5 ? Math.atan2(vLat, Math.abs(vLong)) : 0,
    steer_rad: car.steer_rad,
    gear: car.gearbox.gear,
    rpm: car.rpm,
    wheel_slip: car.slip.slice(),
  };
}

export { WHEEL_RAY_GROUPS };
