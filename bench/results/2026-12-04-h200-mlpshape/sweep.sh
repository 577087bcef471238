#!/usr/bin/env bash
# mlp shapes on the H200: cl/fused against cl/per-op and clblast over a grid of shapes, and the
# fused kernels' blockings (--kernel-param) at a few of them. Run from the repository root on the
# GPU machine:  bash sweep.sh BUNDLE OUT [PHASE]   (BUNDLE: a copy of .device; PHASE: explore,
# the first call of 2026-12-04, or final, the second). Every record is verified against the host reference; the iterations per shape are
# chosen so that the host reference (OpenBLAS on the host) takes a few seconds at most.
set -uo pipefail
D=${1:?bundle}
OUT=${2:?out}
PHASE=${3:-final}
LIMIT=${LIMIT:-275}
work=/tmp/mlpshape-results
rm -rf "$work" && mkdir -p "$work"
log=$work/log.txt
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

# iterations for a shape: the host reference about 3 s at 150 GFLOP/s, 8 to 400, read back 4 times
iters_for() {
  awk -v n="$1" -v d="$2" -v h="$3" 'BEGIN {
    it = 3 * 1.5e11 / (4 * n * d * h + 1e6); if (it > 400) it = 400; if (it < 8) it = 8;
    pe = int(it / 4); if (pe < 2) pe = 2; printf "%d %d", pe * 4, pe }'
}

run() { # NAME SHAPE(NxDxHxO) ARGS...
  local name=$1 shape=$2
  shift 2
  if [ "$(elapsed)" -gt "$LIMIT" ]; then
    echo "SKIP $name at $(elapsed) s" >>"$log"
    return
  fi
  IFS=x read -r n d h o <<<"$shape"
  read -r it pe <<<"$(iters_for "$n" "$d" "$h")"
  echo "== $name $shape iters $it print-every $pe: $* (t=$(elapsed) s)" >>"$log"
  timeout 90 bash "$D/env.sh" "$D/build/clgauge" mlp --device "${DEVICE:-nvidia}" --quiet --batch "$n" \
    --din "$d" --hidden "$h" --dout "$o" --iters "$it" --print-every "$pe" \
    --json "$work/$name.json" "$@" >>"$log" 2>&1
  echo "rc=$? (t=$(elapsed) s)" >>"$log"
  tar -C "$work" -czf "$OUT/results.tgz" . 2>/dev/null
  cp "$log" "$OUT/log.txt"
}

explore() { # SHAPE CONFIG...
  local shape=$1
  shift
  for cfg in "$@"; do
    local tag=${cfg//[=,]/_}
    if [ "$cfg" = default ]; then
      run "x-$shape-default" "$shape" --backend cl --variant fused
    else
      run "x-$shape-$tag" "$shape" --backend cl --variant fused --kernel-param "$cfg"
    fi
  done
}

grid() {
  for shape in "$@"; do run "g-$shape" "$shape" --backend clblast,cl; done
}

bash "$D/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
GRID="64x5000x5000x8 256x2048x1024x16 8x16x16x1 8x1024x1024x8 8x8192x8192x64 64x128x8192x1
  64x8192x128x64 64x16x5000x8 256x1024x1024x64 256x128x128x1 1024x16x16x1 1024x1024x1024x8
  1024x128x8192x64 1024x8192x1024x1 1024x5000x5000x64 256x5000x5000x8"
case "$PHASE" in
explore) # the first call: the fused kernels' blockings, then the grid
  explore ${X1:-64x5000x5000x8} default PF=1 VW=1 R=4 TPG=2 KC=32 PF=1,KC=32 TX=32,TY=8 THREE=0
  explore 256x2048x1024x16 default PF=1 VW=1 R=4 R=4,PF=1 R=2 KC=32 THREE=0
  grid $GRID
  explore 1024x1024x1024x8 default PF=1 R=4 KC=32 THREE=0
  explore 8x8192x8192x64 default PF=1 R=4 DZ1A=0
  ;;
final) # the second call: the big preset over more iterations, the grid, the seed preset
  run big-preset 64x5000x5000x8 --backend clblast,cl --iters 120 --print-every 20
  grid $GRID
  run seed-preset 64x1024x128x8 --backend clblast,cl --iters 2000 --print-every 500
  explore 64x5000x5000x8 PF=1
  explore 64x8192x128x64 STRATEGY=1
  ;;
esac
echo "done at $(elapsed) s" >>"$log"
cp "$log" "$OUT/log.txt"
tar -C "$work" -czf "$OUT/results.tgz" .
