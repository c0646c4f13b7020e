// SPDX-License-Identifier: Apache-2.0
// End-to-end harness for the browser viewer: a default city (generated once, reused), a
// `cityforge serve` on 127.0.0.1 with a free port (live simulation when the binary has --live,
// else a recording made by `cityforge simulate`), Debian's Chromium driven by playwright-core
// with SwiftShader (software WebGL), console errors collected, screenshots saved.
//
//   import { parseArgs, startHarness, SKIP } from './harness.mjs';
//   const h = await startHarness(parseArgs(process.argv.slice(2)));
//   const page = await h.openViewer('?test=1');
//   ... await h.screenshot(page, 'name'); await h.close();
//
// Options: --cityforge BIN (required), --out DIR (screenshots; required), --city DIR (default:
// OUT/../e2e-city), --mode live|recording|static (default: live when serve supports it; static:
// no agents), --vehicles N, --pedestrians N, --size WxH.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const SKIP = 77; // ctest SKIP_RETURN_CODE
export const CHROMIUM = '/usr/bin/chromium';
export const SOURCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VIEWER_DIST = path.join(SOURCE_DIR, 'viewer', 'dist');
const SERVE_START_MS = 120_000;

export function log(...a) {
  console.log(`[e2e ${new Date().toISOString().slice(11, 19)}]`, ...a);
}

export function parseArgs(argv) {
  const o = { cityforge: null, out: null, city: null, mode: null, vehicles: 2000, pedestrians: 2000, width: 1280, height: 720 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--cityforge') o.cityforge = path.resolve(next());
    else if (a === '--out') o.out = path.resolve(next());
    else if (a === '--city') o.city = path.resolve(next());
    else if (a === '--mode') o.mode = next();
    else if (a === '--vehicles') o.vehicles = Number(next());
    else if (a === '--pedestrians') o.pedestrians = Number(next());
    else if (a === '--size') [o.width, o.height] = next().split('x').map(Number);
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.cityforge) throw new Error('--cityforge BIN is required');
  if (!o.out) throw new Error('--out DIR is required');
  if (!o.city) o.city = path.join(path.dirname(o.out), 'e2e-city');
  return o;
}

/// Exits with SKIP when the browser or the built viewer is missing (nothing else skips).
export function skipUnlessRunnable() {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} not found (apt-get install chromium)`);
    process.exit(SKIP);
  }
  if (!fs.existsSync(path.join(VIEWER_DIST, 'index.html'))) {
    console.log(`SKIP: ${VIEWER_DIST}/index.html not found (make viewer)`);
    process.exit(SKIP);
  }
}

function run(bin, args) {
  log(`$ ${path.basename(bin)} ${args.join(' ')}`);
  const r = spawnSync(bin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args[0]} failed with status ${r.status}`);
}

export function serveSupportsLive(cityforge) {
  const r = spawnSync(cityforge, ['serve', '--help'], { encoding: 'utf8' });
  return /--live\b/.test(r.stdout || '');
}

/// The default city in `dir` (generated when neither city.glb nor tiles/tileset.json is there)
/// and, for recording mode, traffic.cfrec (simulated when missing).
export function ensureCity(opts, { recording }) {
  const hasCity = ['city.glb', 'tiles/tileset.json'].some((f) => fs.existsSync(path.join(opts.city, f)));
  if (!hasCity) {
    fs.mkdirSync(path.dirname(opts.city), { recursive: true });
    run(opts.cityforge, ['generate', '-o', opts.city, '-q']);
  }
  if (recording && !fs.existsSync(path.join(opts.city, 'traffic.cfrec'))) {
    run(opts.cityforge, ['simulate', opts.city, '--seconds', '30', '--vehicles', String(opts.vehicles),
      '--pedestrians', String(opts.pedestrians), '--viewer', '1125,1039,2,45', '-q']);
  }
}

