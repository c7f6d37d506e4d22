#!/usr/bin/env bash
# Fuzzes every reader of files written by others (loads, policies, sessions, model configs, vLLM
# benchmark results, tour scripts, per-request and sweep CSVs) with libFuzzer for a bounded time per target.
#
#   tests/fuzz/run_fuzz.sh [--seconds N] [--build DIR] [--cxx CLANG] [--jobs J] [TARGET...]
#
# TARGETs: azure burstgpt vidur mooncake native detect gen_spec policy session model_config
# vllm_bench tour requests_csv sweep_csv gpu calibration (default: all).
# Builds all of core (CMake, into DIR/core) and the fuzz bodies with clang
# (-fsanitize=fuzzer,address,undefined) into DIR (default build/fuzz), then runs each target for
# N seconds (default 60) starting from
# tests/fuzz/corpus/TARGET. New corpus entries and crash artifacts stay in DIR; copy a crash
# reproducer into tests/fuzz/corpus/TARGET/ once fixed so the corpus test keeps it fixed.
# Exit status: 0 when every target ran its time without a crash, hang or sanitizer report.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seconds=60
build="$root/build/fuzz"
cxx=${CXX_FUZZ:-clang++-14}
jobs=2
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --cxx) cxx=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] ||
  targets=(azure burstgpt vidur mooncake native detect gen_spec policy session model_config vllm_bench tour
           requests_csv sweep_csv gpu calibration)

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer $sanitize -I"$root/core" -I"$root/tests/fuzz"
       -I"$build/core/core")
mkdir -p "$build/obj" "$build/artifacts"

# All of core, built by CMake with the same clang and sanitizers (and coverage for libFuzzer) into
# DIR/core: every reader's dependencies, however they move between the layers.
if [[ ! -f "$build/core/build.ninja" ]]; then
  cmake -S "$root" -B "$build/core" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="-O1 -g -fno-omit-frame-pointer $sanitize -fsanitize=fuzzer-no-link" \
    -DKVSCOPE_BUILD_GUI=OFF -DKVSCOPE_BUILD_TESTS=OFF -DKVSCOPE_BUILD_BENCHMARKS=OFF -DKVSCOPE_MPI=OFF >/dev/null
fi
echo "run_fuzz.sh: building core with $cxx"
ninja -C "$build/core" -j "$jobs" kvscope_core >/dev/null
bodies=()
for src in "$root"/tests/fuzz/fuzz_bodies.cpp "$root"/tests/fuzz/fuzz_file_bodies.cpp; do
  obj="$build/obj/$(basename "${src%.cpp}").o"
  bodies+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$root/tests/fuzz/fuzz_bodies.hpp" -nt "$obj" ||
        "$build/core/core/libkvscope_core.a" -nt "$obj" ]]; then
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
done

# Each target is linked and fuzzed on its own; --jobs of them run at once (each is one process on
# one core). Their reports are printed in target order once all have finished.
fuzz_one() {
  local t=$1 entry="$root/tests/fuzz/fuzz_$1.cpp" bin="$build/fuzz_$1" log="$build/fuzz_$1.log"
  local report="$build/fuzz_$1.report"
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$entry" "${bodies[@]}" "$build/core/core/libkvscope_core.a" \
    -ltbb -lsimdjson -o "$bin" >"$report" 2>&1 || { echo "run_fuzz.sh: $t did not build" >>"$report"; return 1; }
  mkdir -p "$build/corpus/$t"
  echo "run_fuzz.sh: fuzzing $t for ${seconds}s" >>"$report"
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^stat::new_units_added" "$log" |
      sed "s/^/  $t: /" >>"$report"
    grep -E "^#[0-9]+ +DONE" "$log" | sed "s/^/  $t: /" >>"$report" || true
  else
    echo "run_fuzz.sh: $t FAILED, see $log; artifacts in $build/artifacts" >>"$report"
    grep -E "ERROR|SUMMARY|invariant|Test unit written" "$log" | head -20 >>"$report" || true
    return 1
  fi
}

for t in "${targets[@]}"; do
  [[ -f "$root/tests/fuzz/fuzz_$t.cpp" ]] || { echo "run_fuzz.sh: no target '$t'" >&2; exit 2; }
done
status=0
for t in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  rm -f "$build/fuzz_$t.ok"
  ( fuzz_one "$t" && touch "$build/fuzz_$t.ok" ) &
done
wait
for t in "${targets[@]}"; do
  if [[ -f "$build/fuzz_$t.ok" ]]; then
    cat "$build/fuzz_$t.report"
  else
    status=1
    cat "$build/fuzz_$t.report" >&2
  fi
done
exit $status
