#!/usr/bin/env python3
"""CuPy's Lomb-Scargle periodogram (cupyx.scipy.signal.lombscargle), the peer of
`warpscope-bench periodogram`'s N = 1024, M = 2^20 float64 case, timed the usual two ways:
the kernel alone (CUDA events around the call, data already on the device) and the whole
call from host arrays to host powers (copies in and out, wall clock). Same shape of series
(N times uniform over 1000 units, a 13.7-unit sinusoid plus noise) and the same grid
(0.001 + k * 50 / M cycles per unit; lombscargle takes angular frequencies).

    python3 bench/periodogram_cupy.py [--n 1024] [--m 1048576] [--runs 10]
"""
import argparse
import statistics
import sys
import time

import numpy as np
import cupy as cp
from cupyx.scipy.signal import lombscargle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--m", type=int, default=1 << 20)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    t = 1000.0 * rng.random(args.n)
    y = np.sin(2 * np.pi * t / 13.7) + rng.normal(0.0, 0.5, args.n)
    y -= y.mean()
    w = 2 * np.pi * (0.001 + (50.0 / args.m) * np.arange(args.m))
    td, yd, wd = cp.asarray(t), cp.asarray(y), cp.asarray(w)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    kernel, call = [], []
    for run in range(-3, args.runs):
        start.record()
        p = lombscargle(td, yd, wd)
        stop.record()
        stop.synchronize()
        a = time.perf_counter()
        host = cp.asnumpy(lombscargle(cp.asarray(t), cp.asarray(y), cp.asarray(w)))
        b = time.perf_counter()
        if run >= 0:
            kernel.append(cp.cuda.get_elapsed_time(start, stop))
            call.append((b - a) * 1000.0)
    if not np.all(np.isfinite(host)):
        print("CHECK FAILED: CuPy's powers are not all finite", file=sys.stderr)
        return 1
    print(f"CuPy {cp.__version__} lombscargle N {args.n} M {args.m} float64: "
          f"kernel median {statistics.median(kernel):.3f} ms, whole call from host arrays "
          f"median {statistics.median(call):.3f} ms (over {args.runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
