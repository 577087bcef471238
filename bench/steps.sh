#!/usr/bin/env bash
# Sourced by the scripts of device calls under bench/results/: `steps_begin OUT TAR` names the
# folder of the call's logs and the tarball beside it (remade after every step, so that a call cut
# short still brings back what ran); `step NAME LIMIT COMMAND...` runs one command with a time
# limit, its stdout in NAME.txt and stderr in NAME.err, and its exit status and milliseconds in
# steps.log. XDG_CACHE_HOME is a fresh folder of the call (clgauge's binary cache starts empty),
# left out of the tarball.
steps_begin() { # out tarball
  steps_out=$1 steps_tar=$2
  mkdir -p "$steps_out/cache"
  export XDG_CACHE_HOME=$steps_out/cache
  date -u > "$steps_out/date.txt"
}
step() { # name limit command...
  local name=$1 limit=$2 t0
  shift 2
  t0=$(date +%s%N)
  echo "== $name ($(date -u +%T))" | tee -a "$steps_out/steps.log"
  timeout "$limit" "$@" > "$steps_out/$name.txt" 2> "$steps_out/$name.err"
  echo "   rc $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$steps_out/steps.log"
  tar -C "$steps_out" -czf "$steps_tar" --exclude=./cache .
}
# The common start of a device call's script: `device_call BUNDLE OUT NAME` sets `bundle`, the
# call's logs folder /tmp/NAME (`o`, tarred into OUT/NAME.tar.gz), `clgauge` (an array: the
# bundle's build run through its env.sh), and writes the GPU's name and driver to gpu.txt.
device_call() { # bundle out name
  bundle=$1
  steps_begin "/tmp/$3" "$2/$3.tar.gz"
  o=$steps_out
  clgauge=(bash "$bundle/env.sh" "$bundle/build/clgauge")
  bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
}
# `ptxas_regs JSON NAME [OPTION...]`, after device_call: step NAME builds the fused mlp program
# again with the build options of JSON's fused record, the OPTIONs and -cl-nv-verbose
# (bench/cl_build_log, the driver's cache off), so that its log holds ptxas's register counts.
# `ptxas_regs_in DIR JSON NAME [OPTION...]` does so with the kernels of DIR in place of cl/.
ptxas_regs() { # json name [option...]
  ptxas_regs_in cl "$@"
}
ptxas_regs_in() { # dir json name [option...]
  local opts dir=$1 json=$2 name=$3
  shift 3
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$json") || return
  step "$name" 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA "$dir/mlp.cl" -I "$dir" $opts "$@" -cl-nv-verbose
}
# The mlp commands the call scripts compare: `big_preset`, the big preset with 120 iterations read
# back three times; `mlp_shape N D H O ITERS` sets `shape` to shape N x D x H x O with the fused
# launches (STRATEGY=0,PERSIST=0), ITERS iterations read back four times.
big_preset=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120
            --print-every 40)
mlp_shape() { # batch din hidden dout iters
  # shellcheck disable=SC2054 # the commas are one --kernel-param's
  shape=(mlp --device nvidia --backend cl --variant fused --batch "$1" --din "$2" --hidden "$3"
         --dout "$4" --iters "$5" --print-every $(( $5 / 4 )) --kernel-param STRATEGY=0,PERSIST=0)
}
# `versus BINARY`, after device_call: `run NAME old|new ARGS...` then runs one clgauge command as
# step NAME-old with BUNDLE/BINARY (a build carried beside the bundle's own, through its env.sh)
# or as step NAME-new with the bundle's build, 120 s each, its JSON in NAME-old.json or
# NAME-new.json, so that a call compares two builds in turn on one card.
versus() { # binary
  old=(bash "$bundle/env.sh" "$bundle/$1")
}
run() { # name old|new args...
  local name=$1 build=$2
  shift 2
  if [ "$build" = old ]; then
    step "$name-old" 120 "${old[@]}" "$@" --json "$o/$name-old.json"
  else
    step "$name-new" 120 "${clgauge[@]}" "$@" --json "$o/$name-new.json"
  fi
}
# `versus_big ROUNDS`, after versus: the big preset as run big-ROUND old, then new, ROUNDS times.
versus_big() { # rounds
  local round b
  for round in $(seq "$1"); do
    for b in old new; do run big-$round $b "${big_preset[@]}"; done
  done
}
# The pipelined matmul at its default parameters (the tuning file unread), four runs per size.
pipelined_default=(matmul --device nvidia --backend cl --variant pipelined --runs 4 --no-tuned
                   --quiet)
