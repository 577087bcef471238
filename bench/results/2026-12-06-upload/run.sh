#!/usr/bin/env bash
# One call: w1's upload into padded rows (the bundle's build: written dense, then copied into the
# padded rows by a kernel) against the dense write of the build before the padding
# (BUNDLE/clgauge-3e001eb): the big preset, its upload and download phases, twice with the new
# build and once with the old.
#   bash bench/results/2026-12-06-upload/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" upload
step big-old 120 bash "$bundle/env.sh" "$bundle/clgauge-3e001eb" "${big_preset[@]}" \
  --json "$o/big-old.json"
for round in 1 2; do
  step big-new-$round 120 "${clgauge[@]}" "${big_preset[@]}" --json "$o/big-new-$round.json"
done
# the persistent path (the default at small shapes), which keeps w1 dense: hidden 100
step mlp-64-1000-100-8-new 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
  --batch 64 --din 1000 --hidden 100 --dout 8 --iters 400 --print-every 100 \
  --json "$o/mlp-64-1000-100-8-new.json"
