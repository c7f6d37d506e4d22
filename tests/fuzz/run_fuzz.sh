#!/usr/bin/env bash
# Fuzzes the load readers and the policy file parsers with libFuzzer for a bounded time per target.
#
#   tests/fuzz/run_fuzz.sh [--seconds N] [--build DIR] [--cxx CLANG] [--jobs J] [TARGET...]
#
# TARGETs: azure burstgpt vidur mooncake native detect gen_spec policy, and the document targets
# session model_config vllm_bench tour (default: all). The document targets need all of core:
# it is built once with CMake and the same clang flags into DIR/core.
# Builds core/load, the policy file code and the fuzz bodies with clang (-fsanitize=fuzzer,address,undefined) into
# DIR (default build/fuzz), then runs each target for N seconds (default 60) starting from
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
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] ||
  targets=(azure burstgpt vidur mooncake native detect gen_spec policy session model_config vllm_bench tour)
is_document() { [[ "$1" =~ ^(session|model_config|vllm_bench|tour)$ ]]; }

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer $sanitize -I"$root/core" -I"$root/tests/fuzz"
       -I"$build/gen")
mkdir -p "$build/obj" "$build/artifacts" "$build/gen"
# The one generated header the policy writer needs (CMake makes it from the same template).
version=$(sed -n 's/^ *VERSION \([0-9.]*\)$/\1/p' "$root/CMakeLists.txt" | head -1)
sed "s/@PROJECT_VERSION@/${version:-0}/" "$root/core/version.hpp.in" >"$build/gen/kvscope_version.hpp.new"
cmp -s "$build/gen/kvscope_version.hpp.new" "$build/gen/kvscope_version.hpp" ||
  mv "$build/gen/kvscope_version.hpp.new" "$build/gen/kvscope_version.hpp"
rm -f "$build/gen/kvscope_version.hpp.new"

# Compile (only what changed) the load and policy file sources with coverage instrumentation.
sources=("$root"/core/load/*.cpp "$root"/core/io/{policy_file,text_checks,json_checks}.cpp
         "$root"/core/quant/level.cpp "$root"/core/policy/policy_config.cpp "$root"/core/util/{atomic_write,output_path,temp_registry}.cpp
         "$root/tests/fuzz/fuzz_bodies.cpp" "$root/tests/fuzz/fuzz_file_bodies.cpp")
objects=()
to_build=()
for src in "${sources[@]}"; do
  obj="$build/obj/$(basename "${src%.cpp}").o"
  objects+=("$obj")
  newest_header=$(ls -t "$root"/core/{load,io,policy,quant,util}/*.hpp "$root/tests/fuzz/fuzz_bodies.hpp" |
                  head -1)
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
    to_build+=("$src")
  fi
done
if [[ ${#to_build[@]} -gt 0 ]]; then
  echo "run_fuzz.sh: compiling ${#to_build[@]} sources with $cxx"
  printf '%s\n' "${to_build[@]}" | xargs -P "$jobs" -I{} sh -c \
    'src="$1"; shift; obj="$0/obj/$(basename "${src%.cpp}").o"; exec "$@" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"' \
    "$build" {} "$cxx" "${flags[@]}"
fi

status=0
for t in "${targets[@]}"; do
  entry="$root/tests/fuzz/fuzz_$t.cpp"
  [[ -f "$entry" ]] || { echo "run_fuzz.sh: no target '$t'" >&2; exit 2; }
  bin="$build/fuzz_$t"
  if is_document "$t"; then
    # All of core, instrumented alike; the fuzz bodies from the objects above.
    if [[ ! -f "$build/core/core/libkvscope_core.a" ]]; then
      cmake -S "$root" -B "$build/core" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_CXX_FLAGS="-O1 -g -fno-omit-frame-pointer $sanitize -fsanitize=fuzzer-no-link" \
        -DKVSCOPE_BUILD_GUI=OFF -DKVSCOPE_BUILD_TESTS=OFF -DKVSCOPE_BUILD_BENCHMARKS=OFF -DKVSCOPE_MPI=OFF >/dev/null
    fi
    ninja -C "$build/core" -j "$jobs" kvscope_core >/dev/null
    "$cxx" "${flags[@]}" -I"$build/core/core" -fsanitize=fuzzer "$entry" "$build/obj/fuzz_bodies.o" \
      "$build/obj/fuzz_file_bodies.o" "$build/core/core/libkvscope_core.a" -ltbb -lsimdjson -o "$bin"
  else
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "$entry" "${objects[@]:0:${#objects[@]}-1}" -lsimdjson -o "$bin"
  fi
  mkdir -p "$build/corpus/$t"
  echo "run_fuzz.sh: fuzzing $t for ${seconds}s"
  log="$build/fuzz_$t.log"
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^stat::new_units_added" "$log" |
      sed "s/^/  $t: /"
    grep -E "^#[0-9]+ +DONE" "$log" | sed "s/^/  $t: /" || true
  else
    status=1
    echo "run_fuzz.sh: $t FAILED, see $log; artifacts in $build/artifacts" >&2
    grep -E "ERROR|SUMMARY|invariant|Test unit written" "$log" | head -20 >&2 || true
  fi
done
exit $status
