/* umrun --sweep: run a config over the Cartesian product of value lists and
 * collect one CSV row per loop and run, plus plots of useful bandwidth against
 * block size (one line per variant), in the manner of the locality paper. */
#ifndef UMRUN_SWEEP_H
#define UMRUN_SWEEP_H
#include <stdio.h>
#include "um/app.h"
#include "um/um.h"

#define UMRUN_SWEEP_MAX_KEYS 8

typedef struct {
  int nkeys;
  char key[UMRUN_SWEEP_MAX_KEYS][128];    /* dotted config key           */
  char *values[UMRUN_SWEEP_MAX_KEYS][64]; /* its values                  */
  int nvalues[UMRUN_SWEEP_MAX_KEYS];
  char storage[UMRUN_SWEEP_MAX_KEYS][1024];
  int allow_compiler; /* pass --allow-compiler to each run */
  int no_validate;    /* pass --no-validate to each run */
} umrun_sweep_spec;

/* Parse one "key=v1,v2,..." into spec: an empty value and a value twice refused. 0 or -1 with a message in
 * err. */
int umrun_sweep_add(umrun_sweep_spec *spec, const char *arg, char *err, size_t errlen);

/* Before any run: app is not swept (one app's options are), each swept key is umrun's or app's (else "did you
 * mean" the closest, as --set's says), and no --set of sets[0..nsets) ("key=value") names a swept key. 0, or -1
 * with the message in err. */
int umrun_sweep_check_keys(const umrun_sweep_spec *spec, const um_app *app, const char *const *sets, int nsets,
                           char *err, size_t errlen);

/* The values of spec's path keys (UM_OPT_PATH) resolved from the config file's folder, as the config's own
 * paths are (paths.c): for a sweep the config itself lists. 0, or -1 with a message in err. */
int umrun_sweep_resolve_paths(umrun_sweep_spec *spec, const um_runner *r, const char *config_path, const char *app,
                              char *err, size_t errlen);

/* Run every combination as a child umrun (argv0 = this program) on config_path
 * with the extra --set arguments in sets[0..nsets), writing outdir/sweep.csv,
 * outdir/run_<k>.log and the plots. Returns an exit status for umrun. */
int umrun_sweep_run(const char *argv0, const char *config_path, const char *const *sets, int nsets,
                    const umrun_sweep_spec *spec, const char *outdir);

/* umrun --sweep --help: what a sweep runs and writes. */
void umrun_sweep_usage(FILE *f);

/* Header and one row per loop of a finished run (used by the child with --csv). */
void umrun_csv_header(FILE *f);
void umrun_csv_rows(FILE *f, const char *label, const char *app, const um_context *ctx, const char *layout,
                    const char *reorder, int block_size, const char *status);
#endif
