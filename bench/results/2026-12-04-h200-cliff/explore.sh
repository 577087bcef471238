#!/usr/bin/env bash
# H200 call 1: the pipelined kernel's block shapes at the cliff sizes (one sweep per shape),
# CLBlast untuned beside them, then CLBlast's own xgemm tuner (its first stage, a random quarter).
# Run from the repository root: bash .device-cliff/explore.sh; results under $OUT.
set -u
D=.device-cliff
G="bash $D/env.sh $D/build/clgauge"
O=${OUT:-/tmp/out}; mkdir -p "$O/x"
cd "$(dirname "$0")/.." 2>/dev/null || true
bash $D/env.sh clinfo -l > "$O/x/devices.txt" 2>&1
SQ=1000,1023,1024,1025,1500,2047,2048,2049,3000,4095,4096
common="--device nvidia --runs 5 --budget-s 2 --quiet --no-tuned --no-binary-cache"
declare -A cfg=(
  [a128x128k8]="MWG=128,NWG=128,KWG=8,WM=8,WN=8,VW=4,PAD=1"
  [b128x64]="MWG=128,NWG=64,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [c64x64]="MWG=64,NWG=64,KWG=16,WM=4,WN=4,VW=4,PAD=1"
  [d96x96]="MWG=96,NWG=96,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [e96x96w6]="MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2,PAD=1"
  [f128x96]="MWG=128,NWG=96,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [g96x128]="MWG=96,NWG=128,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [h64x128]="MWG=64,NWG=128,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [i96x64]="MWG=96,NWG=64,KWG=16,WM=8,WN=8,VW=4,PAD=1"
  [j128x128k16]="MWG=128,NWG=128,KWG=16,WM=8,WN=8,VW=4,PAD=1"
)
# A warm machine may have unpacked the packages before clblast-utils was among them.
[ -x /tmp/device-root/usr/bin/clblast_tuner_xgemm ] || { bash $D/env.sh true; dpkg -x $D/debs/clblast-utils_*.deb /tmp/device-root; }
t0=$(date +%s)
$G matmul --sweep-n $SQ --backend clblast $common --json "$O/x/sq-clblast.json" > "$O/x/sq-clblast.txt" 2>&1
for r in "777 1333 555" "1537 999 2049" "333 4097 1031" "4095 257 1023"; do
  set -- $r
  $G matmul --m $1 --k $2 --n $3 --backend clblast $common --json "$O/x/r$1x$2x$3-clblast.json" \
    > "$O/x/r$1x$2x$3-clblast.txt" 2>&1
done
echo "clblast done at $(( $(date +%s) - t0 )) s" >> "$O/x/progress.txt"
# CLBlast's tuner: platform index of NVIDIA from clinfo -l; stop once its first stage's JSON exists.
p=$(bash $D/env.sh clinfo -l 2>/dev/null | grep '^Platform' | grep -n -i nvidia | head -1 | cut -d: -f1)
p=$(( ${p:-1} - 1 ))
mkdir -p "$O/x/tuner" && cd "$O/x/tuner"
bash "$OLDPWD/$D/env.sh" clblast_tuner_xgemm -platform $p -device 0 -precision 32 -fraction 4 -runs 2 \
  > tuner.txt 2>&1 &
tp=$!
for s in $(seq 1 200); do [ -e clblast_xgemm_1_32.json ] && break; sleep 1; done
sleep 1; kill $tp 2>/dev/null; wait $tp 2>/dev/null
cd "$OLDPWD"
echo "tuner done at $(( $(date +%s) - t0 )) s" >> "$O/x/progress.txt"
tail -c 20000 "$O/x/tuner/tuner.txt" > "$O/x/tuner/tuner-tail.txt"; rm -f "$O/x/tuner/tuner.txt"
tar czf "$O/explore.tgz" -C "$O" x
for name in a128x128k8 b128x64 d96x96 f128x96 g96x128 c64x64 e96x96w6 h64x128 i96x64 j128x128k16; do
  $G matmul --sweep-n $SQ --backend cl --variant pipelined --kernel-param "${cfg[$name]}" $common \
    --json "$O/x/sq-$name.json" > "$O/x/sq-$name.txt" 2>&1
  for r in "777 1333 555" "1537 999 2049" "333 4097 1031" "4095 257 1023"; do
    set -- $r
    $G matmul --m $1 --k $2 --n $3 --backend cl --variant pipelined --kernel-param "${cfg[$name]}" \
      $common --json "$O/x/r$1x$2x$3-$name.json" > "$O/x/r$1x$2x$3-$name.txt" 2>&1
  done
  tar czf "$O/explore.tgz" -C "$O" x
  echo "$name done at $(( $(date +%s) - t0 )) s" >> "$O/x/progress.txt"
done
