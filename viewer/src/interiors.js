// SPDX-License-Identifier: Apache-2.0
// Interiors behind the facade glass (issue 31): classic interior mapping. Every window module's
// glass shows a virtual room box behind it, as deep as ROOM_DEPTH_M and as wide and high as the
// module; the fragment shader intersects the view ray with the box's walls, floor and ceiling
// and samples the hit face from an atlas of ROOM_TYPES generated rooms. The room type is a hash
// of (building, floor, room), the per-instance attributes windows.js already lights rooms by, so
// the same room always shows the same interior. The atlas is drawn here at startup with canvas
// 2D and a seeded generator (no art files, no Math.random): the same pixels on every load.
//
// Based on: Joost van Dongen, Interior Mapping: a new technique for rendering realistic
// buildings, CGI 2008.

import * as THREE from 'three';

import { mulberry32 } from './rng.js';

/// Room types in the atlas (one row each).
export const ROOM_TYPES = 8;
/// Depth of the virtual room behind the glass, metres.
export const ROOM_DEPTH_M = 4;
/// Narrowest room behind a window, metres (module frame).
export const ROOM_MIN_WIDTH_M = 3;
/// Faces per room type in the atlas, left to right: back wall, side wall, floor, ceiling.
export const ATLAS_FACES = 4;
const TILE_PX = 128;
const SEED = 0x1e7e5a31;

