// SPDX-License-Identifier: Apache-2.0
// Engine and automatic gearbox of the vehicle-dynamics car: pure functions over the vehicle
// spec (spec.js), no Rapier, so they are testable alone. Units: rpm, N m, seconds.

const RAD_S_TO_RPM = 60 / (2 * Math.PI);
/** Engine drag with the throttle closed, as a fraction of peak torque at the redline
 *  (falls linearly to 0 at idle). Gives 0.3-1 m/s^2 of engine braking in low gears. */
export const ENGINE_BRAKE_FRAC = 0.12;

/** Full-throttle torque (N m) at rpm: linear between curve points, flat below the first,
 *  0 above the redline (rev limiter). */
export function engineTorque(spec, rpm) {
  const c = spec.engine.torque_curve;
  if (rpm > spec.engine.redline_rpm) return 0;
  if (rpm <= c[0][0]) return c[0][1];
  for (let i = 1; i < c.length; i++) {
    if (rpm <= c[i][0]) {
      const t = (rpm - c[i - 1][0]) / (c[i][0] - c[i - 1][0]);
      return c[i - 1][1] + t * (c[i][1] - c[i - 1][1]);
    }
  }
  return c[c.length - 1][1];
}

/** Overall ratio (engine turns per wheel turn) of a gear: -1 reverse, 1..n forward. */
export function overallRatio(spec, gear) {
  const g = spec.gearbox;
  if (gear < 0) return g.reverse_ratio * g.final_drive;
  if (gear === 0) return 0;
  return g.ratios[gear - 1] * g.final_drive;
}

/** Engine rpm the driven wheels' speed (rad/s, magnitude) gives in this gear. */
export function wheelRpm(spec, gear, wheel_rad_s) {
  return Math.abs(wheel_rad_s) * overallRatio(spec, gear) * RAD_S_TO_RPM;
}

/** A gearbox in first gear, not shifting. */
export function createGearbox() {
  return { gear: 1, target: 1, shift_left_s: 0 };
}

/** Automatic shifting for one step. Forward gears shift up when the wheel-driven rpm reaches
 *  upshift_rpm with the throttle open, and down when it falls to downshift_rpm (only when the
 *  lower gear stays below upshift_rpm, so it never hunts). A shift cuts the drive torque for
 *  shift_time_s; the new gear engages at the end. Reverse (-1) is never shifted here. */
export function updateGearbox(gb, spec, wheel_rad_s, throttle, dt_s) {
  if (gb.shift_left_s > 0) {
    gb.shift_left_s -= dt_s;
    if (gb.shift_left_s <= 1e-9) {
      gb.shift_left_s = 0;
      gb.gear = gb.target;
    }
    return gb;
  }
  if (gb.gear < 1) return gb;
  const n = spec.gearbox.ratios.length;
  const rpm = wheelRpm(spec, gb.gear, wheel_rad_s);
  if (rpm >= spec.gearbox.upshift_rpm && gb.gear < n && throttle > 0) {
    gb.target = gb.gear + 1;
    gb.shift_left_s = spec.gearbox.shift_time_s;
  } else if (rpm <= spec.gearbox.downshift_rpm && gb.gear > 1) {
    const lower = wheelRpm(spec, gb.gear - 1, wheel_rad_s);
    if (lower < 0.95 * spec.gearbox.upshift_rpm) {
      gb.target = gb.gear - 1;
      gb.shift_left_s = spec.gearbox.shift_time_s;
    }
  }
  return gb;
}

/** Engine rpm and the torque it gives at the gearbox input (N m; negative = engine braking).
 *  Below idle the clutch slips: the engine runs at idle and gives its idle torque.
 *  While shifting the torque is cut to 0. */
export function engineOutput(spec, gb, wheel_rad_s, throttle) {
  const wheel = gb.gear === 0 ? 0 : wheelRpm(spec, gb.gear, wheel_rad_s);
  const rpm = Math.max(spec.engine.idle_rpm, wheel);
  if (gb.shift_left_s > 0 || gb.gear === 0) return { rpm, torque_nm: 0 };
  if (throttle > 0) return { rpm, torque_nm: throttle * engineTorque(spec, rpm) };
  const peak = Math.max(...spec.engine.torque_curve.map((p) => p[1]));
  const t = (rpm - spec.engine.idle_rpm) / (spec.engine.redline_rpm - spec.engine.idle_rpm);
  return { rpm, torque_nm: -ENGINE_BRAKE_FRAC * peak * Math.max(0, Math.min(1, t)) };
}
