#!/bin/bash
# Candidates of the pipelined kernel's parameters beside regblock and CLBlast, on the H200.
D=.device-kernels
G="bash $D/env.sh $D/build/clgauge"
mkdir -p $OUT/j $OUT/cache
run() { # name, args...
  local name=$1; shift
  echo "=== $name: $*"
  timeout 120 $G matmul --device nvidia --binary-cache $OUT/cache --json $OUT/j/$name.json "$@" 2>&1 | grep -E "^(cl|clblast) |kernel parameters|error|rror"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
S4096="--n 4096 --loops 5 --runs 6"
S1000="--n 1000 --loops 20 --runs 10"
S777="--m 777 --k 1333 --n 555 --loops 20 --runs 10"
run base4096 $S4096 --backend cl,clblast --variant regblock,pipelined,clblast
run base1000 $S1000 --backend cl,clblast --variant regblock,pipelined,clblast
run base777 $S777 --backend cl,clblast --variant regblock,pipelined,clblast
i=0
for kp in KWG=8 PAD=0 KWG=32 MWG=128,NWG=64 WM=16,MWG=256 VW=2; do
  i=$((i+1)); run c4096_$i $S4096 --backend cl --variant pipelined --kernel-param $kp
done
i=0
for kp in MWG=64,NWG=128 MWG=128,NWG=128 MWG=64,NWG=64,WM=4,WN=4 MWG=32,NWG=64 MWG=64,NWG=64,KWG=8 MWG=128,NWG=64; do
  i=$((i+1)); run c1000_$i $S1000 --backend cl --variant pipelined --kernel-param $kp
done
i=0
for kp in MWG=64,NWG=64 MWG=64,NWG=64,WM=4,WN=4 MWG=32,NWG=32,WM=4,WN=4 MWG=32,NWG=64,KWG=8 MWG=64,NWG=32; do
  i=$((i+1)); run c777_$i $S777 --backend cl --variant pipelined --kernel-param $kp
done
ls $OUT/cache | head
cd $OUT && tar czf sweep1.tgz j cache && rm -rf j cache
