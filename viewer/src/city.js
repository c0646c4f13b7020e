// SPDX-License-Identifier: Apache-2.0
// Loads city.glb (chunks, facade modules, props and WFC rooftops instanced with
// EXT_mesh_gpu_instancing) and keeps the software renderer interactive: chunks are
// frustum-culled by three (their bounding spheres are right once InstancedMesh spheres cover all
// instances) and detail (facade modules, props, rooftops) is hidden beyond a per-category
// distance. Far buildings keep a cheap volume: walls extruded down from each chunk's roof
// outline, shown where the facade modules are culled. A tiled city (tiles.js) feeds each loaded
// tile's scene through the same classification (City.addContent) and takes it out on dispose.
//
// Axes: the city is x east, y north, z up; the glb is y up with glb (x, y, z) = city (x, z, -y).

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { tintByBuilding } from './tint.js';

/// Distance (m) beyond which each kind of detail is hidden, measured to its bounding sphere.
/// Decals (materials "decal.<kind>", alphaMode BLEND) lie 1.5 cm above roads and sidewalk
/// tiles and 3 cm in front of facades: drawn after the opaque city, never writing depth (two
/// overlapping decals blend instead of hiding each other), pulled toward the camera in depth
/// so far away they still win over the surface under them, in a fixed order among themselves
/// (by kind, not by distance: grime, tyre marks, oil, cracks) so nothing flickers as the camera
/// moves. Shared by city.glb and tile content (addContent classifies both).
export const DECAL_ORDER = { 'decal.grime': 1, 'decal.tyre_marks': 2, 'decal.oil': 3, 'decal.crack': 4 };
export function layDecal(mesh) {
  const m = mesh.material;
  if (!m || Array.isArray(m)) return;
  m.transparent = true;
  m.depthWrite = false;
  m.depthTest = true;
  m.polygonOffset = true;
  m.polygonOffsetFactor = -2;
  m.polygonOffsetUnits = -4;
  mesh.renderOrder = 10 + (DECAL_ORDER[m.name] ?? 0);
}

export const DETAIL_DISTANCE_M = {
  facade: 420,
  props_lighting: 600,
  props_signals: 450,
  props_vegetation: 450,
  props_furniture: 220,
  props_sidewalk: 260,
  props_ground: 260,
  props_biome: 320,
  props_decal: 200, // grime, tyre marks, oil, cracks: street-level detail
  rooftops: 500, // WFC rooftop tiles: seen from above, so further than the street props
};

const INSTANCE_MARGIN_M = 12; // an instance's reach beyond its origin (modules, props)
const TILE_VOLUME_INSET_M = 0.6; // a tile's far-building walls sit this far inside the facades
const RECULL_MS = 150; // per-instance culling at most this often while the camera moves

/// Keeps only the instances of `mesh` within `limit` metres of the camera and inside the frustum
/// (with a margin) at the front of its buffers: matrices and per-instance attributes move
/// together, `count` shrinks. The full set is kept aside on first use.
function cullInstances(mesh, camPos, frustum, limit) {
  let orig = mesh.userData.orig;
  if (!orig) {
    const attrs = [];
    for (const a of Object.values(mesh.geometry.attributes)) {
      if (a.isInstancedBufferAttribute) attrs.push({ attr: a, src: a.array.slice(), size: a.itemSize });
    }
    orig = { n: mesh.count, matrix: mesh.instanceMatrix.array.slice(), attrs, world: contentMatrix(mesh).clone() };
    mesh.userData.orig = orig;
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
  }
  const src = orig.matrix;
  const dst = mesh.instanceMatrix.array;
  const e = orig.world.elements;
  const planes = frustum.planes;
  const lim2 = (limit + INSTANCE_MARGIN_M) ** 2;
  let k = 0;
  for (let i = 0; i < orig.n; i++) {
    const o = i * 16;
    const lx = src[o + 12], ly = src[o + 13], lz = src[o + 14];
    const x = e[0] * lx + e[4] * ly + e[8] * lz + e[12];
    const y = e[1] * lx + e[5] * ly + e[9] * lz + e[13];
    const z = e[2] * lx + e[6] * ly + e[10] * lz + e[14];
    const dx = x - camPos.x, dy = y - camPos.y, dz = z - camPos.z;
    if (dx * dx + dy * dy + dz * dz > lim2) continue;
    let inside = true;
    for (let p = 0; p < 6; p++) {
      const pl = planes[p];
      if (pl.normal.x * x + pl.normal.y * y + pl.normal.z * z + pl.constant < -INSTANCE_MARGIN_M) {
        inside = false;
        break;
      }
    }
    if (!inside) continue;
    if (k !== i) {
      dst.set(src.subarray(o, o + 16), k * 16);
      for (const a of orig.attrs) {
        for (let c = 0; c < a.size; c++) a.attr.array[k * a.size + c] = a.src[i * a.size + c];
      }
    } else if (mesh.count !== orig.n) {
      dst.set(src.subarray(o, o + 16), o);
      for (const a of orig.attrs) {
        for (let c = 0; c < a.size; c++) a.attr.array[k * a.size + c] = a.src[i * a.size + c];
      }
    }
    k++;
  }
  mesh.count = k;
  mesh.instanceMatrix.clearUpdateRanges();
  mesh.instanceMatrix.addUpdateRange(0, k * 16);
  mesh.instanceMatrix.needsUpdate = true;
  for (const a of orig.attrs) {
    a.attr.clearUpdateRanges();
    a.attr.addUpdateRange(0, k * a.size);
    a.attr.needsUpdate = true;
  }
}

