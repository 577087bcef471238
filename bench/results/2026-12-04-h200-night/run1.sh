#!/usr/bin/env bash
# First call of the night: the linear Check case that crashed (signal 11) on PoCL 5.0 on the
# H200's host, unforked, each case named before it runs, with a backtrace printed on the signal
# (BUNDLE/segv.so, preloaded, where the bundle has one: built from backtrace.c beside this
# script); the same with PoCL on 2 threads; then the mlp and linear suites after the tests'
# fixes.
#   bash bench/results/2026-12-04-h200-night/run1.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/night1 "$2/night1.tar.gz"
t=$bundle/build/tests
pre=
[ -f "$bundle/segv.so" ] && pre=$(cd "$bundle" && pwd)/segv.so
bash "$bundle/env.sh" clinfo -l > /tmp/night1/clinfo.txt 2>&1
for r in 1 2; do
  step persistent-unforked-$r 200 env CK_FORK=no CK_RUN_CASE=transfers CK_VERBOSITY=verbose \
    LD_PRELOAD=$pre stdbuf -oL -eL bash "$bundle/env.sh" "$t/test_linear"
done
step persistent-unforked-2threads 200 env CK_FORK=no CK_RUN_CASE=transfers CK_VERBOSITY=verbose \
  POCL_MAX_PTHREAD_COUNT=2 LD_PRELOAD=$pre stdbuf -oL -eL bash "$bundle/env.sh" "$t/test_linear"
step test_linear 300 bash "$bundle/env.sh" "$t/test_linear"
step test_mlp_workload 200 env CK_RUN_CASE=workload bash "$bundle/env.sh" "$t/test_mlp"
