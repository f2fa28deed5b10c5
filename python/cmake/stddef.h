/* python/cmake: an empty <stddef.h> for the preprocessing of the public headers into the Python package's
 * declarations (python/CMakeLists.txt): size_t is one of cffi's own types, so the system's definitions, which
 * cffi's C parser cannot read, are left out. */
