#!/usr/bin/env bash
# The CPU simulator's classic kernels (tests/fixtures/sim-kernels/) at 1024 x 1024 (or SIZE),
# each with the launch its tests use, timed by warpscope-kernel-bench on the CPU: medians of
# the kernels' own times. A benchmark, not a test: the tests check the values.
#   bench/sim-kernels.sh [BUILD_DIR] [SIZE] [RUNS]
set -euo pipefail
build=${1:-build-cpu}
size=${2:-1024}
runs=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
kernels="$here/tests/fixtures/sim-kernels"
bench="$build/bench/warpscope-kernel-bench"
elements=$((size * size))
blocks256=$(((elements + 255) / 256))
tiles32=$(((size + 31) / 32))
tiles16=$(((size + 15) / 16))
# name and launch (grid/block[/dynamic shared bytes]); the scan takes rows of up to 256 nodes
# and the votes one row a thread, so they run on the field's first rows.
while read -r name launch; do
    "$bench" --cpu --size "$size" --runs "$runs" --source "$kernels/$name" --launch "$launch"
done <<LAUNCHES
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
