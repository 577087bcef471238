#!/usr/bin/env bash
# The third call: pinned's settings where pinned took 1.39-1.63 times resident (calls 1 and 2, an
# H100 whose host uploads a 128 KB batch in 4.8-5.6 us, as long as its compute): GROUP 16 and 64
# beside the default 32, THREADS 16, and RAMP=1, three rounds, each with resident; on an H200
# first the big preset's rounds of run2.sh.
#   ../shared/device/stage; bash bench/results/2026-12-06-close/run3.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" close3
if grep -q H200 "$o/gpu.txt"; then
  big_preset_owed
fi
linear=(linear --device nvidia --backend cl --variant fused)
for round in 1 2 3; do
  step resident-$round 60 "${clgauge[@]}" "${linear[@]}" --transfer resident \
    --json "$o/resident-$round.json"
  for s in - GROUP=16 GROUP=64 THREADS=16 RAMP=1; do
    setting_step "pinned-$(setting_name $s)-$round" $s "${linear[@]}" --transfer pinned
  done
done
