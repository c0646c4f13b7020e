#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Side by side with Recast / DetourCrowd (issue 7): the same count of pedestrians walking to
# random goals over the same walkable area (the city's sidewalk and crosswalk lanes), 1/30 s
# steps for the same simulated time; prints agent updates per second for DetourCrowd and for
# our crowd (LOD off: every agent at full fidelity) and the ratio. Never asserts. What is and
# is not comparable between the two sides: the header of bench/crowd_vs_detour.cpp.
# Builds the navmesh of the whole default city once per run (about 20 s on 2 cores); the
# DetourCrowd half at 20k agents takes a few minutes.
#
#   bench/crowd_vs_detour.sh BUILD_DIR [COUNTS...]        (default counts: 1000 5000 20000)
#
# BUILD_DIR needs the targets cityforge and crowd_vs_detour (configure with
# -DCITYFORGE_BUILD_BENCH=ON; crowd_vs_detour exists only when librecast-dev is installed).
# Environment (defaults in brackets):
#   SECONDS_SIM [20]   simulated seconds per run      THREADS [2]  our thread counts, e.g. "1,2"
#   SEED [1]           both sides                     WINDOW       x0,y0,x1,y1: only the lanes inside
#   CITY_DIR           a generated city (lanes.json); unset: the default city, generated once
#                      into WORK_DIR/default
#   WORK_DIR           work folder; unset: a new ${TMPDIR:-/tmp}/crowd_vs_detour.XXXXXX, kept
#   SKIP_OURS=1        DetourCrowd only (--only-detour)
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "crowd_vs_detour: no build folder $1" >&2; exit 2; }
shift
bench="$build/bench/crowd_vs_detour"
if [ ! -x "$bench" ]; then
  echo "crowd_vs_detour: $bench not found (needs librecast-dev, -DCITYFORGE_BUILD_BENCH=ON and" \
    "the crowd_vs_detour target built)" >&2
  exit 2
fi
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 5000 20000)
for n in "${counts[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "crowd_vs_detour: bad agent count '$n'" >&2; exit 2; }
done
agents=$(IFS=,; echo "${counts[*]}")

work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/crowd_vs_detour.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)

city=${CITY_DIR:-$work/default}
if [ ! -f "$city/lanes.json" ]; then
  [ -z "${CITY_DIR:-}" ] || { echo "crowd_vs_detour: no $city/lanes.json" >&2; exit 2; }
  exe="$build/cityforge"
  [ -x "$exe" ] || { echo "crowd_vs_detour: $exe not found (build the cityforge target)" >&2; exit 2; }
  echo "generating the default city into $city" >&2
  "$exe" generate -q --no-sumo -o "$city" >&2
fi

args=("$city/lanes.json" --agents "$agents" --seconds "${SECONDS_SIM:-20}"
  --threads "${THREADS:-2}" --seed "${SEED:-1}" --json "$work/crowd_vs_detour.json")
[ -z "${WINDOW:-}" ] || args+=(--window "$WINDOW")
[ "${SKIP_OURS:-0}" != 1 ] || args+=(--only-detour)
"$bench" "${args[@]}"
echo
echo "results: $work/crowd_vs_detour.json"
