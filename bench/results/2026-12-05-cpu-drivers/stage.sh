#!/usr/bin/env bash
# cl/fused's launch A on the CPU drivers with its chunks through registers (STAGE=1, what main
# ran on every device before) and straight into local memory (STAGE=0, now the CPU drivers'
# default), in alternating rounds, at the two shapes where run.sh found main slower than the
# day's build on rusticl.
#   bash bench/results/2026-12-05-cpu-drivers/stage.sh MAIN_CLGAUGE OUT
set -uo pipefail
main=$1 out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin "$out" "$out.tar.gz"
export RUSTICL_ENABLE=llvmpipe
for dev in rusticl pocl; do
  for round in 1 2; do
    for stage in 0 1; do
      for sh in "64 1024 128 8 100" "32 4096 512 8 20"; do
        set -- $sh
        n=$1x$2x$3x$4
        step stage-$dev-$n-s$stage-$round 300 "$main" mlp --device $dev --backend cl \
          --variant fused --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 \
          --print-every $(( $5 / 4 )) --kernel-param STAGE=$stage \
          --json "$out/stage-$dev-$n-s$stage-$round.json"
      done
    done
  done
done
