#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The live stream's size and speed on a city (issue 8): 5,000 moving vehicles + 15,000
# pedestrians + the parked cars, one frame per 0.1 s tick for 60 simulated seconds, key frame
# every 10. Prints bytes per agent per frame (mean, key, delta), encode and decode time per frame
# (C++, and the browser's decode.js under node when node is installed), and the run's .cfrec
# for comparison. Target: under 10 bytes per agent per frame. Never asserts.
#
#   bench/stream_bytes.sh BUILD_DIR [CITY_DIR]
#
# BUILD_DIR holds the cityforge and stream_bytes targets (ninja -C BUILD_DIR cityforge_cli
# stream_bytes). CITY_DIR: a `cityforge generate` folder; unset: the default city, generated
# once into WORK_DIR. Environment (defaults in brackets): VEHICLES [5000]; PEDESTRIANS [15000];
# SECONDS_SIM [60]; SEED [1]; KEY_EVERY [10]; WORK_DIR (unset: a new ${TMPDIR:-/tmp} folder).
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "stream_bytes: no build folder $1" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
bench="$build/bench/stream_bytes"
[ -x "$bench" ] || { echo "stream_bytes: $bench not found (build the stream_bytes target)" >&2; exit 2; }
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/stream_bytes.XXXXXX")}
mkdir -p "$work"
city=${2:-$work/city}
if [ ! -f "$city/lanes.json" ]; then
  exe="$build/cityforge"
  [ -x "$exe" ] || { echo "stream_bytes: $exe not found to generate a city" >&2; exit 2; }
  echo "generating the default city into $city ..." >&2
  "$exe" generate -o "$city" -q
fi
dump="$work/stream_frames.bin"
"$bench" "$city" --vehicles "${VEHICLES:-5000}" --pedestrians "${PEDESTRIANS:-15000}" \
  --seconds "${SECONDS_SIM:-60}" --seed "${SEED:-1}" --key-every "${KEY_EVERY:-10}" --dump "$dump"
if command -v node > /dev/null; then
  node "$here/bench/stream_decode.mjs" "$dump"
else
  echo "node not found: decode.js not timed"
fi
rm -f "$dump"
