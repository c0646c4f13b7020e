#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what cityforge needs from Debian 12 packages, and only what is missing (idempotent).
# Works as root or through sudo. The glTF validator used by the tests comes from the npm
# registry, pinned by tools/gltf-validator/package-lock.json.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config      # build
  clang-format clang-tidy python3       # the format check in the tests, scripts/tidy.sh, the layering check
  clang                                 # libFuzzer + ASan/UBSan: the `fuzz` preset, bench/fuzz.sh
  nlohmann-json3-dev                    # JSON configs, GeoJSON, stats, glTF JSON
  libcli11-dev                          # command line
  libtbb-dev                            # oneTBB: parallel stages and loops
  libgeos-dev                           # GEOS: polygon booleans, buffers, triangulation, validity
  libtinygltf-dev libstb-dev            # tinygltf: glTF 2.0 writer / reader (stb is its dependency)
  libmeshoptimizer-dev                  # meshoptimizer: simplifies the HLOD stand-ins of 3D Tiles parents
  libboost-dev                          # Boost.Beast / Asio (header-only): `cityforge serve`
  libgtest-dev libgmock-dev             # tests
  libbenchmark-dev                      # benchmarks
  sumo                                  # netconvert + sumo: the SUMO export test drives the city
  sumo-tools                            # randomTrips.py for bench/traffic_vs_sumo.sh
  librecast-dev                         # Recast / DetourCrowd for bench/crowd_vs_detour (optional)
  libosmium2-dev                        # libosmium: OSM XML / PBF reader for `cityforge import`
  libproj-dev                           # PROJ: WGS84 <-> local metric frame for imported places
  libgdal-dev                           # GDAL: DEM readers (GeoTIFF, SRTM .hgt, ArcInfo ASCII), warping
  openmpi-bin libopenmpi-dev            # MPI: `mpirun -np N cityforge generate|import|simulate`
  libmetis-dev                          # METIS: the lane graph cut into one part per rank (simulate)
  libpng-dev                            # libpng: the procedural textures written as PNG in city.glb
  libbz2-dev zlib1g-dev libexpat1-dev   # libosmium's XML / PBF codecs; expat also reads .xodr in the tests
  libxml2-utils python3-xmlschema       # xmllint (XSD 1.0) and xmlschema (XSD 1.1): the OpenDRIVE
                                        # 1.4 / 1.8 maps validated against the ASAM schemas
  chromium                              # headless browser for the viewer's e2e tests and bench
                                        # (driven by playwright-core; no browser is downloaded)
  blender python3-numpy                 # optional, tested: ctest blender_import opens city.glb in
                                        # Blender 3.4 headless (its glTF importer needs numpy,
                                        # which the package does not pull in); skips without
)
# Node.js runs the Khronos glTF validator in the tests; keep any node >= 18 already there.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all Debian packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
