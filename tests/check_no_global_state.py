#!/usr/bin/env python3
"""check_no_global_state.py <source tree>

Issue 55: no mutable variable at file scope, and no `static` variable inside a function, in a C source
or header under engine/, driver/ or umrun/ (test folders not scanned).  State lives in the context,
the plan, or a struct the caller passes; a table that never changes is `const` all the way down
(`static const char *const names[]`, not `static const char *names[]`, whose pointers could be
reassigned).  Caught: plain, `static`, `_Thread_local`, `_Atomic`/atomic and array variables at file
scope, and `static` (incl. `static _Thread_local`) ones inside function bodies.  `extern`
declarations, typedefs, prototypes and type definitions are not variables and are skipped.

The ones that must be process-wide are listed in ALLOWED below, each with its reason.
Prints file:line name for each offender.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_function_lengths import blank  # noqa: E402  (comments, strings, preprocessor lines blanked)

DIRS = ("engine", "driver", "umrun")

# Process-wide by nature; each with its reason.  Key: "path:name".
ALLOWED = {
    # a signal handler gets no argument to carry state in, and a disposition is per process: the
    # handler's table of files to remove and the dispositions it replaced live at file scope
    "engine/src/util/safe_file.c:*": "signal handling is process-wide (the handler's tables)",
    # the same for checkpoint.on_signal: SIGTERM/SIGUSR1's handler can only leave a flag, read at the next step
    "umrun/checkpoint.c:ck_signal": "the signal a checkpoint was asked by (a handler's flag, process-wide)",
    # libnccl is dlopen'ed once per process, its entry points looked up once and shared by every context
    "engine/src/distributed/transports/nccl.c:N": "the dlopen'ed NCCL library's entry points: loaded once per process",
    # thread-local, set by um_exec_range from the call's um_exec.repro_math and put back after it: it carries
    # one call's setting into the kernels' um_cbrt/um_exp (um/kernel.h), which take no context
    "engine/src/backends/host/exec.c:um_kernel_repro_math": "one call's reproducible-math setting, per thread, restored",
    # not a variable: the scan reads the function-pointer parameter of a prototype as one
    "engine/src/distributed/transport_cuda.h:close": "a parameter of cu_transport_open's prototype (scan limit)",
}

KEYWORDS = {"static", "extern", "const", "volatile", "register", "inline", "_Thread_local", "thread_local",
            "__thread", "_Atomic", "struct", "union", "enum", "unsigned", "signed", "restrict", "__restrict"}


def collapse_braces(stmt):
    """stmt with the inside of every {...} removed (initialisers, struct bodies)."""
    out, d = [], 0
    for ch in stmt:
        if ch == "{":
            if d == 0:
                out.append("{")
            d += 1
        elif ch == "}":
            d -= 1
            if d == 0:
                out.append("}")
        elif d == 0:
            out.append(ch)
    return "".join(out)


def split_top(decl):
    """decl split at the commas outside brackets and parentheses."""
    parts, d, cur = [], 0, ""
    for ch in decl:
        if ch in "([":
            d += 1
        elif ch in ")]":
            d -= 1
        if ch == "," and d == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def variables(stmt):
    """[(name, mutable)] for each variable stmt (one declaration, without its ';') defines."""
    s = collapse_braces(stmt).strip()
    if not s or re.match(r"(typedef|extern|_Static_assert|static_assert|using|namespace|template)\b", s):
        return []
    s = re.sub(r"=[^,]*", "", s)  # initialisers (braces already collapsed)
    if s.rstrip().endswith("}"):  # a bare struct/enum/union definition
        return []
    s = s.replace("{}", " anonymous_type ")
    parts = split_top(s)
    first = re.findall(r"[A-Za-z_]\w*|\*", parts[0])
    # the specifiers shared by every declarator: the tokens of the first part before its name
    spec = []
    for t in first:
        if t == "*":
            break
        spec.append(t)
    base = [t for t in spec if t not in KEYWORDS]
    if len(base) > 1:  # "int x": the last word is the first declarator's name
        spec = spec[:len(spec) - 1] if spec[-1] == base[-1] else spec
    out = []
    for k, part in enumerate(parts):
        part = part.strip()
        fp = re.search(r"\(\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*\)", part)
        if fp:  # a function pointer (or pointer-to-array) variable
            out.append((fp.group(1), re.search(r"\*\s*const\s+" + fp.group(1), part) is None))
            continue
        if "(" in part:  # a prototype, or a macro we cannot read
            return []
        toks = re.findall(r"[A-Za-z_]\w*|\*", re.sub(r"\[[^\]]*\]", " ", part))
        if k > 0:
            toks = spec + toks
        names = [t for t in toks if t != "*" and t not in KEYWORDS]
        if len(names) < 2:
            return []
        if "*" in toks:  # the object itself is const: a const after the last '*'
            last = len(toks) - 1 - toks[::-1].index("*")
            mutable = "const" not in toks[last + 1:]
        else:
            mutable = "const" not in toks
        out.append((names[-1], mutable))
    return out


def scan(text):
    """(line, name, where) of each mutable file-scope or function-static variable in the text."""
    s = blank(text)
    nl = [m.start() for m in re.finditer("\n", s)]

    def line(off):
        import bisect
        return bisect.bisect_left(nl, off) + 1

    found = []
    i, n = 0, len(s)
    start = 0  # start of the current file-scope statement
    while i < n:
        c = s[i]
        if c == "{":
            k = i - 1
            while k >= 0 and s[k] in " \t\n":
                k -= 1
            d, j = 0, i
            while j < n:  # the matching '}'
                if s[j] == "{":
                    d += 1
                elif s[j] == "}":
                    d -= 1
                    if d == 0:
                        break
                j += 1
            if k >= 0 and s[k] == ")" and "=" not in collapse_braces(s[start:i]):  # a function body
                body = s[i + 1:j]
                for m in re.finditer(r"(?:^|(?<=[;{}]))\s*((?:_Thread_local\s+|thread_local\s+|__thread\s+)?static\b[^;{]*(?:\{[^;]*?\})?[^;]*);", body):
                    for name, mutable in variables(m.group(1).replace("static", "", 1)):
                        if mutable:
                            found.append((line(i + 1 + m.start(1)), name, "static inside a function"))
                i = j + 1
                start = i
                continue
            i = j + 1  # an initialiser or a type body: part of the statement
            continue
        if c == ";":
            stmt = s[start:i]
            off = start + len(stmt) - len(stmt.lstrip())
            for name, mutable in variables(stmt):
                if mutable:
                    found.append((line(off), name, "file scope"))
            start = i + 1
        i += 1
    return found


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = []
    for d in DIRS:
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            dn[:] = sorted(x for x in dn if x != "tests")
            files += [os.path.join(dp, f) for f in sorted(fn) if f.endswith((".c", ".h"))]
    bad, allowed = [], []
    for f in files:
        rel = os.path.relpath(f, root).replace(os.sep, "/")
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for ln, name, where in scan(text):
            key = rel + ":" + name
            if key in ALLOWED or rel + ":*" in ALLOWED:
                allowed.append(key)
            else:
                bad.append(f"{rel}:{ln}: {name} ({where})")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} mutable variables at file scope or static in a function (move the state into the "
              "context or a struct the caller passes, or make a fixed table const all the way down)")
        return 1
    print(f"{len(files)} files under {', '.join(DIRS)}: no mutable global state (allowed, process-wide: "
          f"{len(allowed)} in {', '.join(sorted(set(k.split(':')[0] for k in allowed)))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
