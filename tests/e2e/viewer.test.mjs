#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// End-to-end test of the browser viewer (issue 8) in headless Chromium against `cityforge serve`:
//   node tests/e2e/viewer.test.mjs --cityforge BIN --out DIR [--city DIR] [--mode live|recording]
// 1. The default city loads with no console errors.
// 2. The canvas is not blank (luminance variance above a threshold).
// 3. Vehicle and pedestrian counters rise above 0, and frames keep arriving.
// 4. The time slider moved to night fires 'dusk', turns street lights and windows on (state),
//    and the pixels at the projected lamps and lit windows are brighter than in the same night
//    frame with #show-lights off.
// 5. Near the street camera, pedestrians are animated bodies whose walk phase changes between
//    frames, and vehicles' wheels roll.
// 6. Lit windows show interiors at night: the projected lit windows (a pane's middle, off the
//    window's bars) whose small patch is even with the interiors off (wholly inside the glass)
//    are one flat colour without interiors and differ from room to room with them (room type,
//    furniture, depth: the luminance's spread across windows), and the lit windows change on
//    the whole.
// Screenshots go to DIR. Exit 0 pass, 1 fail, 77 skip (no Chromium or no viewer/dist).

import { log, parseArgs, startHarness } from './harness.mjs';

const MIN_VARIANCE = 150; // luminance variance (0-255 scale) of a frame that shows a city
const MIN_GAIN = 8; // mean luminance gain at lamps / lit windows with lights on
const INTERIOR_R = 2; // half size of the patch sampled at each lit window (5 x 5 pixels)
const FLAT_VARIANCE = 25; // a patch this even with the interiors off lies inside the glass
const MIN_INTERIOR_SPREAD = 10; // standard deviation of those patches' luminance with interiors
const MIN_INTERIOR_CHANGE = 6; // mean |luminance| change at lit windows, interiors on vs off
const HOME = { x: 1125, y: 1039 };

const failures = [];
function check(cond, what) {
  log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures.push(what);
}

