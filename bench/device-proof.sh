#!/usr/bin/env bash
# The GPU proof, run on the NVIDIA machine from the repository root after
#   ../shared/device/bundle-desktop.sh build-hopper/app/warpscope build-hopper/bench/warpscope-bench \
#       build-hopper/tests/warpscope_gpu_tests build-hopper/tests/warpscope_render_tests
# with .device carried. Writes logs, screenshots and traces to $OUT (or ./device-out).
#
#   bench/device-proof.sh [field|teaching|timeline|periodogram|methods|realdata|kernel|
#                          kernelbench|batch|hostile|ui|soak|parity|gpu1]...
#   (default: field timeline)
set -uo pipefail
out=${OUT:-device-out}; mkdir -p "$out"
source .device/env.sh
export WARPSCOPE_FIXTURE_DIR=$PWD/tests/fixtures
app="$DESKTOP_BIN/warpscope"
sections=${*:-field timeline}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
# At most 8 files come back from a call: both suites share one log, and a call should run
# no more than two sections. The suites run when they are in the bundle (a desktop bundle
# may leave them out to stay within what a call can carry).
# SUITES=0 leaves them out (a second call on a machine that ran them).
# The render suite first: right after the GPU suite, which faults kernels on purpose, the
# machine's OpenGL ran slowly and lost writes for minutes (docs/PERFORMANCE.md, 2026-11-27).
if [ "${SUITES:-1}" = 1 ] && [ -x "$DESKTOP_BIN/warpscope_render_tests" ]; then
    "$DESKTOP_BIN/warpscope_render_tests" > "$out/tests.log" 2>&1; echo "render_tests exit $?"
    grep -E "OpenGL renderer|CUDA on|PASSED|FAILED|SKIPPED" "$out/tests.log" | sort -u
fi
if [ "${SUITES:-1}" = 1 ] && [ -x "$DESKTOP_BIN/warpscope_gpu_tests" ]; then
    "$DESKTOP_BIN/warpscope_gpu_tests" > "$out/gpu.tmp" 2>&1; echo "gpu_tests exit $?"
    grep -E "PASSED|FAILED|SKIPPED|max error" "$out/gpu.tmp"
    cat "$out/gpu.tmp" >> "$out/tests.log"; rm -f "$out/gpu.tmp"
fi

for section in $sections; do
case $section in
field)
    "$DESKTOP_BIN/warpscope-bench" distance --size 4096 --frames 300 2>&1 | tee -a "$out/bench.log"
    "$DESKTOP_BIN/warpscope-bench" distance --size 4096 --frames 300 >> "$out/bench.log" 2>&1
    "$app" --backend cuda --nx 4096 --ny 4096 --size 1600x1000 \
        --screenshot "$out/cuda_4096.png"; echo "screenshot exit $?"
    "$app" --backend cuda --nx 4096 --ny 4096 --size 1600x1000 --lat-min -90 --lat-max 90 \
        --lon-min -180 --lon-max 180 --ref 30,101 --ref -33.87,151.21 --ref 51.51,-0.13 \
        --ref 40.71,-74.0 --colormap turbo --screenshot "$out/cuda_globe.png"
    echo "globe screenshot exit $?" ;;
teaching)
    "$app" --backend cuda --nx 512 --ny 384 --overlay block --block 32,8,1 \
        --size 1600x1000 --screenshot "$out/overlay_block.png"; echo "block overlay exit $?"
    "$app" --backend cuda --nx 2048 --ny 2048 --overlay sm --block 128,2,1 \
        --size 1600x1000 --screenshot "$out/overlay_sm.png"; echo "SM overlay exit $?"
    "$app" --backend cuda --nx 120 --ny 80 --overlay thread --block 16,8,1 \
        --grid 4,4,1 --size 1600x1000 --screenshot "$out/overlay_uncovered.png"
    echo "partial grid exit $?"
    "$app" --backend cuda --nx 2048 --ny 2048 --sweep --screenshot "$out/sweep.png"
    echo "sweep exit $?" ;;
