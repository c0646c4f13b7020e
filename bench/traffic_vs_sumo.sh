#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Side by side with SUMO: the same city and the same count of vehicles kept in the network,
# both run headless with the same fixed step for the same simulated time; prints vehicle
# updates per second for SUMO, for `cityforge simulate` with each thread count, and the ratios.
# Never asserts.
#
# SUMO side: randomTrips.py (fixed seed, trips >= 300 m apart, random depart / arrival
# positions) routed by duarouter beforehand, all departing at t = 0; `--max-num-vehicles N`
# keeps at most N running and refills from the backlog as vehicles arrive. SUMO's junction
# model, signals and teleport rule (--time-to-teleport 300) stay at their defaults. Its UPS
# is the one SUMO prints (vehicle steps / wall time of the simulation loop); the summary
# output gives the running count held, mean speed and a steady-state UPS without the
# insertion burst. The SUMO network has no freeway lanes (the export leaves them out).
# cityforge side: `cityforge simulate CITY --vehicles N --no-record` per thread count, read
# from sim_stats.json (vehicle_updates_per_s), with --trip-share 1 by default so that every
# vehicle drives a routed trip as in SUMO. Skipped with a message when unavailable.
# The SUMO half of a default run takes about 5 minutes on 2 cores (3.5 of them at 20k).
#
#   bench/traffic_vs_sumo.sh BUILD_DIR [COUNTS...]        (default counts: 1000 5000 20000)
#
# Environment (defaults in brackets):
#   SECONDS_SIM [60]   simulated seconds per run      DT [0.1]   step length in seconds
#   SEED [1]           randomTrips, SUMO and cityforge seed
#   THREADS ["1 2"]    cityforge thread counts        TRIP_SHARE [1]  cityforge --trip-share
#   CITY_CONFIG        a city config (or "default") for every count; unset: the default city
#                      for counts up to MAX_FILL [0.25] of its bumper-to-bumper capacity (about
#                      6000 vehicles), data/examples/metropolis-4x5km.json above
#   WORK_DIR           work folder (cities and routes are reused when present); unset: a new
#                      ${TMPDIR:-/tmp}/traffic_vs_sumo.XXXXXX, kept for its results
#   SKIP_SUMO=1 / SKIP_OURS=1  run one side only
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
helper="$here/traffic_demand.py"
build=$(cd "$1" 2>/dev/null && pwd) || { echo "traffic_vs_sumo: no build folder $1" >&2; exit 2; }
shift
exe="$build/cityforge"
[ -x "$exe" ] || { echo "traffic_vs_sumo: $exe not found (build the cityforge target)" >&2; exit 2; }
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 5000 20000)
for n in "${counts[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "traffic_vs_sumo: bad vehicle count '$n'" >&2; exit 2; }
done
secs=${SECONDS_SIM:-60}
dt=${DT:-0.1}
seed=${SEED:-1}
threads=${THREADS:-1 2}
trip_share=${TRIP_SHARE:-1}
max_fill=${MAX_FILL:-0.25}
big_city="$repo/data/examples/metropolis-4x5km.json"
command -v python3 >/dev/null || { echo "traffic_vs_sumo: python3 is required" >&2; exit 2; }

