// SPDX-License-Identifier: Apache-2.0
// The tiles' frame: content in city.glb's coordinates, turned z-up by the tiles renderer and
// placed on the globe by the root transform, lands back where city.glb puts it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

let mod = null;
let THREE = null;
try {
  THREE = await import('three');
  mod = await import('../src/tiles.js');
} catch {
  // npm ci not run: skipped below.
}

/// ENU -> ECEF at (lon, lat) on WGS84, column-major, as a tileset root transform.
function enuToEcef(lonDeg, latDeg, h) {
  const lon = (lonDeg * Math.PI) / 180;
  const lat = (latDeg * Math.PI) / 180;
  const a = 6378137;
  const e2 = (1 / 298.257223563) * (2 - 1 / 298.257223563);
  const n = a / Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
  const p = [(n + h) * Math.cos(lat) * Math.cos(lon), (n + h) * Math.cos(lat) * Math.sin(lon), (n * (1 - e2) + h) * Math.sin(lat)];
  const east = [-Math.sin(lon), Math.cos(lon), 0];
  const north = [-Math.sin(lat) * Math.cos(lon), -Math.sin(lat) * Math.sin(lon), Math.cos(lat)];
  const up = [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
  return [...east, 0, ...north, 0, ...up, 0, ...p, 1];
}

test('a content point goes through the renderer and back to city.glb coordinates', { skip: !mod }, () => {
  for (const [lon, lat] of [[0, 0], [-73.99, 40.73], [1.52, 42.51], [151.2, -33.9]]) {
    const root = enuToEcef(lon, lat, 35);
    // What the renderer does to a content point: y-up -> z-up, then the root transform.
    const renderer = new THREE.Matrix4().fromArray(root).multiply(new THREE.Matrix4().makeRotationX(Math.PI / 2));
    const world = mod.viewerFromTileset(root).multiply(renderer);
    // City (x east, y north, z up) = (812, 1533, 47) is glb (812, 47, -1533).
    const p = new THREE.Vector3(812, 47, -1533).applyMatrix4(world);
    assert.ok(p.distanceTo(new THREE.Vector3(812, 47, -1533)) < 1e-6, `at ${lon}, ${lat}: ${p.toArray()}`);
  }
});

test('no root transform: only the z-up turn is undone', { skip: !mod }, () => {
  const m = mod.viewerFromTileset(undefined);
  const p = new THREE.Vector3(1, 2, 3).applyMatrix4(m); // ENU (1, 2, 3) -> three (1, 3, -2)
  assert.deepEqual(p.toArray().map((v) => Math.round(v * 1e9) / 1e9), [1, 3, -2]);
});

test('the root box in the viewer frame', { skip: !mod }, () => {
  const b = mod.rootBoxToViewer([1050, 1050, 93, 1200, 0, 0, 0, 1100, 0, 0, 0, 100]);
  assert.deepEqual(b.min.toArray(), [-150, -7, -2150]);
  assert.deepEqual(b.max.toArray(), [2250, 193, 50]);
  assert.equal(mod.rootBoxToViewer([1, 2, 3]), null);
});

test('tiles share one source per image name; each image is copied once', { skip: !mod }, () => {
  const copies = [];
  const shared = new mod.SharedTextures((image) => {
    copies.push(image.id);
    return { width: image.width, height: image.height, copyOf: image.id };
  });
  /// A tile's scene as GLTFLoader makes it: per material, clones of one texture per image
  /// (each slot's transform) sharing the loader's source; roughness and metalness one texture.
  const tile = (n) => {
    const scene = new THREE.Group();
    const images = {};
    const texture = (name) => {
      images[name] ??= new THREE.Texture({ id: `${name}@${n}`, width: 4, height: 4 });
      const t = images[name].clone();
      t.name = name;
      return t;
    };
    for (const surface of ['brick', 'asphalt']) {
      const mat = new THREE.MeshStandardMaterial();
      mat.map = texture(`${surface}.base_colour`);
      mat.normalMap = texture(`${surface}.normal`);
      mat.roughnessMap = mat.metalnessMap = texture(`${surface}.metallic_roughness`);
      scene.add(new THREE.Mesh(new THREE.BufferGeometry(), mat));
    }
    const plain = new THREE.Mesh(new THREE.BufferGeometry(), new THREE.MeshStandardMaterial());
    scene.add(plain);
    return scene;
  };
  const a = tile(1);
  const b = tile(2);
  shared.adopt(a);
  shared.adopt(b);
  assert.equal(shared.sources.size, 6);
  assert.deepEqual(copies.sort(), ['asphalt.base_colour@1', 'asphalt.metallic_roughness@1', 'asphalt.normal@1',
    'brick.base_colour@1', 'brick.metallic_roughness@1', 'brick.normal@1']);
  const slots = (scene) => scene.children.filter((m) => m.material.map).map((m) => m.material);
  for (const [ma, mb] of slots(a).map((m, i) => [m, slots(b)[i]])) {
    for (const slot of ['map', 'normalMap', 'roughnessMap', 'metalnessMap']) {
      assert.equal(ma[slot].source, mb[slot].source, slot);
      assert.equal(ma[slot].source, shared.sources.get(ma[slot].name));
      assert.equal(mb[slot].source.data.copyOf, `${ma[slot].name}@1`);
    }
  }
  // Adopting again changes nothing.
  const n = shared.adopted;
  shared.adopt(b);
  assert.equal(shared.adopted, n);
  // A tile's weight for the renderer's cache leaves the shared images out (they are held once
  // for the whole tileset) and counts a texture of its own.
  const geometryOnly = shared.bytesUsed(b);
  const own = new THREE.MeshStandardMaterial();
  own.map = new THREE.Texture({ width: 64, height: 64 });
  own.map.generateMipmaps = false;
  b.add(new THREE.Mesh(new THREE.BufferGeometry(), own));
  assert.equal(shared.bytesUsed(b) - geometryOnly, 64 * 64 * 4);
});
