#!/usr/bin/env python3
"""check_layers.py: the engine's rooms include one another one way (issue 55).

    python3 tests/check_layers.py [--quiet] [ENGINE_SRC]
    python3 tests/check_layers.py --self-test

Builds the include graph of engine/src (ENGINE_SRC, default: the one beside
this tests/ folder) by folder, from its `#include "..."` lines: core,
transform, tune, backends/host, backends/cuda, backends (seq.c, openmp.c),
distributed, plan, reorder, io, util (a file directly in engine/src, such as
passes.c, the wiring of the passes, is its own node "engine/src"). An include
is resolved as the compiler resolves it: beside the including file, then from
engine/src, engine/src/plan and engine/src/util (the engine's private include
folders); public headers (um/...) and system headers are not in the graph.

Fails (exit status 1), naming each offending include (file:line -> header):
  - core includes a header of transform, tune, backends (any of them) or
    distributed: core declares interfaces (core/pass.h, um/backend.h) and the
    rooms fill them;
  - a circle between any folders (each edge of the circle named with one
    include that makes it): e.g. distributed (a transport) including a header
    of backends/cuda that includes one of distributed. A backend that serves a
    room implements an interface that room declares (distributed/
    transport_cuda.h, implemented by backends/cuda/devmsg.c): one way.
--self-test builds small trees that break each rule and checks that they fail
(and one that keeps them, that it passes). Exit status 0 otherwise.
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
FORBIDDEN_FROM_CORE = ("transform", "tune", "backends", "backends/host", "backends/cuda", "distributed")
SEARCH = ("", "plan", "util")  # engine/src, engine/src/plan, engine/src/util (after the file's own folder)


def folder_of(src, path):
    rel = os.path.relpath(path, src).replace(os.sep, "/")
    parts = rel.split("/")
    if len(parts) == 1:
        return "engine/src"
    if parts[0] == "backends":
        return "backends/" + parts[1] if len(parts) > 2 else "backends"
    return parts[0]


def resolve(src, including, name):
    for base in [os.path.dirname(including)] + [os.path.join(src, s) for s in SEARCH]:
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(cand) and os.path.abspath(cand).startswith(os.path.abspath(src) + os.sep):
            return cand
    return None


def edges_of(src):
    """(from folder, to folder) -> [(file, line, included file)], between distinct folders."""
    edges = {}
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".cpp", ".hpp", ".cu", ".cuh")):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(src, path, m.group(1))
                if not target:
                    continue
                a, b = folder_of(src, path), folder_of(src, target)
                if a != b:
                    edges.setdefault((a, b), []).append((os.path.relpath(path, src), n, os.path.relpath(target, src)))
    return edges


def find_circles(edges, nodes):
    """Strongly connected components of more than one node among `nodes`, each as a circle of folders."""
    graph = {v: sorted({b for (a, b) in edges if a == v and b in nodes}) for v in nodes}
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    circles = []
    for comp in comps:  # one circle through the component's first node, by a breadth-first search back to it
        start = comp[0]
        prev, todo = {start: None}, [start]
        found = None
        while todo and not found:
            v = todo.pop(0)
            for w in graph[v]:
                if w not in comp:
                    continue
                if w == start:
                    found = v
                    break
                if w not in prev:
                    prev[w] = v
                    todo.append(w)
        path = [found]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()
        circles.append(path + [start])
    return circles


def check(src, quiet=False):
    edges = edges_of(src)
    problems = []
    folders = sorted({a for (a, b) in edges} | {b for (a, b) in edges})
    for (a, b), where in sorted(edges.items()):
        if a == "core" and b in FORBIDDEN_FROM_CORE:
            for f, n, t in where:
                problems.append("core includes %s: %s:%d -> %s" % (b, f, n, t))
    for circle in find_circles(edges, folders):
        steps = []
        for a, b in zip(circle, circle[1:]):
            f, n, t = edges[(a, b)][0]
            steps.append("%s -> %s (%s:%d includes %s)" % (a, b, f, n, t))
        problems.append("circle between folders %s: %s" % (" -> ".join(circle), "; ".join(steps)))
    for p in problems:
        print("check_layers: " + p)
    if not quiet or problems:
        for (a, b), where in sorted(edges.items()):
            if not quiet:
                print("  %-14s -> %-14s %d include(s), e.g. %s:%d" % (a, b, len(where), where[0][0], where[0][1]))
    if problems:
        print("check_layers: %d problem(s) in %s" % (len(problems), src))
        return 1
    print("check_layers: core includes no room above it, and no circle among its folders (%s)" % ", ".join(folders))
    return 0


def self_test():
    def tree(files):
        d = tempfile.mkdtemp(prefix="check_layers_")
        for name, text in files.items():
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(text)
        return d

    good = {"core/internal.h": "", "core/pass.h": '#include "internal.h"\n',
            "transform/split.c": '#include "core/pass.h"\n#include "distributed/dist.h"\n',
            "distributed/dist.h": '#include "core/internal.h"\n', "tune/tune.c": '#include "core/pass.h"\n',
            "passes.c": '#include "transform/split.h"\n', "transform/split.h": '#include "core/pass.h"\n'}
    bad_core = dict(good, **{"core/loop.c": '#include "internal.h"\n#include "distributed/dist.h"\n'})
    bad_circle = dict(good, **{"distributed/dist.c": '#include "../tune/tune.h"\n',
                               "tune/tune.h": '#include "transform/split.h"\n'})
    # a transport including its backend's header, which includes the transport table: the circle nccl.c made
    bad_backend = dict(good, **{"distributed/transports/nccl.c": '#include "backends/cuda/cuda_transport.h"\n',
                                "backends/cuda/cuda_transport.h": '#include "distributed/dist.h"\n'})
    # the same interface declared by distributed and implemented by the backend: one way, passes
    good_backend = dict(good, **{"distributed/transports/nccl.c": '#include "distributed/transport_cuda.h"\n',
                                 "distributed/transport_cuda.h": '#include "dist.h"\n',
                                 "backends/cuda/devmsg.c": '#include "distributed/transport_cuda.h"\n'})
    ok = True
    for name, files, want in (("good", good, 0), ("core -> distributed", bad_core, 1),
                              ("distributed -> tune -> transform -> distributed", bad_circle, 1),
                              ("distributed -> backends/cuda -> distributed", bad_backend, 1),
                              ("backends/cuda -> distributed, one way", good_backend, 0)):
        print("-- self-test: %s (expect %s)" % (name, "pass" if want == 0 else "fail"))
        got = check(tree(files), quiet=True)
        if got != want:
            print("check_layers: self-test '%s' gave %d, expected %d" % (name, got, want))
            ok = False
    print("check_layers: self-test %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if "--self-test" in argv:
        return self_test()
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine", "src")
    src = os.path.normpath(src)
    if not os.path.isdir(os.path.join(src, "core")):
        print("check_layers: %s has no core/ folder" % src)
        return 2
    return check(src, quiet="--quiet" in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