/// Engine (x east, y north, z up) -> three (x, y up, z south).
export function toThree(x, y, z, out = new THREE.Vector3()) {
  return out.set(x, z, -y);
}

/// An object's matrix in the frame of the content it was loaded with (city.glb's scene or a tile's
/// glTF scene): the product of the local matrices up to that scene. For city.glb this is its
/// world matrix; a tile's scene sits under the tiles renderer's ECEF frame, which the viewer
/// undoes (tiles.js), so its content frame is the viewer's world too (city.glb's coordinates).
export function contentMatrix(object) {
  return object.userData.cfWorld ?? object.matrixWorld;
}

/// Stores contentMatrix for every object under root (root's own matrix excluded).
function noteContentMatrices(root) {
  const walk = (o, parent) => {
    o.updateMatrix();
    const m = new THREE.Matrix4();
    if (parent) m.multiplyMatrices(parent, o.matrix);
    o.userData.cfWorld = m;
    for (const c of o.children) walk(c, m);
  };
  walk(root, null);
}

/// Fetches with progress callbacks (bytes so far, total or 0).
async function fetchWithProgress(url, onProgress) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (!res.body || !res.body.getReader) {
    const buf = await res.arrayBuffer();
    onProgress(buf.byteLength, total);
    return buf;
  }
  const reader = res.body.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.byteLength;
    onProgress(got, total);
  }
  const out = new Uint8Array(got);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out.buffer;
}

/// Walls extruded from the outline of a roof mesh (edges used by one triangle) down to `floorY`,
/// moved `inset` metres inwards (behind the facade modules' glass, so both can show).
function volumeFromRoof(geometry, floorY, inset = 0) {
  const pos = geometry.attributes.position;
  const idx = geometry.index;
  const n = idx ? idx.count : pos.count;
  const key = (a, b) => (a < b ? a * 4294967296 + b : b * 4294967296 + a);
  // Weld vertices by position so outline edges are found across split normals.
  const weld = new Map();
  const canon = new Uint32Array(pos.count);
  for (let i = 0; i < pos.count; i++) {
    const k = `${Math.round(pos.getX(i) * 100)},${Math.round(pos.getY(i) * 100)},${Math.round(pos.getZ(i) * 100)}`;
    let c = weld.get(k);
    if (c === undefined) {
      c = i;
      weld.set(k, i);
    }
    canon[i] = c;
  }
  const edges = new Map();
  for (let t = 0; t < n; t += 3) {
    const v = [0, 1, 2].map((j) => canon[idx ? idx.getX(t + j) : t + j]);
    for (let j = 0; j < 3; j++) {
      const a = v[j];
      const b = v[(j + 1) % 3];
      const k = key(a, b);
      const e = edges.get(k);
      if (e) e.count++;
      else edges.set(k, { a, b, c: v[(j + 2) % 3], count: 1 });
    }
  }
  const verts = [];
  for (const e of edges.values()) {
    if (e.count !== 1) continue;
    const ax = pos.getX(e.a), ay = pos.getY(e.a), az = pos.getZ(e.a);
    const bx = pos.getX(e.b), by = pos.getY(e.b), bz = pos.getZ(e.b);
    // Only edges near the roof's own level (skip vertical roof parts' edges that are low).
    if (ay < floorY + 2 || by < floorY + 2) continue;
    let ox = 0;
    let oz = 0;
    if (inset > 0) {
      // Inwards: across the edge towards its triangle's third vertex, in the ground plane.
      let nx = -(bz - az);
      let nz = bx - ax;
      const len = Math.hypot(nx, nz) || 1;
      if (nx * (pos.getX(e.c) - ax) + nz * (pos.getZ(e.c) - az) < 0) {
        nx = -nx;
        nz = -nz;
      }
      ox = (nx / len) * inset;
      oz = (nz / len) * inset;
    }
    const [x0, z0, x1, z1] = [ax + ox, az + oz, bx + ox, bz + oz];
    verts.push(x0, ay, z0, x1, by, z1, x1, floorY, z1, x0, ay, z0, x1, floorY, z1, x0, floorY, z0);
  }
  if (verts.length === 0) return null;
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(verts, 3));
  g.computeVertexNormals();
  return g;
}

