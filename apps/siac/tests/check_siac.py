#!/usr/bin/env python3
"""End-to-end checks of the SIAC app through umrun (ctest siac.*).

  check_siac.py orders UMRUN K N1 N2 N3 [umrun settings...]
      runs the uniform mesh at three sizes: the unfiltered L2 error must converge at order ~k+1
      (within [k+0.7, k+1.5]) and the filtered at >= 2k+1 - 0.3 (theory: 2k+1, 2k+2 for a projection),
      and the filtered error must be below the unfiltered at every size.
  check_siac.py improves UMRUN MESH REFINE K [MESH REFINE K ...]
      filters the projection on each Gmsh mesh (refined REFINE times) at degree K: the filtered L2 and
      L-infinity errors must both be below the unfiltered ones.
  check_siac.py roundtrip UMRUN WORK [umrun settings...]
      writes the solution to HDF5 (output.hdf5), filters it again read back with params.solution, and
      compares the two filtered fields point by point (same numbers to 1e-14).
"""
import json, math, os, subprocess, sys


def umrun(umrun_exe, args, json_path):
    cmd = [umrun_exe, "apps/siac/configs/siac_uniform.yaml", "--quiet", "--set", "validation.reference=",
           "--json", json_path] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-3000:]}")
    with open(json_path) as f:
        return json.load(f)["metrics"]


def settings(extra):
    out = []
    for s in extra:
        out += ["--set", s]
    return out


def orders(argv):
    exe, k, ns, extra = argv[0], int(argv[1]), [int(x) for x in argv[2:5]], settings(argv[5:])
    work = os.environ.get("SIAC_WORK", ".")
    rows = []
    for n in ns:
        m = umrun(exe, ["--set", f"params.degree={k}", "--set", f"params.n={n}"] + extra,
                  os.path.join(work, f"siac_orders_k{k}_n{n}.json"))
        rows.append((n, m["unfiltered_l2"], m["filtered_l2"]))
    ok = True
    print(f"k = {k}: n, unfiltered L2, filtered L2, orders (unfiltered, filtered)")
    for i, (n, u, f) in enumerate(rows):
        line = f"  {n:4d}  {u:.4e}  {f:.4e}"
        if not f < u:
            line += "  <- the filter did not cut the error"
            ok = False
        if i:
            n0, u0, f0 = rows[i - 1]
            ou, of = math.log(u0 / u) / math.log(n / n0), math.log(f0 / f) / math.log(n / n0)
            line += f"  {ou:.2f}  {of:.2f}"
            if not (k + 0.7 <= ou <= k + 1.5):
                line += f"  <- unfiltered order outside [{k + 0.7}, {k + 1.5}]"
                ok = False
            if of < 2 * k + 1 - 0.3:
                line += f"  <- filtered order below {2 * k + 0.7}"
                ok = False
        print(line)
    print("SIAC ORDERS PASS" if ok else "SIAC ORDERS FAIL")
    return 0 if ok else 1


def improves(argv):
    exe, cases = argv[0], argv[1:]
    work = os.environ.get("SIAC_WORK", ".")
    ok = True
    for i in range(0, len(cases), 3):
        mesh, refine, k = cases[i], cases[i + 1], cases[i + 2]
        m = umrun(exe, ["--set", "params.mesh=file", "--set", f"mesh.file={mesh}", "--set", f"params.refine={refine}",
                        "--set", f"params.degree={k}", "--set", "params.scheme=per_point", "--set", "run.backend=openmp"],
                  os.path.join(work, f"siac_improves_{i // 3}.json"))
        good = m["filtered_l2"] < m["unfiltered_l2"] and m["filtered_linf"] < m["unfiltered_linf"]
        print(f"{mesh} refined {refine}, k = {k}: L2 {m['unfiltered_l2']:.3e} -> {m['filtered_l2']:.3e}, "
              f"Linf {m['unfiltered_linf']:.3e} -> {m['filtered_linf']:.3e}{'' if good else '  <- not improved'}")
        ok = ok and good
    print("SIAC IMPROVES PASS" if ok else "SIAC IMPROVES FAIL")
    return 0 if ok else 1


def read_field(path):
    with open(path) as f:
        return [tuple(float(v) for v in line.split()) for line in f if line.strip()]


def roundtrip(argv):
    exe, work, extra = argv[0], argv[1], settings(argv[2:])
    a, b = os.path.join(work, "write"), os.path.join(work, "read")
    for d in (a, b):
        os.makedirs(d, exist_ok=True)
    umrun(exe, ["--set", f"output.dir={a}", "--set", "output.hdf5=true"] + extra, os.path.join(work, "write.json"))
    m = umrun(exe, ["--set", f"output.dir={b}", "--set", f"params.solution={a}/siac.h5"] + extra,
              os.path.join(work, "read.json"))
    for f in ("siac.h5", "siac.xmf"):  # the outputs ParaView opens
        if not os.path.getsize(os.path.join(a, f)):
            sys.exit(f"FAIL: {a}/{f} is empty")
    with open(os.path.join(a, "siac.xmf")) as f:
        xmf = f.read()
    if 'TopologyType="Triangle"' not in xmf or "mean" not in xmf:
        sys.exit(f"FAIL: {a}/siac.xmf does not describe triangles with the field 'mean'")
    fa, fb = read_field(os.path.join(a, "siac_filtered.txt")), read_field(os.path.join(b, "siac_filtered.txt"))
    if len(fa) != len(fb) or not fa:
        sys.exit(f"FAIL: {len(fa)} points written, {len(fb)} read back")
    worst = max(max(abs(x - y) for x, y in zip(p, q)) for p, q in zip(fa, fb))
    print(f"{len(fa)} points, largest difference {worst:.3g} (cells {int(m['cells'])}, degree {int(m['degree'])})")
    if worst > 1e-14:
        sys.exit("SIAC ROUNDTRIP FAIL")
    print("SIAC ROUNDTRIP PASS")
    return 0


if __name__ == "__main__":
    modes = {"orders": orders, "improves": improves, "roundtrip": roundtrip}
    if len(sys.argv) < 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    sys.exit(modes[sys.argv[1]](sys.argv[2:]))
