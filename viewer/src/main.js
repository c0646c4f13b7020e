// SPDX-License-Identifier: Apache-2.0
// cityforge viewer: loads the city served by `cityforge serve` at /city/, shows the traffic and
// crowd of the live stream (/live) or the recording (/city/traffic.cfrec), day and night,
// weather, and hosts drive mode. URL: ?city=/city/&mode=live|recording|static&test=1. A city
// with tiles/tileset.json streams as 3D Tiles (tiles.js); &tiles=1 or &tiles=0 says which
// without probing (a probe that misses logs a 404), &error=PX sets the tiles' screen-space
// error target and &tilecache=MIB their cache.
// `window.cityforge` is the test hook (keep it stable; see tests/e2e/).

import * as THREE from 'three';

import { Agents } from './agents.js';
import { CameraRig } from './camera.js';
import { City } from './city.js';
import { LiveClient, liveUrl, probeLive } from './live/client.js';
import { StreetLights } from './lights.js';
import { Overlay } from './overlay.js';
import { Panel } from './panel.js';
import { Recording } from './recording.js';
import { Signals } from './signals.js';
import { Sky } from './sky.js';
import { CityTiles, hasTileset, TILESET_PATH } from './tiles.js';
import { VehicleLights, lightsOnFor } from './vehicle_lights.js';
import { Weather } from './weather.js';
import { Windows } from './windows.js';

const drivers = import.meta.glob('./drive/index.js');
// The shipped vehicle files (data/vehicles/, docs/vehicles.md), bundled with the viewer.
const vehicleFiles = import.meta.glob('../../data/vehicles/*.json', { eager: true, import: 'default' });

const params = new URLSearchParams(location.search);
let cityBase = params.get('city') || '/city/';
if (!cityBase.endsWith('/')) cityBase += '/';
const TEST = params.get('test') === '1';
/// Downtown of the default city, in city metres (x east, y north).
const HOME = { x: 1125, y: 1039 };
const DEFAULT_POSE = { x: HOME.x - 380, y: HOME.y - 380, z: 280, yaw_deg: 45, pitch_deg: -30, distance: 560 };
const VIEWER_SEND_S = 0.25;

const events = new EventTarget();
const hook = {
  ready: false,
  events,
  lanes: null,
  drive: null,
  error: null,
};
window.cityforge = hook;

const $ = (id) => document.getElementById(id);

function showError(err) {
  const msg = String(err && err.stack ? err.stack : err);
  hook.error = msg;
  const el = $('error');
  el.textContent = msg;
  el.style.display = 'block';
  console.error(err);
}

