/* The built-in backends: one line each (libCEED's backend list). Included
 * twice by registry.c, once to declare each backend's table and once to list
 * them. A backend not built into this build is listed as known-but-missing
 * with how to get it, so asking for it by name says so.
 *
 *   UM_BACKEND(symbol)                 its um_backend_def is um_backend_<symbol>
 *   UM_BACKEND_MISSING(name, how)      known name, not built: `how` to build it
 */
UM_BACKEND(seq)
#ifdef UM_HAVE_OPENMP
UM_BACKEND(openmp)
#else
UM_BACKEND_MISSING(openmp, "rebuild with -DUM_ENABLE_OPENMP=ON, or use backend seq")
#endif
#ifdef UM_HAVE_CUDA
UM_BACKEND(cuda)
#else
UM_BACKEND_MISSING(cuda, "configure with -DUM_ENABLE_CUDA=ON and the CUDA toolkit")
#endif
