// SPDX-License-Identifier: Apache-2.0
// The agents' near models, generated here (no external art): a rigged low-poly person with
// 11 bones animated in the vertex shader (idle, walk and run blended by speed; seeds/002's
// "cheap animation system": rigid bones, two blended cycles), with colour-matched clothes
// and accessories shown per appearance variant (every body carries every accessory, the
// shader hides those it does not wear), and low-poly car, van, bus and truck bodies whose
// wheels roll with the distance driven and whose front wheels steer with the path's curve.
// LOD transitions are dithered: an agent in a transition band is drawn by both levels with
// complementary screen-door masks (a 4x4 Bayer matrix), so it fades instead of popping.
//
// Local frame of every model (as agents.js places them): +x forward, +y up, +z right, origin
// on the ground (the feet; a vehicle's front axle).

import * as THREE from 'three';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';

/// The person's bones; BONE_PIVOTS gives each one's joint (local metres) and its parent.
export const BONES = ['pelvis', 'spine', 'head', 'thigh.l', 'shin.l', 'thigh.r', 'shin.r',
  'upperarm.l', 'forearm.l', 'upperarm.r', 'forearm.r'];
/// Parts of the body, for colours; 5 and above are accessories shown by a bit of the variant.
export const PARTS = ['skin', 'top', 'bottom', 'shoes', 'hair', 'cap', 'backpack', 'bag', 'long-hair'];
const P = Object.fromEntries(PARTS.map((p, i) => [p, i]));
const B = Object.fromEntries(BONES.map((b, i) => [b, i]));
export const ACCESSORY_BITS = { cap: 1, backpack: 2, bag: 4, 'long-hair': 8 };

// Joint positions (m). Left is -z.
const HIP_Y = 0.92, KNEE_Y = 0.5, ANKLE_Y = 0.09, LEG_Z = 0.095;
const SHOULDER_Y = 1.43, ELBOW_Y = 1.16, WRIST_Y = 0.9, ARM_Z = 0.215;
const WAIST_Y = 0.97;

/// A surface of revolution around the axis from `origin` along `axis`: `profile` lists
/// [h, r] pairs (h along the axis, r the radius; r = 0 closes a pole), `sides` segments around,
/// the cross-section stretched by sx along the frame's first perpendicular and sz the second.
function lathe(origin, axis, profile, sides, bone, part, sx = 1, sz = 1) {
  const a = new THREE.Vector3(...axis).normalize();
  const o = new THREE.Vector3(...origin);
  // Perpendiculars: u in the x-y plane where possible (forward for vertical axes), w = a x u.
  const ref = Math.abs(a.z) > 0.9 ? new THREE.Vector3(1, 0, 0) : new THREE.Vector3(0, 0, 1);
  const w = new THREE.Vector3().crossVectors(a, ref).normalize();
  const u = new THREE.Vector3().crossVectors(w, a).normalize();
  const pos = [];
  const idx = [];
  for (const [h, r] of profile) {
    for (let s = 0; s < sides; s++) {
      const t = (s / sides) * Math.PI * 2;
      const p = o.clone().addScaledVector(a, h)
        .addScaledVector(u, Math.cos(t) * r * sx).addScaledVector(w, Math.sin(t) * r * sz);
      pos.push(p.x, p.y, p.z);
    }
  }
  for (let k = 0; k + 1 < profile.length; k++) {
    for (let s = 0; s < sides; s++) {
      const i0 = k * sides + s, i1 = k * sides + ((s + 1) % sides);
      const j0 = i0 + sides, j1 = i1 + sides;
      // Outward winding seen from outside (counter-clockwise).
      if (profile[k][1] > 0) idx.push(i0, j0, i1);
      if (profile[k + 1][1] > 0) idx.push(i1, j0, j1);
    }
  }
  // Flat ends where the profile does not close at a pole.
  const cap = (k, flip) => {
    if (profile[k][1] <= 0) return;
    for (let s = 1; s + 1 < sides; s++) {
      const i = [k * sides, k * sides + s, k * sides + s + 1];
      idx.push(...(flip ? [i[0], i[2], i[1]] : i));
    }
  };
  cap(0, false);
  cap(profile.length - 1, true);
  return withRig(pos, idx, bone, part);
}

function withRig(pos, idx, bone, part) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.setIndex(idx);
  g.computeVertexNormals();
  const n = pos.length / 3;
  g.setAttribute('aRig', new THREE.Float32BufferAttribute(new Float32Array(n * 2).map((_, i) => (i % 2 ? part : bone)), 2));
  return g;
}

