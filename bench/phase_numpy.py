#!/usr/bin/python3
"""Phase dispersion minimisation and conditional entropy in vectorised NumPy, timed on the
series and grid of `warpscope-bench pdm|ce`, so that the ratio can be read side by side:

    /usr/bin/python3 bench/phase_numpy.py pdm [--points 600] [--periods 100000] [--runs 5]
    /usr/bin/python3 bench/phase_numpy.py ce ...
    /usr/bin/python3 bench/phase_numpy.py check     (against tests/fixtures/period-methods/)

The definitions are those of tests/fixtures/generate_period_methods.py (PDM with 10 bins and 2
covers, CE with 10 x 5 bins, both folded at frac((t - t[0]) f)); here the frequencies go a
chunk at a time as 2-D arrays, the bins filled with np.bincount. Prints the median time of the
runs and the period of the least value, which warpscope-bench prints too.
"""
import argparse
import os
import sys
import time

import numpy as np


def bench_series(n):
    """warpscope-bench's series (bench/PhaseBench.cpp), formula for formula."""
    i = np.arange(n, dtype=float)
    t = 0.5 * i + 0.2 * np.sin(1.7 * i)
    y = np.sin(2.0 * np.pi * t / 2.345) + 0.3 * np.sin(12.9898 * i + 0.7)
    return t, y


def fold(dt, f):
    return (f[:, None] * dt[None, :]) % 1.0


def pdm_theta(t, y, freqs, nb=10, nc=2, chunk=2000):
    dt = t - t[0]
    y = y - y.mean()
    sigma2 = np.var(y, ddof=1)
    theta = np.empty(freqs.size)
    for k0 in range(0, freqs.size, chunk):
        f = freqs[k0:k0 + chunk]
        phase = fold(dt, f)
        rows = np.arange(f.size)[:, None] * nb
        yy = np.broadcast_to(y, phase.shape).ravel()
        num = np.zeros(f.size)
        den = np.zeros(f.size)
        for c in range(nc):
            shifted = (phase + c / (nb * nc)) % 1.0
            flat = (rows + np.minimum((shifted * nb).astype(int), nb - 1)).ravel()
            size = f.size * nb
            n = np.bincount(flat, minlength=size).reshape(f.size, nb)
            s = np.bincount(flat, weights=yy, minlength=size).reshape(f.size, nb)
            s2 = np.bincount(flat, weights=yy * yy, minlength=size).reshape(f.size, nb)
            use = n >= 2
            spread = np.where(use, s2 - s * s / np.maximum(n, 1), 0.0)
            num += np.maximum(spread, 0.0).sum(axis=1)
            den += np.where(use, n - 1, 0).sum(axis=1)
        theta[k0:k0 + chunk] = num / den / sigma2
    return theta


def conditional_entropy(t, y, freqs, nphase=10, nmag=5, chunk=2000):
    dt = t - t[0]
    m = (y - y.min()) / (y.max() - y.min())
    mi = np.minimum((m * nmag).astype(int), nmag - 1)
    cells = nphase * nmag
    h = np.empty(freqs.size)
    for k0 in range(0, freqs.size, chunk):
        f = freqs[k0:k0 + chunk]
        pi = np.minimum((fold(dt, f) * nphase).astype(int), nphase - 1)
        flat = (np.arange(f.size)[:, None] * cells + pi * nmag + mi[None, :]).ravel()
        counts = np.bincount(flat, minlength=f.size * cells).reshape(f.size, nphase, nmag)
        pphi = counts.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * np.log(pphi / counts), 0.0)
        h[k0:k0 + chunk] = terms.sum(axis=(1, 2)) / t.size
    return h


METHODS = {"pdm": pdm_theta, "ce": conditional_entropy}


def check():
    """Both implementations against the fixtures on eclipsing.csv: the same definitions."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                        "period-methods")
    series = np.loadtxt(os.path.join(here, "eclipsing.csv"), delimiter=",", skiprows=2)
    worst = 0.0
    for name, method in METHODS.items():
        ref = np.loadtxt(os.path.join(here, f"{name}.csv"), delimiter=",", skiprows=2)
        got = method(series[:, 0], series[:, 1], ref[:, 0])
        error = float(np.max(np.abs(got - ref[:, 1]) / np.abs(ref[:, 1])))
        print(f"{name}: largest relative difference from {name}.csv {error:.3g}")
        worst = max(worst, error)
    return 0 if worst < 1e-9 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method", choices=["pdm", "ce", "check"])
    parser.add_argument("--points", type=int, default=600)
    parser.add_argument("--periods", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=2000, help="frequencies per 2-D array")
    a = parser.parse_args()
    if a.points < 2 or a.periods < 1 or a.runs < 1 or a.chunk < 1:
        parser.error("points >= 2, periods, runs and chunk >= 1")
    if a.method == "check":
        return check()
    t, y = bench_series(a.points)
    freqs = np.linspace(0.01, 10.0, a.periods)
    times = []
    for _ in range(a.runs):
        start = time.perf_counter()
        values = METHODS[a.method](t, y, freqs, chunk=a.chunk)
        times.append((time.perf_counter() - start) * 1000.0)
    print(f"NumPy {np.__version__} {a.method}, {a.points} points, {a.periods} trial periods: "
          f"median {np.median(times):.1f} ms of {a.runs} runs; least at "
          f"{1.0 / freqs[np.argmin(values)]:.6g} days")
    return 0


if __name__ == "__main__":
    sys.exit(main())
