#!/usr/bin/env bash
# The split at a model gain of 1.10 (the bundle's build) against main's 6ad8059
# (BUNDLE/clgauge-old) in turn at the sizes it newly splits and past their ends (steps
# split-old/-new), and the bundle's default alone at n from 1024 to 3072 by 32 (step by32).
# On an H200 first the figures owed there (h200_owed).
#   ../shared/device/stage; cp OLD_BUILD/clgauge .device/clgauge-old
#   bash bench/results/2026-12-07-matmul-tail/run4.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" tail4
versus clgauge-old
h200_owed
split=1217,1228,1601,1632,1633,1793,1825,1840,1856,1857,2049,2497,2560,2561,2881,2944,2945
by32=$(python3 -c "print(','.join(str(n) for n in range(1024, 3073, 32)))")
# shellcheck disable=SC2054 # the commas are one --sweep-n's
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
for b in old new; do run split $b "${mm[@]}" --sweep-n "$split"; done
step by32 200 "${clgauge[@]}" "${mm[@]}" --sweep-n "$by32" --json "$o/by32.json"