/// A capsule-like limb from p0 to p1 (radii r0, r1), rounded ends.
function limb(p0, p1, r0, r1, bone, part, sides = 8) {
  const a = new THREE.Vector3(...p1).sub(new THREE.Vector3(...p0));
  const L = a.length();
  const e0 = r0 * 0.7, e1 = r1 * 0.7;
  return lathe(p0, a.toArray(), [[-e0, 0], [-e0 * 0.6, r0 * 0.8], [0, r0], [L, r1], [L + e1 * 0.6, r1 * 0.8], [L + e1, 0]],
    sides, bone, part);
}

function sphere(c, r, bone, part, rings = 6, sides = 10, sx = 1, sz = 1) {
  const prof = [];
  for (let k = 0; k <= rings; k++) {
    const t = (k / rings) * Math.PI;
    prof.push([-Math.cos(t) * r, Math.sin(t) * r]);
  }
  return lathe(c, [0, 1, 0], prof, sides, bone, part, sx, sz);
}

function rigBox(x0, y0, z0, sx, sy, sz, bone, part) {
  const g = new THREE.BoxGeometry(sx, sy, sz).toNonIndexed();
  g.translate(x0 + sx / 2, y0 + sy / 2, z0 + sz / 2);
  g.deleteAttribute('uv');
  const n = g.attributes.position.count;
  g.setAttribute('aRig', new THREE.Float32BufferAttribute(new Float32Array(n * 2).map((_, i) => (i % 2 ? part : bone)), 2));
  const idx = [];
  for (let i = 0; i < n; i++) idx.push(i);
  g.setIndex(idx);
  return g;
}

/// The rigged person, 1.75 m tall, origin between the feet, facing +x.
export function personModel() {
  const parts = [];
  for (const side of [-1, 1]) {
    const z = side * LEG_Z;
    const l = side < 0;
    parts.push(limb([0, HIP_Y, z], [0.01, KNEE_Y, z], 0.078, 0.06, l ? B['thigh.l'] : B['thigh.r'], P.bottom));
    parts.push(limb([0.01, KNEE_Y, z], [0, ANKLE_Y + 0.02, z], 0.058, 0.045, l ? B['shin.l'] : B['shin.r'], P.bottom));
    parts.push(lathe([-0.05, 0.045, z], [1, 0, 0], [[-0.03, 0], [0, 0.045], [0.16, 0.045], [0.22, 0]], 6,
      l ? B['shin.l'] : B['shin.r'], P.shoes, 1, 1.15));
    const az = side * ARM_Z;
    parts.push(limb([0, SHOULDER_Y, az], [0, ELBOW_Y, az + side * 0.01], 0.052, 0.045, l ? B['upperarm.l'] : B['upperarm.r'], P.top));
    parts.push(limb([0, ELBOW_Y, az + side * 0.01], [0.01, WRIST_Y, az + side * 0.015], 0.042, 0.034, l ? B['forearm.l'] : B['forearm.r'], P.skin));
    parts.push(sphere([0.01, WRIST_Y - 0.05, az + side * 0.015], 0.043, l ? B['forearm.l'] : B['forearm.r'], P.skin, 4, 6));
  }
  // Pelvis and torso: elliptical sections, deeper than wide at the chest.
  parts.push(lathe([0, 0.82, 0], [0, 1, 0], [[0, 0.15], [0.1, 0.17], [0.2, 0.16]], 10, B.pelvis, P.bottom, 0.62, 1));
  parts.push(lathe([0, WAIST_Y, 0], [0, 1, 0],
    [[0, 0.15], [0.18, 0.165], [0.36, 0.19], [0.47, 0.19], [0.53, 0.12], [0.56, 0]], 10, B.spine, P.top, 0.6, 1));
  parts.push(limb([0, 1.5, 0], [0, 1.58, 0], 0.052, 0.05, B.spine, P.skin, 8));
  parts.push(sphere([0.005, 1.655, 0], 0.105, B.head, P.skin, 6, 10, 1.12, 0.92));
  parts.push(sphere([-0.012, 1.675, 0], 0.112, B.head, P.hair, 6, 10, 1.1, 0.95).translate(0, 0, 0));
  parts.push(limb([-0.07, 1.64, 0], [-0.085, 1.42, 0], 0.085, 0.075, B.head, P['long-hair'], 8));
  // Cap: a dome and a brim towards the front.
  parts.push(lathe([0.0, 1.68, 0], [0, 1, 0], [[0, 0.118], [0.05, 0.105], [0.09, 0.06], [0.105, 0]], 10, B.head, P.cap, 1.1, 0.98));
  parts.push(rigBox(0.04, 1.68, -0.085, 0.13, 0.018, 0.17, B.head, P.cap));
  parts.push(rigBox(-0.25, 1.02, -0.14, 0.14, 0.38, 0.28, B.spine, P.backpack));
  parts.push(rigBox(-0.06, 0.78, 0.17, 0.17, 0.2, 0.06, B.pelvis, P.bag));
  const g = mergeGeometries(parts);
  g.name = 'person';
  return g;
}

