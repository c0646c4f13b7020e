// SPDX-License-Identifier: Apache-2.0
// Vehicle lights of every simulated vehicle in one draw call: one InstancedMesh of camera-
// facing glow quads (a lamp an instance; the instance matrix holds its position, the direction
// it shines and its size, the instance colour its colour times intensity). Headlights (white,
// front) and tail lights (dim red) are on at dusk and night and in rain, storm or fog; brake
// lights (bright red) and indicators (amber, 1.5 Hz) work day and night. Where a lamp's state
// comes from is in docs/drive.md "Lights": the stream's and the recording's per-vehicle flags
// (braking, waiting, indicate left / right), the speed drop between frames and, for player cars
// (no flags), the sideways motion of the front axle. Also the player's headlight spots.

import * as THREE from 'three';

import { TWILIGHT_DEG } from './sky.js';

/// Frame flag bits (docs/recording.md, traffic::SampleFlag).
export const FLAG_BRAKING = 1;
export const FLAG_WAITING = 4;
export const FLAG_NEW = 8;
export const FLAG_LEFT = 16;
export const FLAG_RIGHT = 32;
/// Lamp state bits lampStates returns per vehicle.
export const LAMP_BRAKE = 1;
export const LAMP_LEFT = 2;
export const LAMP_RIGHT = 4;

const KIND_PLAYER = 4;
const KIND_PEDESTRIAN = 5;
/// Brake lights when the speed drops faster than this between frames (m/s^2)...
export const BRAKE_DECEL_MPS2 = 1.0;
/// ...or the vehicle stands (m/s): a driver holds the brake while stopped.
export const STOPPED_MPS = 0.3;
/// Player cars: indicate when the front axle moves sideways faster than this (m/s)...
export const INDICATE_LATERAL_MPS = 0.35;
/// ...and keep indicating this long after it stops (s of stream time).
export const INDICATE_HOLD_S = 1.0;
export const BLINK_HZ = 1.5;

/// Lamp placement per vehicle kind (car, van, bus, truck, player), matching agents.js's
/// shapes; metres from the front axle: front / rear face (+ forward), half width, lamp heights.
const LAYOUT = [
  { front: 0.9, rear: -3.6, half: 0.92, head_up: 0.72, tail_up: 0.85 },
  { front: 0.9, rear: -4.3, half: 1.0, head_up: 0.8, tail_up: 0.95 },
  { front: 2.2, rear: -9.8, half: 1.25, head_up: 0.75, tail_up: 1.0 },
  { front: 1.0, rear: -8.6, half: 1.25, head_up: 0.9, tail_up: 1.1 },
  { front: 0.9, rear: -3.7, half: 0.95, head_up: 0.72, tail_up: 0.85 },
];
/// Lamp looks: linear colour, intensity, glow diameter (m).
export const LAMP = Object.freeze({
  head: { rgb: [1.0, 0.93, 0.8], intensity: 1.0, size_m: 0.8 },
  tail: { rgb: [1.0, 0.04, 0.02], intensity: 0.35, size_m: 0.5 },
  brake: { rgb: [1.0, 0.04, 0.02], intensity: 1.0, size_m: 0.8 },
  indicator: { rgb: [1.0, 0.5, 0.03], intensity: 1.0, size_m: 0.6 },
});
const MAX_LAMPS_PER_VEHICLE = 6; // 2 head, 2 tail / brake, 2 indicators (one side)

/// Whether headlights and tail lights are on: the sun under the street lights' threshold
/// (sky.js TWILIGHT_DEG), or rain, storm or fog.
export function lightsOnFor(elevation_deg, weather_kind = 'clear', fog = false) {
  return elevation_deg < TWILIGHT_DEG || weather_kind === 'rain' || weather_kind === 'storm' || weather_kind === 'fog' || !!fog;
}

function wrap(a) {
  return a - Math.floor((a + Math.PI) / (2 * Math.PI)) * 2 * Math.PI;
}

