#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ranks against threads, side by side in one run: generates a city (default: the 4x5 km
# example), or imports an OSM extract (CONFIG ending in .osm or .osm.pbf; more import options,
# e.g. --dem and --bbox, in the IMPORT_ARGS variable), with --tiles RUNS times each way, alternating: 1 rank x T threads (no mpirun), then
# for each N in RANKS, `mpirun -np N` x max(1, T/N) threads. Prints the medians of the whole run,
# the stages every rank runs, the set dressing stage (part of them), the tile step, each rank's share of the tiles and the largest
# rank's peak memory (stats.json "timings"), and checks the outputs are identical. Never
# asserts on time; say whether the machine was quiet when quoting.
#   bash bench/mpi_scaling.sh [BUILD_DIR] [CONFIG|EXTRACT|default] [RUNS] [THREADS] [RANKS...]
#   IMPORT_ARGS="--dem tests/data/dem/andorra_srtm3.tif --bbox 1.48,42.48,1.58,42.55" \
#     bash bench/mpi_scaling.sh build/release tests/data/osm/andorra.osm.pbf 2 1 2
set -euo pipefail
build=${1:-build/release}
cfg=${2:-data/examples/metropolis-4x5km.json}
runs=${3:-2}
threads=${4:-$(nproc)}
shift $(( $# < 4 ? $# : 4 ))
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(2)
exe="$build/cityforge"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
verb=generate
args=()
case "$cfg" in
  default) ;;
  *.osm | *.osm.pbf) verb=import; read -r -a extra <<<"${IMPORT_ARGS:-}"; args=("$cfg" "${extra[@]}") ;;
  *) args=("$cfg" --seed 3) ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
over=()
mpirun --version 2>/dev/null | grep -q "Open MPI" && over=(--oversubscribe)
echo "mpi_scaling: $cfg, $runs runs each way, $threads threads in all, ranks ${ranks[*]}, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$runs"); do
  "$exe" "$verb" "${args[@]}" -o "$tmp/r1_$i" --threads "$threads" -q --no-sumo --tiles --no-city-glb
  for n in "${ranks[@]}"; do
    t=$(( threads / n )); [ "$t" -lt 1 ] && t=1
    mpirun "${over[@]}" -np "$n" "$exe" "$verb" "${args[@]}" -o "$tmp/r${n}_$i" --threads "$t" \
      -q --no-sumo --tiles --no-city-glb
  done
  # Identical files whatever the rank count (stats.json up to "timings").
  for n in "${ranks[@]}"; do
    if ! diff -rq -x stats.json "$tmp/r1_$i" "$tmp/r${n}_$i" >/dev/null; then
      echo "mpi_scaling: np $n wrote different files" >&2; exit 1
    fi
  done
  for d in "$tmp"/r*_"$i"; do find "$d" -mindepth 1 -maxdepth 1 ! -name stats.json -exec rm -rf {} +; done
done
python3 - "$tmp" "$runs" 1 "${ranks[@]}" <<'PY'
import json, os, statistics, sys
tmp, runs, ranks = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
med = statistics.median
print(f'{"ranks":>5} {"thr/rank":>8} {"whole_s":>8} {"stages_s":>8} {"dressing":>8} {"tiles_s":>8} {"rank_tiles_s (each)":>28} {"peak_MiB":>9}')
base = None
for n in ranks:
    rows = []
    for i in range(1, runs + 1):
        t = json.load(open(os.path.join(tmp, f"r{n}_{i}", "stats.json")))["timings"]
        st = {x["name"]: x["wall_s"] for x in t["stages"]}
        stages = sum(v for k, v in st.items() if k not in ("export", "tiles"))
        each = [r["tiles_s"] for r in t.get("per_rank", [])]
        rows.append((t["total_wall_s"], stages, st.get("tiles", 0), each, t["peak_rss_mib"], t["threads"],
                     st.get("dressing", 0)))
    whole = med([r[0] for r in rows])
    base = base or whole
    each = " ".join(f"{med([r[3][k] for r in rows]):.2f}" for k in range(len(rows[0][3]))) or "-"
    print(f'{n:>5} {rows[0][5]:>8} {whole:8.2f} {med([r[1] for r in rows]):8.2f} '
          f'{med([r[6] for r in rows]):8.2f} '
          f'{med([r[2] for r in rows]):8.2f} {each:>28} {med([r[4] for r in rows]):9.0f}'
          f'   ({base / whole:.2f}x the 1-rank speed)')
PY
