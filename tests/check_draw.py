#!/usr/bin/env python3
"""umrun --draw: pictures of a plan and of a partition, checked against the run's own figures.

  check_draw.py UMRUN WORK plan        one process: the plan picture (default loop and a named one), the
                                       partition picture of one rank, and the refusals (unknown loop, a 3-D
                                       mesh, a mesh too large, a path that cannot be written, a picture past
                                       the file size limit, plan under mpirun)
  check_draw.py UMRUN WORK mpi MPIRUN  3 ranks: the partition picture shows 3 owners and each rank's halos

Run from the source root. Every SVG must parse as XML; its figures must be the ones the run's JSON gives
(loops[].plan, partition.sets[]), and a refused picture must leave no file (and no temporary) behind.
"""
import base64
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
AIRFOIL = ["configs/airfoil_small.yaml", "--quiet", "--set", "run.iterations=4", "--set", "validation.reference=",
           "--set", "output.dir="]


def fail(msg, log=""):
    print(log[-4000:])
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, expect_rc, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if p.returncode != expect_rc:
        fail(f"{what}: exit {p.returncode}, expected {expect_rc}: {' '.join(cmd)}", p.stdout)
    return p.stdout


def panels(svg):
    """Per panel: {class: count} from the paths' data-class and data-count."""
    out = []
    for g in svg.iter(NS + "g"):
        if g.get("class") != "panel":
            continue
        classes = {}
        for p in g.iter(NS + "path"):
            classes[int(p.get("data-class"))] = int(p.get("data-count"))
            if not p.get("d", "").startswith("M"):
                fail("a path without shapes")
        out.append(classes)
    return out


