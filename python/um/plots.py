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


def _file_roofs(r, runs):
    """The roofs a results file records, as the report draws them: (label, copy GB/s, peak GFLOP/s) for the GPU
    when a run used one (its measured copy bandwidth and peak FP64 rate) and for the host CPU (``umrun --suite``
    measures its copy bandwidth and multiply-add rate); NaN where not recorded."""
    out = []
    gpu = [run for run in runs if run.get("backend") == "cuda"]
    if gpu:
        bw = max((_results.copy_bandwidth(run) for run in gpu), key=lambda v: -1 if math.isnan(v) else v)
        peak = max((run.get("device") or {}).get("peak_fp64_gflop_per_s") or 0.0 for run in gpu)
        out.append(("GPU", bw, peak or float("nan")))
    if len(gpu) < len(runs):
        machine = (r.raw or {}).get("machine") or {}
        bw = machine.get("host_copy_gb_per_s")
        peak = machine.get("host_peak_fp64_gflop_per_s")
        out.append(("CPU", float("nan") if bw is None else bw, float("nan") if peak is None else peak))
    return out


def roofline(r, ax=None, roofs=()):
    """Each loop with an operation count at (ops/byte, GFLOP/s) on log axes, under the roofs: the memory roof
    (copy bandwidth x ops/byte) up to the compute roof (peak FP64 rate), their ridge point marked (the
    intensity where they meet, the machine's balance). The roofs are those the file records, as the report
    draws them: on a GPU its copy bandwidth and peak, and the host CPU's that ``umrun --suite`` measures (its
    copy bandwidth and multiply-add rate; a single run's ``--json`` has neither, so no roof of its own). A loop
    whose count from its source is unknown but whose app counts it at run time (SIAC:
    :func:`um.results.ops_counted_at_run_time`) is drawn at that count, a lower bound (its label starts with
    "≥"). ``roofs``: more roofs to draw, each (label, copy GB/s, peak GFLOP/s): a machine of an exercise, say."""
    r = _load(r)
    runs = [r.raw] if r.kind == _results.RUN else [dict(c["run"], machine=r.raw.get("machine"))
                                                   for c in r.raw.get("cases", []) if c.get("run")]
    ax = _axes(ax)
    xs = []
    for run in runs:
        for l in run.get("loops", []):
            op, bound = l.get("ops_estimate"), ""
            if op is None:
                op, bound = _results.ops_counted_at_run_time(run, l), "\u2265"
            bpc, s = l.get("bytes_per_call") or 0, l.get("seconds") or 0
            if not op or math.isnan(op) or bpc <= 0 or s <= 0 or l.get("parent") is not None:
                continue
            ai = op * l["set_size"] / bpc
            gops = op * l["set_size"] * l["calls"] / s * 1e-9
            ax.scatter([ai], [gops], s=14)
            ax.annotate(bound + l["name"], (ai, gops), fontsize=7)
            xs.append(ai)
    drawn = [(label, bw, peak) for label, bw, peak in [*_file_roofs(r, runs), *roofs]
             if bw and not math.isnan(bw) and bw > 0]
    ridges = [peak / bw for _, bw, peak in drawn if peak and not math.isnan(peak) and peak > 0]
    if drawn and (xs or ridges):
        lo, hi = min(xs + ridges) / 4, max(xs + ridges) * 4
        for label, bw, peak in drawn:
            if peak and not math.isnan(peak) and peak > 0:
                ridge = peak / bw
                line = ax.plot([lo, ridge, max(hi, ridge)], [bw * lo, peak, peak],
                               label="%s: copy %.1f GB/s, peak %.1f GFLOP/s" % (label, bw, peak))[0]
                ax.scatter([ridge], [peak], marker="^", color=line.get_color(), zorder=3)
                ax.annotate("ridge %.1f ops/byte" % ridge, (ridge, peak), fontsize=7, xytext=(4, -10),
                            textcoords="offset points", color=line.get_color())
            else:
                ax.plot([lo, hi], [bw * lo, bw * hi], label="%s: copy %.1f GB/s" % (label, bw))
        ax.legend(fontsize=7)
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
