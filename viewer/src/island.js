// SPDX-License-Identifier: Apache-2.0
// The island page of the viewer (issue 29; seeds/003, 2:15: click, and the algorithms build
// around you): island.glb from `cityforge serve ISLAND_DIR`, its navigation graph, and edits:
// a click raises the clicked cell's land one layer, shift+click lowers it; the server solves
// the cells around it again (POST /island/edit), writes the files, and the page reloads them.
// Walkers (the units) follow the navigation graph (island_walkers.js) and find their way again
// on the new graph after an edit.
// Engine frame (x, y, z) z up is glTF (x, z, -y).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

import { makeWalkers, rehome, stepWalkers, walkerPosition } from './island_walkers.js';
import { makeOutlines } from './island_outlines.js';
import { decodePng, figureLight, lightVolume } from './light_volume.js';

const canvas = document.getElementById('view');
const statusBox = document.getElementById('status');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
renderer.shadowMap.enabled = true;
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xb8cfe6);
const camera = new THREE.PerspectiveCamera(40, 1, 0.1, 2000);
const controls = new OrbitControls(camera, canvas);
scene.add(new THREE.HemisphereLight(0xdfeaf5, 0x4a4034, 1.4));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(-20, 40, 25);
sun.castShadow = true;
sun.shadow.mapSize.set(2048, 2048);
scene.add(sun);

const state = {
  ready: false, // island, grid and graph loaded
  edits: 0,
  busy: false,
  lastReport: null,
  lastError: null,
  replies: 0, // Edit replies so far, refusals included (a second refusal may say the same).
  grid: null, // island_tiles.json grid: vertices [x, y] and cells (vertex ids)
  nav: null, // island_nav.json
  layers: 0,
  layerM: 1,
  model: null,
  navLines: null,
  walkers: null, // island_walkers.js world
  light: null, // the baked light volume (light_volume.js), or null when the folder has none
  trace: null, // island_trace.json (cityforge island --trace), or null
  traceStep: 0,
};
const WALKERS = 16;
const WALKER_COLOURS = [0xd9534f, 0xf0ad4e, 0x5bc0de, 0x5cb85c, 0x9b59b6, 0xf7f1e3, 0x34495e, 0xe67e22];
window.__island = state;
// The contrast map's edge detection over the drawn island (island_outlines.js); a checkbox
// turns it off. For tests: state.outlineShare(), the share of pixels drawn as lines.
const outlines = makeOutlines(renderer);
state.outlineShare = () => outlines.share(camera);
state.hasContrastMap = () => outlines.hasMap;
document.getElementById('show-outlines').addEventListener('change', (e) => {
  outlines.enabled = e.target.checked;
});

function setStatus(text, error = false) {
  statusBox.textContent = text;
  statusBox.classList.toggle('error', error);
}

