// SPDX-License-Identifier: Apache-2.0
// The viewer's weather against the live server's echoes: a change made here is not undone by
// an `env` broadcast of an earlier change that was still on its way.
import assert from 'node:assert/strict';
import { test } from 'node:test';

let Weather = null;
try {
  ({ Weather } = await import('../src/weather.js'));
} catch {
  // three.js not installed (npm ci not run): skipped below.
}

function fakeWeather() {
  // Only the state echoIsStale reads; the scene parts are not needed.
  return Object.assign(Object.create(Weather.prototype), { kind: 'clear', fog: false, pending: null });
}

test('an older server echo is dropped until the echo of the latest change arrives', { skip: !Weather }, () => {
  const w = fakeWeather();
  w.pending = { kind: 'clear', fog: false, until: performance.now() + 5000 };
  assert.equal(w.echoIsStale('storm', false), true, 'the echo of an earlier storm is stale');
  assert.equal(w.echoIsStale('clear', true), true, 'fog differs: still stale');
  assert.equal(w.echoIsStale('clear', false), false, 'the echo of this change applies');
  assert.equal(w.pending, null);
  assert.equal(w.echoIsStale('rain', false), false, 'later changes by others apply');
});

test('without a local change, or after the wait, the server decides', { skip: !Weather }, () => {
  const w = fakeWeather();
  assert.equal(w.echoIsStale('rain', true), false);
  w.pending = { kind: 'clear', fog: false, until: performance.now() - 1 };
  assert.equal(w.echoIsStale('storm', false), false, 'an echo that never came does not block for ever');
  assert.equal(w.pending, null);
});
