#!/usr/bin/env python3
"""What umrun's figures of a run on several ranks are, and which runs --report shows.

  check_report_runs.py --umrun UMRUN --work DIR [--mpirun "MPIRUN ARGS"]

1. (with --mpirun) a 2-rank run's JSON: each loop's gb_per_s is every rank's useful bytes over the slowest rank's
   time per call, bytes_per_call_all_ranks and set_size_all_ranks sum the ranks' (at least the one-rank run's);
   the terminal table's GB/s and set size are the same figures.
2. (with --mpirun) a suite of 1 and 2 ranks: --report labels the two runs apart and its loops table gives the job's
   bytes per call (the 2-rank run's whole-mesh figure, not rank 0's half).
3. a suite with a run that fails validation: --report lists it under "Runs not in the figures" with its message
   and no chart or table uses its figures; the page and markdown may not replace the suite's summary.md.
4. the page's structure: every id once (two loaded machines: two banners), no element of a table outside its
   cells (a picture after the sets table), round gridline values on the bar charts, set-up rows told apart, and
   a suite's picture found beside its moved results file before a file of that name where the suite ran.
"""
import argparse, html.parser, json, os, re, shlex, shutil, subprocess, sys


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit("FAIL: %s exited %d (expected %d)\n%s%s" % (" ".join(cmd), p.returncode, expect, p.stdout, p.stderr))
    return p.stdout + p.stderr


def fail(msg):
    sys.exit("FAIL: " + msg)


def mpi_figures(a, mpirun):
    one, two = os.path.join(a.work, "one.json"), os.path.join(a.work, "two.json")
    base = ["configs/jacobi.yaml", "--set", "output.dir=", "--set", "run.backend=seq"]
    run([a.umrun] + base + ["--json", one])
    out = run(shlex.split(mpirun) + ["-np", "2", a.umrun] + base + ["--json", two])
    L1 = {l["name"]: l for l in json.load(open(one))["loops"]}
    for l in json.load(open(two))["loops"]:
        n, calls = l["name"], l["calls"]
        for k in ("bytes_per_call_all_ranks", "set_size_all_ranks", "seconds_rank_max"):
            if k not in l:
                fail("2-rank loop %s lacks %s" % (n, k))
        if l["bytes_per_call_all_ranks"] < L1[n]["bytes_per_call"] or l["set_size_all_ranks"] < L1[n]["set_size"]:
            fail("2-rank loop %s: bytes %g, elements %g over the ranks, below one rank's %g, %g" %
                 (n, l["bytes_per_call_all_ranks"], l["set_size_all_ranks"], L1[n]["bytes_per_call"], L1[n]["set_size"]))
        if l["bytes_per_call"] >= l["bytes_per_call_all_ranks"]:
            fail("2-rank loop %s: rank 0's bytes %g not below the ranks' %g" % (n, l["bytes_per_call"], l["bytes_per_call_all_ranks"]))
        want = l["bytes_per_call_all_ranks"] / (l["seconds_rank_max"] / calls) * 1e-9 if l["seconds_rank_max"] > 0 else 0
        if abs(l["gb_per_s"] - want) > 1e-9 * max(1.0, want):
            fail("2-rank loop %s: gb_per_s %r, expected the job's %r" % (n, l["gb_per_s"], want))
        row = re.search(r"^%s +%d +\S+ +\S+ +\S+ +\S+ +(\d+)" % (re.escape(n), calls), out, re.M)
        if not row or int(row.group(1)) != l["set_size_all_ranks"]:
            fail("the terminal table's set size of %s is not the ranks' %d:\n%s" % (n, l["set_size_all_ranks"], out))
    print("ok: a 2-rank run's loop figures are the job's")