async function fetchJson(path) {
  const r = await fetch(`${path}?v=${state.edits}`, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

function navGraphLines(nav) {
  const pos = [];
  const at = (n) => {
    const p = nav.nodes[n].position;
    return [p[0], p[2] + 0.08, -p[1]];
  };
  for (const e of nav.edges) pos.push(...at(e.a), ...at(e.b));
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  const colour = new THREE.LineBasicMaterial({ color: 0xff3b6b, depthTest: false, transparent: true, opacity: 0.85 });
  const lines = new THREE.LineSegments(g, colour);
  lines.renderOrder = 10;
  lines.visible = document.getElementById('show-nav').checked;
  return lines;
}

// The light volume named by island_tiles.json, or null when it names none (an older folder).
async function loadLight(tiles) {
  const meta = tiles.light_volume;
  if (!meta) return null;
  const r = await fetch(`/city/${meta.file}?v=${state.edits}`, { cache: 'no-store' });
  if (!r.ok) throw new Error(`/city/${meta.file}: HTTP ${r.status}`);
  return lightVolume(meta, await decodePng(await r.arrayBuffer()));
}

async function load(first) {
  const [gltf, tiles, nav] = await Promise.all([
    new GLTFLoader().loadAsync(`/city/island.glb?v=${state.edits}`),
    fetchJson('/city/island_tiles.json'),
    fetchJson('/city/island_nav.json'),
  ]);
  state.light = await loadLight(tiles);
  if (state.model) scene.remove(state.model);
  if (state.navLines) scene.remove(state.navLines);
  state.model = gltf.scene;
  state.model.traverse((o) => {
    if (o.isMesh) {
      o.castShadow = o.name !== 'sea';
      o.receiveShadow = true;
    }
  });
  scene.add(state.model);
  let land = null;
  state.model.traverse((o) => {
    if (!land && o.isMesh && o.geometry.getAttribute('_contrast')) land = o;
  });
  outlines.setLand(land);
  state.grid = tiles.grid;
  state.layers = tiles.grid.layers;
  state.layerM = tiles.grid.layer_m;
  state.nav = nav;
  state.navLines = navGraphLines(nav);
  scene.add(state.navLines);
  state.walkers = state.walkers ? rehome(state.walkers, nav) : makeWalkers(nav, WALKERS, 1);
  if (first) {
    const box = new THREE.Box3().setFromObject(state.model);
    const size = box.getSize(new THREE.Vector3()).length();
    const centre = box.getCenter(new THREE.Vector3());
    controls.target.copy(centre);
    camera.position.copy(centre).add(new THREE.Vector3(-0.35, 0.55, 0.6).multiplyScalar(size * 0.75));
    controls.update();
  }
  state.ready = true;
}

// The plane cell under an engine point (x, y): the grid's cells are convex polygons.
function cellAt(x, y) {
  const v = state.grid.vertices;
  for (let c = 0; c < state.grid.cells.length; c++) {
    const ids = state.grid.cells[c];
    let inside = true;
    for (let k = 0; k < ids.length && inside; k++) {
      const a = v[ids[k]];
      const b = v[ids[(k + 1) % ids.length]];
      inside = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) >= -1e-9;
    }
    if (inside) return c;
  }
  return -1;
}

async function edit(cell, kind, colour = null) {
  if (state.busy) return null;
  state.busy = true;
  setStatus(`${kind} cell ${cell}...`);
  try {
    const query = `cell=${cell}&kind=${kind}` + (kind === 'paint' ? `&colour=${colour}` : '');
    const r = await fetch(`/island/edit?${query}`, { method: 'POST' });
    const body = await r.json();
    state.replies++;
    if (!r.ok) {
      state.lastError = body.error;
      setStatus(`cell ${cell}: ${body.error}`, true);
      return body;
    }
    state.edits = body.edits;
    state.lastReport = body;
    if (state.trace) { // The trace was of the island as generated: an edit leaves it behind.
      state.trace = null;
      document.getElementById('show-solve').checked = false;
      showSolve(false);
      document.getElementById('solver').hidden = true;
    }
    state.lastError = null;
    await load(false);
    setStatus(kind === 'paint'
      ? `painted cell ${cell}: ${body.recoloured} triangles recoloured in ${body.total_ms.toFixed(0)} ms`
      : `${kind} cell ${cell}` +
        (body.edited && body.edited.length > 1 ? ` (its field of ${body.edited.length} cells)` : '') +
        `: ${body.changed} tiles changed in ${body.rings} ring(s), ` +
        `solved in ${body.solve_ms.toFixed(1)} ms, island made again in ${body.total_ms.toFixed(0)} ms`);
    return body;
  } finally {
    state.busy = false;
  }
}
state.edit = edit;
state.cellAt = cellAt;
// Where a cell's walkable top shows on the canvas, in CSS pixels (for scripted clicks).
state.screenOf = (cell) => {
  const ids = state.grid.cells[cell];
  let x = 0;
  let y = 0;
  for (const id of ids) {
    x += state.grid.vertices[id][0] / ids.length;
    y += state.grid.vertices[id][1] / ids.length;
  }
  let z = 0;
  for (const n of state.nav.nodes) if (n.cell === cell) z = Math.max(z, n.position[2]);
  const p = new THREE.Vector3(x, z, -y).project(camera);
  const rect = canvas.getBoundingClientRect();
  return [rect.left + ((p.x + 1) / 2) * rect.width, rect.top + ((1 - p.y) / 2) * rect.height];
};

const raycaster = new THREE.Raycaster();
let downAt = null;
canvas.addEventListener('pointerdown', (e) => { downAt = [e.clientX, e.clientY]; });
canvas.addEventListener('pointerup', (e) => {
  if (!state.ready || !downAt || Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
  const rect = canvas.getBoundingClientRect();
  const ndc = new THREE.Vector2(((e.clientX - rect.left) / rect.width) * 2 - 1,
    -((e.clientY - rect.top) / rect.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const land = state.model.getObjectByName('land');
  const hit = raycaster.intersectObject(land ?? state.model, true)[0];
  if (!hit) return;
  // Step a little into the surface, so a click on a cliff's face picks the cell behind it.
  const p = hit.point.clone().addScaledVector(raycaster.ray.direction, 0.05);
  const cell = cellAt(p.x, -p.z);
  if (cell < 0) return;
  if (state.paint !== null) edit(cell, 'paint', state.paint);
  else edit(cell, e.shiftKey ? 'lower' : 'raise');
});

// The palette: "land" edits the land (click raises, shift+click lowers); a colour paints the
// clicked cell's house walls, or its grass (the server's palette, in the same order).
const PAINT = ['#e26052', '#f0a048', '#f4d460', '#8cbe6e', '#60aac4', '#927abe', '#e896aa', '#f4eee2'];
state.paint = null;
const palette = document.getElementById('palette');
function choose(button, colour) {
  state.paint = colour;
  for (const b of palette.children) b.classList.toggle('chosen', b === button);
}
const land = document.createElement('button');
land.textContent = 'land';
land.title = 'click raises the land, shift+click lowers it';
land.classList.add('chosen');
land.addEventListener('click', () => choose(land, null));
palette.append(land);
PAINT.forEach((hex, k) => {
  const b = document.createElement('button');
  b.className = 'swatch';
  b.style.background = hex;
  b.title = `paint with colour ${k}`;
  b.dataset.colour = String(k);
  b.addEventListener('click', () => choose(b, k));
  palette.append(b);
});
document.getElementById('show-nav').addEventListener('change', (e) => {
  if (state.navLines) state.navLines.visible = e.target.checked;
});

// The walkers: one instanced draw, a capsule each, standing on the walkable floor.
const walkerMesh = (() => {
  const geometry = new THREE.CapsuleGeometry(0.14, 0.32, 3, 8);
  geometry.translate(0, 0.3, 0);
  const mesh = new THREE.InstancedMesh(geometry, new THREE.MeshStandardMaterial({ roughness: 0.7 }), WALKERS);
  mesh.castShadow = true;
  mesh.count = 0;
  const colour = new THREE.Color();
  for (let i = 0; i < WALKERS; i++) mesh.setColorAt(i, colour.setHex(WALKER_COLOURS[i % WALKER_COLOURS.length]));
  mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
  mesh.frustumCulled = false;
  scene.add(mesh);
  return mesh;
})();
outlines.setFigures(walkerMesh);
const walkerMatrix = new THREE.Matrix4();
const walkerColour = new THREE.Color();
// Each walker's brightness from the light volume (1 without one): darker at the foot of a
// cliff or between houses, as the land's baked vertex light (1 - (1 - light) x 0.55).
state.walkerLight = [];
function drawWalkers(dt) {
  const world = state.walkers;
  walkerMesh.visible = document.getElementById('show-walkers').checked && !document.getElementById('show-solve').checked;
  if (!world) return;
  stepWalkers(world, Math.min(dt, 0.1));
  world.walkers.forEach((w, i) => {
    const p = walkerPosition(world, w).position;
    walkerMatrix.makeTranslation(p[0], p[2], -p[1]);
    walkerMesh.setMatrixAt(i, walkerMatrix);
    const light = state.light ? figureLight(state.light, [p[0], p[1], p[2] + 0.3]) : 1;
    state.walkerLight[i] = light;
    walkerColour.setHex(WALKER_COLOURS[i % WALKER_COLOURS.length]).multiplyScalar(1 - (1 - light) * 0.55);
    walkerMesh.setColorAt(i, walkerColour);
  });
  walkerMesh.count = world.walkers.length;
  walkerMesh.instanceMatrix.needsUpdate = true;
  walkerMesh.instanceColor.needsUpdate = true;
}
// For tests: every walker's engine position and the graph edge it is on.
state.walkerPositions = () => (state.walkers ? state.walkers.walkers.map((w) => walkerPosition(state.walkers, w)) : []);

function resize() {
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();
const clock = new THREE.Clock();
renderer.setAnimationLoop(() => {
  controls.update();
  drawWalkers(clock.getDelta());
  renderer.render(scene, camera);
  if (state.model && state.model.visible) outlines.draw(camera);
});

// Stepping through the solve (island_trace.json): every observation and backtrack of every
// pass in order; at a step, the cells the pass began with (the start, the columns it keeps) and
// those decided by observation so far are drawn as blocks coloured by tile kind, the island
// hidden. Cells decided by propagation alone are not drawn.
const KIND_COLOUR = { ground: 0x8ac45c, floor: 0x8ac45c, path: 0xdec492, stairs: 0xf0a048, house: 0xe26052,
  water: 0x56aacc, rock: 0x9e8c7c };
const solveBoxes = (() => {
  const mesh = new THREE.InstancedMesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshStandardMaterial({ roughness: 0.8 }), 1);
  mesh.count = 0;
  mesh.visible = false;
  mesh.frustumCulled = false;
  scene.add(mesh);
  return mesh;
})();
let solveMesh = solveBoxes;
const traceSteps = []; // [solve index, step index] flattened
function showSolve(on) {
  if (state.model) state.model.visible = !on;
  if (state.navLines) state.navLines.visible = !on && document.getElementById('show-nav').checked;
  solveMesh.visible = on;
  if (on) drawSolveStep(state.traceStep);
}
function drawSolveStep(k) {
  const tr = state.trace;
  if (!tr || traceSteps.length === 0) return 0;
  k = Math.max(0, Math.min(traceSteps.length - 1, k));
  state.traceStep = k;
  const [s, upto] = traceSteps[k];
  const solve = tr.solves[s];
  const decided = new Map(solve.fixed.map(([cell, tile]) => [cell, tile]));
  for (let i = 0; i <= upto; i++) {
    const [kind, cell, tile] = solve.steps[i];
    if (kind === 0) decided.set(cell, tile);
    else if (kind === 2) decided.delete(cell);
  }
  const plane = tr.plane_cells;
  const v = state.grid.vertices;
  const size = 0.55 * (state.grid.cell_m ?? 2);
  const m = new THREE.Matrix4();
  const colour = new THREE.Color();
  const boxes = [];
  for (const [cell, tile] of decided) {
    const kind = tr.tiles[tile]?.kind;
    if (!kind || kind === 'air' || kind === 'empty') continue;
    boxes.push([cell, kind]);
  }
  if (solveMesh.instanceMatrix.count < boxes.length) {
    scene.remove(solveMesh);
    solveMesh = new THREE.InstancedMesh(solveBoxes.geometry, solveBoxes.material, plane * tr.layers);
    solveMesh.frustumCulled = false;
    scene.add(solveMesh);
  }
  boxes.forEach(([cell, kind], i) => {
    const ids = state.grid.cells[cell % plane];
    let x = 0;
    let y = 0;
    for (const id of ids) {
      x += v[id][0] / ids.length;
      y += v[id][1] / ids.length;
    }
    const layer = Math.floor(cell / plane);
    const h = kind === 'water' ? 0.2 : state.layerM * 0.9;
    m.makeScale(size, h, size).setPosition(x, layer * state.layerM + h / 2, -y);
    solveMesh.setMatrixAt(i, m);
    solveMesh.setColorAt(i, colour.setHex(KIND_COLOUR[kind] ?? 0xbbbbbb));
  });
  solveMesh.count = boxes.length;
  solveMesh.instanceMatrix.needsUpdate = true;
  if (solveMesh.instanceColor) solveMesh.instanceColor.needsUpdate = true;
  solveMesh.visible = document.getElementById('show-solve').checked;
  document.getElementById('solve-label').textContent =
    `${solve.label}${solve.kept ? '' : ' (not kept)'}: step ${upto + 1} of ${solve.steps.length}, ${boxes.length} cells decided`;
  document.getElementById('solve-step').value = String(k);
  return boxes.length;
}
state.traceBoxes = () => (solveMesh.visible ? solveMesh.count : 0);
state.setTraceStep = (k) => drawSolveStep(k);
async function loadTrace() {
  // Only an island made with --trace has one (stats.json names it); edits do not keep it.
  const stats = await fetchJson('/city/stats.json');
  if (!stats.trace) return;
  state.trace = await fetchJson(`/city/${stats.trace}`);
  traceSteps.length = 0;
  state.trace.solves.forEach((s, i) => s.steps.forEach((_, k) => traceSteps.push([i, k])));
  const slider = document.getElementById('solve-step');
  slider.max = String(Math.max(0, traceSteps.length - 1));
  document.getElementById('solver').hidden = false;
  slider.addEventListener('input', () => drawSolveStep(Number(slider.value)));
  document.getElementById('show-solve').addEventListener('change', (e) => showSolve(e.target.checked));
  let playing = null;
  document.getElementById('solve-play').addEventListener('click', () => {
    if (playing) {
      clearInterval(playing);
      playing = null;
      return;
    }
    if (!document.getElementById('show-solve').checked) {
      document.getElementById('show-solve').checked = true;
      showSolve(true);
    }
    playing = setInterval(() => {
      if (state.traceStep >= traceSteps.length - 1) {
        clearInterval(playing);
        playing = null;
        return;
      }
      drawSolveStep(state.traceStep + 4);
    }, 30);
  });
}

load(true).then(() => setStatus(`island: ${state.nav.nodes.length} walkable cells; click to raise, shift+click to lower`))
  .then(loadTrace)
  .catch((e) => {
    state.lastError = String(e);
    setStatus(String(e), true);
    console.error(e);
  });
