# Debian packages with CPack, from a build: `cpack -G DEB --config build/CPackConfig.cmake` (or
# `cmake --build build --target package`) writes
#   um_<version>_<arch>.deb      the runtime component: umrun, the shared libraries of a BUILD_SHARED_LIBS build,
#                                the configs and references (/usr/share/um), umrun(1), the completions, the docs
#   um-dev_<version>_<arch>.deb  the dev component: headers, static libraries, um-embed, um.pc, the CMake package
# The runtime's dependencies are the Debian packages of the libraries the build links (libyaml, METIS, Scotch,
# HDF5, OpenMP, Open MPI, PT-Scotch); the dev package's are the -dev packages its pkg-config and CMake files name
# (and Open MPI's mpicc, which the CMake package's find_dependency(MPI) runs).
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
# The runtime's dependencies: the Debian package of each library this build links (the file its .so link
# points to, as dpkg knows it). NVIDIA's CUDA runtime is no Debian package: a CUDA build needs it as
# installed (dpkg-shlibdeps would stop on it), so it is not named.
set(_um_runtime_libs ${UM_YAML_LIBRARY} ${UM_METIS_LIBRARY} ${UM_SCOTCH_LIBRARY} ${UM_SCOTCHERR_LIBRARY}
                     ${HDF5_C_LIBRARIES} ${OpenMP_gomp_LIBRARY})
if(UM_HAVE_MPI)
  list(APPEND _um_runtime_libs ${MPI_C_LIBRARIES})
endif()
if(UM_HAVE_PTSCOTCH)
  list(APPEND _um_runtime_libs ${UM_PTSCOTCH_LIBRARY} ${UM_PTSCOTCHERR_LIBRARY})
endif()
set(_um_runtime_depends "")
foreach(lib IN LISTS _um_runtime_libs)
  if(NOT IS_ABSOLUTE "${lib}" OR NOT EXISTS "${lib}" OR NOT lib MATCHES "yaml|metis|scotch|hdf5|gomp|mpi")
    continue() # the system's own (libm, libz, ...) come with those packages
  endif()
  file(REAL_PATH "${lib}" _real)
  string(REGEX REPLACE "^/usr/lib/" "/lib/" _merged "${_real}") # usrmerge: dpkg may know either spelling
  execute_process(COMMAND dpkg-query -S "${_real}" "${_merged}" OUTPUT_VARIABLE _owner ERROR_QUIET)
  string(REGEX MATCH "^[^:,]+" _pkg "${_owner}")
  if(_pkg AND NOT _pkg MATCHES "-dev$")
    list(APPEND _um_runtime_depends ${_pkg})
  endif()
endforeach()
list(REMOVE_DUPLICATES _um_runtime_depends)
list(JOIN _um_runtime_depends ", " CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS)
string(CONCAT CPACK_COMPONENT_RUNTIME_DESCRIPTION "The runtime: umrun and the apps.\n"
       "OP2-style parallel loops on seq, OpenMP, CUDA and MPI backends; the umrun runner with the Airfoil,\n"
       "Volna, BookLeaf, LULESH, miniAero, SIAC and Jacobi apps, their configs and validation references\n"
       "(/usr/share/um). Licence BSD-3-Clause; the third-party validation data keeps its own licences\n"
       "(/usr/share/doc/um/THIRD_PARTY.md).")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "openmpi-bin")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME um-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(_um_dev_depends "um (= ${PROJECT_VERSION}), libyaml-dev, libmetis-dev, libscotch-dev, libhdf5-dev, pkg-config")
if(UM_HAVE_MPI) # find_package(um) finds MPI through its compiler wrapper, mpicc: openmpi-bin's, named here though
                # Debian 12's libopenmpi-dev depends on it too
  string(APPEND _um_dev_depends ", libopenmpi-dev, openmpi-bin")
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
