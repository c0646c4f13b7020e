#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The live simulation over MPI ranks (issue 24, docs/live.md "Over MPI ranks"), side by side in
# one run: `cityforge serve --live` alone (1 rank) and under `mpirun -np N` for each N in RANKS,
# RUNS times each way, alternating. Each server runs as fast as it can (--speed 16: 160 ticks a
# wall second asked for, more than a large city gives) for SECONDS of wall time after its set-up,
# with no client; then GET /live/stats. Prints the medians of the ticks per wall second it kept
# up and the bytes per frame. Never asserts on time; say whether the machine was quiet.
#   bash bench/live_ranks.sh [BUILD_DIR] [VEHICLES] [PEDESTRIANS] [SECONDS] [RUNS] [RANKS...]
# CITY_DIR: a generated city (unset: the 4x5 km example, generated once into WORK_DIR);
# WORK_DIR (unset: a new ${TMPDIR:-/tmp} folder, removed at the end); PORT (default 8931);
# OLD_BUILD: another build's one process run in turn with this build's (row "old").
set -euo pipefail
build=${1:-build/release}
vehicles=${2:-20000}
pedestrians=${3:-5000}
seconds=${4:-20}
runs=${5:-3}
shift $(( $# < 5 ? $# : 5 ))
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(2)
here=$(cd "$(dirname "$0")/.." && pwd)
exe="$build/cityforge"
port=${PORT:-8931}
if [ -n "${WORK_DIR:-}" ]; then work=$WORK_DIR; mkdir -p "$work"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
city=${CITY_DIR:-$work/metropolis}
if [ ! -f "$city/lanes.json" ]; then
  echo "generating the 4x5 km example into $city ..." >&2
  "$exe" generate "$here/data/examples/metropolis-4x5km.json" -o "$city" --no-sumo -q
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CITYFORGE_VIEWER=none
over=()
mpirun --version 2>/dev/null | grep -q "Open MPI" && over=(--oversubscribe)
args=(serve "$city" --port "$port" --live --speed 16 --vehicles "$vehicles"
      --pedestrians "$pedestrians")

# One server: started, SECONDS of ticks after its URL, its /live/stats, stopped.
# Prints "TICKS_PER_S BYTES_PER_FRAME". NP "old": OLD_BUILD's, one process.
one() {
  local np=$1 log="$work/serve.log" pid
  if [ "$np" = old ]; then "$OLD_BUILD/cityforge" "${args[@]}" >"$log" 2>&1 &
  elif [ "$np" = 1 ]; then "$exe" "${args[@]}" >"$log" 2>&1 &
  else mpirun "${over[@]}" -np "$np" "$exe" "${args[@]}" >"$log" 2>&1 & fi
  pid=$!
  for _ in $(seq 600); do grep -q "^http://" "$log" && break; sleep 0.2; done
  if ! grep -q "^http://" "$log"; then echo "no server:" >&2; cat "$log" >&2; kill "$pid"; exit 1; fi
  sleep "$seconds"
  local st
  st=$(curl -s --max-time 10 "http://127.0.0.1:$port/live/stats")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print("%.2f %.0f" % (s["ticks"]/s["wall_s"], s["bytes_per_frame"]))' "$st"
}

declare -A rate bytes
rows=(1 "${ranks[@]}")
[ -n "${OLD_BUILD:-}" ] && rows=(old "${rows[@]}")
for r in $(seq "$runs"); do
  for np in "${rows[@]}"; do
    read -r t b < <(one "$np")
    rate[$np]+="$t "; bytes[$np]=$b
    echo "run $r, $np rank(s): $t ticks/s, $b bytes/frame" >&2
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base=$(echo "${rate[1]}" | median)
printf "%-6s %12s %8s %14s\n" ranks "ticks/s" ratio "bytes/frame"
for np in "${rows[@]}"; do
  m=$(echo "${rate[$np]}" | median)
  printf "%-6s %12.2f %7.2fx %14s\n" "$np" "$m" "$(echo "$m / $base" | bc -l)" "${bytes[$np]}"
done
