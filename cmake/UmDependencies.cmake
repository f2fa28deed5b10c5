# Finds um's dependencies. Each missing required piece stops the configuration
# with the Debian package that provides it (scripts/install-deps.sh installs them all).

function(um_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "um: ${what} not found. Install it with: apt-get install ${package}"
                        "  (or run scripts/install-deps.sh, which installs every dependency)")
  endif()
endfunction()

# HDF5 (serial)
set(HDF5_PREFER_PARALLEL OFF)
find_package(HDF5 COMPONENTS C QUIET)
um_require(HDF5_FOUND "HDF5 (serial, C library)" libhdf5-dev)

# libyaml
find_path(UM_YAML_INCLUDE_DIR yaml.h)
find_library(UM_YAML_LIBRARY yaml)
set(UM_YAML_OK FALSE)
if(UM_YAML_INCLUDE_DIR AND UM_YAML_LIBRARY)
  set(UM_YAML_OK TRUE)
endif()
um_require(UM_YAML_OK "libyaml" libyaml-dev)
add_library(um::yaml UNKNOWN IMPORTED)
set_target_properties(um::yaml PROPERTIES IMPORTED_LOCATION ${UM_YAML_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${UM_YAML_INCLUDE_DIR})

# METIS
find_path(UM_METIS_INCLUDE_DIR metis.h)
find_library(UM_METIS_LIBRARY metis)
set(UM_METIS_OK FALSE)
if(UM_METIS_INCLUDE_DIR AND UM_METIS_LIBRARY)
  set(UM_METIS_OK TRUE)
endif()
um_require(UM_METIS_OK "METIS" libmetis-dev)
add_library(um::metis UNKNOWN IMPORTED)
set_target_properties(um::metis PROPERTIES IMPORTED_LOCATION ${UM_METIS_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${UM_METIS_INCLUDE_DIR})

# Scotch (Debian puts the header under include/scotch)
find_path(UM_SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch)
find_library(UM_SCOTCH_LIBRARY scotch)
find_library(UM_SCOTCHERR_LIBRARY scotcherr)
set(UM_SCOTCH_OK FALSE)
if(UM_SCOTCH_INCLUDE_DIR AND UM_SCOTCH_LIBRARY AND UM_SCOTCHERR_LIBRARY)
  set(UM_SCOTCH_OK TRUE)
endif()
um_require(UM_SCOTCH_OK "Scotch" libscotch-dev)
add_library(um::scotch INTERFACE IMPORTED)
set_target_properties(um::scotch PROPERTIES INTERFACE_LINK_LIBRARIES "${UM_SCOTCH_LIBRARY};${UM_SCOTCHERR_LIBRARY}"
                      INTERFACE_INCLUDE_DIRECTORIES ${UM_SCOTCH_INCLUDE_DIR})

# MPI (distributed memory): on when found; a build without it runs one process
set(UM_HAVE_MPI OFF)
if(UM_ENABLE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(UM_HAVE_MPI ON)
  else()
    message(STATUS "um: MPI not found: building without distributed memory (apt-get install libopenmpi-dev "
                   "openmpi-bin, or scripts/install-deps.sh, then configure again)")
  endif()
endif()

# PT-Scotch (mpi.partitioner: ptscotch): optional, with MPI; Debian's libptscotch-dev
option(UM_ENABLE_PTSCOTCH "PT-Scotch partitioner (mpi.partitioner: ptscotch) with MPI, when it is found" ON)
set(UM_HAVE_PTSCOTCH OFF)
if(UM_HAVE_MPI AND UM_ENABLE_PTSCOTCH)
  find_path(UM_PTSCOTCH_INCLUDE_DIR ptscotch.h PATH_SUFFIXES scotch)
  find_library(UM_PTSCOTCH_LIBRARY ptscotch)
  find_library(UM_PTSCOTCHERR_LIBRARY ptscotcherr)
  if(UM_PTSCOTCH_INCLUDE_DIR AND UM_PTSCOTCH_LIBRARY AND UM_PTSCOTCHERR_LIBRARY)
    set(UM_HAVE_PTSCOTCH ON)
    add_library(um::ptscotch INTERFACE IMPORTED)
    set_target_properties(um::ptscotch PROPERTIES
                          INTERFACE_LINK_LIBRARIES "${UM_PTSCOTCH_LIBRARY};${UM_PTSCOTCHERR_LIBRARY};${UM_SCOTCH_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES ${UM_PTSCOTCH_INCLUDE_DIR})
  else()
    message(STATUS "um: PT-Scotch not found: mpi.partitioner ptscotch is not built (apt-get install libptscotch-dev)")
  endif()
endif()

# OpenMP
set(UM_HAVE_OPENMP OFF)
if(UM_ENABLE_OPENMP)
  find_package(OpenMP COMPONENTS C QUIET)
  um_require(OpenMP_C_FOUND "OpenMP for the C compiler" "libgomp1 (comes with gcc)")
  set(UM_HAVE_OPENMP ON)
endif()

# CUDA toolkit: cudart and NVRTC (the backend itself lands with its own issue)
set(UM_HAVE_CUDA OFF)
if(UM_ENABLE_CUDA)
  find_package(CUDAToolkit QUIET)
  um_require(CUDAToolkit_FOUND "the CUDA toolkit (nvcc, cudart, NVRTC)"
             "nvidia-cuda-toolkit, or NVIDIA's cuda-toolkit; set CUDAToolkit_ROOT if it is installed elsewhere")
  if(NOT TARGET CUDA::nvrtc)
    message(FATAL_ERROR "um: the CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR} has no NVRTC library; install cuda-nvrtc-dev")
  endif()
  if(CUDAToolkit_VERSION VERSION_LESS 12.0)
    message(FATAL_ERROR "um: the CUDA backend needs CUDA 12 or newer (the runtime's library API); found "
                        "${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}. Install a newer cuda-toolkit or set CUDAToolkit_ROOT")
  endif()
  foreach(arch ${UM_CUDA_ARCHITECTURES})
    if(NOT arch MATCHES "^[0-9]+$")
      message(FATAL_ERROR "um: UM_CUDA_ARCHITECTURES entry '${arch}' is not a number like 75 or 90 (sm_75, sm_90)")
    endif()
    if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 13.0 AND arch LESS 75)
      message(FATAL_ERROR "um: CUDA ${CUDAToolkit_VERSION} builds sm_75 and newer; UM_CUDA_ARCHITECTURES has ${arch}")
    endif()
  endforeach()
  set(UM_HAVE_CUDA ON)
else()
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    message(STATUS "um: CUDA toolkit ${CUDAToolkit_VERSION} found; configure with -DUM_ENABLE_CUDA=ON to use it")
  endif()
endif()


# NCCL (mpi.gpu_transport: halo rows sent GPU to GPU between CUDA ranks): with CUDA and MPI, when its
# header is found. The library itself is loaded at run time (dlopen of libnccl.so.2, then the one found
# here), so the same binary runs where NCCL is missing: ranks then send halos from host memory, and say so.
# Debian has no NCCL; NVIDIA's toolkit images and the GPU hosts have it beside the toolkit, and pip's
# nvidia-nccl-cu13 ships it too (scripts/build-offline.sh looks there): UM_NCCL_ROOT or NCCL_HOME point
# at any of them.
option(UM_ENABLE_NCCL "NCCL halo transport for CUDA ranks, when nccl.h is found" ON)
set(UM_HAVE_NCCL OFF)
if(UM_HAVE_CUDA AND UM_HAVE_MPI AND UM_ENABLE_NCCL)
  set(_um_nccl_hints ${UM_NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
  find_path(UM_NCCL_INCLUDE_DIR nccl.h HINTS ${_um_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(UM_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_um_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  if(UM_NCCL_INCLUDE_DIR)
    set(UM_HAVE_NCCL ON)
    file(STRINGS ${UM_NCCL_INCLUDE_DIR}/nccl.h _um_nccl_v REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE "[^0-9;]" "" _um_nccl_v "${_um_nccl_v}")
    string(REPLACE ";" "." UM_NCCL_VERSION "${_um_nccl_v}")
    message(STATUS "um: NCCL ${UM_NCCL_VERSION} header in ${UM_NCCL_INCLUDE_DIR}; library ${UM_NCCL_LIBRARY} (loaded at run time)")
  else()
    message(STATUS "um: NCCL not found (nccl.h): CUDA ranks send halos from host memory; set UM_NCCL_ROOT to use it")
  endif()
endif()
