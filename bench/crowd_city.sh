#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The source city's population (seeds/000): 35,000 pedestrians + 18,000 moving vehicles +
# about 38,000 parked cars on the 4x5 km metropolis, run by `cityforge simulate` headless:
#   1. with levels of detail, 60 Hz ticks (dt 1/60), a viewer flying a path through downtown;
#   2. with levels of detail off (every agent at full fidelity), 30 Hz ticks (dt 1/30).
# Prints, per thread count, city ticks per wall second (traffic + crowd), the crowd's agent
# updates per second, agents per level at most and memory per off agent, from sim_stats.json.
# Targets (issue 7): run 1 at 60 ticks/s or more, run 2 at 30 or more, on 2 cores. Never asserts.
#
#   bench/crowd_city.sh BUILD_DIR
#
# Environment (defaults in brackets): SECONDS_SIM [20] simulated seconds per run;
# THREADS ["1 2"]; SEED [1]; PEDESTRIANS [35000]; VEHICLES [18000]; PARKED_SHARE [0.75] (of the
# metropolis' 51,069 parking spots: 38,300 cars); CITY_DIR (a generated city; unset: the
# metropolis, generated once into WORK_DIR); WORK_DIR (unset: a new ${TMPDIR:-/tmp} folder).
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "crowd_city: no build folder $1" >&2; exit 2; }
exe="$build/cityforge"
[ -x "$exe" ] || { echo "crowd_city: $exe not found (build the cityforge target)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${SECONDS_SIM:-20}
threads=${THREADS:-"1 2"}
seed=${SEED:-1}
peds=${PEDESTRIANS:-35000}
vehicles=${VEHICLES:-18000}
parked=${PARKED_SHARE:-0.75}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/crowd_city.XXXXXX")}
mkdir -p "$work"
city=${CITY_DIR:-$work/metropolis}
if [ ! -f "$city/lanes.json" ]; then
  echo "generating the metropolis into $city ..." >&2
  "$exe" generate "$here/data/examples/metropolis-4x5km.json" -o "$city" --no-sumo -q
fi
# The viewer: a 20 s flight across downtown at street level, turning as it goes.
viewer="$work/viewer.txt"
printf '%s\n' "# t x y z yaw_deg" "0 1600 2000 1.7 0" "10 2200 2300 1.7 60" \
  "20 2400 2900 1.7 120" >"$viewer"

printf '%-26s %7s %12s %14s %14s %22s %12s\n' run threads "city ticks/s" "crowd upd/s" \
  "traffic upd/s" "max per LOD h/m/l/off" "B/off agent"
for t in $threads; do
  for mode in lod nolod; do
    if [ "$mode" = lod ]; then
      args=(--dt 0.0166667 --viewer "$viewer")
      name="LOD, 60 Hz"
    else
      args=(--dt 0.0333333 --no-lod)
      name="LOD off, 30 Hz"
    fi
    out="$work/$mode-$t"
    mkdir -p "$out"
    "$exe" simulate "$city" --seconds "$seconds" --vehicles "$vehicles" --pedestrians "$peds" \
      --parked-share "$parked" --threads "$t" --seed "$seed" -o "$out/run.cfrec" --record-hz 0.1 \
      -q "${args[@]}"
    python3 - "$out/sim_stats.json" "$name" "$t" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["crowd"]
m = c["per_lod_max"]
print(f"{sys.argv[2]:<26} {sys.argv[3]:>7} {j['city_ticks_per_wall_s']:>12.1f} "
      f"{c['pedestrian_updates_per_s']:>14.3g} {j['vehicle_updates_per_s']:>14.3g} "
      f"{m['high']:>5}/{m['medium']}/{m['low']}/{m['off']:<8} {c['memory_per_off_agent_bytes']:>12.0f}")
PY
  done
done
echo "(vehicles: $vehicles moving; parked: share $parked of the spots; results in $work)"
