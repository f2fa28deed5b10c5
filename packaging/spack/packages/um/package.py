# Copyright the um authors. SPDX-License-Identifier: BSD-3-Clause
# um's Spack recipe (docs/release.md: how it is tested; README.md "Install").
import re

from spack.package import *


class Um(CMakePackage, CudaPackage):
    """Parallel loops over unstructured meshes (OP2-style sets, maps, dats and par_loop on
    seq/OpenMP/CUDA/MPI backends), six validated mini-apps and the umrun runner."""

    # No public address yet: build from a clone with `spack dev-build um@<version>` or a `develop`
    # environment (docs/release.md); set homepage and git (tags v<version>) when one is published.
    license("BSD-3-Clause")
    tags = ["proxy-app"]

    version("0.1.0")

    variant("mpi", default=True, description="Distributed memory: mpirun -np P umrun ...")
    variant("nccl", default=False, description="NCCL halo transport between CUDA ranks (+cuda +mpi)")
    variant("hdf5", default=True, description="HDF5 mesh and field files (required: um reads and writes HDF5)")
    variant("ptscotch", default=True, description="PT-Scotch parallel partitioner (mpi.partitioner: ptscotch)")
    variant("openmp", default=True, description="The OpenMP backend")
    variant("python", default=False, description="Python for the test and report scripts")
    variant("shared", default=False, description="Shared libraries (libum_*.so) instead of static ones")

    conflicts("~hdf5", msg="um reads meshes and writes fields with HDF5; it cannot be built without it")
    conflicts("+nccl", when="~cuda", msg="+nccl sends halos GPU to GPU: it needs +cuda")
    conflicts("+nccl", when="~mpi", msg="+nccl is a transport between MPI ranks: it needs +mpi")
    conflicts("+ptscotch", when="~mpi", msg="PT-Scotch partitions over MPI ranks: it needs +mpi")
    conflicts("cuda_arch=none", when="+cuda", msg="+cuda needs cuda_arch (e.g. cuda_arch=90)")
    for _arch in CudaPackage.cuda_arch_values:
        if int(re.match(r"\d+", _arch).group()) < 75:
            conflicts("cuda_arch=" + _arch, when="+cuda", msg="the CUDA backend builds sm_75 and newer")

    # the languages of project(um ... LANGUAGES C CXX): Spack (0.23 on, required from 1.0) gives a package the
    # compilers of the languages it depends on, and no others
    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")  # CMakeLists.txt's cmake_minimum_required
    depends_on("pkgconfig", type="build")
    depends_on("libyaml@0.2:")
    depends_on("metis@5.1:")
    depends_on("scotch@6.1:")
    depends_on("hdf5@1.10:~mpi", when="+hdf5")
    depends_on("mpi@3:", when="+mpi")
    depends_on("scotch@6.1:+mpi", when="+ptscotch")
    depends_on("cuda@12:", when="+cuda")
    depends_on("nccl@2.18:", when="+nccl")
    depends_on("python@3.8:", when="+python", type=("build", "run"))

    def cmake_args(self):
        args = [
            self.define_from_variant("UM_ENABLE_MPI", "mpi"),
            self.define_from_variant("UM_ENABLE_CUDA", "cuda"),
            self.define_from_variant("UM_ENABLE_NCCL", "nccl"),
            self.define_from_variant("UM_ENABLE_PTSCOTCH", "ptscotch"),
            self.define_from_variant("UM_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            # the GoogleTest suite (scripts/test.sh) is the tree's; the recipe checks the installed umrun (below)
            self.define("UM_BUILD_TESTS", False),
        ]
        if self.spec.satisfies("+cuda"):
            args.append(self.define("UM_CUDA_ARCHITECTURES", ";".join(self.um_cuda_architectures())))
        if self.spec.satisfies("+nccl"):
            args.append(self.define("UM_NCCL_ROOT", self.spec["nccl"].prefix))
        return args

    def um_cuda_architectures(self):
        """cuda_arch as UM_CUDA_ARCHITECTURES takes it: sm_XX numbers. um compiles its kernels at run time
        for the GPU it finds (NVRTC); the list is what its CUDA compile tests build for, so an
        architecture-specific (90a, 100a) or family (100f) value stands for its base number."""
        archs = []
        for arch in self.spec.variants["cuda_arch"].value:
            number = re.match(r"(\d+)[a-z]*$", arch)
            if number is None:
                raise InstallError("cuda_arch={0}: not an sm_XX number (e.g. 90, 90a)".format(arch))
            if number.group(1) not in archs:
                archs.append(number.group(1))
        return archs

    def _run_default_airfoil(self):
        """umrun without a config runs its embedded default job (the small Airfoil case) and
        validates it against upstream OP2's numbers: the output must say VALIDATION PASS."""
        umrun = which(self.prefix.bin.umrun, required=True)
        out = umrun("--set", "run.backend=seq", output=str.split, error=str.split)
        if "VALIDATION PASS" not in out:
            raise InstallError("umrun's default Airfoil case did not say VALIDATION PASS:\n" + out)
        version = umrun("--version", output=str.split, error=str.split)
        if str(self.spec.version) not in version:
            raise InstallError("umrun --version does not report {0}: {1}".format(self.spec.version, version))

    def test_default_airfoil(self):
        """run the default Airfoil case with the installed umrun and check VALIDATION PASS"""
        self._run_default_airfoil()

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed_umrun(self):
        self._run_default_airfoil()
