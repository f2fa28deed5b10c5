#!/usr/bin/env python3
"""The report tells the truth (issue 61), checked on the quick suite's page.

    check_report_truth.py --umrun UMRUN --results QUICK/results.json --work DIR [--chromium BROWSER]

Writes the page with `umrun --report` from the quick suite's results and checks:
  1. SIAC is visible: its GB/s figures are not 0.0, and it is marked compute-bound in its paragraph, its
     loops table and on the bandwidth chart alike (its static note says so too);
  2. every figure of every app's paragraph is the figure of its loops table's row (share, ops/byte);
  3. spread flags: a copy of the results with each loop's samples spread by a known amount (some above the
     threshold, some below) gives a page where every +-figure above 25% carries the flag and none below does;
  4. the banner says a loaded machine was loaded (a copy of the results marked busy has it, an idle copy not);
  5. the roofline: every point is numbered once in its legend, and, rendered by headless chromium, no two of
     its labels' bounding boxes overlap. Without a browser the boxes are estimated from the SVG's own
     coordinates (the same text sizes the generator assumes) and the script says so.
Exit 0 when all hold; 1 with every failure listed."""
import argparse
import copy
import html
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

FAIL = []


def fail(msg):
    FAIL.append(msg)


class Tables(HTMLParser):
    """Every <table> of a piece of HTML: rows of (text, attributes) cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.row, self.cell, self.attrs = [], None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell, self.attrs = [], dict(attrs)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(("".join(self.cell).strip(), self.attrs))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables_of(fragment):
    p = Tables()
    p.feed(fragment)
    return p.tables


def app_sections(page):
    """app name -> the HTML of its section"""
    heads = [(m.start(), m.group(1)) for m in re.finditer(r'<h2 id="app-([^"]+)">', page)]
    end = page.index('<h2 id="roofline"')
    out = {}
    for i, (at, name) in enumerate(heads):
        out[name] = page[at:heads[i + 1][0] if i + 1 < len(heads) else end]
    return out


def section_part(sec, h3):
    """the HTML of a section from its <h3>h3 to the next <h3>"""
    i = sec.find("<h3>" + h3)
    if i < 0:
        return ""
    j = sec.find("<h3>", i + 4)
    return sec[i:j if j >= 0 else len(sec)]


def report(umrun, results, out_html):
    r = subprocess.run([umrun, "--report", out_html, results], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"umrun --report {results} failed ({r.returncode}): {r.stderr}")
    return open(out_html, encoding="utf-8").read()


def check_paragraphs(page):
    """2. each paragraph quotes its loops table's figures"""
    for app, sec in app_sections(page).items():
        m = re.search(r'<p class="gen">(.*?)</p>', sec, re.S)
        if not m:
            fail(f"{app}: no generated paragraph")
            continue
        para = html.unescape(m.group(1))
        loops = tables_of(section_part(sec, "Loops"))
        if not loops:
            fail(f"{app}: no loops table")
            continue
        head = [c[0] for c in loops[0][0]]
        if "share of loop time" not in head or "ops / byte" not in head:
            fail(f"{app}: the loops table has no share or ops/byte column: {head}")
            continue
        i_share, i_ai = head.index("share of loop time"), head.index("ops / byte")
        rows = {r[0][0]: r for r in loops[0][1:]}
        body = re.split(r"largest loops? (?:are|is) ", para, maxsplit=1)[-1].split(". Of its")[0]
        cited = re.findall(r"(?:^|; )(.+?) \(([0-9.]+%) of the loops' time; [^)]*?(?:, ([^ ,]+) ops/byte: [a-z ]+)?\)",
                           body)
        if not cited:
            fail(f"{app}: the paragraph cites no loop with its share: {para[:200]}")
        for label, share, ai in cited:
            row = rows.get(label)
            if row is None:
                fail(f"{app}: the paragraph cites '{label}', which is no row of its loops table")
                continue
            if row[i_share][0] != share:
                fail(f"{app}: the paragraph says {label} takes {share}, its table says {row[i_share][0]}")
            if ai and row[i_ai][0] != ai:
                fail(f"{app}: the paragraph says {label} does {ai} ops/byte, its table says {row[i_ai][0]}")
        n = re.search(r"Of its ([0-9]+) loops", para)
        own = [r for r in loops[0][1:] if r[i_share][0] != "(inside)"]
        if not n or int(n.group(1)) != len(own):
            fail(f"{app}: the paragraph counts {n and n.group(1)} loops, its table has {len(own)} rows")


