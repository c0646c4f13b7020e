// SPDX-License-Identifier: Apache-2.0
// Loads city.glb (chunks, facade modules, props and WFC rooftops instanced with
// EXT_mesh_gpu_instancing) and keeps the software renderer interactive: chunks are
// frustum-culled by three (their bounding spheres are right once InstancedMesh spheres cover all
// instances) and detail (facade modules, props, rooftops) is hidden beyond a per-category
// distance. Far buildings keep a cheap volume: walls extruded down from each chunk's roof
// outline, shown where the facade modules are culled.
//
// Axes: the city is x east, y north, z up; the glb is y up with glb (x, y, z) = city (x, z, -y).

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';

/// Distance (m) beyond which each kind of detail is hidden, measured to its bounding sphere.
export const DETAIL_DISTANCE_M = {
  facade: 420,
  props_lighting: 600,
  props_signals: 450,
  props_vegetation: 450,
  props_furniture: 220,
  props_sidewalk: 260,
  props_ground: 260,
  props_biome: 320,
  rooftops: 500, // WFC rooftop tiles: seen from above, so further than the street props
};

const INSTANCE_MARGIN_M = 12; // an instance's reach beyond its origin (modules, props)
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
    orig = { n: mesh.count, matrix: mesh.instanceMatrix.array.slice(), attrs, world: mesh.matrixWorld.clone() };
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

/// Walls extruded from the outline of a roof mesh (edges used by one triangle) down to `floorY`.
function volumeFromRoof(geometry, floorY) {
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
      else edges.set(k, { a, b, count: 1 });
    }
  }
  const verts = [];
  for (const e of edges.values()) {
    if (e.count !== 1) continue;
    const ax = pos.getX(e.a), ay = pos.getY(e.a), az = pos.getZ(e.a);
    const bx = pos.getX(e.b), by = pos.getY(e.b), bz = pos.getZ(e.b);
    // Only edges near the roof's own level (skip vertical roof parts' edges that are low).
    if (ay < floorY + 2 || by < floorY + 2) continue;
    verts.push(ax, ay, az, bx, by, bz, bx, floorY, bz, ax, ay, az, bx, floorY, bz, ax, floorY, az);
  }
  if (verts.length === 0) return null;
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(verts, 3));
  g.computeVertexNormals();
  return g;
}

export class City {
  constructor() {
    this.root = null;
    this.chunks = []; // {name, base: [Mesh], center: Vector3, sphere: Sphere}
    this.detail = []; // {object, category, sphere: Sphere, style}
    this.volumes = []; // {mesh, sphere}
    this.materials = new Map(); // name -> material
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
    this.classify();
    this.bounds.setFromObject(this.root);
    return this;
  }

