#!/usr/bin/env bash
# One call: launch B's work-items bounded by its own kernel's limit (the bundle's build) against
# main's build before it (BUNDLE/clgauge-4e77deb, carried in the bundle, where all three fused
# kernels took the least of their limits: WGB 256 on NVIDIA), the big preset twice each and
# eight shapes once each (batch x dout from 1 to 65536, where launch B's share is largest, and
# 1 x 2048 x 2048 x 1, where the two/three-launch choice follows WGB); then launch A's switches at
# the big preset with the new build, since rows on 128-byte lines changed launch A's picture:
# TPG=2, PF=1, DB=1, KC=32, FWR=1, UR=1.
#   bash bench/results/2026-12-06-wgb/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wgb
versus clgauge-4e77deb
versus_big 2
versus_shapes "1 2048 2048 1 400" "8 1024 1024 8 400" "16 4096 4096 16 100" "64 2048 2048 8 400" \
  "8 8192 8192 64 40" "256 2048 1024 16 200" "1024 1024 1024 64 100" "32 4096 512 8 400"
for p in TPG=2 PF=1 DB=1 KC=32 FWR=1 UR=1; do
  run big-${p/=/}-1 new "${big_preset[@]}" --kernel-param $p
done