/// Lamp bits (LAMP_BRAKE | LAMP_LEFT | LAMP_RIGHT) for every agent of frame b (0 for
/// pedestrians). `a`: the frame before (or null), `match`: b index -> a index or -1
/// (Agents.match). `hold`: a Map kept by the caller across frames for the player cars'
/// derived indicators (id -> {bits, until_s}); null: no hold.
export function lampStates(a, b, match, hold = null, out = null) {
  const n = b.count;
  const bits = out && out.length >= n ? out.fill(0, 0, n) : new Uint8Array(n);
  const dt = a && b.time_s > a.time_s ? b.time_s - a.time_s : 0;
  const t = b.time_s ?? 0;
  for (let i = 0; i < n; i++) {
    const kind = b.kinds[i];
    if (kind === KIND_PEDESTRIAN) continue;
    const f = b.flags ? b.flags[i] : 0;
    const j = match && !(f & FLAG_NEW) ? match[i] : -1;
    let s = 0;
    if (f & (FLAG_BRAKING | FLAG_WAITING) || b.speed[i] < STOPPED_MPS) s |= LAMP_BRAKE;
    if (j >= 0 && dt > 0 && (a.speed[j] - b.speed[i]) / dt > BRAKE_DECEL_MPS2) s |= LAMP_BRAKE;
    if (kind !== KIND_PLAYER) {
      // Simulated vehicles: the simulation's turn signal (lane change, or a turn within 30 m).
      if (f & FLAG_LEFT) s |= LAMP_LEFT;
      if (f & FLAG_RIGHT) s |= LAMP_RIGHT;
    } else if (j >= 0 && dt > 0) {
      // Player cars send no flags: the front axle's sideways speed across the mean heading
      // (a lane change, or steering into a turn; a long curve stays under the threshold).
      const hm = a.heading[j] + 0.5 * wrap(b.heading[i] - a.heading[j]);
      const lat = (-Math.sin(hm) * (b.x[i] - a.x[j]) + Math.cos(hm) * (b.y[i] - a.y[j])) / dt;
      let side = 0;
      if (lat > INDICATE_LATERAL_MPS) side = LAMP_LEFT;
      else if (lat < -INDICATE_LATERAL_MPS) side = LAMP_RIGHT;
      if (hold) {
        const h = hold.get(b.ids[i]);
        if (side) hold.set(b.ids[i], { bits: side, until_s: t + INDICATE_HOLD_S });
        else if (h && t <= h.until_s) side = h.bits;
        else if (h) hold.delete(b.ids[i]);
      }
      s |= side;
    }
    bits[i] = s;
  }
  return bits;
}

