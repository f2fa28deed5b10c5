#!/usr/bin/env python3
"""docs/teaching.md and the example report page, made from a current run of the quick suite.

    scripts/teaching-docs.py [--umrun build/bin/umrun] [--repeat 3] [--results R.json]
    scripts/teaching-docs.py --check --results R.json --work DIR [--umrun build/bin/umrun]

The first form runs the quick suite (`umrun --suite validation/suite.yaml --tags quick --repeat N`, skipped with
--results), writes the page with `umrun --report` to docs/report/quick.html (and quick.md: generated, not
committed; .gitignore names them) and docs/teaching.md from its template docs/teaching.md.in: every loop,
metric, row count and figure the text cites is a placeholder the script fills from the page's own tables, with
the machine, the date and the commit of the run. It stops, naming each, when a placeholder has no value in
the current output (a loop renamed, a column gone, a run no longer in the suite).

--check (the test, umrun.suite_quick): renders the template from the given results into DIR and fails when a
placeholder has no value; checks that the committed docs/teaching.md is the template rendered (its text
outside the figures the same) and that its figures the code fixes (counted from the kernels' sources, the
meshes and the plans: rows, sets, access patterns, operations, bytes, bounds, blocks, colours, reuse; not
timings, nor what an app counts at run time) are the current output's; that every `name` of one word the text
gives in code is a loop, set, map or dat of the current output; and that renaming a loop in a copy of the
results, or changing a fixed figure in a copy of the page, makes the check fail.

Placeholders, {{kind:arg:...}}:
  {{date}} {{commit}} {{cpu}} {{cores}} {{runs}} {{repeat}} {{copy}} {{load}}   the run and its machine
  {{rows:APP}}                      rows of APP's loops table
  {{loop:APP:LOOP:COLUMN}}          a cell of APP's loops table (COLUMN as headed: "share of loop time", ...)
  {{gbs:APP:LOOP:RUN}}              a cell of APP's GB/s table (RUN as headed: "airfoil_small seq/aos/none")
  {{plan:APP:RUN:LOOP:COLUMN}}      a cell of APP's plans table
  {{app:APP:RUN}}                   the app's useful GB/s in a run ("8.11 GB/s (43% of copy)")
  {{para:APP}}                      APP's generated paragraph, verbatim
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "docs", "teaching.md.in")
PAGE = os.path.join(ROOT, "docs", "teaching.md")
PLACE = re.compile(r"\{\{([^{}]+)\}\}")


def cells(line):
    """the cells of a markdown table row (a \\| inside a cell is its text)"""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def tables(text):
    """every markdown table of text: a list of rows, the header first"""
    out, cur = [], None
    for line in text.split("\n"):
        if line.startswith("|"):
            if cur is None:
                cur = []
                out.append(cur)
            if not re.match(r"^\|(---\|)+$", line.strip()):
                cur.append(cells(line))
        else:
            cur = None
    return out


class Page:
    """the report's markdown, by app and section"""

    def __init__(self, md, results):
        self.md, self.results = md, results
        self.apps = {}
        for m in re.finditer(r"^## (\S+)\n(.*?)(?=^## |\Z)", md, re.S | re.M):
            secs = {}
            for s in re.finditer(r"^### (.+?)\n(.*?)(?=^### |\Z)", m.group(2), re.S | re.M):
                secs[s.group(1).split(" (")[0]] = s.group(2)
            para = re.search(r"^From the loops table below.*$", m.group(2), re.M)  # the generated paragraph
            para = para.group(0).strip() if para else ""
            self.apps[m.group(1)] = {"sections": secs, "para": para}
        self.bw = dict(re.findall(r"^- [^,]+, (.+?): (.+)$", md, re.M))

    def app(self, a):
        if a not in self.apps:
            raise KeyError(f"no app '{a}' on the page")
        return self.apps[a]

    def loops_table(self, a):
        t = tables(self.app(a)["sections"].get("Loops", ""))
        if not t:
            raise KeyError(f"{a} has no loops table")
        return t[0]

    def cell(self, table, row, col, what):
        head = table[0]
        if col not in head:
            raise KeyError(f"{what}: no column '{col}' (columns: {', '.join(head)})")
        for r in table[1:]:
            if r[0] == row:
                return r[head.index(col)]
        raise KeyError(f"{what}: no row '{row}' (rows: {', '.join(r[0] for r in table[1:])})")

    def value(self, key):
        f = key.split(":")
        k = f[0]
        R = self.results
        machine = R.get("machine", {})
        if k == "date":
            return R.get("started", "?")[:10]
        if k == "commit":
            return R.get("um", {}).get("commit", "?")[:7]
        if k == "cpu":
            return machine.get("cpu", "?")
        if k == "cores":
            return str(machine.get("cores", "?"))
        if k == "runs":
            return str(R["summary"]["runs"])
        if k == "repeat":
            return str(R.get("repeat", 1))
        if k == "copy":
            t = tables(self.md.split("## Machines")[1])[0]
            return self.cell(t, t[1][0], "host copy GB/s", "the Machines table")
        if k == "load":
            ld = R.get("load", {})
            return f"{ld.get('start', 0):.2f} / {ld.get('end', 0):.2f}"
        if k == "rows" and len(f) == 2:
            return str(len(self.loops_table(f[1])) - 1)
        if k == "loop" and len(f) == 4:
            return self.cell(self.loops_table(f[1]), f[2], f[3], f"{f[1]}'s loops table")
        if k == "gbs" and len(f) == 4:
            for t in tables(self.app(f[1])["sections"].get("Useful GB/s per loop and run", "")):
                if f[3] in t[0]:
                    return self.cell(t, f[2], f[3], f"{f[1]}'s GB/s table")
            raise KeyError(f"{f[1]}'s GB/s tables have no run '{f[3]}'")
        if k == "plan" and len(f) == 5:
            t = tables(self.app(f[1])["sections"].get("Plans", ""))
            head = t[0][0] if t else []
            for r in (t[0][1:] if t else []):
                if r[0] == f[2] and r[1] == f[3]:
                    if f[4] not in head:
                        raise KeyError(f"{f[1]}'s plans table has no column '{f[4]}'")
                    return r[head.index(f[4])]
            raise KeyError(f"{f[1]}'s plans table has no plan of loop '{f[3]}' in run '{f[2]}'")
        if k == "app" and len(f) == 3:
            lab = f"{f[1]} {f[2]}"
            if lab not in self.bw:
                raise KeyError(f"no app bandwidth for '{lab}'")
            return self.bw[lab].replace(" (compute-bound)", "")
        if k == "para" and len(f) == 2:
            if not self.app(f[1])["para"]:
                raise KeyError(f"{f[1]} has no generated paragraph")
            return self.app(f[1])["para"]
        raise KeyError(f"unknown placeholder '{key}'")


