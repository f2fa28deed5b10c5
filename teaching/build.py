#!/usr/bin/env python3
"""Writes the lab's notebooks from their sources: teaching/src/NN_topic.py -> teaching/NN_topic_Begin.ipynb and
NN_topic_Solution.ipynb. Edit the source, then run `python3 teaching/build.py` (`--check`: exit 1 if a notebook
differs from what its source makes; teaching/run-notebooks.py runs that check).

A source is cells in the percent format: a line `# %% [markdown]` starts a text cell (its lines without the
leading `# `), `# %%` a code cell; `# %% begin` a cell only in the Begin notebook (the exercise: tagged
`exercise`, it must raise NotImplementedError, lab.todo does) and `# %% solution` its answer, only in the Solution
notebook. Every other cell is in both."""
import glob
import os
import sys

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))


def cells(path):
    out, kind, lines = [], None, []
    with open(path) as f:
        text = f.read().splitlines()
    for line in text + ["# %%"]:
        if line.startswith("# %%"):
            if kind is not None:
                while lines and not lines[-1].strip():
                    lines.pop()
                out.append((kind, "\n".join(lines)))
            kind = line[4:].strip() or "code"
            lines = []
        elif kind == "[markdown]":
            lines.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
        else:
            lines.append(line)
    return out


def notebook(src, which):
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}
    for kind, text in cells(src):
        if kind == "[markdown]":
            nb.cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" or kind == which:
            c = nbformat.v4.new_code_cell(text)
            if kind == "begin":
                c.metadata["tags"] = ["exercise"]
            nb.cells.append(c)
        elif kind not in ("begin", "solution"):
            raise SystemExit("%s: unknown cell kind %r (markdown, code, begin or solution)" % (src, kind))
    for i, c in enumerate(nb.cells):  # stable ids, so a rebuild changes nothing when the source did not change
        c["id"] = "%s-%d" % (which, i)
    return nbformat.writes(nb) + "\n"


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    unknown = [a for a in argv if a != "--check"]
    if unknown:
        print("teaching/build.py: unknown argument %s (--check, --help)" % " ".join(unknown), file=sys.stderr)
        return 2
    check = "--check" in argv
    stale = []
    for src in sorted(glob.glob(os.path.join(HERE, "src", "[0-9]*.py"))):
        stem = os.path.splitext(os.path.basename(src))[0]
        for which, suffix in (("begin", "Begin"), ("solution", "Solution")):
            path = os.path.join(HERE, "%s_%s.ipynb" % (stem, suffix))
            text = notebook(src, which)
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
                if not check:
                    with open(path, "w") as f:
                        f.write(text)
    if check and stale:
        print("teaching/build.py --check: not what their sources make (run python3 teaching/build.py): "
              + ", ".join(os.path.relpath(p) for p in stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
