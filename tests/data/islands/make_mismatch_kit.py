#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes mismatch_kit.glb: a small hand-made island tile kit with deliberate mistakes, for
tests/islands/kit_test.cpp. Written by hand (not by cityforge) so the reader is tested on a file
our writer did not make: uint16 indices, shared vertices, a parent node without extras, Blender's
".001" material suffix.

  sea, sky             water and air (no mesh)
  floor                a flat floor: four quads on the (0, 0.5, 1) lattice at w = 0
  floor_shifted        the same, but the midpoint of side 2 (u 0.5, v 1) was snapped to u 0.4:
                       side 2's profile matches no tile's side
  cliff_wrong_corner   declares corners 2211 (solid at corners 0 and 1) but is a flat floor:
                       corners 0 and 1 contradict the mesh

Coordinates: unit (u, v, w) is glTF (u, w, -v). Run: python3 make_mismatch_kit.py
"""
import json
import struct
from pathlib import Path


def floor(shift=0.0):
    pts, index = [], {}
    def v(u, vv):
        if (u, vv) == (0.5, 1.0):
            u += shift
        key = (u, vv)
        if key not in index:
            index[key] = len(pts)
            pts.append((u, 0.0, -vv))
        return index[key]
    tris = []
    for u0, u1 in ((0.0, 0.5), (0.5, 1.0)):
        for v0, v1 in ((0.0, 0.5), (0.5, 1.0)):
            a, b, c, d = v(u0, v0), v(u1, v0), v(u1, v1), v(u0, v1)
            tris += [a, b, c, a, c, d]
    return pts, tris


def main():
    tiles = [
        ("sea", {"kind": "water", "weight": 5}, None),
        ("sky", {"kind": "air", "weight": 5}, None),
        ("floor", {"kind": "ground", "corners": "1111", "weight": 10}, floor()),
        ("floor_shifted", {"kind": "ground", "corners": "1111"}, floor(-0.1)),
        ("cliff_wrong_corner", {"kind": "ground", "corners": "2211", "ground_level": 0}, floor()),
    ]
    gltf = {"asset": {"version": "2.0", "generator": "hand-made test kit"},
            "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "kit", "children": []}],
            "materials": [{"name": "grass.001"}],
            "meshes": [], "accessors": [], "bufferViews": [], "buffers": []}
    blob = bytearray()
    for name, extras, mesh in tiles:
        node = {"name": name, "extras": extras,
                "translation": [len(gltf["nodes"]) * 1.5, 0, 0]}
        if mesh:
            pts, tris = mesh
            pos = b"".join(struct.pack("<3f", *p) for p in pts)
            idx = b"".join(struct.pack("<H", i) for i in tris)
            for data, target in ((pos, 34962), (idx, 34963)):
                gltf["bufferViews"].append({"buffer": 0, "byteOffset": len(blob),
                                            "byteLength": len(data), "target": target})
                blob += data
                blob += b"\0" * (-len(blob) % 4)
            lo = [min(p[k] for p in pts) for k in range(3)]
            hi = [max(p[k] for p in pts) for k in range(3)]
            n = len(gltf["accessors"])
            gltf["accessors"] += [
                {"bufferView": len(gltf["bufferViews"]) - 2, "componentType": 5126,
                 "count": len(pts), "type": "VEC3", "min": lo, "max": hi},
                {"bufferView": len(gltf["bufferViews"]) - 1, "componentType": 5123,
                 "count": len(tris), "type": "SCALAR"}]
            node["mesh"] = len(gltf["meshes"])
            gltf["meshes"].append({"name": name, "primitives": [
                {"attributes": {"POSITION": n}, "indices": n + 1, "material": 0}]})
        gltf["nodes"][0]["children"].append(len(gltf["nodes"]))
        gltf["nodes"].append(node)
    gltf["buffers"].append({"byteLength": len(blob)})
    js = json.dumps(gltf, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    out = struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(blob))
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(blob), 0x004E4942) + bytes(blob)
    Path(__file__).with_name("mismatch_kit.glb").write_bytes(out)


if __name__ == "__main__":
    main()
