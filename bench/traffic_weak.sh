#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Weak scaling of the traffic over MPI ranks (issue 24, docs/traffic.md "Over MPI ranks"): for
# each N in RANKS (each a square, k x k), a city of k x k times the 4x5 km example's area with
# N x VEHICLES moving vehicles, simulated on N ranks of one thread each. The same work per rank
# at every N: what grows is what a rank cannot keep to itself. The city, 4k x 5k km:
# - TILED=1: k x k copies of the example side by side (each tile its arteries, zones and a
#   stretch of freeway, the copies' arteries and freeway joined at the seams into one per row
#   or column, the deck 10 m higher for the terrain under the copies; one rectangular boundary,
#   residential where no other zone is): the example's density of arteries, freeway and zones
#   everywhere.
# - otherwise: the example scaled by k (the same block sizes and zoning densities, but the same
#   five arteries and one freeway over k^2 times the area; the freeway deck raised 24 m per
#   step of k to clear the longer run of terrain). At k = 4 no ramp site of its 31 km freeway
#   reaches an artery (the generator refuses it): 16 ranks need TILED=1.
#
# Runs with more ranks than cores still measure what matters here: each rank's CPU time over
# the ticks, less the CPU time it spent inside the MPI collectives (where it waits and polls;
# sim_stats.json per_rank cpu_s and collective_cpu_s), is that rank's own work, whichever core
# it ran on and whenever. The table gives it per tick for the busiest rank and on average,
# with the efficiency (one rank's work per tick / the busiest rank's), the bytes each rank
# sends per tick, the vehicles handed over and the largest rank's peak memory. More ranks than
# cores also share caches and memory bandwidth, which raises every rank's CPU time: the control
# ("alone") runs N independent one-rank simulations of the 4x5 km example at once, and "vs
# alone" is their mean work per tick / the busiest rank's, the efficiency with that contention
# taken out. Wall ticks per second are printed too but mean
# something only while N <= cores. Never asserts on time; say whether the machine was quiet.
#
#   bash bench/traffic_weak.sh [BUILD_DIR] [VEHICLES] [SECONDS] [RANKS...]
#   (defaults: build/release 40000 30 1 4)
# PEDESTRIANS: N x PEDESTRIANS pedestrians (unset: simulate's default, 2,000 at every N);
# NO_LOD=1: every vehicle and pedestrian at full fidelity (`--no-lod`). TRIP_REACH_KM=K: trips
# to destinations within K km of their start (`--trip-reach-km`; unset: anywhere in the city,
# so that trips and reroutes grow with the city's size). With pedestrians the
# table adds the busiest rank's share of the full-fidelity pedestrian updates (x the mean) and
# the crowd's bytes per rank.
# WORK_DIR: where the scaled cities are generated and kept (unset: ${TMPDIR:-/tmp}/traffic_weak;
# the 8 x 10 km city takes about 60 s and 1.1 GB to generate, 16 x 20 km 196 s and 4.1 GB).
# Memory: every rank loads the whole city and holds every vehicle's row: about 75 MB per
# 4x5 km of city with the traffic alone (PEDESTRIANS=0), so 16 ranks of the 16 x 20 km city take
# about 19 GB; the crowd (any pedestrians: it reads the buildings' footprints and builds its
# walk network over the whole city) about doubles that.
set -euo pipefail
extra=()
if [ "${NO_LOD:-0}" = 1 ]; then extra+=(--no-lod); fi
if [ -n "${TRIP_REACH_KM:-}" ]; then extra+=(--trip-reach-km "$TRIP_REACH_KM"); fi
build=${1:-build/release}
vehicles=${2:-40000}
seconds=${3:-30}
shift $(( $# < 3 ? $# : 3 ))
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(1 4)
here=$(cd "$(dirname "$0")/.." && pwd)
exe="$build/cityforge"
[ -x "$exe" ] || { echo "traffic_weak: $exe not found" >&2; exit 2; }
work=${WORK_DIR:-${TMPDIR:-/tmp}/traffic_weak}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
over=()
mpirun --version 2>/dev/null | grep -q "Open MPI" && over=(--oversubscribe)
echo "traffic_weak: $vehicles vehicles per rank, $seconds s, ranks ${ranks[*]}," \
  "${TILED:+tiled, }${PEDESTRIANS:+$PEDESTRIANS pedestrians per rank, }${NO_LOD:+no levels of detail, }${TRIP_REACH_KM:+trips within $TRIP_REACH_KM km, }$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${ranks[@]}"; do
  k=$(python3 -c "import math,sys; n=int(sys.argv[1]); k=math.isqrt(n); print(k if k*k==n else 0)" "$n")
  [ "$k" -gt 0 ] || { echo "traffic_weak: $n ranks is not a square (1, 4, 9, 16, ...)" >&2; exit 2; }
  tiled=0
  [ "${TILED:-0}" = 1 ] && [ "$k" -gt 1 ] && tiled=1
  city="$work/x$k"
  [ "$tiled" = 1 ] && city="$work/t$k"
  if [ ! -f "$city/lanes.json" ]; then
    python3 - "$here/data/examples/metropolis-4x5km.json" "$k" "$city.json" "$tiled" <<'PY'
import json, sys
src, k, out, tiled = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
c = dict(src)
c["name"] = f"metropolis-{4 * k}x{5 * k}km"
if not tiled:
    def xy(points):
        return [[p[0] * k, p[1] * k] + list(p[2:]) for p in points]
    c["description"] = f"bench/traffic_weak.sh: the 4x5 km example scaled by {k}"
    c["boundary"] = xy(src["boundary"])
    c["arteries"] = [dict(a, points=xy(a["points"])) for a in src["arteries"]]
    c["zones"] = [dict(z, polygon=xy(z["polygon"])) for z in src["zones"]]
    c["freeways"] = [dict(f, points=[[p[0] * k, p[1] * k, p[2] + 24 * (k - 1)] for p in f["points"]])
                     for f in src["freeways"]]
else:
    W, H = 4000, 5000  # The example's tile: its boundary spans -100..4100 x 0..5100.
    def moved(points, i, j):
        return [[p[0] + W * i, p[1] + H * j] + list(p[2:]) for p in points]
    def joined(copies):
        # One curve through the copies in order; at each seam the last point of one copy and
        # the first of the next (tens of metres apart, sometimes overlapping) become their midpoint.
        out = list(copies[0])
        for nxt in copies[1:]:
            a, b = out.pop(), nxt[0]
            out.append([(x + y) / 2 for x, y in zip(a, b)])
            out.extend(nxt[1:])
        return out
    def crosses(points, axis):
        return points[0][axis] < 200 and points[-1][axis] > (W if axis == 0 else H) - 200
    c["description"] = f"bench/traffic_weak.sh: {k} x {k} copies of the 4x5 km example side by side"
    c["boundary"] = [[-100, 0], [W * (k - 1) + 4100, 0], [W * (k - 1) + 4100, H * (k - 1) + 5100],
                     [-100, H * (k - 1) + 5100]]
    arteries = []
    for a in src["arteries"]:
        if crosses(a["points"], 0):    # West to east: one per row of tiles.
            arteries += [dict(a, name=f'{a["name"]} {j + 1}',
                              points=joined([moved(a["points"], i, j) for i in range(k)]))
                         for j in range(k)]
        elif crosses(a["points"], 1):  # South to north: one per column.
            arteries += [dict(a, name=f'{a["name"]} {i + 1}',
                              points=joined([moved(a["points"], i, j) for j in range(k)]))
                         for i in range(k)]
        else:                          # Within a tile: one per tile.
            arteries += [dict(a, name=f'{a["name"]} {i + 1}-{j + 1}', points=moved(a["points"], i, j))
                         for i in range(k) for j in range(k)]
    c["arteries"] = arteries
    zones = []
    for z in src["zones"]:
        if z["polygon"] == src["boundary"]:  # The zone that is the whole city.
            zones.append(dict(z, polygon=c["boundary"]))
        else:
            zones += [dict(z, name=f'{z["name"]} {i + 1}-{j + 1}', polygon=moved(z["polygon"], i, j))
                      for i in range(k) for j in range(k)]
    c["zones"] = zones
    # The deck 10 m higher: the terrain under the copies is not the example's.
    c["freeways"] = [dict(f, name=f'{f["name"]} {j + 1}',
                          points=[p[:2] + [p[2] + 10] for p in
                                  joined([moved(f["points"], i, j) for i in range(k)])])
                     for f in src["freeways"] for j in range(k)]
json.dump(c, open(out, "w"), indent=1)
PY
    echo "generating $((4 * k)) x $((5 * k)) km into $city ..." >&2
    "$exe" generate "$city.json" -o "$city" --no-sumo --no-city-glb -q >&2
  fi
  peds=()
  alone_peds=()
  if [ -n "${PEDESTRIANS:-}" ]; then
    peds=(--pedestrians $((n * PEDESTRIANS)))
    alone_peds=(--pedestrians "$PEDESTRIANS")
  fi
  args=(simulate "$city" --vehicles $((n * vehicles)) "${peds[@]}" "${extra[@]}"
        --seconds "$seconds" --threads 1 --no-record -q)
  if [ "$n" -eq 1 ]; then "$exe" "${args[@]}" >/dev/null; else
    mpirun "${over[@]}" -np "$n" "$exe" "${args[@]}" >/dev/null; fi
  cp "$city/sim_stats.json" "$work/weak_$n.json"
  if [ "$n" -gt 1 ]; then
    # The control: N independent one-rank runs of the 4x5 km example at once, so that the
    # baseline shares the cores and caches as the N ranks did (folders of links to its files).
    for i in $(seq 1 "$n"); do
      c="$work/alone_$i"
      mkdir -p "$c"
      for f in "$work"/x1/*; do ln -sfn "$f" "$c/$(basename "$f")"; done
      rm -f "$c/sim_stats.json"
      "$exe" simulate "$c" --vehicles "$vehicles" "${alone_peds[@]}" "${extra[@]}" \
        --seconds "$seconds" --threads 1 --no-record -q >/dev/null &
    done
    wait
    python3 - "$work" "$n" <<'PY'
import json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(os.path.join(work, f"alone_{i}", "sim_stats.json"))) for i in range(1, n + 1)]
json.dump({"own_ms_per_tick": [r["per_rank"][0]["cpu_s"] / max(1, r["ticks"]) * 1e3 for r in runs],
           "ticks_per_wall_s": [r["ticks_per_wall_s"] for r in runs]},
          open(os.path.join(work, f"alone_{n}.json"), "w"))
PY
  fi
done
python3 - "$work" "${ranks[@]}" <<'PY'
import json, os, sys
work, ranks = sys.argv[1], [int(x) for x in sys.argv[2:]]
print(f'{"ranks":>5} {"city km":>8} {"moving":>7} {"ticks/s":>8} {"own ms/tick max":>15} {"mean":>6} '
      f'{"efficiency":>10} {"alone ms/tick":>13} {"vs alone":>8} {"kB/tick/rank":>12} {"migr/s":>7} '
      f'{"cut lanes":>9} {"halo lanes":>10} {"MiB/rank max":>12}')
base = None
for n in ranks:
    j = json.load(open(os.path.join(work, f"weak_{n}.json")))
    ticks = max(1, j["ticks"])
    own = [(p["cpu_s"] - p["collective_cpu_s"]) / ticks * 1e3 for p in j["per_rank"]]
    busiest = max(own)
    base = base or busiest
    k = int(round(n ** 0.5))
    kb = j["exchange_bytes_per_tick"] / n / 1e3
    alone, vs = "-", "-"
    if n > 1:
        a = json.load(open(os.path.join(work, f"alone_{n}.json")))["own_ms_per_tick"]
        alone = f"{sum(a) / len(a):.2f}"
        vs = f"{sum(a) / len(a) / busiest:.2f}"
    print(f'{n:>5} {f"{4 * k}x{5 * k}":>8} {j["vehicles_moving"]:>7} {j["ticks_per_wall_s"]:>8.1f} '
          f'{busiest:>15.2f} {sum(own) / len(own):>6.2f} {base / busiest:>10.2f} {alone:>13} {vs:>8} '
          f'{kb:>12.1f} {j["migrations_per_s"]:>7.1f} {j["partition"]["cut_lanes"]:>9} '
          f'{j["halo_lanes"]:>10} {max(p.get("peak_rss_mib", 0) for p in j["per_rank"]):>12.0f}')
    peds = [p.get("pedestrian_updates", 0) for p in j["per_rank"]]
    if sum(peds) > 0:
        crowd_kb = sum(p.get("crowd_sent_bytes", 0) for p in j["per_rank"]) / ticks / n / 1e3
        print(f'{"":>5} pedestrians: busiest rank {max(peds) / (sum(peds) / n):.2f} x the mean '
              f'of the full-fidelity updates, crowd {crowd_kb:.1f} kB/tick/rank')
PY
