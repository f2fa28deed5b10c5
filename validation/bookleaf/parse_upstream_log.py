#!/usr/bin/env python3
"""Parse BookLeaf_F90 (UK-MAC, develop) stdout logs into machine-readable numbers; BookLeaf_Cpp's
logs (the CUDA branch's, for the large decks to t = 20) read the same way: its header line is
"Step no. N, Time = T" and its mesh sizes "Number of elements/nodes:", and its numbers print with
the same digits (tables 5, dt and time 10, L1 9).

usage: parse_upstream_log.py [--steps] LOG... > values.json
       (one JSON object keyed by deck name = log file name without .log)

Every number is taken from the printed text (Python float of the printed token, so the
printed digits round-trip: repr(float('3.2566E+03')) == '3256.6').  Printed precision:
  tables (region/material/Total/total energy): Fortran 1p e12.4 -> 5 significant digits
  per-step dt and time: e16.9 style -> 10 significant digits
  "Step no. N Time = T" header: f14.7 -> 7 decimals
  Sod L1 norm of density: e16.9 -> 9 significant digits
With --steps the per-step lines are included as arrays (step, el, name, dt, time, reason).
"""
import json
import re
import sys

STEP_RE = re.compile(r"^\s*step=\s*(\d+)\s+el=\s*(-?\d+)\s+(.*?)\s*dt=\s*(\S+)\s+time=\s*(\S+)"
                     r"\s+grind=\s*(\S+)\s+timer=\s*(\S+)\s+s\s+(\S+)\s*$")
HDR_RE = re.compile(r"^\s*Step no\.\s+(\d+),?\s+Time =\s+(\S+)")
COLS = ["vol", "mass", "tot ie", "tot ke", "press", "min press", "max press",
        "dens", "min dens", "max dens"]
TOTAL_COLS = ["vol", "mass", "tot ie", "tot ke", "press", "dens"]


def num(tok):
    tok = tok.strip()
    # Fortran E edit descriptor drops the 'E' for 3-digit exponents: 1.2345-100
    m = re.match(r"^([+-]?\d*\.\d*)([+-]\d{3})$", tok)
    if m:
        tok = m.group(1) + "E" + m.group(2)
    if tok.startswith("*"):
        raise ValueError("overflowed Fortran field: " + tok)
    return float(tok)


def parse_table_rows(lines, i):
    """lines[i] is the column header line of a table; return (rows, next index)."""
    rows = []
    i += 1
    while i < len(lines) and lines[i].strip():
        ln = lines[i].rstrip("\n")
        name = ln[2:12].strip()
        body = ln[12:]
        vals = [num(body[k * 12:(k + 1) * 12]) for k in range(10)]
        rows.append(dict(name=name, **dict(zip(COLS, vals))))
        i += 1
    return rows, i


def parse_block(lines, i):
    """lines[i] matches HDR_RE; parse region/material tables, Total row, total energy."""
    m = HDR_RE.match(lines[i])
    blk = {"step": int(m.group(1)), "time": num(m.group(2))}
    i += 1
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("Table 1"):
            while "region" not in lines[i] or "vol" not in lines[i]:
                i += 1
            blk["regions"], i = parse_table_rows(lines, i)
            continue
        if s.startswith("Table 2"):
            while "material" not in lines[i] or "vol" not in lines[i]:
                i += 1
            blk["materials"], i = parse_table_rows(lines, i)
            continue
        if s.startswith("Total"):
            ln = lines[i].rstrip("\n")
            body = ln[12:]
            v = [body[k * 12:(k + 1) * 12] for k in range(8)]
            # format: ' Total ',5X,1p5e12.4,24X,1pe12.4 -> fields 0-4, then field 7
            blk["total"] = dict(zip(TOTAL_COLS, [num(x) for x in v[:5]] + [num(v[7])]))
        elif s == "total energy":
            te = {}
            for k in range(1, 4):
                key, val = lines[i + k].split()
                te[key] = num(val)
            blk["total_energy"] = te
            i += 4
            break
        i += 1
    return blk, i


def parse(path, want_steps=False):
    lines = open(path, errors="replace").read().splitlines()
    out = {"log": path.split("/")[-1]}
    steps = []
    blocks = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("  Input file:"):
            out["input_file"] = ln.split(":", 1)[1].strip()
        elif "Total number of elements:" in ln or ln.lstrip().startswith("Number of elements:"):
            out["elements"] = int(ln.split()[-1])
        elif "Total number of nodes:" in ln or ln.lstrip().startswith("Number of nodes:"):
            out["nodes"] = int(ln.split()[-1])
        elif "L1 norm. of density:" in ln:
            out["sod_l1_norm_density"] = num(ln.split(":")[1])
        elif "terminating" in ln or "ERROR" in ln:
            out.setdefault("messages", []).append(ln.strip())
        m = STEP_RE.match(ln)
        if m:
            steps.append((int(m.group(1)), int(m.group(2)), m.group(3).strip(),
                          num(m.group(4)), num(m.group(5)), m.group(8)))
            i += 1
            continue
        if HDR_RE.match(ln):
            blk, i = parse_block(lines, i)
            blocks.append(blk)
            continue
        i += 1
    if blocks:
        out["start"] = blocks[0]
    if len(blocks) > 1:
        out["end"] = blocks[-1]
    if steps:
        last = steps[-1]
        out["steps"] = last[0]
        out["final_time"] = last[4]
        out["final_dt"] = last[3]
        out["final_dt_element"] = last[1]
        out["final_dt_name"] = last[2]
        out["final_dt_reason"] = last[5]
        counts = {}
        for s in steps:
            counts[s[5]] = counts.get(s[5], 0) + 1
        out["dt_reason_counts"] = counts
        out["min_dt"] = min(s[3] for s in steps)
        out["max_dt"] = max(s[3] for s in steps)
        if want_steps:
            out["per_step"] = {k: [s[j] for s in steps] for j, k in
                               enumerate(["step", "el", "name", "dt", "time", "reason"])}
    return out


def main(argv):
    want_steps = "--steps" in argv
    res = {}
    for p in [a for a in argv if not a.startswith("--")]:
        deck = p.split("/")[-1]
        if deck.endswith(".log"):
            deck = deck[:-4]
        res[deck] = parse(p, want_steps)
    json.dump(res, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
