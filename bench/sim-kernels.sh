#!/usr/bin/env bash
# The CPU simulator's classic kernels (tests/fixtures/sim-kernels/) at 1024 x 1024 (or SIZE),
# each with the launch its tests use, timed by warpscope-kernel-bench on the CPU: medians of
# the kernels' own times. A benchmark, not a test: the tests check the values.
#   bench/sim-kernels.sh [BUILD_DIR] [SIZE] [RUNS]
# RECORD=1 in the environment times the recording builds (the Memory tab's record) instead.
# --numba: the same kernels for Numba's CUDA simulator (bench/numba/sim_kernels.py, one Python
# thread per CUDA thread), side by side with ours on the same small launch (SIZE, default 64):
# medians of RUNS of ours and NUMBA_RUNS of Numba's, their ratio, Numba at 1024 x 1024
# estimated from its time per block (the launches' blocks scale so), and Numba's field checked
# against ours. Needs Numba (Debian: apt-get install python3-numba; PYTHON names the
# interpreter that has it, else python3 or /usr/bin/python3).
#   bench/sim-kernels.sh --numba [BUILD_DIR] [SIZE] [RUNS] [NUMBA_RUNS]
set -euo pipefail
numba=0
if [ "${1:-}" = --numba ]; then
    numba=1
    shift
fi
build=${1:-build-cpu}
size=${2:-$([ $numba = 1 ] && echo 64 || echo 1024)}
runs=${3:-5}
numbaRuns=${4:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
kernels="$here/tests/fixtures/sim-kernels"
bench="$build/bench/warpscope-kernel-bench"
for n in "$size" "$runs" "$numbaRuns"; do
    if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
        echo "usage: bench/sim-kernels.sh [--numba] [BUILD_DIR] [SIZE] [RUNS] [NUMBA_RUNS]" >&2
        exit 2
    fi
done

# Each kernel and its launch (grid/block[/dynamic shared bytes]) at size $1; the scan takes
# rows of up to 256 nodes and the votes one row a thread, so they run on the field's first rows.
launches() {
    local size=$1
    local elements=$((size * size))
    local blocks256=$(((elements + 255) / 256))
    local tiles32=$(((size + 31) / 32))
    local tiles16=$(((size + 15) / 16))
    cat <<LAUNCHES
reduce_shared.cu $blocks256,1,1/256,1,1/1024
reduce_warp.cu $blocks256,1,1/256,1,1
scan_block.cu $size,1,1/256,1,1
transpose_tiled.cu $tiles32,$tiles32,1/32,8,1
transpose_padded.cu $tiles32,$tiles32,1/32,8,1
blur_tiled.cu $tiles16,$tiles16,1/16,16,1
histogram_shared.cu $blocks256,1,1/256,1,1
atomics_global.cu $blocks256,1,1/256,1,1
warp_votes.cu $((size / 128)),1,1/16,4,2
cooperative_groups.cu $size,1,1/128,1,1
LAUNCHES
}

if [ $numba = 0 ]; then
    launches "$size" | while read -r name launch; do
        "$bench" --cpu --size "$size" --runs "$runs" --source "$kernels/$name" --launch "$launch" \
            ${RECORD:+--record}
    done
    exit 0
fi

python=${PYTHON:-}
for candidate in python3 /usr/bin/python3; do
    [ -n "$python" ] && break
    if "$candidate" -c "import numba, numpy" 2>/dev/null; then
        python=$candidate
    fi
done
if [ -z "$python" ] || ! "$python" -c "import numba, numpy" 2>/dev/null; then
    echo "bench/sim-kernels.sh --numba needs Numba: apt-get install python3-numba (Debian 12)," \
        "or pip install numba, and PYTHON naming that interpreter" >&2
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "Numba $("$python" -c 'import numba; print(numba.__version__)') (NUMBA_ENABLE_CUDASIM=1)" \
    "against warpscope's simulator, ${size} x ${size}: medians of $numbaRuns (Numba) and $runs (ours)"
printf '%-20s %-26s %13s %13s %10s %13s   %s\n' kernel launch Numba ours ratio \
    "Numba 1024²" "check"
failed=0
while read -r name launch _ launch1024; do
    missing=$("$python" "$here/bench/numba/sim_kernels.py" --missing "$name")
    if [ -n "$missing" ]; then
        printf '%-20s %-26s %s\n' "$name" "$launch" "$missing"
        continue
    fi
    ours=$("$bench" --cpu --size "$size" --runs "$runs" --source "$kernels/$name" \
        --launch "$launch" --output "$work/$name.f32")
    ms=$(echo "$ours" | awk '{ print $(NF - 1) }')
    "$python" "$here/bench/numba/sim_kernels.py" "$name" "$size" "$launch" "$launch1024" \
        "$numbaRuns" "$work/$name.f32" "$ms" || failed=1
done < <(paste -d ' ' <(launches "$size") <(launches 1024))
exit $failed