def check_siac(page):
    """1. SIAC: non-zero GB/s, compute-bound alike in note, paragraph, table and chart"""
    sec = app_sections(page).get("siac")
    if sec is None:
        fail("no SIAC section on the quick suite's page")
        return
    note = re.search(r"</h2>\n<p>(.*?)</p>", sec, re.S).group(1)
    para = html.unescape(re.search(r'<p class="gen">(.*?)</p>', sec, re.S).group(1))
    if "compute-bound" not in note:
        fail("SIAC's static note no longer says compute-bound: the check below assumes it does")
    if "bound by arithmetic" not in para or "compute-bound" not in para or "compare its GB/s" in para:
        fail(f"SIAC's paragraph does not say compute-bound as its note does: {para}")
    loops = tables_of(section_part(sec, "Loops"))[0]
    head = [c[0] for c in loops[0]]
    per_point = [r for r in loops[1:] if r[0][0] == "per_point"]
    if "bound by" not in head or not per_point or per_point[0][head.index("bound by")][0] != "bound by arithmetic":
        fail(f"SIAC's loops table does not mark per_point bound by arithmetic: {per_point}")
    cells = [c[0] for t in tables_of(section_part(sec, "Useful GB/s")) for r in t[1:] for c in r[1:]]
    zero = [c for c in cells if re.match(r"0\.0( |$)", c)]
    if not cells or zero:
        fail(f"SIAC's GB/s cells read 0.0: {zero[:5]}")
    bars = page[page.index('<h2 id="bandwidth"'):page.index('<h2 id="app-')]
    if ">siac (compute-bound" not in bars:
        fail("the bandwidth chart does not mark SIAC compute-bound")


def noisy_copy(results, path):
    """3. the results with a known spread per loop: half of (max - min) over the median is 5%, 15%, 40% or 120%"""
    j = copy.deepcopy(results)
    halves = [0.05, 0.15, 0.40, 1.20]
    k = 0
    for c in j["cases"]:
        for l in (c.get("run") or {}).get("loops", []):
            s = l.get("seconds", 0) or 0
            h = halves[k % len(halves)]
            k += 1
            l.update(samples=3, seconds_min=0.5 * s, seconds_max=0.5 * s + 2 * h * s)
    json.dump(j, open(path, "w"))


def check_spread(page):
    n_flag = n_plain = 0
    for cell in re.findall(r"<td[^>]*>([^<]*\u00b1[^<]*)</td>", page):
        m = re.search(r"\u00b1([0-9]+)%(\u26a0)?", cell)
        pct, flagged = int(m.group(1)), bool(m.group(2))
        if pct > 25 and not flagged:
            fail(f"a spread of {pct}% is not flagged: {cell}")
        if pct <= 25 and flagged:
            fail(f"a spread of {pct}% is flagged: {cell}")
        n_flag += flagged
        n_plain += not flagged
    if not n_flag or not n_plain:
        fail(f"the noisy copy's page has {n_flag} flagged and {n_plain} unflagged spreads (both expected)")
    if "noisy:" not in page:
        fail("no note says how many figures are noise")


def check_banner(umrun, results, work):
    """4. a banner iff the machine was loaded"""
    for busy in (0, 3):
        j = copy.deepcopy(results)
        cores = j["load"]["cores"]
        j["load"].update(busy_runs=busy, start=cores * (2.0 if busy else 0.1), end=cores * (2.0 if busy else 0.1))
        path = os.path.join(work, f"busy{busy}.json")
        json.dump(j, open(path, "w"))
        page = report(umrun, path, os.path.join(work, f"busy{busy}.html"))
        has = 'class="banner"' in page
        if has != bool(busy):
            fail(f"busy_runs {busy}: the page {'has' if has else 'lacks'} the loaded-machine banner")