timeline)
    for run in 1 2; do
        "$DESKTOP_BIN/warpscope-bench" streams --runs 30 2>&1 | tee -a "$out/bench.log"
    done
    "$DESKTOP_BIN/warpscope-bench" distance --size 4096 --frames 300 2>&1 |
        grep -E "Backend|frame|recording|spans kept" | tee -a "$out/bench.log"
    "$app" --backend cuda --size 1600x1000 --streams-lab --screenshot "$out/streams_lab.png" \
        --export-trace "$out/streams_lab_trace.json"; echo "streams lab exit $?"
    "$app" --backend cuda --size 1600x1000 --streams-lab --lab-streams 1 \
        --screenshot "$out/streams_lab_1.png"; echo "one-stream lab exit $?" ;;
parity)
    # This build's benchmarks against a build from before a restructuring, bundled as
    # warpscope-bench-before, in one call and alternating, so both see the same machine.
    # PARITY picks the benchmarks and ROUNDS their repeats (a call has ten minutes).
    for run in $(seq "${ROUNDS:-2}"); do
        for bench in "$DESKTOP_BIN/warpscope-bench-before" "$DESKTOP_BIN/warpscope-bench"; do
            for what in ${PARITY:-distance distance16 periodogram streams}; do
                echo "== $(basename "$bench"), round $run, $what"
                case $what in
                distance) stdbuf -oL "$bench" distance --size 4096 --frames 300 ;;
                distance16) stdbuf -oL "$bench" distance --size 8192 --refs 16 --frames 100 ;;
                periodogram) stdbuf -oL "$bench" periodogram --runs 10 ;;
                streams) stdbuf -oL "$bench" streams --runs 30 ;;
                esac
            done
        done
    done 2>&1 | tee -a "$out/parity.log" | grep -E "^==|frame \(|matrix|streams  " ;;
periodogram)
    "$DESKTOP_BIN/warpscope-bench" periodogram --runs 10 2>&1 | tee -a "$out/bench.log"
    "$app" --backend cuda --size 1600x1000 --frequencies 0.001,5,1048576 \
        --screenshot "$out/periodogram.png"; echo "periodogram screenshot exit $?"
    "$app" --backend cuda --size 1600x1000 --frequencies 0.001,5,100000,log \
        --screenshot "$out/periodogram_log.png"; echo "logarithmic grid screenshot exit $?" ;;
methods)
    # The period-search methods beside Lomb-Scargle: their CUDA tests against the CPU and the
    # fixtures, under compute-sanitizer's memcheck, then their benchmarks (medians).
    filter='*BoxLeastSquares*:*PhaseMethods*'
    compute-sanitizer --tool memcheck --error-exitcode 3 "$DESKTOP_BIN/warpscope_gpu_tests" \
        --gtest_filter="$filter" > "$out/methods.log" 2>&1
    echo "methods' tests under memcheck exit $?"
    grep -E "PASSED|FAILED|SKIPPED|ERROR SUMMARY" "$out/methods.log"
    for args in "" "--periods 1800"; do
        "$DESKTOP_BIN/warpscope-bench" bls $args --runs 9 2>&1 | tee -a "$out/bench.log"
    done
    for what in pdm ce; do
        "$DESKTOP_BIN/warpscope-bench" $what 2>&1 | tee -a "$out/bench.log"
    done ;;
realdata)
    # Real-format data at 1400x900 on the GPU: a TESS light curve detrended with its fold, a
    # weekly dated series with a trend through detrending and one prewhitened sinusoid, and a
    # light curve with overtones under a three-term model.
    fx=tests/fixtures
    "$app" --backend cuda --size 1400x900 --series "$fx/fits/tess_lc.fits" --detrend poly:1 \
        --screenshot "$out/tess_detrended.png"; echo "TESS screenshot exit $?"
    python3 - "$out/weekly.csv" <<'PY'