/// The room hash's 32 bits (the shader's cfRoomHashBits; 32-bit unsigned arithmetic, identical
/// results): bits 0-15 light the room (windows.js roomHash), bits 16-23 pick its type.
export function roomHashBits(building, floor, room) {
  let h = (Math.imul(building >>> 0, 73856093) ^ Math.imul(floor >>> 0, 19349663) ^ Math.imul(room >>> 0, 83492791)) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/// The shader's room type: bits 16-23 of the room hash modulo ROOM_TYPES.
export function roomType(building, floor, room) {
  return ((roomHashBits(building, floor, room) >>> 16) & 0xff) % ROOM_TYPES;
}

// Room types: wall paint, floor kind and colour, what stands against the back wall.
const ROOMS = [
  { name: 'living', wall: [214, 196, 164], floor: 'wood', floorCol: [140, 94, 56], items: ['sofa', 'picture', 'lamp', 'plant'] },
  { name: 'bedroom', wall: [150, 170, 190], floor: 'carpet', floorCol: [120, 108, 100], items: ['bed', 'picture', 'wardrobe'] },
  { name: 'kitchen', wall: [226, 226, 216], floor: 'tile', floorCol: [190, 186, 176], items: ['kitchen'] },
  { name: 'office', wall: [196, 198, 196], floor: 'carpet', floorCol: [92, 98, 108], items: ['desk', 'board', 'cabinet'] },
  { name: 'study', wall: [110, 134, 104], floor: 'wood', floorCol: [110, 72, 44], items: ['books', 'desk', 'picture'] },
  { name: 'dining', wall: [176, 96, 80], floor: 'wood', floorCol: [160, 112, 70], items: ['table', 'picture', 'picture', 'plant'] },
  { name: 'kids', wall: [232, 204, 120], floor: 'carpet', floorCol: [120, 160, 190], items: ['bed', 'toys', 'shelf'] },
  { name: 'store', wall: [236, 236, 232], floor: 'concrete', floorCol: [150, 150, 146], items: ['boxes', 'shelf'] },
];

const rgb = (c, k = 1) => `rgb(${Math.round(Math.min(255, c[0] * k))},${Math.round(Math.min(255, c[1] * k))},${Math.round(Math.min(255, c[2] * k))})`;
const pick = (rng, arr) => arr[Math.floor(rng() * arr.length)];

// A face's pixels: fill, then faint speckles so flat paint is not flat.
function paint(ctx, x, y, w, h, col, rng, grain = 0.06) {
  ctx.fillStyle = rgb(col);
  ctx.fillRect(x, y, w, h);
  for (let i = 0; i < 220; i++) {
    const k = 1 + (rng() - 0.5) * 2 * grain;
    ctx.fillStyle = rgb(col, k);
    ctx.fillRect(x + Math.floor(rng() * w), y + Math.floor(rng() * h), 2, 2);
  }
}

const FURNITURE = [[92, 70, 52], [60, 64, 72], [128, 44, 40], [40, 70, 96], [190, 176, 150], [74, 90, 60]];

// Back wall: x 0..T left to right as seen from outside, y 0 = ceiling, T = floor.
function drawBack(ctx, x0, y0, T, room, rng) {
  paint(ctx, x0, y0, T, T, room.wall, rng);
  const floorY = y0 + T * 0.94; // skirting and the floor line
  ctx.fillStyle = rgb(room.wall, 0.7);
  ctx.fillRect(x0, floorY - 3, T, 3);
  let slot = 0.06;
  for (const item of room.items) {
    const col = pick(rng, FURNITURE);
    const w = T * (0.2 + rng() * 0.12);
    const x = x0 + T * slot;
    slot = Math.min(0.7, slot + (w / T) + 0.04);
    drawItem(ctx, item, x, floorY, w, T, col, room, rng, x0);
  }
}

function drawItem(ctx, item, x, floorY, w, T, col, room, rng, tileX) {
  const f = (c, k) => (ctx.fillStyle = rgb(c, k));
  // A top `width` wide, `height` above the floor, on two legs `inset` in from its ends.
  const tableTop = (x0, width, height, inset) => {
    ctx.fillRect(x0, floorY - height, width, 4);
    ctx.fillRect(x0 + inset, floorY - height, 3, height);
    ctx.fillRect(x0 + width - inset - 3, floorY - height, 3, height);
  };
  switch (item) {
    case 'sofa':
      f(col, 1);
      ctx.fillRect(x, floorY - T * 0.22, w * 1.5, T * 0.22);
      f(col, 0.8);
      ctx.fillRect(x, floorY - T * 0.3, w * 1.5, T * 0.1);
      f(col, 1.2);
      ctx.fillRect(x + w * 0.1, floorY - T * 0.2, w * 0.6, T * 0.06);
      ctx.fillRect(x + w * 0.8, floorY - T * 0.2, w * 0.6, T * 0.06);
      break;
    case 'bed':
      f([230, 226, 214], 1);
      ctx.fillRect(x, floorY - T * 0.18, w * 1.6, T * 0.12);
      f(col, 1);
      ctx.fillRect(x + w * 0.4, floorY - T * 0.17, w * 1.2, T * 0.1);
      f(col, 0.6);
      ctx.fillRect(x - 2, floorY - T * 0.32, 5, T * 0.32);
      ctx.fillRect(x, floorY - T * 0.06, w * 1.6, T * 0.06);
      break;
    case 'picture': {
      const ph = T * (0.14 + rng() * 0.1);
      const py = floorY - T * 0.72;
      f([40, 32, 26], 1);
      ctx.fillRect(x, py, w * 0.8, ph);
      const inner = [80 + rng() * 150, 80 + rng() * 150, 80 + rng() * 150];
      f(inner, 1);
      ctx.fillRect(x + 3, py + 3, w * 0.8 - 6, ph - 6);
      f(inner, 0.6);
      ctx.fillRect(x + 3, py + ph * 0.55, w * 0.8 - 6, ph * 0.45 - 3);
      break;
    }
    case 'lamp':
      f([50, 50, 50], 1);
      ctx.fillRect(x + w * 0.45, floorY - T * 0.5, 2, T * 0.5);
      f([255, 226, 170], 1);
      ctx.fillRect(x + w * 0.25, floorY - T * 0.58, w * 0.5, T * 0.1);
      break;
    case 'plant':
      f([150, 90, 60], 1);
      ctx.fillRect(x + w * 0.3, floorY - T * 0.1, w * 0.4, T * 0.1);
      f([60, 110, 60], 1);
      ctx.beginPath();
      ctx.arc(x + w * 0.5, floorY - T * 0.2, w * 0.35, 0, Math.PI * 2);
      ctx.fill();
      break;
    case 'wardrobe':
    case 'cabinet':
      f(col, 1);
      ctx.fillRect(x, floorY - T * (item === 'wardrobe' ? 0.7 : 0.35), w, T * (item === 'wardrobe' ? 0.7 : 0.35));
      f(col, 0.7);
      ctx.fillRect(x + w / 2 - 1, floorY - T * (item === 'wardrobe' ? 0.66 : 0.31), 2, T * 0.3);
      break;
    case 'kitchen':
      // Wall tiles, a row of base cabinets with a worktop, wall cabinets above.
      for (let ty = floorY - T * 0.55; ty < floorY - T * 0.3; ty += 6) {
        for (let tx = 0; tx < T; tx += 6) {
          f(room.wall, 0.92 + ((tx + ty) % 12 === 0 ? 0.06 : 0));
          ctx.fillRect(tileX + tx, ty, 5, 5);
        }
      }
      f(col, 1);
      ctx.fillRect(tileX + 2, floorY - T * 0.3, T - 4, T * 0.3);
      f([70, 70, 70], 1);
      ctx.fillRect(tileX + 2, floorY - T * 0.31, T - 4, 4);
      f(col, 1.15);
      ctx.fillRect(tileX + T * 0.1, floorY - T * 0.85, T * 0.8, T * 0.25);
      f(col, 0.7);
      for (let k = 1; k < 4; k++) ctx.fillRect(tileX + (T * k) / 4, floorY - T * 0.28, 1, T * 0.26);
      break;
    case 'desk':
      f(col, 1);
      tableTop(x, w * 1.2, T * 0.26, 2);
      f([30, 30, 34], 1);
      ctx.fillRect(x + w * 0.35, floorY - T * 0.42, w * 0.5, T * 0.14);
      f([120, 170, 220], 1);
      ctx.fillRect(x + w * 0.38, floorY - T * 0.4, w * 0.44, T * 0.1);
      break;
    case 'board':
      f([245, 245, 245], 1);
      ctx.fillRect(x, floorY - T * 0.75, w * 1.2, T * 0.3);
      f([150, 150, 150], 1);
      ctx.strokeStyle = rgb([150, 150, 150]);
      ctx.strokeRect(x, floorY - T * 0.75, w * 1.2, T * 0.3);
      f([60, 90, 170], 1);
      for (let k = 0; k < 4; k++) ctx.fillRect(x + 6, floorY - T * 0.7 + k * 6, w * (0.3 + rng() * 0.7), 2);
      break;
    case 'books':
    case 'shelf': {
      const top = floorY - T * (item === 'books' ? 0.8 : 0.55);
      f(col, 0.8);
      ctx.fillRect(x, top, w, floorY - top);
      for (let sy = top + 4; sy < floorY - 8; sy += 14) {
        f(col, 0.5);
        ctx.fillRect(x + 2, sy, w - 4, 11);
        for (let bx = x + 3; bx < x + w - 5; bx += 3 + Math.floor(rng() * 3)) {
          f(item === 'books' ? pick(rng, FURNITURE) : [200, 190, 170], 1.2);
          const bh = 6 + Math.floor(rng() * 5);
          ctx.fillRect(bx, sy + 11 - bh, 2, bh);
        }
      }
      break;
    }
    case 'table':
      f(col, 1);
      tableTop(x, w * 1.4, T * 0.24, 4);
      f(col, 0.7);
      ctx.fillRect(x - 6, floorY - T * 0.32, 3, T * 0.32);
      ctx.fillRect(x + w * 1.4 + 4, floorY - T * 0.32, 3, T * 0.32);
      break;
    case 'toys':
      for (let k = 0; k < 4; k++) {
        f(pick(rng, [[220, 60, 60], [60, 120, 220], [240, 200, 40], [80, 180, 90]]), 1);
        ctx.fillRect(x + rng() * w, floorY - 6 - rng() * 6, 6, 6);
      }
      break;
    case 'boxes':
      for (let k = 0; k < 5; k++) {
        const bw = T * (0.1 + rng() * 0.1);
        f([176, 140, 96], 0.85 + rng() * 0.3);
        ctx.fillRect(x + k * T * 0.09, floorY - bw * (1 + (k % 2)), bw, bw * (1 + (k % 2)));
      }
      break;
    default:
      break;
  }
}

// Side wall: x 0 = at the window, T = at the back wall; y 0 = ceiling, T = floor. Curtains by
// the window, a door or a picture further in.
function drawSide(ctx, x0, y0, T, room, rng) {
  paint(ctx, x0, y0, T, T, room.wall.map((c) => c * 0.88), rng);
  const floorY = y0 + T * 0.94;
  ctx.fillStyle = rgb(room.wall, 0.6);
  ctx.fillRect(x0, floorY - 3, T, 3);
  const curtain = pick(rng, [[170, 60, 50], [200, 190, 160], [60, 80, 120], [120, 140, 100]]);
  for (let x = 0; x < T * 0.14; x += 3) {
    ctx.fillStyle = rgb(curtain, 0.8 + 0.3 * Math.abs(Math.sin(x * 0.9)));
    ctx.fillRect(x0 + x, y0 + T * 0.04, 3, T * 0.86);
  }
  if (rng() < 0.5) {
    ctx.fillStyle = rgb([120, 86, 56], 0.9 + rng() * 0.3);
    ctx.fillRect(x0 + T * 0.55, floorY - T * 0.7, T * 0.25, T * 0.7);
    ctx.fillStyle = rgb([200, 180, 80]);
    ctx.fillRect(x0 + T * 0.58, floorY - T * 0.36, 3, 3);
  } else {
    drawItem(ctx, pick(rng, ['picture', 'shelf', 'plant']), x0 + T * 0.5, floorY, T * 0.3, T, pick(rng, FURNITURE), room, rng, x0);
  }
}

// Floor: x along the room, y 0 = back wall, T = at the window.
function drawFloor(ctx, x0, y0, T, room, rng) {
  const c = room.floorCol;
  if (room.floor === 'wood') {
    for (let x = 0; x < T; x += 8) {
      paint(ctx, x0 + x, y0, 8, T, c.map((v) => v * (0.85 + rng() * 0.3)), rng, 0.08);
      ctx.fillStyle = rgb(c, 0.55);
      ctx.fillRect(x0 + x, y0, 1, T);
      ctx.fillRect(x0 + x, y0 + Math.floor(rng() * T), 8, 1);
    }
  } else if (room.floor === 'tile') {
    for (let y = 0; y < T; y += 16) {
      for (let x = 0; x < T; x += 16) {
        ctx.fillStyle = rgb(c, ((x + y) / 16) % 2 ? 0.75 : 1.05);
        ctx.fillRect(x0 + x, y0 + y, 16, 16);
      }
    }
  } else {
    paint(ctx, x0, y0, T, T, c, rng, room.floor === 'carpet' ? 0.12 : 0.05);
  }
  if (room.floor !== 'tile' && rng() < 0.7) {
    const rug = pick(rng, [[150, 50, 50], [60, 80, 130], [200, 180, 140], [90, 110, 80]]);
    ctx.fillStyle = rgb(rug);
    ctx.fillRect(x0 + T * 0.2, y0 + T * 0.3, T * 0.6, T * 0.45);
    ctx.strokeStyle = rgb(rug, 1.4);
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + T * 0.24, y0 + T * 0.34, T * 0.52, T * 0.37);
  }
}

