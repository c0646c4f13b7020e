// SPDX-License-Identifier: Apache-2.0
// Lit windows at night. Facade modules carry per-instance _BUILDING, _FLOOR and _ROOM
// attributes (city.glb, EXT_mesh_gpu_instancing; three's GLTFLoader keeps them as instanced
// geometry attributes). A shader hook on the facade glass materials hashes (building, floor,
// room) into [0, 1); a room is lit when its hash is under the share of lit rooms for the hour,
// so the same rooms light up every evening and the share changes with the hour. Switched on
// and off by the sky's 'dusk' / 'dawn' events. Behind the glass, interiors.js maps a room (one of
// a few generated room types, picked by the same hash): dim by day, lit warm by night when the
// room is lit, dark when it is not.

import * as THREE from 'three';

import { contentMatrix } from './city.js';
import {
  addRoomBox, createInteriorAtlas, INTERIOR_FRAGMENT_DECL, INTERIOR_VERTEX_BODY, INTERIOR_VERTEX_DECL, roomHashBits,
  ROOM_TYPES,
} from './interiors.js';

const WINDOW_COLOUR = new THREE.Color(1.0, 0.78, 0.45);

/// Share of rooms lit at hour h (evening peak, few after midnight, some before dawn).
export function litShare(h) {
  const pts = [[0, 0.3], [1, 0.18], [3, 0.08], [5, 0.12], [6.5, 0.35], [8, 0.25], [12, 0.2],
    [17, 0.35], [19, 0.6], [21, 0.65], [23, 0.45], [24, 0.3]];
  for (let i = 1; i < pts.length; i++) {
    if (h <= pts[i][0]) {
      const [h0, s0] = pts[i - 1];
      const [h1, s1] = pts[i];
      return s0 + ((s1 - s0) * (h - h0)) / (h1 - h0);
    }
  }
  return pts[0][1];
}

/// The shader's room hash in JavaScript (32-bit unsigned arithmetic, identical results).
export function roomHash(building, floor, room) {
  return (roomHashBits(building, floor, room) & 0xffff) / 65535;
}

// Bits 0-15 give the lit flag (cfRoomHash), bits 16-23 the room type (interiors.js).
const HASH_GLSL = /* glsl */ `
uint cfRoomHashBits(float b, float f, float r) {
  uint h = (uint(b) * 73856093u) ^ (uint(f) * 19349663u) ^ (uint(r) * 83492791u);
  h ^= h >> 16u; h *= 0x7feb352du; h ^= h >> 15u; h *= 0x846ca68bu; h ^= h >> 16u;
  return h;
}
float cfRoomHash(float b, float f, float r) {
  return float(cfRoomHashBits(b, f, r) & 0xffffu) / 65535.0;
}
`;

// Interiors by day: this share of the hemisphere light's intensity lights the rooms seen
// through the glass (the glass's own reflection stays on top).
const INTERIOR_DAYLIGHT = 0.1;

export class Windows {
  /// `sky` (optional) gives the daylight the interiors are seen by.
  constructor(city, events, sky = null) {
    this.night = false;
    this.enabled = true;
    this.share = 0;
    this.sky = sky;
    this.atlas = createInteriorAtlas();
    this.uniforms = {
      uWindowsOn: { value: 0 },
      uLitShare: { value: 0 },
      uWindowColour: { value: WINDOW_COLOUR.clone().multiplyScalar(2.2) },
      uInteriorAtlas: { value: this.atlas },
      uInteriorsOn: { value: this.atlas ? 1 : 0 },
      uInteriorDay: { value: INTERIOR_DAYLIGHT },
    };
    this.materials = new Set();
    this.city = city;
    this.meshes = city.glassMeshes; // kept up to date by the city as tiles come and go
    this.add({ glassMeshes: city.glassMeshes, volumeMaterials: [] });
    if (city.volumeMaterial) this.patchVolumes(city.volumeMaterial);
    // A tiled city adds content as tiles load: patch their glass and HLOD shells as they come.
    city.addEventListener?.('content-added', (e) => this.add(e.detail));
    city.addEventListener?.('content-removed', (e) => {
      for (const mesh of e.detail.glassMeshes) this.materials.delete(mesh.material);
      for (const mat of e.detail.volumeMaterials) this.materials.delete(mat);
    });
    events.addEventListener('dusk', () => {
      this.night = true;
      this.apply();
    });
    events.addEventListener('dawn', () => {
      this.night = false;
      this.apply();
    });
  }