/// Triangles of a geometry (indexed or not).
export function triangleCount(g) {
  return (g.index ? g.index.count : g.attributes.position.count) / 3;
}

// Vehicles ------------------------------------------------------------------------------------

/// A side profile (x, y points, counter-clockwise seen from +z) extruded from z0 to z1.
function extrude(profile, z0, z1, shade, paint) {
  const shape = profile.map(([x, y]) => new THREE.Vector2(x, y));
  const tris = THREE.ShapeUtils.triangulateShape(shape, []);
  const pos = [];
  const push = (x, y, z) => pos.push(x, y, z);
  for (const [a, b, c] of tris) {
    // Right side (+z) counter-clockwise as seen from +z; left side reversed.
    for (const k of [a, b, c]) push(profile[k][0], profile[k][1], z1);
    for (const k of [a, c, b]) push(profile[k][0], profile[k][1], z0);
  }
  const n = profile.length;
  for (let i = 0; i < n; i++) {
    const [x0, y0] = profile[i];
    const [x1, y1] = profile[(i + 1) % n];
    push(x0, y0, z0); push(x1, y1, z0); push(x1, y1, z1);
    push(x0, y0, z0); push(x1, y1, z1); push(x0, y0, z1);
  }
  return vehiclePart(pos, shade, paint);
}

function vehiclePart(pos, shade, paint, wheel = [0, 0, 0, 0]) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.computeVertexNormals();
  const n = pos.length / 3;
  const col = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) col.set(shade, i * 3);
  g.setAttribute('color', new THREE.BufferAttribute(col, 3));
  g.setAttribute('aPaint', new THREE.Float32BufferAttribute(new Float32Array(n).fill(paint), 1));
  const wa = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) wa.set(wheel, i * 4);
  g.setAttribute('aWheel', new THREE.BufferAttribute(wa, 4));
  return g;
}

/// A wheel of radius r and width w centred at (x, r, z); kind 1 rolls, 2 rolls and steers.
function wheel(x, r, z, w, kind, sides = 12) {
  const pos = [];
  const ring = (zz, rr) => Array.from({ length: sides }, (_, s) => {
    const t = (s / sides) * Math.PI * 2;
    return [x + Math.cos(t) * rr, r + Math.sin(t) * rr, zz];
  });
  const o = ring(z - w / 2, r), i = ring(z + w / 2, r);
  for (let s = 0; s < sides; s++) {
    const s1 = (s + 1) % sides;
    pos.push(...o[s], ...o[s1], ...i[s1], ...o[s], ...i[s1], ...i[s]);
  }
  const tyre = vehiclePart(pos, [0.05, 0.05, 0.055], 0, [x, r, z, kind]);
  // Hubs: a lighter disc on each face, with spokes of tyre colour so the turning shows.
  const hub = [];
  for (const [zz, flip] of [[z + w / 2 + 0.002, false], [z - w / 2 - 0.002, true]]) {
    const rim = ring(zz, r * 0.62);
    for (let s = 0; s < sides; s++) {
      const s1 = (s + 1) % sides;
      const tri = flip ? [[x, r, zz], rim[s1], rim[s]] : [[x, r, zz], rim[s], rim[s1]];
      hub.push(...tri.flat());
    }
  }
  const hubs = vehiclePart(hub, [0.62, 0.63, 0.66], 0, [x, r, z, kind]);
  // Darken every other hub segment: spokes that show the wheel's rotation.
  const hc = hubs.attributes.color.array;
  for (let t = 0; t < hub.length / 9; t++) {
    if ((t % sides) % 3 !== 0) continue;
    for (let k = 0; k < 3; k++) hc.set([0.18, 0.18, 0.2], (t * 3 + k) * 3);
  }
  return [tyre, hubs];
}

