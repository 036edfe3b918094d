#!/usr/bin/env bash
# The kernel workbench on a GPU machine: the user-kernel tests that need a device (template
# equals the built-in field, out-of-bounds writes, fault and timeout recovery, variants,
# timeline spans, the teaching record), then screenshots of the Kernel workspace on the GPU,
# the benchmarks, the variants table and a slider's value to pixels.
#   bench/kernel_workbench_gpu.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:-build-hopper}
out=${2:-${OUT:-/tmp}}
mkdir -p "$out"
export XDG_CACHE_HOME="$out/cache"
"$build/tests/warpscope_gpu_tests" --gtest_filter='Kernel*:CudaContextTest.*Gpu*:CudaContextTest.AFaulting*:CudaContextTest.AnEndless*' \
    2>&1 | tee "$out/kernel_gpu_tests.log"
QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/warpscope_kernel_ui_tests" \
    2>&1 | tee "$out/kernel_ui_tests.log" || true
# Cold cache, then warm: the status bar and stdout say the compile time.
for run in cold warm; do
    xvfb-run -a -s "-screen 0 1920x1080x24" "$build/app/warpscope" --kernel \
        --screenshot "$out/kernel_workspace_$run.png" --size 1600x900
done
"$build/bench/warpscope-kernel-bench" --size 4096 --refs 1 --runs 20 | tee "$out/kernel_bench_1ref.txt"
"$build/bench/warpscope-kernel-bench" --size 4096 --refs 16 --runs 20 | tee "$out/kernel_bench_16ref.txt"
"$build/bench/warpscope-kernel-bench" --variants "$out/kernel_variants.csv" --size 4096 --runs 20 \
    | tee "$out/kernel_variants.txt"
"$build/bench/warpscope-kernel-bench" --slider --size 4096 --runs 50 | tee "$out/kernel_slider.txt"
