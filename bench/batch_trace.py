#!/usr/bin/env python3
"""Where a warpscope-batch run's time went, from its --trace file(s).

For each lane of the timeline (a worker's CUDA stream, its host thread, its loading thread):
how many spans, the union of their time as a share of the run, and the names that took the
most. For each GPU: the kernels' union over all of its streams, and the gaps between them.

    python3 bench/batch_trace.py [--start] run.json [run.rank1.json ...]

--start also lists, lane by lane, what ran before every GPU had begun its first kernel.
"""
import json
import re
import sys
from collections import defaultdict


def union(intervals):
    total, reached = 0.0, float("-inf")
    for start, end in sorted(intervals):
        start = max(start, reached)
        if end > start:
            total += end - start
            reached = end
    return total


def summarise(path, start):
    events = json.load(open(path))["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        print(f"{path}: no spans")
        return
    begin = min(e["ts"] for e in spans)
    end = max(e["ts"] + e["dur"] for e in spans)
    run = end - begin
    print(f"{path}: {len(spans)} spans over {run / 1000:.1f} ms")
    by_lane = defaultdict(list)
    for e in spans:
        by_lane[e["tid"]].append(e)
    for tid in sorted(by_lane):
        lane = by_lane[tid]
        busy = union((e["ts"], e["ts"] + e["dur"]) for e in lane)
        names = defaultdict(float)
        counts = defaultdict(int)
        for e in lane:
            # Sizes and counts in a name ("of 256 objects") are the same work: one row each.
            key = re.sub(r"\d+", "N", e["name"])
            names[key] += e["dur"]
            counts[key] += 1
        print(f"  {lanes.get(tid, tid)}: {len(lane)} spans, busy {100 * busy / run:.0f} %")
        for key, total in sorted(names.items(), key=lambda kv: -kv[1])[:4]:
            print(f"      {total / 1000:9.1f} ms  {counts[key]:6d} x {total / counts[key]:9.1f} us  {key}")
    gpus = defaultdict(list)
    for e in spans:
        m = re.match(r"CUDA stream: GPU (\d+) worker \d+$", lanes.get(e["tid"], ""))
        if m and e["cat"] == "kernel":
            gpus[int(m.group(1))].append((e["ts"], e["ts"] + e["dur"]))
    if start and gpus:
        # Until the last GPU's first kernel: the run's start-up, which no device computes in.
        until = max(min(k[0] for k in kernels) for kernels in gpus.values())
        print(f"  start-up: the first {(until - begin) / 1000:.1f} ms")
        for tid in sorted(by_lane):
            early = sorted((e for e in by_lane[tid] if e["ts"] < until), key=lambda e: e["ts"])
            if early:
                print(f"    {lanes.get(tid, tid)}:")
            for e in early[:8]:
                print(f"      {(e['ts'] - begin) / 1000:7.2f} ms +{e['dur'] / 1000:7.2f} ms  {e['name']}")
    for gpu, kernels in sorted(gpus.items()):
        kernels.sort()
        first, last = kernels[0][0], max(k[1] for k in kernels)
        busy = union(kernels)
        print(f"  GPU {gpu}: kernels ran {100 * busy / run:.1f} % of the run, "
              f"{100 * busy / (last - first):.1f} % between its first and last kernel; "
              f"idle {(run - busy) / 1000:.1f} ms (before the first {(first - begin) / 1000:.1f}, "
              f"after the last {(end - last) / 1000:.1f})")


args = sys.argv[1:]
for path in args:
    if path != "--start":
        summarise(path, "--start" in args)