/// Blink phase of a vehicle in [0, 1): real indicators are not in step with each other.
export function blinkPhase(id) {
  let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/// Whether an indicator with this phase is lit at time_s (1.5 Hz, half the period on).
export function blinkOn(time_s, phase) {
  const x = time_s * BLINK_HZ + phase;
  return x - Math.floor(x) < 0.5;
}

const VERTEX = /* glsl */ `
  #include <common>
  #include <fog_pars_vertex>
  uniform float uViewportH;
  uniform float uMinPx;
  varying vec3 vColor;
  varying vec2 vUv;
  varying float vFade;
  void main() {
    vec4 centre = modelViewMatrix * instanceMatrix * vec4(0.0, 0.0, 0.0, 1.0);
    vec3 facing = normalize((modelViewMatrix * instanceMatrix * vec4(1.0, 0.0, 0.0, 0.0)).xyz);
    float size = length(instanceMatrix[0].xyz);
    vec3 toEye = isOrthographic ? vec3(0.0, 0.0, 1.0) : normalize(-centre.xyz);
    // A lamp is seen from the side it shines to; it fades out past 90 degrees.
    vFade = smoothstep(-0.15, 0.4, dot(facing, toEye));
    float depth = max(-centre.z, 1e-3);
    float px = (isOrthographic ? 2.0 : 2.0 * depth) / (projectionMatrix[1][1] * uViewportH);
    float shown = max(size, uMinPx * px);
    vFade *= clamp(size / shown, 0.35, 1.0);
    vColor = instanceColor;
    vUv = position.xy * 2.0;
    centre.xy += position.xy * shown;
    gl_Position = projectionMatrix * centre;
    #ifdef USE_FOG
      vFogDepth = depth;
    #endif
  }`;

const FRAGMENT = /* glsl */ `
  #include <common>
  #include <fog_pars_fragment>
  varying vec3 vColor;
  varying vec2 vUv;
  varying float vFade;
  void main() {
    float r2 = dot(vUv, vUv);
    if (r2 > 1.0) discard;
    float glow = exp(-r2 * 5.0) * (1.0 - r2) + 0.6 * exp(-r2 * 40.0);
    vec3 col = vColor * glow * vFade;
    #if defined(USE_FOG) && !defined(FOG_EXP2)
      // Lamps shine through fog farther than the fog shows buildings.
      col *= 1.0 - smoothstep(fogNear, fogFar * 1.5, vFogDepth);
    #endif
    gl_FragColor = vec4(col, 1.0);
    #include <colorspace_fragment>
  }`;

function lampMaterial() {
  return new THREE.ShaderMaterial({
    name: 'vehicle_lights',
    uniforms: THREE.UniformsUtils.merge([
      THREE.UniformsLib.fog,
      { uViewportH: { value: 1080 }, uMinPx: { value: 2.0 } },
    ]),
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
    transparent: true,
    depthWrite: false,
    blending: THREE.AdditiveBlending,
    fog: true,
    toneMapped: false,
  });
}

/// All vehicles' lamps as one InstancedMesh under `parent` (agents.group: hidden with the
/// agents). update(agents, time_s) each frame after agents.update.
export class VehicleLights {
  constructor(parent, { capacity = 4096 } = {}) {
    this.parent = parent;
    this.geometry = new THREE.PlaneGeometry(1, 1);
    this.material = lampMaterial();
    this.on = false; // headlights and tail lights
    this.maxDistance_m = 1500; // lamps of vehicles farther than this from the viewer are not drawn
    this.hold = new Map();
    this.bits = new Uint8Array(0);
    this.frame = null;
    this.stats = { vehicles: 0, lamps: 0, braking: 0, indicating: 0, draw_calls: 0 };
    this.mesh = this.makeMesh(capacity);
  }

  makeMesh(capacity) {
    const mesh = new THREE.InstancedMesh(this.geometry, this.material, capacity);
    mesh.name = 'vehicle_lights';
    mesh.count = 0;
    mesh.visible = false;
    mesh.frustumCulled = false; // instances move every frame
    mesh.renderOrder = 2; // after the opaque city and agents
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    mesh.userData.capacity = capacity;
    mesh.onBeforeRender = (renderer) => {
      const h = renderer.getDrawingBufferSize ? renderer.getDrawingBufferSize(this._size || (this._size = new THREE.Vector2())).y : 0;
      if (h > 0) this.material.uniforms.uViewportH.value = h;
    };
    this.parent.add(mesh);
    return mesh;
  }

  /// Headlights and tail lights on or off (lightsOnFor).
  setOn(on) {
    this.on = !!on;
  }

  ensureCapacity(n) {
    if (n <= this.mesh.userData.capacity) return;
    let cap = this.mesh.userData.capacity;
    while (cap < n) cap *= 2;
    this.parent.remove(this.mesh);
    this.mesh.dispose();
    this.mesh = this.makeMesh(cap);
  }

  /// Rebuilds the lamp instances from the agents' last update (agents.vehiclePoses) at time_s
  /// (wall or stream seconds: only the blinking uses it). Returns this.stats.
  update(agents, time_s) {
    const b = agents.b;
    const poses = agents.vehiclePoses;
    if (!b || !poses) {
      this.mesh.count = 0;
      this.mesh.visible = false;
      this.stats = { vehicles: 0, lamps: 0, braking: 0, indicating: 0, draw_calls: 0 };
      return this.stats;
    }
    if (this.frame !== b) {
      this.frame = b;
      this.bits = lampStates(agents.a, b, agents.match, this.hold, this.bits);
    }
    this.ensureCapacity(poses.count * MAX_LAMPS_PER_VEHICLE);
    const m = this.mesh.instanceMatrix.array;
    const col = this.mesh.instanceColor.array;
    const vx = agents.viewer ? agents.viewer.x : 0;
    const vy = agents.viewer ? -agents.viewer.z : 0;
    const max2 = this.maxDistance_m ** 2;
    const on = this.on;
    let k = 0;
    let vehicles = 0;
    let braking = 0;
    let indicating = 0;
    // One lamp: city position from the front axle (fwd, left, up); it faces the heading
    // (dir 1) or the opposite way (dir -1).
    const lamp = (x, y, z, c, s, fwd, left, up, dir, look) => {
      const cf = c * dir;
      const sf = s * dir;
      const S = look.size_m;
      const o = k * 16;
      m[o] = cf * S; m[o + 1] = 0; m[o + 2] = -sf * S; m[o + 3] = 0;
      m[o + 4] = 0; m[o + 5] = S; m[o + 6] = 0; m[o + 7] = 0;
      m[o + 8] = sf * S; m[o + 9] = 0; m[o + 10] = cf * S; m[o + 11] = 0;
      m[o + 12] = x + c * fwd - s * left;
      m[o + 13] = z + up;
      m[o + 14] = -(y + s * fwd + c * left);
      m[o + 15] = 1;
      const q = k * 3;
      col[q] = look.rgb[0] * look.intensity;
      col[q + 1] = look.rgb[1] * look.intensity;
      col[q + 2] = look.rgb[2] * look.intensity;
      k++;
    };
    for (let p = 0; p < poses.count; p++) {
      const i = poses.index[p];
      const x = poses.x[p];
      const y = poses.y[p];
      if ((x - vx) ** 2 + (y - vy) ** 2 > max2) continue;
      const bits = this.bits[i];
      const blink = bits & (LAMP_LEFT | LAMP_RIGHT) ? blinkOn(time_s, blinkPhase(b.ids[i])) : false;
      const brake = (bits & LAMP_BRAKE) !== 0;
      if (!on && !brake && !blink) continue;
      const L = LAYOUT[b.kinds[i]] || LAYOUT[0];
      const z = poses.z[p];
      const h = poses.heading[p];
      const c = Math.cos(h);
      const s = Math.sin(h);
      const back = -1;
      const side = L.half - 0.3;
      vehicles++;
      if (brake) braking++;
      if (bits & (LAMP_LEFT | LAMP_RIGHT)) indicating++;
      if (on) {
        lamp(x, y, z, c, s, L.front + 0.06, side, L.head_up, 1, LAMP.head);
        lamp(x, y, z, c, s, L.front + 0.06, -side, L.head_up, 1, LAMP.head);
      }
      if (on || brake) {
        const look = brake ? LAMP.brake : LAMP.tail;
        lamp(x, y, z, c, s, L.rear - 0.06, side, L.tail_up, back, look);
        lamp(x, y, z, c, s, L.rear - 0.06, -side, L.tail_up, back, look);
      }
      if (blink) {
        const w = (bits & LAMP_LEFT ? 1 : -1) * (L.half - 0.06);
        lamp(x, y, z, c, s, L.front + 0.04, w, L.head_up + 0.05, 1, LAMP.indicator);
        lamp(x, y, z, c, s, L.rear - 0.04, w, L.tail_up + 0.05, back, LAMP.indicator);
      }
    }
    const mesh = this.mesh;
    mesh.count = k;
    mesh.visible = k > 0;
    mesh.instanceMatrix.clearUpdateRanges();
    mesh.instanceMatrix.addUpdateRange(0, k * 16);
    mesh.instanceMatrix.needsUpdate = true;
    mesh.instanceColor.clearUpdateRanges();
    mesh.instanceColor.addUpdateRange(0, k * 3);
    mesh.instanceColor.needsUpdate = true;
    this.stats = { vehicles, lamps: k, braking, indicating, draw_calls: k > 0 ? 1 : 0 };
    return this.stats;
  }

  dispose() {
    this.parent.remove(this.mesh);
    this.mesh.dispose();
    this.geometry.dispose();
    this.material.dispose();
  }
}

/// The player's headlights: `count` SpotLights (2, or 1 on the centre line) with their targets
/// in a Group in drive/mesh.js's car frame (+x forward, +y left, +z up, origin the front
/// axle on the road): add `group` to the car mesh. They stay visible (switching lights on and
/// off would recompile every lit material); setOn sets their intensity.
export function createHeadlights({
  front_m = 0.9,
  half_track_m = 0.55,
  height_m = 0.75,
  aim_m = 30, // the beam axis meets the road this far ahead
  intensity = 100,
  distance_m = 120,
  angle_rad = 0.6,
  penumbra = 0.5,
  decay = 1,
  count = 2,
} = {}) {
  const group = new THREE.Group();
  group.name = 'cityforge-player-headlights';
  const lights = [];
  const sides = count === 1 ? [0] : [half_track_m, -half_track_m];
  for (const y of sides) {
    const spot = new THREE.SpotLight(0xfff1d6, 0, distance_m, angle_rad, penumbra, decay);
    spot.name = 'headlight';
    spot.position.set(front_m + 0.05, y, height_m);
    spot.target.position.set(front_m + aim_m, y * 1.6, 0);
    spot.castShadow = false;
    group.add(spot, spot.target);
    lights.push(spot);
  }
  let on = false;
  return {
    group,
    lights,
    get on() {
      return on;
    },
    setOn(v) {
      on = !!v;
      for (const l of lights) l.intensity = on ? intensity : 0;
    },
    dispose() {
      for (const l of lights) l.dispose();
      group.removeFromParent();
    },
  };
}
