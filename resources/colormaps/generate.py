#!/usr/bin/python3
"""Writes the colormap tables Warpscope embeds: 256 sRGB entries each, taken from
Matplotlib (Debian's python3-matplotlib), which publishes viridis, magma, inferno, cividis
and turbo as lookup tables.

    /usr/bin/python3 resources/colormaps/generate.py
"""
import pathlib

from matplotlib import colormaps

here = pathlib.Path(__file__).resolve().parent
for name in ("viridis", "magma", "inferno", "cividis", "turbo"):
    cmap = colormaps[name].resampled(256)
    lines = [f"# {name}, 256 entries of r,g,b in [0, 1], from Matplotlib"]
    for i in range(256):
        r, g, b, _ = cmap(i)
        lines.append(f"{r:.6f},{g:.6f},{b:.6f}")
    (here / f"{name}.csv").write_text("\n".join(lines) + "\n")
    print(f"wrote {name}.csv")
