#!/usr/bin/env bash
# Renders bench/plot.py's PNGs from results files that tiny clgauge runs write here (two matmul
# runs, on two devices where there are two; an mlp sweep; one held against a quick probe) and checks
# that each expected plot is a PNG with pixels, and that a bad file is one line and exit 2. Exits
# 77 (skipped) where the interpreter has no matplotlib.
#   test_plot.sh PYTHON SCRIPT CLGAUGE WORKDIR
set -euo pipefail
python=$1 script=$(realpath "$2") clgauge=$(realpath "$3") work=$4
if ! "$python" -c 'import matplotlib' 2>/dev/null; then
  echo "skipped: $python cannot import matplotlib (apt-get install python3-matplotlib)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

"$script" --help > help.txt
grep -q 'probe' help.txt && grep -q 'crossover' help.txt || fail "--help: $(cat help.txt)"

# Without a device the OpenCL records are skipped and the cpu ones still plot.
second=()
if "$clgauge" list | grep -q '^1  '; then second=(--device 1); fi
"$clgauge" matmul --n 24 --runs 3 --loops 2 --backend cpu,cl --variant openblas,tiled --quiet \
  --json a.json > /dev/null
"$clgauge" matmul --n 24 --runs 3 --loops 2 --backend cpu,cl --variant openblas,tiled --quiet \
  "${second[@]}" --json b.json > /dev/null
"$clgauge" mlp --sweep-hidden 4,8,16 --batch 4 --dout 3 --iters 4 --print-every 2 --backend cpu,cl \
  --variant openblas,fused --quiet --json sweep.json > /dev/null
"$clgauge" matmul --n 24 --runs 3 --loops 2 --backend cpu,cl --variant openblas,tiled --quiet \
  --probe-quick --json probe.json > /dev/null

"$script" a.json b.json sweep.json probe.json -o plots > written.txt || fail "plot.py exited $?"
cat written.txt
for png in phases-a phases-b phases-probe crossover-sweep-mlp drivers ceilings-probe; do
  grep -qx "plots/$png.png" written.txt || fail "$png.png not listed"
done
[ "$(wc -l < written.txt)" -eq 6 ] || fail "expected 6 plots"
# a file without probe figures gets no ceilings plot, a sweep-only file no phases plot
[ ! -e plots/ceilings-a.png ] && [ ! -e plots/phases-sweep.png ] || fail "unexpected plots"
"$python" - plots/*.png <<'PY'
import struct, sys
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 400 and height >= 300 and len(data) > 10000, (path, width, height, len(data))
    print(f"{path}: {width}x{height}, {len(data)} bytes")
PY

set +e
printf '{"schema": "clgauge.results/3", "records": [' > cut.json
"$script" a.json cut.json -o plots 2> err.txt
rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "'cut.json': not valid JSON" err.txt ||
  fail "a truncated file: exit $rc, $(cat err.txt)"
echo "plot: ok"
