#!/usr/bin/env python3
"""bench/ncu_table.py names each profiled launch after its loop: a whole loop by its kernel, a split loop
(run.reproducible) by the loops it generated, its contribution loop's kernel and the first gather launch after
it (um_gather_d is every gather's kernel). A made-up ncu CSV and run JSON; exits 1 on the first wrong row.

    python3 tests/check_ncu_table.py bench/ncu_table.py"""
import csv
import json
import os
import subprocess
import sys
import tempfile

METRICS = ["gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct",
           "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__registers_per_thread", "launch__grid_size",
           "launch__block_size", "lts__t_sectors_op_red.sum", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
           "lts__throughput.avg.pct_of_peak_sustained_elapsed",
           "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"]


def main():
    table = sys.argv[1]
    launches = [("um_loop_force_contrib", 11), ("um_loop_small", 99), ("um_gather_d", 22), ("um_loop_update", 33),
                ("um_gather_d", 44)]  # the second gather belongs to no large loop's contribution launch
    loops = [{"name": "force", "seconds": 1.0, "calls": 2},
             {"name": "force:contrib", "parent": "force", "seconds": 0.6, "calls": 2},
             {"name": "force:gather", "parent": "force", "seconds": 0.4, "calls": 2},
             {"name": "small", "seconds": 0.01, "calls": 2}, {"name": "update", "seconds": 0.5, "calls": 2}]
    with tempfile.TemporaryDirectory() as d:
        c, j = os.path.join(d, "ncu.csv"), os.path.join(d, "run.json")
        with open(c, "w", newline="") as f:
            f.write("==PROF== Connected to process\n")
            w = csv.writer(f, quoting=csv.QUOTE_ALL)
            w.writerow(["ID", "Kernel Name"] + METRICS)
            w.writerow(["", ""] + ["unit"] * len(METRICS))
            for i, (k, regs) in enumerate(launches):
                w.writerow([str(i), k + "(double *)"] + [str(regs)] * len(METRICS))
        json.dump({"loops": loops}, open(j, "w"))
        out = subprocess.run([sys.executable, table, c, j], capture_output=True, text=True, check=True).stdout
    rows = {r.split("|")[1].strip(): int(r.split("|")[3]) for r in out.splitlines()[2:] if r.startswith("| ")}
    want = {"force:contrib": 11, "force:gather": 22, "update": 33}
    if rows != want:
        print(f"rows (loop: registers of the launch it was given) {rows}, expected {want}:\n{out}")
        return 1
    if "not among the profiled launches" in out:
        print("a large loop reported missing:\n" + out)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