  /// Patches the glass of facade modules with room attributes and HLOD building shells.
  add({ glassMeshes, volumeMaterials }) {
    for (const mesh of glassMeshes) {
      if (!mesh.geometry.attributes._BUILDING) continue;
      addRoomBox(mesh); // per geometry: each module's glass has its own room size
      const mat = mesh.material;
      if (this.materials.has(mat)) continue;
      this.materials.add(mat);
      this.patch(mat);
    }
    for (const mat of volumeMaterials) {
      if (this.materials.has(mat)) continue;
      this.materials.add(mat);
      this.patchVolumes(mat);
    }
  }

  patch(mat) {
    const u = this.uniforms;
    mat.onBeforeCompile = (shader) => {
      Object.assign(shader.uniforms, u);
      shader.vertexShader = shader.vertexShader
        .replace(
          '#include <common>',
          `#include <common>
attribute float _BUILDING;
attribute float _FLOOR;
attribute float _ROOM;
uniform float uLitShare;
varying float vRoomLit;
${HASH_GLSL}
${INTERIOR_VERTEX_DECL}`,
        )
        .replace(
          '#include <begin_vertex>',
          `#include <begin_vertex>
uint cfHashBits = cfRoomHashBits(_BUILDING, _FLOOR, _ROOM);
float cfHash = float(cfHashBits & 0xffffu) / 65535.0;
vRoomLit = cfHash < uLitShare ? 0.55 + 0.45 * fract(cfHash * 37.0) : 0.0;
${INTERIOR_VERTEX_BODY}`,
        );
      shader.fragmentShader = shader.fragmentShader
        .replace(
          '#include <common>',
          `#include <common>
uniform float uWindowsOn;
uniform vec3 uWindowColour;
uniform float uInteriorsOn;
uniform float uInteriorDay;
varying float vRoomLit;
${INTERIOR_FRAGMENT_DECL}`,
        )
        .replace(
          '#include <emissivemap_fragment>',
          `#include <emissivemap_fragment>
{
  vec3 cfRoom = uInteriorsOn > 0.5 ? cfInterior() : vec3(0.0);
  // By day (and in unlit rooms by night) the room is seen dimly through the tinted glass.
  totalEmissiveRadiance += uInteriorDay * cfRoom;
  // Lit rooms: their interior in the window colour (a flat glow without interiors).
  vec3 cfGlow = uInteriorsOn > 0.5 ? 0.8 * cfRoom + 0.05 : vec3(1.0);
  totalEmissiveRadiance += uWindowsOn * vRoomLit * uWindowColour * cfGlow;
}`,
        );
    };
    mat.customProgramCacheKey = () => 'cityforge-windows';
    mat.needsUpdate = true;
  }

