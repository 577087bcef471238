#!/usr/bin/env bash
# One call, owed (written on 2026-12-06 with no device time left to run it): launch A with its
# block of x staged once per tile (BUNDLE/kd/xonce, written by variant.py beside this file from
# the checkout's cl/; correct on PoCL 3.1 at batch 1, 13 and 64 and clean under Oclgrind at
# 9 x 37 x 41 x 3) against main's kernels (embedded), in turn: the big preset three times each,
# then four shapes once each. At batch 128 and above the block does not fit NVIDIA's 48 KB of
# local memory beside the chunks (at 96 too); such records are refused, not wrong.
#   python3 bench/results/2026-12-06-xonce/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-xonce/run.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" xonce
variants_big 3 main xonce
variants_shapes "main xonce" "64 2048 2048 8 400" "32 4096 512 8 400" "16 4096 4096 16 100" \
  "64 4992 4992 8 120"
