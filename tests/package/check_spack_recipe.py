#!/usr/bin/env python3
"""ctest package.spack_recipe: the Spack recipe (packaging/spack/packages/um/package.py) read without Spack.

    check_spack_recipe.py SOURCE_DIR

The recipe is loaded against a stand-in of `spack.package` that records its directives, then checked against
the tree:
  - it depends on the languages of CMakeLists.txt's project() (`c`, `cxx`, type build): Spack 1.x gives a
    package the compilers of the languages it depends on and no others;
  - its cmake bound is CMakeLists.txt's cmake_minimum_required;
  - its version() is VERSION's;
  - every CMake variable cmake_args() sets is one the tree declares (option(), a cache variable, or read by
    cmake/UmDependencies.cmake);
  - cuda_arch: every value below 75 that CudaPackage offers is a conflict, and suffixed values (90a, 100f,
    120a) reach UM_CUDA_ARCHITECTURES as their numbers (the CMake check takes numbers only).
Exits 1 naming each failed check."""
import os
import re
import sys
import types

SRC = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# ---- a stand-in for spack.package: directives recorded, helpers as Spack defines them -----------------------
recorded = {"depends_on": [], "conflicts": [], "version": [], "variant": []}


def _directive(name):
    def record(*args, **kwargs):
        recorded[name].append((args, kwargs))
    return record


class InstallError(Exception):
    pass


class _Variant:
    def __init__(self, value):
        self.value = value


class FakeSpec:
    def __init__(self, variants, prefixes=None):
        self.variants = {k: _Variant(v) for k, v in variants.items()}
        self.prefixes = prefixes or {}

    def satisfies(self, text):
        m = re.fullmatch(r"([+~])(\w+)", text)
        if not m:
            raise ValueError("the stand-in spec reads +variant or ~variant only: " + text)
        return bool(self.variants[m.group(2)].value) == (m.group(1) == "+")

    def __getitem__(self, name):
        return types.SimpleNamespace(prefix=self.prefixes.get(name, "/opt/" + name))


class PackageBase:
    def define(self, name, value):
        return (name, value)

    def define_from_variant(self, name, variant):
        return (name, bool(self.spec.variants[variant].value))


class CMakePackage(PackageBase):
    pass


class CudaPackage(PackageBase):
    # a sample of Spack's CudaPackage.cuda_arch_values: old and new numbers, suffixed ones
    cuda_arch_values = ("10", "13", "20", "35", "52", "70", "72", "75", "80", "86", "89", "90", "90a",
                        "100", "100a", "100f", "120", "120a", "121f")


spack_package = types.ModuleType("spack.package")
for _name in recorded:
    setattr(spack_package, _name, _directive(_name))
for _name in ("license", "tags"):
    setattr(spack_package, _name, lambda *a, **k: None)
spack_package.CMakePackage = CMakePackage
spack_package.CudaPackage = CudaPackage
spack_package.InstallError = InstallError
spack_package.run_after = lambda *a, **k: (lambda f: f)
spack_package.on_package_attributes = lambda **k: (lambda f: f)
spack_package.which = lambda *a, **k: None
spack_package.__all__ = [n for n in dir(spack_package) if not n.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = spack_package

recipe = os.path.join(SRC, "packaging", "spack", "packages", "um", "package.py")
namespace = {"__name__": "um_recipe"}
with open(recipe) as f:
    exec(compile(f.read(), recipe, "exec"), namespace)
Um = namespace["Um"]

# ---- the languages ----------------------------------------------------------------------------------------
with open(os.path.join(SRC, "CMakeLists.txt")) as f:
    cmakelists = f.read()
langs = re.search(r"project\(um\b[^)]*LANGUAGES\s+([A-Z ]+)\)", cmakelists).group(1).split()
deps = {args[0]: kwargs for args, kwargs in recorded["depends_on"]}
for lang in langs:
    dep = {"C": "c", "CXX": "cxx", "CUDA": "cuda"}[lang]
    check(dep in deps and "build" in str(deps[dep].get("type", "")),
          'depends_on("{0}", type="build") for project(um ... LANGUAGES {1})'.format(dep, " ".join(langs)))

# ---- cmake and the version --------------------------------------------------------------------------------
minimum = re.search(r"cmake_minimum_required\(VERSION\s+([0-9.]+)", cmakelists).group(1)
bounds = [a[0] for a, _ in recorded["depends_on"] if a[0].startswith("cmake@")]
check(bounds == ["cmake@{0}:".format(minimum)],
      "the cmake bound {0} is cmake_minimum_required's {1}".format(bounds, minimum))
with open(os.path.join(SRC, "VERSION")) as f:
    version = f.read().strip()
versions = [a[0] for a, _ in recorded["version"]]
check(version in versions, "version({0!r}) among {1}".format(version, versions))

# ---- cmake_args: the variables exist, cuda_arch reaches UM_CUDA_ARCHITECTURES as numbers ------------------
declared = set()
for path in ("CMakeLists.txt", "cmake/UmDependencies.cmake", "python/CMakeLists.txt"):
    with open(os.path.join(SRC, path)) as f:
        text = f.read()
    declared |= set(re.findall(r"option\((\w+)", text))
    declared |= set(re.findall(r"set\((\w+)\s[^)]*CACHE", text))
    declared |= set(re.findall(r"\$\{(UM_\w+)\}", text))


def cmake_args(**variants):
    base = {"mpi": True, "cuda": False, "nccl": False, "ptscotch": True, "openmp": True, "shared": False,
            "cuda_arch": ()}
    base.update(variants)
    pkg = Um.__new__(Um)
    pkg.spec = FakeSpec(base)
    return dict(pkg.cmake_args())


args = cmake_args(cuda=True, nccl=True, cuda_arch=("90a", "100f", "90", "120a"))
for name in args:
    check(name == "BUILD_SHARED_LIBS" or name in declared, "cmake_args sets {0}, which the tree reads".format(name))
check(args.get("UM_CUDA_ARCHITECTURES") == "90;100;120",
      "cuda_arch=90a,100f,90,120a gives UM_CUDA_ARCHITECTURES '90;100;120' (got {0!r})".format(
          args.get("UM_CUDA_ARCHITECTURES")))
check("UM_CUDA_ARCHITECTURES" not in cmake_args(), "~cuda sets no UM_CUDA_ARCHITECTURES")
refused = {a[0] for a, k in recorded["conflicts"] if a[0].startswith("cuda_arch=") and k.get("when") == "+cuda"}
for arch in CudaPackage.cuda_arch_values:
    below = int(re.match(r"\d+", arch).group()) < 75
    check(("cuda_arch=" + arch in refused) == below,
          "cuda_arch={0} is {1}a conflict".format(arch, "" if below else "not "))

if failures:
    print("package.spack_recipe: {0} check(s) failed".format(len(failures)))
    sys.exit(1)
print("package.spack_recipe: all checks passed")
