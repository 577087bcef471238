#!/usr/bin/env bash
# The second H200 call of 2026-12-04 (run.sh's JSON did not come back: more than 8 files):
#   bash run2.sh BUNDLE OUT
# The split of discovery and context creation per driver (discovery_split, three times per set
# of ICD files: every one, NVIDIA's alone, PoCL's alone), a third round of
# `clgauge coldstart --device nvidia --workload matmul,mlp --backend cl` of main before this branch (base)
# and of the branch (new), with their JSON, and one seed matmul of the branch with its JSON
# (phases.init.overlapped_ms). Eight files at most under OUT.
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
  echo "ICD files in /etc/OpenCL/vendors:"; head /etc/OpenCL/vendors/*.icd
  echo "NVIDIA's library: $nv"
  $E clinfo -l 2>&1
} > "$OUT/machine.txt" 2>&1
for r in 1 2 3; do
  for set in all nvidia pocl; do
    echo "{\"icd_files\": \"$set\", \"round\": $r}"
    case $set in
      all) $E "$D/discovery_split" ;;
      *) OCL_ICD_VENDORS=/tmp/icd-$set $E "$D/discovery_split" ;;
    esac
  done
done > "$OUT/split.jsonl" 2>&1
for which in base new; do
  bin=$base; [ $which = new ] && bin=$new
  $E "$bin" coldstart --device nvidia --workload matmul,mlp --backend cl --quiet \
    --json "$OUT/coldstart-$which.json" > "$OUT/coldstart-$which.txt" 2>&1
  echo "exit $?" >> "$OUT/coldstart-$which.txt"
done
$E "$new" matmul --device nvidia --backend cpu,cl --variant openblas,pipelined --runs 3 \
  --json "$OUT/matmul.json" > "$OUT/matmul.txt" 2>&1
grep -h '"stage"\|icd_files' "$OUT/split.jsonl" | head -40
tail -4 "$OUT/matmul.txt"
ls "$OUT"
