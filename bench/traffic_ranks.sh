#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The traffic over MPI ranks (issue 24, docs/traffic.md "Over MPI ranks"), side by side in one
# run: `cityforge simulate` alone (1 rank) and under `mpirun -np N` for each N in RANKS, RUNS
# times each way, alternating, every rank on THREADS threads. Prints the medians of the
# traffic's ticks per wall second, the exchange (bytes and microseconds per tick, on rank 0),
# the vehicles migrated per simulated second and each rank's share of the vehicle updates, and
# checks the state hashes are the same for every rank count. Never asserts on time; say whether
# the machine was quiet when quoting.
#   bash bench/traffic_ranks.sh [BUILD_DIR] [VEHICLES] [SECONDS] [RUNS] [THREADS] [RANKS...]
# CITY_DIR: a generated city (unset: the 4x5 km example, generated once into WORK_DIR);
# PEDESTRIANS (default 0; with some, the crowd's figures too: its ticks per wall second, the
# exchange of its full-fidelity agents, each rank's share of them, and the crowd's state hash);
# NO_LOD=1: every vehicle and pedestrian at full fidelity (`--no-lod`); WORK_DIR (unset: a new
# ${TMPDIR:-/tmp} folder, removed at the end); OLD_BUILD: another build run in turn with this one
# (each of its runs right after this build's), its tables printed first, its traffic and crowd
# state hashes checked against this build's.
set -euo pipefail
build=${1:-build/release}
vehicles=${2:-40000}
seconds=${3:-60}
runs=${4:-3}
threads=${5:-1}
shift $(( $# < 5 ? $# : 5 ))
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(2)
here=$(cd "$(dirname "$0")/.." && pwd)
exe="$build/cityforge"
if [ -n "${WORK_DIR:-}" ]; then work=$WORK_DIR; mkdir -p "$work"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
city=${CITY_DIR:-$work/metropolis}
if [ ! -f "$city/lanes.json" ]; then
  echo "generating the 4x5 km example into $city ..." >&2
  "$exe" generate "$here/data/examples/metropolis-4x5km.json" -o "$city" --no-sumo -q
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
over=()
mpirun --version 2>/dev/null | grep -q "Open MPI" && over=(--oversubscribe)
args=(simulate "$city" --vehicles "$vehicles" --pedestrians "${PEDESTRIANS:-0}" --seconds "$seconds"
      --threads "$threads" --no-record -q)
[ "${NO_LOD:-0}" = 1 ] && args+=(--no-lod)
echo "traffic_ranks: $vehicles vehicles, $seconds s, $runs runs each way, $threads thread(s) per rank, ranks 1 ${ranks[*]}, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
builds=("$exe")
prefixes=(r)
if [ -n "${OLD_BUILD:-}" ]; then builds+=("$OLD_BUILD/cityforge"); prefixes+=(o); fi
for i in $(seq 1 "$runs"); do
  for k in "${!builds[@]}"; do
    x=${builds[$k]}
    p=${prefixes[$k]}
    "$x" "${args[@]}" >/dev/null
    cp "$city/sim_stats.json" "$work/${p}1_$i.json"
    for n in "${ranks[@]}"; do
      mpirun "${over[@]}" -np "$n" "$x" "${args[@]}" >/dev/null
      cp "$city/sim_stats.json" "$work/${p}${n}_$i.json"
    done
  done
done
python3 - "$work" "$runs" "${OLD_BUILD:-}" 1 "${ranks[@]}" <<'PY'
import json, os, statistics, sys
work, runs, old = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ranks = [int(x) for x in sys.argv[4:]]
med = statistics.median
hashes = set()
for prefix, name in ([("o", f"OLD_BUILD {old}")] if old else []) + [("r", "this build")]:
  print(name)
  print(f'{"ranks":>5} {"ticks/s":>8} {"vs 1":>6} {"moving":>7} {"kB/tick":>8} {"us/tick":>8} {"migr/s":>7} {"cut lanes":>9}  updates per rank (share)')
  base = None
  for n in ranks:
    js = [json.load(open(os.path.join(work, f"{prefix}{n}_{i}.json"))) for i in range(1, runs + 1)]
    for j in js:
        hashes.add(j["state_hash"])
    tps = med([j["ticks_per_wall_s"] for j in js])
    base = base or tps
    j = js[0]
    total = sum(p["vehicle_updates"] for p in j["per_rank"])
    shares = " ".join(f'{p["vehicle_updates"] / total:.3f}' for p in j["per_rank"]) if total else "-"
    print(f'{n:>5} {tps:>8.1f} {tps / base:>6.2f} {j["vehicles_moving"]:>7} '
          f'{med([x["exchange_bytes_per_tick"] for x in js]) / 1e3:>8.1f} '
          f'{med([x["exchange_us_per_tick"] for x in js]):>8.0f} {j["migrations_per_s"]:>7.1f} '
          f'{j["partition"]["cut_lanes"]:>9}  {shares}')
if len(hashes) != 1:
    sys.exit(f"traffic_ranks: the state hashes differ between rank counts: {sorted(hashes)}")
print(f"state hash {hashes.pop()} for every rank count")
first = json.load(open(os.path.join(work, f"r{ranks[0]}_1.json")))
crowd_hashes = set()
for prefix, name in ([("o", f"OLD_BUILD {old}")] if old else []) + [("r", "this build")]:
    if not (first.get("crowd") and first["per_rank"][0].get("pedestrian_updates", 0) > 0):
        break
    print(f"crowd, {name}")
    print(f'{"ranks":>5} {"crowd ticks/s":>13} {"vs 1":>6} {"kB/tick":>8} {"us/tick":>8}  full-fidelity pedestrians per rank (share)')
    base = None
    for n in ranks:
        js = [json.load(open(os.path.join(work, f"{prefix}{n}_{i}.json"))) for i in range(1, runs + 1)]
        crowd_hashes.update(j["crowd"]["state_hash"] for j in js)
        tps = med([j["crowd"]["ticks_per_wall_s"] for j in js])
        base = base or tps
        ticks = js[0]["ticks"]
        kb = med([sum(p["crowd_sent_bytes"] for p in j["per_rank"]) for j in js]) / ticks / 1e3
        us = med([j["per_rank"][0]["crowd_exchange_s"] for j in js]) / ticks * 1e6
        total = sum(p["pedestrian_updates"] for p in js[0]["per_rank"])
        shares = " ".join(f'{p["pedestrian_updates"] / total:.3f}' for p in js[0]["per_rank"])
        print(f'{n:>5} {tps:>13.1f} {tps / base:>6.2f} {kb:>8.1f} {us:>8.0f}  {shares}')
if len(crowd_hashes) > 1:
    sys.exit(f"traffic_ranks: the crowd's state hashes differ between rank counts or builds: {sorted(crowd_hashes)}")
if crowd_hashes:
    print(f"crowd state hash {crowd_hashes.pop()} for every rank count (and build)")
PY