const mean = (a) => (a.length ? a.reduce((s, v) => s + v, 0) / a.length : 0);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  // Software WebGL shades every pixel on the CPU: 960 x 540 keeps the checks and takes a
  // quarter less time than 1280 x 720 (`--size 1280x720` for the README's pictures).
  if (!process.argv.includes('--size')) [opts.width, opts.height] = [960, 540];
  const h = await startHarness(opts);
  try {
    const page = await h.openViewer('?test=1');
    const stats = () => page.evaluate(() => window.cityforge.stats());

    // 1-3. Loaded, not blank, agents arriving.
    await page.waitForFunction(() => window.cityforge.stats().frames >= 3, null, { timeout: 180_000, polling: 250 });
    await page.waitForTimeout(1500);
    const s1 = await stats();
    log(`stats: ${JSON.stringify(s1)}`);
    await h.screenshot(page, 'viewer-overview-day');
    const px = await page.evaluate(() => window.cityforge.debug.sample([]));
    log(`frame luminance mean ${px.mean.toFixed(1)} variance ${px.variance.toFixed(1)}`);
    check(px.variance > MIN_VARIANCE, `canvas is not blank (variance ${px.variance.toFixed(0)} > ${MIN_VARIANCE})`);
    check(px.mean > 20, `canvas is not black (mean luminance ${px.mean.toFixed(0)})`);
    check(s1.chunks_visible > 0 && s1.chunks_total > 100, `chunks loaded (${s1.chunks_visible} of ${s1.chunks_total} visible)`);
    check(s1.textured_materials > 5, `materials textured from city.glb (${s1.textured_materials})`);
    check(s1.tinted_materials > 0, `facade materials tinted per building (${s1.tinted_materials})`);
    check(s1.vehicles > 0, `vehicles counter above 0 (${s1.vehicles})`);
    check(s1.pedestrians > 0, `pedestrians counter above 0 (${s1.pedestrians})`);
    const dom = await page.evaluate(() => ({
      v: Number(document.getElementById('count-vehicles').textContent),
      p: Number(document.getElementById('count-pedestrians').textContent),
    }));
    check(dom.v > 0 && dom.p > 0, `#count-vehicles ${dom.v} and #count-pedestrians ${dom.p} above 0`);
    await page.waitForFunction((f) => window.cityforge.stats().frames >= f + 5, s1.frames, { timeout: 120_000, polling: 250 });
    const s2 = await stats();
    check(s2.frames > s1.frames, `frames keep arriving (${s1.frames} -> ${s2.frames})`);
    check(s2.vehicles > 0 && s2.pedestrians > 0, `agents still counted (${s2.vehicles} vehicles, ${s2.pedestrians} pedestrians)`);
    check(s2.ticks_per_s > 0, `ticks per second reported (${s2.ticks_per_s.toFixed(1)})`);

    // 4. A street near downtown, at lamp height, looking along a road; the clock stopped.
    const pose = await page.evaluate((home) => {
      let best = null;
      for (const l of window.cityforge.lanes.lanes) {
        if (!l.tags.includes('vehicle') || l.intersection !== -1 || l.points.length < 2 || l.length_m < 60) continue;
        const [x, y] = l.points[0];
        const d = Math.hypot(x - home.x, y - home.y);
        if (!best || d < best.d) best = { d, l };
      }
      const p = best.l.points;
      const yaw = (Math.atan2(p[1][1] - p[0][1], p[1][0] - p[0][0]) * 180) / Math.PI;
      return { x: p[0][0], y: p[0][1], z: p[0][2] + 7, yaw_deg: yaw, pitch_deg: -7, distance: 80 };
    }, HOME);
    log(`street camera ${JSON.stringify(pose)}`);
    await page.evaluate((p) => {
      window.cityforge.debug.sky.running = false;
      window.cityforge.setCamera(p);
      window.__dusk = 0;
      window.__dawn = 0;
      window.cityforge.events.addEventListener('dusk', () => window.__dusk++);
      window.cityforge.events.addEventListener('dawn', () => window.__dawn++);
    }, pose);
    await page.evaluate(() => window.cityforge.render());
    await h.screenshot(page, 'viewer-street-day');
    const day = await stats();
    check(!day.street_lights_on, 'street lights off by day');

    // 5. Agents near the street camera move like people and cars: rigged bodies whose walk
    // cycle's phase changes between frames, wheels that roll.
    log(`agents drawn: ${JSON.stringify(day.agents_drawn)}`);
    check(day.agents_drawn.animated_pedestrians > 0, `animated pedestrians near the camera (${day.agents_drawn.animated_pedestrians})`);
    check(day.agents_drawn.wheeled_vehicles > 0, `vehicles with wheels near the camera (${day.agents_drawn.wheeled_vehicles})`);
    const motion0 = await page.evaluate(() => window.cityforge.debug.agentMotion());
    await page.waitForFunction((f) => window.cityforge.stats().frames >= f + 2, day.frames, { timeout: 120_000, polling: 250 });
    await page.evaluate(() => window.cityforge.render());
    const motion1 = await page.evaluate(() => window.cityforge.debug.agentMotion());
    const changed = (list0, list1, key) =>
      list1.filter((p) => {
        const q = list0.find((o) => o.id === p.id);
        return q && Math.abs(p[key] - q[key]) > 1e-4;
      }).length;
    const stepping = changed(motion0.pedestrians, motion1.pedestrians, 'phase');
    const rolling = changed(motion0.vehicles, motion1.vehicles, 'roll');
    check(stepping > 0, `pedestrians' walk phase changes between frames (${stepping} of ${motion1.pedestrians.length})`);
    check(rolling > 0, `vehicles' wheels roll between frames (${rolling} of ${motion1.vehicles.length})`);

    await page.locator('#time-slider').fill('22');
    await page.evaluate(() => window.cityforge.render());
    const night = await stats();
    const dusk = await page.evaluate(() => window.__dusk);
    check(Math.abs(night.time_of_day_h - 22) < 0.1, `time slider set the clock to 22 h (${night.time_of_day_h.toFixed(2)})`);
    check(dusk === 1, `one 'dusk' event fired (${dusk})`);
    check(night.street_lights_on === true, 'street lights on at night');
    check(night.windows_lit > 0, `windows lit at night (share ${night.windows_lit.toFixed(2)})`);

    const lamps = await page.evaluate(() => window.cityforge.debug.lampsOnScreen(60));
    const wins = await page.evaluate(() => window.cityforge.debug.litWindowsOnScreen(80));
    log(`${lamps.length} lamps and ${wins.length} lit windows on screen`);
    check(lamps.length > 0, 'lamps in view of the street camera');
    check(wins.length > 0, 'lit windows in view of the street camera');
    const on = await page.evaluate((pts) => window.cityforge.debug.sample(pts), [...lamps, ...wins]);
    await h.screenshot(page, 'viewer-street-night');

    // 6. Interiors behind the lit windows, against the same frame with flat lit windows.
    check(night.interior_rooms > 0, `interior room types (${night.interior_rooms})`);
    const patches = (pts) => page.evaluate(({ pts, r }) => window.cityforge.debug.sample(pts, r), { pts, r: INTERIOR_R });
    const panes = await page.evaluate(() => window.cityforge.debug.litWindowsOnScreen(80, [0.25, 0.25]));
    const rooms = await patches(panes);
    await page.evaluate(() => window.cityforge.debug.setInteriors(false));
    const flat = await patches(panes);
    await page.evaluate(() => window.cityforge.debug.setInteriors(true));
    const inGlass = panes.map((_, i) => i).filter((i) => flat.varAt[i] < FLAT_VARIANCE && flat.at[i] > 60);
    const sd = (a) => Math.sqrt(Math.max(0, mean(a.map((v) => v * v)) - mean(a) ** 2));
    const spreadRooms = sd(inGlass.map((i) => rooms.at[i]));
    const spreadFlat = sd(inGlass.map((i) => flat.at[i]));
    const varRooms = mean(inGlass.map((i) => rooms.varAt[i]));
    const change = mean(rooms.at.map((v, i) => Math.abs(v - flat.at[i])));
    log(`lit-window patches (luminance, variance) with interiors ${JSON.stringify(rooms.at.map((v, i) => [v, rooms.varAt[i]].map(Math.round)))}`);
    log(`  and flat ${JSON.stringify(flat.at.map((v, i) => [v, flat.varAt[i]].map(Math.round)))}`);
    log(`lit-window patches inside the glass: ${inGlass.length} of ${panes.length}; luminance spread ` +
      `${spreadRooms.toFixed(1)} with interiors / ${spreadFlat.toFixed(1)} flat; variance inside a patch ` +
      `${varRooms.toFixed(1)} with interiors; mean change at all ${change.toFixed(1)}`);
    check(inGlass.length >= 3, `lit windows with a patch inside the glass (${inGlass.length} >= 3)`);
    check(spreadRooms > MIN_INTERIOR_SPREAD && spreadRooms > 2 * spreadFlat,
      `lit windows are not one flat colour (spread ${spreadRooms.toFixed(1)} > ${MIN_INTERIOR_SPREAD} and > 2 x ${spreadFlat.toFixed(1)} flat)`);
    check(change > MIN_INTERIOR_CHANGE, `interiors change the lit windows (${change.toFixed(1)} > ${MIN_INTERIOR_CHANGE})`);

    await page.locator('#show-lights').uncheck();
    await page.evaluate(() => window.cityforge.render());
    const dark = await stats();
    check(dark.street_lights_on === false && dark.windows_lit === 0, 'lights off with #show-lights unchecked');
    const off = await page.evaluate((pts) => window.cityforge.debug.sample(pts), [...lamps, ...wins]);
    await h.screenshot(page, 'viewer-street-night-lights-off');
    const lampOn = mean(on.at.slice(0, lamps.length));
    const lampOff = mean(off.at.slice(0, lamps.length));
    const winOn = mean(on.at.slice(lamps.length));
    const winOff = mean(off.at.slice(lamps.length));
    log(`lamp luminance ${lampOn.toFixed(1)} on / ${lampOff.toFixed(1)} off; windows ${winOn.toFixed(1)} / ${winOff.toFixed(1)}`);
    check(lampOn > lampOff + MIN_GAIN, `lamp pixels brighter with lights on (+${(lampOn - lampOff).toFixed(1)})`);
    check(winOn > winOff + MIN_GAIN, `lit window pixels brighter with lights on (+${(winOn - winOff).toFixed(1)})`);

    // Night overview and the map for the record.
    await page.locator('#show-lights').check();
    await page.evaluate(() => {
      window.cityforge.setCamera({ x: 745, y: 659, z: 280, yaw_deg: 45, pitch_deg: -30, distance: 560 });
      window.cityforge.render();
    });
    await h.screenshot(page, 'viewer-overview-night');
    await page.locator('#time-slider').fill('12');
    const dawn = await page.evaluate(() => window.__dawn);
    check(dawn === 1, `one 'dawn' event fired going back to noon (${dawn})`);
    check(!(await stats()).street_lights_on, 'street lights off again by day');
    await page.locator('#show-lod-colours').check();
    await page.selectOption('#camera-mode', 'map');
    await page.evaluate(() => window.cityforge.render());
    await h.screenshot(page, 'viewer-map-lod');
    const fin = await stats();
    log(`final stats: ${JSON.stringify(fin)}`);

    check(h.errors.length === 0, `no console errors${h.errors.length ? ': ' + h.errors.slice(0, 5).join(' | ') : ''}`);
    await page.close();
  } finally {
    await h.close();
  }
  if (failures.length) {
    log(`${failures.length} check(s) failed`);
    process.exit(1);
  }
  log('all checks passed');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
