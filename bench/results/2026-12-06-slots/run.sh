#!/usr/bin/env bash
# pinned's device slots (SLOTS): an H100 whose host took 5.9-7.1 us to upload a 128 KB batch,
# longer than its compute (5.5), ran pinned at 1.61-1.79 times resident with 43-53% of the upload
# hidden, where uploads back to back would give about 1.3. With two slots the upload of group g
# waits for the compute of group g-2 and that compute for its own upload, each across the two
# queues; three or four slots let the uploads run further ahead. Four rounds at the default
# shape, each resident beside pinned at SLOTS 2 (the default), 3 and 4; then two rounds at 20000 x
# 4096, batch 128 (2 MB batches, groups of 16). On an H200 first the big preset's rounds, the big
# preset beside CLBlast and per-op, and matmul's targets (close/run2.sh's).
#   ../shared/device/stage; bash bench/results/2026-12-06-slots/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" slots
if grep -q H200 "$o/gpu.txt"; then
  big_preset_owed
  matmul_targets
fi
linear=(linear --device nvidia --backend cl --variant fused)
wide=(--samples 20000 --features 4096 --batch 128)
for round in 1 2 3 4; do
  step resident-$round 60 "${clgauge[@]}" "${linear[@]}" --transfer resident \
    --json "$o/resident-$round.json"
  for s in - SLOTS=3 SLOTS=4; do
    setting_step "pinned-$(setting_name $s)-$round" $s "${linear[@]}" --transfer pinned
  done
done
for round in 1 2; do
  step wide-resident-$round 120 "${clgauge[@]}" "${linear[@]}" "${wide[@]}" --transfer resident \
    --json "$o/wide-resident-$round.json"
  for s in - SLOTS=3; do
    setting_step "wide-pinned-$(setting_name $s)-$round" $s "${linear[@]}" "${wide[@]}" \
      --transfer pinned
  done
done
