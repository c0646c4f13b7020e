// SPDX-License-Identifier: Apache-2.0
// A small deterministic generator for the viewer's own draws (weather changes, island walkers):
// mulberry32, floats in [0, 1) from a 32-bit seed. Same seed, same sequence, in every browser.

/** A generator seeded with `seed` (a 32-bit integer). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