const GLASS = [0.06, 0.08, 0.1];
const TRIM = [0.12, 0.12, 0.13];
const LAMP = [0.95, 0.93, 0.85];
const TAIL = [0.6, 0.05, 0.04];

/// Glass: the cabin's profile grown by a centimetre and 1 cm wider than the body, so it covers
/// the windscreen, the rear window and a band of side windows while the roof stays paint.
function glass(profile, W) {
  return extrude(profile, -W / 2 - 0.01, W / 2 + 0.01, GLASS, 0);
}

function lights(xFront, xRear, y, W) {
  return [
    vehiclePart(quadX(xFront + 0.003, y, y + 0.12, W / 2 - 0.35, W / 2 - 0.1, true), LAMP, 0),
    vehiclePart(quadX(xFront + 0.003, y, y + 0.12, -W / 2 + 0.1, -W / 2 + 0.35, true), LAMP, 0),
    vehiclePart(quadX(xRear - 0.003, y, y + 0.1, W / 2 - 0.3, W / 2 - 0.08, false), TAIL, 0),
    vehiclePart(quadX(xRear - 0.003, y, y + 0.1, -W / 2 + 0.08, -W / 2 + 0.3, false), TAIL, 0),
  ];
}

/// A quad at constant x facing +x (front) or -x.
function quadX(x, y0, y1, z0, z1, front) {
  const a = [x, y0, z0], b = [x, y0, z1], c = [x, y1, z1], d = [x, y1, z0];
  return front ? [...a, ...c, ...b, ...a, ...d, ...c] : [...a, ...b, ...c, ...a, ...c, ...d];
}

/// Car, player car and van: length L, width W; origin at the front axle on the road.
function carModel(kind) {
  const W = kind === 'van' ? 2.0 : kind === 'player' ? 1.9 : 1.85;
  const r = kind === 'van' ? 0.36 : 0.33;
  const parts = [];
  let profile, cabin, front, rear, base;
  if (kind === 'van') {
    front = 0.95; rear = -4.25; base = 3.2;
    profile = [[front, 0.32], [front + 0.02, 0.9], [0.55, 1.15], [-0.25, 2.22], [rear + 0.05, 2.28], [rear, 2.2], [rear, 0.32]];
    cabin = [[0.5, 1.17], [-0.24, 2.12], [-1.2, 2.12], [-1.2, 1.17]];
  } else {
    front = 0.9; rear = -3.6; base = 2.7;
    profile = [[front, 0.3], [front + 0.03, 0.72], [0.25, 0.92], [-0.35, 0.97], [-1.1, 1.42], [-2.55, 1.44],
      [-3.2, 1.02], [rear + 0.02, 0.95], [rear, 0.32]];
    cabin = [[-0.33, 0.96], [-1.08, 1.41], [-2.57, 1.43], [-3.18, 1.01]];
  }
  parts.push(extrude(profile, -W / 2, W / 2, [1, 1, 1], 1));
  parts.push(glass(cabin.map(([x, y]) => [x, y]), W));
  parts.push(extrude([[front + 0.05, 0.26], [front + 0.05, 0.45], [front - 0.1, 0.45], [front - 0.1, 0.26]], -W / 2 - 0.02, W / 2 + 0.02, TRIM, 0));
  parts.push(extrude([[rear + 0.1, 0.26], [rear + 0.1, 0.45], [rear - 0.05, 0.45], [rear - 0.05, 0.26]], -W / 2 - 0.02, W / 2 + 0.02, TRIM, 0));
  parts.push(...lights(front + 0.02, rear, kind === 'van' ? 0.8 : 0.62, W));
  for (const [x, k] of [[0, 2], [-base, 1]]) {
    for (const z of [-W / 2 + 0.13, W / 2 - 0.13]) parts.push(...wheel(x, r, z, 0.24, k));
  }
  return mergeGeometries(parts);
}

function busModel() {
  const L = 12, W = 2.5, H = 3.1, front = 2.3, rear = front - L, r = 0.5;
  const parts = [extrude([[front, 0.35], [front + 0.05, H - 0.2], [front - 0.1, H], [rear, H], [rear, 0.35]], -W / 2, W / 2, [1, 1, 1], 1)];
  // Windscreen and a band of side windows.
  parts.push(glass([[front + 0.06, 1.0], [front + 0.06, H - 0.25], [front - 1.0, H - 0.25], [front - 1.0, 1.0]], W));
  parts.push(glass([[front - 1.1, 1.35], [front - 1.1, H - 0.35], [rear + 0.4, H - 0.35], [rear + 0.4, 1.35]], W));
  parts.push(...lights(front + 0.06, rear, 0.6, W));
  for (const [x, k] of [[0, 2], [rear + 3.0, 1]]) {
    for (const z of [-W / 2 + 0.17, W / 2 - 0.17]) parts.push(...wheel(x, r, z, 0.32, k));
  }
  return mergeGeometries(parts);
}

