#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads a cityforge OpenDRIVE export with SUMO, an independent reader, and checks what it made.

  1. netconvert --opendrive-files CITY.xodr -> WORK/net.net.xml; any "Error" line fails, warnings
     are counted and grouped (ids and numbers blanked) so the writer's author sees what to fix.
  2. Counts the network's junctions (internal ones and lane-section splits left out, see
     count_junctions) and signalised junctions, and compares them with ours: lanes.json's
     intersections and signal plans when given, else what the .xodr itself declares.
  3. 300 random trips (randomTrips.py, fixed seed, --validate so each one has a route), simulated
     by sumo; the arrival ratio is arrived / trips.
  4. With city.json (lane map) and lanes.json: every vehicle lane of ours on a road (connectors
     excluded) against the SUMO lane netconvert built from it: lengths, end points, and how far
     SUMO's shape strays sideways from ours (see compare_lanes for what SUMO trims and why).
  5. Prints one JSON summary on stdout; exits 1 naming every threshold that failed, 2 when a tool
     could not run at all.

Python 3 standard library only; SUMO (Debian package 'sumo': netconvert, sumo, duarouter and the
tools under /usr/share/sumo/tools) must be installed.
"""

import argparse
import bisect
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

# netconvert options for a faithful import, each with the reason.
NETCONVERT_OPTIONS = [
    # Keep our frame (engine metres): without it netconvert shifts the network so its lower left
    # corner is at 0,0 and no end point could be compared.
    "--offset.disable-normalization", "true",
    # Each SUMO lane carries <param key="origId" value="ROAD_LANEID"/>: the lane map below reads
    # it instead of guessing from edge ids and lane indices (it checks those too).
    "--output.original-names", "true",
    # Only the connections the file declares: SUMO would add a turnaround at every junction
    # otherwise (ours are explicit connecting roads at dead ends).
    "--no-turnarounds", "true",
    # One SUMO node per OpenDRIVE junction: no merging of nearby junctions (the default, stated
    # so a changed default cannot move the junction count).
    "--junctions.join", "false",
    # Fixed-time programs, like our plans; OpenDRIVE carries no phases, SUMO builds its own.
    "--tls.default-type", "static",
    # Our arcs and spirals sampled every 0.5 m rather than 2 m: the chord error in length stays
    # far below the lane tolerance even on tight junction-side curves.
    "--opendrive.curve-resolution", "0.5",
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sumo_env():
    env = dict(os.environ)
    # Debian's SUMO does not set SUMO_HOME; without it netconvert cannot load its type maps.
    if not env.get("SUMO_HOME") and os.path.isdir("/usr/share/sumo"):
        env["SUMO_HOME"] = "/usr/share/sumo"
    return env


def run(cmd, log_path, env):
    """Runs cmd, writing stdout+stderr to log_path; returns (exit code, output text)."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                          text=True, errors="replace", check=False)
    with open(log_path, "w", encoding="utf-8") as f:
        f.write(" ".join(cmd) + "\n" + proc.stdout)
    return proc.returncode, proc.stdout


def warning_groups(output):
    """Warning lines grouped by their text with quoted ids and numbers blanked."""
    groups = {}
    totals = {}
    for line in output.splitlines():
        if not line.startswith("Warning:"):
            continue
        text = line[len("Warning:"):].strip()
        # SUMO prints the first few of a kind, then "N total messages of type: <pattern>".
        m = re.fullmatch(r"(\d+) total messages of type: (.*)", text)
        if m:
            key = re.sub(r"-?\d+(\.\d+)?", "N", m.group(2).replace("'%'", "'_'"))
            totals[key] = int(m.group(1))
            continue
        key = re.sub(r"'[^']*'", "'_'", text)
        key = re.sub(r"-?\d+(\.\d+)?", "N", key)
        g = groups.setdefault(key, {"count": 0, "example": line})
        g["count"] += 1
    for key, n in totals.items():
        g = groups.setdefault(key, {"count": 0, "example": key})
        g["count"] = max(g["count"], n)
    return sorted(({"what": k, **v} for k, v in groups.items()), key=lambda g: -g["count"])


def error_lines(output):
    return [l for l in output.splitlines() if l.startswith("Error") or "Quitting (on error)" in l]


