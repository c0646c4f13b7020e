#!/usr/bin/env node
// Headless preview renderer for cityforge city.glb files.
//
//   node tools/preview/render.mjs CITY.glb OUT_PREFIX [--size 1600x1000]
//
// Serves a small three.js page plus the glb from a throw-away HTTP server on
// 127.0.0.1, drives Debian's Chromium (software WebGL via SwiftShader) through
// playwright-core and writes OUT_PREFIX-{aerial,top,street}.png.

import { createServer } from 'node:http';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const THREE_DIR = path.join(HERE, 'node_modules', 'three');
const CHROMIUM = '/usr/bin/chromium';
const TIMEOUT_MS = 120_000;
const VIEWS = ['aerial', 'top', 'street'];

function usage(msg) {
  if (msg) console.error(`render.mjs: ${msg}`);
  console.error('usage: node tools/preview/render.mjs CITY.glb OUT_PREFIX [--size WIDTHxHEIGHT] ' +
                '[--focus X,Y,HALF_SIZE] [--views aerial,top,street]');
  process.exit(2);
}

function parseArgs(argv) {
  const pos = [];
  let size = '1600x1000';
  let focus = null;
  let views = VIEWS;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--size') {
      if (i + 1 >= argv.length) usage('--size needs a value');
      size = argv[++i];
    } else if (a.startsWith('--size=')) {
      size = a.slice('--size='.length);
    } else if (a === '--focus') {
      if (i + 1 >= argv.length) usage('--focus needs X,Y,HALF_SIZE');
      focus = argv[++i].split(',').map(Number);
      if (focus.length !== 3 || focus.some((v) => !Number.isFinite(v)) || focus[2] <= 0) {
        usage(`bad --focus '${argv[i]}', expected X,Y,HALF_SIZE in metres`);
      }
    } else if (a === '--views') {
      if (i + 1 >= argv.length) usage('--views needs a list, e.g. street,top');
      views = argv[++i].split(',');
      if (views.length === 0 || views.some((v) => !VIEWS.includes(v))) {
        usage(`bad --views '${argv[i]}', expected some of ${VIEWS.join(',')}`);
      }
    } else if (a === '-h' || a === '--help') {
      usage();
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      pos.push(a);
    }
  }
  if (pos.length !== 2) usage('expected CITY.glb and OUT_PREFIX');
  const m = /^(\d+)x(\d+)$/.exec(size);
  if (!m) usage(`bad --size '${size}', expected e.g. 1600x1000`);
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (width < 16 || height < 16 || width > 8192 || height > 8192) usage(`--size ${size} out of range`);
  return { glb: path.resolve(pos[0]), prefix: path.resolve(pos[1]), width, height, focus, views };
}

