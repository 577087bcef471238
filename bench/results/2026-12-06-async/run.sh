#!/usr/bin/env bash
# One call: main's build (c9119d7) at the big preset twice, then once with --kernel-dir
# BUNDLE/kd/asyncprobe (cl/ with probe.cl, beside this file, appended to mlp.cl: a kernel never
# launched), so that the driver builds the probe into the program; then its PTX, taken from the
# call's binary cache, into probe-ptx.txt: cp.async there would say that async_work_group_copy
# overlaps global reads with work on a GPU of this driver.
#   bash bench/results/2026-12-06-async/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" async
for round in 1 2; do
  step big-$round 120 "${clgauge[@]}" "${big_preset[@]}" --json "$o/big-$round.json"
done
rm -rf "$bundle/kd/asyncprobe"
cp -r "$here/../cl" "$bundle/kd/asyncprobe"
cat "$here/results/2026-12-06-async/probe.cl" >> "$bundle/kd/asyncprobe/mlp.cl"
step big-probe 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-dir "$bundle/kd/asyncprobe" \
  --json "$o/big-probe.json"
step probe-ptx 30 python3 - "$o/cache" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        text = open(os.path.join(root, name), "rb").read().decode("latin-1")
        at = text.find(".entry probe_async_copy")
        if at < 0:
            continue
        end = text.find(".entry", at + 1)
        print(text[at:end if end > 0 else len(text)])
        print("cp.async in the probe:", "cp.async" in text[at:end if end > 0 else len(text)])
PY
