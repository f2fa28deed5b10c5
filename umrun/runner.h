/* The runner's parts (um_run_main in umrun.c): what they share. Internal to
 * umrun/: the settings of a run read from the config (settings.c, through the
 * option table of options.c), and what a run writes and prints (outputs.c). */
#ifndef UMRUN_RUNNER_H
#define UMRUN_RUNNER_H
#include <stdio.h>

#include "um/app.h"
#include "um/config.h"
#include "um/um.h"
#include "um/validate.h"
#include "sweep.h"
#include "apps_table.h"
#include "draw.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_VALIDATION = 3, EXIT_STOPPED = 4 };

/* A message on stderr, prefixed "<program>: " (r->prog: argv[0]'s last component, umrun or an out-of-tree
 * app's program; r NULL: "umrun"). */
void umrun_err(const um_runner *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The command line of one run (parse_args in umrun.c). */
typedef struct {
  const char *config_path, *json_path, *csv_path, *csv_label, *sweep_out;
  int sweep_child, quiet, print_config, no_validate;
  int repeat; /* --repeat N: the run made N times (child processes), per loop the median and the spread */
  int allow_compiler; /* --allow-compiler: hostc.cc / hostc.cflags may come from the config or UM_OPTIONS */
  const char **sets;
  const char **set_origins; /* each set's origin: "--set", or "suite case <name>" (--suite-set, from --suite) */
  int nsets;
  umrun_sweep_spec sweep;
  char *restart_set;    /* --restart PATH as "checkpoint.restart=PATH" (one of sets) */
  umrun_draw draw; /* --draw WHAT FILE (draw.h) */
  char stdout_path[32]; /* "/dev/fd/N": the original stdout, when --json or --csv names it (umrun_outputs_own_stdout) */
  char unvalidated_ref[1024]; /* --no-validate: the config's validation.reference, not looked for (load_config) */
} cmdline;

/* What the runner itself reads from the config (settings.c). */
typedef struct {
  um_options opts;
  const char *app, *reorder, *reference, *outdir;
  int write_hdf5;
  double deadline_s; /* mpi.deadline_s: how long the other ranks get to reach a failed rank */
  /* provenance (the JSON): the config in effect, its file (NULL: the embedded config), the load before */
  um_config *cfg;
  const char *config_path;
  double load_start;
  char made_dir[4096], made_top[4096]; /* output.dir as made by this run, and the first of its folders it made */
  int outdir_fd; /* output.dir open and flock'ed while the run lasts (umrun_claim_outdir; -1: none) */
} run_settings;

/* The validation of a run against validation.reference (outputs.c). */
typedef struct {
  um_ref *ref;
  um_validation_result val;
  int validated;
  char field_dir[4096]; /* a private temporary folder for the field files, "" if none */
  int field_dir_slot;   /* its entry in the table of folders a signal removes (-1: none) */
  const char **wanted; /* the reference's field names (into ref) */
  int nwanted;
} validation;

/* ---- settings.c ---- */
/* The run's settings (app: one of r's apps, run.*, backend settings, validation.reference, output.*,
 * mpi.deadline_s), checked. */
int umrun_read_settings(const um_runner *r, um_config *cfg, const char *config_path, run_settings *s, FILE *out, char *err, size_t len);
/* run.unknown_keys (UM_APP_KEYS_ERROR or _WARN); the settings of backends not available here marked read. */
int umrun_read_unknown_keys(um_config *cfg, int *mode, char *err, size_t len);
/* Every input and output path the run will use, checked before the first loop. */
int umrun_check_paths(const cmdline *c, const run_settings *s, um_config *cfg, char *err, size_t len);
/* output.dir made (what this run made noted in s->made_dir) and claimed for the run: open and flock'ed until
 * s->outdir_fd is closed; another umrun holding it now: a warning on stderr that the two runs' files would mix.
 * Nonzero: it could not be made (why in err). */
int umrun_make_outdir(const um_runner *r, run_settings *s, char *err, size_t len);
/* After a failed run: the folders it made for output.dir taken away again where they are empty and not another
 * run's (outdir.c). */
void umrun_remove_made_dirs(run_settings *s);
/* What a SIGINT/SIGTERM says (um_safe_signal_message): status -1 while the run runs (what was removed, and how to
 * stop at a checkpoint instead); else the status the run ends with under mpirun, which stops every other rank once
 * one exits with a status but 0 (a checkpoint's stop, a failed validation, an error). */
void umrun_signal_note(const um_runner *r, int status);

/* ---- repeat.c ---- */
/* umrun CONFIG --repeat N (c->repeat > 1): the run made N times as child processes, per loop the median and the
 * spread printed and written to --json; returns the exit status. */
int umrun_repeat_main(const um_runner *r, int argc, char **argv, const cmdline *c);

/* ---- app.c ---- */
/* After a run: per-loop keys (mpi.loops.<loop>, block_size.<loop>, split.<loop>, variant.<loop>) naming a loop that
 * never ran, warned on f with the loops that ran; returns how many. */
int umrun_warn_loop_keys(um_app_run *run, FILE *f);

/* ---- outputs.c ---- */
/* The run's OpenMP threads per rank (1 off the openmp backend). */
int umrun_threads_of(const run_settings *s, const char *backend);
void umrun_print_backend(FILE *out, const run_settings *s, um_context *ctx);
/* Every rank's peak resident memory and mesh bytes into run->rank_peak_rss / rank_mesh_bytes (collective: every
 * rank calls it after a run that succeeded everywhere); umrun_free_memory releases them. */
int umrun_measure_memory(um_app_run *run, um_context *ctx);
void umrun_free_memory(um_app_run *run);

/* ---- setup_phases.c ---- */
/* Every rank's set-up by phase into run->rank_setup_phases and the bytes each phase touched first into
 * rank_setup_faulted (collective, with umrun_measure_memory; left NULL when a rank's app did not close the set-up
 * window); the JSON's "setup_phases" and "setup_faulted_bytes", and the summary's "set-up:" line. */
int umrun_measure_setup_phases(um_app_run *run, um_context *ctx);
void umrun_setup_phases_json(FILE *f, const um_app_run *run);
double umrun_setup_faulted_max(const um_app_run *run);
void umrun_setup_phases_line(FILE *out, const um_app_run *run);
void umrun_print_report(FILE *out, const um_app *app, const um_app_run *run, const run_settings *s, um_context *ctx,
                        double total);
/* What the tables' columns mean (printed after them by umrun_print_report). */
void umrun_print_legend(FILE *out);
int umrun_load_reference(const run_settings *s, validation *v, char *err, size_t len);
int umrun_make_field_dir(const char *tmp, validation *v, char *err, size_t len);
void umrun_remove_field_dir(const um_runner *r, validation *v);
int umrun_validate_run(const um_runner *r, FILE *out, const run_settings *s, const um_app *app, const um_app_run *run, validation *v,
                       const char *changed, const char **status_text);
/* drawn: the --draw picture the run made (its "draw" member of the JSON), or NULL. */
int umrun_write_outputs(const um_runner *r, const cmdline *c, const run_settings *s, um_context *ctx, const um_app *app,
                        const um_app_run *run, double total, const validation *v, int rc, int status,
                        const char *status_text, const umrun_draw *drawn);
#endif
