// SPDX-License-Identifier: Apache-2.0
// Drive-mode cameras: chase (behind and above, smoothed), cockpit (the driver's eye, head yaw
// adjustable) and free (the viewer's orbit controls take the camera back). Pure functions give
// {position, target, up, view_heading_rad, near_m} in the city frame (metres, x east, y north,
// z up) from the car state {x, y (front axle), z (road), heading_rad}; applyView puts a view on
// a three.js camera. view_heading_rad is the look direction's heading (the eyes-off-road
// metric compares it with the car's).

import { CAR } from './physics.js';

/** Camera modes in the order key C cycles them. */
export const CAMERA_MODES = Object.freeze(['chase', 'cockpit', 'free']);

/** Chase camera: today's placement. */
export const CHASE = Object.freeze({
  back_m: 9, // behind the front axle
  up_m: 3.4, // above the road
  look_ahead_m: 6, // looks at a point this far ahead of the front axle...
  look_up_m: 1.0, // ...this high above the road
  smooth_per_s: 6, // position follows with rate min(1, dt * this) per frame
  near_m: 1, // main.js's camera near plane
});

/** The front of the windscreen relative to the front axle (m, + forward) for drive/mesh.js's
 *  car: its glass box is centred 0.2 m behind the body centre and half the body long. */
function windscreenX(params) {
  const front = params.front_overhang_m;
  const back = params.wheelbase_m + params.rear_overhang_m;
  const len = front + back;
  return (front - back) / 2 - 0.2 + len * 0.25;
}

/** Cockpit camera: the driver's eye. */
export const COCKPIT = Object.freeze({
  eye_left_m: 0.4, // left of the centre line (left-hand drive, right-hand traffic)
  eye_up_m: 1.2, // above the road
  behind_windscreen_m: 0.3, // behind the front of the windscreen
  windscreen_x_m: windscreenX(CAR), // -0.425 m for the default car
  look_m: 20, // distance of the look-at point
  pitch_rad: -0.03, // eyes a little down the road
  max_head_yaw_rad: Math.PI / 2, // full look input turns the head this far
  head_rate_rad_per_s: 4, // how fast the head turns toward the look input
  near_m: 0.25, // the bonnet is ~0.5 m from the eye; a nearer plane costs depth precision
});

/** Cockpit parameters for a vehicle file's body ({length_m, wheelbase_m, front_overhang_m,
 *  height_m}, docs/vehicles): the windscreen placed as on drive/mesh.js's car of those
 *  dimensions, the eye 0.35 m under the roof but never below 1.2 m. */
export function cockpitFor(body, p = COCKPIT) {
  const rear = body.length_m - body.front_overhang_m - body.wheelbase_m;
  const x = windscreenX({ front_overhang_m: body.front_overhang_m, wheelbase_m: body.wheelbase_m, rear_overhang_m: rear });
  return Object.freeze({ ...p, windscreen_x_m: x, eye_up_m: Math.max(p.eye_up_m, (body.height_m ?? 0) - 0.35) });
}

