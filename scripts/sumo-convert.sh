#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Converts the SUMO plain XML that cityforge exports (OUT_DIR/sumo/city.{nod,edg,con,tll}.xml)
# into a SUMO network, OUT_DIR/sumo/city.net.xml, with SUMO's netconvert. Prints the command it
# runs. Exits 0 with a message when netconvert is not installed (Debian: apt-get install sumo).
# Extra arguments after OUT_DIR go to netconvert unchanged.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR [netconvert options...]" >&2
  exit 2
fi
dir="$1/sumo"
shift

if ! command -v netconvert >/dev/null 2>&1; then
  echo "sumo-convert: netconvert not found, skipping (install the Debian package 'sumo')"
  exit 0
fi
for f in city.nod.xml city.edg.xml; do
  if [ ! -f "$dir/$f" ]; then
    echo "sumo-convert: missing $dir/$f (run cityforge with the SUMO export first)" >&2
    exit 1
  fi
done

# Debian's SUMO does not set SUMO_HOME; without it netconvert warns and skips its type maps.
if [ -z "${SUMO_HOME:-}" ] && [ -d /usr/share/sumo ]; then
  export SUMO_HOME=/usr/share/sumo
fi

args=(
  --node-files "$dir/city.nod.xml"
  --edge-files "$dir/city.edg.xml"
)
[ -f "$dir/city.con.xml" ] && args+=(--connection-files "$dir/city.con.xml")
[ -f "$dir/city.tll.xml" ] && args+=(--tllogic-files "$dir/city.tll.xml")
args+=(
  # Keep our coordinates: local metres, no shift of the origin to the network's corner.
  --offset.disable-normalization true
  # Dead ends (and every junction) get turnarounds, so no vehicle is trapped.
  --no-turnarounds false
  # Rounder junction corners than SUMO's default of straight cuts.
  --junctions.corner-detail 5
  # Fixed-time signal programs, like the roads stage's default plan.
  --tls.default-type static
  -o "$dir/city.net.xml"
)

echo "sumo-convert: netconvert ${args[*]} $*"
netconvert "${args[@]}" "$@"
echo "sumo-convert: wrote $dir/city.net.xml"
