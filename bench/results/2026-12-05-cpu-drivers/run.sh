#!/usr/bin/env bash
# The CPU drivers of the 2-core machine (PoCL 3.1, rusticl on llvmpipe of Mesa 22.3): the cl
# backend's variants at main against the build of the day issue 10 was filed (1d0d21c, before
# its first change), in alternating rounds, for issue 10's "no slower than today's variants
# there". CLBlast once per driver, from main, beside them.
#   bash bench/results/2026-12-05-cpu-drivers/run.sh BASE_CLGAUGE MAIN_CLGAUGE OUT
set -uo pipefail
base=$1 main=$2 out=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin "$out" "$out.tar.gz"
export RUSTICL_ENABLE=llvmpipe
mlp_shapes=("8 16 16 1 2000" "64 1024 128 8 200" "1024 128 128 8 100" "32 4096 512 8 20"
            "256 1024 1024 64 8")
for dev in pocl rusticl; do
  for round in 1 2; do
    for b in base main; do
      exe=$base
      [ $b = main ] && exe=$main
      step matmul-$dev-$b-$round 300 "$exe" matmul --device $dev --backend cl --runs 3 --loops 1 \
        --json "$out/matmul-$dev-$b-$round.json"
      for sh in "${mlp_shapes[@]}"; do
        set -- $sh
        n=$1x$2x$3x$4
        step mlp-$dev-$n-$b-$round 300 "$exe" mlp --device $dev --backend cl --batch $1 --din $2 \
          --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
          --json "$out/mlp-$dev-$n-$b-$round.json"
      done
      step linear-$dev-$b-$round 300 "$exe" linear --device $dev --backend cl --transfer all \
        --epochs 2 --json "$out/linear-$dev-$b-$round.json"
    done
  done
  for sh in "${mlp_shapes[@]}"; do
    set -- $sh
    n=$1x$2x$3x$4
    step mlp-$dev-$n-clblast 300 "$main" mlp --device $dev --backend clblast --batch $1 --din $2 \
      --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --json "$out/mlp-$dev-$n-clblast.json"
  done
done
# The loop limit of rusticl on Mesa 22.3's llvmpipe (clgauge/loop_limit.h): the shapes where the
# day's build computed less than it should, before (that build) and after (main).
for b in base main; do
  exe=$base
  [ $b = main ] && exe=$main
  for sh in "160 16 16 64" "176 16 16 64" "192 16 16 64" "256 128 128 64"; do
    set -- $sh
    n=$1x$2x$3x$4
    step limit-mlp-$n-$b 300 "$exe" mlp --device rusticl --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters 2 --print-every 1 --json "$out/limit-mlp-$n-$b.json"
  done
  step limit-linear-$b 300 "$exe" linear --device rusticl --backend cl --variant epoch \
    --transfer resident --epochs 1 --json "$out/limit-linear-$b.json"
  for k in 20000 30000 65000 66000; do
    step limit-matmul-k$k-$b 300 "$exe" matmul --device rusticl --backend cl --m 16 --n 16 \
      --k $k --runs 2 --loops 1 --json "$out/limit-matmul-k$k-$b.json"
  done
done
