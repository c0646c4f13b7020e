// SPDX-License-Identifier: Apache-2.0
// The island page end to end (issue 29): `cityforge island`, `cityforge serve` on its folder,
// headless Chromium on /island.html. The island and its navigation graph load; a scripted
// click raises a walkable cell and shift+click lowers one: each edit is solved again by the
// server, the page reloads the island, the navigation graph stays one component, walkers walk
// on it (before and after each edit) lit by the baked light volume; the contrast map's outlines
// are drawn; the solve can be stepped
// through (--trace); a colour
// picked from the palette paints a clicked cell;
// and the console stays free of errors. Screenshots before and after land in --out.
//
//   node tests/e2e/island.test.mjs --cityforge build/release/cityforge --out build/e2e-island
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { capture, launchChromium, log, parseArgs, SKIP, skipUnlessRunnable, startServe, VIEWER_DIST } from './harness.mjs';

// Every walker stands on an edge of the page's current graph (or on a node), and how far they
// walked since `before` (metres, summed).
async function checkWalkers(page, before = null) {
  const { nav, walkers } = await page.evaluate(() => ({ nav: window.__island.nav, walkers: window.__island.walkerPositions() }));
  if (walkers.length === 0) throw new Error('no walkers on the island');
  const joined = new Set(nav.edges.map((e) => `${Math.min(e.a, e.b)},${Math.max(e.a, e.b)}`));
  let walked = 0;
  walkers.forEach((w, i) => {
    const [a, b] = w.edge;
    if (a !== b && !joined.has(`${Math.min(a, b)},${Math.max(a, b)}`)) throw new Error(`walker ${i} on ${a}-${b}, not an edge`);
    const p = nav.nodes[a].position;
    const q = nav.nodes[b].position;
    const d = q.map((x, k) => x - p[k]);
    const len2 = d.reduce((s, x) => s + x * x, 0);
    const u = len2 > 0 ? Math.max(0, Math.min(1, w.position.reduce((s, x, k) => s + (x - p[k]) * d[k], 0) / len2)) : 0;
    const off = Math.hypot(...w.position.map((x, k) => x - p[k] - u * d[k]));
    if (off > 1e-6) throw new Error(`walker ${i} is ${off} m off its edge`);
    if (before) walked += Math.hypot(...w.position.map((x, k) => x - before[i].position[k]));
  });
  return { walkers, walked };
}