def load(svg_path, json_path):
    schema = subprocess.run([sys.executable, "tests/check_schema.py", "docs/schema", json_path],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if schema.returncode not in (0, 77):  # 77: python3-jsonschema not installed
        fail(f"{json_path} does not validate against docs/schema/run.schema.json", schema.stdout)
    try:
        svg = ET.parse(svg_path).getroot()
    except ET.ParseError as e:
        fail(f"{svg_path} is not well-formed XML: {e}")
    with open(json_path) as f:
        return svg, json.load(f)


def check_plan(umrun, work, loop=None):
    svg_path, json_path = os.path.join(work, "plan.svg"), os.path.join(work, "plan.json")
    what = "plan" + (f"={loop}" if loop else "")
    log = run([umrun] + AIRFOIL + ["--set", "run.backend=openmp", "--draw", what, svg_path, "--json", json_path], 0, what)
    svg, js = load(svg_path, json_path)
    d = js.get("draw") or fail("the JSON has no draw member", log)
    if loop and d["loop"] != loop:
        fail(f"drew loop {d['loop']}, asked for {loop}")
    lp = [l for l in js["loops"] if l["name"] == d["loop"]][0]
    plan = lp["plan"]
    figures = {"data-blocks": plan["blocks"], "data-block-colours": plan["block_colours"],
               "data-thread-colours": plan["thread_colours_max"], "data-elements": lp["set_size"]}
    for k, want in figures.items():
        if int(svg.get(k)) != int(want):
            fail(f"{what}: {k}={svg.get(k)}, the run's JSON says {want}")
    ps = panels(svg)
    if len(ps) != 2:
        fail(f"{what}: {len(ps)} panels, expected 2 (block colours, thread colours)")
    if len(ps[0]) != plan["block_colours"] or sum(ps[0].values()) != lp["set_size"]:
        fail(f"{what}: block-colour panel has {len(ps[0])} colours over {sum(ps[0].values())} elements; the plan "
             f"has {plan['block_colours']} over {lp['set_size']}")
    if max(ps[1]) + 1 != plan["thread_colours_max"] or sum(ps[1].values()) != lp["set_size"]:
        fail(f"{what}: thread-colour panel has classes up to {max(ps[1])}; the plan's most is "
             f"{plan['thread_colours_max']}")
    if f"draw: plan of loop {d['loop']}" not in log:
        fail("the run does not say what it drew", log)
    return d["loop"], js


def refused(umrun, work, args, rc, words, what):
    target = os.path.join(work, "refused.svg")
    log = run([umrun] + args + ["--draw"] + what + [target], rc, " ".join(what))
    for w in words:
        if w not in log:
            fail(f"--draw {' '.join(what)}: the message does not say '{w}'", log)
    left = [f for f in os.listdir(work) if f.startswith("refused")]
    if left:
        fail(f"--draw {' '.join(what)}: left {left} behind")


def check_partition(svg_path, json_path, ranks):
    svg, js = load(svg_path, json_path)
    d = js["draw"]
    if int(svg.get("data-ranks")) != ranks or d["ranks"] != ranks:
        fail(f"partition: {svg.get('data-ranks')} ranks drawn, the run had {ranks}")
    ps = panels(svg)
    if len(ps) != (ranks + 1 if ranks > 1 else 1):
        fail(f"partition: {len(ps)} panels for {ranks} ranks")
    if len(ps[0]) != ranks or sum(ps[0].values()) != d["elements"]:
        fail(f"partition: the owners' panel shows {len(ps[0])} owners over {sum(ps[0].values())} elements")
    if ranks == 1:
        return
    sets = {s["name"]: s for s in js["partition"]["sets"]}
    want = sets[d["set"]]
    for r in range(ranks):
        got = [ps[r + 1].get(k, 0) for k in range(3)]
        exp = [want["owned"][r], want["exec_halo"][r], want["nonexec_halo"][r]]
        if got != exp or ps[0][r] != exp[0]:
            fail(f"partition: rank {r} drawn owned/exec/nonexec {got}, the run's JSON says {exp}")
        if got[1] + got[2] == 0:
            fail(f"partition: rank {r} has no halo elements drawn")


def check_write_fails(umrun, work):
    """A picture the disk cannot take (past the file size limit, as on a full disk): the system's reason, exit 2,
    nothing left (it said "could not write" with no reason)."""
    target = os.path.join(work, "big.svg")
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
    p = subprocess.run([umrun] + AIRFOIL + ["--set", "run.cache=off", "--set", "hostc.compile=off", "--draw", "plan",
                                            target], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600, preexec_fn=limit)
    if p.returncode != 2:
        fail(f"--draw past the file size limit: exit {p.returncode}, expected 2", p.stdout)
    if f"--draw: cannot write '{target}': writing it failed: File too large (" not in p.stdout:
        fail("--draw past the file size limit: the message does not give the system's reason", p.stdout)
    left = [f for f in os.listdir(work) if f.startswith("big.svg")]
    if left:
        fail(f"--draw past the file size limit: left {left} behind")


def check_report(umrun, work):
    """A suite case with draw: plan; --report shows its picture with a caption, as an image of the same SVG."""
    suite = os.path.join(work, "suite.yaml")
    cfg = os.path.abspath("configs/airfoil_small.yaml")
    with open(suite, "w") as f:
        f.write(f"suite: draw\ncases:\n  - name: af\n    config: {cfg}\n    draw: plan\n"
                "    set: [run.iterations=4, validation.reference=]\n    matrix: {backend: [openmp]}\n")
    out = os.path.join(work, "suite")
    run([umrun, "--suite", suite, "--tags", "all", "--out", out], 0, "suite with draw: plan")
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    rj = res["cases"][0]["run"]
    page = os.path.join(work, "report.html")
    run([umrun, "--report", page, os.path.join(out, "results.json")], 0, "report")
    html = open(page).read()
    m = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"><figcaption>([^<]*)', html)
    if not m:
        fail("the report has no picture with a caption")
    svg = ET.fromstring(base64.b64decode(m.group(1)))
    plan = [l for l in rj["loops"] if l["name"] == rj["draw"]["loop"]][0]["plan"]
    if int(svg.get("data-block-colours")) != plan["block_colours"] or f"{plan['blocks']} blocks" not in m.group(2):
        fail("the report's picture or caption does not show the run's plan", m.group(2))
    with open(suite, "a") as f:
        f.write("  - name: bad\n    config: " + cfg + "\n    draw: plans\n")
    log = run([umrun, "--suite", suite, "--tags", "all", "--out", out], 1, "suite with a bad draw:")
    if "case 'bad': draw:" not in log:
        fail("a bad draw: is not said", log)


def main():
    umrun, work, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if mode == "mpi":
        mpirun = sys.argv[4].split()
        svg, js = os.path.join(work, "part.svg"), os.path.join(work, "part.json")
        run(mpirun + ["-np", "3", umrun] + AIRFOIL + ["--set", "run.backend=seq", "--draw", "partition", svg,
                                                      "--json", js], 0, "partition on 3 ranks")
        check_partition(svg, js, 3)
        refused_mpi = mpirun + ["-np", "2", umrun] + AIRFOIL
        refused(refused_mpi[0], work, refused_mpi[1:], 1, ["without mpirun"], ["plan"])
        print("ok: partition on 3 ranks")
        return
    loop, js = check_plan(umrun, work)
    others = [l["name"] for l in js["loops"] if "plan" in l and l["name"] != loop]
    if not others:
        fail("the run has one planned loop only: no other to name")
    check_plan(umrun, work, others[0])
    svg, jsp = os.path.join(work, "part.svg"), os.path.join(work, "part.json")
    run([umrun] + AIRFOIL + ["--draw", "partition=cells", svg, "--json", jsp], 0, "partition on 1 rank")
    check_partition(svg, jsp, 1)
    refused(umrun, work, AIRFOIL + ["--set", "run.backend=seq"], 1, ["no_such_loop", "res_calc"],
            ["plan=no_such_loop"])
    refused(umrun, work, ["configs/lulesh_small.yaml", "--quiet", "--set", "run.iterations=2", "--set",
                          "validation.reference=", "--set", "output.dir="], 1, ["3-D"], ["plan"])
    refused(umrun, work, ["configs/jacobi.yaml", "--quiet", "--set", "mesh.N=260",
                          "--set", "run.iterations=1", "--set", "validation.reference=", "--set", "output.dir="],
            1, ["small meshes", "at most"], ["partition"])
    run([umrun] + AIRFOIL + ["--draw", "plan", os.path.join(work, "no_such_folder", "p.svg")], 1, "unwritable path")
    run([umrun] + AIRFOIL + ["--draw", "picture", os.path.join(work, "p.svg")], 1, "unknown picture")
    check_write_fails(umrun, work)
    check_report(umrun, work)
    print("ok: plan and partition pictures, the refusals, and the report's picture")


if __name__ == "__main__":
    main()