import datetime, math, random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("date,flux,flux_err\n")
    for i in range(520):
        x = i / 52.0
        y = (10 + 4 * x + 0.8 * (x - 5) ** 2 + math.sin(2 * math.pi * i * 7 / 365.25)
             + 0.4 * math.sin(2 * math.pi * i * 7 / 97.0 + 1.0) + random.gauss(0, 0.2))
        day = datetime.date(2010, 1, 3) + datetime.timedelta(weeks=i)
        f.write(f"{day},{y:.4f},0.2\n")
PY
    "$app" --backend cuda --size 1400x900 --series "$out/weekly.csv" --detrend poly:2 \
        --prewhiten 1 --export-frequencies "$out/weekly_frequencies.csv" \
        --screenshot "$out/weekly_prewhitened.png"; echo "prewhitening screenshot exit $?"
    cat "$out/weekly_frequencies.csv"; rm -f "$out/weekly.csv"
    "$app" --backend cuda --size 1400x900 --series "$fx/periodogram/series_H.csv" --nterms 3 \
        --screenshot "$out/three_terms.png"; echo "three-term screenshot exit $?" ;;
kernel)
    # The Kernel workspace on the GPU: the default kernel with a cold, then a warm cache, a
    # user's kernel from a file, and a kernel that faults (its message at the editor, the
    # screenshot taken, the command failing with the kernel's message).
    export XDG_CACHE_HOME=/tmp/kernel-cache LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
    for run in cold warm; do
        "$app" --backend cuda --kernel --size 1400x900 --screenshot "$out/kernel_$run.png" \
            2>&1 | tee -a "$out/kernel.log"
        echo "kernel workspace ($run cache) exit ${PIPESTATUS[0]}" | tee -a "$out/kernel.log"
    done
    rm -f "$out/kernel_warm.png"
    "$app" --backend cuda --kernel-source docs/examples/voronoi-manhattan.cu --ref 29.3,99.4 \
        --ref 30.6,100.2 --ref 29.8,100.8 --ref 30.3,99.2 --ref 29.2,100.5 --size 1400x900 \
        --screenshot "$out/kernel_user.png" 2>&1 | tee -a "$out/kernel.log"
    echo "user kernel exit ${PIPESTATUS[0]}" | tee -a "$out/kernel.log"
    printf '// warpscope kernel: per node\nvolatile float* nowhere = (float*)0x10;\n*nowhere = 1.0f;\nreturn 0.0f;\n' \
        > /tmp/faulting.cu
    "$app" --backend cuda --kernel-source /tmp/faulting.cu --size 1400x900 \
        --screenshot "$out/kernel_fault.png" 2>&1 | tee -a "$out/kernel.log"
    echo "faulting kernel exit ${PIPESTATUS[0]} (want 1)" | tee -a "$out/kernel.log"
    printf '// warpscope kernel: per node\nconst long long t0 = clock64();\nwhile (clock64() - t0 >= 0) {}\nreturn 0.0f;\n' \
        > /tmp/endless.cu
    "$app" --backend cuda --kernel-source /tmp/endless.cu --size 1400x900 \
        --screenshot "$out/kernel_endless.png" 2>&1 | tee -a "$out/kernel.log"
    echo "endless kernel exit ${PIPESTATUS[0]} (want 1, after the 2 s timeout)" |
        tee -a "$out/kernel.log" ;;
kernelbench)
    # The workbench's benchmarks (headless EGL is enough): user kernels against the built-in
    # field, compile times, a slider's value to pixels, the variants table.
    export XDG_CACHE_HOME=/tmp/kernel-cache LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
    kb="$DESKTOP_BIN/warpscope-kernel-bench"
    for refs in 1 16; do
        "$kb" --size 4096 --refs "$refs" --runs 20 2>&1 | tee -a "$out/kernel.log"
    done
    "$kb" --variants "$out/kernel_variants.csv" --size 4096 --runs 20 2>&1 | tee -a "$out/kernel.log"
    timeout 180 "$kb" --slider --size 4096 --runs 50 2>&1 | tee -a "$out/kernel.log" ;;
