"""Every output format the suite writes, read back by um.results and um.fields and checked against the files
themselves (json, h5py, the XDMF text)."""
import json

import h5py
import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")

import um.fields  # noqa: E402
import um.plots  # noqa: E402
import um.results  # noqa: E402


def test_run_json(outputs):
    raw = json.load(open(outputs["seq"]))
    r = um.results.load(outputs["seq"])
    assert r.kind == um.results.RUN and len(r.runs) == 1
    assert list(r.loops["loop"]) == [l["name"] for l in raw["loops"]]
    res = r.loops.set_index("loop").loc["res_calc"]
    src = next(l for l in raw["loops"] if l["name"] == "res_calc")
    assert res["calls"] == src["calls"] == 400 and res["seconds"] == src["seconds"]
    assert res["ms_per_call"] == 1e3 * src["seconds"] / src["calls"] and res["gb_per_s"] == src["gb_per_s"]
    m = r.metrics.set_index("name")["value"]
    assert m["rms_200"] == raw["metrics"]["rms_200"] and m["cells"] == 1800
    opts = r.options.set_index("key")
    assert opts.loc["run.backend", "value"] == "seq" and opts.loc["run.backend", "source"] == "--set"
    assert r.runs.loc[0, "backend"] == "seq" and r.runs.loc[0, "steps"] == 200


def test_csv_rows(outputs):
    r = um.results.load(outputs["dir"] / "loops.csv")
    assert r.kind == um.results.CSV
    assert set(r.loops["backend"]) == {"seq", "openmp"}
    seq = r.loops[(r.loops["backend"] == "seq") & (r.loops["loop"] == "update")].iloc[0]
    src = next(l for l in json.load(open(outputs["seq"]))["loops"] if l["name"] == "update")
    assert seq["calls"] == src["calls"] and seq["set_size"] == src["set_size"] == 1800


def test_suite_results(outputs):
    raw = json.load(open(outputs["suite"]))
    r = um.results.load(outputs["suite"])
    assert r.kind == um.results.SUITE
    assert sorted(r.runs["backend"]) == ["openmp", "seq"] and len(r.runs) == len(raw["cases"]) == 2
    for c in raw["cases"]:
        mine = r.loops[r.loops["id"] == c["id"]]
        assert list(mine["loop"]) == [l["name"] for l in c["run"]["loops"]]
        assert list(mine["calls"]) == [l["calls"] for l in c["run"]["loops"]]
        got = r.metrics[r.metrics["id"] == c["id"]].set_index("name")["value"].to_dict()
        assert got == {k: v for k, v in c["run"]["metrics"].items()}
    bw = um.results.useful_bandwidth(r)
    assert len(bw) == len(r.loops[r.loops["parent"].isna()])


def test_compare_file(outputs):
    raw = json.load(open(outputs["compare"]))
    r = um.results.load(outputs["compare"])
    assert r.kind == um.results.COMPARE and len(r.runs) == len(raw["cases"])
    c = raw["cases"][0]
    mine = r.loops[r.loops["id"] == c["id"]]
    assert list(mine["loop"]) == [l["name"] for l in c["loops"]]
    assert list(mine["a_ms"]) == [l["a_ms"] for l in c["loops"]]
    assert set(r.metrics["verdict"]) == {m["verdict"] for cc in raw["cases"] for m in cc["metrics"]}


def test_hdf5_fields(outputs):
    path = outputs["dir"] / "openmp" / "airfoil.h5"
    ds = um.fields.open(path)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(ds["p_q"].values, f["p_q"][...])
        np.testing.assert_array_equal(ds["pcell"].values, f["pcell"][...])
        assert ds.attrs["set_cells"] == int(f["cells"][0]) == 1800
    assert ds["p_q"].dims == ("cells", "p_q_dim") and ds["p_x"].dims == ("nodes", "p_x_dim")
    assert ds["p_q"].attrs["type"] == "double" and ds["p_q"].attrs["dim"] == 4


def test_xdmf_fields(outputs):
    folder = outputs["dir"] / "seq"
    ds = um.fields.open(folder / "airfoil.xmf")
    with h5py.File(folder / "airfoil.h5", "r") as f:
        np.testing.assert_array_equal(ds["coordinates"].values, f["p_x"][...])
        np.testing.assert_array_equal(ds["connectivity"].values, f["pcell"][...])
        np.testing.assert_array_equal(ds["p_adt"].values, f["p_adt"][...])
    assert ds["p_q"].dims == ("cell", "p_q_dim") and ds.attrs["topology"] == "Quadrilateral"