// ---------------------------------------------------------------------------
// The page. Everything below runs inside Chromium.
// ---------------------------------------------------------------------------
function pageHtml(width, height, focus) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>cityforge preview</title>
<style>html,body{margin:0;background:#000;overflow:hidden}</style>
<script type="importmap">
{ "imports": { "three": "/three/build/three.module.js", "three/addons/": "/three/examples/jsm/" } }
</script></head>
<body>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const W = ${width}, H = ${height};
const FOCUS = ${JSON.stringify(focus)}; // [x, y, half-size] in engine metres (y north), or null
const SKY = new THREE.Color(0xb8cfe6);

function fail(err) {
  window.__previewError = String(err && err.stack ? err.stack : err);
}

try {
  const canvas = document.createElement('canvas');
  canvas.width = W; canvas.height = H;
  document.body.appendChild(canvas);
  const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
  if (!gl) throw new Error('WebGL2 is not available in this Chromium (SwiftShader missing?)');
  const renderer = new THREE.WebGLRenderer({ canvas, context: gl, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(W, H, false);
  renderer.setClearColor(SKY, 1);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFSoftShadowMap;
  const glInfo = renderer.getContext().getParameter(renderer.getContext().VERSION);

  const scene = new THREE.Scene();
  scene.background = SKY;

  const gltf = await new GLTFLoader().loadAsync('/city.glb');
  const root = gltf.scene;
  scene.add(root);
  root.updateMatrixWorld(true);

  const json = gltf.parser.json;
  const gltfMeshes = (json.meshes || []).length;
  const meshNodes = (json.nodes || []).filter((n) => n.mesh !== undefined).length;
  let meshes = 0, triangles = 0;
  const materials = new Set();
  root.traverse((o) => {
    if (!o.isMesh) return;
    meshes++;
    o.castShadow = true;
    o.receiveShadow = true;
    const mats = Array.isArray(o.material) ? o.material : [o.material];
    for (const m of mats) if (m && m.name) materials.add(m.name);
    const g = o.geometry;
    const n = g.index ? g.index.count : g.attributes.position.count;
    triangles += Math.floor(n / 3);
  });

  const box = new THREE.Box3().setFromObject(root);
  if (box.isEmpty()) throw new Error('the glb contains no geometry (empty bounding box)');
  const size = box.getSize(new THREE.Vector3());
  const center = box.getCenter(new THREE.Vector3());
  const radius = box.getBoundingSphere(new THREE.Sphere()).radius;

  // Ground height at the centre: ray down onto whatever is there (terrain,
  // road or block); fall back to the bottom of the box.
  function groundAt(x, z) {
    const rc = new THREE.Raycaster(new THREE.Vector3(x, box.max.y + 10, z), new THREE.Vector3(0, -1, 0));
    const hits = rc.intersectObject(root, true);
    return hits.length ? hits[hits.length - 1].point.y : box.min.y;
  }
  const groundY = groundAt(center.x, center.z);

  // Lights: sun from the south-south-east (+z is south, +x is east), so the
  // two faces seen from the south-west cameras are shaded differently and
  // shadows fall towards the north-west; plus sky/ground fill.
  const hemi = new THREE.HemisphereLight(0xdfeeff, 0x6b5a45, 1.0);
  scene.add(hemi);
  const sun = new THREE.DirectionalLight(0xfff2dd, 2.8);
  const sunDir = new THREE.Vector3(0.35, 0.8, 0.55).normalize();
  sun.position.copy(center).addScaledVector(sunDir, radius * 2);
  sun.target.position.copy(center);
  scene.add(sun, sun.target);
  sun.castShadow = true;
  sun.shadow.mapSize.set(4096, 4096);
  const sc = sun.shadow.camera;
  sc.left = -radius; sc.right = radius; sc.top = radius; sc.bottom = -radius;
  sc.near = radius * 0.5; sc.far = radius * 3.5;
  sun.shadow.bias = -0.0005;
  sun.shadow.normalBias = 0.5;
  sc.updateProjectionMatrix();

  const aspect = W / H;

  // Smallest distance along dir from the centre at which all eight corners of
  // the bounding box are inside the perspective frustum.
  function fitDistance(cam, dir) {
    const halfV = THREE.MathUtils.degToRad(cam.fov / 2);
    const tanV = Math.tan(halfV), tanH = tanV * cam.aspect;
    const f = dir.clone().negate();
    const r = new THREE.Vector3().crossVectors(f, new THREE.Vector3(0, 1, 0)).normalize();
    const u = new THREE.Vector3().crossVectors(r, f);
    let d = 0;
    for (let i = 0; i < 8; i++) {
      const o = new THREE.Vector3(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).sub(center);
      d = Math.max(d, Math.abs(o.dot(r)) / tanH - o.dot(f), Math.abs(o.dot(u)) / tanV - o.dot(f));
    }
    return d * 1.03;
  }

  function aerialCamera() {
    const cam = new THREE.PerspectiveCamera(45, aspect, 1, 1);
    // From the south-west: -x (west), +z (south), 45 deg above the horizon.
    const el = THREE.MathUtils.degToRad(45);
    const dir = new THREE.Vector3(-1, 0, 1).normalize().multiplyScalar(Math.cos(el));
    dir.y = Math.sin(el);
    const dist = fitDistance(cam, dir);
    cam.position.copy(center).addScaledVector(dir, dist);
    cam.near = Math.max(1, dist - radius * 1.2);
    cam.far = dist + radius * 1.2;
    cam.up.set(0, 1, 0);
    cam.lookAt(center);
    cam.updateProjectionMatrix();
    cam.updateMatrixWorld(true);
    // Perspective makes the near corner project much lower than the far one;
    // crop the frustum (a lens shift, the viewing angle is unchanged) to the
    // projected box so the city fills the image.
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < 8; i++) {
      const p = new THREE.Vector3(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).project(cam);
      x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y);
    }
    let w = (x1 - x0) * 1.04, h = (y1 - y0) * 1.04;
    if (w / h > 1) h = w; else w = h; // NDC units: equal spans keep the aspect
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    cam.setViewOffset(W, H, ((cx - w / 2 + 1) / 2) * W, ((1 - (cy + h / 2)) / 2) * H, (w / 2) * W, (h / 2) * H);
    return cam;
  }

  function topCamera() {
    if (FOCUS) {
      // A close top-down look at one place: engine (x, y) is glb (x, -y).
      const r = FOCUS[2];
      const cam = new THREE.OrthographicCamera(-r * aspect, r * aspect, r, -r, 1, size.y + 400);
      cam.position.set(FOCUS[0], box.max.y + 100, -FOCUS[1]);
      cam.up.set(0, 0, -1);
      cam.lookAt(FOCUS[0], box.min.y, -FOCUS[1]);
      cam.updateProjectionMatrix();
      return cam;
    }
    const margin = 1.04;
    let halfW = (size.x / 2) * margin, halfH = (size.z / 2) * margin;
    if (halfW / halfH > aspect) halfH = halfW / aspect; else halfW = halfH * aspect;
    const cam = new THREE.OrthographicCamera(-halfW, halfW, halfH, -halfH, 1, size.y + 200);
    cam.position.set(center.x, box.max.y + 100, center.z);
    cam.up.set(0, 0, -1); // north (-z in the glb) at the top of the image
    cam.lookAt(center.x, box.min.y, center.z);
    cam.updateProjectionMatrix();
    return cam;
  }

  function streetCamera() {
    const cam = new THREE.PerspectiveCamera(50, aspect, 1, 1);
    if (FOCUS) {
      // Eye level-ish: from the south-west of the focus, a quarter of its half-size up.
      const r = FOCUS[2];
      cam.position.set(FOCUS[0] - 0.8 * r, groundY + Math.max(8, 0.25 * r), -(FOCUS[1] - 0.8 * r));
      cam.near = 1;
      cam.far = Math.max(5000, radius * 4);
      cam.lookAt(FOCUS[0], groundY + 0.1 * r, -FOCUS[1]);
      cam.updateProjectionMatrix();
      return cam;
    }
    const dist = 400, alt = 150;
    const horiz = new THREE.Vector3(-1, 0, 1).normalize(); // from the south-west
    cam.position.set(center.x + horiz.x * dist, groundY + alt, center.z + horiz.z * dist);
    cam.near = 2;
    cam.far = Math.max(5000, radius * 4);
    cam.up.set(0, 1, 0);
    cam.lookAt(center.x, groundY, center.z);
    cam.updateProjectionMatrix();
    return cam;
  }

  const cameras = { aerial: aerialCamera, top: topCamera, street: streetCamera };

  // Counts pixels that differ from the sky colour and the mean brightness,
  // so the driver can refuse black or empty images.
  const probe = document.createElement('canvas');
  probe.width = W; probe.height = H;
  const pctx = probe.getContext('2d', { willReadFrequently: true });
  function imageStats() {
    pctx.drawImage(canvas, 0, 0);
    const d = pctx.getImageData(0, 0, W, H).data;
    const hex = SKY.getHex(); // sRGB, as written to the canvas
    const sky = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
    let lum = 0, nonSky = 0;
    for (let i = 0; i < d.length; i += 4) {
      lum += 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
      if (Math.abs(d[i] - sky[0]) + Math.abs(d[i + 1] - sky[1]) + Math.abs(d[i + 2] - sky[2]) > 12) nonSky++;
    }
    const n = d.length / 4;
    return { meanLuma: lum / n, geometryFraction: nonSky / n };
  }

  window.__renderView = (name) => {
    const cam = cameras[name]();
    renderer.render(scene, cam);
    const stats = imageStats();
    return { png: canvas.toDataURL('image/png'), ...stats };
  };

  window.__previewInfo = {
    gltfMeshes, meshNodes, meshes, triangles, materials: [...materials].sort(), glInfo,
    renderer: (() => {
      const g = renderer.getContext();
      const ext = g.getExtension('WEBGL_debug_renderer_info');
      return ext ? g.getParameter(ext.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER);
    })(),
    box: { min: box.min.toArray(), max: box.max.toArray() },
    groundY,
  };
} catch (err) {
  fail(err);
}
</script></body></html>`;
}

// ---------------------------------------------------------------------------
// Static server.
// ---------------------------------------------------------------------------
const MIME = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.glb': 'model/gltf-binary',
  '.json': 'application/json',
};

function startServer(glbPath, html) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const p = decodeURIComponent(url.pathname);
    const send = (code, type, body) => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (p === '/' || p === '/index.html') return send(200, MIME['.html'], html);
    if (p === '/favicon.ico') return send(204, 'text/plain', '');
    let file = null;
    if (p === '/city.glb') file = glbPath;
    else if (p.startsWith('/three/')) {
      const f = path.resolve(THREE_DIR, '.' + p.slice('/three'.length));
      if (f.startsWith(THREE_DIR + path.sep)) file = f;
    }
    if (!file) return send(404, 'text/plain', 'not found');
    fs.readFile(file, (err, data) => {
      if (err) return send(404, 'text/plain', 'not found');
      send(200, MIME[path.extname(file)] || 'application/octet-stream', data);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.glb) || !fs.statSync(opts.glb).isFile()) {
    throw new Error(`no such file: ${opts.glb}`);
  }
  if (!fs.existsSync(path.join(THREE_DIR, 'build', 'three.module.js'))) {
    throw new Error(`three is not installed; run 'npm ci' in ${HERE}`);
  }
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found; install Debian's chromium (apt-get install -y chromium)`);
  }
  const outDir = path.dirname(opts.prefix);
  if (!fs.existsSync(outDir)) throw new Error(`output directory does not exist: ${outDir}`);

  let server = null;
  let context = null;
  let userDataDir = null;
  let timer = null;
  const cleanup = async () => {
    clearTimeout(timer);
    if (context) await context.close().catch(() => {});
    context = null;
    if (server) {
      server.closeAllConnections?.();
      server.close();
      server = null;
    }
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    userDataDir = null;
  };
  const onSignal = (sig) => {
    cleanup().finally(() => {
      console.error(`render.mjs: interrupted by ${sig}`);
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });

  const work = async () => {
    server = await startServer(opts.glb, pageHtml(opts.width, opts.height, opts.focus));
    const port = server.address().port;
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cityforge-preview-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: opts.width, height: opts.height },
      deviceScaleFactor: 1,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--use-gl=angle',
        '--use-angle=swiftshader',
        '--enable-unsafe-swiftshader',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`console error: ${m.text()}`);
    });
    page.on('requestfailed', (r) => pageErrors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on('response', (r) => {
      if (r.status() >= 400) pageErrors.push(`HTTP ${r.status()} for ${r.url()}`);
    });
    const checkErrors = () => {
      if (pageErrors.length) throw new Error(pageErrors.join('\n'));
    };

    await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load', timeout: TIMEOUT_MS });
    await page.waitForFunction(() => window.__previewInfo || window.__previewError || null, null, {
      timeout: TIMEOUT_MS,
      polling: 100,
    });
    const pageError = await page.evaluate(() => window.__previewError || null);
    if (pageError) throw new Error(`page failed: ${pageError}`);
    checkErrors();
    const info = await page.evaluate(() => window.__previewInfo);
    const sz = info.box.max.map((v, i) => v - info.box.min[i]);
    console.log(
      `loaded ${opts.glb}: ${info.gltfMeshes} meshes on ${info.meshNodes} nodes ` +
        `(${info.meshes} primitives), ${info.triangles} triangles`,
    );
    console.log(`  materials: ${info.materials.join(', ') || '(none named)'}`);
    console.log(`  bounds (glb x/y/z): ${sz.map((v) => v.toFixed(0)).join(' x ')} m, centre ground y=${info.groundY.toFixed(1)}`);
    console.log(`  WebGL: ${info.renderer}`);

    for (const view of opts.views) {
      const r = await page.evaluate((v) => window.__renderView(v), view);
      checkErrors();
      if (r.meanLuma < 5) throw new Error(`${view} view rendered black (mean luma ${r.meanLuma.toFixed(1)}); WebGL is not working`);
      if (r.geometryFraction < 0.001) throw new Error(`${view} view shows only the sky; camera framing or loading is broken`);
      const file = `${opts.prefix}-${view}.png`;
      fs.writeFileSync(file, Buffer.from(r.png.slice(r.png.indexOf(',') + 1), 'base64'));
      console.log(`wrote ${file} (geometry covers ${(r.geometryFraction * 100).toFixed(0)}% of the image)`);
    }
  };

  try {
    const w = work();
    w.catch(() => {}); // a late failure after a timeout is already reported
    await Promise.race([w, timeout]);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`render.mjs: error: ${err && err.message ? err.message : err}`);
    process.exit(1);
  },
);
