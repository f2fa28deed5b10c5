/* What the Python package declares of the C API (python/CMakeLists.txt preprocesses it with the build's C compiler
 * into plain declarations that cffi reads, embedded in libum.so as um_python_cdef): the public headers
 * themselves, so the package and the library never disagree. The macros of the headers that the package needs are
 * kept below as an enum, which survives preprocessing. */
#include "um/um.h"
#include "um/hdf5io.h"
#include "um/reorder.h"

enum um_python_constants {
  UM_PY_ALL = UM_ALL,
  UM_PY_WHOLE = UM_WHOLE,
  UM_PY_MAX_SETTINGS = UM_MAX_SETTINGS,
  UM_PY_VERSION_MAJOR = UM_VERSION_MAJOR,
  UM_PY_VERSION_MINOR = UM_VERSION_MINOR,
  UM_PY_VERSION_PATCH = UM_VERSION_PATCH
};