// Ceiling: x along the room, y 0 = back wall, T = at the window; a lamp in the middle.
function drawCeiling(ctx, x0, y0, T, room, rng) {
  paint(ctx, x0, y0, T, T, [236, 232, 224], rng, 0.03);
  const g = ctx.createRadialGradient(x0 + T / 2, y0 + T / 2, 2, x0 + T / 2, y0 + T / 2, T * 0.45);
  g.addColorStop(0, 'rgba(255,244,220,0.9)');
  g.addColorStop(1, 'rgba(255,244,220,0)');
  ctx.fillStyle = g;
  ctx.fillRect(x0, y0, T, T);
  ctx.fillStyle = room.name === 'office' || room.name === 'store' ? '#fbfbf4' : '#fff1c8';
  if (room.name === 'office' || room.name === 'store') {
    ctx.fillRect(x0 + T * 0.2, y0 + T * 0.45, T * 0.6, T * 0.08);
  } else {
    ctx.beginPath();
    ctx.arc(x0 + T / 2, y0 + T / 2, T * 0.07, 0, Math.PI * 2);
    ctx.fill();
  }
}

/// Draws the atlas: ATLAS_FACES columns (back wall, side wall, floor, ceiling) by ROOM_TYPES rows,
/// room type t in the t-th row from the bottom (texture v grows upwards), TILE_PX per face.
/// Returns a CanvasTexture (sRGB, mipmapped), or null without a DOM (node tests).
export function createInteriorAtlas() {
  if (typeof document === 'undefined') return null;
  const T = TILE_PX;
  const canvas = document.createElement('canvas');
  canvas.width = ATLAS_FACES * T;
  canvas.height = ROOM_TYPES * T;
  const ctx = canvas.getContext('2d');
  for (let t = 0; t < ROOM_TYPES; t++) {
    const room = ROOMS[t];
    const y0 = (ROOM_TYPES - 1 - t) * T;
    const rng = mulberry32(SEED + t * 7919);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, y0, T, T);
    ctx.clip();
    drawBack(ctx, 0, y0, T, room, rng);
    ctx.restore();
    for (const [f, draw] of [[1, drawSide], [2, drawFloor], [3, drawCeiling]]) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(f * T, y0, T, T);
      ctx.clip();
      draw(ctx, f * T, y0, T, room, rng);
      ctx.restore();
    }
  }
  const tex = new THREE.CanvasTexture(canvas);
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.generateMipmaps = true;
  tex.minFilter = THREE.LinearMipmapLinearFilter;
  tex.magFilter = THREE.LinearFilter;
  tex.wrapS = THREE.ClampToEdgeWrapping;
  tex.wrapT = THREE.ClampToEdgeWrapping;
  tex.name = 'interiors';
  return tex;
}

