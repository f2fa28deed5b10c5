"""The report's figures (umrun --report) with matplotlib, from the same numbers: per-loop useful bandwidth beside
the copy bandwidth, the roofline-style picture, and strategy / layout comparisons of a suite.

Each function takes a :class:`um.results.Results` (or a path for :func:`um.results.load`) and an optional
matplotlib Axes, draws on it and returns it.
"""
import math

import matplotlib.pyplot as plt

from . import results as _results


def _load(r):
    return r if isinstance(r, _results.Results) else _results.load(r)


def _axes(ax):
    return ax if ax is not None else plt.subplots(figsize=(8, 4))[1]


def bandwidth(r, ax=None):
    """Per loop, its useful GB/s as a bar, with the device's measured copy bandwidth as a line (the report's
    bandwidth figure). A suite: one bar per loop and case."""
    r = _load(r)
    df = _results.useful_bandwidth(r)
    ax = _axes(ax)
    labels = [("%s %s" % (row.get("id", ""), row["loop"])).strip() for _, row in df.iterrows()]
    ax.bar(range(len(df)), df["gb_per_s"], color="tab:blue")
    ax.set_xticks(range(len(df)), labels, rotation=60, ha="right", fontsize=7)
    copy = df["copy_gb_per_s"].dropna()
    if len(copy):
        ax.axhline(copy.max(), color="tab:red", linestyle="--", label="copy %.0f GB/s" % copy.max())
        ax.legend()
    ax.set_ylabel("useful GB/s")
    ax.set_title("useful bandwidth per loop")
    return ax


def roofline(r, ax=None):
    """Each loop with a counted operation count at (ops/byte, GFLOP/s) on log axes, under the memory roof (the
    copy bandwidth) and, on a GPU, the compute roof (peak FP64): the report's roofline-style picture."""
    r = _load(r)
    runs = [r.raw] if r.kind == _results.RUN else [dict(c["run"], machine=r.raw.get("machine"))
                                                   for c in r.raw.get("cases", []) if c.get("run")]
    ax = _axes(ax)
    bw, peak, xs = 0.0, 0.0, []
    for run in runs:
        cb = _results.copy_bandwidth(run)
        bw = max(bw, cb) if not math.isnan(cb) else bw
        peak = max(peak, (run.get("device") or {}).get("peak_fp64_gflop_per_s") or 0.0)
        for l in run.get("loops", []):
            op, bpc, s = l.get("ops_estimate"), l.get("bytes_per_call") or 0, l.get("seconds") or 0
            if not op or bpc <= 0 or s <= 0 or l.get("parent") is not None:
                continue
            ai = op * l["set_size"] / bpc
            gops = op * l["set_size"] * l["calls"] / s * 1e-9
            ax.scatter([ai], [gops], s=14)
            ax.annotate(l["name"], (ai, gops), fontsize=7)
            xs.append(ai)
    if bw and xs:
        lo, hi = min(xs) / 4, max(xs) * 4
        roof = [bw * lo, bw * hi]
        if peak:
            roof = [min(v, peak) for v in roof]
        ax.plot([lo, hi], roof, color="tab:red", label="copy %.0f GB/s" % bw)
        ax.legend()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ops/byte")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("roofline-style picture")
    return ax


def compare(r, by="strategy", metric="ms_per_call", ax=None):
    """A suite's loops side by side across one setting (``by``: "strategy", "layout", "backend" or "reorder"):
    a grouped bar per loop (app's own loops), ``metric`` (ms_per_call or gb_per_s) per value of the setting."""
    r = _load(r)
    if r.kind != _results.SUITE:
        raise ValueError("plots.compare: a suite's results.json, not a %s file" % r.kind)
    df = r.loops[r.loops["parent"].isna()] if "parent" in r.loops else r.loops
    df = df.assign(label=df["app"] + " " + df["loop"])
    table = df.pivot_table(index="label", columns=by, values=metric, aggfunc="min")
    ax = _axes(ax)
    table.plot.bar(ax=ax, rot=60, fontsize=7)
    ax.set_ylabel(metric)
    ax.set_title("loops by %s" % by)
    return ax