work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/traffic_vs_sumo.XXXXXX")}
mkdir -p "$work/results"
work=$(cd "$work" && pwd)
rm -f "$work"/results/*.json

run_sumo=1
if [ "${SKIP_SUMO:-0}" = 1 ]; then
  run_sumo=0
elif ! command -v sumo >/dev/null || ! command -v duarouter >/dev/null; then
  echo "SUMO not found (Debian: apt-get install sumo sumo-tools); skipping the SUMO half"
  run_sumo=0
fi
# Debian's SUMO does not set SUMO_HOME; without it sumo cannot validate the route files.
export SUMO_HOME=${SUMO_HOME:-/usr/share/sumo}
random_trips="$SUMO_HOME/tools/randomTrips.py"
if [ $run_sumo = 1 ] && [ ! -f "$random_trips" ]; then
  echo "SUMO tools not found ($random_trips; Debian: apt-get install sumo-tools);" \
    "skipping the SUMO half"
  run_sumo=0
fi
run_ours=1
if [ "${SKIP_OURS:-0}" = 1 ]; then
  run_ours=0
elif ! help=$("$exe" simulate --help 2>&1) || [[ $help != *--vehicles* ]]; then
  echo "cityforge simulate not available"
  run_ours=0
fi

# city NAME CONFIG: generates (once) the city into $work/NAME, with the SUMO network.
city() {
  local name=$1 config=$2 dir="$work/$1"
  if [ ! -f "$dir/lanes.json" ] || [ ! -f "$dir/stats.json" ]; then
    echo "generating $name into $dir" >&2
    if [ "$config" = default ]; then
      "$exe" generate -o "$dir" -q >&2
    else
      "$exe" generate "$config" -o "$dir" -q >&2
    fi
  fi
  if [ $run_sumo = 1 ] && [ ! -f "$dir/sumo/city.net.xml" ]; then
    "$repo/scripts/sumo-convert.sh" "$dir" >&2
  fi
  echo "$dir"
}

# pick N: prints "NAME CONFIG" of the city for N vehicles.
pick() {
  local n=$1
  if [ -n "${CITY_CONFIG:-}" ]; then
    if [ "$CITY_CONFIG" = default ]; then
      echo "default default"
    else
      local cfg
      cfg=$(cd "$(dirname "$CITY_CONFIG")" && pwd)/$(basename "$CITY_CONFIG")
      echo "$(basename "$cfg" .json) $cfg"
    fi
    return
  fi
  local dir cap
  dir=$(city default default)
  cap=$(python3 "$helper" capacity "$dir/stats.json")
  if python3 -c "import sys; sys.exit(0 if $n <= $max_fill * $cap else 1)"; then
    echo "default default"
  else
    echo "$(basename "$big_city" .json) $big_city"
  fi
}

for n in "${counts[@]}"; do
  sel=$(pick "$n")
  read -r name config <<<"$sel"
  dir=$(city "$name" "$config")
  cap=$(python3 "$helper" capacity "$dir/stats.json")
  printf '{"name": "%s", "dir": "%s", "capacity_7_5m": %s}\n' "$name" "$dir" "$cap" \
    >"$work/results/city_$n.json"
  echo "== $n vehicles on $name (about $cap vehicles bumper to bumper), ${secs} s at dt ${dt} s"

  if [ $run_sumo = 1 ]; then
    trips=$(python3 "$helper" trips "$n" "$secs")
    routes="$work/$name/sumo/routes_${n}_s${seed}_t${trips}.rou.xml"
    if [ ! -f "$routes" ]; then
      # All trips depart in [0, 1) s; --max-num-vehicles holds back what does not fit, so
      # SUMO inserts as fast as it can and refills the network from the backlog as vehicles
      # arrive. Random depart / arrival positions let it insert many vehicles per edge at once.
      period=$(python3 -c "print(1.0 / $trips)")
      echo "  sumo: $trips random trips + duarouter" >&2
      python3 "$random_trips" -n "$dir/sumo/city.net.xml" -o "$routes.trips.xml" \
        -r "$routes.tmp" --seed "$seed" -b 0 -e 1 -p "$period" --min-distance 300 \
        --trip-attributes 'departLane="best" departSpeed="max" departPos="random" arrivalPos="random"' \
        >"$routes.log" 2>&1 || { cat "$routes.log" >&2; exit 1; }
      mv "$routes.tmp" "$routes"
    fi
    log="$work/results/sumo_$n.log"
    summary="$work/results/sumo_${n}_summary.xml"
    echo "  sumo: running (SUMO prints nothing until it ends)" >&2
    t0=$(date +%s.%N)
    sumo -n "$dir/sumo/city.net.xml" -r "$routes" --step-length "$dt" --begin 0 --end "$secs" \
      --max-num-vehicles "$n" --seed "$seed" --xml-validation never --no-step-log \
      --no-warnings --duration-log.statistics --summary-output "$summary" >"$log" 2>&1 ||
      { tail -20 "$log" >&2; echo "traffic_vs_sumo: sumo failed (log: $log)" >&2; exit 1; }
    t1=$(date +%s.%N)
    wall=$(python3 -c "print($t1 - $t0)")
    python3 "$helper" sumo "$n" "$log" "$summary" "$wall" "$work/results/sumo_$n.json"
  fi

  if [ $run_ours = 1 ]; then
    for t in $threads; do
      echo "  cityforge: $t thread(s)" >&2
      rm -f "$dir/sim_stats.json"
      "$exe" simulate "$dir" --seconds "$secs" --vehicles "$n" --threads "$t" --seed "$seed" \
        --trip-share "$trip_share" --dt "$dt" --no-record -q >"$work/results/ours_t${t}_$n.log" 2>&1 ||
        { tail -20 "$work/results/ours_t${t}_$n.log" >&2; echo "traffic_vs_sumo: cityforge simulate failed" >&2; exit 1; }
      cp "$dir/sim_stats.json" "$work/results/ours_t${t}_$n.json"
    done
  fi
done

echo
out="$work/traffic_vs_sumo.json"
python3 "$helper" report "$work/results" "$out" "${counts[@]}"
echo
echo "results: $out (work folder $work)"