def render(template, page):
    """the template with every placeholder filled; the missing ones listed"""
    missing = []

    def fill(m):
        try:
            return page.value(m.group(1))
        except KeyError as e:
            missing.append(f"{{{{{m.group(1)}}}}}: {e.args[0]}")
            return m.group(0)

    return PLACE.sub(fill, template), missing


# code spans of one word in the template that are no loop, set, map or dat name, and why
NOT_NAMES = {"rep": "the EOS's repeat count, a kernel argument of LULESH's"}


def unknown_names(template, results):
    """the template's `word` spans (outside placeholders) naming no loop, set, map or dat of the current output"""
    names = set()
    for c in results.get("cases", []):
        r = c.get("run") or {}
        names.update(l["name"] for l in r.get("loops", []))
        for k in ("sets", "maps", "dats"):
            names.update(x["name"] for x in r.get("mesh", {}).get(k, []))
    spans = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", PLACE.sub("", template))
    return sorted({w for w in spans if w not in names and w not in NOT_NAMES})


def make_page(umrun, results, html):
    r = subprocess.run([umrun, "--report", html, results], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"teaching-docs: umrun --report failed ({r.returncode}): {r.stderr}")
    return Page(open(html[:-5] + ".md", encoding="utf-8").read(), json.load(open(results)))


def shape(template, text):
    """the figures of text, in the template's order, when text is the template rendered (its words outside the
    placeholders the template's); None when it is not"""
    parts = PLACE.split(template)
    pattern = "".join(re.escape(p) if i % 2 == 0 else "(.+?)" for i, p in enumerate(parts))
    m = re.fullmatch(pattern, text, re.S)
    return list(m.groups()) if m else None


def shape_matches(template, text):
    """text is the template rendered: its words outside the placeholders are the template's"""
    return shape(template, text) is not None


# the columns whose cells the code fixes, whatever the machine and its load: counted from the kernels' sources
# and the meshes, or the plans' (a run's timings, and an app's own count at run time, are not)
FIXED_LOOP = {"over", "access pattern", "ops / element (counted)", "ops / byte", "bytes / call", "bytes / element",
              "bound by"}
FIXED_PLAN = {"blocks", "block colours", "thread colours (mean / max)", "reuse"}


def fixed(key, value):
    """does the code alone fix this placeholder's figure? (a "≥" figure is an app's count at run time: SIAC's)"""
    f = key.split(":")
    if value.startswith("\u2265"):
        return False
    return f[0] == "rows" or (f[0] == "loop" and f[-1] in FIXED_LOOP) or (f[0] == "plan" and f[-1] in FIXED_PLAN)


