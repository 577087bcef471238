#!/usr/bin/env bash
# Installs the build into a temporary prefix with 'cmake --install' and runs the installed tools
# from outside the source and build trees: clgauge (--help, a small run whose kernels come from
# the binary, compare on its file), clgauge-plot --help and clgauge-pytorch-seeds --help (where
# python3 is installed: a minimal Debian has none, and scripts/setup installs it only for the
# Python tests; there the tools' first line must still name it).
#   test_install.sh CMAKE BUILD_DIR WORKDIR
set -euo pipefail
cmake=$1 build=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work/run"
work=$(realpath "$work")
fail() { echo "FAILED: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 ||
  fail "cmake --install: $(cat "$work/install.log")"
bin=$work/prefix/bin
for tool in clgauge clgauge-plot clgauge-pytorch-seeds; do
  [ -x "$bin/$tool" ] || fail "$bin/$tool is not installed as a program"
done
cd "$work/run"
# nothing of the trees on the way: only the installed programs
export PATH="$bin:/usr/bin:/bin"
clgauge --help > help.txt && grep -q '^usage: clgauge COMMAND' help.txt &&
  grep -q compare help.txt || fail "clgauge --help: $(cat help.txt)"
python_tools="run"
if command -v python3 > /dev/null; then
  clgauge-plot --help > plot-help.txt && grep -q 'usage: clgauge-plot' plot-help.txt ||
    fail "clgauge-plot --help: $(cat plot-help.txt)"
  clgauge-pytorch-seeds --help > seeds-help.txt &&
    grep -q 'usage: clgauge-pytorch-seeds' seeds-help.txt ||
    fail "clgauge-pytorch-seeds --help: $(cat seeds-help.txt)"
else
  for tool in clgauge-plot clgauge-pytorch-seeds; do
    head -n 1 "$bin/$tool" | grep -q '^#!.*python3' || fail "$tool: first line $(head -n 1 "$bin/$tool")"
  done
  python_tools="not run: no python3 here"
fi
clgauge matmul --n 9 --runs 2 --loops 1 --backend cpu,cl --variant openblas,naive --quiet \
  --json run.json > run.txt || fail "installed clgauge matmul: $(cat run.txt)"
clgauge compare run.json > compare.txt || fail "installed clgauge compare: $(cat compare.txt)"
grep -q 'cpu/openblas' compare.txt || fail "$(cat compare.txt)"
echo "install: ok ($(ls "$bin" | tr '\n' ' '); the Python tools' --help $python_tools)"
