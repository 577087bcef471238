#!/usr/bin/env bash
# The H200 measurements of 2026-12-04 for issue 13 (the first run from process start), one call:
#   bash run.sh BUNDLE OUT
# BUNDLE holds env.sh, the debs, build/clgauge (this branch) and base/clgauge (main before it),
# and discovery_split (cc -O2 discovery_split.c -lOpenCL). It measures where discovery and
# context creation go, driver by driver, with the machine's ICD files (NVIDIA's added by env.sh)
# and with NVIDIA's alone, then `clgauge coldstart --device nvidia --workload matmul,mlp` of
# both binaries in alternation, with every ICD and with NVIDIA's alone.
set -uo pipefail
D=$1 OUT=$2
mkdir -p "$OUT"
E="bash $D/env.sh"
new=$D/build/clgauge base=$D/base/clgauge
nv=$(ls /usr/lib/libnvidia-opencl.so* /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* \
        /usr/local/nvidia/lib64/libnvidia-opencl.so* 2>/dev/null | head -1 || true)
mkdir -p /tmp/icd-nvidia /tmp/icd-pocl
echo "$nv" > /tmp/icd-nvidia/nvidia.icd
cp /etc/OpenCL/vendors/*.icd /tmp/icd-pocl/ 2>/dev/null || true
{
  date -u
  nproc
  nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv 2>&1 || true
  echo "ICD files: /etc/OpenCL/vendors:"; head /etc/OpenCL/vendors/*.icd
  echo "NVIDIA: $nv"
  $E clinfo -l 2>&1
  $E "$new" list 2>&1 | grep -E '^[0-9]|platform|driver'
} > "$OUT/machine.txt" 2>&1
# the split, three times per set of ICD files: every one (env.sh's), NVIDIA's alone, PoCL's alone
for r in 1 2 3; do
  for set in all nvidia pocl; do
    case $set in
      all) $E "$D/discovery_split" ;;
      *) OCL_ICD_VENDORS=/tmp/icd-$set $E "$D/discovery_split" ;;
    esac > "$OUT/split-$set-$r.jsonl" 2>&1
  done
done
# coldstart, the binaries in alternation, every ICD then NVIDIA's alone
for icd in all nvidia; do
  for r in 1 2; do
    for which in base new; do
      bin=$base; [ $which = new ] && bin=$new
      name=coldstart-$icd-$which-$r
      echo "### $which coldstart --device nvidia --workload matmul,mlp (ICD files: $icd)" > "$OUT/$name.txt"
      if [ $icd = all ]; then
        $E "$bin" coldstart --device nvidia --workload matmul,mlp --quiet --json "$OUT/$name.json" >> "$OUT/$name.txt" 2>&1
      else
        OCL_ICD_VENDORS=/tmp/icd-nvidia $E "$bin" coldstart --device nvidia --workload matmul,mlp --quiet --json "$OUT/$name.json" >> "$OUT/$name.txt" 2>&1
      fi
      echo "exit $?" >> "$OUT/$name.txt"
    done
  done
done
cd "$OUT" && tar czf results.tar.gz machine.txt split-*.jsonl coldstart-*.txt coldstart-*.json && \
  rm -f split-*.jsonl coldstart-*.json && cat coldstart-*-new-1.txt | tail -30
