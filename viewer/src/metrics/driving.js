// SPDX-License-Identifier: Apache-2.0
// Driving-style metrics for studies (issue 25): lane keeping (SDLP), harsh braking and
// acceleration episodes, and an eyes-off-road proxy from the camera's look direction.
// docs/drive.md defines each.
// SDLP: Verster & Roth, Standard deviation of lateral position as a measure of driving
// performance, Transportation Research Part F 14(3), 2011. Weighted running variance: West,
// Updating mean and variance estimates: an improved method, CACM 22(9), 1979.

const r4 = (v) => (v === null || v === undefined || !Number.isFinite(v) ? v : Math.round(v * 1e4) / 1e4);
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

function wrapAngle(a) {
  let r = (a + Math.PI) % (2 * Math.PI);
  if (r < 0) r += 2 * Math.PI;
  return r - Math.PI;
}

/** Tracker of lane keeping, harsh accelerations and eyes off the road. th: the recorder's
 *  thresholds (read live). */
export function createDrivingTracker(th) {
  const lk = { w: 0, mean: 0, m2: 0, abs: 0 };
  const harsh = { harsh_brake: null, harsh_accel: null };
  const counts = { harsh_brake: 0, harsh_accel: 0 };
  const eyes = { open: null, closed_s: 0, episodes: 0 };

  // 1. Lateral position on lanes outside junctions while faster than sdlp_min_speed_mps,
  // weighted by the step's duration.
  function laneKeeping(dt, car) {
    if (!(dt > 0) || car.lane === null || car.lane === undefined || car.connector) return;
    if (!(Math.abs(car.speed_mps) > th.sdlp_min_speed_mps) || !finite(car.lateral_m)) return;
    const x = car.lateral_m;
    lk.w += dt;
    const delta = x - lk.mean;
    lk.mean += (dt / lk.w) * delta;
    lk.m2 += dt * delta * (x - lk.mean);
    lk.abs += dt * Math.abs(x);
  }

  // 2. Harsh braking / acceleration: the longitudinal acceleration beyond its threshold for at
  // least harsh_min_s. An episode runs from the first step past the threshold to the first
  // step back inside; it becomes an event once it has lasted harsh_min_s.
  function harshEpisodes(t, car, emit, base) {
    const a = car.accel_mps2;
    for (const type of ['harsh_brake', 'harsh_accel']) {
      const sign = type === 'harsh_brake' ? -1 : 1;
      const limit = type === 'harsh_brake' ? th.harsh_brake_mps2 : th.harsh_accel_mps2;
      const on = finite(a) && sign * a >= limit;
      let ep = harsh[type];
      if (on) {
        if (!ep) {
          ep = harsh[type] = { start: t, ev: base(type), emitted: false };
          ep.ev.peak_accel_mps2 = r4(a);
        }
        if (sign * a > sign * ep.ev.peak_accel_mps2) ep.ev.peak_accel_mps2 = r4(a);
      } else if (ep) {
        harsh[type] = null;
        ep.ev.t_end_s = r4(t);
        ep.ev.duration_s = r4(t - ep.start);
      }
      if (ep && !ep.emitted && t - ep.start >= th.harsh_min_s - 1e-6) {
        ep.emitted = true;
        counts[type] += 1;
        emit(ep.ev);
      }
    }
  }

  // 3. Eyes off the road: the look direction more than eyes_off_road_deg from the road's
  // direction (the matched lane's heading, else the car's). Unknown look direction: on road.
  function eyesOffRoad(t, car, emit, base) {
    let angle = null;
    if (finite(car.view_heading_rad)) {
      const lane = car.lane !== null && car.lane !== undefined && finite(car.heading_err_rad);
      const road = lane ? car.heading_rad - car.heading_err_rad : car.heading_rad;
      angle = Math.abs(wrapAngle(car.view_heading_rad - road)) * (180 / Math.PI);
    }
    const off = angle !== null && angle > th.eyes_off_road_deg;
    const ep = eyes.open;
    if (off) {
      if (!ep) {
        const ev = base('eyes_off_road');
        ev.max_off_road_deg = r4(angle);
        eyes.open = { start: t, ev };
        eyes.episodes += 1;
        emit(ev);
      } else {
        ep.ev.max_off_road_deg = r4(Math.max(ep.ev.max_off_road_deg, angle));
      }
    } else if (ep) {
      eyes.open = null;
      eyes.closed_s += t - ep.start;
      ep.ev.t_end_s = r4(t);
      ep.ev.duration_s = r4(t - ep.start);
    }
  }

  /** One recorder step ending at drive time t. emit(event) adds an event; base(type) builds
   *  its common fields. */
  function step(dt, t, car, emit, base) {
    laneKeeping(dt, car);
    harshEpisodes(t, car, emit, base);
    eyesOffRoad(t, car, emit, base);
  }

  /** Summary fields at drive time t (an open eyes-off-road episode counts up to t). */
  function summary(t) {
    const has = lk.w > 0;
    return {
      sdlp_m: has ? r4(Math.sqrt(Math.max(0, lk.m2) / lk.w)) : null,
      mean_lateral_m: has ? r4(lk.mean) : null,
      mean_abs_lateral_m: has ? r4(lk.abs / lk.w) : null,
      lane_keeping_time_s: r4(lk.w),
      harsh_brakes: counts.harsh_brake,
      harsh_accels: counts.harsh_accel,
      eyes_off_road_s: r4(eyes.closed_s + (eyes.open ? t - eyes.open.start : 0)),
      eyes_off_road_episodes: eyes.episodes,
    };
  }

  return { step, summary };
}