function connected(nav) {
  const adj = nav.nodes.map(() => []);
  for (const e of nav.edges) {
    adj[e.a].push(e.b);
    adj[e.b].push(e.a);
  }
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length) for (const w of adj[stack.pop()]) if (!seen.has(w)) seen.add(w), stack.push(w);
  return seen.size === nav.nodes.length;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  skipUnlessRunnable();
  if (!fs.existsSync(path.join(VIEWER_DIST, 'island.html'))) {
    console.log(`SKIP: ${VIEWER_DIST}/island.html not found (a viewer built before the island page: make viewer)`);
    process.exit(SKIP);
  }
  fs.mkdirSync(opts.out, { recursive: true });
  const dir = path.join(opts.out, 'island');
  fs.rmSync(dir, { recursive: true, force: true });
  const made = spawnSync(opts.cityforge, ['island', '--seed', '3', '--trace', '-q', '-o', dir], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error(`cityforge island exited ${made.status}`);
  const serve = await startServe({ ...opts, city: dir }, { live: false });
  const { context, userDataDir } = await launchChromium(opts);
  const errors = [];
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(300_000);
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${serve.url}island.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__island && (window.__island.ready || window.__island.lastError), null, { polling: 250 });
    const loadError = await page.evaluate(() => window.__island.lastError);
    if (loadError) throw new Error(`island page failed to load: ${loadError}`);
    const nav0 = await page.evaluate(() => window.__island.nav);
    if (!connected(nav0)) throw new Error('the navigation graph of the generated island is not one component');
    const first = await checkWalkers(page);
    await page.waitForTimeout(1500);
    const later = await checkWalkers(page, first.walkers);
    if (!(later.walked > 1.0)) throw new Error(`the ${first.walkers.length} walkers walked ${later.walked} m in 1.5 s`);
    log(`${first.walkers.length} walkers on the graph, ${later.walked.toFixed(1)} m walked in 1.5 s`);
    // The walkers take their light from the baked light volume (island_light.png): it loaded,
    // and every walker is lit within 0..1.
    const lit = await page.evaluate(() => ({ size: window.__island.light?.size, light: window.__island.walkerLight.slice() }));
    if (!lit.size) throw new Error('the light volume did not load');
    if (lit.light.length !== first.walkers.length || lit.light.some((l) => !(l > 0 && l <= 1))) {
      throw new Error(`walker light ${JSON.stringify(lit.light)}`);
    }
    log(`light volume ${lit.size.join(' x ')}: walkers lit ${Math.min(...lit.light).toFixed(2)}-${Math.max(...lit.light).toFixed(2)}`);
    // Outlines: the land's contrast map (_CONTRAST) is drawn, and its edge detection marks some
    // of the picture as lines, not none and not most of it.
    if (!(await page.evaluate(() => window.__island.hasContrastMap()))) throw new Error('island.glb has no contrast map');
    const share = await page.evaluate(() => window.__island.outlineShare());
    if (!(share > 0.005 && share < 0.3)) throw new Error(`outlines cover ${(100 * share).toFixed(2)} % of the picture`);
    log(`outlines: ${(100 * share).toFixed(1)} % of the pixels are lines`);
    // Stepping through the solve (--trace): half way there are fewer decided cells than at the
    // end of the pass, and some; the island comes back when the view is left.
    await page.waitForFunction(() => window.__island.trace !== null, null, { polling: 250 });
    await page.click('#show-solve');
    const total = await page.evaluate(() => Number(document.getElementById('solve-step').max));
    const firstSteps = await page.evaluate(() => window.__island.trace.solves[0].steps.length);
    const half = await page.evaluate((k) => window.__island.setTraceStep(k), Math.floor(firstSteps / 4));
    const end = await page.evaluate((k) => window.__island.setTraceStep(k), firstSteps - 1);
    const last = await page.evaluate((k) => window.__island.setTraceStep(k), total);
    const shown = await page.evaluate(() => window.__island.traceBoxes());
    if (!(half > 0 && half < end && last > 0 && shown === last)) {
      throw new Error(`solve stepping: ${half} cells a quarter through the first pass, ${end} at its end, ${last} at the last step, ${shown} drawn`);
    }
    await page.evaluate((k) => window.__island.setTraceStep(k), Math.floor(firstSteps / 2));
    await page.waitForTimeout(500);
    await capture(page, path.join(opts.out, 'island-solve.png'));
    await page.click('#show-solve');
    if (await page.evaluate(() => window.__island.traceBoxes()) !== 0) throw new Error('the solve view stayed on');
    log(`solve stepping: ${total + 1} steps, ${half} cells decided a quarter through, ${end} at the end`);
    fs.copyFileSync(path.join(dir, 'island.glb'), path.join(opts.out, 'island-before.glb'));
    await capture(page, path.join(opts.out, 'island-before.png'));
    // Walkable floors on layer 1, farthest from the start first: raise one by a click.
    const candidates = nav0.nodes.filter((n) => n.layer === 1 && !n.stairs).map((n) => n.cell).reverse();
    let edits = 0;
    let refused = 0;
    for (const [kind, shift] of [['raise', false], ['lower', true]]) {
      let done = false;
      for (const cell of candidates.slice(0, 12)) {
        const [x, y] = await page.evaluate((c) => window.__island.screenOf(c), cell);
        const before = await page.evaluate(() => ({ edits: window.__island.edits, replies: window.__island.replies }));
        if (shift) await page.keyboard.down('Shift');
        await page.mouse.click(x, y);
        if (shift) await page.keyboard.up('Shift');
        await page.waitForFunction((b) => !window.__island.busy &&
          window.__island.replies !== b.replies, before, { polling: 100 });
        const st = await page.evaluate(() => ({ edits: window.__island.edits, report: window.__island.lastReport, error: window.__island.lastError }));
        if (st.edits === before.edits) {
          ++refused;
          log(`${kind} at cell ${cell} refused: ${st.error}`);
          continue;
        }
        log(`${kind} at cell ${st.report.cell} (${st.report.edited.length} cell(s) moved): ${st.report.changed} tiles changed, ${st.report.rings} ring(s), ` +
          `solve ${st.report.solve_ms.toFixed(1)} ms, whole edit ${st.report.total_ms.toFixed(0)} ms`);
        const nav = await page.evaluate(() => window.__island.nav);
        if (!connected(nav)) throw new Error(`after the ${kind}, the navigation graph is not one component`);
        await checkWalkers(page);  // On the new graph.
        const stats = JSON.parse(fs.readFileSync(path.join(dir, 'stats.json'), 'utf8'));
        if (stats.edits.length !== st.edits) throw new Error(`stats.json lists ${stats.edits.length} edits, the page ${st.edits}`);
        edits = st.edits;
        done = true;
        break;
      }
      if (!done) throw new Error(`no ${kind} click on a walkable cell was made`);
      await page.waitForTimeout(1500);
      await capture(page, path.join(opts.out, `island-after-${kind}.png`));
    }
    if (edits !== 2) throw new Error(`expected 2 edits, got ${edits}`);
    // Pick a colour and click a walkable cell: its grass is painted (a house's walls would be).
    await page.click('#palette button[data-colour="0"]');
    const nav2 = await page.evaluate(() => window.__island.nav);
    const fields = nav2.nodes.filter((n) => n.layer >= 1 && !n.stairs).map((n) => n.cell);
    let painted = null;
    for (const cell of fields.slice(0, 12)) {
      const [x, y] = await page.evaluate((c) => window.__island.screenOf(c), cell);
      const before = await page.evaluate(() => ({ edits: window.__island.edits, replies: window.__island.replies }));
      await page.mouse.click(x, y);
      await page.waitForFunction((b) => !window.__island.busy &&
        window.__island.replies !== b.replies, before, { polling: 100 });
      const st = await page.evaluate(() => ({ edits: window.__island.edits, report: window.__island.lastReport }));
      if (st.edits === before.edits) ++refused;
      if (st.edits !== before.edits && st.report.kind === 'paint' && st.report.recoloured > 0) {
        painted = st;
        break;
      }
    }
    if (!painted) throw new Error('no paint click recoloured a cell');
    log(`painted cell ${painted.report.cell} colour ${painted.report.colour}: ${painted.report.recoloured} triangles recoloured in ${painted.report.total_ms.toFixed(0)} ms`);
    const stats = JSON.parse(fs.readFileSync(path.join(dir, 'stats.json'), 'utf8'));
    if (stats.edits[stats.edits.length - 1] !== `${painted.report.cell}:paint:0`) {
      throw new Error(`stats.json's last edit is ${stats.edits[stats.edits.length - 1]}, not the paint`);
    }
    await checkWalkers(page);
    await page.waitForTimeout(1000);
    await capture(page, path.join(opts.out, 'island-after-paint.png'));
    // A refused edit is answered 422, which Chromium logs as a failed resource: exactly one such
    // line per refusal the page showed is expected; anything else is an error.
    const refusal = /Failed to load resource: the server responded with a status of 422/;
    const unexpected = errors.filter((e) => !refusal.test(e));
    const answered422 = errors.length - unexpected.length;
    if (unexpected.length || answered422 !== refused) {
      throw new Error(`console errors (${refused} edits refused, ${answered422} 422 lines):\n${errors.join('\n')}`);
    }
    log('island e2e: ok');
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(userDataDir, { recursive: true, force: true });
    serve.proc.kill('SIGTERM');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