/// Removes every element of `items` from `arr` in place (other modules hold the arrays).
function removeAll(arr, items) {
  if (items.length === 0) return;
  const drop = new Set(items);
  let k = 0;
  for (const x of arr) if (!drop.has(x)) arr[k++] = x;
  arr.length = k;
}

/// Bounding sphere of a mesh (all instances of an InstancedMesh) in the content frame.
function contentSphere(object) {
  if (object.isInstancedMesh) object.computeBoundingSphere();
  else object.geometry.computeBoundingSphere();
  const local = object.isInstancedMesh ? object.boundingSphere : object.geometry.boundingSphere;
  return local.clone().applyMatrix4(contentMatrix(object));
}

/// The city's content: one part for city.glb, or one part per loaded tile (tiles.js adds and
/// removes them as the tiles renderer loads and disposes tiles). The arrays below hold the
/// parts' items together; 'content-added' / 'content-removed' events (detail: the part) tell
/// the street lights and windows.
export class City extends EventTarget {
  constructor() {
    super();
    this.root = null;
    this.parts = new Map(); // key -> part
    this.chunks = []; // {name, facade: [InstancedMesh], volume, sphere: Sphere, part}
    this.detail = []; // {object, category, sphere: Sphere, limit, part}
    this.volumes = []; // {mesh, sphere, part}
    this.merged = []; // ground and roof meshes merged per material (and HLOD meshes)
    this.materials = new Map(); // name -> material
    this.tintedMaterials = 0; // facade module materials tinted per building (tint.js)
    this.lampSources = []; // InstancedMesh of street_light / parking_lamp
    this.glassMeshes = [];
    this.show = { buildings: true, props: true };
    this.visibleChunks = 0;
    this.bounds = new THREE.Box3();
    this._frustum = new THREE.Frustum();
    this._m = new THREE.Matrix4();
    this._lastCull = new THREE.Vector3(Infinity, 0, 0);
    this.detailScale = 1; // software renderers draw detail over a shorter distance
    this.instanceCulling = true; // cull facade and prop instances one by one
    // Far building volumes (walls extruded from roof outlines) share one material.
    this.volumeMaterial = new THREE.MeshStandardMaterial({ color: 0x9a958c, roughness: 0.9, name: 'volume' });
  }

  /// Scales every detail distance (1: DETAIL_DISTANCE_M as written).
  setDetailScale(s) {
    this.detailScale = s;
    for (const d of this.detail) d.limit = (DETAIL_DISTANCE_M[d.category] ?? 300) * s;
    this._dirty = true;
  }

  /// Downloads and parses url; onProgress(phase, fraction).
  async load(url, onProgress = () => {}) {
    const buf = await fetchWithProgress(url, (got, total) =>
      onProgress('download', total ? got / total : 0, got),
    );
    onProgress('parse', 0, buf.byteLength);
    const base = url.slice(0, url.lastIndexOf('/') + 1);
    const gltf = await new GLTFLoader().parseAsync(buf, base);
    onProgress('prepare', 0, buf.byteLength);
    this.root = gltf.scene;
    this.root.updateMatrixWorld(true);
    this.addContent(this.root, url, { group: 4 });
    this.bounds.setFromObject(this.root);
    return this;
  }