/// Per-vertex attribute `cfRoomBox` (x0, y0, x1, y1 of the room in the module's frame) on a glass
/// mesh: the bounds of its module (the glass and its sibling primitives: wall, frame, sill) in
/// x and y. Leaves the geometry alone when it has the attribute.
export function addRoomBox(mesh) {
  const g = mesh.geometry;
  if (g.attributes.cfRoomBox) return;
  const box = new THREE.Box3();
  const parts = mesh.parent ? mesh.parent.children.filter((c) => c.isMesh && c.matrix.equals(mesh.matrix)) : [mesh];
  for (const p of parts.length ? parts : [mesh]) {
    p.geometry.computeBoundingBox();
    box.union(p.geometry.boundingBox);
  }
  g.computeBoundingBox();
  // A module far wider than its glass (a shop front with a door) keeps the room near the glass.
  const gb = g.boundingBox;
  const x0 = Math.max(box.min.x, gb.min.x - 0.6);
  const x1 = Math.min(box.max.x, gb.max.x + 0.6);
  const y0 = Math.max(box.min.y, gb.min.y - 0.6);
  const y1 = Math.min(box.max.y, gb.max.y + 0.6);
  // A narrow module (a tower's 1.5 m bay) looks into a room as wide as ROOM_MIN_WIDTH_M, not a
  // corridor: the box widens both ways (its neighbours' boxes overlap it; each window sees one).
  const grow = Math.max(0, ROOM_MIN_WIDTH_M - (x1 - x0)) / 2;
  const n = g.attributes.position.count;
  const a = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) a.set([x0 - grow, y0, x1 + grow, Math.max(y1, y0 + 0.1)], i * 4);
  g.setAttribute('cfRoomBox', new THREE.BufferAttribute(a, 4));
}