def report_ranks(a):
    suite = os.path.join(a.work, "ranks.yaml")
    with open(suite, "w") as f:  # the 2-rank run first: the loops table takes its first run's bytes
        f.write("suite: ranks\ncases:\n  - name: jacobi_np\n    config: configs/jacobi.yaml\n    tags: [t]\n"
                "    set: [output.dir=]\n    matrix: {backend: [seq], ranks: [2, 1]}\n")
    out = os.path.join(a.work, "ranks")
    run([a.umrun, "--suite", suite, "--tags", "t", "--out", out])
    page = os.path.join(a.work, "ranks.html")
    run([a.umrun, "--report", page, os.path.join(out, "results.json")])
    md = open(page[:-5] + ".md").read()
    head = re.search(r"^\| loop \| (jacobi_np [^|\n]*) \| (jacobi_np [^|\n]*) \|$", md, re.M)
    if not head or head.group(1).strip() == head.group(2).strip() or "np2" not in head.group(0):
        fail("the runs on 1 and 2 ranks are not told apart in the report's columns:\n" + md)
    res = json.load(open(os.path.join(out, "results.json")))
    one = {l["name"]: l for c in res["cases"] if c["ranks"] == 1 for l in c["run"]["loops"]}
    loops = md.split("### Loops", 1)[1].split("\n\n", 2)[1]
    for n, l in one.items():  # the columns: loop, over, pattern, bytes / element, bytes / call, ...
        row = re.search(r"^\| %s \| [^|]* \| [^|]* \| [^|]* \| ([0-9.]+) \|" % re.escape(n), loops, re.M)
        if not row or float(row.group(1)) < 0.99 * l["bytes_per_call"]:
            fail("loop %s: the loops table's bytes per call (%s) are not the 2-rank job's (one rank: %g):\n%s" %
                 (n, row.group(1) if row else "no row", l["bytes_per_call"], loops))
    print("ok: the report tells the ranks apart and gives the job's bytes")


def report_failed(a):
    suite = os.path.join(a.work, "failing.yaml")
    with open(suite, "w") as f:
        f.write("suite: failing\ncases:\n  - name: jacobi_ok\n    config: configs/jacobi.yaml\n    tags: [t]\n"
                "    set: [output.dir=]\n  - name: jacobi_bad\n    config: configs/jacobi.yaml\n    tags: [t]\n"
                "    set: [output.dir=, params.tolerance=1e-3]\n")
    out = os.path.join(a.work, "failing")
    run([a.umrun, "--suite", suite, "--tags", "t", "--out", out], expect=3)
    res = os.path.join(out, "results.json")
    page = os.path.join(a.work, "failing.html")
    run([a.umrun, "--report", page, res])
    html, md = open(page).read(), open(page[:-5] + ".md").read()
    if "Runs not in the figures (1)" not in html or "jacobi_bad" not in md or "validation failed" not in md:
        fail("the failing run is not listed under 'Runs not in the figures' with its message:\n" + md)
    shown = md.split("## Runs not in the figures", 1)[1].split("\n## ", 1)[1]
    if "bad" in shown:
        fail("the failing run's label appears in the figures after the list:\n" + shown)
    if not re.search(r"jacobi_bad", md.split("## Runs not in the figures", 1)[1].split("\n## ", 1)[0]):
        fail("the list lacks jacobi_bad")
    summary = open(os.path.join(out, "summary.md")).read()
    msg = run([a.umrun, "--report", os.path.join(out, "summary.html"), res], expect=1)
    if "summary.md is what the suite wrote beside" not in msg or open(os.path.join(out, "summary.md")).read() != summary:
        fail("--report replaced the suite's summary.md or did not say so:\n" + msg)
    print("ok: a failing run is listed, not drawn; the suite's summary.md is kept")


