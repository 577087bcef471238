#!/usr/bin/env bash
# ptxas's registers of matmul_pipelined as main builds it (cl/) and with split.patch's kernel
# (BUNDLE/kd/split, cl/ with the patch applied), for the 128x128 and 128x64 blocks (steps
# regs-BLOCK-main, regs-BLOCK-split); on an H200 first the figures owed there (h200_owed).
#   ../shared/device/stage; mkdir -p .device/kd/split; cp cl/*.cl .device/kd/split/, then
#   matmul.cl from a checkout with split.patch applied; bash .../regs.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" regs
h200_owed
for b in 128,128,8,8,8,4 128,64,16,8,8,4; do
  IFS=, read -r mwg nwg kwg wm wn vw <<< "$b"
  opts=(-DMWG="$mwg" -DNWG="$nwg" -DKWG="$kwg" -DWM="$wm" -DWN="$wn" -DVW="$vw" -DPAD=1)
  for v in main split; do
    step "regs-${mwg}x$nwg-$v" 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" \
      "$bundle/build/cl_build_log" NVIDIA "$(variant_dir "$v")/matmul.cl" -I "$(variant_dir "$v")" \
      "${opts[@]}" -cl-nv-verbose
  done
done