/// Vertex shader parts: declarations (after <common>) and the body (after <begin_vertex>; needs
/// `cfHashBits`, the room hash's 32 bits, from windows.js's cfRoomHashBits).
export const INTERIOR_VERTEX_DECL = /* glsl */ `
attribute vec4 cfRoomBox;
varying vec3 vCfPos;
varying vec3 vCfRay;
varying vec4 vCfBox;
varying float vCfDepth;
varying float vCfIn;
varying float vCfType;
`;

export const INTERIOR_VERTEX_BODY = /* glsl */ `
{
  mat4 cfM = modelMatrix;
#ifdef USE_INSTANCING
  cfM = cfM * instanceMatrix;
#endif
  vec3 cfCam = (inverse(cfM) * vec4(cameraPosition, 1.0)).xyz;
  vCfPos = transformed;
  vCfRay = transformed - cfCam;
  vCfBox = cfRoomBox;
  // Inward is against the glass's normal (the modules' glass faces -z: the room lies along +z).
  vCfIn = objectNormal.z > 0.0 ? -1.0 : 1.0;
  vCfDepth = ${ROOM_DEPTH_M.toFixed(1)} / max(length((cfM * vec4(0.0, 0.0, 1.0, 0.0)).xyz), 1e-3);
  vCfType = float(((cfHashBits >> 16u) & 0xffu) % ${ROOM_TYPES}u);
}`;