  classify() {
    // The scene and its root node are both named 'city' (the loader renames one 'city_1'):
    // take the object the chunks hang off.
    let city = this.root;
    this.root.traverse((o) => {
      if (city === this.root && o.children.some((c) => c.name.startsWith('chunk_'))) city = o;
    });
    const chunkByName = new Map();
    for (const top of city.children) {
      const name = top.name || '';
      if (name.startsWith('chunk_')) {
        const chunk = { name, base: [], facade: [], volume: null, sphere: new THREE.Sphere(), roof: [], floorY: Infinity };
        chunkByName.set(name, chunk);
        this.chunks.push(chunk);
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          if (o.isInstancedMesh) {
            chunk.facade.push(o);
            if (/\.glass$/.test(o.material.name)) this.glassMeshes.push(o);
          } else {
            chunk.base.push(o);
            o.userData.layer = /^(roof|parapet)$/.test(o.material.name) ? 'building' : 'ground';
            if (o.material.name === 'roof') chunk.roof.push(o);
            if (o.material.name === 'sidewalk' || o.material.name === 'block' || o.material.name === 'terrain') {
              o.geometry.computeBoundingBox();
              chunk.floorY = Math.min(chunk.floorY, o.geometry.boundingBox.min.y);
            }
          }
        });
        const box = new THREE.Box3();
        for (const m of chunk.base) box.expandByObject(m);
        for (const m of chunk.facade) {
          m.computeBoundingSphere();
          const s = m.boundingSphere.clone().applyMatrix4(m.matrixWorld);
          box.expandByPoint(s.center.clone().addScalar(s.radius)).expandByPoint(s.center.clone().subScalar(s.radius));
        }
        box.getBoundingSphere(chunk.sphere);
      } else if (name === 'rooftops') {
        // WFC rooftop tiles per region: culled like props, shown with the buildings.
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          this.addDetail(o, 'rooftops');
        });
      } else if (name.startsWith('props_')) {
        top.traverse((o) => {
          if (!o.isMesh) return;
          this.noteMaterial(o.material);
          this.addDetail(o, name);
          if (name === 'props_lighting') this.lampSources.push(o);
        });
      }
    }
    // Far building volumes from the roof outlines (the facade modules hold the walls).
    const wallMat = new THREE.MeshStandardMaterial({ color: 0x9a958c, roughness: 0.9, name: 'volume' });
    this.volumeMaterial = wallMat;
    for (const chunk of this.chunks) {
      for (const roof of chunk.roof) {
        const floorY = Number.isFinite(chunk.floorY) ? chunk.floorY - 1 : roof.geometry.boundingBox?.min.y ?? 0;
        const g = volumeFromRoof(roof.geometry, floorY);
        if (!g) continue;
        const mesh = new THREE.Mesh(g, wallMat);
        mesh.name = `${chunk.name}.volume`;
        mesh.matrixAutoUpdate = false;
        mesh.matrix.copy(roof.matrixWorld);
        mesh.matrixWorld.copy(roof.matrixWorld);
        g.computeBoundingSphere();
        const sphere = g.boundingSphere.clone().applyMatrix4(roof.matrixWorld);
        this.root.add(mesh);
        mesh.updateMatrixWorld(true);
        chunk.volume = mesh;
        this.volumes.push({ mesh, sphere });
      }
    }
    this.mergeBase();
  }

  /// Merges the chunks' ground and roof meshes per material over blocks of GROUP x GROUP chunks:
  /// software WebGL pays per draw call, and 575 chunks x 7 materials is 4,000 of them.
  mergeBase(GROUP = 4) {
    const groups = new Map();
    for (const chunk of this.chunks) {
      const m = /^chunk_(-?\d+)_(-?\d+)/.exec(chunk.name);
      const gi = m ? Math.floor(Number(m[1]) / GROUP) : 0;
      const gj = m ? Math.floor(Number(m[2]) / GROUP) : 0;
      for (const mesh of chunk.base) {
        const attrs = Object.keys(mesh.geometry.attributes).sort().join(',');
        const key = `${gi},${gj}|${mesh.material.name}|${attrs}|${mesh.geometry.index ? 1 : 0}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { material: mesh.material, layer: mesh.userData.layer, meshes: [] }));
        g.meshes.push(mesh);
      }
    }
    const merged = [];
    for (const [key, g] of groups) {
      const geos = g.meshes.map((m) => {
        m.updateMatrixWorld(true);
        return m.geometry.clone().applyMatrix4(m.matrixWorld);
      });
      const geo = geos.length === 1 ? geos[0] : mergeGeometries(geos);
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
      this.root.add(mesh);
      merged.push(mesh);
    }
    this.merged = merged;
    for (const chunk of this.chunks) chunk.base = [];
  }

  noteMaterial(material) {
    for (const m of Array.isArray(material) ? material : [material]) {
      if (m && m.name && !this.materials.has(m.name)) this.materials.set(m.name, m);
    }
  }

  addDetail(object, category) {
    object.updateMatrixWorld(true);
    if (object.isInstancedMesh) object.computeBoundingSphere();
    else object.geometry.computeBoundingSphere();
    const local = object.isInstancedMesh ? object.boundingSphere : object.geometry.boundingSphere;
    const sphere = local.clone().applyMatrix4(object.matrixWorld);
    this.detail.push({ object, category, sphere, limit: DETAIL_DISTANCE_M[category] ?? 300 });
  }

  /// Distance culling of detail and counting of chunks inside the view frustum.
  /// Cheap enough to run every frame; the per-object loop skips when the camera has not moved.
  update(camera) {
    camera.updateMatrixWorld();
    this._m.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this._frustum.setFromProjectionMatrix(this._m);
    let visible = 0;
    for (const c of this.chunks) if (this._frustum.intersectsSphere(c.sphere)) visible++;
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
      const dist = p.distanceTo(d.sphere.center) - d.sphere.radius;
      const on = d.category === 'facade' || d.category === 'rooftops' ? this.show.buildings : this.show.props;
      d.object.visible = on && dist < d.limit;
      if (d.object.visible && d.object.isInstancedMesh && this.instanceCulling) {
        cullInstances(d.object, p, this._frustum, d.limit);
      }
    }
    // Facade modules go chunk by chunk; the chunk's volume stands in where they are hidden.
    for (const c of this.chunks) {
      const near = p.distanceTo(c.sphere.center) - c.sphere.radius < DETAIL_DISTANCE_M.facade * this.detailScale;
      for (const m of c.facade) {
        m.visible = this.show.buildings && near;
        if (m.visible && this.instanceCulling) cullInstances(m, p, this._frustum, DETAIL_DISTANCE_M.facade * this.detailScale);
      }
      if (c.volume) c.volume.visible = this.show.buildings && !near;
    }
    for (const m of this.merged) m.visible = m.userData.layer === 'ground' || this.show.buildings;
  }

  setShow(what, on) {
    this.show[what] = on;
    this._dirty = true;
  }

  stats() {
    return { chunks_visible: this.visibleChunks, chunks_total: this.chunks.length };
  }
}