# ---------------------------------------------------------------------------------------------
# The .xodr: what it declares (used when lanes.json is not given).
# ---------------------------------------------------------------------------------------------

def read_xodr(path):
    root = ET.parse(path).getroot()
    roads = {}
    for r in root.iter("road"):
        link = r.find("link")
        ends = {}
        if link is not None:
            for kind in ("predecessor", "successor"):
                e = link.find(kind)
                if e is not None:
                    ends[kind] = (e.get("elementType"), e.get("elementId"))
        signals = []
        sig = r.find("signals")
        if sig is not None:
            for s in sig.findall("signal"):
                # netconvert makes a traffic light of a dynamic signal or one of type 1000001.
                light = s.get("dynamic") == "yes" or s.get("type") == "1000001"
                signals.append((light, s.get("orientation"), float(s.get("s", "0"))))
        roads[r.get("id")] = {"junction": r.get("junction", "-1"), "ends": ends,
                              "signals": signals}
    junctions = [j.get("id") for j in root.findall("junction")]
    return roads, junctions


def xodr_expectation(roads, junctions):
    """Nodes and signalised nodes SUMO should build for the file, by its own declarations:
    one per <junction>, one per road end linked to nothing (SUMO's '<road>.begin/.end'), one per
    direct road-to-road link; signalised: junctions reached by a road carrying a traffic light
    (dynamic="yes" or type 1000001: what netconvert 1.15 turns into a traffic light)."""
    nodes = len(junctions)
    pairs = set()
    signalised = set()
    for rid, r in roads.items():
        if r["junction"] != "-1":
            if any(light for light, _, _ in r["signals"]):
                signalised.add(r["junction"])
            continue
        for kind in ("predecessor", "successor"):
            end = r["ends"].get(kind)
            if end is None:
                nodes += 1
            elif end[0] == "road" and roads.get(end[1], {}).get("junction", "-1") == "-1":
                pairs.add(tuple(sorted((rid, end[1]))))
        for light, orientation, _ in r["signals"]:
            if not light:
                continue
            kind = "successor" if orientation == "+" else "predecessor"
            end = r["ends"].get(kind)
            if end is not None and end[0] == "junction":
                signalised.add(end[1])
    return nodes + len(pairs), len(signalised)


# ---------------------------------------------------------------------------------------------
# The SUMO network.
# ---------------------------------------------------------------------------------------------

def parse_shape(text):
    pts = []
    for p in text.split():
        c = [float(v) for v in p.split(",")]
        pts.append((c[0], c[1], c[2] if len(c) > 2 else 0.0))
    return pts


def read_net(path):
    root = ET.parse(path).getroot()
    junctions = [(j.get("id"), j.get("type")) for j in root.findall("junction")]
    tl_logics = len(root.findall("tlLogic"))
    lanes_by_orig = {}  # "ROAD_LANEID" -> [(edge id, lane index, length, shape)]
    edges = {}
    neighbours = {}  # node -> the roads (edge ids less direction and section) that touch it
    for e in root.findall("edge"):
        if e.get("function") == "internal":
            continue
        lanes = e.findall("lane")
        edges[e.get("id")] = len(lanes)
        a, b = e.get("from"), e.get("to")
        # netconvert names an OpenDRIVE road's edges "ROAD" and "-ROAD" (".S" per lane section);
        # two roads between the same two nodes (a loop) are two ways, so roads are counted,
        # not neighbour nodes.
        way = re.sub(r"\.\d+(\.\d+)?$", "", e.get("id").lstrip("-"))
        if a is not None and b is not None and a != b:
            neighbours.setdefault(a, set()).add(way)
            neighbours.setdefault(b, set()).add(way)
        for l in lanes:
            orig = None
            for p in l.findall("param"):
                if p.get("key") == "origId":
                    orig = p.get("value")
            entry = (e.get("id"), int(l.get("index")), float(l.get("length")),
                     parse_shape(l.get("shape")))
            if orig is not None:
                lanes_by_orig.setdefault(orig, []).append(entry)
    degree = {j: len(n) for j, n in neighbours.items()}
    return junctions, tl_logics, lanes_by_orig, edges, degree


