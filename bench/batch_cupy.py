#!/usr/bin/env python3
"""The peer of `warpscope-bench batch run`: a per-object loop over CuPy's
cupyx.scipy.signal.lombscargle on the same catalogue (a FITS table from
`warpscope-bench batch make`), on an angular grid, keeping each object's best frequency.

    python3 bench/batch_cupy.py W1.fits [--frequencies 100000] [--fmin 0.001] [--fmax 10]
                                        [--dtype float64] [--limit N] [--runs 3]

Needs numpy and cupy only: the table is read with numpy (warpscope-bench writes one binary
table of id (int64), time, flux and flux_err (float64), big-endian as FITS is). Prints the
median over runs of the whole loop (the series on the device, each periodogram, the best
frequency back on the host), per object and in all.
"""
import argparse
import time

import numpy as np


def read_table(path):
    """The first binary table of a FITS file written by warpscope-bench batch make."""
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    hdu = 0
    while True:
        cards = {}
        names = {}
        forms = {}
        while True:
            block = data[at:at + 2880]
            at += 2880
            done = False
            for i in range(0, 2880, 80):
                card = block[i:i + 80].decode("ascii")
                key = card[:8].strip()
                if key == "END":
                    done = True
                    break
                if card[8:10] == "= ":
                    value = card[10:].split("/")[0].strip().strip("'").strip()
                    cards[key] = value
                    if key.startswith("TTYPE"):
                        names[int(key[5:])] = value
                    if key.startswith("TFORM"):
                        forms[int(key[5:])] = value
            if done:
                break
        size = 1
        for k in range(1, int(cards.get("NAXIS", 0)) + 1):
            size *= int(cards[f"NAXIS{k}"])
        size = size if int(cards.get("NAXIS", 0)) > 0 else 0
        if hdu > 0 and cards.get("XTENSION") == "BINTABLE":
            codes = {"K": ">i8", "D": ">f8", "E": ">f4", "J": ">i4"}
            dtype = np.dtype([(names[k], codes[forms[k][-1]]) for k in sorted(names)])
            rows = int(cards["NAXIS2"])
            return np.frombuffer(data, dtype=dtype, count=rows, offset=at)
        at += (size + 2879) // 2880 * 2880
        hdu += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalogue")
    parser.add_argument("--frequencies", type=int, default=100_000)
    parser.add_argument("--fmin", type=float, default=0.001)
    parser.add_argument("--fmax", type=float, default=10.0)
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument("--limit", type=int, default=-1)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import cupy as cp
    from cupyx.scipy.signal import lombscargle

    table = read_table(args.catalogue)
    ids = table["id"]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(ids)) + 1, [ids.size]])
    objects = starts.size - 1 if args.limit < 0 else min(args.limit, starts.size - 1)
    dtype = np.dtype(args.dtype)
    t = np.ascontiguousarray(table["time"].astype(dtype))
    y = np.ascontiguousarray(table["flux"].astype(dtype))
    omega = cp.asarray(2 * np.pi * np.linspace(args.fmin, args.fmax, args.frequencies), dtype=dtype)
    print(f"{args.catalogue}: {objects} objects, {args.frequencies} frequencies "
          f"{args.fmin:g}..{args.fmax:g} (angular grid), {args.dtype}, CuPy {cp.__version__}, "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")

    def loop():
        best = np.empty(objects)
        for o in range(objects):
            a, b = starts[o], starts[o + 1]
            x = cp.asarray(t[a:b])
            v = cp.asarray(y[a:b])
            power = lombscargle(x, v, omega, precenter=True, normalize=True)
            best[o] = float(omega[int(cp.argmax(power))]) / (2 * np.pi)
        cp.cuda.runtime.deviceSynchronize()
        return best

    loop_objects = objects
    objects = min(objects, 10)
    loop()  # warm-up: kernels compiled and cached
    objects = loop_objects
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        best = loop()
        times.append(time.perf_counter() - start)
    median = sorted(times)[len(times) // 2]
    print(f"cupy lombscargle loop: median {median:.3f} s over {args.runs} runs "
          f"(min {min(times):.3f} s), {1e3 * median / objects:.3f} ms per object, "
          f"{objects / median:.0f} objects/s; first best frequencies {best[:3]}")


if __name__ == "__main__":
    main()
