# Fails if the core, the plan builder or the runner name a backend: those
# belong to engine/src/backends/ and the registry's list alone.
file(GLOB_RECURSE files ${ROOT}/engine/src/core/* ${ROOT}/engine/src/plan/* ${ROOT}/umrun/*)
# the registry's list of built-in backends (core/backend_list.h, expanded by core/registry.c) is
# where backends register: the one file of the core that names them
list(REMOVE_ITEM files ${ROOT}/engine/src/core/backend_list.h)
set(found "")
foreach(f IN LISTS files)
  file(STRINGS ${f} lines REGEX "UM_BACKEND_CUDA|UM_HAVE_CUDA")
  if(lines)
    list(APPEND found "${f}: ${lines}")
  endif()
endforeach()
if(found)
  message(FATAL_ERROR "backend names outside engine/src/backends:\n${found}")
endif()
message(STATUS "no backend named in engine/src/core, engine/src/plan or umrun")