def count_junctions(junctions, road_ids):
    """Real nodes of the network. Left out, with the reason:
    - type "internal": a waiting position inside a junction (left turners), not a node;
    - ids '<road>.<s>' of a road of the file: netconvert splits a road at each lane section
      after the first with a node of its own; a road of ours is one section, not a junction.
    Road ends linked to nothing ('<road>.begin'/'.end') are counted (a dead end of ours that the
    file left unlinked is still a node) but reported apart."""
    counted, by_type, unlinked, splits = 0, {}, 0, 0
    for jid, jtype in junctions:
        if jtype == "internal":
            continue
        m = re.fullmatch(r"(.+)\.(begin|end|\d+(\.\d+)?)", jid)
        if m and m.group(1) in road_ids and m.group(2) not in ("begin", "end"):
            splits += 1
            continue
        if m and m.group(1) in road_ids:
            unlinked += 1
        counted += 1
        by_type[jtype] = by_type.get(jtype, 0) + 1
    return counted, by_type, unlinked, splits


# ---------------------------------------------------------------------------------------------
# Trips and simulation.
# ---------------------------------------------------------------------------------------------

def simulate(args, net, env, work):
    tools = os.path.join(env.get("SUMO_HOME", "/usr/share/sumo"), "tools")
    trips = os.path.join(work, "trips.trips.xml")
    # 3x the trips asked for, departing one a second, validated by duarouter (--validate drops
    # unroutable ones); the first `--trips` that remain are driven. The unroutable fraction is
    # reported: a large one means the connections are poor.
    period = 1.0
    cmd = [sys.executable, os.path.join(tools, "randomTrips.py"), "-n", net, "-o", trips,
           "-r", os.path.join(work, "routes.rou.xml"),
           "--seed", str(args.seed), "-b", "0", "-e", str(3 * args.trips * period),
           "-p", str(period), "--min-distance", str(args.min_distance), "--validate",
           "--vehicle-class", "passenger", "--prefix", "t"]
    if args.allow_fringe:
        cmd.append("--allow-fringe")
    code, out = run(cmd, os.path.join(work, "randomTrips.log"), env)
    if code != 0 or not os.path.exists(trips):
        return {"error": "randomTrips.py failed (exit %d): %s" % (code, out.strip()[-500:])}
    tree = ET.parse(trips)
    root = tree.getroot()
    kept = [t for t in root if t.tag in ("trip", "vehicle")]
    generated = 3 * args.trips
    routable = len(kept)
    for t in kept[args.trips:]:
        root.remove(t)
    tree.write(trips)

    tripinfo = os.path.join(work, "tripinfo.xml")
    stats = os.path.join(work, "statistics.xml")
    # --time-to-teleport 300: SUMO's default, stated: a vehicle that cannot move for 300 s (a
    # deadlock) is teleported ahead along its route; teleports are reported, and a teleported
    # vehicle that reaches its destination counts as arrived. --end caps the run.
    cmd = ["sumo", "-n", net, "-r", trips, "--begin", "0", "--end", str(args.end),
           "--seed", str(args.seed), "--no-step-log", "true", "--duration-log.statistics", "true",
           "--time-to-teleport", str(args.time_to_teleport), "--statistic-output", stats,
           "--tripinfo-output", tripinfo, "--no-warnings", "false"]
    code, out = run(cmd, os.path.join(work, "sumo.log"), env)
    result = {"requested": args.trips, "generated": generated, "routable": routable,
              "unroutable_fraction": round(1.0 - routable / generated, 4),
              "simulated": min(routable, args.trips), "sumo_exit": code,
              "sumo_errors": error_lines(out)[:10], "sumo_warnings": warning_groups(out)[:15]}
    if code != 0 or not os.path.exists(stats):
        result["error"] = "sumo failed (exit %d)" % code
        return result
    s = ET.parse(stats).getroot()
    veh = s.find("vehicles")
    tele = s.find("teleports")
    result["inserted"] = int(veh.get("inserted")) if veh is not None else None
    result["teleports"] = int(tele.get("total")) if tele is not None else None
    result["teleports_by_cause"] = {k: int(v) for k, v in (tele.attrib.items() if tele is not None
                                                          else []) if k != "total"}
    arrived = sum(1 for _ in ET.parse(tripinfo).getroot().iter("tripinfo"))
    result["arrived"] = arrived
    result["arrived_ratio"] = arrived / args.trips
    return result


# ---------------------------------------------------------------------------------------------
# Lanes: ours against SUMO's.
# ---------------------------------------------------------------------------------------------

