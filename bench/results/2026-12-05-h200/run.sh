#!/usr/bin/env bash
# The second H200 call of 2026-12-05, after the first (run4.sh of 2026-12-04-h200-night) found
# the cause of test_group_override_limits' crash (the test's own array) and launch D faster:
# the Check suites with both fixed and DZ1A=0 the GPUs' default; the big preset and two shapes
# with it, and with launch A's vector width 2; linear resident and pinned with 4 and 8 gathering
# threads.
#   bash bench/results/2026-12-05-h200/run.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/h200-1205 "$2/h200-1205.tar.gz"
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
step test_mlp_backend_ops 200 env CK_RUN_CASE=backend_ops bash "$bundle/env.sh" "$t/test_mlp"
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
for r in 1 2; do
  step big-default-$r 120 "${b[@]}" "${big[@]}" --json "$o/big-default-$r.json"
  step big-VW_2-$r 120 "${b[@]}" "${big[@]}" --kernel-param VW=2 --json "$o/big-VW_2-$r.json"
done
for sh in "64 2048 2048 8" "32 4096 512 8" "64 1024 128 8"; do
  set -- $sh
  n=$1-$2-$3-$4
  for kp in "" VW=2; do
    tag=${kp:-default}
    tag=${tag//=/_}
    step mlp-$n-$tag 120 "${b[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters 400 --print-every 100 ${kp:+--kernel-param $kp} \
      --json "$o/mlp-$n-$tag.json"
  done
done
lin=(linear --device nvidia --backend cl --variant fused)
for r in 1 2; do
  step resident-$r 60 "${b[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$r.json"
  step pinned-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-$r.json"
  step pinned-t8-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned --kernel-param THREADS=8 \
    --json "$o/pinned-t8-$r.json"
done