/// Starts `cityforge serve`; resolves with { url, proc } once the first stdout line (the URL)
/// is printed.
export function startServe(opts, { live }) {
  const args = ['serve', opts.city, '--port', '0', '--root', VIEWER_DIST];
  if (live) args.push('--live', '--vehicles', String(opts.vehicles), '--pedestrians', String(opts.pedestrians));
  if (opts.serveArgs) args.push(...opts.serveArgs);
  log(`$ cityforge ${args.join(' ')}`);
  const proc = spawn(opts.cityforge, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGTERM');
      reject(new Error('cityforge serve printed no URL'));
    }, SERVE_START_MS);
    const lines = createInterface({ input: proc.stdout });
    let first = true;
    lines.on('line', (line) => {
      if (first) {
        first = false;
        clearTimeout(timer);
        if (!/^http:\/\//.test(line)) reject(new Error(`cityforge serve: expected a URL, got '${line}'`));
        else resolve({ url: line.trim(), proc });
      } else if (process.env.CITYFORGE_E2E_VERBOSE) log(`serve: ${line}`);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      if (first) reject(new Error(`cityforge serve exited with ${code} before printing its URL`));
    });
  });
}

/// Writes the page as a PNG `file` through the DevTools protocol's capture: Playwright's own
/// screenshot first waits for several more frames (its caret and animation handling), which
/// are seconds each under SwiftShader.
export async function capture(page, file) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const shot = await cdp.send('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
  } finally {
    await cdp.detach().catch(() => {});
  }
}

export async function launchChromium(opts) {
  const { chromium } = await import(path.join(SOURCE_DIR, 'viewer', 'node_modules', 'playwright-core', 'index.mjs'));
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cityforge-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: opts.width, height: opts.height },
    deviceScaleFactor: 1,
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
      '--enable-webgl', '--disable-dev-shm-usage'],
  });
  return { context, userDataDir };
}

/// Everything a test needs; close() stops the browser and the server.
export async function startHarness(opts) {
  skipUnlessRunnable();
  fs.mkdirSync(opts.out, { recursive: true });
  const live = opts.mode ? opts.mode === 'live' : serveSupportsLive(opts.cityforge);
  const mode = opts.mode ?? (live ? 'live' : 'recording');
  ensureCity(opts, { recording: mode === 'recording' });
  const serve = await startServe(opts, { live });
  log(`serving at ${serve.url} (${mode})`);
  const { context, userDataDir } = await launchChromium(opts);
  const errors = [];
  const h = {
    opts,
    live,
    url: serve.url,
    errors,
    context,
    /// Opens the viewer; the mode is named in the URL so the page does not probe /live (a
    /// refused WebSocket handshake is logged as a console error), and so is tiles=0|1.
    /// `url`: another server's URL (startServe) instead of this harness's.
    async openViewer(query = '?test=1', { readyTimeoutMs = 600_000, url = serve.url } = {}) {
      if (!/[?&]mode=/.test(query)) query += `${query.includes('?') ? '&' : '?'}mode=${mode}`;
      // Tiles or city.glb, named too (a probe for a missing tileset logs a 404).
      if (!/[?&]tiles=/.test(query)) query += `&tiles=${fs.existsSync(path.join(opts.city, 'tiles', 'tileset.json')) ? 1 : 0}`;
      const page = await context.newPage();
      // Software WebGL on a busy machine draws a frame in seconds; Playwright's actions wait
      // for stable frames, so their timeouts are generous (tests assert no timings).
      page.setDefaultTimeout(300_000);
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
        if (process.env.CITYFORGE_E2E_VERBOSE) log(`page ${msg.type()}: ${msg.text()}`);
      });
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      page.on('requestfailed', (req) => {
        // A live socket closed by the page itself is not an error, nor a tile request that the
        // tiles renderer cancelled because the camera moved on.
        const why = req.failure()?.errorText;
        const cancelledTile = /\/tiles\//.test(req.url()) && why === 'net::ERR_ABORTED';
        if (!/\/live$/.test(req.url()) && !cancelledTile) errors.push(`requestfailed: ${req.url()} ${why}`);
      });
      const t0 = Date.now();
      await page.goto(url + query.replace(/^\//, ''), { waitUntil: 'load' });
      await page.waitForFunction(() => window.cityforge && (window.cityforge.ready || window.cityforge.error), null, {
        timeout: readyTimeoutMs,
        polling: 500,
      });
      const err = await page.evaluate(() => window.cityforge.error);
      if (err) throw new Error(`viewer failed to load: ${err}`);
      log(`viewer ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      return page;
    },
    async screenshot(page, name) {
      const file = path.join(opts.out, `${name}.png`);
      await capture(page, file);
      log(`screenshot ${file}`);
      return file;
    },
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, { recursive: true, force: true });
      serve.proc.kill('SIGTERM');
      await new Promise((r) => (serve.proc.exitCode !== null ? r() : serve.proc.once('exit', r)));
    },
  };
  return h;
}
