// SPDX-License-Identifier: Apache-2.0
// Streams a city written as OGC 3D Tiles 1.1 (DIR/tiles/tileset.json, issue 22) with
// 3d-tiles-renderer: level of detail by screen-space error over the tileset's quadtree, a
// download and a parse queue, and an LRU cache that bounds memory however big the city is.
// Each tile's glTF scene goes through the City's classification as it loads (chunks, facade
// modules with _BUILDING / _FLOOR / _ROOM, props with _STATE, roofs and their volumes, HLOD
// stand-ins with vertex colours) and out of it when the renderer disposes the tile.
//
// Frames: tile content is glTF y-up in city.glb's coordinates. The renderer turns it z-up (the
// tileset's local ENU frame, x east, y north, z up) and applies the root transform (ENU ->
// ECEF). The viewer's world is city.glb's frame, so the renderer's group carries the inverse of
// both: tiles land exactly where city.glb's meshes are.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { estimateBytesUsed as geometryBytes } from 'three/addons/utils/BufferGeometryUtils.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { Scheduler, TilesRenderer } from '3d-tiles-renderer';

/// Where a tiled city keeps its tileset, next to city.glb.
export const TILESET_PATH = 'tiles/tileset.json';

/// Whether `base` (the city folder's URL, ending in '/') holds a tileset.
export async function hasTileset(base) {
  try {
    const res = await fetch(`${base}${TILESET_PATH}`, { method: 'HEAD' });
    return res.ok;
  } catch {
    return false;
  }
}

/// The matrix that takes the tiles renderer's frame (ECEF; the root transform applied to the
/// z-up turned content) back to city.glb's frame: inverse(rootTransform * Rx(+90 deg)).
/// `rootTransform`: the tileset root's 16 numbers, column-major (identity when absent).
export function viewerFromTileset(rootTransform) {
  const m = new THREE.Matrix4();
  if (Array.isArray(rootTransform) && rootTransform.length === 16) m.fromArray(rootTransform);
  const upToZ = new THREE.Matrix4().makeRotationX(Math.PI / 2);
  return m.multiply(upToZ).invert();
}

/// The tileset root's box (local ENU, metres) as a box in city.glb's frame (three: x east,
/// y up, z south), for cameras that need the city's extent.
export function rootBoxToViewer(box) {
  if (!Array.isArray(box) || box.length !== 12) return null;
  const [cx, cy, cz] = box;
  const half = [0, 1, 2].map((k) => Math.abs(box[3 + k]) + Math.abs(box[6 + k]) + Math.abs(box[9 + k]));
  return new THREE.Box3(
    new THREE.Vector3(cx - half[0], cz - half[2], -(cy + half[1])),
    new THREE.Vector3(cx + half[0], cz + half[2], -(cy - half[1])),
  );
}

/// Tuning for software WebGL (SwiftShader, llvmpipe) and for GPUs.
export const TILE_SETTINGS = {
  software: { errorTarget: 96, maxBytesMiB: 160, downloadJobs: 6, parseJobs: 2 },
  gpu: { errorTarget: 12, maxBytesMiB: 600, downloadJobs: 12, parseJobs: 4 },
};

const PUMP_MS = 100; // tile selection between frames while tiles load

/// The material slots that can hold a texture the tiles share.
const TEXTURE_SLOTS = ['map', 'normalMap', 'roughnessMap', 'metalnessMap', 'emissiveMap', 'aoMap', 'alphaMap'];

/// Copies a decoded image into a canvas (the renderer closes the ImageBitmaps of tiles it
/// disposes, so a shared copy must not be one).
function canvasCopy(image) {
  const c = document.createElement('canvas');
  c.width = image.width;
  c.height = image.height;
  c.getContext('2d').drawImage(image, 0, 0);
  return c;
}

/// The leaves' images are files every tile refers to (tiles/textures/, docs/tiles.md), but each
/// tile's glTF loader decodes its own copy: unshared, every loaded leaf would upload the same
/// images again (about 12 MB of texture memory each at 256 px). The first copy of an image (by
/// name, "<surface>.<map>": one file each) becomes the source of every later tile's textures of
/// that name, and the tile's own decoded copy is released at once. Three.js then uploads each
/// image once and counts its users, so it leaves the GPU only when no loaded tile uses it.
export class SharedTextures {
  /// copy(image) -> what the shared source holds (a canvas in the browser).
  constructor(copy = canvasCopy) {
    this.copy = copy;
    this.sources = new Map();
    this.adopted = 0; // textures given a shared source
  }

  /// Gives every named texture of `scene`'s materials the shared source of its name.
  adopt(scene) {
    scene.traverse((o) => {
      if (!o.material) return;
      for (const m of Array.isArray(o.material) ? o.material : [o.material]) {
        for (const slot of TEXTURE_SLOTS) {
          const t = m[slot];
          if (t && t.isTexture && t.name) this.share(t);
        }
      }
    });
  }