def length2d(pts):
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))


def length3d(pts):
    return sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))


def project(pts, cum, p, near=None):
    """(arc length along pts, distance, segment) of the point of polyline pts (2D) nearest to p.
    With `near` (a segment index) it searches a window of segments from there first and the
    whole line only when nothing in the window lies within 1 m: SUMO's points run along ours in
    order, so this keeps a city's thousands of lanes fast without missing the true nearest."""
    def search(lo, hi):
        best = (0.0, float("inf"), lo)
        for i in range(lo, hi):
            ax, ay = pts[i][0], pts[i][1]
            dx, dy = pts[i + 1][0] - ax, pts[i + 1][1] - ay
            seg2 = dx * dx + dy * dy
            t = 0.0 if seg2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) /
                                                   seg2))
            d = math.hypot(ax + t * dx - p[0], ay + t * dy - p[1])
            if d < best[1]:
                best = (cum[i] + t * math.sqrt(seg2), d, i)
        return best
    n = len(pts) - 1
    if near is not None:
        best = search(max(0, near - 2), min(n, near + 8))
        if best[1] <= 1.0:
            return best
    return search(0, n)


def sumo_lane_chain(entries, lane_id):
    """The SUMO lanes one OpenDRIVE lane became, in driving order: one per lane section (edge
    '-ROAD.S' / 'ROAD.S' or '-ROAD' / 'ROAD' for a single section). Right lanes (negative ids)
    drive along s, left lanes against it."""
    def s_of(entry):
        m = re.fullmatch(r"-?[^.]+(?:\.(\d+(?:\.\d+)?))?", entry[0])
        return float(m.group(1)) if m and m.group(1) else 0.0
    return sorted(entries, key=s_of, reverse=lane_id > 0)


