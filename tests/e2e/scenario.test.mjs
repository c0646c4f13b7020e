// SPDX-License-Identifier: Apache-2.0
// Scenarios end to end (issue 25): every shipped scenario (data/scenarios/) served with
// `cityforge serve --live --scenario FILE` loads in the viewer, drive mode starts at its start
// with its vehicle, a scripted driver follows its route, every hazard fires at its trigger,
// and a brake scripted 0.6 s after the first hazard's onset gives a reaction time of 0.6 s
// (within 50 ms). A recorded drive replayed gives identical metrics (static mode: no live
// traffic, which runs in real time). In the night rain that brake comes too late: the
// pedestrian is knocked down, a casualty lying where it was thrown. Driving into a building gives one collision of kind
// building with its impact speed. No console errors. Metrics and screenshots go to --out.
//
//   node tests/e2e/scenario.test.mjs --cityforge BIN --out DIR   (exit 77: no chromium / viewer)

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { capture, log, parseArgs, SOURCE_DIR, startHarness, startServe } from './harness.mjs';

const WAIT = { timeout: 600_000, polling: 500 }; // Hang guards only; nothing is timed.
const REACTION_S = 0.6;

const opts = parseArgs(process.argv.slice(2));
if (!process.argv.includes('--size')) [opts.width, opts.height] = [640, 360];
// The harness's own server only serves the static page of the wall test (each scenario has a
// live server of its own): without a simulation of its own, which would take CPU from the
// scenario's server and the browser for the whole run.
opts.mode = opts.mode ?? 'static';
const scenarioDir = path.join(SOURCE_DIR, 'data', 'scenarios');
const files = fs.readdirSync(scenarioDir).filter((f) => f.endsWith('.json')).sort();
// The scenario whose scripted drive is also replayed from its recorded inputs.
const REPLAY_FILE = files.find((f) => f.includes('school')) || files[0];

// The scripted driver, run in the page every physics step: keeps to the lane it is on
// (straight on through junctions; off lanes it heads for the scenario's next route point) at
// a target speed; a full brake REACTION_S after the first
// hazard onset; every step's position kept for the trigger checks.
function scriptedDrive([reaction, seconds]) {
  const cf = window.cityforge;
  const spec = cf.scenario;
  const d = cf.drive;
  const route = [[spec.start.x ?? d.state().x, spec.start.y ?? d.state().y], ...(spec.route || [])];
  let wp = 1;
  const trace = [];
  const handled = new Set();
  let brakeAt = null;
  let stoppedAt = null;
  const driver = (s, t) => {
    trace.push([t, s.x, s.y, s.speed_mps]);
    // Each hazard's onset: brake `reaction` later, to a stop; go on 2 s after stopping.
    for (const h of d.hazards()) {
      if (h.onset_t_s === null || h.kind === 'sudden_fog' || handled.has(h.id)) continue;
      handled.add(h.id);
      if (brakeAt === null) brakeAt = h.onset_t_s + reaction;
    }
    if (brakeAt !== null && t >= brakeAt - 1e-9) {
      if (s.speed_mps > 0.3) return { throttle: 0, brake: 1, steer: 0 };
      // At rest: the handbrake (a held brake at rest selects reverse), then on.
      if (stoppedAt === null) stoppedAt = t;
      if (t - stoppedAt < 2) return { throttle: 0, brake: 0, steer: 0, handbrake: true };
      brakeAt = null;
      stoppedAt = null;
    }
    while (wp < route.length - 1 && Math.hypot(route[wp][0] - s.x, route[wp][1] - s.y) < 12) wp++;
    const [tx, ty] = wp < route.length ? route[wp] : route[route.length - 1];
    let err = Math.atan2(ty - s.y, tx - s.x) - s.heading_rad;
    err = Math.atan2(Math.sin(err), Math.cos(err));
    // On a lane: keep to it (straight on through junctions, as the lane match prefers);
    // off every lane: towards the next route point.
    const steer = Math.max(-1, Math.min(1, s.lane !== null
      ? -(0.25 * s.lateral_m + 1.5 * s.heading_err_rad) : 2.5 * err));
    const want = 9;
    return { throttle: s.speed_mps < want ? 0.5 : 0, brake: s.speed_mps > want + 1 ? 0.3 : 0, steer };
  };
  d.advance(seconds, driver);
  return { trace, brakeAt, hazards: d.hazards(), metrics: d.metrics(), inputs: d.exportInputs() };
}

