#!/usr/bin/env bash
# The big preset's launches, against the build staged before this session's changes (OLD, a
# clgauge binary of e35d62f), at the defaults (the fused launches):
# 1. Does launch A lose a wave's tail? At 64 x 5000 x 5000 x 8 its 40 x 40 groups (tiles of
#    128 x 128, the last row and column of tiles 8 wide) make 6.06 waves of two groups per SM;
#    at 4992, 39 x 39 tiles (1521 groups) make 5.76; at 5120, 40 x 40 full tiles. If waves run
#    in step, launch A per flop falls by a seventh from 5000 to 4992 with OLD. This build skips
#    the products of warps outside w1 (64ccc4e): the last row of tiles then costs little (its
#    rows lie in the first two warps), the last column of tiles as much as before (every warp
#    has columns there); 64 x 5000 x 4992 x 8 and 64 x 4992 x 5000 x 8 take one each. SWAP (a
#    clgauge binary of e10ade3, branch swap-exp) also lays the work-items of the last column
#    block down its columns, so that the warps past HID skip theirs too.
# 2. Launch R summing eight elements of a work-item together (7dd14be) against one at a time.
# 3. Pinned at linear's default shape, built from source in every process (--no-binary-cache),
#    twice: run4.sh runs it three times with the cache, of which only a call's first process at a
#    shape builds from source; if the slow first run is the build's, these two are both slow.
# The binary cache of the call (NVIDIA's PTX of every program built) comes back as ptx.tar.gz.
#   bash bench/results/2026-12-06-r-waves/run.sh BUNDLE OUT OLD SWAP   (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" r-waves
old=(bash "$1/env.sh" "$3")
swap=(bash "$1/env.sh" "$4")
for round in 1 2; do
  step big-old-$round 120 "${old[@]}" "${big_preset[@]}" --json "$o/big-old-$round.json"
  step big-new-$round 120 "${clgauge[@]}" "${big_preset[@]}" --json "$o/big-new-$round.json"
  step big-new-RC_16-$round 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-param RC=16 \
    --json "$o/big-new-RC_16-$round.json"
  step big-swap-$round 120 "${swap[@]}" "${big_preset[@]}" --json "$o/big-swap-$round.json"
done
shape() { # build-name round batch din hidden dout
  local -n bin=$1
  step mlp-$1-$3-$4-$5-$6-$2 120 "${bin[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch "$3" --din "$4" --hidden "$5" --dout "$6" --iters 120 --print-every 40 \
    --kernel-param STRATEGY=0,PERSIST=0 --json "$o/mlp-$1-$3-$4-$5-$6-$2.json"
}
shape old 1 64 4992 4992 8
shape old 1 64 5120 5120 8
shape swap 1 64 4992 5000 8
for round in 1 2; do
  for sh in "64 4992 4992 8" "64 5000 5000 8" "64 5120 5120 8" "64 5000 4992 8" "64 4992 5000 8"; do
    shape clgauge $round $sh
  done
done
for round in 1 2; do
  step pinned-nocache-$round 60 "${clgauge[@]}" linear --device nvidia --backend cl \
    --variant fused --transfer pinned --no-binary-cache --json "$o/pinned-nocache-$round.json"
done
tar -C "$o" -czf "$2/ptx.tar.gz" cache
