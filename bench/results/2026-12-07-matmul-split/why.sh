#!/usr/bin/env bash
# Where split.patch's kernel loses about 10% with nothing split: the split build
# (BUNDLE/clgauge-split, main's 6ad8059 with split.patch) with its kernel and with the variants
# of variants.py (BUNDLE/kd/NAME), beside main's build, at n = 1024 (128x64), 2048 and 3584
# (128x128), SPLITS=1, two rounds in turn (steps ROUND-NAME). On an H200 first h200_owed.
#   ../shared/device/stage; mkdir -p .device/kd/split; cp cl/*.cl .device/kd/split/, then
#   matmul.cl and the build of a checkout with split.patch applied (.device/clgauge-split);
#   python3 bench/results/2026-12-07-matmul-split/variants.py .device
#   bash bench/results/2026-12-07-matmul-split/why.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" why
h200_owed
# shellcheck disable=SC2054 # the commas are one --sweep-n's
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet
    --sweep-n 1024,2048,3584)
split=(bash "$bundle/env.sh" "$bundle/clgauge-split")
for round in 1 2; do
  step "$round-main" 60 "${clgauge[@]}" "${mm[@]}" --json "$o/$round-main.json"
  step "$round-split" 60 "${split[@]}" "${mm[@]}" --kernel-param SPLITS=1 \
    --json "$o/$round-split.json"
  for v in k0 epi both; do
    step "$round-$v" 60 "${split[@]}" "${mm[@]}" --kernel-param SPLITS=1 \
      --kernel-dir "$bundle/kd/$v" --json "$o/$round-$v.json"
  done
done
