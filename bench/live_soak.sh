#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The live server under load and abuse for a long time (issue 27): serves a city with --live
# and runs cityforge_live_soak against it (bench/live_soak.cpp): 100 clients, of which 80
# readers that decode every frame and leave and join again, 8 slow readers, 4 clients sending
# garbage, 4 sending oversized frames and 4 slowloris HTTP clients. Prints the soak's JSON
# report (pace of the simulation, resident memory over time, what each client saw) and a
# summary. Never asserts; the 30 s version is the test LiveServe.SoakOfAHundredClientsUnderAbuse.
#
#   bench/live_soak.sh BUILD_DIR [SECONDS] [CITY_DIR]
#
# BUILD_DIR holds the cityforge and cityforge_live_soak targets. SECONDS [600]. CITY_DIR: a
# `cityforge generate` folder; unset: the default city, generated once into WORK_DIR.
# Environment (defaults in brackets): VEHICLES [2000]; PEDESTRIANS [default of serve];
# WORK_DIR (unset: a new ${TMPDIR:-/tmp} folder); REPORT (a file for the JSON report);
# WARMUP_S [30] (pace and memory are measured after it; keep it below SECONDS); RANKS [1]:
# above 1, the server runs under `mpirun -np RANKS` (docs/live.md "Over MPI ranks"; memory is
# rank 0's).
set -euo pipefail
shopt -s inherit_errexit

if [ $# -lt 1 ]; then
  sed -n '3,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "live_soak: no build folder $1" >&2; exit 2; }
seconds=${2:-600}
exe="$build/cityforge"
soak="$build/cityforge_live_soak"
for f in "$exe" "$soak"; do
  [ -x "$f" ] || { echo "live_soak: $f not found (build cityforge_cli and cityforge_live_soak)" >&2; exit 2; }
done
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/live_soak.XXXXXX")}
mkdir -p "$work"
city=${3:-$work/city}
if [ ! -f "$city/lanes.json" ]; then
  echo "generating the default city into $city ..." >&2
  "$exe" generate -o "$city" -q --no-sumo
fi
args=(serve "$city" --port 0 --live --vehicles "${VEHICLES:-2000}")
[ -n "${PEDESTRIANS:-}" ] && args+=(--pedestrians "$PEDESTRIANS")
ranks=${RANKS:-1}
if [ "$ranks" -gt 1 ]; then
  over=()
  mpirun --version 2>/dev/null | grep -q "Open MPI" && over=(--oversubscribe)
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CITYFORGE_VIEWER=none \
    mpirun "${over[@]}" -np "$ranks" "$exe" "${args[@]}" > "$work/serve.log" 2>&1 &
else
  CITYFORGE_VIEWER=none "$exe" "${args[@]}" > "$work/serve.log" 2>&1 &
fi
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
port=""
for _ in $(seq 1 600); do
  port=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/serve.log" | head -1)
  [ -n "$port" ] && grep -q '^live:' "$work/serve.log" && break
  kill -0 $server 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "live_soak: the server did not start" >&2; exit 1; }
watched=$server  # Whose memory the soak follows: the server, or under mpirun its rank 0.
if [ "$ranks" -gt 1 ]; then
  for p in $(pgrep -f "cityforge serve $city"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=0"; then
      watched=$p
    fi
  done
fi
echo "serving $city on port $port (pid $watched, $ranks rank(s)); soak for $seconds s" >&2
report=${REPORT:-$work/soak.json}
"$soak" --port "$port" --pid "$watched" --seconds "$seconds" --warmup-s "${WARMUP_S:-30}" > "$report"
kill -TERM $server
wait $server && code=0 || code=$?
trap - EXIT
cat "$report"
python3 - "$report" "$code" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["server"]; rd = r["readers"]; sl = r["slowloris"]
print(f"soak {r['seconds']:.0f} s, {r['clients']['total']} clients: "
      f"pace {s['pace']:.3f} x real time, ticks/s median {s['ticks_per_s_median']:.1f} "
      f"(min {s['ticks_per_s_min']:.1f}, target {s['target_ticks_per_s']:.0f}), "
      f"{s['ticks_behind']} ticks behind")
print(f"  resident memory {s['rss_mib_after_warmup']:.1f} MiB after warm-up, "
      f"{s['rss_mib_end']:.1f} at the end (max {s['rss_mib_max']:.1f}, growth {s['rss_growth_mib']:+.1f})")
print(f"  readers: {rd['joins']} joins, {rd['frames_decoded']} frames decoded, "
      f"{rd['decode_errors']} errors, {rd['min_frames_per_slot']}-{rd['max_frames_per_slot']} per slot; "
      f"slow: {r['slow']['frames_decoded']} frames, {r['slow']['decode_errors']} errors, "
      f"server dropped {s['stats_end']['frames_dropped']}")
print(f"  garbage {r['garbage']['sent']} -> {json.dumps(r['garbage']['close_codes'])}")
print(f"  oversize {r['oversize']['sent']} -> {json.dumps(r['oversize']['close_codes'])}")
print(f"  slowloris: {sl['opened']} opened, {sl['answered_408']} answered 408, held "
      f"{sl['hold_s_median']:.1f} s median, {sl['hold_s_max']:.1f} s max; /live/stats "
      f"{r['probes']['count']} probes, {r['probes']['failures']} failed, "
      f"{r['probes']['latency_ms_median']:.1f} ms median, {r['probes']['latency_ms_p99']:.1f} ms p99")
print(f"  server exit code after SIGTERM: {sys.argv[2]}")
PY
