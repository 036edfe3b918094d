#!/usr/bin/env bash
# Warpscope against its peers, side by side in one call on the NVIDIA machine (about 6
# minutes): the streams lesson against the usual Numba script, alternating; the K-stream
# sweep; the periodogram's whole call against its kernel, and CuPy's lombscargle; the interop
# floor (a frame with no map against the classic map/unmap frame). Run from the repository
# root after
#   bench/bundle-device.sh --headless build-hopper/bench/warpscope-bench \
#       build-hopper/bench/warpscope-interop-floor build-hopper/tests/warpscope_gpu_tests
# (or a desktop bundle holding both), with .device carried. Python 3 with Numba and CuPy must
# be on the machine. Logs go to $OUT (or ./device-out); a table of medians ends the output.
#
#   ROUNDS=3 bench/perf-proof.sh
set -uo pipefail
out=${OUT:-device-out}; mkdir -p "$out"
source .device/env.sh
bench="$DESKTOP_BIN/warpscope-bench"
floor="$DESKTOP_BIN/warpscope-interop-floor"
log="$out/perf.log"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader |
    tee "$log"
python3 -c "import numba, cupy; print('numba', numba.__version__, 'cupy', cupy.__version__)" \
    2>&1 | tee -a "$log"

# The periodogram's and the lab's GPU tests first, when bundled: the call's pieces must give
# the bits of one launch before their timings mean anything.
if [ -x "$DESKTOP_BIN/warpscope_gpu_tests" ]; then
    WARPSCOPE_FIXTURE_DIR=$PWD/tests/fixtures "$DESKTOP_BIN/warpscope_gpu_tests" \
        --gtest_filter='*Periodogram*:*Spectrum*:*StreamsLab*' > "$out/perf-tests.log" 2>&1
    echo "gpu_tests (periodogram, spectrum, streams lab) exit $?" | tee -a "$log"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$out/perf-tests.log" | tee -a "$log"
fi

# 1. The streams lesson, Warpscope and Numba alternating, so drift touches both alike: the lab
# with its timeline (and the floors), then without (as Numba runs); Numba as usual, then with
# the 32 hardware queues that Warpscope's library asks the driver for.
for run in $(seq "${ROUNDS:-3}"); do
    echo "== round $run: warpscope-bench streams" | tee -a "$log"
    stdbuf -oL "$bench" streams --runs 30 2>&1 | tee -a "$log" | grep -E "pinned|floor"
    echo "== round $run: warpscope-bench streams, no timeline" | tee -a "$log"
    stdbuf -oL "$bench" streams --runs 30 --no-timeline 2>&1 | sed 's/^  pinned/  untraced pinned/' |
        tee -a "$log" | grep -E "pinned"
    echo "== round $run: Numba" | tee -a "$log"
    python3 bench/streams_numba.py --runs 30 2>&1 | tee -a "$log"
    CUDA_DEVICE_MAX_CONNECTIONS=32 python3 bench/streams_numba.py --runs 30 2>&1 |
        sed 's/^Numba:/Numba, 32 queues:/' | tee -a "$log"
    python3 bench/streams_numba.py --runs 30 --streams 1 2>&1 | tee -a "$log"
done
echo "== streams sweep" | tee -a "$log"
stdbuf -oL "$bench" streams --sweep 16 --runs 10 2>&1 | tee -a "$log"

# 2. The periodogram: call and kernel (twice), and CuPy's peer.
for run in 1 2; do
    echo "== round $run: warpscope-bench periodogram" | tee -a "$log"
    stdbuf -oL "$bench" periodogram --runs 20 2>&1 | tee -a "$log" | grep -E "matrix|SciPy|app's"
done
for run in $(seq "${ROUNDS:-3}"); do
    echo "== round $run: the app's call" | tee -a "$log"
    stdbuf -oL "$bench" periodogram --app-call --runs 20 2>&1 | tee -a "$log" | grep -E "app's"
done
echo "== CuPy" | tee -a "$log"
python3 bench/periodogram_cupy.py --runs 10 2>&1 | tee -a "$log"

