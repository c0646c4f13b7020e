// SPDX-License-Identifier: Apache-2.0
// The driven car: a kinematic bicycle model in city metres (x east, y north, heading
// counter-clockwise from +x). Pure functions, no DOM and no three.js, so node tests run it.
// Based on: Rajamani, Vehicle Dynamics and Control, 2nd ed., 2012, section 2.2 (kinematic
// bicycle model, rear-axle reference point).

/** Car dimensions and limits. The reported position is the front-axle centre, as for the
 *  simulation's vehicles (docs/recording.md). */
export const CAR = Object.freeze({
  length_m: 4.5,
  width_m: 1.8,
  wheelbase_m: 2.7,
  front_overhang_m: 0.9, // Front bumper ahead of the front axle.
  rear_overhang_m: 0.9, // Rear bumper behind the rear axle.
  max_accel_mps2: 3.0, // Full throttle from standstill.
  max_speed_mps: 50, // Top speed (180 km/h); drive force fades towards it.
  max_reverse_mps: 6,
  max_brake_mps2: 9.81, // 1 g at full brake.
  handbrake_mps2: 6.0,
  rolling_mps2: 0.15, // Rolling resistance (coasting).
  drag_per_m: 0.0004, // Aerodynamic drag: deceleration = drag_per_m * v^2.
  max_steer_rad: 0.6, // Road-wheel angle at standstill (about 34 degrees).
  steer_ref_mps: 12, // Steering limit falls as 1 / (1 + (v / this)^2)...
  max_lat_accel_mps2: 7.0, // ...and never asks for more lateral acceleration than this.
  throttle_rate: 3.0, // Pedal travel per second while a key is held (0..1).
  brake_rate: 5.0,
  steer_rate: 2.5, // Steering input per second towards full lock...
  steer_return_rate: 4.0, // ...and back to centre when no steering key is held.
  stop_mps: 0.05, // Below this with no drive force the car is at rest.
});

/** A fresh car state at the given front-axle pose. */
export function createCar(x, y, heading_rad, speed_mps = 0, params = CAR) {
  const c = Math.cos(heading_rad);
  const s = Math.sin(heading_rad);
  return {
    rx: x - c * params.wheelbase_m, // Rear-axle centre (the model's reference point).
    ry: y - s * params.wheelbase_m,
    heading_rad,
    speed_mps, // Signed: negative when reversing.
    accel_mps2: 0,
    steer_rad: 0, // Road-wheel angle, positive = left.
    gear: speed_mps < 0 ? -1 : 1,
    controls: { throttle: 0, brake: 0, steer: 0, handbrake: false },
  };
}

/** Front-axle centre of the car. */
export function frontAxle(car, params = CAR) {
  return {
    x: car.rx + Math.cos(car.heading_rad) * params.wheelbase_m,
    y: car.ry + Math.sin(car.heading_rad) * params.wheelbase_m,
  };
}

/** Footprint centre (middle of the body) and half extents. */
export function footprint(car, params = CAR) {
  const c = Math.cos(car.heading_rad);
  const s = Math.sin(car.heading_rad);
  const front = params.wheelbase_m + params.front_overhang_m;
  const rear = -params.rear_overhang_m;
  const mid = (front + rear) / 2;
  return {
    x: car.rx + c * mid,
    y: car.ry + s * mid,
    heading_rad: car.heading_rad,
    half_length_m: (front - rear) / 2,
    half_width_m: params.width_m / 2,
  };
}

/** Front bumper centre (the point that crosses stop lines). */
export function frontBumper(car, params = CAR) {
  const d = params.wheelbase_m + params.front_overhang_m;
  return {
    x: car.rx + Math.cos(car.heading_rad) * d,
    y: car.ry + Math.sin(car.heading_rad) * d,
  };
}

function approach(value, target, rate, dt) {
  if (value < target) return Math.min(target, value + rate * dt);
  return Math.max(target, value - rate * dt);
}