def stale_figures(template, text, page):
    """the figures of text (a rendering of template) that the code fixes and that differ from page's: each
    "{{key}}: old -> new" """
    old = shape(template, text)
    if old is None:
        return []
    out = []
    for key, was in zip(PLACE.findall(template), old):
        try:
            now = page.value(key)
        except KeyError:  # said as missing
            continue
        if fixed(key, now) and was != now:
            out.append(f"{{{{{key}}}}}: {was} -> {now}")
    return out


def check(a):
    template = open(TEMPLATE, encoding="utf-8").read()
    os.makedirs(a.work, exist_ok=True)
    page = make_page(a.umrun, a.results, os.path.join(a.work, "quick.html"))
    text, missing = render(template, page)
    bad = [f"docs/teaching.md.in cites what the current output lacks: {m}" for m in missing]
    bad += [f"docs/teaching.md.in names `{w}`, no loop, set, map or dat of the current output"
            for w in unknown_names(template, page.results)]
    committed = open(PAGE, encoding="utf-8").read()
    if not shape_matches(template, committed):
        bad.append("docs/teaching.md is not docs/teaching.md.in rendered: edit the template and run "
                   "scripts/teaching-docs.py, not the page")
    bad += [f"docs/teaching.md cites a figure the code fixes that is no longer the output's (run "
            f"scripts/teaching-docs.py): {s}" for s in stale_figures(template, committed, page)]
    # the check itself: a fixed figure changed in a copy of the page is caught
    key = next((k for k in PLACE.findall(template) if not missing and fixed(k, page.value(k))), None)
    if key:
        class Changed:
            def value(self, k):
                return page.value(k) + ("9" if k == key else "")
        changed, _ = render(template, Changed())
        if not stale_figures(template, changed, page):
            bad.append(f"changing the figure {{{{{key}}}}} in a copy of the page did not fail the check")
    # the check itself: a loop renamed in the output is caught
    R = json.load(open(a.results))
    loop = re.search(r"\{\{loop:airfoil:([^:]+):", template)
    if loop:
        renamed = copy.deepcopy(R)
        for c in renamed["cases"]:
            for l in (c.get("run") or {}).get("loops", []):
                if l["name"] == loop.group(1):
                    l["name"] += "_renamed"
        path = os.path.join(a.work, "renamed.json")
        json.dump(renamed, open(path, "w"))
        _, miss = render(template, make_page(a.umrun, path, os.path.join(a.work, "renamed.html")))
        if not any(f"no row '{loop.group(1)}'" in m for m in miss):
            bad.append(f"renaming the loop {loop.group(1)} in the output did not fail the check")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        n = len(PLACE.findall(template))
        nfixed = sum(fixed(k, page.value(k)) for k in PLACE.findall(template))
        print(f"teaching-docs --check: all {n} figures docs/teaching.md cites are in the current output; the page is "
              f"its template rendered, and its {nfixed} figures the code fixes are the output's; a renamed loop and a "
              "changed figure are caught")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--umrun", default=os.path.join(ROOT, "build", "bin", "umrun"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--results", help="a results.json of the quick suite (default: run the suite)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "teaching"))
    a = ap.parse_args()
    if not os.access(a.umrun, os.X_OK):
        sys.exit(f"teaching-docs: no umrun at {a.umrun}: build first (README) or give --umrun")
    if a.check:
        if not a.results:
            sys.exit("teaching-docs --check needs --results (a results.json of the quick suite)")
        return check(a)
    if not a.results:
        out = os.path.join(a.work, "quick")
        env = dict(os.environ, OMP_WAIT_POLICY="passive")
        r = subprocess.run([a.umrun, "--suite", "validation/suite.yaml", "--tags", "quick", "--repeat", str(a.repeat),
                            "--out", out], cwd=ROOT, env=env)
        if r.returncode:
            sys.exit(f"teaching-docs: the quick suite failed ({r.returncode})")
        a.results = os.path.join(out, "results.json")
    page = make_page(a.umrun, a.results, os.path.join(ROOT, "docs", "report", "quick.html"))
    template = open(TEMPLATE, encoding="utf-8").read()
    text, missing = render(template, page)
    missing += [f"`{w}`: no loop, set, map or dat of the current output" for w in unknown_names(template, page.results)]
    if missing:
        sys.exit("teaching-docs: docs/teaching.md.in cites what the current output lacks:\n  " + "\n  ".join(missing))
    open(PAGE, "w", encoding="utf-8").write(text)
    print("teaching-docs: wrote docs/teaching.md and docs/report/quick.html, quick.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