PROBE = """<script>
var out = [];
document.querySelectorAll('svg.roofline').forEach(function (s, k) {
  var labs = [];
  s.querySelectorAll('text.pt').forEach(function (t) {
    var b = t.getBoundingClientRect();
    labs.push([t.textContent, b.left, b.top, b.right, b.bottom]);
  });
  out.push({chart: k, points: s.querySelectorAll('circle title').length, labels: labs});
});
var pre = document.createElement('pre');
pre.id = 'roof-probe';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script></body>"""


def label_boxes(page, work, chromium):
    """the roofline labels' boxes: rendered by chromium, or from the SVG's coordinates"""
    if chromium:
        probe = os.path.join(work, "roof_probe.html")
        open(probe, "w", encoding="utf-8").write(page.replace("</body>", PROBE))
        r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1366,900",
                            "--dump-dom", "file://" + os.path.abspath(probe)], capture_output=True, text=True,
                           timeout=300)
        m = re.search(r'<pre id="roof-probe">(.*?)</pre>', r.stdout, re.S)
        if not m:
            fail(f"{chromium} did not render the page (exit {r.returncode})")
            return []
        print(f"check_report_truth: roofline labels measured in {chromium}")
        return json.loads(html.unescape(m.group(1)))
    print("check_report_truth: no chromium: the labels' boxes are estimated from the SVG (6 px a digit, 11 px high)")
    charts = []
    for k, svg in enumerate(re.findall(r'<svg [^>]*class="roofline".*?</svg>', page, re.S)):
        labs = []
        for x, y, t in re.findall(r'<text class="pt" x="([0-9.]+)" y="([0-9.]+)"[^>]*>([0-9]+)</text>', svg):
            w = 6.0 * len(t) + 2
            labs.append([t, float(x) - w / 2, float(y) - 9, float(x) + w / 2, float(y) + 2])
        charts.append({"chart": k, "points": svg.count("<title>") - 1, "labels": labs})
    return charts


def check_roofline(page, work, chromium):
    """5. numbered points, a legend row per number, no two labels overlap"""
    charts = label_boxes(page, work, chromium)
    legends = [tables_of(t)[0] for t in re.findall(r'<table class="legend">.*?</table>', page, re.S)]
    if not charts or len(legends) != len(charts) or not any(c["labels"] for c in charts):
        fail(f"{len(charts)} roofline charts, {len(legends)} legends")
        return
    for c, legend in zip(charts, legends):
        nums = sorted(int(l[0]) for l in c["labels"])
        if nums != list(range(1, c["points"] + 1)):
            fail(f"chart {c['chart']}: {c['points']} points, numbered {nums[:10]}...: every point once expected")
        if [r[0][0] for r in legend[1:]] != [str(i) for i in range(1, c["points"] + 1)]:
            fail(f"chart {c['chart']}: the legend does not list the points 1..{c['points']}")
        labs = c["labels"]
        for i in range(len(labs)):
            for j in range(i + 1, len(labs)):
                a, b = labs[i], labs[j]
                if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                    fail(f"chart {c['chart']}: labels {a[0]} and {b[0]} overlap: {a[1:]} {b[1:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--umrun", required=True)
    ap.add_argument("--results", required=True, help="the quick suite's results.json")
    ap.add_argument("--work", required=True)
    ap.add_argument("--chromium", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    results = json.load(open(a.results))
    page = report(a.umrun, a.results, os.path.join(a.work, "quick.html"))
    check_siac(page)
    check_paragraphs(page)
    check_roofline(page, a.work, a.chromium)
    noisy = os.path.join(a.work, "noisy.json")
    noisy_copy(results, noisy)
    check_spread(report(a.umrun, noisy, os.path.join(a.work, "noisy.html")))
    check_banner(a.umrun, results, a.work)
    for f in FAIL:
        print("FAIL:", f)
    if FAIL:
        return 1
    print("check_report_truth: SIAC visible and compute-bound alike, paragraphs = tables, spreads flagged, "
          "banner, roofline numbered without overlaps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