function truckModel() {
  const W = 2.5, r = 0.5;
  const parts = [
    extrude([[1.3, 0.45], [1.35, 1.5], [1.1, 2.9], [-0.95, 2.95], [-0.95, 0.45]], -W / 2, W / 2, [1, 1, 1], 1),
    extrude([[-1.15, 0.95], [-1.15, 3.9], [-8.6, 3.9], [-8.6, 0.95]], -W / 2, W / 2, [0.86, 0.87, 0.88], 0),
    extrude([[-0.95, 0.55], [-0.95, 0.95], [-8.6, 0.95], [-8.6, 0.55]], -W / 2 + 0.3, W / 2 - 0.3, TRIM, 0),
  ];
  parts.push(glass([[1.37, 1.55], [1.14, 2.72], [-0.2, 2.72], [-0.2, 1.55]], W));
  parts.push(...lights(1.36, -8.6, 0.75, W));
  for (const [x, k] of [[0, 2], [-5.8, 1], [-7.1, 1]]) {
    for (const z of [-W / 2 + 0.17, W / 2 - 0.17]) parts.push(...wheel(x, r, z, 0.34, k));
  }
  return mergeGeometries(parts);
}

/// The near model of a vehicle kind ('car', 'van', 'bus', 'truck', 'player').
export function vehicleModel(kind) {
  const g = kind === 'bus' ? busModel() : kind === 'truck' ? truckModel() : carModel(kind);
  g.name = kind;
  return g;
}

/// Front axle to rear axle (m), for the steering angle from the path's curvature.
export const WHEELBASE = { car: 2.7, player: 2.7, van: 3.2, bus: 7.3, truck: 6.45 };
/// Wheel radius (m), for the rolling angle from the distance driven.
export const WHEEL_RADIUS = { car: 0.33, player: 0.33, van: 0.36, bus: 0.5, truck: 0.5 };

// Animation -----------------------------------------------------------------------------------

/// Gait in [0, 2] from speed (m/s): 0 standing, 1 walking (from 1 m/s), 2 running (from 3.2).
export function gaitOf(speed) {
  if (speed <= 0.15) return 0;
  if (speed < 1.0) return (speed - 0.15) / 0.85;
  if (speed <= 2.2) return 1;
  return Math.min(2, 1 + (speed - 2.2));
}

/// Metres travelled per full cycle (two steps) at gait g: 1.4 m walking, 2.8 m running.
export function cycleLength(g) {
  return g <= 1 ? 1.4 : 1.4 + (g - 1) * 1.4;
}

/// Colour matching: tops and bottoms whose brightness differs, so an outfit reads as two
/// pieces; a bottom is drawn among those at least 0.12 apart in luminance from the top.
export const TOPS = [0x3a4a8c, 0x8c3a3a, 0x2e2e2e, 0xd8d0c0, 0x4f7a3a, 0x7a5a9a, 0xc07030, 0x607080,
  0xe0e0e0, 0x9c2f4f, 0x2f6f7a, 0xb8a040];
export const BOTTOMS = [0x2b3550, 0x1e1e22, 0x6a6258, 0x40506e, 0xb8ab8c, 0x3b3b40, 0x59483a, 0x8a8e94];
const SKINS = [0xf1c9a5, 0xe0ac83, 0xc68a5e, 0x9a6440, 0x6e4529, 0xf5d6bc];
const HAIR = [0x1a1410, 0x3a2618, 0x6b4a2b, 0xb08a55, 0x8a8a8a, 0x2a2a2a];
const ACCENTS = [0xc0392b, 0x2c3e50, 0x16a085, 0xf1c40f, 0x7f8c8d, 0x8e44ad];

