#!/usr/bin/env bash
# Launch R's column rule of reduce_pays (src/backends/cl/mlp_fused_config.c) at eight shapes not
# used to fit it, drawn at random from seed 6 with hidden 100 to 4096 and batch x din x hidden at
# most 10^8: the fused launches at the default RC and at 32 down to 2.
#   ../shared/device/stage; bash bench/results/2026-12-06-rc4/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" rc4
mapfile -t fresh < <(random_shapes 6 80 | awk -Fx '$3 <= 4096 && $3 >= 100 && $1 * $2 * $3 <= 1e8 {
  print $1, $2, $3, $4, 400 }' | head -8)
settings_shapes "- RC=32 RC=16 RC=8 RC=4 RC=2" "${fresh[@]}"
