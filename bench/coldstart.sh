#!/usr/bin/env bash
# The first run from process start on one device (issue 13's targets): `clgauge coldstart` over
# the seed cases of every workload, both OpenCL backends and every cache state, repeated to show
# the spread, with the table and the JSON of each repetition kept:
#   bench/coldstart.sh OUTDIR [--device SEL] [--repeat N] [--compare OTHER-CLGAUGE]
# CLGAUGE (default build/clgauge) is the binary measured; --compare runs OTHER-CLGAUGE the same
# way, alternating with it, for a before/after of one change on one machine in one run.
set -uo pipefail
usage() { echo "usage: bench/coldstart.sh OUTDIR [--device SEL] [--repeat N] [--compare OTHER-CLGAUGE]" >&2; exit 2; }
[ $# -ge 1 ] && [ "$1" != "--help" ] || usage
out=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLGAUGE:-$root/build/clgauge}
device=gpu repeat=2 other=""
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=${2:?}; shift 2 ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --compare) other=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
[ -x "$bin" ] || { echo "bench/coldstart.sh: $bin not found (set CLGAUGE)" >&2; exit 1; }
mkdir -p "$out"
"$bin" list > "$out/devices.txt" 2>&1
status=0
for r in $(seq 1 "$repeat"); do
  for which in this other; do
    b=$bin
    if [ $which = other ]; then
      [ -n "$other" ] || continue
      b=$other
    fi
    name=coldstart-$which-$r
    echo "### $b coldstart --device $device --json $name.json" | tee "$out/$name.txt"
    "$b" coldstart --device "$device" --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt" || status=1
  done
done
exit $status