  /// Far building volumes (walls extruded from roofs, no modules): a procedural window grid,
  /// darker glass by day, the same lit share by night (hash of the window cell).
  patchVolumes(mat) {
    const u = this.uniforms;
    mat.onBeforeCompile = (shader) => {
      Object.assign(shader.uniforms, u);
      shader.vertexShader = shader.vertexShader
        .replace('#include <common>', '#include <common>\nvarying vec3 vCfWorld;\nvarying vec3 vCfNormal;')
        .replace(
          '#include <begin_vertex>',
          `#include <begin_vertex>
vCfWorld = (modelMatrix * vec4(transformed, 1.0)).xyz;
vCfNormal = normalize(mat3(modelMatrix) * objectNormal);`,
        );
      shader.fragmentShader = shader.fragmentShader
        .replace(
          '#include <common>',
          `#include <common>
uniform float uWindowsOn;
uniform float uLitShare;
uniform vec3 uWindowColour;
varying vec3 vCfWorld;
varying vec3 vCfNormal;`,
        )
        .replace(
          '#include <emissivemap_fragment>',
          `#include <emissivemap_fragment>
{
  float cfU = abs(vCfNormal.x) > abs(vCfNormal.z) ? vCfWorld.z : vCfWorld.x;
  vec2 cfG = vec2(cfU / 3.2, vCfWorld.y / 3.6);
  vec2 cfF = fract(cfG);
  float cfWin = step(0.22, cfF.x) * step(cfF.x, 0.78) * step(0.3, cfF.y) * step(cfF.y, 0.85)
      * step(abs(vCfNormal.y), 0.5);
  float cfH = fract(sin(dot(floor(cfG), vec2(12.9898, 78.233))) * 43758.5453);
  diffuseColor.rgb *= mix(1.0, 0.45, cfWin);
  totalEmissiveRadiance += uWindowsOn * cfWin * step(cfH, uLitShare) * uWindowColour * 0.6;
}`,
        );
    };
    mat.customProgramCacheKey = () => 'cityforge-volume-windows';
    mat.needsUpdate = true;
  }

  setEnabled(on) {
    this.enabled = on;
    this.apply();
  }

  apply() {
    this.uniforms.uWindowsOn.value = this.night && this.enabled ? 1 : 0;
  }

  /// Interiors behind the glass on or off (off: the flat window colour of before).
  setInteriors(on) {
    this.uniforms.uInteriorsOn.value = on && this.atlas ? 1 : 0;
  }

  /// Room types shown behind the glass (0 when interiors are off).
  get interiorRooms() {
    return this.uniforms.uInteriorsOn.value ? ROOM_TYPES : 0;
  }

  /// The share follows the hour (a uniform, no switching here); the interiors' daylight follows
  /// the sky's hemisphere light.
  update(hour) {
    this.share = litShare(hour);
    this.uniforms.uLitShare.value = this.share;
    if (this.sky) this.uniforms.uInteriorDay.value = INTERIOR_DAYLIGHT * this.sky.hemi.intensity;
  }

  get lit() {
    return this.night && this.enabled ? this.share : 0;
  }

  /// Centres of lit window modules nearest `point` (three coordinates), for tests; `at` moves
  /// the point within the glass's box (fractions of its size; [0.25, 0.25]: the middle of a
  /// four-pane window's lower left pane, off its bars).
  litNear(point, n, maxDist = 200, at = [0.5, 0.5]) {
    const out = [];
    const m = new THREE.Matrix4();
    const c = new THREE.Vector3();
    for (const mesh of this.meshes) {
      if (!this.city.isShown(mesh)) continue;
      const a = mesh.geometry.attributes;
      if (!a._BUILDING) continue;
      mesh.geometry.computeBoundingBox();
      const bb = mesh.geometry.boundingBox;
      const local = bb.getCenter(new THREE.Vector3());
      local.x = bb.min.x + at[0] * (bb.max.x - bb.min.x);
      local.y = bb.min.y + at[1] * (bb.max.y - bb.min.y);
      for (let i = 0; i < mesh.count; i++) {
        if (roomHash(a._BUILDING.getX(i), a._FLOOR.getX(i), a._ROOM.getX(i)) >= this.share) continue;
        mesh.getMatrixAt(i, m);
        c.copy(local).applyMatrix4(m).applyMatrix4(contentMatrix(mesh));
        const d = c.distanceTo(point);
        if (d < maxDist) out.push({ p: c.clone(), d });
      }
    }
    out.sort((x, y) => x.d - y.d);
    return out.slice(0, n).map((x) => x.p);
  }
}
