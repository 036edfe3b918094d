#!/usr/bin/env python3
"""The streams lesson as the usual Numba script, the peer of `warpscope-bench streams`.

Normalises ARRAYS host arrays of LENGTH float32 values so that each sums to 1, as the
Streams lab does: pinned host arrays (cuda.pinned_array), one cuda.stream() per array, each
array's copy in (copy_to_device(stream=...)), a partial-sum kernel (float64 sums of 16-byte
loads), a one-block final sum, a divide kernel, and its copy back (copy_to_host(stream=...)),
issued array by array. The job is timed with CUDA events from the first copy in to the last
copy back, like the lab. Prints the median of RUNS runs after 2 warm-up runs, and checks every
output (each array sums to 1 within 1e-5).

    python3 bench/streams_numba.py [--arrays 10] [--length 10000000] [--runs 30] [--streams K]

--streams 1 puts every array on one stream (the lab's "1 stream" mode).
"""
import argparse
import math
import statistics
import sys

import numpy as np

# numpy 2.4 removed row_stack, which numba-cuda 0.2x still names when it compiles a kernel;
# vstack is the same function.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda, float64  # noqa: E402 (after the shim above)

THREADS = 256


@cuda.jit
def partial_sums(data, partials):
    # Each thread sums quads (as the lab's float4 loads) with a grid stride, in float64.
    shared = cuda.shared.array(THREADS, float64)
    tid = cuda.threadIdx.x
    first = cuda.blockIdx.x * THREADS + tid
    stride = cuda.gridDim.x * THREADS
    n = data.shape[0]
    s = 0.0
    i = first * 4
    while i + 3 < n:
        s += float64(data[i]) + float64(data[i + 1]) + float64(data[i + 2]) + float64(data[i + 3])
        i += stride * 4
    j = (n // 4) * 4 + first
    while j < n:
        s += float64(data[j])
        j += stride
    shared[tid] = s
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if tid < step:
            shared[tid] += shared[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        partials[cuda.blockIdx.x] = shared[0]


@cuda.jit
def final_sum(partials, count, total):
    shared = cuda.shared.array(THREADS, float64)
    tid = cuda.threadIdx.x
    s = 0.0
    i = tid
    while i < count:
        s += partials[i]
        i += THREADS
    shared[tid] = s
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if tid < step:
            shared[tid] += shared[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        total[0] = shared[0]


@cuda.jit
def divide(data, total):
    divisor = np.float32(total[0])
    first = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    stride = cuda.gridDim.x * THREADS
    i = first
    while i < data.shape[0]:
        data[i] = data[i] / divisor
        i += stride


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arrays", type=int, default=10)
    parser.add_argument("--length", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--streams", type=int, default=0, help="0: one stream per array")
    args = parser.parse_args()
    if args.arrays < 1 or args.length < 1 or args.runs < 1 or args.streams < 0:
        parser.error("arrays, length and runs must be at least 1")

    device = cuda.get_current_device()
    # Four blocks per SM, as the lab launches.
    sms = device.MULTIPROCESSOR_COUNT
    blocks = max(1, min((args.length // 4 + THREADS - 1) // THREADS, 4 * sms))
    rng = np.random.default_rng(7)
    inputs, outputs = [], []
    for _ in range(args.arrays):
        a = cuda.pinned_array(args.length, dtype=np.float32)
        a[:] = rng.random(args.length, dtype=np.float32) + np.float32(0.5)
        inputs.append(a)
        outputs.append(cuda.pinned_array(args.length, dtype=np.float32))
    count = args.streams if args.streams > 0 else args.arrays
    streams = [cuda.stream() for _ in range(count)]
    data = [cuda.device_array(args.length, dtype=np.float32) for _ in range(args.arrays)]
    partials = [cuda.device_array(blocks, dtype=np.float64) for _ in range(args.arrays)]
    totals = [cuda.device_array(1, dtype=np.float64) for _ in range(args.arrays)]
    start, stop = cuda.event(), cuda.event()
    # Joins: the first stream waits for the others before the stop event.
    joins = [cuda.event(timing=False) for _ in range(count)]

    def job():
        first = streams[0]
        start.record(first)
        for s in streams[1:]:
            start.wait(s)
        for a in range(args.arrays):
            s = streams[a % count]
            data[a].copy_to_device(inputs[a], stream=s)
            partial_sums[blocks, THREADS, s](data[a], partials[a])
            final_sum[1, THREADS, s](partials[a], blocks, totals[a])
            divide[blocks, THREADS, s](data[a], totals[a])
            data[a].copy_to_host(outputs[a], stream=s)
        for k in range(1, count):
            joins[k].record(streams[k])
            joins[k].wait(first)
        stop.record(first)
        stop.synchronize()
        return cuda.event_elapsed_time(start, stop)

    times = []
    for run in range(-2, args.runs):
        for o in outputs:
            o.fill(np.nan)
        ms = job()
        if run >= 0:
            times.append(ms)
    worst = 0.0
    for a in range(args.arrays):
        total = float(outputs[a].sum(dtype=np.float64))
        worst = max(worst, abs(total - 1.0))
        if not math.isfinite(total) or abs(total - 1.0) > 1e-5:
            print(f"CHECK FAILED: array {a} sums to {total}", file=sys.stderr)
            return 1
    label = f"{count} stream" + ("s" if count > 1 else "")
    print(
        f"Numba: {args.arrays} arrays x {args.length} "
        f"float32, pinned, {label}: median {statistics.median(times):.3f} ms "
        f"(min {min(times):.3f}, max {max(times):.3f}) over {args.runs} runs, sums checked "
        f"(worst {worst:.1e})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
