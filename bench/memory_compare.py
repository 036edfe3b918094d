#!/usr/bin/env python3
"""The simulator's record of memory beside Nsight Compute's counters, per memory lesson.

    bench/memory_compare.py SIMULATOR.csv NCU.csv [--fixture OUT.csv]

SIMULATOR.csv is `warpscope-memory-reference --simulator`'s output; NCU.csv is
bench/memory-reference.sh's ncu-more.csv (or ncu-basic.csv), its rows in the manifest's order.
Prints a Markdown table of sectors per request (global loads, stores and atomics), wavefronts
per shared load and store and threads per instruction, each the simulator's beside the hardware's, and
whether they agree within 5 %. --fixture writes the hardware's figures per kernel as the CSV
tests/fixtures/memory-kernels/ncu-h200.csv holds.
"""
import csv
import sys


KEYS = ("ld", "st", "atom", "shared", "shared_st", "threads")
# The fixture's columns: sectors per request, but shared-memory wavefronts in total (a GPU counts
# an instruction also for a warp whose lanes are all predicated off; the simulator sees only
# lanes that run, so its instructions are fewer where whole warps sit out).
FIXTURE = ("ld", "st", "atom", "shared_total", "shared_st_total", "threads")


def number(text):
    text = text.replace(",", "").strip().strip('"')
    try:
        return float(text)
    except ValueError:
        return None


def ncu_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    names = rows[header]
    # The row after the header gives units; data rows follow.
    data = [dict(zip(names, r)) for r in rows[header + 2:] if len(r) == len(names)]
    return data


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    args = sys.argv[1:]
    fixture = None
    if "--fixture" in args:
        at = args.index("--fixture")
        fixture = args[at + 1]
        del args[at:at + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[0], newline="") as f:
        simulated = list(csv.DictReader(f))
    hardware = ncu_rows(args[1])
    if len(hardware) != len(simulated):
        sys.exit(f"{len(hardware)} profiled launches for {len(simulated)} kernels")

    def metric(row, name):
        return number(row[name]) if name in row else None

    figures = []
    print("| kernel | global load sectors/request | global store sectors/request | "
          "global atomic sectors/request | shared load wavefronts/instruction (in all) | "
          "shared store wavefronts/instruction (in all) | threads/instruction |")
    print("|---|---|---|---|---|---|---|")
    for sim, hw in zip(simulated, hardware):
        s = {k: number(v) for k, v in sim.items() if k != "kernel"}
        def total(*names):
            values = [metric(hw, n) for n in names]
            return None if any(v is None for v in values) else sum(values)

        h = {
            "ld": ratio(metric(hw, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                        metric(hw, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")),
            "st": ratio(metric(hw, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                        metric(hw, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")),
            # An atomic whose result is unused is a reduction (RED) on the GPU.
            "atom": ratio(total("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
                                "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"),
                          total("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
                                "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum")),
            "shared": ratio(metric(hw, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                            metric(hw, "smsp__inst_executed_op_shared_ld.sum")),
            "shared_st": ratio(metric(hw, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
                               metric(hw, "smsp__inst_executed_op_shared_st.sum")),
            "threads": metric(hw, "smsp__thread_inst_executed_per_inst_executed.ratio"),
            "shared_total": metric(hw, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
            "shared_st_total": metric(hw, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        }
        mine = {
            "ld": ratio(s["global_ld_sectors"], s["global_ld_requests"]),
            "st": ratio(s["global_st_sectors"], s["global_st_requests"]),
            "atom": ratio(s["global_atom_sectors"], s["global_atom_requests"]),
            "shared": ratio(s["shared_ld_wavefronts"], s["shared_ld_instructions"]),
            "shared_st": ratio(s["shared_st_wavefronts"], s["shared_st_instructions"]),
            "threads": ratio(s["branch_lanes"], s["branch_blocks"]),
            "shared_total": s["shared_ld_wavefronts"],
            "shared_st_total": s["shared_st_wavefronts"],
        }
        cells = []
        for key in KEYS:
            a, b = mine[key], h[key]
            if key.startswith("shared") and (mine[key + "_total" if key == "shared" else "shared_st_total"] or 0) > 0:
                total = "shared_total" if key == "shared" else "shared_st_total"
                ta, tb = mine[total], h[total]
                same = tb is not None and abs(ta - tb) <= 0.05 * tb
                cells.append(f"{a:.3g} / {b:.3g} ({ta:.0f} / {tb:.0f} {'ok' if same else '**differs**'})")
                continue
            if a is None and b is None:
                cells.append("none")
            elif a is None or b is None:
                cells.append(f"{a if a is not None else '-'} / {b if b is not None else '-'}")
            else:
                ok = abs(a - b) <= 0.05 * b
                cells.append(f"{a:.3g} / {b:.3g} {'ok' if ok else '**differs**'}")
        print(f"| {sim['kernel']} | " + " | ".join(cells) + " |")
        figures.append([sim["kernel"]] + [h[k] for k in FIXTURE])
    if fixture:
        with open(fixture, "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["kernel", "global_ld_sectors_per_request",
                          "global_st_sectors_per_request", "global_atomic_sectors_per_request",
                          "shared_ld_wavefronts", "shared_st_wavefronts",
                          "threads_per_instruction"])
            for row in figures:
                out.writerow([row[0]] + ["" if v is None else f"{v:.6g}" for v in row[1:]])


if __name__ == "__main__":
    main()
