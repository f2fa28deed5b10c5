/** @file um/run.h
 * The runner as a library: umrun's whole behaviour (YAML configs, --set and
 * UM_OPTIONS, validation against references, --json, --csv, --suite,
 * --compare, --report, --validate, --sweep, progress, mpirun, exit statuses)
 * behind one call, over the apps the caller gives. umrun itself is this call
 * with the built-in apps; an app built outside the tree is its own program:
 *
 * @code
 *   #include "um/run.h"
 *   extern const um_app um_app_heat2d;            // the app's file (um/app.h)
 *   int main(int argc, char **argv) {
 *     const um_app *apps[] = {&um_app_heat2d};
 *     const um_run_args args = {.apps = apps, .n_apps = 1};
 *     return um_run_main(argc, argv, &args);
 *   }
 * @endcode
 *
 * Link with um::run (CMake: find_package(um), target_link_libraries(x
 * PRIVATE um::run)) or `pkg-config --cflags --libs um`. See docs/library.md.
 */
#ifndef UM_RUN_H
#define UM_RUN_H

#include "um/app.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Exit statuses of um_run_main (and umrun): */
enum {
  UM_RUN_OK = 0,         /**< success (and validation passed, when a reference was named) */
  UM_RUN_USAGE = 1,      /**< bad command line or config, a path that does not work */
  UM_RUN_FAILED = 2,     /**< the run failed (invalid mesh, diverged, an output not written) */
  UM_RUN_VALIDATION = 3, /**< validation failed */
  UM_RUN_STOPPED = 4     /**< stopped at a checkpoint as asked (a signal, checkpoint.stop_after): continue with --restart */
};

/** What a program gives um_run_main: its apps and, optionally, a default job.
 * um_run_main makes the runner's state (um_runner, um/app.h) from it: nothing
 * is set process-wide beforehand. Fields left out (designated initialisers)
 * are NULL / 0. */
typedef struct {
  /** apps[0..n_apps-1]: a config's `app:` names one of them; --list-apps lists
   * them in this order. The table must outlive the call. */
  const um_app *const *apps;
  int n_apps; /**< the entries of apps (at least 1) */
  /** The YAML text run when the command line names no config file (umrun: a
   * small Airfoil case); NULL: a config file must be given. Must outlive the call. */
  const char *default_config;
  /** Its name in messages; NULL or "": "embedded default config". */
  const char *default_config_name;
} um_run_args;

/** Runs the command line argv[0..argc-1] as umrun does (`PROGRAM --help` lists
 * everything), over args->apps. Returns the exit status (UM_RUN_*); under
 * mpirun every rank returns the same one. Call it once per process: it
 * initialises and finalises MPI when the process was started by mpirun, and
 * installs SIGINT/SIGTERM handlers that remove unfinished output files.
 * args NULL, n_apps < 1 or a NULL entry: usage error. */
int um_run_main(int argc, char **argv, const um_run_args *args);

#ifdef __cplusplus
}
#endif
#endif
