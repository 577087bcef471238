#!/usr/bin/env bash
# Fourth call of the night: the crash of test_group_override_limits on the H200 in call 3
# (unforked, a backtrace on the signal); the Check suites of linear and of the fused mlp's
# configurations on both drivers; linear's prefetch with constant loop bounds on PoCL 5.0 and on
# the H200 (resident, pinned); the big preset with dz1 in a launch of its own (DZ1A=0) against A
# computing it, with A's vector width and prefetch, two shapes with fewer row groups, and the
# products step (STRATEGY=1), and launch A's chunks straight into local memory (STAGE=0, the
# CPU drivers' default since 2026-12-05); the first run from process start (the fused fallback
# now built only when a persistent launch fails). Not run: the call found no GPU machine lent;
# for the next session (stage the bundle again first; DZ1A's default is 1 again).
#   bash bench/results/2026-12-04-h200-night/run4.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/night4 "$2/night4.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
t=$bundle/build/tests
pre=
[ -f "$bundle/segv.so" ] && pre=$(cd "$bundle" && pwd)/segv.so
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
step transfers-unforked 200 env CK_FORK=no CK_RUN_CASE=transfers CK_VERBOSITY=verbose \
  LD_PRELOAD=$pre stdbuf -oL -eL bash "$bundle/env.sh" "$t/test_linear"
step test_linear 300 bash "$bundle/env.sh" "$t/test_linear"
step test_mlp_fused_configs 200 env CK_RUN_CASE=fused_configs bash "$bundle/env.sh" "$t/test_mlp"
pl=(linear --device pocl --backend cl --variant fused --transfer resident)
step pocl-base 120 "${b[@]}" "${pl[@]}" --samples 203 --features 37 --classes 5 --batch 8 \
  --epochs 2 --kernel-param PERSIST=1,PGROUPS=1
step pocl-seed 120 "${b[@]}" "${pl[@]}" --epochs 2 --kernel-param PERSIST=1,PGROUPS=1

lin=(linear --device nvidia --backend cl --variant fused)
for r in 1 2 3; do
  step resident-$r 60 "${b[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$r.json"
  step pinned-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-$r.json"
done

big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
step big-default 120 "${b[@]}" "${big[@]}" --json "$o/big-default.json"
for kp in DZ1A=0 DZ1A=0,VW=2 DZ1A=0,PF=1 DZ1A=0,VW=2,PF=1 STAGE=0; do
  n=$(echo "$kp" | tr ',=' '-_')
  step big-$n 120 "${b[@]}" "${big[@]}" --kernel-param "$kp" --json "$o/big-$n.json"
done
step big-default-2 120 "${b[@]}" "${big[@]}" --json "$o/big-default-2.json"
# the products step at the big preset, not measured there since its split-K products (its h1 w2
# took 285 us of 768 before them)
step big-STRATEGY_1 120 "${b[@]}" "${big[@]}" --kernel-param STRATEGY=1 --json "$o/big-STRATEGY_1.json"
step big-clblast 120 "${b[@]}" mlp --device nvidia --backend clblast --preset big --iters 120 \
  --print-every 40 --json "$o/big-clblast.json"
for sh in "64 2048 2048 8" "32 4096 512 8"; do
  set -- $sh
  n=$1-$2-$3-$4
  for d in 0 1; do
    step mlp-$n-dz1a$d 120 "${b[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters 200 --print-every 50 --kernel-param PERSIST=0,DZ1A=$d \
      --json "$o/mlp-$n-dz1a$d.json"
  done
done
step coldstart 300 "${b[@]}" coldstart --device nvidia --workload matmul,mlp
