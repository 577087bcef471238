#!/usr/bin/env bash
# Owed GPU call (the H200, as issue 10's figures are): launch A reading some of its w1 tile ahead
# of the update (PW=1, off by default until this call) against the default, at the big preset and
# the nine shapes of ../2026-12-05-h200-launch-a/run3.sh, twice each, with ptxas's register counts;
# whether ptxas takes NVIDIA's register limit in the extension's own form; then that run3.sh
# itself (the RN rule's figures at the defaults, and pinned at 20000 x 4096 batch 128 with THREADS
# 4/8/16), which has run on an H100 only.
#   bash bench/results/2026-12-05-pw/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" pw
for round in 1 2; do
  for pw in 0 1; do
    step big-pw$pw-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --preset big --iters 120 --print-every 40 --kernel-param PW=$pw --json "$o/big-pw$pw-$round.json"
  done
done
ptxas_regs "$o/big-pw0-1.json" regs-big-pw0
ptxas_regs "$o/big-pw1-1.json" regs-big-pw1
# NVIDIA's register limit written as cl_nv_compiler_options has it, with a space (the form with
# '=' changed nothing in ../2026-12-05-h100-waves/call2/maxreg): does ptxas go below 123?
ptxas_regs "$o/big-pw0-1.json" regs-big-pw0-maxrreg96 -cl-nv-maxrregcount 96
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  for pw in 0 1; do
    step mlp-$n-pw$pw 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0,PW=$pw --json "$o/mlp-$n-pw$pw.json"
  done
done
bash "$here/results/2026-12-05-h200-launch-a/run3.sh" "$1" "$2"