# 3. The interop floor, and the interop frame as warpscope-bench measures it.
echo "== interop floor" | tee -a "$log"
"$floor" --size 4096 --frames 200 2>&1 | tee -a "$log"
echo "== warpscope-bench distance" | tee -a "$log"
"$bench" distance --size 4096 --frames 300 2>&1 | tee -a "$log" | grep -E "frame|switch"

# The table: medians over the rounds of each run's median.
python3 - "$log" <<'PY'
import re, statistics, sys
text = open(sys.argv[1]).read()
def all_of(pattern):
    return [float(v) for v in re.findall(pattern, text)]
def mid(values):
    return f"{statistics.median(values):.3f} ms (n={len(values)})" if values else "-"
rows = [
    ("streams, pinned, K streams", all_of(r"(?<!untraced )pinned, K streams\s+median\s+([\d.]+)")),
    ("streams, K streams, no timeline", all_of(r"untraced pinned, K streams\s+median\s+([\d.]+)")),
    ("streams, copies in order, no timeline", all_of(r"untraced pinned, K streams, copies in order\s+median\s+([\d.]+)")),
    ("Numba, K streams", all_of(r"Numba: .*pinned, \d+ streams: median ([\d.]+)")),
    ("Numba, K streams, 32 queues", all_of(r"Numba, 32 queues: .*pinned, \d+ streams: median ([\d.]+)")),
    ("streams, pinned, 1 stream", all_of(r"(?<!untraced )pinned, 1 stream\s+median\s+([\d.]+)")),
    ("Numba, 1 stream", all_of(r"Numba: .*pinned, 1 stream: median ([\d.]+)")),
    ("streams floor", all_of(r"floor\s+([\d.]+) ms\s+\(all copies")),
    ("link floor, both ways at once", all_of(r"link floor, both ways at once\s+([\d.]+) ms")),
    ("periodogram f64 N1024 matrix kernel", all_of(r"N   1024  M 2\^20 float64 floating mean .*matrix\s+([\d.]+) ms")),
    ("periodogram f64 N1024 call", all_of(r"N   1024  M 2\^20 float64 floating mean .*call\s+([\d.]+) ms")),
    ("periodogram f32 N1024 matrix kernel", all_of(r"N   1024  M 2\^20 float32 floating mean .*matrix\s+([\d.]+) ms")),
    ("periodogram f32 N1024 call", all_of(r"N   1024  M 2\^20 float32 floating mean .*call\s+([\d.]+) ms")),
    ("app's call f64: kernel", all_of(r"float64 floating mean  the app's call .*kernel\s+([\d.]+) ms")),
    ("app's call f64: call", all_of(r"float64 floating mean  the app's call .*call\s+([\d.]+) ms")),
    ("app's call f32: kernel", all_of(r"float32 floating mean  the app's call .*kernel\s+([\d.]+) ms")),
    ("app's call f32: call", all_of(r"float32 floating mean  the app's call .*call\s+([\d.]+) ms")),
    ("CuPy lombscargle kernel", all_of(r"lombscargle .*kernel median ([\d.]+) ms")),
    ("CuPy lombscargle whole call", all_of(r"whole call from host arrays median ([\d.]+) ms")),
    ("interop: kernel + sync", all_of(r"kernel \+ stream sync alone.*?\s([\d.]+) ms")),
    ("interop: draw alone", all_of(r"draw alone, to glFinish.*?\s([\d.]+) ms")),
    ("interop: kernel + switch + draw", all_of(r"\(kernel \+ switch \+ draw\)\s+([\d.]+) ms")),
    ("interop: classic map/unmap frame", all_of(r"classic frame: map, kernel, unmap, draw\s+([\d.]+) ms")),
]
print("\n| figure | median |\n|---|---|")
for name, values in rows:
    print(f"| {name} | {mid(values)} |")
ratios = re.findall(r"call\s+[\d.]+ ms \(([\d.]+)x the kernel\)", text)
print("\nperiodogram call / kernel ratios (target <= 1.3):", " ".join(ratios))
PY
