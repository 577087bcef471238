#!/usr/bin/env bash
# One call: w1's upload into padded rows through a mapping of the device buffer (the bundle's
# build) against the dense write of the build before the padding (BUNDLE/clgauge-3e001eb): the big
# preset, its upload and download phases, twice with the new build and once with the old.
#   bash bench/results/2026-12-06-upload/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" upload
step big-old 120 bash "$bundle/env.sh" "$bundle/clgauge-3e001eb" mlp --device nvidia \
  --backend cl --variant fused --preset big --iters 120 --print-every 40 --json "$o/big-old.json"
for round in 1 2; do
  step big-new-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --preset big --iters 120 --print-every 40 --json "$o/big-new-$round.json"
done
