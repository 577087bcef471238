#!/usr/bin/env bash
# The second call: linear at every transfer in four more processes (the first call's one process
# had pinned at 1.63 times resident on an H100, where earlier calls saw 1.0-1.2 but for a slow
# first process); on an H200 first the big preset's rounds and matmul's targets of run.sh.
#   ../shared/device/stage; bash bench/results/2026-12-06-close/run2.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" close2
for round in 1 2 3 4; do
  step linear-$round 60 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
    --transfer all --json "$o/linear-$round.json"
done
if grep -q H200 "$o/gpu.txt"; then
  big_preset_owed
  matmul_targets
fi
