#!/bin/bash
# On the H200: regblock, pipelined (defaults) and CLBlast at the target sizes and the cliff
# sizes, more candidates of the pipelined parameters, cuBLAS through PyTorch, PoCL on the host.
D=.device-kernels
G="bash $D/env.sh $D/build/clgauge"
mkdir -p $OUT/j
run() { # name, args...
  local name=$1; shift
  echo "=== $name: $*"
  timeout 150 $G matmul --json $OUT/j/$name.json "$@" 2>&1 | grep -E "^(cl|clblast) |kernel parameters|clgauge"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S4096="--n 4096 --loops 5 --runs 6"
S1000="--n 1000 --loops 20 --runs 10"
S777="--m 777 --k 1333 --n 555 --loops 20 --runs 10"
NV="--device nvidia --backend cl,clblast --variant regblock,pipelined,sgemm"
run t4096 $NV $S4096
run t1000 $NV $S1000
run t777 $NV $S777
for n in 1023 1024 1025 2047 4095; do
  L=20; [ $n -gt 2000 ] && L=5
  run cliff$n $NV --n $n --loops $L --runs 6
done
i=0
for kp in KWG=16 KWG=8,PAD=2; do i=$((i+1)); run c4096_$i --device nvidia --backend cl --variant pipelined $S4096 --kernel-param $kp; done
i=0
for kp in KWG=8 MWG=64,NWG=128 WN=4,NWG=32 MWG=128,NWG=128,KWG=16; do i=$((i+1)); run c1000_$i --device nvidia --backend cl --variant pipelined $S1000 --kernel-param $kp; done
i=0
for kp in KWG=8 MWG=64,NWG=32 MWG=32,NWG=64 WM=8,MWG=64,NWG=64 WN=8,MWG=64,NWG=64 KWG=32,MWG=32,NWG=32 MWG=128,NWG=64,WM=8,WN=8 MWG=32,NWG=32,WM=2,WN=2,VW=2; do i=$((i+1)); run c777_$i --device nvidia --backend cl --variant pipelined $S777 --kernel-param $kp; done
echo "=== pocl on the host, n=1000"
run pocl1000 --device pocl --backend cpu,cl --variant openblas,regblock,pipelined --n 1000 --loops 2 --runs 4
python3 $D/cublas.py $OUT/j/cublas.json 2>&1 | tail -9
cd $OUT && tar czf sweep2.tgz j && rm -rf j
