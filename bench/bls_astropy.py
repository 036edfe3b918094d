#!/usr/bin/python3
"""astropy's BoxLeastSquares on the series `warpscope-bench bls --save-series FILE` wrote, over
the same trial periods and durations (BlsBench.cpp's grid), on one CPU core: the median of
repeated calls, for the ratio against warpscope-bench's figures in the same run.

    /usr/bin/python3 bench/bls_astropy.py FILE [--periods 20000] [--durations 10] [--runs 3]
        [--method fast|slow]
"""
import argparse
import time

import numpy as np
from astropy.timeseries import BoxLeastSquares

parser = argparse.ArgumentParser()
parser.add_argument("series")
parser.add_argument("--periods", type=int, default=20000)
parser.add_argument("--durations", type=int, default=10)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--method", default="fast")
a = parser.parse_args()

t, y, dy = np.loadtxt(a.series, delimiter=",", skiprows=1, unpack=True)
days = 27.0  # BlsBench's default span
fmax, fmin = 1.0 / 0.5, 2.0 / days
k = np.arange(a.periods)
periods = 1.0 / (fmax - (fmax - fmin) * k / max(1, a.periods - 1))
durations = 1.0 / 24.0 * 8.0 ** (np.arange(a.durations) / max(1, a.durations - 1))
bls = BoxLeastSquares(t, y, dy)
times = []
for _ in range(a.runs):
    start = time.perf_counter()
    r = bls.power(periods, durations, method=a.method, objective="likelihood", oversample=10)
    times.append(time.perf_counter() - start)
best = int(np.argmax(r.power))
print(f"astropy {a.method}: N {t.size} periods {a.periods} durations {a.durations} median "
      f"{1e3 * float(np.median(times)):.1f} ms ({a.runs} runs); best period {periods[best]:.5f} d, "
      f"depth {r.depth[best]:.5f}, duration {r.duration[best]:.4f} d")
