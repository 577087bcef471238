#!/usr/bin/env bash
# One call, owed since the rows on lines (not yet run: the device tool lent only H100s, then had
# no time left to start a machine): main's build (the bundle's) at the big preset beside the
# build of 3e001eb (BUNDLE/clgauge-3e001eb, 348 us on an H200 on 2026-12-06; build it from a
# worktree of 3e001eb, `cmake -DCMAKE_BUILD_TYPE=Release` and the target clgauge), three rounds in
# turn, on whichever card the device tool lends (gpu.txt says which).
#   bash bench/results/2026-12-06-h200/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200
versus clgauge-3e001eb
versus_big 3
