#!/usr/bin/env bash
# Runs bench/pytorch_seeds.py at tiny sizes on the CPU and checks its results file: clgauge's
# schema, the records' parameters equal to clgauge's own for the same sizes, and 'clgauge
# compare' reading it alone and beside a clgauge run. Exits 77 (skipped) where the interpreter
# has no PyTorch.
#   test_pytorch_seeds.sh PYTHON SCRIPT CLGAUGE WORKDIR
set -euo pipefail
python=$1 script=$(realpath "$2") clgauge=$(realpath "$3") work=$4
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "skipped: $python cannot import torch (apt-get install python3-torch)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

# The same tiny sizes for clgauge (mlp=...) and for the script (--mlp-batch 4 ...).
mlp=(--batch 4 --din 9 --hidden 7 --dout 3 --iters 20 --print-every 5)
linear=(--samples 64 --features 9 --classes 4 --batch 16 --epochs 3)
matmul=(--n 33 --loops 2 --runs 3)
sizes=()
for w in mlp linear matmul; do
  declare -n opts=$w
  for o in "${opts[@]}"; do
    case $o in --*) sizes+=("--$w-${o#--}") ;; *) sizes+=("$o") ;; esac
  done
done

"$script" --device cpu --threads 1 "${sizes[@]}" --json pt.json > pt.txt ||
  fail "pytorch_seeds.py exited $?: $(cat pt.txt)"
cat pt.txt
grep -q '^mlp  *eager  *-  *host CPU .* ok$' pt.txt || fail "no mlp eager line in the table"

# clgauge's own records at the same sizes, on the host only (no device needed)
"$clgauge" mlp "${mlp[@]}" --backend cpu --quiet --json c-mlp.json > /dev/null
"$clgauge" linear "${linear[@]}" --backend cpu --quiet --json c-linear.json > /dev/null
"$clgauge" matmul "${matmul[@]}" --backend cpu --quiet --json c-matmul.json > /dev/null

"$python" - pt.json c-mlp.json c-linear.json c-matmul.json <<'PY' || fail "the results file"
import json, math, sys
pt = json.load(open(sys.argv[1]))
assert pt["schema"] == "clgauge.results/5", pt["schema"]
assert pt["devices"] == [] and all(r["budget"]["cut"] is False and r["budget"]["runs_asked"] == len(r["runs"]) for r in pt["records"])
recs = {(r["workload"], r["variant"]): r for r in pt["records"]}
assert sorted(recs) == [("linear", "dataloader"), ("matmul", "eager"), ("mlp", "eager")], recs
for r in pt["records"]:
    assert r["backend"] == "pytorch" and r["status"] == "ok", (r["workload"], r["status"], r["reason"])
    assert r["device"]["name"] == "host CPU" and r["device"]["type"] == "CPU"
    steady = r["phases"]["steady"]
    assert steady["complete_ms"]["n"] == len(r["runs"]) - 1 >= 1
    assert steady["complete_ms_per_iter"] > 0 and math.isfinite(steady["complete_ms_per_iter"])
    assert r["phases"]["first"]["complete_ms"] > 0
    for run in r["runs"]:
        assert 0 < run["enqueue_ms"] <= run["complete_ms"], run
# the same parameters, work and iterations per run as clgauge's records of the same sizes
for path in sys.argv[2:]:
    c = json.load(open(path))["records"][0]
    p = [r for r in pt["records"] if r["workload"] == c["workload"]][0]
    assert p["params"] == c["params"], (p["params"], c["params"])
    for key in ("flops_per_iter", "bytes_per_iter", "iters_per_run"):
        assert math.isclose(p["work"][key], c["work"][key]), (c["workload"], key)
    # clgauge's host records say "host"; the DataLoader loop's batches are pageable memory
    assert p["transfer"] == ("pageable" if c["workload"] == "linear" else c["transfer"])
    assert len(p["losses"]["values"]) == len(c["losses"]["values"])
    for a, b in zip(p["losses"]["values"], c["losses"]["values"]):
        if c["workload"] == "mlp":  # the same loop on other random numbers: the same scale
            assert 0.01 < a / b < 100, (a, b)
m = recs[("matmul", "eager")]["phases"]["verify"]
assert m["rel_error"] <= m["tolerance"], m
print("results file: ok")
PY

# compare reads it alone (its one device, the host) and beside clgauge's records
"$clgauge" compare pt.json > alone.txt || fail "compare pt.json exited $?"
grep -q 'pytorch/eager' alone.txt && grep -q 'pytorch/dataloader/pageable' alone.txt ||
  fail "compare pt.json: $(cat alone.txt)"
"$clgauge" compare c-mlp.json pt.json --format csv > beside.csv || fail "compare exited $?"
cat beside.csv
# clgauge's cpu record and PyTorch's, one after the other, with the same parameters
params='"batch=4;din=9;hidden=7;dout=3;iters=20;lr=1e-09;update_w3=0;print_every=5;seed=42"'
grep -A4 '^"mlp","cpu","openblas","",'"$params"',"host CPU","steady","ms/it",[0-9.e-]*,"ok",,"missing",' \
  beside.csv | grep -q '^"mlp","pytorch","eager","",'"$params"',"host CPU","first"' ||
  fail "compare c-mlp.json pt.json: the records are not side by side"
grep -q '^"mlp","pytorch","eager","",'"$params"',"host CPU","steady","ms/it",,"missing",[0-9.e-]*,"ok",' \
  beside.csv || fail "compare c-mlp.json pt.json: no steady figure of pytorch/eager"
# the file compared with itself: every ratio 1, no regression
"$clgauge" compare pt.json pt.json --threshold 0 --phase steady > self.txt || fail "self compare"
grep -q "No record's steady time" self.txt || fail "$(cat self.txt)"

# asked for CUDA where there is none: skipped records, exit 0; bad usage: exit 2
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  "$script" --device cuda --workload mlp "${sizes[@]}" --quiet --json cuda.json
  grep -q '"status": "skipped"' cuda.json || fail "no skipped CUDA record"
  "$clgauge" compare cuda.json > /dev/null || fail "compare cuda.json"
fi
set +e
"$script" --mlp-iters 0 2> usage.txt
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'mlp-iters' usage.txt || fail "--mlp-iters 0: exit $rc"
echo "pytorch_seeds: ok"