  /// Classifies a loaded glTF scene (city.glb, or a tile's content: a small city.glb or an HLOD
  /// stand-in) and adds its chunks, detail, volumes and merged ground to the city. Ground meshes
  /// are merged per material over blocks of `group` x `group` chunks (all of a tile's at once
  /// when group is 0). Returns the part; fires 'content-added'.
  addContent(root, key, { group = 0, name = String(key) } = {}) {
    const part = {
      key, name, root, visible: true, chunks: [], detail: [], volumes: [], merged: [], lampSources: [],
      glassMeshes: [], volumeMaterials: [], created: [],
    };
    noteContentMatrices(root);
    this.classify(root, part, group);
    root.traverse((o) => {
      o.userData.cfPart = part;
    });
    this.parts.set(key, part);
    this.chunks.push(...part.chunks);
    this.detail.push(...part.detail);
    this.volumes.push(...part.volumes);
    this.merged.push(...part.merged);
    this.lampSources.push(...part.lampSources);
    this.glassMeshes.push(...part.glassMeshes);
    for (const d of part.detail) d.limit = (DETAIL_DISTANCE_M[d.category] ?? 300) * this.detailScale;
    this._dirty = true;
    this.dispatchEvent(new CustomEvent('content-added', { detail: part }));
    return part;
  }

  /// Forgets a part added by addContent and disposes what classify made for it (the loader's
  /// own geometries and materials belong to whoever loaded them). Fires 'content-removed'.
  removeContent(key) {
    const part = this.parts.get(key);
    if (!part) return;
    this.parts.delete(key);
    removeAll(this.chunks, part.chunks);
    removeAll(this.detail, part.detail);
    removeAll(this.volumes, part.volumes);
    removeAll(this.merged, part.merged);
    removeAll(this.lampSources, part.lampSources);
    removeAll(this.glassMeshes, part.glassMeshes);
    for (const g of part.created) g.dispose();
    part.created = [];
    this.dispatchEvent(new CustomEvent('content-removed', { detail: part }));
  }

  /// Shown or hidden by its owner (a tile out of view): hidden parts cost no culling.
  setPartVisible(key, visible) {
    const part = this.parts.get(key);
    if (part && part.visible !== visible) {
      part.visible = visible;
      this._dirty = true;
      this.dispatchEvent(new CustomEvent('content-visibility', { detail: part }));
    }
  }