function luminance(hex) {
  const c = new THREE.Color(hex);
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

/// Per top, the bottoms that match it (indices into BOTTOMS), made once: appearance() runs for
/// every pedestrian of every drawn frame.
const MATCHING_BOTTOMS = TOPS.map((top) =>
  BOTTOMS.map((c, i) => [c, i]).filter(([c]) => Math.abs(luminance(c) - luminance(top)) >= 0.12).map(([, i]) => i));

/// An appearance from a hash (32-bit): top colour (hex), bottom, skin, hair and accent palette
/// indices, shoes (0 dark, 1 white) and accessory bits.
export function appearance(h) {
  const top = TOPS[h % TOPS.length];
  const ok = MATCHING_BOTTOMS[h % TOPS.length];
  const bottom = ok[(h >>> 4) % ok.length];
  const skin = (h >>> 8) % SKINS.length;
  const hair = (h >>> 11) % HAIR.length;
  const accent = (h >>> 14) % ACCENTS.length;
  let acc = 0;
  const r = (k) => ((h >>> k) & 0xff) / 256;
  if (r(17) < 0.18) acc |= ACCESSORY_BITS.cap;
  if (r(21) < 0.2) acc |= ACCESSORY_BITS.backpack;
  else if (r(21) < 0.34) acc |= ACCESSORY_BITS.bag;
  if (r(24) < 0.4 && !(acc & ACCESSORY_BITS.cap)) acc |= ACCESSORY_BITS['long-hair'];
  return { top, bottom, skin, hair, accent, shoes: (h >>> 29) & 1, accessories: acc };
}

const palette = (list) => list.map((c) => new THREE.Color(c));

const BAYER_GLSL = /* glsl */ `
float cfBayer4(vec2 p) {
  int x = int(mod(p.x, 4.0)), y = int(mod(p.y, 4.0));
  int i = x + 4 * y;
  int m[16] = int[16](0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5);
  return (float(m[i]) + 0.5) / 16.0;
}`;

const DITHER_FRAGMENT = /* glsl */ `
{
  float cfB = cfBayer4(gl_FragCoord.xy);
  if (vCfFade.y < 0.5 ? cfB >= vCfFade.x : cfB < vCfFade.x) discard;
}`;

/// Adds the dithered fade to a material's shaders: per-instance aFade (threshold, side): side 0
/// keeps fragments whose Bayer value is below the threshold (the nearer level fading out), side
/// 1 keeps the others (the farther level fading in). (1, 0) draws everything.
function patchDither(shader) {
  shader.vertexShader = shader.vertexShader
    .replace('#include <common>', '#include <common>\nattribute vec2 aFade;\nvarying vec2 vCfFade;')
    .replace('#include <begin_vertex>', '#include <begin_vertex>\nvCfFade = aFade;');
  shader.fragmentShader = shader.fragmentShader
    .replace('#include <common>', `#include <common>\nvarying vec2 vCfFade;\n${BAYER_GLSL}`)
    .replace('#include <clipping_planes_fragment>', `#include <clipping_planes_fragment>\n${DITHER_FRAGMENT}`);
}

/// The material of the far and middle levels (vertex colours times instance colour), dithered.
export function plainMaterial() {
  const mat = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.6, metalness: 0.1 });
  mat.onBeforeCompile = patchDither;
  mat.customProgramCacheKey = () => 'cityforge-agents-plain';
  return mat;
}

const PERSON_VERTEX = /* glsl */ `
attribute vec2 aRig;   // bone, part
attribute vec4 aLook;  // bottom, skin, hair, accent palette indices
attribute vec4 aAnim;  // phase [0, 1), gait [0, 2], accessory bits + 16 x shoes, idle seed
uniform float uTime;
uniform float uLodMode;
uniform vec3 uBottoms[8];
uniform vec3 uSkins[6];
uniform vec3 uHair[6];
uniform vec3 uAccents[6];
varying vec3 vCfColour;

vec3 cfRotZ(vec3 p, vec3 pivot, float a) {
  vec3 d = p - pivot;
  float c = cos(a), s = sin(a);
  return pivot + vec3(c * d.x - s * d.y, s * d.x + c * d.y, d.z);
}
vec3 cfRotZn(vec3 n, float a) {
  float c = cos(a), s = sin(a);
  return vec3(c * n.x - s * n.y, s * n.x + c * n.y, n.z);
}
`;

