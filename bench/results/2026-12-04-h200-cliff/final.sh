#!/usr/bin/env bash
# H200 call 2: CLBlast tuned by its own tuner through clgauge tune (one entry per size class),
# then matmul at the cliff sizes and odd rectangular shapes: cl/pipelined (its default, chosen by
# the wave model), clblast untuned and clblast tuned. Run from the repository root:
#   bash .device-cliff/final.sh      (results under $OUT, tarred)
set -u
D=.device-cliff
G="bash $D/env.sh $D/build/clgauge"
O=${OUT:-/tmp/out}; mkdir -p "$O/f"
# A warm machine may have unpacked the packages before clblast-utils was among them.
[ -x /tmp/device-root/usr/bin/clblast_tuner_xgemm ] || { bash $D/env.sh true; dpkg -x $D/debs/clblast-utils_*.deb /tmp/device-root; }
bash $D/env.sh clinfo -l > "$O/f/devices.txt" 2>&1
t0=$(date +%s); log() { echo "$1 at $(( $(date +%s) - t0 )) s" >> "$O/f/progress.txt"; }
TF="$O/f/tuning.json"
# size classes 15 (n=1000..1290, 777x1333x555), 16, 17 and 18 (n=4095, 4096)
for n in 1024 1536 2048 4096; do
  $G tune --workload matmul --backend clblast --set n=$n --fraction 4 --budget-s 100 \
    --device nvidia --tuning-file "$TF" > "$O/f/tune-n$n.txt" 2>&1
  log "tune n=$n"
  tar czf "$O/final.tgz" -C "$O" f
done
SQ=1000,1023,1024,1025,1500,2047,2048,2049,3000,4095,4096
$G matmul --sweep-n $SQ --backend cl,clblast --variant pipelined --no-tuned --device nvidia \
  --json "$O/f/sq-untuned.json" > "$O/f/sq-untuned.txt" 2>&1
log "sweep cl and clblast untuned"
# tuned CLBlast: one process per size (CLBlast keeps an override for the rest of a process)
for n in ${SQ//,/ }; do
  $G matmul --n $n --backend clblast --tuning-file "$TF" --device nvidia \
    --json "$O/f/n$n-clblast-tuned.json" > "$O/f/n$n-clblast-tuned.txt" 2>&1
done
log "clblast tuned"
tar czf "$O/final.tgz" -C "$O" f
for r in "777 1333 555" "1537 999 2049" "333 4097 1031" "4095 257 1023" "555 555 555" "1 1 1" "97 4099 131"; do
  set -- $r; s=$1x$2x$3
  $G matmul --m $1 --k $2 --n $3 --backend cl,clblast --variant pipelined --no-tuned --device nvidia \
    --json "$O/f/r$s-untuned.json" > "$O/f/r$s-untuned.txt" 2>&1
  $G matmul --m $1 --k $2 --n $3 --backend clblast --tuning-file "$TF" --device nvidia \
    --json "$O/f/r$s-clblast-tuned.json" > "$O/f/r$s-clblast-tuned.txt" 2>&1
done
log "rectangular"
# the two small blocks the model weighs against each other at small shapes (64x64 and 32x32)
for r in "555 555 555" "333 4097 1031" "777 1333 555"; do
  set -- $r; s=$1x$2x$3
  for kp in "c64|MWG=64,NWG=64,KWG=16,WM=4,WN=4,VW=4,PAD=1" "d32|MWG=32,NWG=32,KWG=32,WM=4,WN=4,VW=4,PAD=1"; do
    $G matmul --m $1 --k $2 --n $3 --backend cl --variant pipelined --no-tuned --device nvidia \
      --kernel-param "${kp#*|}" --json "$O/f/cand-r$s-${kp%%|*}.json" > "$O/f/cand-r$s-${kp%%|*}.txt" 2>&1
  done
done
$G matmul --n 4096 --backend cl --variant pipelined --no-tuned --device nvidia \
  --kernel-param MWG=32,NWG=32,KWG=32,WM=4,WN=4,VW=4,PAD=1 --json "$O/f/cand-n4096-d32.json" \
  > "$O/f/cand-n4096-d32.txt" 2>&1
log "candidates"
tar czf "$O/final.tgz" -C "$O" f
