# Debian packages with CPack, from a build: `cpack -G DEB --config build/CPackConfig.cmake` (or
# `cmake --build build --target package`) writes
#   um_<version>_<arch>.deb      the runtime component: umrun, the shared libraries of a BUILD_SHARED_LIBS build,
#                                the configs and references (/usr/share/um), umrun(1), the completions, the docs
#   um-dev_<version>_<arch>.deb  the dev component: headers, static libraries, um-embed, um.pc, the CMake package
# The runtime's dependencies are what dpkg-shlibdeps finds umrun linked against (libyaml, METIS, Scotch, HDF5,
# Open MPI, ...); the dev package's are the Debian -dev packages its pkg-config and CMake files name.
# tests/package/test_deb.sh builds both, installs them into a clean root and checks them (ctest -L package).
set(CPACK_PACKAGE_NAME um)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the um authors")
set(CPACK_PACKAGE_CONTACT "the um authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "parallel loops over unstructured meshes, validated mini-apps and umrun")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_INSTALL_DIRECTORY um)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip) # quick to make (CI builds them at every run)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME um)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(UM_HAVE_CUDA) # NVIDIA's CUDA runtime is no Debian package: its libraries are required as installed, not named
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
string(CONCAT CPACK_COMPONENT_RUNTIME_DESCRIPTION "The runtime: umrun and the apps.\n"
       "OP2-style parallel loops on seq, OpenMP, CUDA and MPI backends; the umrun runner with the Airfoil,\n"
       "Volna, BookLeaf, LULESH, miniAero, SIAC and Jacobi apps, their configs and validation references\n"
       "(/usr/share/um). Licence BSD-3-Clause; the third-party validation data keeps its own licences\n"
       "(/usr/share/doc/um/THIRD_PARTY.md).")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "openmpi-bin")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME um-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(_um_dev_depends "um (= ${PROJECT_VERSION}), libyaml-dev, libmetis-dev, libscotch-dev, libhdf5-dev, pkg-config")
if(UM_HAVE_MPI)
  string(APPEND _um_dev_depends ", libopenmpi-dev")
endif()
if(UM_HAVE_PTSCOTCH)
  string(APPEND _um_dev_depends ", libptscotch-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_um_dev_depends}")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "libgtest-dev")
string(CONCAT CPACK_COMPONENT_DEV_DESCRIPTION "The development files.\n"
       "The headers (um/*.h), the static libraries (um_engine, um_driver, um_run), the um-embed tool, um.pc\n"
       "for pkg-config and the CMake package (find_package(um)). Licence BSD-3-Clause.")
include(CPack)
