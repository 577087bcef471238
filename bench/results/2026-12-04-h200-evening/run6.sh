#!/usr/bin/env bash
# Sixth call: the linear Check case that crashed in PoCL 5.0 on the H200's host in call 5 (part
# b), unforked and line-buffered so that its last case shows, and the mlp and linear suites again
# after the tests' fixes.   bash bench/results/2026-12-04-h200-evening/run6.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/call6 "$2/call6.tar.gz"
t=$bundle/build/tests
for r in 1 2; do
  step persistent-unforked-$r 240 env CK_FORK=no CK_RUN_CASE=transfers CK_VERBOSITY=verbose \
    stdbuf -oL -eL bash "$bundle/env.sh" "$t/test_linear"
done
step test_linear 300 bash "$bundle/env.sh" "$t/test_linear"
step test_mlp_workload 200 env CK_RUN_CASE=workload bash "$bundle/env.sh" "$t/test_mlp"
