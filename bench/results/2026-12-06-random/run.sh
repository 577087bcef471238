#!/usr/bin/env bash
# mlp cl/fused beside clblast and cl/per-op at COUNT shapes drawn at random, log-uniform over issue
# 10's range (batch 8 to 1024, din and hidden 16 to 8192, dout 1 to 64) from SEED, on whichever
# card is lent (random_grid: the shapes in shapes.txt, one step each by mlp_grid), tabled by
# ../2026-12-06-close/table.py. On an H200 first the figures owed there: the big preset
# (big_preset_owed), the seed preset, linear at every transfer and matmul's targets (h200_owed).
#   ../shared/device/stage; bash bench/results/2026-12-06-random/run.sh BUNDLE OUT [SEED [COUNT]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" random
seed=${3:-1} count=${4:-36}
h200_owed
random_grid "$seed" "$count"
