#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layering check of DESIGN.md, run by the test suite (ctest `layering`).

The modules and their order are the `cityforge_module(NAME DEPS ... PRIVATE_DEPS ...)` calls of
CMakeLists.txt, in file order. For every `#include "..."` in src/, include/, apps/, tests/ and
bench/ it fails on:
  - an include of a module that comes later in that order (against the pipeline order);
  - an include of a module that the including module's CMake target does not link directly
    (each target links exactly what it uses), and a linked module that is never included;
  - an include of another module's private headers (src/<module>/..., <module>/detail/...);
    tests/<module>/ may include their own module's private headers, nothing else may;
  - an include cycle between headers.
Exit 0 when clean, 1 with one line per finding ("file:line: what"), 2 on a usage error.

  python3 scripts/check_layering.py [--root DIR]
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
MODULE_CALL = re.compile(r"cityforge_module\(\s*([a-z_]+)((?:[^()]|\([^()]*\))*)\)", re.S)
# Targets that are not modules (third-party or CMake's own); everything cityforge_<x> is one.
CITYFORGE_TARGET = re.compile(r"\bcityforge_([a-z_]+)\b")


def parse_modules(cmake_text):
    """Returns [(module, set of direct module deps)] in declaration order."""
    modules = []
    for m in MODULE_CALL.finditer(cmake_text):
        name, args = m.group(1), m.group(2)
        deps = set(CITYFORGE_TARGET.findall(args)) - {"warnings"}
        modules.append((name, deps))
    return modules


def owner_of_include(inc, rel_dir, root, names, src_dirs):
    """(module, private, resolved path) for an include, resolved like the compiler does (the
    including folder, include/, src/, tests/); module None for headers outside src/ and include/
    (third-party, test fixtures)."""
    for cand in (os.path.join(rel_dir, inc), os.path.join("include", inc),
                 os.path.join("src", inc), os.path.join("tests", inc)):
        cand = os.path.normpath(cand)
        if not os.path.isfile(os.path.join(root, cand)):
            continue
        if cand.startswith("include/cityforge/"):
            parts = cand.split("/")
            name = parts[2]
            private = len(parts) > 4 and parts[3] == "detail"
            return (name if name in names else None), private, cand
        if cand.startswith("src/"):
            for d, n in src_dirs:
                if cand.startswith(d + "/"):
                    return n, True, cand
        return None, False, cand
    return None, False, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--print-deps", action="store_true",
                    help="print the modules each module includes (what its DEPS should be)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    try:
        cmake = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
    except OSError as e:
        print(f"check_layering: cannot read CMakeLists.txt: {e}", file=sys.stderr)
        return 2
    modules = parse_modules(cmake)
    if not modules:
        print("check_layering: no cityforge_module() calls in CMakeLists.txt", file=sys.stderr)
        return 2
    order = {name: i for i, (name, _) in enumerate(modules)}
    declared = dict(modules)
    names = set(order)
    # A module's sources: src/<name>/, except nested module folders, which belong to the
    # nested module ("src/export/gltf" for a module named by CITYFORGE_MODULE_DIR below).
    nested = dict(re.findall(r"set\(CITYFORGE_MODULE_DIR_([a-z_]+)\s+([^)\s]+)\)", cmake))
    src_dirs = sorted(((nested.get(n, f"src/{n}"), n) for n in names), key=lambda p: -len(p[0]))
    inc_dirs = {n: f"include/cityforge/{n}" for n in names}

    findings = []
    used = {n: set() for n in names}
    headers = {}  # header path (relative to root) -> list of (line, included header path)

    def module_of_file(rel):
        for d, n in src_dirs:
            if rel.startswith(d + "/"):
                return n, "src"
        for n, d in inc_dirs.items():
            if rel.startswith(d + "/"):
                # include/cityforge/export/gltf_builder.hpp may belong to a nested module.
                for nn, nd in nested.items():
                    base = os.path.basename(nd)
                    if rel.startswith(f"include/cityforge/{n}/{base}"):
                        return nn, "include"
                return n, "include"
        parts = rel.split("/")
        if parts[0] == "tests" and len(parts) > 2:
            return parts[1], "tests"
        return None, parts[0]

    for top in ("src", "include", "apps", "tests", "bench"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            if "node_modules" in dirpath:
                continue
            for f in sorted(files):
                if not f.endswith((".cpp", ".hpp", ".h", ".cc", ".in")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                mod, kind = module_of_file(rel)
                try:
                    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
                except OSError as e:
                    findings.append(f"{rel}: cannot read: {e}")
                    continue
                incs = []
                for no, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    target, private, resolved = owner_of_include(
                        inc, os.path.dirname(rel), root, names, src_dirs)
                    if resolved is not None:
                        incs.append((no, resolved))
                    if target is None:
                        continue
                    where = f"{rel}:{no}"
                    if kind in ("src", "include") and mod is not None:
                        # Same-folder private headers of the own module are fine.
                        if target == mod:
                            continue
                        if private:
                            findings.append(f"{where}: includes \"{inc}\", a private header of "
                                            f"module {target} (only {target} may use it)")
                            continue
                        if order[target] > order[mod]:
                            findings.append(f"{where}: module {mod} includes \"{inc}\" of module "
                                            f"{target}, which comes after it in the module order")
                            continue
                        used[mod].add(target)
                        if target not in declared[mod] and not args.print_deps:
                            findings.append(f"{where}: module {mod} includes \"{inc}\" but its "
                                            f"CMake target does not link cityforge_{target}")
                    elif kind == "tests":
                        if private and target != mod:
                            findings.append(f"{where}: a test of {mod} includes \"{inc}\", a "
                                            f"private header of module {target}")
                    else:  # apps, bench
                        if private:
                            findings.append(f"{where}: includes \"{inc}\", a private header of "
                                            f"module {target} (use its public API)")
                if rel.endswith((".hpp", ".h")):
                    headers[rel] = incs

    if args.print_deps:
        for name, _ in modules:
            print(name + ": " + " ".join(f"cityforge_{d}" for d in sorted(used[name], key=order.get)))
        return 0
    for name, deps in modules:
        for d in sorted(deps - used[name]):
            if d in names:
                findings.append(f"CMakeLists.txt: cityforge_{name} links cityforge_{d} but no "
                                f"file of {name} includes a header of {d}")

    # Header include cycles (depth-first search with colours).
    colour = {}
    stack = []

    def visit(h):
        colour[h] = 1
        stack.append(h)
        for no, dep in headers.get(h, []):
            if dep not in headers:
                continue
            if colour.get(dep) == 1:
                cycle = stack[stack.index(dep):] + [dep]
                findings.append(f"{h}:{no}: include cycle: " + " -> ".join(cycle))
            elif colour.get(dep) is None:
                visit(dep)
        stack.pop()
        colour[h] = 2

    sys.setrecursionlimit(10000)
    for h in sorted(headers):
        if colour.get(h) is None:
            visit(h)

    for f in findings:
        print(f)
    if findings:
        print(f"check_layering: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    print(f"check_layering: {len(modules)} modules, layering clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
