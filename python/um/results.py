"""Reading what umrun writes into pandas: a run's JSON (``--json``, format um-run-2), a suite's ``results.json``
(um-suite-results-1), a compare file (``--compare --json``, um-compare-1) and the per-loop CSV rows (``--csv``, a
sweep's ``sweep.csv``). The loops and metrics keep the names the terminal table prints (docs/output.md): one row
per loop, with the table's columns (calls, seconds, ms_per_call, gb_per_s, set_size, ...).

    r = um.results.load("out/run.json")
    r.loops[["loop", "calls", "ms_per_call", "gb_per_s"]]
    r.metrics            # name -> value
"""
import json
import math

import pandas as pd

RUN, SUITE, COMPARE, CSV = "um-run-2", "um-suite-results-1", "um-compare-1", "csv"

#: the per-loop columns, in the terminal table's order, then the plan's and the split's; loop_strategy: what the
#: loop ran (the JSON's loops[].strategy; a suite's ``strategy`` column is its case's setting); ops_run and
#: ops_per_byte_run: the app's own count at run time (see :func:`ops_counted_at_run_time`)
LOOP_COLUMNS = ["loop", "calls", "seconds", "percent", "ms_per_call", "gb_per_s", "set_size", "compiled_calls",
                "simd_calls", "host_seconds", "plan_seconds", "first_call_seconds", "bytes_per_call", "indirect",
                "iteration_set", "kernel", "ops_estimate", "ops_per_byte", "gflop_per_s", "split", "parent",
                "loop_strategy", "ops_run", "ops_per_byte_run"]
_TEXT = ("iteration_set", "kernel", "split", "parent")


class Results:
    """What :func:`load` read: ``kind`` (one of RUN, SUITE, COMPARE, CSV: the file's format), ``raw`` (the parsed
    JSON; None for CSV), and DataFrames:

    - ``loops``: one row per loop (per case for a suite: columns ``id``, ``case``, ``app``, ``backend``,
      ``strategy``, ``layout`` first; a compare file: ``id``, ``loop``, ``parent``, ``a_ms``, ``b_ms``, ``ratio``,
      ``flag``);
    - ``metrics``: one row per metric (``name``, ``value``; a suite adds ``id``; a compare file has ``a``, ``b``,
      ``tolerance``, ``drift_share``, ``verdict``);
    - ``runs``: one row per run (a run's file: its one run) with its settings, status and times;
    - ``options`` (a run's file): every option in effect, ``key``, ``value``, ``source``, ``origin``.
    """

    def __init__(self, kind, raw, loops, metrics, runs, options=None):
        self.kind, self.raw, self.loops, self.metrics, self.runs = kind, raw, loops, metrics, runs
        self.options = options if options is not None else pd.DataFrame(columns=["key", "value", "source", "origin"])

    def __repr__(self):
        return "<um.results.Results %s: %d runs, %d loop rows, %d metrics>" % (self.kind, len(self.runs),
                                                                              len(self.loops), len(self.metrics))


def _num(v):
    return float("nan") if v is None else v


def _loop_rows(run):
    total = run.get("total_seconds") or 0.0
    rows = []
    for l in run.get("loops", []):
        calls, secs = l.get("calls", 0), _num(l.get("seconds"))
        row = {"loop": l.get("name"), "calls": calls, "seconds": secs,
               "percent": 100.0 * secs / total if total and l.get("parent") is None else float("nan"),
               "ms_per_call": 1e3 * secs / calls if calls else float("nan")}
        for k in LOOP_COLUMNS[5:-3]:
            if k in l:
                row[k] = _num(l[k]) if k not in _TEXT else l[k]
        if "strategy" in l:
            row["loop_strategy"] = l["strategy"]
        row["ops_run"] = ops_counted_at_run_time(run, l)
        bpc = l.get("bytes_per_call") or 0
        row["ops_per_byte_run"] = row["ops_run"] * l.get("set_size", 0) / bpc if bpc > 0 else float("nan")
        plan = l.get("plan") or {}
        for k, v in plan.items():
            row["plan_" + k] = v
        rows.append(row)
    return rows


