// SPDX-License-Identifier: Apache-2.0
// Drive mode end to end (issue 8): the drive toggle puts a car on the road, held arrow keys
// move and turn it, and a scripted drive through a signal that shows red yields exactly one
// red-light violation in the exported metrics. Screenshots and the exported metrics go to --out.
//
//   node tests/e2e/drive.test.mjs --cityforge BIN --out DIR   (exit 77: no chromium / viewer)

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { capture, log, parseArgs, startHarness } from './harness.mjs';

const WAIT = { timeout: 600_000, polling: 500 }; // Hang guards only; nothing is timed.

// The viewer's plan clock (docs/lanes.md), evaluated in the page to find a red that lasts.
function pickRedLight(tried) {
  const cf = window.cityforge;
  const lanes = cf.lanes.lanes;
  const sig = cf.signals();
  const t0 = cf.drive.clock();
  const plans = cf.lanes.signals || [];
  const planState = (id, t) => {
    for (const plan of plans) {
      if (!plan.phases.some((ph) => ph.green.includes(id))) continue;
      let u = (((t - plan.offset_s) % plan.cycle_s) + plan.cycle_s) % plan.cycle_s;
      for (const ph of plan.phases) {
        const has = ph.green.includes(id);
        if (u < ph.green_s) return has ? 'green' : 'red';
        u -= ph.green_s;
        if (u < ph.yellow_s) return has ? 'yellow' : 'red';
        u -= ph.yellow_s + ph.all_red_s;
        if (u < 0) return 'red';
      }
      return 'red';
    }
    return null;
  };
  const length = (l) => {
    let s = 0;
    for (let i = 1; i < l.points.length; i++) {
      s += Math.hypot(l.points[i][0] - l.points[i - 1][0], l.points[i][1] - l.points[i - 1][1]);
    }
    return s;
  };
  const a = cf.agents();
  const busy = (lane, len) => {
    // Vehicles on the last 30 m of the approach, where the car starts: the traffic are solid
    // bodies to the car, so one waiting at the line would stop it short of the line.
    let n = 0;
    for (let i = 0; a && i < a.count; i++) {
      if (a.kinds[i] >= 4) continue;
      let s = 0;
      for (let k = 1; k < lane.points.length; k++) {
        const [x0, y0] = lane.points[k - 1];
        const [x1, y1] = lane.points[k];
        const L = Math.hypot(x1 - x0, y1 - y0);
        const u = L > 0 ? Math.max(0, Math.min(1, ((a.x[i] - x0) * (x1 - x0) + (a.y[i] - y0) * (y1 - y0)) / (L * L))) : 0;
        if (Math.hypot(a.x[i] - (x0 + u * (x1 - x0)), a.y[i] - (y0 + u * (y1 - y0))) < 4 && s + u * L > len - 30) {
          n++;
          break;
        }
        s += L;
      }
    }
    return n + (len < 45 ? 100 : 0);
  };
  const cands = [];
  for (const approach of lanes) {
    if (!approach.tags.includes('vehicle') || approach.tags.includes('intersection')) continue;
    if (tried.includes(approach.id)) continue;
    const succ = approach.successors;
    if (!succ.length || !succ.every((id) => sig.get(id) === 'red')) continue;
    // Seconds the plan keeps every movement red from now.
    let left = 0;
    while (left < 120 && succ.every((id) => planState(id, t0 + left) === 'red')) left += 0.5;
    const len = length(approach);
    cands.push({ approach: approach.id, successors: succ, len, left, busy: busy(approach, len) });
  }
  // Enough red left first (the live simulation runs in real time, the car at the frame
  // rate), then a clear approach, then the longest red.
  const enough = (c) => (c.left >= 30 ? 0 : 1);
  cands.sort((p, q) => enough(p) - enough(q) || p.busy - q.busy || q.left - p.left || p.approach - q.approach);
  return { t0, count: cands.length, best: cands[0] || null };
}

const opts = parseArgs(process.argv.slice(2));
// A small window: SwiftShader's frame time grows with the pixels, and the car's clock with it.
if (!process.argv.includes('--size')) [opts.width, opts.height] = [640, 360];