/// Fragment shader parts: declarations and cfInterior(), the room colour (linear) seen through
/// this fragment of glass.
export const INTERIOR_FRAGMENT_DECL = /* glsl */ `
uniform sampler2D uInteriorAtlas;
varying vec3 vCfPos;
varying vec3 vCfRay;
varying vec4 vCfBox;
varying float vCfDepth;
varying float vCfIn;
varying float vCfType;

vec3 cfInterior() {
  vec2 size = vCfBox.zw - vCfBox.xy;
  // Room coordinates: x across (0-1), y up (0-1), z into the room (0 at the glass, 1 at the back).
  vec3 p = vec3((vCfPos.xy - vCfBox.xy) / size, 0.0);
  vec3 d = vec3(vCfRay.xy / size, vCfRay.z * vCfIn / vCfDepth);
  // Seen from outside, +x runs right to left when the room lies along +z: mirror it.
  if (vCfIn > 0.0) {
    p.x = 1.0 - p.x;
    d.x = -d.x;
  }
  p.xy = clamp(p.xy, 0.001, 0.999);
  d.z = max(d.z, 1e-4);
  d.x = abs(d.x) < 1e-5 ? 1e-5 : d.x;
  d.y = abs(d.y) < 1e-5 ? 1e-5 : d.y;
  vec3 t = max(-p / d, (1.0 - p) / d);
  float tm = min(min(t.x, t.y), t.z);
  vec3 h = clamp(p + d * tm, 0.0, 1.0);
  vec2 uv;
  float face;
  if (t.z <= tm) {
    uv = h.xy;
    face = 0.0;
  } else if (t.x <= tm) {
    uv = vec2(h.z, h.y);
    face = 1.0;
  } else {
    uv = h.xz;
    face = d.y < 0.0 ? 2.0 : 3.0;
  }
  float type = floor(vCfType + 0.5);
  vec2 scale = vec2(1.0 / ${ATLAS_FACES.toFixed(1)}, 1.0 / ${ROOM_TYPES.toFixed(1)});
  vec2 a = (vec2(face, type) + clamp(uv, 0.004, 0.996)) * scale;
  // Gradients from the continuous glass coordinates: no seams where the hit face changes.
  vec3 c = textureGrad(uInteriorAtlas, a, dFdx(p.xy) * scale, dFdy(p.xy) * scale).rgb;
  // Deeper is darker; the corners a little more.
  float edge = min(min(h.x, 1.0 - h.x), min(h.y, 1.0 - h.y));
  return c * (1.0 - 0.4 * h.z) * (0.8 + 0.2 * smoothstep(0.0, 0.15, edge));
}
`;
