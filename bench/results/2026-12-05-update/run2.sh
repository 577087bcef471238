#!/usr/bin/env bash
# Pinned's gather with streaming stores: at 20000 x 4096, batch 128 (2 MB batches, where the
# host's gather is what the device waits for), resident, pinned at its defaults and pinned with
# STREAM=1, four rounds interleaved; then at the default shape (batch 32 of 10000 x 1000) two.
# Ran on a bundle staged from 32761b4 (h100/call2/); STREAM is gone since 3ed2b9d.
#   bash bench/results/2026-12-05-update/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" stream
big=(--samples 20000 --features 4096 --classes 16 --batch 128)
lin=(linear --device nvidia --backend cl --variant fused)
for round in 1 2 3 4; do
  step resident-$round 120 "${clgauge[@]}" "${lin[@]}" "${big[@]}" --transfer resident \
    --json "$o/resident-$round.json"
  step pinned-$round 120 "${clgauge[@]}" "${lin[@]}" "${big[@]}" --transfer pinned \
    --json "$o/pinned-$round.json"
  step pinned-stream-$round 120 "${clgauge[@]}" "${lin[@]}" "${big[@]}" --transfer pinned \
    --kernel-param STREAM=1 --json "$o/pinned-stream-$round.json"
done
for round in 1 2; do
  step default-resident-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer resident \
    --json "$o/default-resident-$round.json"
  step default-pinned-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
    --json "$o/default-pinned-$round.json"
  step default-pinned-stream-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
    --kernel-param STREAM=1 --json "$o/default-pinned-stream-$round.json"
done