/** Largest road-wheel angle at this speed: falls with speed and respects the lateral
 *  acceleration limit (v^2 / L * tan(delta) <= a_lat). */
export function steerLimit(speed_mps, params = CAR) {
  const v = Math.abs(speed_mps);
  const bySpeed = params.max_steer_rad / (1 + (v / params.steer_ref_mps) ** 2);
  if (v < 1e-3) return bySpeed;
  const byGrip = Math.atan((params.max_lat_accel_mps2 * params.wheelbase_m) / (v * v));
  return Math.min(bySpeed, byGrip);
}

/** Pedal and steering inputs from held keys ({up, down, left, right, handbrake}: booleans).
 *  ArrowDown brakes while moving forward and reverses from rest; ArrowUp does the opposite in
 *  reverse. Pedals and steering move at limited rates, as a keyboard has no analogue travel. */
export function updateControls(car, keys, dt_s, params = CAR) {
  const k = car.controls;
  const atRest = Math.abs(car.speed_mps) <= params.stop_mps;
  if (atRest && car.gear > 0 && keys.down && !keys.up) car.gear = -1;
  else if (atRest && car.gear < 0 && keys.up && !keys.down) car.gear = 1;
  const go = car.gear > 0 ? keys.up : keys.down;
  const stop = car.gear > 0 ? keys.down : keys.up;
  k.throttle = go ? approach(k.throttle, 1, params.throttle_rate, dt_s) : 0;
  k.brake = stop ? approach(k.brake, 1, params.brake_rate, dt_s) : 0;
  const want = (keys.left ? 1 : 0) - (keys.right ? 1 : 0);
  const rate = want === 0 ? params.steer_return_rate : params.steer_rate;
  k.steer = approach(k.steer, want, rate, dt_s);
  k.handbrake = !!keys.handbrake;
}

/** Advances the car by dt_s (use small steps, e.g. 0.01 s) with its current controls. */
export function stepCar(car, dt_s, params = CAR) {
  const k = car.controls;
  const v0 = car.speed_mps;
  // 1. Longitudinal: drive force along the gear, resistances and brakes against the motion.
  const vmax = car.gear > 0 ? params.max_speed_mps : params.max_reverse_mps;
  const drive = k.throttle * params.max_accel_mps2 * Math.max(0, 1 - Math.abs(v0) / vmax);
  let resist = params.rolling_mps2 + params.drag_per_m * v0 * v0;
  resist += k.brake * params.max_brake_mps2 + (k.handbrake ? params.handbrake_mps2 : 0);
  let v = v0 + car.gear * drive * dt_s;
  // Resistances and brakes only slow the car down, never push it the other way.
  const dv = resist * dt_s;
  v = Math.abs(v) <= dv ? 0 : v - Math.sign(v) * dv;
  if (Math.abs(v) < 1e-9) v = 0;
  car.accel_mps2 = (v - v0) / dt_s;
  // 2. Steering: the wheel follows the input within the speed-dependent limit.
  car.steer_rad = k.steer * steerLimit(v, params);
  // 3. Kinematics (rear-axle reference, midpoint speed).
  const vm = 0.5 * (v0 + v);
  const yawRate = (vm / params.wheelbase_m) * Math.tan(car.steer_rad);
  const hm = car.heading_rad + 0.5 * yawRate * dt_s;
  car.rx += vm * Math.cos(hm) * dt_s;
  car.ry += vm * Math.sin(hm) * dt_s;
  car.heading_rad = wrapAngle(car.heading_rad + yawRate * dt_s);
  car.speed_mps = v;
}

/** Wraps an angle to (-pi, pi]. */
export function wrapAngle(a) {
  let r = a % (2 * Math.PI);
  if (r <= -Math.PI) r += 2 * Math.PI;
  else if (r > Math.PI) r -= 2 * Math.PI;
  return r;
}
