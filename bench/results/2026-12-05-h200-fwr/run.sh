#!/usr/bin/env bash
# H200 call: launch A's forward part from the registers of the update (FWR=1, FWR=2 with its
# chunk loop unrolled) against reading the updated tile back (FWR=0), at the big preset and
# seven more shapes; launch R with narrower column blocks (RC); ptxas's register counts of each
# launch A built (cl_build_log with -cl-nv-verbose); test_mlp's blockings (FWR among them) on
# the H200.
#   bash bench/results/2026-12-05-h200-fwr/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/h200-fwr "$2/h200-fwr.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
t=$bundle/build/tests
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
# ptxas's registers and spills of the fused program a record was built with
regs() { # json tag
  local opts
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$1") || return
  step regs-$2 60 bash "$bundle/env.sh" "$bundle/build/cl_build_log" NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
}
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
for kp in "" FWR=1 FWR=2 FWR=1,PF=1 FWR=2,VW=4 FWR=2,KC=32 RC=16 RC=8 FWR=2,RC=8; do
  tag=${kp:-default}
  tag=${tag//=/_}
  tag=${tag//,/-}
  step big-$tag 120 "${b[@]}" "${big[@]}" ${kp:+--kernel-param $kp} --json "$o/big-$tag.json"
  regs "$o/big-$tag.json" big-$tag
done
for sh in "64 2048 2048 8 400" "32 4096 512 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" \
          "8 1024 1024 8 400" "64 16 5000 8 400" "64 128 8192 1 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  for kp in PERSIST=0 PERSIST=0,FWR=1 PERSIST=0,FWR=2; do
    tag=${kp//=/_}
    tag=${tag//,/-}
    step mlp-$n-$tag 120 "${b[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,$kp --json "$o/mlp-$n-$tag.json"
  done
done
step test_mlp_fused_configs 200 env CK_RUN_CASE=fused_configs bash "$bundle/env.sh" "$t/test_mlp"
