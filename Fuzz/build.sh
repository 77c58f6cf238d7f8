#!/usr/bin/env bash
# Builds the fuzz targets under Fuzz/ into Fuzz/build/<target>, with libFuzzer and
# AddressSanitizer, from the package's own sources (no SwiftPM involved).
#
#   Fuzz/build.sh                     build all targets
#   Fuzz/build.sh convergence         build some
#   Fuzz/build.sh --broken [targets]  build with a deliberately broken merge rule
#                                     (-D QUIRE_BROKEN_TIEBREAK) into Fuzz/build/broken/
#   Fuzz/build.sh --self-test         build the broken convergence target and check that
#                                     it finds a divergence within 60 seconds
#
# Each target folder holds one Swift file with `@_cdecl("LLVMFuzzerTestOneInput")` and a
# seeds/ corpus. The file is compiled into the same module as the sources it tests (so it
# sees their internal API), together with Fuzz/Support/*.swift. Modules that module
# imports (LMDB, QuireCore for the Quire targets) are built first, once, as separate
# instrumented modules under Fuzz/build/modules/.
set -euo pipefail
cd "$(dirname "$0")/.."

out=Fuzz/build
defines=()
self_test=0
case "${1:-}" in
    --broken) shift; out=Fuzz/build/broken; defines=(-D QUIRE_BROKEN_TIEBREAK) ;;
    --self-test) shift; self_test=1; out=Fuzz/build/broken; defines=(-D QUIRE_BROKEN_TIEBREAK) ;;
esac

# target → the module sources its fuzzer file is compiled with
declare -A sources=(
    [key-reader]="Sources/LMDB"
    [text-decoding]="Sources/QuireCore"
    [text-model]="Sources/QuireCore"
    [tree-model]="Sources/QuireCore"
    [convergence]="Sources/Quire Tests/QuireTests/Properties/StoreConvergenceSchedule.swift"
    [delta-import]="Sources/Quire Tests/QuireTests/Properties/StoreConvergenceSchedule.swift"
)
# target → the modules those sources import, built separately
declare -A imports=(
    [convergence]="LMDB QuireCore"
    [delta-import]="LMDB QuireCore"
)

# -enable-bare-slash-regex: the package builds in Swift 6 mode, which has /regex/ literals on.
# -I Sources/CLMDB, Sources/CZlib: the C seams' module maps (Quire imports CZlib for its
# delta files' zlib); every target links -llmdb -lz, which only the Quire targets use.
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -enable-bare-slash-regex -package-name Quire -I Sources/CLMDB -I Sources/CZlib "${defines[@]}")

# Builds module $1 from Sources/$1 into $out/modules/$1.{swiftmodule,o}, unless it is
# there already, newer than every source and built with the same flags.
build_module() {
    local module=$1 object="$out/modules/$1.o"
    if [[ -f "$object" && "$(cat "$object.flags" 2>/dev/null)" == "${flags[*]}" \
        && -z "$(find "Sources/$module" -name '*.swift' -newer "$object")" ]]; then
        return
    fi
    echo "== building module $module"
    mkdir -p "$out/modules"
    # shellcheck disable=SC2046
    swiftc "${flags[@]}" -wmo -module-name "$module" -I "$out/modules" \
        -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
        -c $(find "Sources/$module" -name '*.swift' | sort) -o "$object"
    echo "${flags[*]}" >"$object.flags"
}

targets=("$@")
if ((!${#targets[@]})); then
    if ((self_test)); then targets=(convergence); else targets=("${!sources[@]}"); fi
fi
mkdir -p "$out"
for target in "${targets[@]}"; do
    [[ -n "${sources[$target]:-}" ]] || { echo "unknown fuzz target: $target" >&2; exit 2; }
    objects=()
    for module in ${imports[$target]:-}; do
        build_module "$module"
        objects+=("$out/modules/$module.o")
    done
    echo "== building $out/$target"
    # shellcheck disable=SC2046
    swiftc "${flags[@]}" -module-name "FuzzTarget" -I "$out/modules" \
        $(find ${sources[$target]} -name '*.swift' | sort) \
        Fuzz/Support/*.swift "Fuzz/$target/"*.swift "${objects[@]}" \
        -llmdb -lz -o "$out/$target"
done

((self_test)) || exit 0
# The checker must catch the broken tie-break: the broken target has to report a
# divergence within 60 seconds, starting from an empty corpus.
status=0
for target in "${targets[@]}"; do
    work=$(mktemp -d)
    echo "== self-test: $target with a broken tie-break must fail"
    started=$SECONDS
    # No seeds (they include a hand-made tie): random schedules of up to 256 bytes from
    # the first run (-len_control=0), which must stumble on the tie by themselves.
    if (cd "$work" && SWIFT_BACKTRACE=enable=no "$OLDPWD/$out/$target" -seed=1 -max_total_time=60 \
        -len_control=0 -max_len=256 -rss_limit_mb=2048 >/dev/null 2>"$work/log"); then
        echo "FAILED: $target ran 60 s without noticing the broken tie-break" >&2
        status=1
    else
        grep -m1 "FUZZ CHECK FAILED" "$work/log" || tail -3 "$work/log"
        echo "caught in $((SECONDS - started)) s"
    fi
    rm -rf "$work"
done
exit $status
