#!/usr/bin/env python3
"""check_function_lengths.py <source tree> [--max N]

Issue 55 (functions a reader can hold): no function in a C source or header under engine/, driver/,
umrun/ or apps/ is longer than MAX lines (120), counted from the line that names the function to the
line of its closing brace.  A longer function is split along its own seams into helpers whose names
say what they do.  Test folders (any tests/) are not scanned.

The scan is a brace matcher over the text with comments, string and character literals and
preprocessor lines blanked out: a '{' at file scope right after a ')' opens a function body whose
name is the identifier before the matching '('.  Prints file:line name length for each offender.
"""
import bisect
import os
import re
import sys

MAX = 120
DIRS = ("engine", "driver", "umrun", "apps")

# Functions allowed to be longer for now, each with its reason; remove an entry once it is split.
EXEMPT = {
}


def blank(text):
    """The text with comments, string/char literals and preprocessor lines replaced by spaces
    (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # preprocessor line, with its continuations and comments
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                if text.startswith("/*", i):
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                    out.append(re.sub(r"[^\n]", " ", text[i:j]))
                    i = j
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of each function defined in the text."""
    s = blank(text)
    nl = [m.start() for m in re.finditer("\n", s)]

    def line(off):
        return bisect.bisect_left(nl, off) + 1

    found = []
    depth = 0
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "{":
            if depth == 0:
                k = i - 1  # the last non-blank character before the brace
                while k >= 0 and s[k] in " \t\n":
                    k -= 1
                if k >= 0 and s[k] == ")":
                    close = k
                    d, j = 0, close
                    while j >= 0:  # the '(' matching that ')'
                        if s[j] == ")":
                            d += 1
                        elif s[j] == "(":
                            d -= 1
                            if d == 0:
                                break
                        j -= 1
                    name = re.search(r"([A-Za-z_]\w*)\s*$", s[max(0, j - 200):j]) if j > 0 else None
                    if name and name.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                        # find the matching '}'
                        d, k = 0, i
                        while k < n:
                            if s[k] == "{":
                                d += 1
                            elif s[k] == "}":
                                d -= 1
                                if d == 0:
                                    break
                            k += 1
                        found.append((name.group(1), line(max(0, j - 200) + name.start(1)), line(k)))
                        i = k + 1
                        continue
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        i += 1
    return found


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    mx = MAX
    for a in argv[1:]:
        if a.startswith("--max="):
            mx = int(a.split("=", 1)[1])
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = []
    for d in DIRS:
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            dn[:] = sorted(x for x in dn if x != "tests")
            files += [os.path.join(dp, f) for f in sorted(fn) if f.endswith((".c", ".h"))]
    long = []
    nfun = 0
    for f in files:
        rel = os.path.relpath(f, root)
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for name, first, last in functions(text):
            nfun += 1
            length = last - first + 1
            if length > mx and rel + ":" + name not in EXEMPT:
                long.append((length, rel, first, name))
    for length, rel, first, name in sorted(long, key=lambda x: (-x[0], x[1])):
        print(f"{rel}:{first}: {name} {length} lines")
    if long:
        print(f"{len(long)} functions over {mx} lines (split each along its seams into helpers that say what they do)")
        return 1
    print(f"{nfun} functions in {len(files)} files under {', '.join(DIRS)}: none over {mx} lines "
          f"(exempt: {', '.join(EXEMPT) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