class Page(html.parser.HTMLParser):
    """ids, and any element other than a row inside a table but outside its cells"""

    def __init__(self):
        super().__init__()
        self.ids, self.stack, self.stray = [], [], []

    def handle_starttag(self, tag, attrs):
        self.ids += [v for k, v in attrs if k == "id"]
        if self.stack and self.stack[-1] in ("table", "tr") and tag not in ("tr", "td", "th", "thead", "tbody"):
            self.stray.append(tag)
        if tag not in ("br", "img", "rect", "line", "path", "circle", "polyline", "meta"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass


def round_ticks(svg_html):
    """the y-axis values of each bar chart: 0, s, 2s, ... with s 1, 2, 2.5 or 5 times a power of ten"""
    for chart in re.findall(r"<svg.*?</svg>", svg_html, re.S):
        vals = [float(v) for v in re.findall(r'font-size="11" text-anchor="end">([0-9.e+-]+)</text><line', chart)]
        if len(vals) < 2:
            continue
        step = vals[1]
        mant = step / 10 ** int(__import__("math").floor(__import__("math").log10(step)))
        if round(mant, 6) not in (1, 2, 2.5, 5) or any(abs(v - k * step) > 1e-9 * step for k, v in enumerate(vals)):
            fail("a bar chart's gridlines are not at round values: %s" % vals)


def page_structure(a):
    suite = os.path.join(a.work, "pic.yaml")
    with open(suite, "w") as f:
        f.write("suite: pic\ncases:\n  - name: airfoil_pic\n    config: configs/airfoil_small.yaml\n    tags: [t]\n"
                "    set: [output.dir=]\n    draw: plan=res_calc\n    matrix: {backend: [openmp], layout: [aos, soa]}\n")
    out = os.path.join(a.work, "pic")
    run([a.umrun, "--suite", suite, "--tags", "t", "--out", out])
    moved = os.path.join(a.work, "pic_moved")
    shutil.rmtree(moved, ignore_errors=True)
    shutil.move(out, moved)
    res = json.load(open(os.path.join(moved, "results.json")))
    drawn = res["cases"][0]["run"]["draw"]["file"]
    decoy = drawn if os.path.isabs(drawn) else os.path.join(os.getcwd(), drawn)  # where the suite wrote it: now
    os.makedirs(os.path.dirname(decoy), exist_ok=True)  # another suite's picture of the same name (a new --out)
    with open(decoy, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg"><text>DECOY PICTURE</text></svg>')
    for k, busy in enumerate((2, 3)):  # two results files of loaded machines
        r = dict(res, load=dict(res.get("load") or {}, busy_runs=busy, cores=2, start=5, end=5))
        with open(os.path.join(a.work, "busy%d.json" % k), "w") as f:
            json.dump(r, f)
    page = os.path.join(a.work, "pic.html")
    run([a.umrun, "--report", page, os.path.join(moved, "results.json")])
    text = open(page).read()
    import base64
    pics = [base64.b64decode(b).decode() for b in re.findall(r"base64,([A-Za-z0-9+/=]+)", text)]
    if not pics or any("DECOY PICTURE" in q for q in pics):
        fail("the page's picture is not the suite's own (%d pictures)" % len(pics))
    page2 = os.path.join(a.work, "busy.html")
    run([a.umrun, "--report", page2] + [os.path.join(a.work, "busy%d.json" % k) for k in (0, 1)])
    for pg in (page, page2):
        p = Page()
        p.feed(open(pg).read())
        dup = sorted({i for i in p.ids if p.ids.count(i) > 1})
        if dup or p.stray:
            fail("%s: ids used twice %s, elements loose in a table %s" % (pg, dup, sorted(set(p.stray))))
        round_ticks(open(pg).read())
    md = open(page[:-5] + ".md").read()
    table = md.split("### Set-up by phase and memory per rank", 1)[1].split("\n\n")[1].splitlines()
    head, setup = [x.strip() for x in table[0].split("|")], table[2:]
    if "touched MB" not in head:
        fail("the set-up table has no 'touched MB' column: %s" % head)
    touched = [row.split("|")[head.index("touched MB")].strip() for row in setup]
    if not all(re.fullmatch(r"[0-9]+", t) for t in touched):
        fail("the set-up table's 'touched MB' are not numbers: %s" % touched)
    firsts = [row.split("|")[1].strip() for row in setup]
    if len(firsts) < 2 or len(set(firsts)) != len(firsts):
        fail("the set-up table's rows are not told apart: %s" % firsts)
    print("ok: unique ids, tables whole, round gridlines, set-up rows apart, the suite's own picture")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--umrun", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpirun", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    report_failed(a)
    page_structure(a)
    if a.mpirun:
        mpi_figures(a, a.mpirun)
        report_ranks(a)


if __name__ == "__main__":
    main()
