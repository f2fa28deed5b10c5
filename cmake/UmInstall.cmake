# `cmake --install build --prefix P`: the libraries (static, or shared with
# BUILD_SHARED_LIBS=ON), the public headers in P/include/um, umrun and
# um-embed, the CMake package (P/lib/cmake/um: umConfig.cmake, its version
# file, umTargets.cmake, UmKernels.cmake), P/lib/pkgconfig/um.pc, and the data
# (P/share/um: validation references, configs), umrun(1), the bash and zsh
# completions and the documentation (P/share/doc/um: README, LICENSE,
# THIRD_PARTY.md, CHANGELOG, docs/). Nothing installed names the build or
# source tree: the package files find their prefix from where they are, and
# umrun finds P/share/um from its own folder (docs/library.md).
# Two components, the Debian packages' (cmake/UmPackage.cmake): runtime (umrun, shared libraries, data, man
# page, completions, docs) and dev (headers, static libraries, um-embed, pkg-config, the CMake package).
include(CMakePackageConfigHelpers)
set(UM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/um)
set(UM_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/um)

# shared libraries carry their version (docs/release.md): while MAJOR is 0 a new MINOR may change the ABI, so the
# SONAME is libum_X.so.MAJOR.MINOR (the file libum_X.so.MAJOR.MINOR.PATCH); the libum_X.so link is for linking
# against them, so it goes with the dev files
set_target_properties(um_engine um_driver um_run PROPERTIES VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
install(TARGETS um_engine um_driver um_run um_embed_tool EXPORT umTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dev)
install(TARGETS umrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# shared libraries: the programs find them beside themselves (bin/../lib), wherever the prefix is moved
file(RELATIVE_PATH _um_bin_to_lib /p/${CMAKE_INSTALL_BINDIR} /p/${CMAKE_INSTALL_LIBDIR})
set_target_properties(umrun um_embed_tool PROPERTIES INSTALL_RPATH "$ORIGIN/${_um_bin_to_lib}")
# and each library finds the others beside it (a program linking um_run needs um_driver and um_engine)
set_target_properties(um_engine um_driver um_run PROPERTIES INSTALL_RPATH "$ORIGIN")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/um ${PROJECT_SOURCE_DIR}/driver/include/um
                  ${PROJECT_SOURCE_DIR}/umrun/include/um
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/engine/include/um/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/um
        COMPONENT dev)
install(EXPORT umTargets NAMESPACE um:: DESTINATION ${UM_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/umConfig.cmake.in ${PROJECT_BINARY_DIR}/umConfig.cmake
  INSTALL_DESTINATION ${UM_INSTALL_CMAKEDIR} PATH_VARS CMAKE_INSTALL_INCLUDEDIR UM_INSTALL_DATADIR)
# 0.x: a new minor version may change the API, so only the same major.minor is compatible
write_basic_package_version_file(${PROJECT_BINARY_DIR}/umConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/umConfig.cmake ${PROJECT_BINARY_DIR}/umConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/UmKernels.cmake DESTINATION ${UM_INSTALL_CMAKEDIR} COMPONENT dev)

# pkg-config: the static libraries need every dependency on the link line (Libs); shared ones only
# their own (the rest in Libs.private, for --static) and libm, which the program itself needs whatever the
# libraries' kind: its kernels are compiled into it and um/kernel.h includes <math.h>
set(_um_deps ${HDF5_C_LIBRARIES} ${UM_YAML_LIBRARY} ${UM_METIS_LIBRARY} ${UM_SCOTCH_LIBRARY} ${UM_SCOTCHERR_LIBRARY})
if(UM_HAVE_PTSCOTCH)
  list(APPEND _um_deps ${UM_PTSCOTCH_LIBRARY} ${UM_PTSCOTCHERR_LIBRARY})
endif()
if(UM_HAVE_MPI)
  list(APPEND _um_deps ${MPI_C_LIBRARIES})
endif()
if(UM_HAVE_CUDA)
  list(APPEND _um_deps -L${CUDAToolkit_LIBRARY_DIR} -lcudart -lnvrtc)
endif()
if(UM_HAVE_OPENMP)
  list(APPEND _um_deps ${OpenMP_C_FLAGS})
endif()
list(APPEND _um_deps ${CMAKE_DL_LIBS} -lm)
list(TRANSFORM _um_deps REPLACE "^dl$" "-ldl")
list(JOIN _um_deps " " _um_deps)
if(BUILD_SHARED_LIBS)
  set(UM_PC_LIBS "-lm")
  set(UM_PC_LIBS_PRIVATE "${_um_deps}")
else()
  set(UM_PC_LIBS "${_um_deps}")
  set(UM_PC_LIBS_PRIVATE "")
endif()
file(RELATIVE_PATH UM_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/um.pc.in ${PROJECT_BINARY_DIR}/um.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/um.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# data: the references and configs, in the tree's layout (configs name validation/<app>/...)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/validation ${PROJECT_SOURCE_DIR}/configs DESTINATION ${UM_INSTALL_DATADIR}
        COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/VERSION DESTINATION ${UM_INSTALL_DATADIR} COMPONENT runtime)
file(GLOB _um_app_cfgs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/apps/*/configs)
foreach(d IN LISTS _um_app_cfgs)
  get_filename_component(app ${d} DIRECTORY)
  get_filename_component(app ${app} NAME)
  install(DIRECTORY ${d} DESTINATION ${UM_INSTALL_DATADIR}/apps/${app} COMPONENT runtime)
endforeach()
# the kernels of the Python package's Airfoil example (python3 -m um.examples.airfoil MESH KERNELS, docs/python.md)
install(FILES ${PROJECT_SOURCE_DIR}/apps/airfoil/airfoil_kernels.h DESTINATION ${UM_INSTALL_DATADIR}/apps/airfoil
        COMPONENT runtime)
# the build tree's umrun finds the same data beside it: build/share/um links the source folders
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/um)
foreach(d validation configs apps)
  if(NOT EXISTS ${PROJECT_BINARY_DIR}/share/um/${d})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${d} ${PROJECT_BINARY_DIR}/share/um/${d} SYMBOLIC)
  endif()
endforeach()

# umrun(1) and the completions, printed by umrun from its option tables at build time (umrun/CMakeLists.txt)
install(FILES ${UM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${UM_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        COMPONENT runtime)
install(FILES ${UM_ZSH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime)
# the documentation and the licences
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY.md
              ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
# Debian's place for each package's licence (the um and um-dev packages): um's, and in um's (which ships the
# validation data) a paragraph for each third-party licence (cmake/UmDebianCopyright.cmake)
include(UmDebianCopyright)
install(FILES ${PROJECT_BINARY_DIR}/debian/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/um COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/um-dev RENAME copyright
        COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT runtime
        FILES_MATCHING PATTERN "*.md" PATTERN "*.svg" PATTERN "*.png" PATTERN "*.json")
