#!/usr/bin/env bash
# Runs one clgauge command on Oclgrind's simulated device with its checks on, and fails on any
# report: data races, out-of-bounds and uninitialised accesses, barrier divergence, API misuse.
#   oclgrind_run.sh RECORDS [--expect-report REGEX] [--without-uninitialized] [--path PREFIX]
#                   [OCLGRIND OPTIONS...] -- CLGAUGE ARGS...
# Passes when clgauge exits 0, stderr is empty, and the results hold RECORDS records, all 'ok' and
# all on Oclgrind; RECORDS "probe" instead asks for one probe of Oclgrind and no records (clgauge
# probe). With --expect-report (a kernel broken on purpose) it passes only when the reports match
# REGEX instead. --without-uninitialized leaves out the uninitialised-value check, for kernels in
# float16: Oclgrind 21.10 reports the upper eight lanes of any float16 built from a scalar as
# uninitialised (their values are right), and crashes on a float16 made of two float8. --path:
# every record's kernel path (the record's "path") begins with PREFIX, so that a case meant for
# one path (e.g. "launches") cannot pass on another. Exits 77 (skipped) where oclgrind is not
# installed.
#
# Reports are read from stderr: Oclgrind's exit status is the program's own, 0 with reports, and
# its --log file is reopened, truncated, for every OpenCL context, so it keeps only the last
# record's. clgauge --quiet writes nothing to stderr, so anything there is a report or a failure.
# REGEX is matched against each report as one line (e.g. "data race.*Kernel: linear_forward").
set -uo pipefail

records=${1:?usage: oclgrind_run.sh RECORDS [--expect-report REGEX] [OPTIONS...] -- ARGS...}
shift
expect=""
if [ "${1:-}" = "--expect-report" ]; then
  expect=${2:?--expect-report needs a regular expression}
  shift 2
fi
uninitialized=(--uninitialized)
if [ "${1:-}" = "--without-uninitialized" ]; then
  uninitialized=()
  shift
fi
path_prefix=""
if [ "${1:-}" = "--path" ]; then
  path_prefix=${2:?--path needs a prefix}
  shift 2
fi
shape=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  shape+=("$1")
  shift
done
[ "${1:-}" = "--" ] || { echo "oclgrind_run.sh: no -- before the command" >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "oclgrind_run.sh: no command after --" >&2; exit 2; }

if ! command -v oclgrind >/dev/null 2>&1; then
  echo "oclgrind is not installed (Debian package oclgrind): skipped"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clgauge-oclgrind.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# One worker thread: the tests run two at a time on two cores, and one thread keeps the order of
# work-groups, and so the reports, the same from run to run.
checks=(--data-races "${uninitialized[@]}" --check-api --num-threads 1)
command=(oclgrind "${checks[@]}" "${shape[@]}" "$@" --device oclgrind --quiet
         --json "$tmp/results.json")
"${command[@]}" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?

show() {
  echo "command: ${command[*]}"
  echo "exit status: $rc"
  echo "--- stdout"
  head -c 20000 "$tmp/stdout"
  echo "--- stderr (first 200 lines of $(wc -l <"$tmp/stderr"))"
  head -n 200 "$tmp/stderr"
  echo "---"
}

if [ -n "$expect" ]; then
  # one line per report (Oclgrind separates them by blank lines), so that REGEX can name the
  # kind of report and its kernel together
  awk 'BEGIN { RS = "" } { gsub(/\n/, " "); print }' "$tmp/stderr" >"$tmp/reports"
  if grep -Eq -- "$expect" "$tmp/reports"; then
    echo "ok: Oclgrind reported what the broken kernel does ($expect)"
    exit 0
  fi
  echo "FAIL: no report matching '$expect'"
  show
  exit 1
fi

problems=()
[ "$rc" -eq 0 ] || problems+=("clgauge exited with status $rc")
[ -s "$tmp/stderr" ] && problems+=("Oclgrind reported (stderr is not empty)")
if [ -f "$tmp/results.json" ] && [ "$records" = probe ]; then
  probes=$(grep -Ec '"quick":' "$tmp/results.json")
  on_oclgrind=$(grep -Ec '"platform":[[:space:]]*"Oclgrind"' "$tmp/results.json")
  [ "$probes" -eq 1 ] || problems+=("$probes probes in the results, expected one")
  [ "$on_oclgrind" -eq 1 ] || problems+=("the probe is not of Oclgrind")
  grep -Eq '"records":[[:space:]]*\[\]' "$tmp/results.json" || problems+=("records in a probe's file")
elif [ -f "$tmp/results.json" ]; then
  total=$(grep -Ec '"status":[[:space:]]*"' "$tmp/results.json")
  ok=$(grep -Ec '"status":[[:space:]]*"ok"' "$tmp/results.json")
  # the run's devices (each with a "listed") name their platform too: the one, Oclgrind
  devices=$(grep -Ec '"listed":' "$tmp/results.json")
  on_oclgrind=$(($(grep -Ec '"platform":[[:space:]]*"Oclgrind"' "$tmp/results.json") - devices))
  [ "$total" -eq "$records" ] || problems+=("$total records, expected $records")
  [ "$ok" -eq "$total" ] || problems+=("$((total - ok)) of $total records not ok")
  [ "$devices" -eq 1 ] || problems+=("$devices devices in the results, expected Oclgrind alone")
  [ "$on_oclgrind" -eq "$total" ] || problems+=("$((total - on_oclgrind)) records not on Oclgrind")
  if [ -n "$path_prefix" ]; then
    on_path=$(grep -Ec "\"path\":[[:space:]]*\"$path_prefix" "$tmp/results.json")
    [ "$on_path" -eq "$total" ] ||
      problems+=("$((total - on_path)) of $total records not on the path '$path_prefix...'")
  fi
else
  problems+=("no results file")
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${problems[@]}"
  show
  exit 1
fi
echo "ok: $records records clean under Oclgrind ${shape[*]}"
