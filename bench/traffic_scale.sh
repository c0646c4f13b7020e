#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Traffic at scale (issue 30): 100,000 moving vehicles on a city that holds them
# (bench/metropolis-6x7.5km.json, the 4x5 km metropolis scaled by 1.5; its spawn lanes hold
# 104,344 at the default fill), run by `cityforge simulate` headless with levels of detail (the
# default viewer) and no crowd. Prints, per build and thread count, ticks per wall second,
# vehicle updates per second, the mean speed and the state hash (the same for every build that
# keeps the simulation byte-identical, and for every thread count). With a second build, the
# two run side by side, alternating, REPEAT times each. Target: >= 60 ticks/s on 2 cores.
# Never asserts.
#
#   bench/traffic_scale.sh BUILD_DIR [OTHER_BUILD_DIR]
#
# Environment (defaults in brackets): VEHICLES [100000]; SECONDS_SIM [60]; THREADS ["2"];
# REPEAT [3]; SEED [1]; CITY_DIR (a generated city; unset: the 6 x 7.5 km city, generated once
# into WORK_DIR, about 40 s); WORK_DIR (unset: a new ${TMPDIR:-/tmp} folder).
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
exes=()
for b in "$@"; do
  dir=$(cd "$b" 2>/dev/null && pwd) || { echo "traffic_scale: no build folder $b" >&2; exit 2; }
  [ -x "$dir/cityforge" ] || { echo "traffic_scale: $dir/cityforge not found" >&2; exit 2; }
  exes+=("$dir/cityforge")
done
here=$(cd "$(dirname "$0")/.." && pwd)
vehicles=${VEHICLES:-100000}
seconds=${SECONDS_SIM:-60}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
seed=${SEED:-1}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/traffic_scale.XXXXXX")}
mkdir -p "$work"
city=${CITY_DIR:-$work/metropolis-6x7.5km}
if [ ! -f "$city/lanes.json" ]; then
  echo "generating the 6 x 7.5 km city into $city ..." >&2
  "${exes[0]}" generate "$here/bench/metropolis-6x7.5km.json" -o "$city" --no-sumo \
    --no-city-glb -q
fi

printf '%-44s %7s %9s %14s %10s %18s\n' build threads "ticks/s" "vehicle upd/s" "speed m/s" \
  "state hash"
for t in $threads; do
  for ((r = 0; r < repeat; ++r)); do
    for exe in "${exes[@]}"; do
      "$exe" simulate "$city" --vehicles "$vehicles" --pedestrians 0 --seconds "$seconds" \
        --threads "$t" --seed "$seed" --no-record -q
      python3 - "$city/sim_stats.json" "$exe" "$t" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"{sys.argv[2][-44:]:<44} {sys.argv[3]:>7} {j['ticks_per_wall_s']:>9.1f} "
      f"{j['vehicle_updates_per_s']:>14.3g} {j['mean_speed_mps']:>10.2f} {j['state_hash']:>18}")
PY
    done
  done
done
echo "($vehicles moving vehicles, $seconds simulated s, seed $seed; city in $city)"
