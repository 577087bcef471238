#!/usr/bin/env bash
# pinned linear with the gather of group g+1 on host threads while the host enqueues group g
# (three staging buffers; b0dfb5c) against the build before it (f536e78, from before.sh), each
# beside resident, four rounds interleaved; then, on the new build, the groups growing and
# shrinking at the epoch's ends (RAMP=1, whose fill of the pipeline is a few batches, not 32),
# 8 gathering threads, and groups of 16 and 64. Issue 10's target: pinned within 1.5 times
# resident.
#   bash bench/results/2026-12-05-h200-pinned/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-pinned
new=("${clgauge[@]}")
old=()
[ -x "$bundle/before/clgauge" ] && old=(bash "$bundle/env.sh" "$bundle/before/clgauge")
cp "$bundle/before/commit" "$o/before-commit.txt" 2>/dev/null
lin=(linear --device nvidia --backend cl --variant fused)
for r in 1 2 3 4; do
  step resident-$r 60 "${new[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$r.json"
  step pinned-$r 60 "${new[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-$r.json"
  [ ${#old[@]} -gt 0 ] &&
    step before-pinned-$r 60 "${old[@]}" "${lin[@]}" --transfer pinned \
      --json "$o/before-pinned-$r.json"
  step pinned-ramp-$r 60 "${new[@]}" "${lin[@]}" --transfer pinned --kernel-param RAMP=1 \
    --json "$o/pinned-ramp-$r.json"
done
for kp in THREADS=8 GROUP=16 GROUP=64 RAMP=1,THREADS=8; do
  tag=$(echo "$kp" | tr ',=' '-_')
  step pinned-$tag 60 "${new[@]}" "${lin[@]}" --transfer pinned --kernel-param "$kp" \
    --json "$o/pinned-$tag.json"
done
# the per-batch summary of every record: complete, gather, upload, compute, hidden share
python3 - "$o" > "$o/summary.txt" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        r = json.load(open(f))["records"][0]
        p, t = r["phases"], r["phases"].get("transfer", {})
        print("%-28s %-8s %.5f ms/batch  gather %s  upload %s  compute %s  hidden %s" % (
            os.path.basename(f)[:-5], r["transfer"], p["steady"]["complete_ms_per_iter"],
            t.get("batch_gather_host_ms"), t.get("batch_upload_ms"), t.get("batch_compute_ms"),
            t.get("upload_hidden_share")))
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e)
PY
tar -C "$o" -czf "$2/h200-pinned.tar.gz" --exclude=./cache .
