#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Shows that scripts/check_layering.py fails where it must: a copy of the tree gets one
deliberately wrong include at a time (against the module order, another module's private
header, a module its target does not link, a header cycle) or a link nothing uses, and the check
must exit 1 naming the file and line. The real tree must be clean (exit 0).

  python3 tests/layering/check_layering_test.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(SRC, "scripts", "check_layering.py")
failures = []


def run(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def copy_tree(dst):
    for d in ("src", "include"):
        shutil.copytree(os.path.join(SRC, d), os.path.join(dst, d))
    shutil.copy(os.path.join(SRC, "CMakeLists.txt"), dst)


def prepend(path, line):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(line + "\n" + text)


def expect(name, mutate, needle):
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(tmp)
        where = mutate(tmp)
        code, out = run(tmp)
        if code != 1 or needle not in out or where not in out:
            failures.append(f"{name}: expected exit 1 with '{needle}' at {where}, got {code}:\n{out}")
        else:
            print(f"ok: {name}: {[l for l in out.splitlines() if where in l][0]}")


def first_cpp(tmp, module):
    d = os.path.join(tmp, "src", module)
    return sorted(f for f in os.listdir(d) if f.endswith(".cpp"))[0]


def against_order(tmp):
    f = first_cpp(tmp, "roads")
    prepend(os.path.join(tmp, "src", "roads", f), '#include "cityforge/pipeline/city_pipeline.hpp"')
    return f"src/roads/{f}:1"


def private_header(tmp):
    f = first_cpp(tmp, "dressing")
    prepend(os.path.join(tmp, "src", "dressing", f), '#include "buildings/detail/kit_modules.hpp"')
    return f"src/dressing/{f}:1"


def unlinked(tmp):
    # lots comes after terrain but does not link it.
    f = first_cpp(tmp, "lots")
    prepend(os.path.join(tmp, "src", "lots", f), '#include "cityforge/terrain/heightfield.hpp"')
    return f"src/lots/{f}:1"


def header_cycle(tmp):
    core = os.path.join(tmp, "include", "cityforge", "core")
    with open(os.path.join(core, "cycle_a.hpp"), "w") as f:
        f.write('#pragma once\n#include "cityforge/core/cycle_b.hpp"\n')
    with open(os.path.join(core, "cycle_b.hpp"), "w") as f:
        f.write('#pragma once\n#include "cityforge/core/cycle_a.hpp"\n')
    return "include/cityforge/core/cycle_"


def unused_link(tmp):
    path = os.path.join(tmp, "CMakeLists.txt")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("cityforge_module(terrain DEPS cityforge_core",
                        "cityforge_module(terrain DEPS cityforge_core cityforge_sim", 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return "cityforge_terrain links cityforge_sim"


code, out = run(SRC)
if code != 0:
    failures.append(f"the tree itself is not clean (exit {code}):\n{out}")
else:
    print("ok: " + out.strip())
expect("include against the module order", against_order, "comes after it")
expect("another module's private header", private_header, "private header of module buildings")
expect("a module the target does not link", unlinked, "does not link cityforge_terrain")
expect("a header include cycle", header_cycle, "include cycle")
expect("a link nothing uses", unused_link, "no file of terrain includes")

for f in failures:
    print("FAILED: " + f)
print(f"{5 + 1 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
