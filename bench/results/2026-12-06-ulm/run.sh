#!/usr/bin/env bash
# One call: launch A's update and forward part through a local half-tile (BUNDLE/kd/ulm, written
# by variant.py beside this file from the checkout's cl/; correct on PoCL 3.1 at six shapes with
# two and three launches, clean under Oclgrind at 9 x 37 x 41 x 3) against main's kernels
# (embedded), in turn: the big preset three times each, then five shapes of one row chunk (batch
# 64 and below) once each, then ptxas's register counts of both.
#   python3 bench/results/2026-12-06-ulm/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-ulm/run.sh BUNDLE OUT        (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" ulm
variants_big 3 main ulm
variants_shapes "main ulm" "64 2048 2048 8 400" "16 4096 4096 16 100" "32 4096 512 8 400" \
  "8 1024 1024 8 800" "64 8192 8192 8 60"
variants_regs "$o/big-main-1.json" main ulm