async function screenshot(page, name) {
  // Frames take seconds under SwiftShader with the whole city in view: a long timeout.
  const file = path.join(opts.out, `${name}.png`);
  await capture(page, file);
  log(`screenshot ${file}`);
}
const h = await startHarness(opts);
let code = 0;
try {
  const page = await h.openViewer('?test=1');
  await page.waitForFunction(() => window.cityforge.drive && window.cityforge.stats().frames >= 2 &&
    window.cityforge.signals().size > 0, null, WAIT);

  // Street furniture and trees off (the drive needs the roads, not a million props): the
  // software renderer's frame rate is the car's clock here.
  const fpsBefore = await page.evaluate(() => window.cityforge.stats().fps);
  await page.evaluate(() => {
    const props = document.getElementById('show-props');
    if (props.checked) props.click();
  });
  await page.waitForFunction((f) => window.cityforge.stats().frames >= f + 3, await page.evaluate(() => window.cityforge.stats().frames), WAIT);
  log(`fps ${fpsBefore.toFixed(2)} with props, ${(await page.evaluate(() => window.cityforge.stats().fps)).toFixed(2)} without`);

  // 1. The toggle starts drive mode on a road near the camera; held keys move and turn it.
  // The toggle as a user clicks it (a DOM click: the page's main thread is too busy under
  // SwiftShader for the actionability checks of page.click).
  await page.evaluate(() => document.getElementById('drive-toggle').click());
  await page.waitForFunction(() => window.cityforge.drive.active, null, WAIT);
  const s0 = await page.evaluate(() => window.cityforge.drive.state());
  log(`drive started on lane ${s0.lane} at (${s0.x.toFixed(1)}, ${s0.y.toFixed(1)})`);
  // At rest (the physics car settles on its springs: a few mm/s for a moment).
  assert.ok(Math.abs(s0.speed_mps) < 0.05, `speed ${s0.speed_mps}`);
  assert.notEqual(s0.lane, null, 'the car starts on a vehicle lane');
  await page.keyboard.down('ArrowUp');
  await page.waitForFunction(() => window.cityforge.drive.state().speed_mps > 4, null, WAIT);
  const sFast = await page.evaluate(() => window.cityforge.drive.state());
  await page.keyboard.down('ArrowLeft');
  await page.waitForFunction((h0) => {
    const d = Math.abs(Math.atan2(Math.sin(window.cityforge.drive.state().heading_rad - h0),
      Math.cos(window.cityforge.drive.state().heading_rad - h0)));
    return d > 0.2;
  }, s0.heading_rad, WAIT);
  await page.keyboard.up('ArrowLeft');
  await page.keyboard.up('ArrowUp');
  const s1 = await page.evaluate(() => window.cityforge.drive.state());
  const moved = Math.hypot(s1.x - s0.x, s1.y - s0.y);
  log(`after the keys: speed ${s1.speed_mps.toFixed(1)} m/s, moved ${moved.toFixed(1)} m, lane ${s1.lane}`);
  // (Not the speed after the turn: the car may have met a tree or a wall while turning.)
  assert.ok(sFast.speed_mps > 4, 'ArrowUp accelerates');
  assert.ok(moved > 5, 'the car moved');
  await screenshot(page, 'drive-keys');
  await page.keyboard.down('Space');
  await page.waitForFunction(() => window.cityforge.drive.state().speed_mps < 0.05, null, WAIT);
  await page.keyboard.up('Space');
  const keysMetrics = JSON.parse(await page.evaluate(() => window.cityforge.drive.exportJSON()));
  assert.ok(keysMetrics.samples.length > 5, 'samples recorded');
  assert.ok(keysMetrics.summary.max_speed_mps > 4);

  // 2. A scripted drive through a red light: start 20 m before the stop line of an approach
  // whose every movement shows red (and will for a while), hold ArrowUp until the car is
  // close to the line, coast over it, then stop with the handbrake. Buildings off as well:
  // the live simulation runs in real time while the car's clock is the frame rate's.
  await page.evaluate(() => {
    const b = document.getElementById('show-buildings');
    if (b.checked) b.click();
  });
  // The live traffic moves on while the car drives: a vehicle may still turn into the
  // approach ahead of the car and stop it short of the line. Such a drive is given up (the
  // car stands still for 3 s of its clock) and another approach is tried, up to five.
  const tried = [];
  let approach;
  let successors;
  for (;;) {
    const pick = await page.evaluate(pickRedLight, tried);
    log(`red approaches: ${pick.count}; chosen ${JSON.stringify(pick.best)} at t = ${pick.t0}`);
    assert.ok(pick.best, 'some approach shows red on every movement');
    ({ approach, successors } = pick.best);
    const { len } = pick.best;
    tried.push(approach);
    await page.evaluate(([lane, s]) => window.cityforge.drive.start({ lane, s_m: s, speed_mps: 10 }),
      [approach, Math.max(0, len - 20)]);
    await page.keyboard.down('ArrowUp');
    // Stuck, in both waits: the car stands for 3 s of its clock short of where it should be.
    let t0 = await page.evaluate(() => window.cityforge.drive.clock());
    let outcome = await (await page.waitForFunction(([lane, end, succ, t]) => {
      const d = window.cityforge.drive;
      const st = d.state();
      if (succ.includes(st.lane) || (st.lane === lane && st.s_m >= end) || d.metrics().summary.signal_crossings > 0) {
        return 'line';
      }
      return d.clock() - t > 3 && st.speed_mps < 0.3 ? `stuck at s = ${st.s_m?.toFixed(1)} on lane ${st.lane}` : false;
    }, [approach, len - 10, successors, t0], WAIT)).jsonValue();
    await page.keyboard.up('ArrowUp');
    if (outcome === 'line') {
      // Coast over the line.
      t0 = await page.evaluate(() => window.cityforge.drive.clock());
      outcome = await (await page.waitForFunction((t) => {
        const d = window.cityforge.drive;
        const st = d.state();
        if (d.metrics().summary.signal_crossings > 0) return 'crossed';
        return d.clock() - t > 3 && st.speed_mps < 0.3 ? `stopped before the line on lane ${st.lane}` : false;
      }, t0, WAIT)).jsonValue();
      if (outcome === 'crossed') break;
    }
    log(`drive on approach ${approach} given up: ${outcome}`);
    assert.ok(tried.length < 5, `five approaches tried, the car stopped short of the line on each (${outcome})`);
  }
  const atLine = await page.evaluate(() => ({ st: window.cityforge.drive.state(),
    sig: [...window.cityforge.signals()] }));
  await screenshot(page, 'drive-red-light');
  await page.keyboard.down('Space');
  await page.waitForFunction(() => window.cityforge.drive.state().speed_mps < 0.05, null, WAIT);
  await page.keyboard.up('Space');
  const json = await page.evaluate(() => window.cityforge.drive.exportJSON());
  const csv = await page.evaluate(() => window.cityforge.drive.exportCSV());
  const eventsCsv = await page.evaluate(() => window.cityforge.drive.exportEventsCSV());
  fs.writeFileSync(path.join(opts.out, 'drive-metrics.json'), json);
  fs.writeFileSync(path.join(opts.out, 'drive-samples.csv'), csv);
  fs.writeFileSync(path.join(opts.out, 'drive-events.csv'), eventsCsv);
  const m = JSON.parse(json);
  log(`summary: ${JSON.stringify(m.summary)}`);
  log(`car past the line: lane ${atLine.st.lane}, ${atLine.st.speed_mps.toFixed(1)} m/s, fps ${(await page.evaluate(() => window.cityforge.stats().fps)).toFixed(2)}`);
  assert.equal(m.format, 'cityforge-drive-metrics');
  assert.equal(m.summary.signal_crossings, 1);
  assert.equal(m.summary.red_light_violations, 1);
  const red = m.events.filter((e) => e.type === 'red_light');
  assert.equal(red.length, 1);
  assert.equal(red[0].approach_lane, approach);
  assert.ok(successors.includes(red[0].connector));
  assert.equal(csv.split('\n')[0].split(',')[0], 't_s');
  await page.evaluate(() => window.cityforge.drive.stop());
  assert.equal(await page.evaluate(() => window.cityforge.drive.active), false);
  // The panel's settings: a threshold typed in holds for the next drive; a key bound by
  // pressing it drives the throttle, and reset brings the default back.
  const ui = await page.evaluate(async () => {
    const d = window.cityforge.drive;
    const box = document.querySelector('#drive-thresholds input[data-threshold="near_miss_ttc_s"]');
    box.value = '2.5';
    box.dispatchEvent(new Event('change'));
    const bad = document.querySelector('#drive-thresholds input[data-threshold="harsh_brake_mps2"]');
    bad.value = '-1';
    bad.dispatchEvent(new Event('change'));
    d.start();
    const th = d.thresholds();
    document.getElementById('bind-device').value = 'keyboard';
    document.getElementById('bind-action').value = 'throttle';
    document.getElementById('bind-action').dispatchEvent(new Event('change'));
    document.getElementById('bind-start').click();
    const status = document.getElementById('bind-status').textContent;
    window.dispatchEvent(new KeyboardEvent('keydown', { code: 'KeyI', key: 'i' }));
    const bound = [...d.input.bindings.keyboard.throttle];
    const shown = document.getElementById('bind-current').textContent;
    const before = d.keys.up; // the binding key press went to the binding only
    window.dispatchEvent(new KeyboardEvent('keydown', { code: 'KeyI', key: 'i' }));
    const pressed = d.keys.up;
    window.dispatchEvent(new KeyboardEvent('keyup', { code: 'KeyI', key: 'i' }));
    document.getElementById('bind-reset').click();
    const after = [...d.input.bindings.keyboard.throttle];
    d.stop();
    return { ttc: th.near_miss_ttc_s, harsh: th.harsh_brake_mps2, errors: document.getElementById('threshold-errors').textContent,
      status, bound, shown, before, pressed, after };
  });
  log(`settings: ${JSON.stringify(ui)}`);
  assert.equal(ui.ttc, 2.5);
  assert.equal(ui.harsh, 4);
  assert.match(ui.errors, /harsh_brake_mps2: expected a number >= 0/);
  assert.match(ui.status, /press a key/);
  assert.deepEqual(ui.bound, ['KeyI']);
  assert.equal(ui.shown, 'KeyI');
  assert.equal(ui.before, false);
  assert.equal(ui.pressed, true, 'the new key drives the throttle');
  assert.deepEqual(ui.after, ['ArrowUp', 'KeyW']);
  if (h.errors.length) {
    log(`console errors:\n  ${h.errors.join('\n  ')}`);
    assert.fail(`${h.errors.length} console errors`);
  }
  log('PASS');
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  await h.close();
}
process.exit(code);