/** Angle wrapped to (-pi, pi]. */
export function wrapAngle(a) {
  a = ((((a + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) - Math.PI;
  return a === -Math.PI ? Math.PI : a;
}

/** The mode after `mode` in CAMERA_MODES (key C). */
export function nextCameraMode(mode) {
  const i = CAMERA_MODES.indexOf(mode);
  return CAMERA_MODES[(i + 1) % CAMERA_MODES.length];
}

/** Heading (rad, counter-clockwise from east) of a city-frame direction, or null when it is
 *  (nearly) vertical: no heading. For the free camera, from camera.getWorldDirection. */
export function viewHeadingOf(dx, dy, dz = 0) {
  const h = Math.hypot(dx, dy);
  if (!(h > 1e-6) || h < 1e-3 * Math.hypot(h, dz)) return null;
  return Math.atan2(dy, dx);
}

/** Chase view: the position eases toward 9 m behind and 3.4 m above the front axle (`prev`:
 *  the last view's position, or null to jump there), looking 6 m ahead, 1 m above the road. */
export function chaseView(car, prev, dt_s, p = CHASE) {
  const c = Math.cos(car.heading_rad);
  const s = Math.sin(car.heading_rad);
  const want = { x: car.x - c * p.back_m, y: car.y - s * p.back_m, z: car.z + p.up_m };
  let position = want;
  if (prev) {
    const k = Math.min(1, Math.max(0, dt_s) * p.smooth_per_s);
    position = {
      x: prev.x + (want.x - prev.x) * k,
      y: prev.y + (want.y - prev.y) * k,
      z: prev.z + (want.z - prev.z) * k,
    };
  }
  const target = { x: car.x + c * p.look_ahead_m, y: car.y + s * p.look_ahead_m, z: car.z + p.look_up_m };
  return {
    mode: 'chase',
    position,
    target,
    up: { x: 0, y: 0, z: 1 },
    view_heading_rad: viewHeadingOf(target.x - position.x, target.y - position.y, target.z - position.z),
    near_m: p.near_m,
  };
}

/** Cockpit view: the eye 0.4 m left of the centre line, 1.2 m above the road, 0.3 m behind the
 *  front of the windscreen, looking along the heading turned by head_yaw_rad (left positive). */
export function cockpitView(car, head_yaw_rad = 0, p = COCKPIT) {
  const c = Math.cos(car.heading_rad);
  const s = Math.sin(car.heading_rad);
  const ex = p.windscreen_x_m - p.behind_windscreen_m; // forward of the front axle
  const position = {
    x: car.x + c * ex - s * p.eye_left_m,
    y: car.y + s * ex + c * p.eye_left_m,
    z: car.z + p.eye_up_m,
  };
  const look = wrapAngle(car.heading_rad + head_yaw_rad);
  const target = {
    x: position.x + Math.cos(look) * p.look_m,
    y: position.y + Math.sin(look) * p.look_m,
    z: position.z + Math.tan(p.pitch_rad) * p.look_m,
  };
  return { mode: 'cockpit', position, target, up: { x: 0, y: 0, z: 1 }, view_heading_rad: look, near_m: p.near_m };
}

/** Head yaw after dt_s: eases toward look * max_head_yaw_rad (look -1..1, left positive). */
export function stepHeadYaw(yaw, look, dt_s, p = COCKPIT) {
  const want = Math.max(-1, Math.min(1, look || 0)) * p.max_head_yaw_rad;
  const d = p.head_rate_rad_per_s * Math.max(0, dt_s);
  return yaw < want ? Math.min(want, yaw + d) : Math.max(want, yaw - d);
}

/** The view of `mode` for the car, or null for 'free' (the orbit controls own the camera). */
export function cameraView(mode, car, { prev = null, dt_s = 0, head_yaw_rad = 0, chase = CHASE, cockpit = COCKPIT } = {}) {
  if (mode === 'chase') return chaseView(car, prev, dt_s, chase);
  if (mode === 'cockpit') return cockpitView(car, head_yaw_rad, cockpit);
  if (mode === 'free') return null;
  throw new Error(`camera mode '${mode}': expected one of ${CAMERA_MODES.join(', ')}`);
}

/** Camera state across frames: the mode, the smoothed chase position and the head yaw.
 *  update(car, dt_s, {look, camera_next}) returns the view (null in free mode); after it,
 *  `changed` is true when the mode changed (key, setMode) or reset() was called since the
 *  update before (so the caller hands the camera to or takes it from the orbit controls). */
export function createCameraController({ mode = 'chase', chase = CHASE, cockpit = COCKPIT } = {}) {
  if (!CAMERA_MODES.includes(mode)) throw new Error(`camera mode '${mode}': expected one of ${CAMERA_MODES.join(', ')}`);
  // dirty: the mode changed (or reset) since the last update; changed: it did before this one.
  const st = { mode, prev: null, head_yaw_rad: 0, dirty: true, changed: false, view: null };
  return {
    get mode() {
      return st.mode;
    },
    get head_yaw_rad() {
      return st.head_yaw_rad;
    },
    get view() {
      return st.view;
    },
    get changed() {
      return st.changed;
    },
    setMode(m) {
      if (!CAMERA_MODES.includes(m)) throw new Error(`camera mode '${m}': expected one of ${CAMERA_MODES.join(', ')}`);
      if (m !== st.mode) {
        st.mode = m;
        st.prev = null;
        st.head_yaw_rad = 0;
        st.dirty = true;
      }
    },
    next() {
      this.setMode(nextCameraMode(st.mode));
      return st.mode;
    },
    /** Forgets the smoothing (a new drive starts, or the car jumped). */
    reset() {
      st.prev = null;
      st.head_yaw_rad = 0;
      st.dirty = true;
    },
    update(car, dt_s, input = {}) {
      if (input.camera_next) this.next();
      st.changed = st.dirty;
      st.dirty = false;
      if (st.mode === 'cockpit') st.head_yaw_rad = stepHeadYaw(st.head_yaw_rad, input.look ?? 0, dt_s, cockpit);
      const view = cameraView(st.mode, car, { prev: st.prev, dt_s, head_yaw_rad: st.head_yaw_rad, chase, cockpit });
      st.prev = view ? view.position : null;
      st.view = view;
      return view;
    },
  };
}

/** Puts a view on a three.js camera. toScene(x, y, z) maps city metres to a THREE.Vector3
 *  (drive/index.js's). Sets the near plane when it differs (updates the projection). */
export function applyView(camera, view, toScene) {
  const o = toScene(0, 0, 0);
  camera.position.copy(toScene(view.position.x, view.position.y, view.position.z));
  camera.up.copy(toScene(view.up.x, view.up.y, view.up.z).sub(o).normalize());
  camera.lookAt(toScene(view.target.x, view.target.y, view.target.z));
  if (view.near_m && camera.near !== view.near_m && camera.updateProjectionMatrix) {
    camera.near = view.near_m;
    camera.updateProjectionMatrix();
  }
  camera.updateMatrixWorld();
}

/** The drive module's camera hooks around a controller: placeCamera(state, dt, {toScene})
 *  (drive/index.js's ctx.placeCamera signature; returns true: the camera is placed) puts the
 *  view on `camera`, hands the camera to the orbit controls (`rig.enabled`) in free mode and
 *  carries it along with the car there; viewHeading(state) gives the look direction's
 *  heading (the state's heading before the first frame; in free mode the camera's, via
 *  fromScene); setInput(targets) passes the frame's input (camera_next, look); release() on
 *  stop restores the near plane and the orbit controls. */
export function createCameraHooks({ camera, rig = null, fromScene = null, mode = 'chase', cockpit = COCKPIT, chase = CHASE }) {
  const controller = createCameraController({ mode, cockpit, chase });
  let input = {};
  let freeAt = null;
  let nearBefore = null;
  return {
    controller,
    setInput(t) {
      input = t || {};
    },
    placeCamera(state, dt_s, { toScene }) {
      if (nearBefore === null) nearBefore = camera.near;
      const view = controller.update(state, dt_s, input);
      input = { ...input, camera_next: false }; // one mode change per press
      const here = toScene(state.x, state.y, state.z);
      if (rig) {
        // Every frame: main.js's drive.start wrapper disables the rig after the first one.
        rig.enabled = controller.mode === 'free';
        if (controller.changed && controller.mode === 'free' && rig.controls) {
          rig.controls.target.copy(here);
          rig.controls.update?.();
        }
      }
      if (view) {
        freeAt = null;
        applyView(camera, view, toScene);
        return true;
      }
      if (freeAt) {
        const d = here.clone().sub(freeAt);
        camera.position.add(d);
        if (rig && rig.controls) rig.controls.target.add(d);
      }
      freeAt = here;
      return true;
    },
    viewHeading(state = null) {
      if (controller.view) return controller.view.view_heading_rad;
      if (controller.mode !== 'free' || !fromScene) return state ? state.heading_rad : null;
      const d = camera.getWorldDirection(camera.position.clone());
      const a = fromScene(camera.position.clone().set(0, 0, 0));
      const b = fromScene(d);
      return viewHeadingOf(b.x - a.x, b.y - a.y, b.z - a.z);
    },
    release() {
      if (nearBefore !== null && camera.updateProjectionMatrix) {
        camera.near = nearBefore;
        camera.updateProjectionMatrix();
      }
      nearBefore = null;
      freeAt = null;
      input = {};
      controller.reset();
      if (rig) rig.enabled = true;
    },
  };
}