def ops_counted_at_run_time(run, loop):
    """Operations per element of a loop as its app counted them at run time (SIAC, whose trip counts are data:
    its ``gflops_<loop>`` metric x ``seconds_<loop>`` over the set size), where the count from the kernel's source
    (``ops_estimate``) is unknown; a lower bound, as the report shows it (``≥``). NaN where the app gives none.
    ``run``: a run's JSON (a dict; a suite case's ``run``), ``loop``: one of its ``loops``."""
    if loop.get("ops_estimate") is not None:
        return float("nan")
    m = run.get("metrics") or {}
    g, s, size = m.get("gflops_%s" % loop.get("name")), m.get("seconds_%s" % loop.get("name")), loop.get("set_size")
    if g is None or s is None or not size or g <= 0 or s <= 0:
        return float("nan")
    return g * 1e9 * s / size


_RUN_FIELDS = ["app", "backend", "strategy", "layout", "reorder", "block_size", "ranks", "threads", "status",
               "total_seconds", "setup_seconds", "run_seconds", "steps", "step_seconds", "first_step_seconds"]


def _run_row(run):
    row = {k: run.get(k) for k in _RUN_FIELDS}
    row["copy_gb_per_s"] = copy_bandwidth(run)
    return row


def copy_bandwidth(run, results=None):
    """The measured copy bandwidth (GB/s) beside a run's loops, as the report takes it: the GPU's for a cuda run,
    the host's otherwise (``machine.host_copy_gb_per_s``); NaN where the file does not record it."""
    machine = (results or {}).get("machine") or run.get("machine") or {}
    if run.get("backend") == "cuda":
        g = (run.get("device") or {}).get("copy_gb_per_s")
        if g is None:
            g = (machine.get("gpu") or {}).get("copy_gb_per_s")
        return _num(g)
    return _num(machine.get("host_copy_gb_per_s"))


def _from_run(raw):
    loops = pd.DataFrame(_loop_rows(raw), columns=None)
    metrics = pd.DataFrame([{"name": k, "value": _num(v)} for k, v in (raw.get("metrics") or {}).items()],
                           columns=["name", "value"])
    options = pd.DataFrame([{"key": k, "value": (v or {}).get("value"), "source": (v or {}).get("source"),
                             "origin": (v or {}).get("origin")} for k, v in (raw.get("options") or {}).items()],
                           columns=["key", "value", "source", "origin"])
    return Results(RUN, raw, _ordered(loops), metrics, pd.DataFrame([_run_row(raw)]), options)


def _ordered(df, first=()):
    cols = list(first) + [c for c in LOOP_COLUMNS if c in df.columns and c not in first]
    return df[cols + [c for c in df.columns if c not in cols]] if len(df.columns) else df


_CASE = ["id", "case", "app", "backend", "strategy", "layout"]


def _from_suite(raw):
    loops, metrics, runs = [], [], []
    for c in raw.get("cases", []):
        head = {k: c.get(k) for k in _CASE}
        run = c.get("run") or {}
        runs.append(dict(head, suite_status=c.get("status"), seconds=c.get("seconds"), samples=c.get("samples"),
                         **{k: v for k, v in _run_row(dict(run, machine=raw.get("machine"))).items()
                            if k not in head}))
        for r in _loop_rows(run):
            loops.append(dict(head, **r))
        for k, v in (run.get("metrics") or {}).items():
            metrics.append({"id": c.get("id"), "name": k, "value": _num(v)})
    return Results(SUITE, raw, _ordered(pd.DataFrame(loops), _CASE), pd.DataFrame(metrics, columns=["id", "name",
                                                                                                     "value"]),
                   pd.DataFrame(runs))