def pct(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def summary_of(values):
    if not values:
        return {"max": None, "median": None, "p95": None}
    return {"max": round(max(values), 4), "median": round(statistics.median(values), 4),
            "p95": round(pct(values, 0.95), 4)}


def compare_lanes(city_json, lanes_json, lanes_by_orig, min_length, lateral_tolerance):
    """Every vehicle lane of ours on a road against SUMO's.

    Our lane points run over the trimmed section: from where the junction's connecting roads end
    to where the next ones begin. netconvert cuts each edge again where it overlaps its node's
    shape (the polygon it builds around the incoming lane ends), so a SUMO lane is ours less a
    piece at either end; comparing raw end points or lengths would mix that cut with geometry
    errors. So, per lane:
      lateral  how far SUMO's shape points stray sideways from our centre line (max): the
               geometry, lane offsets and widths as the writer encoded them; tight tolerance;
      trim     arc length along our lane from our start to SUMO's start, and from SUMO's end to
               our end (>= 0 when SUMO only cut): the junction cut, looser tolerance;
      length   SUMO's length against ours minus both trims: curve sampling and elevation.
    Lanes shorter than min_length are reported apart and held to no tolerance: when two of our
    junctions are a few metres apart SUMO's node polygons cover the whole section and netconvert
    rebuilds the edge between them (the default city: sections of 1.8-4.6 m came out shifted up
    to 5 m along their direction).
    Raw end point distances and length differences are reported too."""
    ours = {l["id"]: l for l in lanes_json["lanes"]}
    lane_map = {m["lane"]: (m["road"], m["lane_id"]) for m in city_json["lanes"]}
    rows = []
    missing, index_mismatch, not_mapped = [], 0, 0
    for lid, l in sorted(ours.items()):
        if "vehicle" not in l["tags"] or l["section"] < 0 or "intersection" in l["tags"]:
            continue
        if lid not in lane_map:
            not_mapped += 1
            continue
        road, odr_lane = lane_map[lid]
        entries = lanes_by_orig.get("%s_%d" % (road, odr_lane))
        if not entries:
            missing.append(lid)
            continue
        chain = sumo_lane_chain(entries, odr_lane)
        if chain[0][1] != l["lane_index"]:
            index_mismatch += 1
        shape = [p for e in chain for p in e[3]]
        # The shape's own length: netconvert's length attribute keeps the road's length from the
        # file less its junction cut by its own rule (67.06 m for a 68.14 m shape, road 320).
        sumo_len = length3d(shape) if any(len(p) > 2 for p in shape) else length2d(shape)
        pts = l["points"]
        cum = [0.0]
        for a, b in zip(pts, pts[1:]):
            cum.append(cum[-1] + math.hypot(b[0] - a[0], b[1] - a[1]))
        # SUMO starts (ends) an edge at its node's position when that lies beyond the road's
        # end: a dead end whose turnaround loop bulges past the road puts the node there. Those
        # points project onto our end point from off the line: the extension, not the lateral.
        inside, ext = [], [0.0, 0.0]
        seg = None
        for p in shape:
            s, d, seg = project(pts, cum, p, seg)
            if d > 0.05 and (s <= 1e-6 or s >= cum[-1] - 1e-6):
                end = 0 if s <= 1e-6 else 1
                ext[end] = max(ext[end], d)
                continue
            inside.append((p, s, d))
        if not inside:
            inside = [(p, project(pts, cum, p)[0], project(pts, cum, p)[1]) for p in shape]
        # A lane that runs on past our end was not cut there.
        s0 = 0.0 if ext[0] > 0.0 else inside[0][1]
        s1 = cum[-1] if ext[1] > 0.0 else inside[-1][1]
        lateral = max(d for _, _, d in inside)
        # How far past its tolerance the worst point strays (<= 0: within it).
        lateral_excess = lateral - lateral_tolerance
        sumo_len -= ext[0] + ext[1]
        has_z = any(abs(p[2]) > 1e-9 for p in shape)
        ours_len = length3d(pts) if has_z else length2d(pts)
        trimmed = ours_len * (s1 - s0) / cum[-1] if cum[-1] > 0 else 0.0
        rows.append({
            "lane": lid, "sumo": "%s_%d" % (chain[0][0], chain[0][1]),
            "start_dist": math.hypot(shape[0][0] - pts[0][0], shape[0][1] - pts[0][1]),
            "end_dist": math.hypot(shape[-1][0] - pts[-1][0], shape[-1][1] - pts[-1][1]),
            "length_diff": abs(sumo_len - l["length_m"]),
            "trim_start": s0, "trim_end": cum[-1] - s1, "lateral": lateral,
            "lateral_excess": lateral_excess,
            "extend_start": ext[0], "extend_end": ext[1],
            "length_after_trim": abs(sumo_len - trimmed), "ours_length": l["length_m"]})
    short = [r for r in rows if r["ours_length"] < min_length]
    rows = [r for r in rows if r["ours_length"] >= min_length]
    # Lanes SUMO's junction polygons swallowed whole (between two junctions closer than their
    # polygons reach): nothing of our geometry is left in SUMO's lane to compare.
    swallowed = [r for r in rows if r["trim_start"] + r["trim_end"] >= r["ours_length"] - 0.5]
    rows = [r for r in rows if r["trim_start"] + r["trim_end"] < r["ours_length"] - 0.5]
    out = {"compared": len(rows), "short_lanes_not_held": len(short),
           "short_lanes_lateral_max": round(max((r["lateral"] for r in short), default=0), 3),
           "swallowed_by_sumo_junctions": len(swallowed),
           "swallowed_examples": [r["sumo"] for r in swallowed[:10]],
           "not_in_lane_map": not_mapped, "missing_in_net": len(missing),
           "missing_examples": missing[:10], "lane_index_mismatches": index_mismatch}
    for key in ("start_dist", "end_dist", "length_diff", "trim_start", "trim_end",
                "extend_start", "extend_end", "lateral", "lateral_excess", "length_after_trim"):
        out[key] = summary_of([r[key] for r in rows])
    out["worst_lateral"] = sorted(rows, key=lambda r: -r["lateral_excess"])[:5]
    out["worst_trim"] = sorted(rows, key=lambda r: -max(r["trim_start"], r["trim_end"]))[:5]
    for r in out["worst_lateral"] + out["worst_trim"]:
        for k, v in r.items():
            if isinstance(v, float):
                r[k] = round(v, 3)
    return out


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("xodr")
    ap.add_argument("--city-json", help="our side file DIR/opendrive/city.json (lane map)")
    ap.add_argument("--lanes-json", help="our DIR/lanes.json")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--trips", type=int, default=300)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--min-distance", type=float, default=300.0,
                    help="straight-line metres between a trip's start and end edges")
    ap.add_argument("--end", type=float, default=3600.0, help="simulation end, s")
    ap.add_argument("--time-to-teleport", type=float, default=300.0)
    ap.add_argument("--junction-tolerance", type=float, default=0.02)
    ap.add_argument("--min-arrived", type=float, default=0.9)
    ap.add_argument("--lateral-tolerance", type=float, default=0.05,
                    help="max m SUMO's lane shape may stray sideways from ours (it samples "
                         "the map's arcs every 0.5 m: the default city measured 1.6 cm)")
    ap.add_argument("--trim-tolerance", type=float, default=10.0,
                    help="max m SUMO may cut off (or add to) either end of a lane at its "
                         "junction: netconvert builds its own junction polygons round the lane "
                         "ends, larger than ours where wide roads meet at a sharp angle")
    ap.add_argument("--length-tolerance", type=float, default=1.0,
                    help="max m between SUMO's lane length and ours less the cut ends (its cut "
                         "ends land on its 0.5 m curve sampling: the default city measured "
                         "median 6 mm, p95 0.50 m, max 0.52 m)")
    ap.add_argument("--min-lane-length", type=float, default=10.0,
                    help="our lanes shorter than this (m) are reported, not held to tolerances")
    ap.add_argument("--no-sim", action="store_true", help="skip trips and simulation")
    ap.add_argument("--allow-fringe", action="store_true",
                    help="trips may start on edges that only leave the network (a lone road)")
    ap.add_argument("--netconvert-option", action="append", default=[],
                    help="extra netconvert argument (repeat)")
    args = ap.parse_args()

    for tool in ("netconvert", "sumo", "duarouter"):
        if shutil.which(tool) is None:
            print(json.dumps({"ok": False, "failed": ["%s not installed" % tool]}))
            return 2
    os.makedirs(args.work_dir, exist_ok=True)
    env = sumo_env()
    summary = {"xodr": os.path.abspath(args.xodr), "failed": []}
    failed = summary["failed"]

    # 1. netconvert.
    net = os.path.join(args.work_dir, "net.net.xml")
    cmd = ["netconvert", "--opendrive-files", args.xodr, "-o", net] + NETCONVERT_OPTIONS + \
        args.netconvert_option
    code, out = run(cmd, os.path.join(args.work_dir, "netconvert.log"), env)
    errors = error_lines(out)
    groups = warning_groups(out)
    summary["netconvert"] = {"exit": code, "errors": errors[:20],
                             "warnings": sum(g["count"] for g in groups),
                             "warning_groups": groups[:20], "options": NETCONVERT_OPTIONS}
    if code != 0 or errors or not os.path.exists(net):
        failed.append("netconvert: exit %d, %d error lines" % (code, len(errors)))
        summary["ok"] = False
        print(json.dumps(summary, indent=1))
        return 1
    log("netconvert: %d warnings" % summary["netconvert"]["warnings"])

    # 2. Junctions.
    roads, xodr_junctions = read_xodr(args.xodr)
    junctions, tl_logics, lanes_by_orig, edges, degree = read_net(net)
    # Junctions proper: nodes where three or more ways meet. netconvert keeps a node at every
    # OpenDRIVE junction, but may fold a bend between two roads (two ways) into one edge, and
    # makes its own dead-end nodes: those are counted above, compared only here.
    sumo_3way = sum(1 for jid, jtype in junctions
                    if jtype != "internal" and degree.get(jid, 0) >= 3)
    counted, by_type, unlinked, splits = count_junctions(junctions, set(roads))
    sumo_tls = by_type.get("traffic_light", 0) + by_type.get("traffic_light_right_on_red", 0) + \
        by_type.get("traffic_light_unregulated", 0)
    exp_nodes, exp_signals = xodr_expectation(roads, xodr_junctions)
    lanes_json = city_json = None
    if args.lanes_json:
        with open(args.lanes_json, encoding="utf-8") as f:
            lanes_json = json.load(f)
        ours_nodes = len(lanes_json["intersections"])
        ours_3way = sum(1 for x in lanes_json["intersections"] if len(x.get("legs", [])) >= 3)
        ours_signals = len(lanes_json.get("signals", []))
        source = "lanes.json"
    else:
        ours_nodes, ours_signals, source = exp_nodes, exp_signals, "xodr"
        ours_3way = None
    summary["junctions"] = {
        "sumo": counted, "sumo_by_type": by_type, "sumo_unlinked_road_ends": unlinked,
        "sumo_lane_section_splits_excluded": splits,
        "sumo_internal_excluded": sum(1 for _, t in junctions if t == "internal"),
        "sumo_traffic_light": sumo_tls, "sumo_tl_logics": tl_logics,
        "ours_source": source, "ours": ours_nodes, "ours_signalised": ours_signals,
        "xodr_declared": exp_nodes, "xodr_declared_signalised": exp_signals,
        "xodr_roads": len(roads), "xodr_junction_elements": len(xodr_junctions),
        "sumo_edges": len(edges), "sumo_3way": sumo_3way, "ours_3way": ours_3way}
    if ours_3way is not None:
        if ours_3way > 0 and abs(sumo_3way - ours_3way) > args.junction_tolerance * ours_3way:
            failed.append("junctions (3+ ways): sumo %d vs ours %d (tolerance %g)" %
                          (sumo_3way, ours_3way, args.junction_tolerance))
    elif ours_nodes > 0 and abs(counted - ours_nodes) > args.junction_tolerance * ours_nodes:
        failed.append("junctions: sumo %d vs ours %d (tolerance %g)" %
                      (counted, ours_nodes, args.junction_tolerance))
    if sumo_tls != ours_signals:
        failed.append("signalised junctions: sumo %d vs ours %d" % (sumo_tls, ours_signals))
    if tl_logics != sumo_tls:
        failed.append("tlLogics %d != traffic_light junctions %d" % (tl_logics, sumo_tls))
    log("junctions: sumo %d (%d signalised), ours %d (%d signalised, from %s)" %
        (counted, sumo_tls, ours_nodes, ours_signals, source))

    # 3. Trips.
    if not args.no_sim:
        sim = simulate(args, net, env, args.work_dir)
        summary["simulation"] = sim
        if "error" in sim:
            failed.append("simulation: " + sim["error"])
        elif sim["arrived_ratio"] < args.min_arrived:
            failed.append("arrived %d of %d trips (%.3f < %g)" % (
                sim["arrived"], args.trips, sim["arrived_ratio"], args.min_arrived))
        if sim.get("arrived") is not None:
            log("simulation: inserted %s, arrived %d of %d, teleports %s" % (
                sim["inserted"], sim["arrived"], args.trips, sim["teleports"]))

    # 4. Lanes.
    if args.city_json and lanes_json is not None:
        with open(args.city_json, encoding="utf-8") as f:
            city_json = json.load(f)
        if city_json.get("format") != "cityforge-opendrive":
            failed.append("city.json: format %r, not cityforge-opendrive" % city_json.get("format"))
        summary["junctions"]["ours_plans_in_city_json"] = len(city_json.get("plans", []))
        lanes = compare_lanes(city_json, lanes_json, lanes_by_orig, args.min_lane_length,
                              args.lateral_tolerance)
        summary["lanes"] = lanes
        if lanes["compared"] == 0:
            failed.append("lanes: none compared")
        if lanes["missing_in_net"] or lanes["not_in_lane_map"]:
            failed.append("lanes: %d missing in the net, %d not in the lane map" % (
                lanes["missing_in_net"], lanes["not_in_lane_map"]))
        # Sideways: the tolerance everywhere (our lanes follow the same arcs as the map).
        for key, tol in (("lateral_excess", 0.0),
                         ("trim_start", args.trim_tolerance), ("trim_end", args.trim_tolerance),
                         ("extend_start", args.trim_tolerance),
                         ("extend_end", args.trim_tolerance),
                         ("length_after_trim", args.length_tolerance)):
            worst = lanes[key]["max"]
            if worst is not None and worst > tol:
                failed.append("lanes: %s max %.3f m > %g m" % (key, worst, tol))
        log("lanes: %d compared, lateral max %s, trims max %s/%s" % (
            lanes["compared"], lanes["lateral"]["max"], lanes["trim_start"]["max"],
            lanes["trim_end"]["max"]))
    elif args.city_json or args.lanes_json:
        failed.append("lanes: --city-json and --lanes-json go together")

    summary["ok"] = not failed
    print(json.dumps(summary, indent=1))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