  /// Whether `texture` draws from a shared source.
  isShared(texture) {
    return this.sources.get(texture.name) === texture.source;
  }

  /// What `scene` holds in memory besides the shared images (counted once, not per tile):
  /// geometry, and textures of its own (each texture object once).
  bytesUsed(scene) {
    const seen = new Set();
    let bytes = 0;
    scene.traverse((o) => {
      if (o.geometry && !seen.has(o.geometry)) {
        seen.add(o.geometry);
        bytes += geometryBytes(o.geometry);
      }
      if (!o.material) return;
      for (const m of Array.isArray(o.material) ? o.material : [o.material]) {
        for (const value of Object.values(m)) {
          if (!value || !value.isTexture || seen.has(value) || this.isShared(value)) continue;
          seen.add(value);
          const img = value.image;
          if (img && img.width && img.height) bytes += img.width * img.height * 4 * (value.generateMipmaps ? 4 / 3 : 1);
        }
      }
    });
    return bytes;
  }

  share(texture) {
    let source = this.sources.get(texture.name);
    if (source === texture.source) return;
    const own = texture.source.data;
    if (!source) {
      source = new THREE.Source(this.copy(own));
      this.sources.set(texture.name, source);
    }
    texture.source = source;
    texture.needsUpdate = true;
    this.adopted++;
    // Clones of one texture (glTF's per-slot transforms) share the loader's source: close it
    // once, after the last of them took the shared one (close() is idempotent).
    if (typeof ImageBitmap !== 'undefined' && own instanceof ImageBitmap) own.close();
  }
}

export class CityTiles {
  /// city: City (gets one part per loaded tile); url: the tileset.json URL.
  constructor(city, url, { camera, renderer, software = false, errorTarget = null, cacheMiB = null } = {}) {
    const set = software ? TILE_SETTINGS.software : TILE_SETTINGS.gpu;
    this.city = city;
    this.camera = camera;
    this.renderer = renderer;
    const tiles = new TilesRenderer(url);
    this.tiles = tiles;
    tiles.errorTarget = errorTarget ?? set.errorTarget;
    // Chunks and facade meshes inside a tile are culled by three as well (the renderer culls
    // whole tiles only).
    tiles.autoDisableRendererCulling = false;
    const cacheBytes = (cacheMiB ?? set.maxBytesMiB) * 2 ** 20;
    tiles.lruCache.maxBytesSize = cacheBytes;
    tiles.lruCache.minBytesSize = 0.75 * cacheBytes;
    tiles.downloadQueue.maxJobsPerOrigin = set.downloadJobs;
    tiles.parseQueue.maxJobs = set.parseJobs;
    if (software) {
      // The renderer's queues (downloads, parses, tile set-up) start their next jobs on the
      // next animation frame: at the second or more a software-rendered frame takes, 50 tiles
      // took 30 s to come in. Its scheduler takes any object with requestAnimationFrame (made
      // for XR sessions); timers let the queues run between frames.
      Scheduler.setXRSession({
        requestAnimationFrame: (cb) => setTimeout(cb, 0),
        cancelAnimationFrame: (handle) => clearTimeout(handle),
      });
    }
    // Tile content is EXT_meshopt_compression'ed by default (docs/tiles.md): the renderer takes
    // a glTF loader registered with its loading manager, here one with three's meshopt decoder.
    const gltf = new GLTFLoader(tiles.manager);
    gltf.setMeshoptDecoder(MeshoptDecoder);
    tiles.manager.addHandler(/\.(gltf|glb)$/i, gltf);
    tiles.setCamera(camera);
    tiles.setResolutionFromRenderer(camera, renderer);
    tiles.group.matrixAutoUpdate = false;
    tiles.group.name = 'tiles';
    this.root = tiles.group;

    this.counts = { loaded: 0, unloaded: 0, failed: 0 };
    this.classifyMs = 0; // main-thread time spent classifying loaded tiles (City.addContent)
    this.loadingSince = null; // performance.now() of the last 'tiles-load-start'
    this.firstCompleteMs = null; // first time every tile the first view asked for was in
    this.firstContentMs = null; // first time a tile's content was shown
    this.rootBox = null; // THREE.Box3 in the viewer's frame
    this.statusEl = typeof document !== 'undefined' ? document.getElementById('tiles-status') : null;
    this._statusAt = 0;

    this.ready = new Promise((resolve, reject) => {
      tiles.addEventListener('load-root-tileset', ({ tileset }) => {
        const root = tileset.root || {};
        tiles.group.matrix.copy(viewerFromTileset(root.transform));
        tiles.group.updateMatrixWorld(true);
        this.rootBox = rootBoxToViewer(root.boundingVolume && root.boundingVolume.box);
        resolve(tileset);
      });
      tiles.addEventListener('load-error', ({ tile, error, url: where }) => {
        if (!tile) reject(new Error(`${where}: ${error && error.message}`));
        else this.counts.failed++;
      });
    });
    // The shared images are adopted as each tile is parsed, before the renderer weighs the tile
    // for its memory cache, and left out of that weight: counted per tile (and per material
    // slot: each slot's texture is its own object), 30 images of 256 px made every leaf weigh
    // 40 MB more than it holds, and a software-sized cache (160 MiB) filled after a few leaves,
    // so no more were loaded.
    this.textures = new SharedTextures();
    const parseTile = tiles.parseTile.bind(tiles);
    tiles.parseTile = async (...args) => {
      const out = await parseTile(...args);
      const scene = args[1] && args[1].engineData && args[1].engineData.scene;
      if (scene) this.textures.adopt(scene);
      return out;
    };
    const weights = new WeakMap();
    tiles.calculateBytesUsed = (tile, scene) => {
      if (!weights.has(tile) && scene) weights.set(tile, this.textures.bytesUsed(scene));
      return weights.get(tile) ?? null;
    };
    tiles.addEventListener('load-model', ({ scene, tile, url: where }) => {
      this.counts.loaded++;
      const t0 = performance.now();
      this.textures.adopt(scene);
      const part = city.addContent(scene, tile, { name: where });
      part.visible = tiles.visibleTiles.has(tile);
      this.classifyMs += performance.now() - t0;
    });
    tiles.addEventListener('dispose-model', ({ tile }) => {
      this.counts.unloaded++;
      city.removeContent(tile);
    });
    tiles.addEventListener('tile-visibility-change', ({ tile, visible }) => {
      city.setPartVisible(tile, visible);
      if (visible && this.firstContentMs === null) this.firstContentMs = performance.now();
    });
    tiles.addEventListener('tiles-load-start', () => {
      this.loadingSince = performance.now();
    });
    let firstViewDone;
    /// Resolves once every tile of the first view is in (what else the page fetches waits for it).
    this.firstView = new Promise((resolve) => {
      firstViewDone = resolve;
    });
    tiles.addEventListener('tiles-load-end', () => {
      if (this.firstCompleteMs === null && this.counts.loaded > 0) {
        this.firstCompleteMs = performance.now();
        firstViewDone();
      }
      this.loadingSince = null;
    });
    // The first update fetches tileset.json (`ready`); tiles follow in the frame loop, and
    // between frames: software WebGL draws a frame in a second or more, and the renderer
    // only queues the next level of tiles in update(), so loading would crawl at the frame
    // rate. The pump runs while tiles are in flight or the first view is not complete.
    tiles.update();
    this._pump = setInterval(() => {
      if (tiles.root && (this.loading > 0 || this.firstCompleteMs === null)) this.tiles.update();
    }, PUMP_MS);
  }

