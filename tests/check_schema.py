#!/usr/bin/env python3
"""Validates um's JSON files against their JSON Schemas (docs/schema/).

    check_schema.py SCHEMA_DIR FILE...         each FILE must validate (a run's JSON, or a suite's results.json)
    check_schema.py SCHEMA_DIR --scan DIR ...  every *.json under DIR that names a format of um's validates

The schema is chosen by the file's "format" ("um-run-2": run.schema.json, "um-suite-results-1":
results.schema.json, "um-compare-1": compare.schema.json). --scan reads regular files only (a FIFO
named *.json never blocks it). Exit 0 when every file validates, 1 when one does not (each error printed with its
path in the file), 77 when python3-jsonschema is not installed (ctest: skipped)."""
import json
import os
import stat
import sys

try:
    import jsonschema
    from referencing import Registry, Resource
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)

SCHEMAS = {"um-run-2": "run.schema.json", "um-suite-results-1": "results.schema.json",
           "um-compare-1": "compare.schema.json"}


def validators(schema_dir):
    loaded = {}
    for fmt, name in SCHEMAS.items():
        with open(os.path.join(schema_dir, name)) as f:
            loaded[fmt] = json.load(f)
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in loaded.values())
    out = {}
    for fmt, schema in loaded.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        out[fmt] = jsonschema.Draft202012Validator(schema, registry=registry)
    return out


def check(path, v, required):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        if required:
            print(f"{path}: not JSON: {e}")
            return False
        return True
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt not in v:
        if required:
            print(f"{path}: no format of um's (\"format\": {fmt!r}; expected one of {sorted(v)})")
        return not required
    errors = sorted(v[fmt].iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:20]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{path}: {where}: {e.message}")
    if not errors:
        print(f"{path}: valid {fmt}")
    return not errors


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    v = validators(argv[1])
    ok, n = True, 0
    if argv[2] == "--scan":
        for top in argv[3:]:
            for root, _, files in os.walk(top):
                for name in sorted(files):
                    path = os.path.join(root, name)
                    if name.endswith(".json") and stat.S_ISREG(os.lstat(path).st_mode):
                        ok &= check(path, v, False)
                        n += 1
        print(f"scanned {n} JSON files")
    else:
        for path in argv[2:]:
            ok &= check(path, v, True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
