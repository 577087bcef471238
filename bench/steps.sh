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
ptxas_regs() { # json name [option...]
  local opts json=$1 name=$2
  shift 2
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$json") || return
  step "$name" 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA cl/mlp.cl -I cl $opts "$@" -cl-nv-verbose
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
# `versus_shapes "N D H O ITERS"...`, after versus: each mlp shape with the fused launches
# (STRATEGY=0,PERSIST=0), ITERS iterations read back four times, as run mlp-N-D-H-O old, then new.
versus_shapes() { # "batch din hidden dout iters"...
  local sh b
  for sh in "$@"; do
    set -- $sh
    for b in old new; do
      run mlp-$1-$2-$3-$4 $b mlp --device nvidia --backend cl --variant fused --batch $1 \
        --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
        --kernel-param STRATEGY=0,PERSIST=0
    done
  done
}