# `versus_sweep ROUNDS SIZES`, after versus: the pipelined matmul's default at the square SIZES
# (--sweep-n) as run sweep-ROUND old, then new, ROUNDS times, four runs each.
versus_sweep() { # rounds sizes
  local round b
  for round in $(seq "$1"); do
    for b in old new; do
      run "sweep-$round" "$b" "${pipelined_default[@]}" --sweep-n "$2"
    done
  done
}
# `versus_shapes "N D H O ITERS"...`, after versus: each mlp shape (mlp_shape) as run
# mlp-N-D-H-O old, then new.
versus_shapes() { # "batch din hidden dout iters"...
  local sh b
  for sh in "$@"; do
    mlp_shape $sh
    set -- $sh
    for b in old new; do run mlp-$1-$2-$3-$4 $b "${shape[@]}"; done
  done
}
# `versus_products "N D H O ITERS"...`, after versus: as versus_shapes, with the fused mlp's
# products step (STRATEGY=1, the pipelined matmul kernel's products) in place of its launches.
versus_products() { # "batch din hidden dout iters"...
  local sh b
  for sh in "$@"; do
    mlp_shape $sh
    shape=("${shape[@]/STRATEGY=0,PERSIST=0/STRATEGY=1}")
    set -- $sh
    for b in old new; do run mlp-$1-$2-$3-$4 $b "${shape[@]}"; done
  done
}
# Kernel variants (BUNDLE/kd/VARIANT, written by a script beside the call's; `main` is the
# embedded kernels), each run by the bundle's build in turn with main's, after device_call:
# `variant_step NAME VARIANT ARGS...` runs clgauge ARGS with the variant's kernels as step NAME,
# 120 s, its JSON in NAME.json; `variants_big ROUNDS VARIANT...` the big preset, steps
# big-VARIANT-ROUND; `variants_shapes "VARIANT..." "N D H O ITERS"...` each mlp shape (mlp_shape),
# steps mlp-N-D-H-O-VARIANT; `variants_regs JSON VARIANT...` ptxas's counts of each, steps
# regs-VARIANT, from the build options of JSON's fused record; `variants_regs_first VARIANT...`
# the same from a short run of main's kernels at the big preset first (step big-main-0).
variant_dir() { # variant
  if [ "$1" = main ]; then echo cl; else echo "$bundle/kd/$1"; fi
}
variant_step() { # name variant args...
  local name=$1 dir=()
  [ "$2" = main ] || dir=(--kernel-dir "$bundle/kd/$2")
  shift 2
  step "$name" 120 "${clgauge[@]}" "$@" "${dir[@]}" --json "$o/$name.json"
}
variants_big() { # rounds variant...
  each_round variant "$@"
}
variants_shapes() { # "variant..." "batch din hidden dout iters"...
  each_shape variant "$@"
}
variant_name() { # variant
  echo "$1"
}
variants_regs() { # json variant...
  local v json=$1
  shift
  for v in "$@"; do ptxas_regs_in "$(variant_dir $v)" "$json" regs-$v; done
}
variants_regs_first() { # variant...
  variant_step big-main-0 main mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 40 --print-every 20
  variants_regs "$o/big-main-0.json" "$@"
}
# Settings of one build's kernel parameters, each run in turn, after device_call: `settings_big
# ROUNDS SETTING...` the big preset with --kernel-param SETTING (`-`: the defaults), steps
# big-NAME-ROUND; `settings_shapes "SETTING..." "N D H O ITERS"...` each mlp shape (mlp_shape)
# with each setting, steps mlp-N-D-H-O-NAME; `setting_step NAME SETTING ARGS...` one run. NAME is
# the setting in lower case without its `=` and `,` (SPLIT=0: split0), or `default`.
settings_big() { # rounds setting...
  each_round setting "$@"
}
settings_shapes() { # "setting..." "batch din hidden dout iters"...
  each_shape setting "$@"
}
setting_name() { # setting
  if [ "$1" = - ]; then echo default; else local n=${1//[=,]/}; echo "${n,,}"; fi
}
setting_step() { # name setting args...
  local name=$1 setting=$2 param=()
  shift 2
  [ "$setting" = - ] || param=(--kernel-param "$setting")
  variant_step "$name" main "$@" "${param[@]}"
}
# The loops of both, KIND variant or setting (KIND_name names an item, KIND_step runs it):
# `each_round KIND ROUNDS ITEM...` the big preset, steps big-NAME-ROUND; `each_shape KIND
# "ITEM..." "N D H O ITERS"...` each mlp shape (mlp_shape), steps mlp-N-D-H-O-NAME.
each_round() { # kind rounds item...
  local round item kind=$1 rounds=$2
  shift 2
  for round in $(seq "$rounds"); do
    for item in "$@"; do
      "${kind}_step" "big-$("${kind}_name" "$item")-$round" "$item" "${big_preset[@]}"
    done
  done
}
each_shape() { # kind "item..." "batch din hidden dout iters"...
  local sh item kind=$1 items=$2
  shift 2
  for sh in "$@"; do
    mlp_shape $sh
    set -- $sh
    for item in $items; do
      "${kind}_step" "mlp-$1-$2-$3-$4-$("${kind}_name" "$item")" "$item" "${shape[@]}"
    done
  done
}
# `matmul_targets`, after device_call: issue 10's matmul sizes (n = 1000 and 4096, the cliff's
# neighbours 1023 to 4095, and 777 x 1333 x 555 as M x K x N), cl/pipelined beside clblast, five
# runs each, steps matmul-nN and matmul-777x1333x555.
matmul_targets() {
  local n mm=(matmul --device nvidia --backend clblast,cl --variant sgemm,pipelined --runs 5)
  for n in 1000 4096 1023 1024 1025 2047 4095; do
    step matmul-n$n 120 "${clgauge[@]}" "${mm[@]}" --n $n --json "$o/matmul-n$n.json"
  done
  step matmul-777x1333x555 120 "${clgauge[@]}" "${mm[@]}" --n 555 --m 777 --k 1333 \
    --json "$o/matmul-777x1333x555.json"
}
# `tune_check N BUDGET SIZES`, after device_call: clgauge tune of the pipelined matmul at n=N
# within BUDGET seconds into its own tuning file (step tune-nN), then at the square SIZES (--sweep-n)
# the pipelined matmul with that file (tuned-nN) and without (untuned-nN), four runs each.
tune_check() { # n budget sizes
  local f=$o/tuning-n$1.json
  step "tune-n$1" $(( $2 + 90 )) "${clgauge[@]}" tune --device nvidia --workload matmul \
    --variant pipelined --set "n=$1" --budget-s "$2" --tuning-file "$f"
  step "tuned-n$1" 120 "${clgauge[@]}" matmul --device nvidia --backend cl --variant pipelined \
    --runs 4 --quiet --tuning-file "$f" --sweep-n "$3" --json "$o/tuned-n$1.json"
  step "untuned-n$1" 120 "${clgauge[@]}" "${pipelined_default[@]}" --sweep-n "$3" \
    --json "$o/untuned-n$1.json"
}
# `matmul_blocks`, after device_call: the pipelined matmul's blocks and splits at 39 square sizes,
# to hold the default's model of waves (src/backends/cl/matmul_pipelined.c) against: 32 sizes
# drawn from 1024 to 3072 (Python's random.Random(20261207).sample) and the sizes n+1 of the
# drops above 15%; at each the default (step blocks-default), the 128x128 block unsplit, the
# 128x64 block in 1, 2 and 4 parts and the 96x96 block in 1, 2, 4 and 8 parts (steps
# blocks-MWGxNWG-sSPLITS, --kernel-param overrides).
blocks_sizes=1057,1070,1125,1245,1249,1357,1367,1409,1442,1537,1540,1547,1609,1616,1628
blocks_sizes+=,1658,1793,1843,1859,1885,1952,2001,2049,2055,2111,2168,2216,2250,2296,2330,2370
blocks_sizes+=,2497,2561,2568,2667,2682,2810,2969,3021
blocks_matmul=("${pipelined_default[@]}" --sweep-n "$blocks_sizes")
block_128x64=MWG=128,NWG=64,KWG=16,WM=8,WN=8,VW=4,PAD=1
block_96x96=MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2,PAD=1
# `split_steps BLOCK PARAMS PARTS...`: at matmul_blocks' sizes, the block BLOCK (its
# --kernel-param PARAMS) split into each count of PARTS, step blocks-BLOCK-sPARTS.
split_steps() { # block params parts...
  local block=$1 params=$2 parts
  shift 2
  for parts in "$@"; do
    variant_step "blocks-$block-s$parts" main "${blocks_matmul[@]}" \
      --kernel-param "$params,SPLITS=$parts"
  done
}
matmul_blocks() {
  variant_step blocks-default main "${blocks_matmul[@]}"
  variant_step blocks-128x128-s1 main "${blocks_matmul[@]}" \
    --kernel-param MWG=128,NWG=128,KWG=8,WM=8,WN=8,VW=4,PAD=1
  split_steps 128x64 "$block_128x64" 1 2 4
  split_steps 96x96 "$block_96x96" 1 2 4 8
}
# `matmul_blocks_more`, after device_call: as matmul_blocks, the split counts that the default
# picks there and matmul_blocks does not run: the 96x96 block in 3, 5 and 6 parts, the 128x64
# block in 3 and 8 (steps blocks-MWGxNWG-sSPLITS).
matmul_blocks_more() {
  split_steps 96x96 "$block_96x96" 3 5 6
  split_steps 128x64 "$block_128x64" 3 8
}
# `blocks_versus VARIANT...`, after device_call: the default at matmul_blocks' sizes with main's
# kernels and each VARIANT's (bundle/kd/VARIANT) in turn, steps versus-main and versus-VARIANT.
blocks_versus() { # variant...
  local v
  for v in main "$@"; do variant_step "versus-$v" "$v" "${blocks_matmul[@]}"; done
}
# `big_preset_owed`, after device_call: the H200's figures owed of the big preset, its rounds at
# the defaults and with SPLIT=0 (settings_big, three) and its record beside clblast and
# cl/per-op (step big-preset, 120 iterations).
big_preset_owed() {
  settings_big 3 - SPLIT=0
  step big-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --preset big \
    --iters 120 --print-every 20 --json "$o/big-preset.json"
}
# `h200_owed`, after device_call: on an H200 (gpu.txt), the figures owed there since the last H200
# calls: the big preset (big_preset_owed), the seed preset at 2000 iterations, linear at every
# transfer and matmul's targets; on another card nothing.
h200_owed() {
  grep -q H200 "$o/gpu.txt" || return 0
  big_preset_owed
  step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
    --print-every 500 --json "$o/seed-preset.json"
  step linear 120 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
    --transfer all --json "$o/linear.json"
  matmul_targets
}
# `mlp_grid NxDxHxO...`, after device_call: each mlp shape with clblast and cl (per-op and fused)
# beside the host reference, step g-NxDxHxO, its JSON in g-NxDxHxO.json; iterations such that the
# host reference takes about 3 s at 150 GFLOP/s (8 to 400), read back four times.
mlp_grid() { # NxDxHxO...
  local s n d h out it pe
  for s in "$@"; do
    IFS=x read -r n d h out <<< "$s"
    read -r it pe <<< "$(awk -v n="$n" -v d="$d" -v h="$h" 'BEGIN {
      it = 3 * 1.5e11 / (4 * n * d * h + 1e6); if (it > 400) it = 400; if (it < 8) it = 8;
      printf "%d %d", int(it / 4) * 4, int(it / 4) }')"
    step "g-$s" 90 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --batch "$n" \
      --din "$d" --hidden "$h" --dout "$out" --iters "$it" --print-every "$pe" \
      --json "$o/g-$s.json"
  done
}
# `random_grid SEED COUNT`, after device_call: COUNT shapes drawn by random_shapes, written to
# shapes.txt, each run by mlp_grid.
random_grid() { # seed count
  random_shapes "$1" "$2" > "$o/shapes.txt"
  # shellcheck disable=SC2046 # one word per shape
  mlp_grid $(cat "$o/shapes.txt")
}
# `random_shapes SEED COUNT`: COUNT mlp shapes NxDxHxO, one per line, drawn log-uniform from SEED
# over issue 10's range (batch 8 to 1024, din and hidden 16 to 8192, dout 1 to 64).
random_shapes() { # seed count
  python3 - "$1" "$2" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
draw = lambda lo, hi: min(hi, int(lo * (hi / lo) ** rng.random()))
for _ in range(int(sys.argv[2])):
    print("%dx%dx%dx%d" % (draw(8, 1024), draw(16, 8192), draw(16, 8192), draw(1, 64)))
PY
}
