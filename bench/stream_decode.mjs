// SPDX-License-Identifier: Apache-2.0
// Times the browser's live stream decoder (viewer/src/live/decode.js) on frames that
// bench/stream_bytes wrote with --dump (a hello JSON line, then u32 length + frame each).
//   node bench/stream_decode.mjs FRAMES_FILE
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { StreamDecoder } = await import(join(here, '..', 'viewer', 'src', 'live', 'decode.js'));

const buf = readFileSync(process.argv[2]);
const nl = buf.indexOf(10);
const hello = JSON.parse(buf.subarray(0, nl).toString('utf8'));
const frames = [];
for (let at = nl + 1; at < buf.length; ) {
  const n = buf.readUInt32LE(at);
  frames.push(buf.buffer.slice(buf.byteOffset + at + 4, buf.byteOffset + at + 4 + n));
  at += 4 + n;
}
// Two passes: the first warms the JIT up, the second is timed.
// CPU time (user + system of the process, garbage collection included) for the mean, so a
// shared machine's load does not count; wall time for the slowest frame.
let agents = 0;
let cpuMs = 0;
let worst = 0;
for (let pass = 0; pass < 2; ++pass) {
  const dec = new StreamDecoder(hello);
  const c0 = process.cpuUsage();
  for (const f of frames) {
    const t0 = performance.now();
    const out = dec.decode(f);
    const dt = performance.now() - t0;
    if (pass === 1) {
      worst = Math.max(worst, dt);
      agents += out.count;
    }
  }
  const c = process.cpuUsage(c0);
  cpuMs = (c.user + c.system) / 1000;
}
console.log(
  `decode.js (node ${process.version}): ${frames.length} frames, ${(agents / frames.length).toFixed(0)} agents/frame, ` +
    `${(cpuMs / frames.length).toFixed(3)} ms CPU/frame mean, ${worst.toFixed(3)} ms wall max`,
);