def _from_compare(raw):
    loops, metrics, runs = [], [], []
    for c in raw.get("cases", []):
        runs.append({k: c.get(k) for k in ("id", "a", "b", "comparable", "regression", "max_drift_share",
                                           "loop_time_ratio")})
        for l in c.get("loops", []):
            loops.append({"id": c["id"], "loop": l["name"], "parent": l.get("parent"), "a_ms": _num(l.get("a_ms")),
                          "b_ms": _num(l.get("b_ms")), "ratio": _num(l.get("ratio")), "flag": l.get("flag")})
        for m in c.get("metrics", []):
            metrics.append(dict({"id": c["id"]}, **{k: _num(m.get(k)) if k not in ("name", "verdict") else m.get(k)
                                                     for k in ("name", "a", "b", "tolerance", "drift_share",
                                                               "verdict")}))
    return Results(COMPARE, raw,
                   pd.DataFrame(loops, columns=["id", "loop", "parent", "a_ms", "b_ms", "ratio", "flag"]),
                   pd.DataFrame(metrics, columns=["id", "name", "a", "b", "tolerance", "drift_share", "verdict"]),
                   pd.DataFrame(runs))


def _from_csv(path):
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise ValueError("%s: empty (umrun's --csv writes a header line and a row per loop)" % path) from None
    if "loop" not in df.columns:
        raise ValueError("%s: not umrun's per-loop CSV (no 'loop' column; header: %s)" % (path, list(df.columns)))
    runs = df.drop_duplicates([c for c in ("variant", "app", "backend", "strategy", "layout", "reorder",
                                           "block_size") if c in df.columns])
    return Results(CSV, None, df, pd.DataFrame(columns=["name", "value"]), runs.reset_index(drop=True))


def load(path):
    """Read one of umrun's result files into a :class:`Results`: a run's JSON, a suite's results.json, a compare
    file, or the per-loop CSV; the format is told from the file (its ``format`` field; ``.csv`` files by name).
    Raises ValueError naming the file and what it holds when it is none of these."""
    path = str(path)
    if path.lower().endswith(".csv"):
        return _from_csv(path)
    with open(path) as f:
        try:
            raw = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError("%s: not JSON (%s); um.results.load reads umrun's --json, results.json, "
                             "--compare --json and --csv files" % (path, e)) from None
    fmt = raw.get("format") if isinstance(raw, dict) else None
    if fmt == RUN or (fmt is None and isinstance(raw, dict) and "loops" in raw):
        return _from_run(raw)
    if fmt == SUITE:
        return _from_suite(raw)
    if fmt == COMPARE:
        return _from_compare(raw)
    raise ValueError("%s: format %r is none of %s, %s, %s (umrun's run JSON, suite results and compare files)"
                     % (path, fmt, RUN, SUITE, COMPARE))


def useful_bandwidth(results):
    """Per loop (the app's own, not the loops a split generated), its useful GB/s beside the copy bandwidth of the
    same device: a DataFrame with ``loop`` (and the case's columns for a suite), ``gb_per_s``, ``copy_gb_per_s``
    and ``percent_of_copy``, the numbers of the report's bandwidth figure."""
    if results.kind == RUN:
        runs = [({}, results.raw)]
    elif results.kind == SUITE:
        runs = [({k: c.get(k) for k in _CASE}, dict(c.get("run") or {}, machine=results.raw.get("machine")))
                for c in results.raw.get("cases", []) if c.get("run")]
    else:
        raise ValueError("useful_bandwidth: a run's JSON or a suite's results.json, not a %s file" % results.kind)
    rows = []
    for head, run in runs:
        copy = copy_bandwidth(run)
        for l in run.get("loops", []):
            if l.get("parent") is not None:
                continue
            g = _num(l.get("gb_per_s"))
            rows.append(dict(head, loop=l.get("name"), gb_per_s=g, copy_gb_per_s=copy,
                             percent_of_copy=100.0 * g / copy if copy and not math.isnan(copy) else float("nan")))
    return pd.DataFrame(rows)
