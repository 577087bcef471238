#!/usr/bin/env bash
# The seventh call, the build as committed (209e71b): the big preset at the defaults twice, and
# the rule's choice at 24 x 5000 x 5000 x 8 (split) and 80 x 5000 x 5000 x 8 (not), fused
# launches at the defaults.
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run7.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split7
settings_big 2 -
settings_shapes - "24 5000 5000 8 200" "80 5000 5000 8 100"
