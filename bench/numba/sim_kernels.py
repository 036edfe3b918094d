#!/usr/bin/env python3
"""The CPU simulator's classic kernels (tests/fixtures/sim-kernels/) for Numba's CUDA simulator.

Each kernel is the same algorithm with the same launch as its .cu file: the same shared arrays,
barriers and atomics, the same inputs made from each element's index, and the same nodes of
the output written. Numba's simulator runs each CUDA thread as a Python thread, block after
block. bench/sim-kernels.sh --numba runs this once per kernel, after timing ours on the same
launch; it prints one row of the table: Numba's median, ours (given), their ratio, Numba at
1024 x 1024 estimated from its time per block, and the check of Numba's field against ours.

    sim_kernels.py NAME SIZE LAUNCH LAUNCH_1024 RUNS OURS.f32 OURS_MS
    sim_kernels.py --missing NAME    (prints what Numba's simulator lacks for NAME, if anything)

LAUNCH is X,Y,Z/X,Y,Z[/BYTES] (grid, block, dynamic shared bytes) as warpscope-kernel-bench
takes it; OURS.f32 is our field (SIZE x SIZE float32, row by row). Exit status: 0 when Numba's
field matches ours, 1 when it does not, 2 for bad arguments.
"""
import os
import statistics
import sys
import time
import warnings

# Before numba is imported: the simulator, no GPU needed.
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

# Unsigned words wrap as on a GPU (atomicSub of 1 from 0); NumPy warns about that on scalars.
warnings.filterwarnings("ignore", message="overflow encountered")

# --- Inputs, as the .cu files make them from an element's index ---------------------------


@cuda.jit(device=True)
def reduce_input(i):
    return (i * 7919 + 13) % 1001 - 500


@cuda.jit(device=True)
def histogram_input(i):
    return ((i * 2654435761) >> 7) % 64


@cuda.jit(device=True)
def blur_input(nx, ny, row, col):
    row = min(max(row, 0), ny - 1)
    col = min(max(col, 0), nx - 1)
    return np.float32((row * 37 + col * 11) % 17)


# --- The kernels --------------------------------------------------------------------------


@cuda.jit
def reduce_shared(out, nx, ny):
    partial = cuda.shared.array(0, numba.int32)  # extern __shared__, the launch's bytes
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    partial[t] = reduce_input(i) if i < nx * ny else 0
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x // nx, cuda.blockIdx.x % nx] = partial[0]


@cuda.jit
def scan_block(out, nx, ny):
    buffer = cuda.shared.array((2, 256), numba.int32)
    t = cuda.threadIdx.x
    row = cuda.blockIdx.x
    current = 0
    buffer[current, t] = reduce_input(row * nx + t) if t < nx else 0
    cuda.syncthreads()
    offset = 1
    while offset < cuda.blockDim.x:
        v = buffer[current, t] + (buffer[current, t - offset] if t >= offset else 0)
        current = 1 - current
        buffer[current, t] = v
        cuda.syncthreads()
        offset *= 2
    if t < nx:
        out[row, t] = buffer[current, t]


