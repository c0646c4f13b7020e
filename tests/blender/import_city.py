# SPDX-License-Identifier: Apache-2.0
"""Imports a city.glb into Blender headless and checks what Blender made of it (issue 31).

Run inside Blender (3.4, Debian 12's package):

    blender -b --factory-startup --python-exit-code 1 --python tests/blender/import_city.py -- \
        CITY_GLB [--summary SUMMARY_JSON]

It reads the glb's own JSON for the expectations, imports the file with the glTF add-on
(bpy.ops.import_scene.gltf, default options), then checks:
- every glTF node became an object, and meshes with triangles arrived;
- every glTF material exists by name; each textured one has a Principled BSDF whose Base Color,
  Normal (through a Normal Map node) and Roughness / Metallic (through Separate Color) lead back
  to Image Texture nodes, and each image there has pixels (size > 0, has_data; base colour and
  normal images not one flat value);
- KHR_texture_transform became a Mapping node in front of each image with the glTF scale;
- every mesh that carries a textured material has a UV layer, and every facade wall mesh a
  second one (TEXCOORD_1);
- instances: objects sharing one mesh datablock (`--instances nodes` writes a node per instance
  over shared meshes; Blender makes linked duplicates of them).
It prints `BLENDER_IMPORT_SUMMARY {json}`, then `BLENDER_IMPORT_OK` and exits 0, or
`BLENDER_IMPORT_FAIL: reason` per failed check and exits 1 (os._exit: Blender would otherwise
carry on after a Python error and exit 0).
"""

import json
import os
import struct
import sys
import time
import traceback


