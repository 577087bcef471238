#!/usr/bin/env bash
# One call: where launch A's time goes at the big preset, and a w1 update read at the tile's
# start. The bundle's build (c9119d7 with wf.patch beside this file: WF as a kernel parameter,
# off by default) runs its embedded kernels, then with --kernel-dir BUNDLE/kd/<variant> (written
# by variants.py beside this file from c9119d7's cl/), copies of cl/ whose mlp.cl leaves out one
# part of launch A (their results are wrong on purpose; only the times count):
#   same         unchanged (the --kernel-dir path against the embedded copy)
#   noupdmem     the update's reads and writes of w1 (its arithmetic kept)
#   nobwd        the backward product's multiply-adds (its chunks still staged)
#   nofwd        the forward product's multiply-adds (its chunks still staged)
#   nopart       the partials' writes
#   computeonly  noupdmem and nopart together
#   memonly      nobwd and nofwd together
# and one meant to be right: --kernel-param WF=1, the g1 block started from the tile of w1 (read
# at the tile's start, all of a work-item's block at once) with dz1 scaled by -lr as it is
# staged, so that the update only writes; also at four other shapes beside the defaults. First,
# main's build before the change (BUNDLE/clgauge-4e77deb) at the big preset twice.
#   bash bench/results/2026-12-06-parts/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" parts
# main before this call's change (4e77deb), on whichever card the call gets
for round in 1 2; do
  step big-4e77deb-$round 120 bash "$bundle/env.sh" "$bundle/clgauge-4e77deb" "${big_preset[@]}" \
    --json "$o/big-4e77deb-$round.json"
done
for round in 1 2; do
  step big-embedded-$round 120 "${clgauge[@]}" "${big_preset[@]}" \
    --json "$o/big-embedded-$round.json"
  step big-wf-$round 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-param WF=1 \
    --json "$o/big-wf-$round.json"
done
for v in same noupdmem nobwd nofwd nopart computeonly memonly; do
  step big-$v 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-dir "$bundle/kd/$v" \
    --json "$o/big-$v.json"
done
for sh in "64 2048 2048 8 400" "128 2048 2048 8 400" "16 4096 4096 16 100" "8 4096 4096 8 200"; do
  set -- $sh
  args=(mlp --device nvidia --backend cl --variant fused --batch $1 --din $2 --hidden $3
        --dout $4 --iters $5 --print-every $(( $5 / 4 )) --kernel-param STRATEGY=0,PERSIST=0)
  step mlp-$1-$2-$3-$4-embedded 120 "${clgauge[@]}" "${args[@]}" \
    --json "$o/mlp-$1-$2-$3-$4-embedded.json"
  step mlp-$1-$2-$3-$4-wf 120 "${clgauge[@]}" "${args[@]}",WF=1 \
    --json "$o/mlp-$1-$2-$3-$4-wf.json"
done
