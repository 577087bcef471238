#!/usr/bin/env bash
# The fifth call, the build as committed (SPLIT's rule: a GPU, batch 32 to 96, din x hidden >=
# 2^23): ptxas's counts of launch A's forward build and launch G's, from a short run at the big
# preset; the big preset at the defaults and with SPLIT=0 in turn, twice; then shapes at the
# rule's edges with SPLIT=0 and SPLIT=1 (fused launches, STRATEGY=0,PERSIST=0).
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run5.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split5
variant_step big-main-0 main mlp --device nvidia --backend cl --variant fused --preset big \
  --iters 40 --print-every 20
ptxas_regs "$o/big-main-0.json" regs-a
# launch G's build: launch A's options with G's part and blocking (the record names them)
gopts=$(python3 - "$o/big-main-0.json" <<'PY'
import json, re, sys
r = [r for r in json.load(open(sys.argv[1]))['records'] if r['variant'] == 'fused'][0]
p = {q['name']: q['value'] for q in r['kernel']['params']}
o = r['kernel']['build_options']
for macro, value in (('PART', 1), ('TX', p['GTX']), ('TY', p['GTY']), ('RM', p['GR']),
                     ('RN', p['GRN']), ('KC', p['GKC']), ('UR', p['GUR']), ('TPG', 1)):
    o = re.sub(r'-D%s=\d+' % macro, '-D%s=%d' % (macro, value), o)
print(o)
PY
)
step regs-g 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
  NVIDIA cl/mlp.cl -I cl $gopts -cl-nv-verbose
settings_big 2 - SPLIT=0
settings_shapes "SPLIT=0 SPLIT=1" "32 3000 3000 8 400" "48 4096 4096 8 200" "80 5000 5000 8 200" \
  "96 3000 3000 8 200" "64 2896 2896 8 400" "112 4096 4096 8 200" "24 5000 5000 8 200" \
  "64 2048 4096 8 400"