def fail_hard(message):
    print("BLENDER_IMPORT_FAIL: " + message, flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if not args:
        fail_hard("usage: blender -b --python import_city.py -- CITY_GLB [--summary FILE]")
    glb = args[0]
    summary = None
    i = 1
    while i < len(args):
        if args[i] == "--summary" and i + 1 < len(args):
            summary = args[i + 1]
            i += 2
        else:
            fail_hard("unknown argument " + repr(args[i]))
    return glb, summary


def read_gltf_json(path):
    """The JSON chunk of a glb (glTF 2.0 binary: 12-byte header, then chunks)."""
    with open(path, "rb") as f:
        head = f.read(20)
        if len(head) < 20 or head[:4] != b"glTF":
            fail_hard(path + ": not a glb (expected the magic 'glTF')")
        length, kind = struct.unpack("<II", head[12:20])
        if kind != 0x4E4F534A:
            fail_hard(path + ": first chunk is not JSON")
        return json.loads(f.read(length))


def texture_scale(info):
    """The KHR_texture_transform scale of a textureInfo, or None without the extension."""
    ext = (info or {}).get("extensions", {}).get("KHR_texture_transform")
    if ext is None:
        return None
    return list(ext.get("scale", [1.0, 1.0]))


def upstream_nodes(socket, seen=None):
    """Every node that feeds `socket`, through any chain of links."""
    seen = set() if seen is None else seen
    found = []
    for link in socket.links:
        node = link.from_node
        if node.name in seen:
            continue
        seen.add(node.name)
        found.append(node)
        for s in node.inputs:
            found.extend(upstream_nodes(s, seen))
    return found


def image_ok(image, checked, varied=False):
    """(ok, why): the image has pixels and, when `varied`, they are not all one value (our
    metallic-roughness images of grass, soil and sand are flat white by design)."""
    if image is None:
        return False, "Image Texture node without an image"
    if (image.name, varied) in checked:
        return checked[(image.name, varied)]
    import numpy as np
    w, h = image.size
    result = (True, "")
    if w <= 0 or h <= 0:
        result = (False, "image %s has size %dx%d" % (image.name, w, h))
    else:
        px = np.empty(w * h * image.channels, dtype=np.float32)
        image.pixels.foreach_get(px)
        if not image.has_data:
            result = (False, "image %s has no data after reading its pixels" % image.name)
        elif varied and float(px.max() - px.min()) <= 0.0:
            result = (False, "image %s is one flat value %g" % (image.name, float(px[0])))
    checked[(image.name, varied)] = result
    return result


def main():
    glb, summary_path = parse_args(sys.argv)
    gltf = read_gltf_json(glb)

    import bpy
    import numpy
    # Blender 3.4's glTF importer (add-on 3.4.50) uses numpy.bool, which numpy 1.24 (Debian
    # 12's python3-numpy) removed: with the default shading ("Use Normal Data") every mesh
    # import fails with "module 'numpy' has no attribute 'bool'". Fixed in Blender 3.5
    # (KhronosGroup/glTF-Blender-IO#1831); put the alias back for 3.4.
    if "bool" not in numpy.__dict__:
        numpy.bool = bool
        numpy_note = "numpy %s: numpy.bool alias restored for Blender 3.4's importer" % (
            numpy.__version__)
    else:
        numpy_note = "numpy %s" % numpy.__version__

    bpy.ops.wm.read_factory_settings(use_empty=True)
    for lib in (bpy.data.objects, bpy.data.meshes, bpy.data.materials, bpy.data.images):
        for item in list(lib):
            lib.remove(item)

    # The importer logs at bpy.app.debug_value: 2 shows its warnings and errors (0, the
    # default, only critical ones), which the driver reports.
    bpy.app.debug_value = 2
    t0 = time.perf_counter()
    try:
        result = bpy.ops.import_scene.gltf(filepath=glb)
    except Exception as e:  # the importer's errors arrive as RuntimeError
        traceback.print_exc()
        fail_hard("bpy.ops.import_scene.gltf raised: " + str(e).strip().splitlines()[-1])
    import_s = time.perf_counter() - t0
    if "FINISHED" not in result:
        fail_hard("bpy.ops.import_scene.gltf returned " + str(result))

    failures = []

    # 1. Objects and meshes.
    objects = list(bpy.data.objects)
    mesh_objects = [o for o in objects if o.type == "MESH"]
    gltf_nodes = gltf.get("nodes", [])
    gltf_mesh_nodes = sum(1 for n in gltf_nodes if "mesh" in n)
    tris_per_mesh = {}
    for me in bpy.data.meshes:
        me.calc_loop_triangles()
        tris_per_mesh[me.name] = len(me.loop_triangles)
    triangles = sum(tris_per_mesh[o.data.name] for o in mesh_objects)
    if not mesh_objects:
        failures.append("no mesh objects imported")
    if len(objects) != len(gltf_nodes):
        failures.append("%d objects for %d glTF nodes" % (len(objects), len(gltf_nodes)))
    if len(mesh_objects) != gltf_mesh_nodes:
        failures.append("%d mesh objects for %d glTF nodes with a mesh" %
                        (len(mesh_objects), gltf_mesh_nodes))
    if triangles <= 0:
        failures.append("no triangles")

    # 2. Materials, their images and node links.
    gltf_materials = gltf.get("materials", [])
    textured_expected = []
    for m in gltf_materials:
        pbr = m.get("pbrMetallicRoughness", {})
        if "baseColorTexture" in pbr:
            textured_expected.append(m)
    checked_images = {}
    textured_ok = 0
    mapping_nodes = 0
    mapping_scales = set()
    for m in gltf_materials:
        name = m.get("name", "")
        mat = bpy.data.materials.get(name)
        if mat is None:
            failures.append("material %r missing in Blender" % name)
            continue
        if m not in textured_expected:
            continue
        where = "material %r" % name
        if not mat.use_nodes or mat.node_tree is None:
            failures.append(where + ": no node tree")
            continue
        bsdfs = [n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"]
        if len(bsdfs) != 1:
            failures.append(where + ": %d Principled BSDF nodes" % len(bsdfs))
            continue
        bsdf = bsdfs[0]
        pbr = m["pbrMetallicRoughness"]
        wanted = [("Base Color", pbr.get("baseColorTexture"), None)]
        if "normalTexture" in m:
            wanted.append(("Normal", m["normalTexture"], "NORMAL_MAP"))
        if "metallicRoughnessTexture" in pbr:
            wanted.append(("Roughness", pbr["metallicRoughnessTexture"], "SEPARATE_COLOR"))
        ok = True
        for socket_name, info, via in wanted:
            socket = bsdf.inputs[socket_name]
            if not socket.is_linked:
                failures.append("%s: Principled BSDF %s is not linked" % (where, socket_name))
                ok = False
                continue
            ups = upstream_nodes(socket)
            if via and not any(n.type == via for n in ups):
                failures.append("%s: %s does not come through a %s node" %
                                (where, socket_name, via))
                ok = False
            images = [n for n in ups if n.type == "TEX_IMAGE"]
            if not images:
                failures.append("%s: %s is not fed by an Image Texture" % (where, socket_name))
                ok = False
                continue
            for tex in images:
                good, why = image_ok(tex.image, checked_images, varied=via != "SEPARATE_COLOR")
                if not good:
                    failures.append("%s: %s: %s" % (where, socket_name, why))
                    ok = False
                scale = texture_scale(info)
                if scale is None:
                    continue
                maps = [n for n in upstream_nodes(tex.inputs["Vector"]) if n.type == "MAPPING"]
                if len(maps) != 1:
                    failures.append("%s: %s image has %d Mapping nodes for KHR_texture_transform"
                                    % (where, socket_name, len(maps)))
                    ok = False
                    continue
                got = list(maps[0].inputs["Scale"].default_value)[:2]
                if any(abs(g - s) > 1e-6 for g, s in zip(got, scale)):
                    failures.append("%s: %s Mapping scale %s, glTF scale %s" %
                                    (where, socket_name, got, scale))
                    ok = False
                mapping_nodes += 1
                mapping_scales.add(round(got[0], 6))
        textured_ok += 1 if ok else 0
    if not textured_expected:
        failures.append("the glb has no textured material (export.textures \"none\"?)")

    images = [i for i in bpy.data.images if i.type == "IMAGE"]
    images_with_pixels = sum(1 for i in images if image_ok(i, checked_images)[0])
    if len(images) != len(gltf.get("images", [])):
        failures.append("%d images in Blender for %d in the glb" %
                        (len(images), len(gltf.get("images", []))))

    # 3. UV layers on the meshes that carry a textured material.
    textured_names = {m.get("name") for m in textured_expected}
    meshes_textured = [me for me in bpy.data.meshes
                       if any(s and s.name in textured_names for s in me.materials)]
    no_uv = [me.name for me in meshes_textured if len(me.uv_layers) == 0]
    if no_uv:
        failures.append("%d textured meshes without a UV layer (first: %s)" %
                        (len(no_uv), no_uv[0]))
    # The facade modules' TEXCOORD_1 (per-module coordinates) as a second UV layer.
    wall_names = {m.get("name") for m in gltf.get("materials", [])
                  if m.get("name", "").endswith(".wall")}
    wall_meshes = [me for me in bpy.data.meshes
                   if any(s and s.name in wall_names for s in me.materials)]
    two_uv = [me for me in wall_meshes if len(me.uv_layers) >= 2]
    if wall_meshes and len(two_uv) != len(wall_meshes):
        failures.append("%d of %d facade wall meshes without a second UV layer (TEXCOORD_1)" %
                        (len(wall_meshes) - len(two_uv), len(wall_meshes)))
    uv_names = sorted({layer.name for me in two_uv for layer in me.uv_layers})

    # 4. Instances and hierarchy.
    users = {}
    for o in mesh_objects:
        users[o.data.name] = users.get(o.data.name, 0) + 1
    shared_meshes = sum(1 for n in users.values() if n > 1)
    instanced_objects = sum(n for n in users.values() if n > 1)
    with_parent = sum(1 for o in objects if o.parent is not None)
    if any("EXT_mesh_gpu_instancing" in n.get("extensions", {}) for n in gltf_nodes):
        failures.append("the glb uses EXT_mesh_gpu_instancing, which Blender 3.4 ignores "
                        "(write it with --instances nodes or bake)")

    summary = {
        "file": os.path.abspath(glb),
        "wall_meshes_with_two_uv_layers": len(two_uv),
        "uv_layer_names": uv_names,
        "file_mb": round(os.path.getsize(glb) / 1e6, 1),
        "blender": bpy.app.version_string,
        "gltf_addon": ".".join(str(v) for v in
                               __import__("io_scene_gltf2").bl_info["version"]),
        "numpy": numpy_note,
        "import_s": round(import_s, 2),
        "gltf_nodes": len(gltf_nodes),
        "objects": len(objects),
        "mesh_objects": len(mesh_objects),
        "empties": sum(1 for o in objects if o.type == "EMPTY"),
        "objects_with_parent": with_parent,
        "mesh_datablocks": len(bpy.data.meshes),
        "gltf_meshes": len(gltf.get("meshes", [])),
        "shared_meshes": shared_meshes,
        "instanced_objects": instanced_objects,
        "triangles": triangles,
        "materials": len(bpy.data.materials),
        "gltf_materials": len(gltf_materials),
        "textured_materials_expected": len(textured_expected),
        "textured_materials_ok": textured_ok,
        "images": len(images),
        "images_with_pixels": images_with_pixels,
        "image_sizes": sorted({"%dx%d" % tuple(i.size) for i in images}),
        "mapping_nodes": mapping_nodes,
        "mapping_scales": sorted(mapping_scales),
        "textured_meshes": len(meshes_textured),
        "textured_meshes_without_uv": len(no_uv),
        "failures": failures,
    }
    text = json.dumps(summary, sort_keys=True)
    print("BLENDER_IMPORT_SUMMARY " + text, flush=True)
    if summary_path:
        with open(summary_path, "w") as f:
            f.write(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    if failures:
        for f in failures:
            print("BLENDER_IMPORT_FAIL: " + f, flush=True)
        sys.stdout.flush()
        os._exit(1)
    print("BLENDER_IMPORT_OK", flush=True)
    sys.stdout.flush()
    os._exit(0)


try:
    main()
except SystemExit:
    raise
except BaseException:  # any bug in this script is a failure, not Blender's "exit 0"
    traceback.print_exc()
    fail_hard("the check script raised (traceback above)")