batch)
    # Survey scale on this machine: CUDA equals the CPU backend, then W1 and W2 timed beside
    # the CuPy loop (medians of 3; the CuPy loop over 3000 W1 objects, scaled).
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
    bench="$DESKTOP_BIN/warpscope-bench"
    bash bench/batch-device-check.sh "" 2000 2>&1 | tee -a "$out/batch.log"
    "$bench" batch make W1 /tmp/W1.fits && "$bench" batch make W2 /tmp/W2.fits
    for w in W1 W2; do
        "$bench" batch run /tmp/$w.fits --runs 3 --precision float64,float32 2>&1 |
            tee -a "$out/batch.log"
    done
    python3 bench/batch_cupy.py /tmp/W1.fits --limit 3000 --runs 3 2>&1 | tee -a "$out/batch.log"
    python3 bench/batch_cupy.py /tmp/W2.fits --runs 1 2>&1 | tee -a "$out/batch.log"
    for w in W1 W2; do
        start=$(date +%s%N)
        "$DESKTOP_BIN/warpscope-batch" /tmp/$w.fits -o /tmp/$w.csv --frequencies 0.001,10,100000 --quiet
        echo "warpscope-batch $w whole run exit $? in $((($(date +%s%N) - start) / 1000000)) ms" |
            tee -a "$out/batch.log"
    done ;;
hostile)
    # Inputs that once hung, crashed or passed silently: each must end at once with its
    # message and the right exit status.
    start=$(date +%s)
    "$app" --backend cuda --nx 16384 --ny 16384 --screenshot "$out/x.png"
    echo "mesh beyond the GL limit exit $? after $(($(date +%s) - start)) s (want 1)"
    "$app" --backend cuda --lab-length 4294967296 --lab-arrays 64 --streams-lab \
        --screenshot "$out/x.png"; echo "failed streams lab exit $? (want 1)"
    awk 'BEGIN { for (i = 0; i < 400; i++) { t = i * 0.37 + (i % 7) * 0.05;
        printf "%.6f,%.17g\n", t, (sin(2 * 3.14159265358979 * t / 5.0) > 0 ? 1e308 : -1e308) } }' \
        > "$out/huge.csv"
    "$app" --backend cuda --size 1600x1000 --series "$out/huge.csv" \
        --screenshot "$out/periodogram_huge.png"; echo "y = +-1e308 exit $? (want 0)"
    rm -f "$out/huge.csv" "$out/x.png" ;;
ui)
    "$DESKTOP_BIN/warpscope_ui_tests" > "$out/ui.log" 2>&1; echo "ui_tests exit $?"
    grep -E "Totals|FAIL" "$out/ui.log" ;;
gpu1)
    # With two GPUs: --device 1 computes the field and the periodogram on GPU 1, whatever GPU
    # OpenGL runs on. The status bar says so in the screenshots, the app's last line names
    # who computes where, and nvidia-smi lists the app's process on each GPU it uses.
    nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv,noheader
    for what in field periodogram; do
        args=(--device 1 --size 1600x1000 --screenshot "$out/device1_$what.png")
        [ "$what" = periodogram ] && args+=(--frequencies 0.001,5,4194304)
        "$app" "${args[@]}" > "$out/device1_$what.txt" 2>&1 &
        pid=$!
        while kill -0 "$pid" 2> /dev/null; do
            nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader |
                grep "^$pid," >> "$out/device1_$what.smi"
            sleep 0.2
        done
        wait "$pid"; echo "$what on --device 1 exit $?"
        cat "$out/device1_$what.txt"
        echo "GPUs the app's process was seen on:"; sort -u -t, -k2,2 "$out/device1_$what.smi"
    done ;;
soak)
    "$DESKTOP_BIN/warpscope-soak" --backend cuda --minutes "${SOAK_MINUTES:-9.5}" \
        --warmup-minutes "${SOAK_WARMUP:-3}" 2>&1 |
        tee "$out/soak.log"; echo "soak exit ${PIPESTATUS[0]}" ;;
esac
done