const h = await startHarness(opts);
let code = 0;
const extra = [];
try {
  for (const file of files) {
    const spec = JSON.parse(fs.readFileSync(path.join(scenarioDir, file), 'utf8'));
    const serve = await startServe({ ...opts, serveArgs: ['--scenario', path.join(scenarioDir, file)] }, { live: true });
    extra.push(serve);
    log(`${spec.name}: serving at ${serve.url}`);
    const page = await h.openViewer('?test=1&scenario=1&mode=live', { url: serve.url });
    await page.waitForFunction(() => window.cityforge.drive && window.cityforge.scenario &&
      window.cityforge.stats().frames >= 2, null, WAIT);
    const served = await page.evaluate(() => window.cityforge.scenario);
    assert.equal(served.name, spec.name);
    assert.match(served.file_hash, /^[0-9a-f]{16,64}$/);
    // Drive mode as a user starts it: the toggle. The car is at the scenario's start.
    await page.evaluate(() => document.getElementById('drive-toggle').click());
    await page.waitForFunction(() => window.cityforge.drive.active &&
      window.cityforge.drive.metrics().samples.length > 0, null, WAIT);
    const s0 = await page.evaluate(() => window.cityforge.drive.state());
    assert.equal(s0.vehicle, served.vehicle_spec.name);
    if (spec.start.x !== undefined) {
      // Where the drive began: its first metrics sample, taken at its first step. The live
      // traffic runs in real time and its vehicles are solid, so by the time this page reads
      // the car's state a vehicle may have pushed it (a full run here found the car 4 m on
      // along its heading).
      const first = await page.evaluate(() => window.cityforge.drive.metrics().samples[0]);
      const contacts = await page.evaluate(() => window.cityforge.drive.contacts());
      assert.ok(Math.hypot(first.x - spec.start.x, first.y - spec.start.y) < 3.5,
        `start at ${first.x}, ${first.y} (now ${s0.x}, ${s0.y}; contacts ${JSON.stringify(contacts)})`);
      log(`${spec.name}: started at ${first.x}, ${first.y}; now ${s0.x.toFixed(1)}, ${s0.y.toFixed(1)}, ` +
        `${contacts.length} contacts`);
    }
    // Long enough for every trigger along the route at 9 m/s.
    // Live: the server has the scenario's weather and, once frames have sent it, the player.
    await page.waitForFunction(async () => {
      const st = await (await fetch('/live/stats')).json();
      return st.players > 0;
    }, null, WAIT);
    const live = await page.evaluate(async () => (await fetch('/live/stats')).json());
    log(`${spec.name}: live ${JSON.stringify({ players: live.players, weather: live.weather, vehicles: live.vehicles })}`);
    await page.evaluate(() => window.cityforge.drive.stop());
    await page.close();
    // The scripted drive in static mode: the scenario's hazards, weather, car and buildings,
    // without the live traffic (which runs in real time, so a scripted driver would meet it
    // differently every run).
    const spage = await h.openViewer('?test=1&scenario=1&mode=static', { url: serve.url });
    await spage.waitForFunction(() => window.cityforge.drive && window.cityforge.scenario, null, WAIT);
    await spage.evaluate(() => {
      window.cityforge.drive.setManual(true); // frames do not step the car: the script does
      window.cityforge.drive.start();
    });
    const seconds = Math.min(spec.duration_s - 1, 120);
    const r = await spage.evaluate(scriptedDrive, [REACTION_S, seconds]);
    fs.writeFileSync(path.join(opts.out, `${spec.name}-metrics.json`), JSON.stringify(r.metrics, null, 1));
    await capture(spage, path.join(opts.out, `${spec.name}.png`));
    const last = r.trace[r.trace.length - 1];
    log(`${spec.name}: ${r.trace.length} steps, ended at ${last.map((v) => v.toFixed(1)).join(', ')}; ` +
      `${r.metrics.summary.distance_m.toFixed(0)} m, collisions ${r.metrics.summary.collisions}`);
    log(`${spec.name}: hazards ${JSON.stringify(r.hazards.map((x) => [x.id, x.state, x.trigger_t_s, x.onset_t_s]))}`);
    // Every hazard fired at its trigger.
    const at = (t) => r.trace.find((p) => p[0] >= t - 1e-9) || r.trace[r.trace.length - 1];
    for (const hz of spec.hazards) {
      const v = r.hazards.find((x) => x.id === hz.id);
      assert.ok(v && v.trigger_t_s !== null, `${spec.name}: hazard ${hz.id} fired`);
      assert.ok(Math.abs(v.onset_t_s - (v.trigger_t_s + (hz.delay_s ?? 0))) < 1e-9, `${hz.id}: onset after its delay`);
      const p = at(v.trigger_t_s);
      const before = r.trace[Math.max(0, r.trace.indexOf(p) - 1)];
      if (hz.trigger.time_s !== undefined) assert.ok(Math.abs(v.trigger_t_s - hz.trigger.time_s) <= 0.0100001);
      const [cx, cy, rad] = hz.trigger.distance_m !== undefined ? [hz.at[0], hz.at[1], hz.trigger.distance_m]
        : hz.trigger.position ? [hz.trigger.position[0], hz.trigger.position[1], hz.trigger.radius_m] : [null, null, null];
      if (cx !== null) {
        // Within the radius at the trigger, not yet a step before.
        assert.ok(Math.hypot(p[1] - cx, p[2] - cy) <= rad + 0.05, `${hz.id}: inside at its trigger`);
        if (before !== p) assert.ok(Math.hypot(before[1] - cx, before[2] - cy) > rad - 0.5, `${hz.id}: not long before`);
      }
    }
    // The reaction time to the first hazard: the scripted brake's delay.
    const ev = r.metrics.events.filter((e) => e.type === 'hazard' && e.reaction_time_s !== null && e.reaction_time_s !== undefined);
    log(`${spec.name}: reaction times ${JSON.stringify(ev.map((e) => [e.hazard_id, e.reaction, e.reaction_time_s]))}`);
    const first = ev.sort((a, b) => a.onset_t_s - b.onset_t_s)[0];
    assert.ok(first, `${spec.name}: a reaction was measured`);
    assert.equal(first.reaction, 'brake');
    assert.ok(Math.abs(first.reaction_time_s - REACTION_S) <= 0.05, `reaction ${first.reaction_time_s}`);
    assert.equal(r.metrics.scenario.name, spec.name);
    if (file === REPLAY_FILE) {
      // The recorded drive replays identically (static mode: the scripted hazards, the car
      // and the buildings; live traffic runs in real time and is not part of a replay).
      const b = await spage.evaluate(([inputs, t]) => {
        const d = window.cityforge.drive;
        d.replay(inputs);
        d.advance(t);
        return { metrics: d.metrics(), inputs: d.exportInputs() };
      }, [r.inputs, seconds]);
      const strip = (m) => ({ summary: m.summary, events: m.events, samples: m.samples });
      assert.deepEqual(strip(b.metrics), strip(r.metrics), 'the replay gives the same metrics');
      assert.equal(b.inputs, r.inputs, 'and records the same inputs');
      log(`replay: ${r.metrics.samples.length} samples and ${r.metrics.events.length} events identical`);
    }
    if (spec.name === 'night-rain-downtown') {
      // On the wet road (grip halved) a 0.6 s reaction at 9 m/s does not stop in time: the
      // pedestrian in the dark is hit, thrown ahead, and stays down where it lands, a casualty.
      const c = r;
      const hit = c.metrics.events.find((e) => e.type === 'casualty');
      const ped = c.hazards.find((x) => x.kind === 'pedestrian_steps_out');
      log(`casualties ${c.metrics.summary.casualties}, ${JSON.stringify(hit)}; ${ped.id} ${ped.state} at ` +
        `${ped.x?.toFixed(2)}, ${ped.y?.toFixed(2)}`);
      assert.equal(c.metrics.summary.casualties, 1);
      assert.equal(hit.other_id, ped.id);
      assert.ok(hit.impact_speed_mps >= 1.5);
      assert.equal(ped.state, 'down');
      assert.ok(hit.throw_m > 0.5, `thrown ${hit.throw_m} m`);
      assert.ok(Math.hypot(ped.x - hit.rest_x, ped.y - hit.rest_y) < 1e-6, 'lies where it was thrown');
      assert.equal(c.metrics.events.find((e) => e.type === 'hazard' && e.hazard_id === ped.id).collision, true);
      // The same drive replayed to 3 s after the impact (the car has stopped past the body),
      // for the picture.
      await spage.evaluate(([inputs, t]) => {
        const d = window.cityforge.drive;
        d.replay(inputs);
        d.advance(t);
      }, [c.inputs, hit.t_s + 3]);
      await new Promise((res) => setTimeout(res, 1500));
      await capture(spage, path.join(opts.out, 'casualty.png'));
      // From the kerb, looking down at the one who lies there (the free camera: the orbit
      // controls own it, the car is not moving). The panel is hidden for this picture.
      await spage.evaluate(([x, y]) => {
        const cf = window.cityforge;
        cf.drive.setCamera('free');
        document.getElementById('panel').style.display = 'none';
        const z = cf.drive.state().z;
        cf.camera.position.set(x - 3, z + 4.5, -(y - 5));
        cf.camera.lookAt(x, z, -y);
        cf.camera.updateMatrixWorld();
      }, [ped.x, ped.y]);
      await new Promise((res) => setTimeout(res, 1500));
      await capture(spage, path.join(opts.out, 'casualty-kerb.png'));
    }
    await spage.evaluate(() => window.cityforge.drive.stop());
    await spage.close();
    serve.proc.kill('SIGTERM');
  }

  // Into a wall, then into a post: the harness's city, no scenario, static mode (live traffic
  // would cross the path). A lane point with a building (or a solid prop) ahead and nothing
  // else in the way.
  {
    const page = await h.openViewer('?test=1&mode=static');
    await page.waitForFunction(() => window.cityforge.drive, null, WAIT);
    const { buildingRings } = await import(path.join(SOURCE_DIR, 'viewer', 'src', 'metrics', 'geometry.js'));
    const { readPlyPoints, SOLID_PROPS } = await import(path.join(SOURCE_DIR, 'viewer', 'src', 'drive', 'props.js'));
    const byProp = JSON.parse(fs.readFileSync(path.join(opts.city, 'stats.json'), 'utf8')).dressing.by_prop;
    const props = [];
    for (const kind of Object.keys(SOLID_PROPS).filter((k) => byProp[k] > 0)) {
      const b = fs.readFileSync(path.join(opts.city, 'points', 'props', `${kind}.ply`));
      const p = readPlyPoints(b.buffer.slice(b.byteOffset, b.byteOffset + b.length), kind);
      for (let i = 0; i < p.x.length; i++) props.push({ kind, x: p.x[i], y: p.y[i], r: SOLID_PROPS[kind] });
    }
    // Distance along the ray to the first prop it passes within r + 1.2 m of (the car's half width).
    const propHit = (ox, oy, dx, dy, max) => {
      let best = Infinity;
      let which = null;
      for (const q of props) {
        const t = (q.x - ox) * dx + (q.y - oy) * dy;
        if (t <= 0 || t > max) continue;
        const lat = Math.abs((q.x - ox) * dy - (q.y - oy) * dx);
        if (lat < q.r + 1.2 && t < best) {
          best = t;
          which = q;
        }
      }
      return { t: best, prop: which, lat: which ? Math.abs((which.x - ox) * dy - (which.y - oy) * dx) : null };
    };
    // The viewer's own props (loaded in the background) are in before any drive starts.
    await page.waitForFunction(() => window.cityforge.drive.propCount() > 0, null, WAIT);
    const rings = buildingRings(JSON.parse(fs.readFileSync(path.join(opts.city, 'layout.geojson'), 'utf8')));
    const lanes = JSON.parse(fs.readFileSync(path.join(opts.city, 'lanes.json'), 'utf8')).lanes;
    const hit = (ox, oy, dx, dy) => {
      let best = Infinity;
      for (const ring of rings) {
        for (let i = 0; i < ring.length; i++) {
          const [ax, ay] = ring[i];
          const [bx, by] = ring[(i + 1) % ring.length];
          const ex = bx - ax;
          const ey = by - ay;
          const den = dx * ey - dy * ex;
          if (Math.abs(den) < 1e-9) continue;
          const t = ((ax - ox) * ey - (ay - oy) * ex) / den;
          const u = ((ax - ox) * dy - (ay - oy) * dx) / den;
          if (t > 0 && u >= 0 && u <= 1) best = Math.min(best, t);
        }
      }
      return best;
    };
    let pose = null;
    for (const lane of lanes) {
      if (!lane.tags.includes('vehicle') || lane.tags.includes('intersection') || pose) continue;
      for (let i = 0; i + 1 < lane.points.length && !pose; i++) {
        const [p, q] = [lane.points[i], lane.points[i + 1]];
        if (Math.hypot(q[0] - p[0], q[1] - p[1]) < 1) continue;
        const hd = Math.atan2(q[1] - p[1], q[0] - p[0]) - 0.6; // 34 degrees to the right
        const [x, y] = p;
        const dist = hit(x, y, Math.cos(hd), Math.sin(hd));
        if (dist > 9 && dist < 30 && propHit(x, y, Math.cos(hd), Math.sin(hd), dist + 3).t === Infinity) {
          pose = { x, y, heading_rad: hd, dist };
        }
      }
    }
    assert.ok(pose, `a lane with a building 9-30 m ahead-right (${rings.length} buildings)`);
    log(`into a wall: from ${pose.x.toFixed(1)}, ${pose.y.toFixed(1)}, ${pose.dist.toFixed(1)} m`);
    const m = await page.evaluate((p) => {
      const d = window.cityforge.drive;
      d.setManual(true);
      d.start({ x: p.x, y: p.y, heading_rad: p.heading_rad });
      d.advance(6, [{ t_s: 0, throttle: 0.7 }, { t_s: 4, throttle: 0 }]);
      return { metrics: d.metrics(), contacts: d.contacts() };
    }, pose);
    await capture(page, path.join(opts.out, 'wall.png'));
    // Figures (printed, not asserted): the collision world's build for this city and the
    // cost of one physics step (car, buildings, agents, scenario-free) in this browser.
    const cost = await page.evaluate(() => {
      const d = window.cityforge.drive;
      d.start();
      const t0 = performance.now();
      d.advance(5, [{ t_s: 0, throttle: 0.4 }]);
      const per = (performance.now() - t0) / 500;
      d.stop();
      return { build_ms: d.physicsBuildMs(), step_ms: per, frame_ms_60hz: (per * 100) / 60 };
    });
    log(`physics: collision world built in ${cost.build_ms.toFixed(0)} ms; a step (car, metrics, lane match) ` +
      `${cost.step_ms.toFixed(3)} ms, ${cost.frame_ms_60hz.toFixed(3)} ms per 60 Hz frame`);
    fs.writeFileSync(path.join(opts.out, 'physics-cost.json'), JSON.stringify(cost));
    const walls = m.contacts.filter((c) => c.with === 'building');
    log(`contacts ${JSON.stringify(m.contacts)}`);
    assert.equal(walls.length, 1, 'one collision with a building');
    assert.equal(m.metrics.summary.collisions_building, 1);
    assert.ok(walls[0].impact_speed_mps > 3, `impact at ${walls[0].impact_speed_mps} m/s`);
    // A post or trunk dead ahead (within 0.3 m of the car's axis), 9-25 m off, no building first.
    let ppose = null;
    for (const lane of lanes) {
      if (!lane.tags.includes('vehicle') || lane.tags.includes('intersection') || ppose) continue;
      for (let i = 0; i + 1 < lane.points.length && !ppose; i += 2) {
        const [p, q] = [lane.points[i], lane.points[i + 1]];
        if (Math.hypot(q[0] - p[0], q[1] - p[1]) < 1) continue;
        for (const off of [-0.5, 0.5]) {
          const hd = Math.atan2(q[1] - p[1], q[0] - p[0]) + off;
          const [dx, dy] = [Math.cos(hd), Math.sin(hd)];
          const ph = propHit(p[0], p[1], dx, dy, 25);
          if (ph.t > 9 && ph.t < 25 && ph.lat < 0.3 && hit(p[0], p[1], dx, dy) > ph.t + 2) {
            ppose = { x: p[0], y: p[1], heading_rad: hd, prop: ph.prop, dist: ph.t };
            break;
          }
        }
      }
    }
    assert.ok(ppose, 'a lane with a solid prop ahead');
    log(`into a ${ppose.prop.kind}: from ${ppose.x.toFixed(1)}, ${ppose.y.toFixed(1)}, ${ppose.dist.toFixed(1)} m`);
    await page.waitForFunction(() => window.cityforge.drive.propCount() > 0, null, WAIT);
    const pm = await page.evaluate((p) => {
      const d = window.cityforge.drive;
      d.start({ x: p.x, y: p.y, heading_rad: p.heading_rad });
      d.advance(6, [{ t_s: 0, throttle: 0.7 }, { t_s: 4, throttle: 0 }]);
      const r = { metrics: d.metrics(), contacts: d.contacts() };
      d.stop();
      return r;
    }, ppose);
    log(`contacts ${JSON.stringify(pm.contacts)}`);
    const posts = pm.contacts.filter((c) => c.with === 'prop');
    assert.equal(posts.length, 1, 'one collision with a prop');
    assert.equal(posts[0].other_kind, ppose.prop.kind);
    assert.equal(pm.metrics.summary.collisions_prop, 1);
    await page.close();
  }
  if (h.errors.length) {
    log(`console errors:\n  ${h.errors.join('\n  ')}`);
    assert.fail(`${h.errors.length} console errors`);
  }
  log('PASS');
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  for (const s of extra) s.proc.kill('SIGTERM');
  await h.close();
}
process.exit(code);