  /// Once per frame, after the camera moved: picks, loads and shows tiles for this view.
  update() {
    this.tiles.setResolutionFromRenderer(this.camera, this.renderer);
    this.tiles.update();
    this.showStatus();
  }

  /// Tiles in flight (queued, downloading, parsing).
  get loading() {
    const s = this.tiles.stats;
    return s.queued + s.downloading + s.parsing;
  }

  stats() {
    const s = this.tiles.stats;
    return {
      tiles_loaded: this.counts.loaded,
      tiles_unloaded: this.counts.unloaded,
      tiles_failed: this.counts.failed,
      tiles_loading: this.loading,
      tiles_visible: this.tiles.visibleTiles.size,
      tiles_cached: s.inCache,
      tiles_bytes_cached: this.tiles.lruCache.cachedBytes ?? null,
      tiles_error_target: this.tiles.errorTarget,
      tiles_classify_ms: this.classifyMs,
      tiles_shared_images: this.textures.sources.size,
      tiles_first_content_ms: this.firstContentMs,
      tiles_first_complete_ms: this.firstCompleteMs,
    };
  }

  /// The small, non-blocking indicator (#tiles-status), at most 4 times a second.
  showStatus() {
    const el = this.statusEl;
    if (!el) return;
    const now = performance.now();
    if (now - this._statusAt < 250) return;
    this._statusAt = now;
    const n = this.loading;
    el.style.display = 'block';
    el.classList.toggle('busy', n > 0);
    el.textContent =
      `tiles: ${n > 0 ? `${n} loading · ` : ''}${this.tiles.visibleTiles.size} shown · ` +
      `${this.counts.loaded} loaded · ${this.counts.unloaded} unloaded` +
      (this.counts.failed ? ` · ${this.counts.failed} failed` : '');
  }

  dispose() {
    clearInterval(this._pump);
    this.tiles.dispose();
  }
}
