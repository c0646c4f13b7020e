#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Helper of bench/traffic_vs_sumo.sh (python3 standard library only).

Subcommands:
  capacity STATS_JSON
      Prints the vehicles a city holds bumper to bumper in SUMO's default car (5 m + 2.5 m
      gap): vehicle_lane_km * 1000 / 7.5, from the stats.json of `cityforge generate`.
  trips COUNT SECONDS
      Prints the trips to generate so that SUMO keeps COUNT vehicles running for SECONDS:
      COUNT to fill the network plus COUNT per simulated minute as the backlog that replaces
      arrivals (measured: far fewer than COUNT arrive per minute on the generated cities).
  sumo COUNT LOG SUMMARY_XML WALL_S OUT_JSON
      Reads SUMO's --duration-log.statistics log and --summary-output and writes its figures.
  report RESULTS_DIR OUT_JSON COUNT...
      Reads RESULTS_DIR/{city,sumo,ours_t*}_COUNT.json, prints the table, writes OUT_JSON.
"""
import glob
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ET


def capacity(stats_path):
    stats = json.load(open(stats_path))
    print(int(stats["lanes"]["vehicle_lane_km"] * 1000.0 / 7.5))


def trips(count, seconds):
    print(int(count) + int(count) * max(1, math.ceil(float(seconds) / 60.0)))


def _number(pattern, text, cast=float):
    m = re.search(pattern, text)
    return cast(m.group(1)) if m else None


def sumo(count, log_path, summary_path, wall_s, out_path):
    count = int(count)
    log = open(log_path, errors="replace").read()
    res = {
        "vehicles_requested": count,
        "ups_reported": _number(r"UPS:\s*([0-9.eE+-]+)", log),
        "duration_s": _number(r"Duration:\s*([0-9.]+)\s*s", log),
        "real_time_factor": _number(r"Real time factor:\s*([0-9.eE+-]+)", log),
        "inserted": _number(r"Inserted:\s*(\d+)", log, int),
        "loaded": _number(r"Loaded:\s*(\d+)", log, int),
        "teleports": _number(r"Teleports:\s*(\d+)", log, int) or 0,
        "collisions": _number(r"Collisions:\s*(\d+)", log, int) or 0,
        "errors": len(re.findall(r"^Error:", log, re.M)),
        "wall_s": float(wall_s),
    }
    steps = []
    for _, el in ET.iterparse(summary_path):
        if el.tag == "step":
            steps.append((float(el.get("time")), int(el.get("running")), int(el.get("waiting")),
                          int(el.get("halting")), float(el.get("meanSpeed")),
                          float(el.get("duration"))))
            el.clear()
    if not steps:
        raise SystemExit(f"traffic_demand: no <step> in {summary_path}")
    running = [s[1] for s in steps]
    res["steps"] = len(steps)
    res["running_max"] = max(running)
    # Steady window: from the first step at the peak running count (COUNT when SUMO filled the
    # network) to the end, so the loading and insertion burst at the start is left out.
    first = running.index(max(running))
    window = steps[first:]
    res["steady_from_s"] = window[0][0]
    res["running_min_steady"] = min(s[1] for s in window)
    res["running_mean_steady"] = sum(s[1] for s in window) / len(window)
    res["running_end"] = steps[-1][1]
    res["waiting_end"] = steps[-1][2]  # Backlog left: 0 means the demand ran out.
    res["halting_share_end"] = steps[-1][3] / max(1, steps[-1][1])
    res["mean_speed_mps"] = sum(s[4] for s in window) / len(window)
    res["mean_speed_end_mps"] = steps[-1][4]
    # SUMO 1.15 writes the step's wall clock (ms since the epoch) as "duration"; later versions
    # write the step's own duration in ms. Either way the window's wall time follows.
    durations = [s[5] for s in window]
    if durations[0] > 1e11:
        ms = durations[-1] - durations[0]
    else:
        ms = sum(durations[1:])
    updates = sum(s[1] for s in window[1:])
    res["ups_steady"] = updates / (ms / 1000.0) if ms > 0 else None
    json.dump(res, open(out_path, "w"), indent=1)


def _load(path):
    return json.load(open(path)) if os.path.exists(path) else None


def _fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-"


def report(results_dir, out_path, *counts):
    rows = []
    for n in counts:
        row = {"vehicles": int(n)}
        row["city"] = _load(os.path.join(results_dir, f"city_{n}.json"))
        row["sumo"] = _load(os.path.join(results_dir, f"sumo_{n}.json"))
        ours = {}
        for p in sorted(glob.glob(os.path.join(results_dir, f"ours_t*_{n}.json"))):
            t = re.search(r"ours_t(\d+)_", os.path.basename(p)).group(1)
            ours[t] = json.load(open(p))
        row["ours"] = ours
        sumo_ups = (row["sumo"] or {}).get("ups_reported")
        row["ratio"] = {t: s["vehicle_updates_per_s"] / sumo_ups
                        for t, s in ours.items()
                        if sumo_ups and s.get("vehicle_updates_per_s") is not None}
        rows.append(row)
    threads = sorted({t for r in rows for t in r["ours"]}, key=int)

    head = f'{"vehicles":>8} {"city":<18} {"sumo_ups":>10} {"sumo_run":>8}'
    for t in threads:
        head += f' {"ours_" + t + "t_ups":>12}'
    for t in threads:
        head += f' {"ratio_" + t + "t":>9}'
    head += f' {"ours_moving":>11}'
    print(head)
    for r in rows:
        s = r["sumo"] or {}
        city = (r["city"] or {}).get("name", "-")
        line = (f'{r["vehicles"]:>8} {city:<18} {_fmt(s.get("ups_reported"), ".0f"):>10} '
                f'{_fmt(s.get("running_min_steady"), "d"):>8}')
        for t in threads:
            line += f' {_fmt(r["ours"].get(t, {}).get("vehicle_updates_per_s"), ".0f"):>12}'
        for t in threads:
            line += f' {_fmt(r["ratio"].get(t), ".1f"):>9}'
        moving = sorted({o.get("vehicles_moving") for o in r["ours"].values()} - {None})
        line += f' {"/".join(map(str, moving)) or "-":>11}'
        print(line)
    print()
    print("sumo_ups: SUMO's own 'UPS' (vehicle steps / simulation wall time) over the whole run;"
          " sumo_run: fewest vehicles running once the network had filled;"
          " ratio_Tt: ours with T threads / sumo_ups.")
    for r in rows:
        s = r["sumo"]
        if s:
            print(f'  sumo {r["vehicles"]:>6}: steady UPS {_fmt(s.get("ups_steady"), ".0f")} '
                  f'(from t={s["steady_from_s"]:.1f} s), running max {s["running_max"]} '
                  f'mean {s["running_mean_steady"]:.0f}, mean speed {s["mean_speed_mps"]:.2f} m/s, '
                  f'halting at end {100 * s["halting_share_end"]:.0f} %, teleports '
                  f'{s["teleports"]}, collisions {s["collisions"]}, backlog left '
                  f'{s["waiting_end"]}, sim {s["duration_s"]} s, wall {s["wall_s"]:.1f} s')
        for t, o in sorted(r["ours"].items(), key=lambda kv: int(kv[0])):
            print(f'  ours {r["vehicles"]:>6} {t}t: moving {o.get("vehicles_moving")}, parked '
                  f'{o.get("vehicles_parked")}, mean speed {_fmt(o.get("mean_speed_mps"), ".2f")}'
                  f' m/s, trips {o.get("trips_completed")}, lane changes '
                  f'{o.get("lane_changes")}, stops {o.get("stops")}, ticks {o.get("ticks")}, '
                  f'wall {_fmt(o.get("wall_s"), ".1f")} s, hash {o.get("state_hash")}')
    json.dump({"rows": rows}, open(out_path, "w"), indent=1)


def main(argv):
    commands = {"capacity": (capacity, 1), "trips": (trips, 2), "sumo": (sumo, 5)}
    if len(argv) >= 2 and argv[1] in commands and len(argv) - 2 == commands[argv[1]][1]:
        commands[argv[1]][0](*argv[2:])
    elif len(argv) >= 4 and argv[1] == "report":
        report(*argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