// Joint angles (radians, about +z: positive swings a hanging limb forward) for the two cycles
// blended by gait, then the rigid chain: shin about the knee, thigh about the hip; forearm
// about the elbow, upper arm about the shoulder, the upper body about the waist (lean).
const PERSON_POSE = /* glsl */ `
float cfG = aAnim.y;
float cfWalk = clamp(cfG, 0.0, 1.0) * clamp(2.0 - cfG, 0.0, 1.0);
float cfRun = clamp(cfG - 1.0, 0.0, 1.0);
float cfMove = clamp(cfG, 0.0, 1.0);
float cfW = aAnim.x * 6.28318530718;
float cfIdle = sin(uTime * 1.7 + aAnim.w * 6.2831) * (1.0 - cfMove);
float cfSw = sin(cfW);
float cfHipAmp = 0.42 * cfWalk + 0.78 * cfRun;
float cfHipL = cfHipAmp * cfSw;
float cfHipR = -cfHipL;
// Knees flex most while the leg swings forward (cos > 0), a little in stance.
float cfKneeAmp = 0.75 * cfWalk + 1.55 * cfRun;
float cfKneeL = -(0.06 * cfMove + cfKneeAmp * max(0.0, cos(cfW - 0.4)));
float cfKneeR = -(0.06 * cfMove + cfKneeAmp * max(0.0, cos(cfW - 0.4 + 3.14159265)));
float cfArmAmp = 0.38 * cfWalk + 0.65 * cfRun;
float cfShL = -cfArmAmp * cfSw + 0.04 * cfIdle;
float cfShR = cfArmAmp * cfSw - 0.04 * cfIdle;
float cfElbow = 0.2 * cfWalk + 1.35 * cfRun + 0.08 * (1.0 - cfMove);
float cfLean = -0.04 * cfWalk - 0.2 * cfRun;
float cfBob = (0.025 * cfWalk + 0.06 * cfRun) * (0.5 - 0.5 * cos(2.0 * cfW)) - 0.01 * cfRun;
int cfBone = int(aRig.x + 0.5);
int cfPart = int(aRig.y + 0.5);
vec3 cfP = vec3(position);
vec3 cfN = objectNormal;
if (cfBone == 3 || cfBone == 4 || cfBone == 5 || cfBone == 6) {
  bool cfLeft = cfBone <= 4;
  float cfZ = cfLeft ? -${LEG_Z.toFixed(3)} : ${LEG_Z.toFixed(3)};
  if (cfBone == 4 || cfBone == 6) {
    float k = cfLeft ? cfKneeL : cfKneeR;
    cfP = cfRotZ(cfP, vec3(0.01, ${KNEE_Y.toFixed(3)}, cfZ), k);
    cfN = cfRotZn(cfN, k);
  }
  float h = cfLeft ? cfHipL : cfHipR;
  cfP = cfRotZ(cfP, vec3(0.0, ${HIP_Y.toFixed(3)}, cfZ), h);
  cfN = cfRotZn(cfN, h);
} else if (cfBone != 0) {
  if (cfBone >= 7) {
    bool cfLeft = cfBone <= 8;
    float cfZ = cfLeft ? -${ARM_Z.toFixed(3)} : ${ARM_Z.toFixed(3)};
    if (cfBone == 8 || cfBone == 10) {
      cfP = cfRotZ(cfP, vec3(0.0, ${ELBOW_Y.toFixed(3)}, cfZ), cfElbow);
      cfN = cfRotZn(cfN, cfElbow);
    }
    float s = cfLeft ? cfShL : cfShR;
    cfP = cfRotZ(cfP, vec3(0.0, ${SHOULDER_Y.toFixed(3)}, cfZ), s);
    cfN = cfRotZn(cfN, s);
  }
  if (cfBone == 2) {
    float nod = 0.05 * cfIdle + 0.1 * cfRun;
    cfP = cfRotZ(cfP, vec3(0.0, 1.52, 0.0), nod);
    cfN = cfRotZn(cfN, nod);
  }
  cfP = cfRotZ(cfP, vec3(0.0, ${WAIST_Y.toFixed(3)}, 0.0), cfLean);
  cfN = cfRotZn(cfN, cfLean);
}
cfP.y += cfBob;
// Accessories it does not wear collapse to a point (no fragments).
float cfAcc = mod(aAnim.z, 16.0);
if (cfPart >= 5) {
  float bit = pow(2.0, float(cfPart - 5));
  if (mod(floor(cfAcc / bit), 2.0) < 0.5) cfP = vec3(0.0);
}
`;