def transpose(padding):
    """The tiled transpose, with `padding` extra columns in the tile (0: naive, 1: padded)."""
    tile_size = 32

    @cuda.jit
    def kernel(out, nx, ny):
        tile = cuda.shared.array((tile_size, tile_size + padding), numba.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x = cuda.blockIdx.x * tile_size + tx
        y = cuda.blockIdx.y * tile_size + ty
        for j in range(0, tile_size, cuda.blockDim.y):
            if x < nx and y + j < ny:
                tile[ty + j, tx] = (y + j) * nx + x
        cuda.syncthreads()
        x = cuda.blockIdx.y * tile_size + tx
        y = cuda.blockIdx.x * tile_size + ty
        for j in range(0, tile_size, cuda.blockDim.y):
            if x < ny and y + j < nx:
                out[y + j, x] = tile[tx, ty + j]

    return kernel


@cuda.jit
def blur_tiled(out, nx, ny):
    tile_size, radius = 16, 1
    side = tile_size + 2 * radius
    tile = cuda.shared.array((18, 18), numba.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col0 = cuda.blockIdx.x * tile_size - radius
    row0 = cuda.blockIdx.y * tile_size - radius
    k = ty * tile_size + tx
    while k < side * side:
        tile[k // side, k % side] = blur_input(nx, ny, row0 + k // side, col0 + k % side)
        k += tile_size * tile_size
    cuda.syncthreads()
    total = np.float32(0.0)  # float32 sums, in the .cu file's order
    for dr in range(2 * radius + 1):
        for dc in range(2 * radius + 1):
            total = np.float32(total + tile[ty + dr, tx + dc])
    row = cuda.blockIdx.y * tile_size + ty
    col = cuda.blockIdx.x * tile_size + tx
    if row < ny and col < nx:
        out[row, col] = total / np.float32(9.0)


@cuda.jit
def histogram_shared(out, nx, ny, bins, ticket):
    local = cuda.shared.array(64, numba.uint32)
    last = cuda.shared.array(1, numba.int32)
    t, threads = cuda.threadIdx.x, cuda.blockDim.x
    for b in range(t, 64, threads):
        local[b] = 0
    cuda.syncthreads()
    n = nx * ny
    i = cuda.blockIdx.x * threads + t
    while i < n:
        cuda.atomic.add(local, histogram_input(i), np.uint32(1))
        i += cuda.gridDim.x * threads
    cuda.syncthreads()
    for b in range(t, 64, threads):
        cuda.atomic.add(bins, b, local[b])
    cuda.threadfence()
    cuda.syncthreads()
    if t == 0:
        last[0] = cuda.atomic.inc(ticket, 0, cuda.gridDim.x - 1) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0]:
        for b in range(t, 64, threads):
            out[0, b] = cuda.atomic.exch(bins, b, np.uint32(0))


@cuda.jit
def atomics_global(out, nx, ny, ints, words, wide, cas, reals, longs, ticket):
    # The .cu file's __device__ variables, by type: ints (add, sub, min, max, exch), words
    # (add, and, or, xor, inc, dec, sub, min), wide (add, max), cas, reals (float, double),
    # longs (min).
    last = cuda.shared.array(1, numba.int32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    v = i % 1000 + 1
    u = np.uint32(v)
    cuda.atomic.add(ints, 0, v)
    cuda.atomic.sub(ints, 1, v)
    cuda.atomic.min(ints, 2, 500 - v)
    cuda.atomic.max(ints, 3, v * 3)
    cuda.atomic.exch(ints, 4, 7)
    cuda.atomic.add(words, 0, u)
    cuda.atomic.and_(words, 1, ~(np.uint32(1) << np.uint32(v % 32)))
    cuda.atomic.or_(words, 2, np.uint32(1) << np.uint32(v % 31))
    cuda.atomic.xor(words, 3, u)
    cuda.atomic.inc(words, 4, np.uint32(99))
    cuda.atomic.dec(words, 5, np.uint32(99))
    cuda.atomic.sub(words, 6, np.uint32(1))
    cuda.atomic.min(words, 7, np.uint32(v + 5))
    cuda.atomic.add(wide, 0, np.uint64(v) << np.uint64(20))
    cuda.atomic.max(wide, 1, np.uint64(v) << np.uint64(33))
    cuda.atomic.add(reals, 0, np.float32(0.5))
    cuda.atomic.add(reals, 1, 0.25 * v)
    cuda.atomic.min(longs, 0, -(np.int64(v) << np.int64(34)))
    seen = cas[0]
    while True:
        assumed = seen
        seen = cuda.atomic.compare_and_swap(cas, assumed, assumed + np.uint64(3))
        if seen == assumed:
            break
    cuda.threadfence()
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        last[0] = cuda.atomic.add(ticket, 0, np.uint32(1)) == cuda.gridDim.x - 1
    cuda.syncthreads()
    if not last[0] or cuda.threadIdx.x != 0:
        return
    values = (ints[0], ints[1], ints[2], ints[3], ints[4], words[0], words[1], words[2],
              words[3], words[4], words[5], words[6], words[7], wide[0],
              wide[1] >> np.uint64(33), reals[0], reals[1], -(-longs[0] >> np.int64(34)),
              cas[0], cuda.gridDim.x)
    for k in range(20):
        out[0, k] = np.float32(np.float64(values[k]))  # double(), then float, as the .cu file
    ints[:] = (0, 0, 1 << 30, 0, 0)
    words[:] = (0, 0xffffffff, 0, 0, 0, 0, 0, 0xffffffff)
    wide[:] = 0
    cas[0] = 0
    reals[:] = 0
    longs[0] = 0
    ticket[0] = 0


def histogram_state():
    return (np.zeros(64, np.uint32), np.zeros(1, np.uint32))


def atomics_state():
    return (np.array([0, 0, 1 << 30, 0, 0], np.int32),
            np.array([0, 0xffffffff, 0, 0, 0, 0, 0, 0xffffffff], np.uint32),
            np.zeros(2, np.uint64), np.zeros(1, np.uint64), np.zeros(2, np.float64),
            np.zeros(1, np.int64), np.zeros(1, np.uint32))


# name: (kernel, its global memory made afresh for a launch, tolerance against ours). The
# reals of atomics_global are float and double in the .cu file: one array of float64 here,
# whose float sums of 0.5 are exact.
KERNELS = {
    "reduce_shared.cu": (reduce_shared, tuple, 0.0),
    "scan_block.cu": (scan_block, tuple, 0.0),
    "transpose_tiled.cu": (transpose(0), tuple, 0.0),
    "transpose_padded.cu": (transpose(1), tuple, 0.0),
    "blur_tiled.cu": (blur_tiled, tuple, 1e-6),
    "histogram_shared.cu": (histogram_shared, histogram_state, 0.0),
    "atomics_global.cu": (atomics_global, atomics_state, 0.0),
}
# What Numba's simulator lacks for the others.
MISSING = {
    "reduce_warp.cu": "no warp shuffles (shfl_*_sync)",
    "warp_votes.cu": "no warp votes, matches or reductions",
    "cooperative_groups.cu": "no cooperative-group tiles",
}


def parse_launch(text):
    parts = text.split("/")
    grid, block = (tuple(int(v) for v in p.split(",")) for p in parts[:2])
    shared = int(parts[2]) if len(parts) > 2 else 0
    if len(grid) != 3 or len(block) != 3 or min(grid + block) < 1 or shared < 0:
        raise ValueError(text)
    return grid, block, shared


def blocks(grid):
    return grid[0] * grid[1] * grid[2]


def run_numba(name, size, grid, block, shared):
    kernel, state, _ = KERNELS[name]
    out = np.zeros((size, size), np.float32)
    start = time.perf_counter()
    kernel[grid, block, 0, shared](out, size, size, *state())
    return time.perf_counter() - start, out


def main(argv):
    if len(argv) == 3 and argv[1] == "--missing":
        # What Numba's simulator lacks for the kernel, or nothing.
        if argv[2] in MISSING:
            print("not in Numba %s's simulator: %s" % (numba.__version__, MISSING[argv[2]]))
        return 0
    if len(argv) != 8:
        sys.stderr.write(__doc__)
        return 2
    name, size, launch, launch1024, runs, ours_path, ours_ms = argv[1:]
    try:
        size, runs, ours_ms = int(size), int(runs), float(ours_ms)
        grid, block, shared = parse_launch(launch)
        grid1024 = parse_launch(launch1024)[0]
    except ValueError as e:
        sys.stderr.write("sim_kernels.py: bad argument: %s\n%s" % (e, __doc__))
        return 2
    row = "%-20s %-26s" % (name, launch)
    if name not in KERNELS or runs < 1 or size < 1:
        sys.stderr.write("sim_kernels.py: no kernel %s, or runs or size below 1\n" % name)
        return 2
    ours = np.fromfile(ours_path, np.float32)
    if ours.size != size * size:
        sys.stderr.write("sim_kernels.py: %s holds %d values, not %d\n" %
                         (ours_path, ours.size, size * size))
        return 1
    times, out = [], None
    for _ in range(runs):
        seconds, out = run_numba(name, size, grid, block, shared)
        times.append(seconds * 1000.0)
    numba_ms = statistics.median(times)
    tolerance = KERNELS[name][2]
    worst = float(np.max(np.abs(out.ravel().astype(np.float64) - ours.astype(np.float64))))
    same = worst <= tolerance * max(1.0, float(np.max(np.abs(ours))))
    estimate = numba_ms / blocks(grid) * blocks(grid1024) / 1000.0
    print("%s %10.1f ms %10.3f ms %9.0fx %10.0f s   %s" %
          (row, numba_ms, ours_ms, numba_ms / ours_ms, estimate,
           "same field" if same else "DIFFERENT (largest difference %g)" % worst))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