function progress(text, fraction) {
  $('loading-text').textContent = text;
  $('loading-fill').style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

async function fetchJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

async function exists(url) {
  try {
    const res = await fetch(url, { method: 'HEAD' });
    return res.ok;
  } catch {
    return false;
  }
}

function download(name, text, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}

async function main() {
  // 1. Renderer, scene, camera.
  const canvas = $('view');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, powerPreference: 'high-performance' });
  // ?scale=0.5 renders at half resolution (software WebGL is bound by the pixels it fills).
  const renderScale = Math.min(2, Math.max(0.25, Number(params.get('scale') ?? 1)));
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 1.5) * renderScale);
  renderer.setSize(window.innerWidth, window.innerHeight, false);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(55, window.innerWidth / window.innerHeight, 1, 6000);
  window.addEventListener('resize', () => {
    renderer.setSize(window.innerWidth, window.innerHeight, false);
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
  });
  // Software WebGL (SwiftShader, llvmpipe) draws detail and agents over shorter distances.
  const gl = renderer.getContext();
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  const glRenderer = String(dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
  const software = /swiftshader|llvmpipe|software/i.test(glRenderer);
  const detailScale = Number(params.get('detail') ?? (software ? 0.4 : 1));
  const rig = new CameraRig(camera, canvas);
  // &camera=x,y,z,yaw_deg,pitch_deg,distance (city metres) opens at another pose (benchmarks).
  const camArg = (params.get('camera') || '').split(',').map(Number);
  const startPose = camArg.length === 6 && camArg.every(Number.isFinite)
    ? Object.fromEntries(['x', 'y', 'z', 'yaw_deg', 'pitch_deg', 'distance'].map((k, i) => [k, camArg[i]]))
    : DEFAULT_POSE;
  rig.setPose(startPose);

  // 2. City and lanes: with city.glb side by side; with tiles the lanes (tens of MB for a big
  // city) wait until the first view's tiles are in, so the first frame costs only its tiles.
  progress('loading city.glb…', 0);
  let lanesPromise = null;
  let layoutPromise = null;
  const startSideLoads = () => {
    if (lanesPromise) return;
    lanesPromise = fetchJson(`${cityBase}lanes.json`).catch((e) => {
      console.warn(`lanes.json not loaded: ${e.message}`);
      return null;
    });
    // Building footprints, for the drive mode's collisions with buildings.
    layoutPromise = fetchJson(`${cityBase}layout.geojson`).catch((e) => {
      console.warn(`layout.geojson not loaded: ${e.message}`);
      return null;
    });
  };
  const city = new City();
  const tLoad = performance.now();
  // A tileset next to city.glb streams instead of it (tiles.js).
  let tiles = null;
  const tiled = params.has('tiles') ? params.get('tiles') === '1' : await hasTileset(cityBase);
  if (tiled) {
    progress(`loading ${TILESET_PATH}…`, 0.5);
    const num = (k) => (params.has(k) ? Number(params.get(k)) : null);
    tiles = new CityTiles(city, `${cityBase}${TILESET_PATH}`, {
      camera, renderer, software, errorTarget: num('error'), cacheMiB: num('tilecache'),
    });
    await tiles.ready;
    scene.add(tiles.root);
    city.setDetailScale(detailScale);
    console.info(`${TILESET_PATH}: loaded in ${((performance.now() - tLoad) / 1000).toFixed(1)} s; tiles stream from here`);
  } else {
    startSideLoads();
    await city.load(`${cityBase}city.glb`, (phase, f, bytes) => {
      if (phase !== 'download') console.info(`city.glb: ${phase} at ${((performance.now() - tLoad) / 1000).toFixed(1)} s`);
      if (phase === 'download') progress(`loading city.glb… ${(bytes / 1e6).toFixed(0)} MB`, f * 0.8);
      else if (phase === 'parse') progress('building the scene…', 0.85);
      else progress('preparing chunks…', 0.95);
    });
    scene.add(city.root);
    city.setDetailScale(detailScale);
    console.info(`city.glb: ${city.chunks.length} chunks, ${city.detail.length} detail meshes, ${city.volumes.length} volumes in ${((performance.now() - tLoad) / 1000).toFixed(1)} s`);
  }

  // 3. Sky, weather, street lights, windows, signals, agents.
  const sky = new Sky(scene, events, { hour: Number(params.get('hour') ?? 10), dayLength_s: 1440 });
  const weather = new Weather(scene, sky, events, { seed: 1, changeProb: TEST ? 0 : 0.2 });
  const lights = new StreetLights(scene, city, events);
  const windows = new Windows(city, events, sky);
  // The sky fired its first dusk/dawn before the listeners existed: tell them where we are.
  events.dispatchEvent(new CustomEvent(sky.night ? 'dusk' : 'dawn', { detail: { hour: sky.hour, initial: true } }));
  // A tiled city shows its tiles at once, while the lanes and the agents' source still load.
  let preview = 0;
  if (tiles) {
    $('loading').style.display = 'none';
    const pre = () => {
      camera.updateMatrixWorld();
      tiles.update();
      city.update(camera);
      windows.update(sky.hour);
      lights.update(0, camera);
      renderer.render(scene, camera);
      preview = requestAnimationFrame(pre);
    };
    preview = requestAnimationFrame(pre);
  }
  if (tiles) {
    // The first view's tiles, or 20 s, whichever comes first.
    await Promise.race([tiles.firstView, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    startSideLoads();
  }
  hook.lanes = await lanesPromise;
  const signals = new Signals(scene, hook.lanes);
  const agents = new Agents(scene);
  // Head, tail and brake lights and indicators of every vehicle (one instanced draw call).
  const vehicleLights = new VehicleLights(agents.group);
  const carLightsOn = () => lightsOnFor(sky.elevation_deg, weather.kind, weather.fog);
  agents.maxDistance.pedestrian *= Math.min(1, detailScale * 1.5);
  agents.maxDistance.vehicle *= Math.min(1, detailScale * 1.5);
  const overlay = new Overlay();

  // 4. Where the agents come from.
  let mode = params.get('mode');
  if (!mode) {
    if (await probeLive(liveUrl())) mode = 'live';
    else if (await exists(`${cityBase}traffic.cfrec`)) mode = 'recording';
    else mode = 'static';
  }
  let live = null;
  let recording = null;
  let playhead = 0;
  let frameArrival = 0;
  let frameInterval = 0.1;
  const tickWindow = []; // [wall ms, tick] for ticks per second
  let serverTicksPerS = null;
  let density = { pedestrians: 2000, vehicles: 2000 };
  let panel = null; // created once the actions exist; env messages may come first

  const noteTick = (tick) => {
    const now = performance.now();
    tickWindow.push([now, tick]);
    while (tickWindow.length > 2 && now - tickWindow[0][0] > 2000) tickWindow.shift();
  };
  const ticksPerS = () => {
    if (serverTicksPerS !== null) return serverTicksPerS;
    if (tickWindow.length < 2) return 0;
    const [t0, k0] = tickWindow[0];
    const [t1, k1] = tickWindow[tickWindow.length - 1];
    return t1 > t0 ? ((k1 - k0) * 1000) / (t1 - t0) : 0;
  };

  if (mode === 'live') {
    progress('connecting to the live simulation…', 0.97);
    live = new LiveClient();
    live.addEventListener('frame', (e) => {
      const f = e.detail;
      agents.push(f);
      signals.setStates(f.lights);
      frameArrival = performance.now();
      if (typeof f.ticks_per_s === 'number' && f.ticks_per_s > 0) serverTicksPerS = f.ticks_per_s;
      noteTick(f.tick ?? agents.frames);
      events.dispatchEvent(new CustomEvent('frame', { detail: { tick: f.tick, count: f.count } }));
    });
    live.addEventListener('env', (e) => applyEnv(e.detail));
    live.addEventListener('close', () => console.warn('live stream closed'));
    await live.connect();
    const hello = live.hello;
    frameInterval = 1 / (hello.frame_hz || 10);
    signals.setTable(hello.signal_lanes || []);
    weather.send = (m) => live.send(m);
  } else if (mode === 'recording') {
    progress('loading traffic.cfrec…', 0.97);
    const res = await fetch(`${cityBase}traffic.cfrec`);
    if (!res.ok) throw new Error(`traffic.cfrec: HTTP ${res.status}`);
    recording = new Recording(await res.arrayBuffer());
    signals.setTable(recording.signalLanes);
    frameInterval = recording.frame_interval_s;
    playhead = recording.time0;
  }

  function applyEnv(env) {
    const w = typeof env.weather === 'object' && env.weather ? env.weather : env;
    const kind = typeof w.weather === 'string' ? w.weather : w.kind;
    if (typeof kind === 'string' && !weather.echoIsStale(kind, w.fog ?? weather.fog)) {
      weather.set(kind, w.fog ?? weather.fog, { fromServer: true });
      // A scenario's scripted weather (and its fog distance) wins over the server's echo.
      const sw = hook.drive && hook.drive.active ? hook.drive.scenarioWeather() : null;
      if (sw) scenarios.applyScenarioWeather(weather, scene, sw);
    }
    const hour = env.hour ?? env.time_of_day_h;
    if (typeof hour === 'number') sky.setTime(hour);
    if (typeof env.day_length_s === 'number') sky.setDayLength(env.day_length_s);
    const d = env.density ?? env;
    if (typeof d.pedestrians === 'number') density.pedestrians = d.pedestrians;
    if (typeof d.vehicles === 'number') density.vehicles = d.vehicles;
    panel?.reflect({ weather: weather.kind, fog: weather.fog, hour: sky.hour, dayLength_s: sky.dayLength_s, ...density });
  }

  // 5. Drive mode (another module of this viewer; optional).
  const frameHooks = new Set();
  let drive = null;
  // A scenario served with `cityforge serve --scenario` (docs/scenarios.md): its time of day
  // holds, its weather is scripted, and drive mode starts at its start.
  // The URL asks for it (`serve --scenario` prints such a URL), so a server without one is
  // never probed (a 404 is logged as a console error).
  const scenarios = await import('./scenario/index.js');
  const scenario = params.get('scenario') === '1'
    ? await scenarios.loadScenario(fetch, '/').catch((e) => {
      console.warn(`scenario.json not loaded: ${e.message}`);
      return null;
    })
    : null;
  if (scenario) {
    weather.setChangeProbability(0);
    sky.setTime(scenario.time_of_day_h);
    sky.running = false;
    hook.scenario = scenario;
  }
  // Posts, trunks and hydrants for the drive's collision world, loaded in the background (about
  // a megabyte for the default city; a drive started before they arrive has none).
  let solidProps = [];
  import('./drive/props.js')
    .then(async ({ loadSolidProps }) => {
      const st = await fetchJson(`${cityBase}stats.json`);
      solidProps = await loadSolidProps(fetch, cityBase, st);
    })
    .catch((e) => console.warn(`props for collisions not loaded: ${e.message}`));
  // The panel wires the export buttons (the drive module would otherwise wire them too).
  for (const id of ['export-csv', 'export-json']) $(id).dataset.driveWired = '1';
  const onFrame = (fn) => {
    frameHooks.add(fn);
    return () => frameHooks.delete(fn);
  };
  // Made in the background (the module, with Rapier's WebAssembly, is ~4 MB): the city shows
  // and runs before it is ready; the drive toggle waits for it (app.setDrive), the test hook's
  // `drive` appears when it is.
  let driveReady = Promise.resolve(null);
  if (drivers['./drive/index.js']) {
    driveReady = (async () => {
      try {
        const buildings = await layoutPromise;
        const driveCtx = {
          THREE,
          scenario,
          props: () => solidProps,
          vehicles: Object.fromEntries(Object.entries(vehicleFiles).map(([f, v]) => [f.replace(/^.*\/|\.json$/g, ''), v])),
          onScenarioWeather: (w) => {
            scenarios.applyScenarioWeather(weather, scene, w);
            panel?.reflect({ weather: weather.kind, fog: weather.fog });
          },
          lightsOn: carLightsOn,
          scene,
          camera,
          renderer,
          rig,
          city: cityBase,
          cityModel: city,
          events,
          lanes: hook.lanes,
          buildings,
          toScene: (x, y, z) => new THREE.Vector3(x, z, -y),
          fromScene: (v) => ({ x: v.x, y: -v.z, z: v.y }),
          clock: () => (recording ? playhead : agents.b ? agents.b.time_s : 0),
          signals: () => signals.map(),
          send: (obj) => (live ? live.send(obj) : false),
          agents: () => agents.b,
          // A pedestrian the car knocked down lies where it fell (null: a new drive clears them).
          onCasualty: (id, pose) => (id === null ? agents.clearDown() : agents.setDown(id, pose)),
          onFrame,
        };
        const mod = await drivers['./drive/index.js']();
        drive = await mod.createDrive(driveCtx);
        // Remapping the controls and the metric thresholds, in the panel.
        const settings = mod.createDriveSettings(drive, $('drive-controls'), $('drive-thresholds'));
        // The drive module moves the camera itself while a car is driven; a new drive shows
        // its thresholds in the panel.
        const driving = (fn) => (...args) => {
          const r = fn(...args);
          rig.enabled = false;
          panel?.reflect({ driving: true });
          settings.refresh();
          return r;
        };
        const stop = drive.stop.bind(drive);
        drive.start = driving(drive.start.bind(drive));
        drive.replay = driving(drive.replay.bind(drive));
        drive.stop = (...args) => {
          rig.enabled = true;
          panel?.reflect({ driving: false });
          return stop(...args);
        };
        hook.drive = drive;
        // Vehicle and camera choice (a scenario names its vehicle).
        const vsel = $('drive-vehicle');
        for (const [name, label] of Object.entries(drive.vehicles())) {
          const opt = document.createElement('option');
          opt.value = name;
          opt.textContent = label;
          vsel.appendChild(opt);
        }
        vsel.value = drive.vehicle;
        vsel.disabled = !!scenario;
        vsel.addEventListener('change', () => drive.setVehicle(vsel.value));
        // A scenario drive's inputs, saved and replayed (docs/scenarios.md, Identical replays).
        $('export-inputs').addEventListener('click', () => drive.download('inputs'));
        const rfile = $('replay-file');
        rfile.disabled = !scenario;
        rfile.addEventListener('change', async () => {
          const f = rfile.files && rfile.files[0];
          if (!f) return;
          try {
            drive.replay(await f.text());
          } catch (e) {
            console.warn(e.message);
          }
          rfile.value = '';
        });
        const csel = $('drive-camera');
        csel.addEventListener('change', () => drive.setCamera(csel.value));
        frameHooks.add(() => {
          if (csel.value !== drive.cameraMode && document.activeElement !== csel) csel.value = drive.cameraMode;
        });
        return drive;
      } catch (e) {
        console.warn(`drive mode unavailable: ${e.message}`);
        drive = null;
        return null;
      }
    })();
  }

  // 6. The panel's actions.
  const show = { agents: true, signals: true, lights: true, lodColours: false };
  const app = {
    setTime(h, { send = false } = {}) {
      sky.setTime(h);
      if (send && live) live.send({ type: 'time', hour: sky.hour, day_length_s: sky.dayLength_s });
    },
    setDayLength(s, { send = false } = {}) {
      sky.setDayLength(s);
      if (send && live) live.send({ type: 'time', hour: sky.hour, day_length_s: sky.dayLength_s });
    },
    setWeather(kind, fog) {
      weather.set(kind, fog);
    },
    setChangeProbability(p) {
      weather.setChangeProbability(p);
    },
    setDensity(pedestrians, vehicles) {
      density = { pedestrians, vehicles };
      if (live) live.send({ type: 'density', pedestrians, vehicles });
    },
    setShow(what, on) {
      if (what === 'buildings' || what === 'props') city.setShow(what, on);
      else if (what === 'agents') agents.setVisible((show.agents = on));
      else if (what === 'signals') signals.setVisible((show.signals = on));
      else if (what === 'lights') {
        show.lights = on;
        lights.setEnabled(on);
        windows.setEnabled(on);
      } else if (what === 'lod-colours') agents.setLodColours((show.lodColours = on));
    },
    setCameraMode(m) {
      rig.setMode(m);
      panel.reflect({ cameraMode: m });
    },
    async setDrive(on) {
      if (!drive && on) await driveReady;
      if (!drive) {
        if (!on) return;
        console.warn('drive mode is not available in this build');
        panel.reflect({ driving: false });
        return;
      }
      if (on && scenario) {
        drive.start();
      } else if (on) {
        const p = rig.pose();
        const t = rig.controls.target;
        drive.start({ x: t.x, y: -t.z, heading_rad: THREE.MathUtils.degToRad(p.yaw_deg) });
      } else drive.stop();
    },
    exportMetrics(fmt) {
      if (!drive) return;
      if (drive.download) drive.download(fmt);
      else if (fmt === 'csv') download('driver_metrics.csv', drive.exportCSV(), 'text/csv');
      else download('driver_metrics.json', drive.exportJSON(), 'application/json');
    },
  };
  panel = new Panel(app);
  panel.reflect({ hour: sky.hour, dayLength_s: sky.dayLength_s, weather: weather.kind, fog: weather.fog, ...density });

  // 7. The frame loop.
  let last = performance.now();
  let fps = 0;
  let fpsFrames = 0;
  let fpsStart = last;
  let viewerSend = 0;
  let rendered = 0;

  function step(now) {
    const dt = Math.min(0.25, Math.max(0, (now - last) / 1000));
    last = now;
    rig.update(dt);
    const hours = sky.update(dt);
    weather.update(dt, hours, camera);
    windows.update(sky.hour);
    sky.setCentre(rig.controls.target);
    lights.update(dt, camera);
    if (tiles) {
      camera.updateMatrixWorld();
      tiles.update();
    }
    city.update(camera);
    agents.viewer.copy(camera.position);
    if (recording && recording.frameCount > 1) {
      playhead += dt;
      if (playhead > recording.time1) playhead = recording.time0;
      const k = Math.min(recording.frameAt(playhead), recording.frameCount - 2);
      if (k !== recording.k) {
        const b = recording.frame(k + 1);
        if (recording.k === k - 1 && agents.b) agents.push(b);
        else agents.setPair(recording.frame(k), b);
        recording.k = k;
        signals.setStates(agents.a.lights);
        noteTick(b.tick);
        events.dispatchEvent(new CustomEvent('frame', { detail: { tick: b.tick, count: b.count } }));
      }
      const t0 = recording.frameTime(k);
      const t1 = recording.frameTime(k + 1);
      agents.update(t1 > t0 ? (playhead - t0) / (t1 - t0) : 1);
    } else if (live) {
      agents.update((now - frameArrival) / 1000 / frameInterval);
      viewerSend -= dt;
      if (viewerSend <= 0) {
        viewerSend = VIEWER_SEND_S;
        const p = rig.pose();
        live.send({ type: 'viewer', x: p.x, y: p.y, z: p.z, yaw_deg: p.yaw_deg });
      }
    }
    if (recording || live) {
      vehicleLights.setOn(carLightsOn());
      vehicleLights.update(agents, now / 1000);
    }
    for (const fn of frameHooks) fn(dt, now);
    if (drive && drive.update) {
      if (drive.setWeather) drive.setWeather(weather.kind, weather.fog);
      drive.update(dt, now);
    }
    renderer.render(scene, camera);
    rendered++;
    fpsFrames++;
    if (now - fpsStart >= 1000) {
      fps = (fpsFrames * 1000) / (now - fpsStart);
      fpsFrames = 0;
      fpsStart = now;
    }
    const s = stats();
    overlay.update(s, now);
    if (!panel.draggingTime) panel.reflect({ hour: sky.hour });
  }

  function stats() {
    return {
      fps,
      ticks_per_s: ticksPerS(),
      vehicles: agents.counts.vehicles,
      pedestrians: agents.counts.pedestrians,
      per_lod: { ...agents.counts.per_lod },
      agents_drawn: { ...agents.drawn },
      mode,
      time_of_day_h: sky.hour,
      weather: weather.kind,
      fog: weather.fog,
      street_lights_on: lights.lit,
      windows_lit: windows.lit,
      interior_rooms: windows.interiorRooms,
      textured_materials: [...city.materials.values()].filter((m) => m.map).length,
      tinted_materials: city.tintedMaterials,
      chunks_visible: city.visibleChunks,
      chunks_total: city.chunks.length,
      frames: agents.frames,
      sun_elevation_deg: sky.elevation_deg,
      lamps: lights.heads.length,
      renderer: glRenderer,
      rendered_frames: rendered,
      draw_calls: renderer.info.render.calls,
      triangles: renderer.info.render.triangles,
      gpu_textures: renderer.info.memory.textures,
      detail_scale: detailScale,
      render_scale: renderScale,
      tiled: tiles !== null,
      ...(tiles ? tiles.stats() : {}),
    };
  }

  function loop(now) {
    try {
      step(now);
    } catch (e) {
      showError(e);
      return;
    }
    requestAnimationFrame(loop);
  }

  // 8. The test hook.
  const project = (points) => {
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    return points
      .map((p) => {
        const v = p.clone().project(camera);
        return { x: ((v.x + 1) / 2) * w, y: ((1 - v.y) / 2) * h, z: v.z };
      })
      .filter((q) => q.z > -1 && q.z < 1 && q.x >= 0 && q.y >= 0 && q.x < w && q.y < h);
  };
  Object.assign(hook, {
    stats,
    setTime: (h) => app.setTime(h, { send: true }),
    setDayLength: (s) => app.setDayLength(s, { send: true }),
    setWeather: (kind, fog = false) => app.setWeather(kind, fog),
    setCamera: (pose) => rig.setPose({ ...rig.pose(), ...pose }),
    setCameraMode: (m) => app.setCameraMode(m),
    signals: () => signals.map(),
    render: () => step(performance.now()),
    renderer,
    scene,
    camera,
    send: (obj) => (live ? live.send(obj) : false),
    agents: () => agents.b,
    onFrame,
    debug: {
      lampsOnScreen: (n = 40) => project(lights.nearest(camera, n)),
      litWindowsOnScreen: (n = 40, at = [0.5, 0.5]) => project(windows.litNear(camera.position, n, 200, at)),
      // Interiors behind the window glass on or off (off: flat lit windows).
      setInteriors: (on) => windows.setInteriors(on),
      pose: () => rig.pose(),
      // The animation state of the agents drawn by their nearest level (up to 64 of each):
      // pedestrians' walk-cycle phase and gait, vehicles' wheel roll and steering angles.
      agentMotion: () => agents.probe,
      // Renders now and reads the frame back: mean luminance (0-255) in a (2r+1)^2 window at
      // each CSS-pixel point (`at`) and its variance (`varAt`), and the whole frame's mean and
      // variance of luminance.
      sample: (points = [], r = 2) => {
        step(performance.now());
        const gl = renderer.getContext();
        const W = gl.drawingBufferWidth;
        const H = gl.drawingBufferHeight;
        const px = new Uint8Array(W * H * 4);
        gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, px);
        const sx = W / canvas.clientWidth;
        const lum = (x, y) => {
          const i = ((H - 1 - y) * W + x) * 4;
          return 0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2];
        };
        let sum = 0;
        let sum2 = 0;
        for (let y = 0; y < H; y += 2) {
          for (let x = 0; x < W; x += 2) {
            const l = lum(x, y);
            sum += l;
            sum2 += l * l;
          }
        }
        const n = Math.ceil(W / 2) * Math.ceil(H / 2);
        const at = points.map((p) => {
          const cx = Math.round(p.x * sx);
          const cy = Math.round(p.y * sx);
          let s = 0;
          let s2 = 0;
          let k = 0;
          for (let y = Math.max(0, cy - r); y <= Math.min(H - 1, cy + r); y++) {
            for (let x = Math.max(0, cx - r); x <= Math.min(W - 1, cx + r); x++) {
              const l = lum(x, y);
              s += l;
              s2 += l * l;
              k++;
            }
          }
          return k ? [s / k, s2 / k - (s / k) ** 2] : [0, 0];
        });
        return { mean: sum / n, variance: sum2 / n - (sum / n) ** 2, at: at.map((a) => a[0]), varAt: at.map((a) => a[1]) };
      },
      sky,
      city,
      tiles,
    },
  });
  $('loading').style.display = 'none';
  cancelAnimationFrame(preview);
  const tFirst = performance.now();
  step(performance.now());
  console.info(`first frame in ${((performance.now() - tFirst) / 1000).toFixed(1)} s`);
  hook.ready = true;
  events.dispatchEvent(new Event('ready'));
  requestAnimationFrame(loop);
}

main().catch(showError);