def test_plots(outputs):
    run, suite = um.results.load(outputs["seq"]), um.results.load(outputs["suite"])
    ax = um.plots.bandwidth(run)
    assert len(ax.patches) == len(run.loops[run.loops["parent"].isna()])
    um.plots.roofline(run)
    ax = um.plots.compare(suite, by="backend")
    assert len(ax.get_legend().get_texts()) == 2
    assert isinstance(suite.loops, pd.DataFrame)


def test_unknown_file_refused(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "something-else"}')
    try:
        um.results.load(p)
    except ValueError as e:
        assert "x.json" in str(e) and "um-run-2" in str(e)
    else:
        raise AssertionError("a file of another format was read")


def test_loops_say_what_they_ran_and_the_apps_own_counts(outputs, tmp_path):
    """The JSON's loops[].strategy as loop_strategy (a suite's strategy column stays its case's); where a loop's
    operations cannot be counted from its source, the app's own count at run time (gflops_<loop> x seconds_<loop>,
    SIAC's, the report's lower bound) as ops_run and ops_per_byte_run."""
    r = um.results.load(outputs["openmp"]).loops.set_index("loop")
    assert r.loc["res_calc", "loop_strategy"] == "coloured" and pd.isna(r.loc["adt_calc", "loop_strategy"])  # None or NaN: pandas 3's strings
    assert r["ops_run"].isna().all() and r["ops_per_byte_run"].isna().all()  # Airfoil's counts are its source's
    s = um.results.load(outputs["suite"])
    assert set(s.loops["strategy"]) == set(s.runs["strategy"]), "a suite's strategy column is its case's setting"
    run = {"format": "um-run-2", "app": "siac", "backend": "openmp",
           "metrics": {"gflops_per_point": 2.5, "seconds_per_point": 0.02},
           "loops": [{"name": "per_point", "calls": 1, "seconds": 0.02, "set_size": 500, "bytes_per_call": 250000,
                      "ops_estimate": None, "ops_unknown": "trip counts known at run time", "parent": None},
                     {"name": "errors", "calls": 1, "seconds": 0.001, "set_size": 500, "bytes_per_call": 8000,
                      "ops_estimate": 12, "ops_per_byte": 0.75, "parent": None}]}
    path = tmp_path / "siac.json"
    path.write_text(json.dumps(run))
    loops = um.results.load(path).loops.set_index("loop")
    assert loops.loc["per_point", "ops_run"] == 2.5e9 * 0.02 / 500
    assert loops.loc["per_point", "ops_per_byte_run"] == 2.5e9 * 0.02 / 250000
    assert np.isnan(loops.loc["errors", "ops_run"]), "a loop counted in its source keeps that count alone"
    ax = um.plots.roofline(path)
    labels = {t.get_text() for t in ax.texts}
    assert "\u2265per_point" in labels and "errors" in labels, labels


def test_roofline_draws_the_roofs_and_their_ridges(outputs):
    """A suite records the host's copy bandwidth and multiply-add rate (umrun --suite measures them): the roofline
    draws that roof with its ridge point, as the report does; a single run's JSON has none, but a roof given as
    roofs= is drawn, ridge and all."""
    suite = um.results.load(outputs["suite"])
    m = suite.raw["machine"]
    ax = um.plots.roofline(suite)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["CPU: copy %.1f GB/s, peak %.1f GFLOP/s" % (m["host_copy_gb_per_s"],
                                                                 m["host_peak_fp64_gflop_per_s"])], legend
    ridge = m["host_peak_fp64_gflop_per_s"] / m["host_copy_gb_per_s"]
    assert "ridge %.1f ops/byte" % ridge in {t.get_text() for t in ax.texts}
    (x, y), = [l.get_xydata()[1] for l in ax.get_lines()]
    assert np.isclose(x, ridge) and np.isclose(y, m["host_peak_fp64_gflop_per_s"])
    run = um.results.load(outputs["seq"])
    assert um.plots.roofline(run).get_legend() is None, "a single run records no copy bandwidth: no roof"
    ax = um.plots.roofline(run, roofs=[("modest CPU", 20.0, 96.0)])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["modest CPU: copy 20.0 GB/s, peak 96.0 GFLOP/s"]
    assert "ridge 4.8 ops/byte" in {t.get_text() for t in ax.texts}