  classify(root, part, group) {
    // The scene and its root node are both named 'city' (the loader renames one 'city_1'):
    // take the object the chunks hang off.
    let city = null;
    root.traverse((o) => {
      if (!city && o.children.some((c) => c.name.startsWith('chunk_'))) city = o;
    });
    if (!city) {
      // An HLOD stand-in (root node "hlod"): merged ground and building shells with vertex
      // colours, a few draw calls; its building shells get the volumes' window grid.
      root.traverse((o) => {
        if (!o.isMesh) return;
        this.noteMaterial(o.material);
        const name = o.material.name || '';
        o.userData.layer = /buildings/.test(name) ? 'building' : 'ground';
        if (o.userData.layer === 'building') part.volumeMaterials.push(o.material);
        part.merged.push(o);
      });
      return;
    }
    // Tiles put each building's roof in a node "buildings" (not in its chunk); the tile is then
    // one chunk for the near / far switch between facade modules and volumes.
    const tileChunk = city.children.some((c) => c.name === 'buildings')
      ? { name: `${part.name}.buildings`, base: [], facade: [], volume: null, sphere: new THREE.Sphere(), roof: [], floorY: Infinity, part, tile: true }
      : null;
    const bases = [];
    const addBase = (chunk, o) => {
      o.userData.layer = /^(roof|parapet)$/.test(o.material.name) ? 'building' : 'ground';
      bases.push({ chunk, mesh: o });
      if (o.material.name === 'roof') chunk.roof.push(o);
      if (o.material.name === 'sidewalk' || o.material.name === 'block' || o.material.name === 'terrain') {
        o.geometry.computeBoundingBox();
        const y = o.geometry.boundingBox.clone().applyMatrix4(contentMatrix(o)).min.y;
        chunk.floorY = Math.min(chunk.floorY, y);
        if (tileChunk) tileChunk.floorY = Math.min(tileChunk.floorY, y);
      }
    };
    for (const top of city.children) {
      const name = top.name || '';
      if (name.startsWith('chunk_')) {
        const chunk = { name, base: [], facade: [], volume: null, sphere: new THREE.Sphere(), roof: [], floorY: Infinity, part };
        part.chunks.push(chunk);
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          if (o.isInstancedMesh) {
            if (tileChunk) tileChunk.facade.push(o);
            chunk.facade.push(o);
            if (/\.glass$/.test(o.material.name)) part.glassMeshes.push(o);
            else if (o.geometry.attributes._BUILDING && tintByBuilding(o.material)) this.tintedMaterials++;
          } else {
            chunk.base.push(o);
            addBase(chunk, o);
          }
        });
      } else if (name === 'buildings' && tileChunk) {
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          o.userData.layer = 'building';
          bases.push({ chunk: tileChunk, mesh: o });
          tileChunk.base.push(o);
          if (o.material.name === 'roof') tileChunk.roof.push(o);
        });
      } else if (name === 'rooftops') {
        // WFC rooftop tiles per region: culled like props, shown with the buildings.
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          this.addDetail(part, o, 'rooftops');
        });
      } else if (name.startsWith('props_')) {
        top.traverse((o) => {
          if (!o.isMesh) return;
          if (name === 'props_decal') layDecal(o);
          this.noteMaterial(o.material);
          this.addDetail(part, o, name);
          if (name === 'props_lighting') part.lampSources.push(o);
        });
      }
    }
    // Spheres over each chunk's ground and facade modules.
    const nearChunks = tileChunk ? [...part.chunks, tileChunk] : part.chunks;
    for (const chunk of nearChunks) {
      const box = new THREE.Box3();
      for (const m of chunk.base) {
        m.geometry.computeBoundingBox();
        box.union(m.geometry.boundingBox.clone().applyMatrix4(contentMatrix(m)));
      }
      for (const m of chunk.facade) {
        const s = contentSphere(m);
        box.expandByPoint(s.center.clone().addScalar(s.radius)).expandByPoint(s.center.clone().subScalar(s.radius));
      }
      if (!box.isEmpty()) box.getBoundingSphere(chunk.sphere);
    }
    if (tileChunk) {
      // The tile switches its facades as one: its chunks keep their ground only.
      for (const chunk of part.chunks) chunk.facade = [];
      if (tileChunk.facade.length > 0 || tileChunk.roof.length > 0) part.chunks.push(tileChunk);
    }
    // Far building volumes from the roof outlines (the facade modules hold the walls).
    for (const chunk of part.chunks) {
      for (const roof of chunk.roof) {
        const m = contentMatrix(roof);
        const floorY = Number.isFinite(chunk.floorY) ? chunk.floorY - 1 : roof.geometry.boundingBox?.min.y ?? 0;
        // volumeFromRoof works in the roof's frame: take the floor there (no rotation or scale).
        // A tile switches its facades as one, and a near tile's far modules are culled one by
        // one: its volume stays, inset behind the modules' glass.
        const g = volumeFromRoof(roof.geometry, floorY - m.elements[13], chunk.tile ? TILE_VOLUME_INSET_M : 0);
        if (!g) continue;
        const mesh = new THREE.Mesh(g, this.volumeMaterial);
        mesh.name = `${chunk.name}.volume`;
        mesh.matrixAutoUpdate = false;
        mesh.matrix.copy(m);
        g.computeBoundingSphere();
        const sphere = g.boundingSphere.clone().applyMatrix4(m);
        root.add(mesh);
        mesh.updateMatrixWorld(true);
        chunk.volume = mesh;
        part.created.push(g);
        part.volumes.push({ mesh, sphere, part });
      }
    }
    this.mergeBase(root, part, bases, group);
  }

  /// Merges the chunks' ground and roof meshes per material over blocks of group x group chunks
  /// (all of them when group is 0): software WebGL pays per draw call, and 575 chunks x 7
  /// materials is 4,000 of them.
  mergeBase(root, part, bases, group) {
    const groups = new Map();
    for (const { chunk, mesh } of bases) {
      const m = /^chunk_(-?\d+)_(-?\d+)/.exec(chunk.name);
      const gi = m && group ? Math.floor(Number(m[1]) / group) : 0;
      const gj = m && group ? Math.floor(Number(m[2]) / group) : 0;
      const attrs = Object.keys(mesh.geometry.attributes).sort().join(',');
      const key = `${gi},${gj}|${mesh.material.name}|${attrs}|${mesh.geometry.index ? 1 : 0}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { material: mesh.material, layer: mesh.userData.layer, meshes: [] }));
      g.meshes.push(mesh);
    }
    for (const [key, g] of groups) {
      const geos = g.meshes.map((m) => m.geometry.clone().applyMatrix4(contentMatrix(m)));
      const geo = geos.length === 1 ? geos[0] : mergeGeometries(geos);
      if (geos.length > 1) for (const x of geos) x.dispose();
      if (!geo) {
        console.warn(`city: cannot merge ${key}; chunks kept apart`);
        continue;
      }
      geo.computeBoundingSphere();
      const mesh = new THREE.Mesh(geo, g.material);
      mesh.name = `ground.${key.split('|').slice(0, 2).join('.')}`;
      mesh.userData.layer = g.layer;
      mesh.matrixAutoUpdate = false;
      for (const m of g.meshes) {
        m.parent.remove(m);
        m.geometry.dispose();
      }
      root.add(mesh);
      mesh.updateMatrixWorld(true);
      part.created.push(geo);
      part.merged.push(mesh);
    }
    for (const chunk of part.chunks) chunk.base = [];
  }

  noteMaterial(material) {
    for (const m of Array.isArray(material) ? material : [material]) {
      if (m && m.name && !this.materials.has(m.name)) this.materials.set(m.name, m);
    }
  }

  addDetail(part, object, category) {
    const sphere = contentSphere(object);
    part.detail.push({ object, category, sphere, limit: DETAIL_DISTANCE_M[category] ?? 300, part });
  }

  /// Distance culling of detail and counting of chunks inside the view frustum.
  /// Cheap enough to run every frame; the per-object loop skips when the camera has not moved.
  update(camera) {
    camera.updateMatrixWorld();
    this._m.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this._frustum.setFromProjectionMatrix(this._m);
    let visible = 0;
    for (const c of this.chunks) if (c.part.visible && this._frustum.intersectsSphere(c.sphere)) visible++;
    this.visibleChunks = visible;

    const p = camera.position;
    const dir = camera.getWorldDirection(this._dir || (this._dir = new THREE.Vector3()));
    const moved = p.distanceToSquared(this._lastCull);
    const turned = this._lastDir ? 1 - dir.dot(this._lastDir) : 1;
    if (moved < 4 && turned < 0.002 && !this._dirty) return;
    const now = performance.now();
    // A camera moving smoothly re-culls at most every RECULL_MS; a jump re-culls at once.
    if (!this._dirty && moved < 2500 && turned < 0.05 && now - (this._lastCullMs ?? 0) < RECULL_MS) return;
    this._lastCullMs = now;
    this._lastCull.copy(p);
    this._lastDir = (this._lastDir || new THREE.Vector3()).copy(dir);
    this._dirty = false;
    // A high camera looks at the city from afar: detail is culled by the distance to its sphere.
    for (const d of this.detail) {
      if (!d.part.visible) continue;
      const dist = p.distanceTo(d.sphere.center) - d.sphere.radius;
      const on = d.category === 'facade' || d.category === 'rooftops' ? this.show.buildings : this.show.props;
      d.object.visible = on && dist < d.limit;
      if (d.object.visible && d.object.isInstancedMesh && this.instanceCulling) {
        cullInstances(d.object, p, this._frustum, d.limit);
      }
    }
    // Facade modules go chunk by chunk; the chunk's volume stands in where they are hidden.
    for (const c of this.chunks) {
      if (!c.part.visible) continue;
      const limit = DETAIL_DISTANCE_M.facade * this.detailScale;
      const near = p.distanceTo(c.sphere.center) - c.sphere.radius < limit;
      for (const m of c.facade) {
        m.visible = this.show.buildings && near;
        if (m.visible && this.instanceCulling) cullInstances(m, p, this._frustum, limit);
      }
      if (c.volume) c.volume.visible = this.show.buildings && (!near || c.tile === true);
    }
    for (const m of this.merged) m.visible = m.userData.layer === 'ground' || this.show.buildings;
  }

  setShow(what, on) {
    this.show[what] = on;
    this._dirty = true;
  }

  /// Whether an object of the city's content is in a part that is shown.
  isShown(object) {
    const part = object.userData.cfPart;
    return object.visible && (!part || part.visible);
  }

  stats() {
    return { chunks_visible: this.visibleChunks, chunks_total: this.chunks.length };
  }
}
