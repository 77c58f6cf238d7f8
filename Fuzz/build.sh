#!/usr/bin/env bash
# Builds every fuzz target under Fuzz/ into Fuzz/build/<target>, with libFuzzer and
# AddressSanitizer, from the package's own sources (no SwiftPM involved).
#
#   Fuzz/build.sh               build all targets
#   Fuzz/build.sh key-reader    build one
#
# Each target folder holds one Swift file with `@_cdecl("LLVMFuzzerTestOneInput")`,
# compiled into the same module as the sources it tests, and a seeds/ corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Fuzz/build

# target → the module sources it is compiled with
declare -A sources=(
    [key-reader]="Sources/LMDB"
    [text-decoding]="Sources/QuireCore"
)

targets=("$@")
((${#targets[@]})) || targets=("${!sources[@]}")
for target in "${targets[@]}"; do
    [[ -n "${sources[$target]:-}" ]] || { echo "unknown fuzz target: $target" >&2; exit 2; }
    echo "== building Fuzz/build/$target"
    # shellcheck disable=SC2046
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
        -module-name "FuzzTarget" -package-name Quire -I Sources/CLMDB \
        $(find ${sources[$target]} -name '*.swift' | sort) \
        "Fuzz/$target/"*.swift \
        -llmdb -o "Fuzz/build/$target"
done
