#!/usr/bin/env bash
# Third call: the persistent mlp at the seed shape by barrier (GSYNC), exit fence (GFENCE) and
# work-items per group (WG_PERSIST), with the launches beside them, each twice.
#   bash bench/results/2026-12-04-h200-evening/run3.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/call3 "$2/call3.tar.gz"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
seed=(mlp --device nvidia --backend cl --variant fused --iters 2000 --print-every 500)
tiny=(mlp --device nvidia --backend cl --variant fused --batch 8 --din 16 --hidden 16 --dout 1
      --iters 2000 --print-every 500)
for r in 1 2; do
  for v in PERSIST=0 PERSIST=1,GSYNC=0 PERSIST=1,GSYNC=1 PERSIST=1,GSYNC=1,GFENCE=0 \
           PERSIST=1,GSYNC=1,WG_PERSIST=512 PERSIST=1,GSYNC=1,WG_PERSIST=1024 \
           PERSIST=1,GSYNC=1,GFENCE=0,WG_PERSIST=512 PERSIST=1,GSYNC=1,PGROUPS=264; do
    name=$(echo "$v" | tr ',=' '-_')
    step seed-$name-$r 60 "${b[@]}" "${seed[@]}" --kernel-param "$v" \
      --json "$steps_out/seed-$name-$r.json"
  done
  for v in PERSIST=1,GSYNC=0 PERSIST=1,GSYNC=1 PERSIST=1,GSYNC=1,GFENCE=0; do
    name=$(echo "$v" | tr ',=' '-_')
    step tiny-$name-$r 60 "${b[@]}" "${tiny[@]}" --kernel-param "$v" \
      --json "$steps_out/tiny-$name-$r.json"
  done
done