const PERSON_COLOUR = /* glsl */ `
vec3 cfTop = vec3(1.0);
#ifdef USE_INSTANCING_COLOR
cfTop = instanceColor.rgb;
#endif
int cfB2 = int(aLook.x + 0.5), cfS = int(aLook.y + 0.5), cfH = int(aLook.z + 0.5), cfA = int(aLook.w + 0.5);
vec3 cfC = cfTop;
if (uLodMode < 0.5) {
  if (cfPart == 0) cfC = uSkins[cfS];
  else if (cfPart == 2) cfC = uBottoms[cfB2];
  else if (cfPart == 3) cfC = aAnim.z >= 16.0 ? vec3(0.85) : vec3(0.07);
  else if (cfPart == 4 || cfPart == 8) cfC = uHair[cfH];
  else if (cfPart == 5 || cfPart == 6 || cfPart == 7) cfC = uAccents[cfA];
}
vCfColour = cfC;
`;

/// The person's material: pose and colours in the vertex shader (uniforms: uTime for the idle
/// sway, uLodMode to paint the whole body with the instance colour), dithered fade.
export function personMaterial() {
  const mat = new THREE.MeshStandardMaterial({ roughness: 0.75, metalness: 0.0 });
  const uniforms = {
    uTime: { value: 0 },
    uLodMode: { value: 0 },
    uBottoms: { value: palette(BOTTOMS) },
    uSkins: { value: palette(SKINS) },
    uHair: { value: palette(HAIR) },
    uAccents: { value: palette(ACCENTS) },
  };
  mat.userData.uniforms = uniforms;
  mat.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    patchDither(shader);
    // Posed before the normal chunks (from `position`), so normals and shadows follow the pose.
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\n${PERSON_VERTEX}`)
      .replace('#include <beginnormal_vertex>', `#include <beginnormal_vertex>\n${PERSON_POSE}\nobjectNormal = cfN;\n${PERSON_COLOUR}`)
      .replace('#include <begin_vertex>', '#include <begin_vertex>\ntransformed = cfP;');
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vCfColour;')
      .replace('#include <color_fragment>', 'diffuseColor.rgb *= vCfColour;');
  };
  mat.customProgramCacheKey = () => 'cityforge-agents-person';
  return mat;
}

const VEHICLE_VERTEX = /* glsl */ `
attribute float aPaint;
attribute vec4 aWheel; // centre x, y, z; 0 body, 1 rolling wheel, 2 rolling and steering
attribute vec2 aDrive; // rolling angle, steering angle (rad)
`;

const VEHICLE_POSE = /* glsl */ `
vec3 cfP = vec3(position);
vec3 cfN = objectNormal;
if (aWheel.w > 0.5) {
  vec3 c = aWheel.xyz;
  // Roll about the axle (+z): forward motion turns the top forwards (negative about +z).
  float a = -aDrive.x;
  float ca = cos(a), sa = sin(a);
  vec3 d = cfP - c;
  d = vec3(ca * d.x - sa * d.y, sa * d.x + ca * d.y, d.z);
  cfN = vec3(ca * cfN.x - sa * cfN.y, sa * cfN.x + ca * cfN.y, cfN.z);
  if (aWheel.w > 1.5) {
    // Steer about the vertical through the wheel's centre (positive: to the left, -z).
    float st = aDrive.y, cs = cos(st), ss = sin(st);
    d = vec3(cs * d.x + ss * d.z, d.y, -ss * d.x + cs * d.z);
    cfN = vec3(cs * cfN.x + ss * cfN.z, cfN.y, -ss * cfN.x + cs * cfN.z);
  }
  cfP = c + d;
}
`;

/// The vehicles' material: wheels rolled and steered per instance (aDrive), paint where aPaint
/// is 1 (times the instance colour), fixed colours elsewhere (glass, tyres, lamps), dithered.
export function vehicleMaterial() {
  const mat = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.45, metalness: 0.25 });
  mat.onBeforeCompile = (shader) => {
    patchDither(shader);
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\n${VEHICLE_VERTEX}`)
      .replace('#include <beginnormal_vertex>', `#include <beginnormal_vertex>\n${VEHICLE_POSE}\nobjectNormal = cfN;`)
      .replace('#include <begin_vertex>', '#include <begin_vertex>\ntransformed = cfP;')
      // Instance colour (paint) only where aPaint says so.
      .replace('#include <color_vertex>', `#include <color_vertex>
#ifdef USE_INSTANCING_COLOR
vColor.rgb = color.rgb * mix(vec3(1.0), instanceColor.rgb, aPaint);
#endif`);
  };
  mat.customProgramCacheKey = () => 'cityforge-agents-vehicle';
  return mat;
}
