/** @file um/app.h
 * The app interface of the runner (um/run.h: um_run_main, umrun): an app reads
 * its mesh and parameters from the config, declares sets, maps and dats on the
 * context, runs its loops and reports named metrics (compared against
 * `validation/<app>/<case>.ref.yaml`). Part of the um::run library.
 */
#ifndef UM_APP_H
#define UM_APP_H

#include <stdio.h>
#include "um/config.h"
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most metrics one run can record (um_app_metric): BookLeaf's largest deck (16 regions and 16 materials, ten
 * metrics each, and its others) fits. */
#define UM_APP_MAX_METRICS 512
#define UM_APP_MAX_FIELDS 16        /**< field files one run can register */
#define UM_APP_MAX_INPUTS 16        /**< files read that no option names, one run can record (um_app_input) */
/** The longest path of a field file, in bytes with the final NUL (um_app_field). */
#define UM_APP_FIELD_PATH_MAX 4096

/* um_option, um_opt_type and the UM_OPT_* flags: um/option_decl.h (the engine declares its options
 * with the same type). */

struct um_app;
/** The runner running the app: what um_run_main (um/run.h) was given, made by it from its arguments (the apps,
 * the default job, the program's name). Opaque; um_app_count, um_app_at and um_app_find read its apps. */
typedef struct um_runner um_runner;
/** What a run's checkpoints need and did (umrun's; opaque): see um_app_resume. */
typedef struct um_app_ckpt um_app_ckpt;

/** One run of an app: what the runner gives it (context, config, outputs) and
 * what the app hands back (timings, metrics, field files). */
typedef struct {
  um_context *ctx;      /**< the context the app declares its sets, maps and dats on */
  um_config *cfg;       /**< the run's configuration (mesh.*, params.*, run.*) */
  FILE *log;            /**< where the app prints its own progress lines (stdout) */
  int progress;         /**< 1: draw a progress bar on stderr (attached to a terminal) */
  const char *output_dir; /**< NULL or "": write no output files */
  int write_hdf5;       /**< 1: write the HDF5 outputs (output.hdf5) */
  /** Field files for validation (see um_app_field_dir / um_app_wants_field).
   * field_dir: where to write them when output_dir is off (umrun: a private
   * temporary folder when the reference lists fields; NULL otherwise). */
  const char *field_dir;
  const char *const *wanted_fields; /**< wanted_fields: the names the reference compares */
  int nwanted_fields;    /**< the entries of wanted_fields */
  double t_start;        /**< when the run started (for the progress bar's ETA) */
  double last_progress;  /**< when the progress bar was last drawn */
  double reorder_seconds;/**< reordering: computing (or loading) and applying */
  /** app-chosen timing split: seconds spent before the main loop (mesh, setup) */
  double setup_seconds;
  double run_seconds;    /**< app-chosen timing split: seconds spent in the main loop */
  int nmetrics;          /**< metrics recorded (um_app_metric) */
  char metric_names[UM_APP_MAX_METRICS][64]; /**< their names */
  double metric_values[UM_APP_MAX_METRICS];  /**< their values */
  /** Config keys nobody read by um_app_prepare (misspelt, or not this app's):
   * UM_APP_KEYS_UNCHECKED leaves them to the caller; UM_APP_KEYS_ERROR makes
   * um_app_prepare fail (UM_ERR_CONFIG) naming each with where it came from and
   * the closest key that was read; UM_APP_KEYS_WARN prints the same as warnings
   * on stderr and goes on. */
  int unknown_keys;
  int unknown_keys_checked; /**< unknown_keys_checked: set when um_app_prepare did so */
  int nfields; /**< field files the app wrote (um_app_field) */
  char field_names[UM_APP_MAX_FIELDS][64]; /**< their names */
  char field_paths[UM_APP_MAX_FIELDS][UM_APP_FIELD_PATH_MAX]; /**< their paths */
  const struct um_app *app; /**< the app being run: its option table serves um_app_int and the other reads */
  /** The main loop's steps (time steps, cycles, iterations) and its first one, which also uploads data, builds
   * plans and compiles kernels: the app sets both after its main loop (steps 0: not measured). The results
   * JSON then carries `steps`, `first_step_seconds` and `step_seconds`, the steady time per step after the
   * first ((run_seconds - first_step_seconds) / (steps - 1)). */
  long steps;
  double first_step_seconds; /**< the first step, synchronised with the device (see steps) */
  double prefetch_bytes;   /**< run.prefetch: the bytes um_app_prepare copied to the device ahead of the loops */
  double prefetch_seconds; /**< and the time it took (part of the set-up) */
  const um_runner *runner; /**< the runner running the app (um_app_count/at/find: the apps it was given); may be NULL */
  /** What the run cost in memory, per rank (filled by the runner after a run that succeeded on every rank; NULL
   * before): rank_peak_rss[q] the peak resident bytes of rank q (VmHWM), rank_mesh_bytes[q] its mesh's host
   * bytes (um_context_mesh_bytes) at the end of the run; nranks_measured entries each. */
  double *rank_peak_rss;
  double *rank_mesh_bytes; /**< see rank_peak_rss */
  int nranks_measured;     /**< see rank_peak_rss */
  /** The set-up by phase (um/stats.h: um_setup_phase), per rank, filled with rank_peak_rss when the app closed
   * the set-up window (um_app_setup_done), else NULL: rank_setup_phases[q * UM_SETUP_NPHASES + p] the seconds of
   * phase p on rank q (nranks_measured ranks). */
  double *rank_setup_phases;
  int ninputs; /**< files the app read that no option names (um_app_input): the run's JSON lists them with a hash */
  char input_paths[UM_APP_MAX_INPUTS][UM_APP_FIELD_PATH_MAX]; /**< their paths */
  um_app_ckpt *ckpt; /**< checkpoints: the runner's (checkpoint.*, --restart), NULL until used */
  /** 1 when this rank's failure is another rank's (um_app_agree, um_app_output_done: "another rank could not
   * ..."): the runner then prints the failing rank's own message, not this one's */
  int failed_elsewhere;
  /** With rank_setup_phases: the bytes each phase touched for the first time (um_setup_faulted), the same layout */
  double *rank_setup_faulted;
} um_app_run;

/** An app: its name, what it does, its entry point and its options. */
typedef struct um_app {
  const char *name;        /**< the name a config's `app:` gives */
  const char *description; /**< a one-line description (umrun --list-apps) */
  /** Reads cfg (mesh.*, params.*, run.iterations), runs; returns a um error code.
   * On failure, the message is in um_error_message(ctx) (um_app_fail puts it there). */
  int (*run)(um_app_run *run);
  /** The app's own options (mesh.*, params.*, run.iterations, ...), declared once: the reads
   * (um_app_int, ...) take their defaults, choices and ranges from here and refuse any other key;
   * `--list-apps` and docs/options.md print them. */
  const um_option *options;
  int noptions; /**< the entries of options */
  /** What makes the app different from the others, for a reader comparing them (`umrun --report`
   * prints it above the app's loops; HTML markup allowed). NULL: a generic line. */
  const char *report_note;
} um_app;

/** @name Reading the app's options
 * Each reads the key from the run's config (run->cfg, marking it read) with the
 * default, the choices and the range its declaration in run->app->options
 * gives. A bad value is UM_ERR_CONFIG with the message in the context
 * ("mesh.N = 1: use 2 .. 4000"); a key the app did not declare, or reads as
 * another type, is UM_ERR_INTERNAL naming it (a bug in the app, found by its
 * first run). An option declared with no default (def NULL) that the config
 * does not set leaves *out as it was: the default then comes from the app's own
 * input (a deck, an input file), set in *out before the read. Use with UM_APP_TRY.
 * @{ */
int um_app_string(um_app_run *run, const char *key, const char **out); /**< text; NULL when absent with no default */
int um_app_int(um_app_run *run, const char *key, int *out);            /**< an int */
int um_app_long(um_app_run *run, const char *key, long long *out);     /**< a long long */
int um_app_double(um_app_run *run, const char *key, double *out);      /**< a double */
int um_app_bool(um_app_run *run, const char *key, int *out);           /**< 0 or 1 */
/** A choice: *index into the declaration's choices, *name (may be NULL) the choice. */
int um_app_choice(um_app_run *run, const char *key, int *index, const char **name);
/** Whether the config has the (declared) key, a null value included: *present 1 or 0; does not mark it read. */
int um_app_has(um_app_run *run, const char *key, int *present);
/** @} */

/** Propagate an error: evaluates `call` (an int error code, UM_SUCCESS = 0) and
 * returns it from the calling function when it is not UM_SUCCESS. The message
 * stays where the failing call put it (um_error_message(ctx)).
 * @code
 *   UM_APP_TRY(um_decl_set(ctx, n, "cells", &cells));
 * @endcode
 */
#define UM_APP_TRY(call)               \
  do {                                 \
    int um_app_rc_ = (call);           \
    if (um_app_rc_) return um_app_rc_; \
  } while (0)

/** What um_app_prepare does with config keys nobody read (um_app_run.unknown_keys). */
enum {
  UM_APP_KEYS_UNCHECKED = 0, /**< leaves them to the caller */
  UM_APP_KEYS_ERROR = 1,     /**< um_app_prepare fails (UM_ERR_CONFIG) naming each */
  UM_APP_KEYS_WARN = 2       /**< the same as warnings on stderr, and the run goes on */
};

/** The apps runner r knows: the table given to um_run_main (um/run.h), in the
 * order given (`--list-apps` order); an app reaches its runner as
 * um_app_run.runner. The suite refuses apps that are not in it. um_app_count:
 * their number (0 when r is NULL). */
int um_app_count(const um_runner *r);
/** The i-th app of r's table (0 <= i < um_app_count(r), in `--list-apps` order); NULL outside. */
const um_app *um_app_at(const um_runner *r, int i);
/** The app of r's table named `name`; um_app_find ignores case. NULL when none. */
const um_app *um_app_find(const um_runner *r, const char *name);

/** Call once after declaring every set and map (and the dats) and before the
 * first loop: applies the reordering the config asks for (run.reorder: none |
 * gps | partition, run.reorder_map: the map to base it on, default
 * `default_map`, run.reorder_file: where the permutation is saved to / loaded
 * from) and reports its time; then, under mpirun with several ranks, spreads
 * the mesh over them (um_distribute: mpi.partition_set, default the set
 * `default_map` points into; mpi.partitioner: metis | block); then checks for
 * config keys nobody read (run->unknown_keys), so read every key before. */
int um_app_prepare(um_app_run *run, const char *default_map);

/** Call once where the set-up ends, before the main loop: sets run->setup_seconds (the set-up window umrun opened
 * before the app ran, or else the time since t0) and closes the window of the set-up's phases (um/stats.h:
 * um_setup_start; the JSON's setup_phases). Returns um_wtime(), the main loop's start. */
double um_app_setup_done(um_app_run *run, double t0);

/** Whether the app declares its mesh by blocks (um/distributed.h: um_decl_set_block, um_decl_map_block): 1 under
 * mpirun with several ranks when mpi.mesh is blocks (the default), then each rank makes or reads only its block of
 * each set (um_app_block says which) and no rank holds the whole mesh; 0 on one process, or with mpi.mesh: whole
 * (every rank declares the whole mesh, um_distribute keeps its rows). An app whose mesh source cannot be read by
 * blocks declares it whole and says so (um_app_whole_note). With run.reorder set it is UM_ERR_CONFIG (a
 * reordering renumbers the whole mesh, which no rank then holds), saying to set mpi.mesh: whole. */
int um_app_by_blocks(um_app_run *run, int *blocks);
/** Whether maps declared by blocks should be handed over as 32-bit global rows (um_decl_map_block_take_i32, for
 * to-sets of at most INT_MAX elements): 1 under mpirun with mpi.partitioner: ranges, where the distribution makes
 * the local rows in them; 0 otherwise (the partitioners read 64-bit rows and would widen 32-bit ones first). */
int um_app_rows32(um_app_run *run, int *rows32);
/** This rank's block of a set of gsize elements: [*begin, *begin + *count), the block partitioner's range
 * (um_block_range), so that a mesh declared by blocks and partitioned by them has the layout of a whole
 * declaration partitioned by "block". */
int um_app_block(um_app_run *run, long long gsize, long long *begin, int *count);
/** Say on the run's log why this run declares its mesh whole although mpi.mesh is blocks (`why`: "mesh.file is
 * a text deck, read whole"), and what it costs: every rank holds the whole mesh while it is declared. */
void um_app_whole_note(um_app_run *run, const char *why);

/** Record (or overwrite) a metric. A NaN or infinite value is recorded and
 * returns UM_ERR_DIVERGED (the run diverged: umrun exits with status 2). */
int um_app_metric(um_app_run *run, const char *name, double value);
/** Field files: text files of values (whitespace-separated, one row of a set
 * per line, in an order that does not depend on the numbering: e.g. sorted by
 * the mesh's own indices) that validation compares with the reference's
 * `fields` (um/validate.h), value by value.
 *
 * @code
 *   if (um_app_wants_field(r, "u")) {
 *     char path[UM_APP_FIELD_PATH_MAX];
 *     snprintf(path, sizeof path, "%s/jacobi_u.txt", um_app_field_dir(r));
 *     ... write the file ...
 *     UM_APP_TRY(um_app_field(r, "u", path));
 *   }
 * @endcode
 *
 * um_app_field_dir: output_dir when the run writes outputs (non-empty), else
 * field_dir; NULL when neither is set (then write no field files). */
const char *um_app_field_dir(const um_app_run *run);
/** um_app_wants_field: 1 when there is a folder to write to and either the run
 * writes outputs or the reference compares the field `name` (see um_app_field_dir). */
int um_app_wants_field(const um_app_run *run, const char *name);
/** Outputs under mpirun: every rank takes an output's steps (the fetches are collective), and a file is written
 * by blocks: each rank fetches its block of the rows (um_dat_fetch_block, um/distributed.h), formats it as one
 * process formats the whole, and um_app_write_blocks puts the blocks in one file in rank order (HDF5:
 * um/hdf5io.h's writers). A file an app writes from a small whole array (a handful of gauges) is rank 0's:
 * um_app_writes is 1 where this process writes the run's files (always on one process; rank 0 under mpirun). The
 * other ranks compute the paths (um_app_field_dir) and register the fields as rank 0 does; they create no folder.
 * @code
 *   int rc = um_dat_fetch_block(r->ctx, p_u, u, bytes);             // every rank: its block
 *   size_t n = format_rows(u, count, text);                           // its lines
 *   if (!rc) rc = um_app_write_blocks(r, path, header, text, n, "field u"); // every rank: one file, one outcome
 * @endcode
 * Small whole arrays: `rc = um_dat_fetch(...); if (!rc && um_app_writes(r)) rc = write_file(...);
 * UM_APP_TRY(um_app_output_done(r, rc));` (every rank: one outcome). */
int um_app_writes(const um_app_run *run);
/** The path of output file `name` + `ext` (ext may be NULL) in output.dir into out (n bytes): UM_SUCCESS, or
 * UM_ERR_IO with the message set when it does not fit (never a truncated path: that would be another file). The
 * same outcome on every rank. */
int um_app_output_path(um_app_run *run, const char *name, const char *ext, char *out, size_t n);
/** The end of an output step (call it on every rank after the same step, with this rank's outcome): under mpirun
 * the ranks' outcomes are agreed, so that a write that failed on rank 0 (a full disk, a folder where the file
 * goes) fails the step on every rank at once, and none goes on to a gather or a loop the others never reach (it
 * would wait there until mpi.deadline_s). Returns rc where this rank failed, else UM_ERR_IO (or the other rank's
 * code) when another rank failed, with a message saying so; one process: rc. */
int um_app_output_done(um_app_run *run, int rc);
/** output.hdf5 where the run's context holds what to write (UM_SUCCESS and nothing without output.dir or
 * output.hdf5; call it on every rank), NAME being `name`: every set, map and dat in NAME.h5 (um_hdf5_write_mesh, by blocks) and
 * NAME.xmf, rank 0's, describing the cells of map `cell_map` over the nodes whose coordinates are dat `coords`
 * (coord_dim 2 or 3) with the cell-centred dats fields[0 .. nfields) of dims[i] components (um_xdmf_write); one
 * outcome on every rank (um_app_output_done), and the log names both files. */
int um_app_write_mesh_xdmf(um_app_run *run, const char *name, const char *coords, int coord_dim, const char *cell_map,
                           const char *const *fields, const int *dims, int nfields);
/** @name A NAME.h5 and its NAME.xmf, all or nothing
 * An app writing its own pair (by blocks: um/hdf5io.h, then um_xdmf_write) keeps the earlier NAME.h5 until the
 * NAME.xmf is written, as um_app_write_mesh_xdmf does, so that a failed .xmf leaves the earlier pair whole (or no
 * file where there was none), never a new .h5 beside an old or missing .xmf:
 * @code
 *   um_app_h5_pair pair;
 *   um_app_h5_pair_begin(r, h5, &pair);                         // every rank, before the .h5 is written
 *   int rc = um_hdf5_write_blocks(r->ctx, h5, ...);
 *   if (!rc && um_app_writes(r) && um_xdmf_write(xmf, ..., err, sizeof err))
 *     rc = um_app_h5_pair_end(r, &pair, err);                   // the earlier .h5 back, and the message says so
 *   else um_app_h5_pair_end(r, &pair, NULL);                    // whole (or the .h5 failed: the earlier one stays)
 *   UM_APP_TRY(um_app_output_done(r, rc));
 * @endcode
 * @{ */
/** What um_app_h5_pair_begin kept (the caller's, on its stack; read by um_app_h5_pair_end only). A step that may
 * fail before its .h5 (no path yet) starts from `{.state = -1, .slot = -1}`, nothing kept, which um_app_h5_pair_end
 * takes as it takes a pair begun. */
typedef struct {
  char target[4096]; /**< the .h5 (a symbolic link's target) */
  char keep[4200]; /**< its second name while kept: TARGET.old.PID (PID the process id) */
  char name[256]; /**< the .h5's file name, for the messages */
  int state; /**< 1: keep names the earlier .h5; 0: there was none; -1: not kept */
  int slot; /**< keep's entry in the signal handlers' list (um/safe_file.h), -1 when none */
} um_app_h5_pair;
/** Call before the .h5 at `h5` is written (on every rank; where um_app_writes is 0 it only fills pair): the file
 * there now gets a second name beside it, a hard link FILE.old.PID (PID the process id) that the signals that end
 * the run remove. Never fails; it keeps nothing (and the pair is then not all or nothing) where the path is a
 * dangling link, not a regular file, or too long, or where the file system makes no hard links. */
void um_app_h5_pair_begin(const um_app_run *run, const char *h5, um_app_h5_pair *pair);
/** Call once after the .xmf, on every rank (with NULL where um_app_writes is 0: nothing to do). xmf_err NULL (the
 * pair is written, or the .h5 failed and its writer left the earlier one): the second name goes; UM_SUCCESS.
 * xmf_err the .xmf's failure (um_xdmf_write's message, "cannot write 'out/x.xmf': ..."): the earlier .h5 is put
 * back under its name, or the new one removed where there was none, and the failure is recorded (um_app_fail) as
 * xmf_err followed by what the folder holds now ("; x.h5 is the earlier one again (the earlier pair stays whole)",
 * "; the new x.h5 was removed (no half pair is left)", or "; the new x.h5 stays, without its .xmf" where it could
 * do neither); UM_ERR_IO. */
int um_app_h5_pair_end(um_app_run *run, um_app_h5_pair *pair, const char *xmf_err);
/** @} */

/** A file written by blocks (call it on every rank, with this rank's part): rank 0 creates it (through a temporary
 * renamed into place, util/safe_file.h) and writes `head` (may be NULL) and its `n` bytes at `mine`, then ranks 1,
 * 2, ... append theirs, each in its turn (um_in_turn): the file one process writes from the whole, when each
 * rank's part is its block of the rows (um_dat_fetch_block, um_rows_to_blocks) formatted as the whole is. No rank
 * holds more than its block. Every rank returns one outcome (um_app_output_done). The ranks append to rank 0's
 * file: the output folder must be one every rank sees (one host, or a shared file system). `what` names the file
 * in messages ("field u"). Not distributed: rank 0 writes head and its part. */
int um_app_write_blocks(um_app_run *run, const char *path, const char *head, const void *mine, size_t n,
                        const char *what);
/** Writes row i of a text file at out (its line, '\n' included, in at most the max_row bytes given to
 * um_app_format_rows, plus the terminating zero sprintf writes) and returns its length. */
typedef size_t (*um_app_row_fn)(const void *data, size_t i, char *out);
/** Rows [0, n) of a text file formatted by row() on the host's threads (um_context_host_threads; one below 4096
 * rows), in order: the bytes row() gives one after the other, for um_app_write_blocks. Returns a malloc'ed
 * buffer of *len bytes and a terminating zero, or NULL when out of memory (its size: about n * max_row bytes, as
 * one buffer of the whole text). */
char *um_app_format_rows(const um_app_run *run, size_t n, size_t max_row, um_app_row_fn row, const void *data,
                         size_t *len);
/** The same for any step every rank takes where some ranks may fail alone (a block of a generated mesh that only
 * some ranks' blocks show to be bad): the ranks' outcomes agreed; where another rank failed, UM_ERR_* with
 * "another rank could not <step> (its message says why)". The ranks agree by messages of their own
 * (um_mpi_agree_step): a rank that stopped before the step (a deck only it could not read) waits in umrun's
 * agreement after the app, which this never matches, and its mpi.deadline_s there stops every rank with its message.
 * One process: rc. */
int um_app_agree(um_app_run *run, int rc, const char *step);
/** um_app_field: registers the file written for `name` (or replaces the path
 * of a name registered before); UM_ERR_ARG (message in the context) when the
 * table is full, the name is longer than 63 characters or the path than
 * UM_APP_FIELD_PATH_MAX - 1 (see um_app_field_dir). */
int um_app_field(um_app_run *run, const char *name, const char *path);

/** um_app_input: records a file the app read that no option names (a mesh its deck names, a mesh generated
 * under mesh.dir), so that the run's JSON lists it among its inputs with its SHA-256 (provenance: the files
 * an option names are listed without it). Each path once; past UM_APP_MAX_INPUTS files, or a longer path than
 * UM_APP_FIELD_PATH_MAX, it is not recorded (never an error). */
void um_app_input(um_app_run *run, const char *path);
/** Progress of a long run: prints `"\r[name] iteration i/n ..."` on stderr when run->progress. */
void um_app_progress(um_app_run *run, const char *what, long i, long n);
/** Erase the progress bar before printing a line to the log. */
void um_app_progress_clear(um_app_run *run);
/** The steady time per step after the first, from run_seconds, steps and first_step_seconds (set them first):
 * (run_seconds - first_step_seconds) / (steps - 1); run_seconds when there are fewer than two steps. The
 * results JSON's `step_seconds`. */
double um_app_step_seconds(const um_app_run *run);
/** The most steps the stall rule (um_step_check) lets a run's remaining steps
 * come to when dt has stopped growing. */
#define UM_APP_MAX_STEPS 100000000L
/** The stall rule of every time-stepping app (docs/reliability.md): call it
 * with each step's dt before taking the step from time t towards t_end.
 * Returns UM_SUCCESS, or UM_ERR_DIVERGED (umrun exits with status 2) with a
 * message naming the app, the step, t and dt when
 *   - dt is not a finite number > 0,
 *   - the step does not advance the time (t + dt == t in doubles), or
 *   - dt has stopped growing (dt <= prev_dt, the step before's; 0 at the
 *     first step) and the steps still needed to reach t_end at this dt,
 *     (t_end - t) / dt, would take the run past UM_APP_MAX_STEPS steps
 *     (unless max_steps > 0, the app's own step limit, ends it sooner). While
 *     dt grows (a run starting from a small dt_initial) it is not judged.
 *
 * um_step_check writes the message into err (for app code that has no
 * um_app_run). */
int um_step_check(const char *app, long step, double t, double dt, double prev_dt, double t_end, long max_steps,
                  char *err, size_t errlen);
/** The stall rule of um_step_check for an app's run: um_app_step_check writes
 * the message into the context (um_error_message). */
int um_app_step_check(um_app_run *run, const char *app, long step, double t, double dt, double prev_dt, double t_end,
                      long max_steps);

/** @name Checkpoints and restarts (docs/checkpoints.md)
 * An app's main loop, with checkpoints:
 * @code
 *   UM_APP_TRY(um_app_state(r, "t", &t, sizeof t));            // every value the next steps need but the dats
 *   UM_APP_TRY(um_app_state(r, "dt", &dt, sizeof dt));          // (time, dt, counters, histories, random state)
 *   long step = 0;
 *   UM_APP_TRY(um_app_resume(r, &step));                        // after the set-up; a restart resumes here
 *   for (; step < nsteps; ) {
 *     ... the step's loops ...
 *     step++;
 *     UM_APP_TRY(um_app_step_end_last(r, step, step == nsteps)); // a checkpoint when one is due
 *   }
 *   UM_APP_TRY(um_app_loop_done(r));                            // a restart that took no step: refused
 * @endcode
 * The runner's settings decide when (checkpoint.every, checkpoint.on_signal, checkpoint.stop_after) and whether
 * the run restarts (--restart): with none of them these calls cost nothing. The dats are the engine's business
 * (um/checkpoint.h: those the steps need, learnt from their loops); the app registers its own values. A restart
 * runs the app's set-up as usual (the mesh, the constants, the dats the steps never change), then um_app_resume
 * reads the dats and the values and gives the step to continue from.
 * @{ */
/** Register `bytes` bytes at data (valid until the run ends) as a value of the app's state, saved byte for byte in
 * each checkpoint and restored by um_app_resume on a restart. Call it before um_app_resume; a name again replaces
 * the entry. At most 32 values; a name without '/', under 64 bytes. */
int um_app_state(um_app_run *run, const char *name, void *data, size_t bytes);
/** The same for a value that grows as the run goes (a series the app appends to: gauges, a history): each
 * checkpoint saves the *bytes bytes at *data as they are then; a restart replaces *data by a block of the
 * checkpoint's size (realloc: *data must be NULL or malloc'd; the app frees it) holding the checkpoint's bytes,
 * and sets *bytes. data and bytes must stay valid until the run ends. */
int um_app_state_series(um_app_run *run, const char *name, void **data, size_t *bytes);
/** Call after the set-up, before the first step: on a restart, the checkpoint's dats and values are read (the
 * app, its physical settings and its mesh must be the checkpoint's, or it is UM_ERR_CONFIG naming what differs)
 * and *step is set to the step it was written at; the steps' record of what the loops do begins. *step is left
 * as it is when the run does not restart. */
int um_app_resume(um_app_run *run, long *step);
/** 1 when this run is to restart from a checkpoint (--restart): its set-up may leave out what the checkpoint
 * replaces anyway and must leave out what would undo work of the first run (outputs the set-up writes). */
int um_app_restarting(const um_app_run *run);
/** Call after each step with the number of steps done (from the start of the run, restarts included): writes a
 * checkpoint when one is due. Returns UM_SUCCESS, or UM_ERR_STOPPED (umrun exits with status 4) when the run is
 * to stop there (a signal, checkpoint.stop_after) after its checkpoint was written: return it (UM_APP_TRY). */
int um_app_step_end(um_app_run *run, long step);
/** um_app_step_end for a step after which the run ends whatever the runner says (last = 1: its step limit or end
 * time reached): a checkpoint due there is written (a later run may raise the limit and continue from it), and
 * neither a signal nor checkpoint.stop_after stops the run there: it ends as usual, with its outputs. last = 0 is
 * um_app_step_end. */
int um_app_step_end_last(um_app_run *run, long step, int last);
/** Call after the main loop, before the outputs and the final metrics: UM_ERR_CONFIG when the run restarted and
 * took no step (the checkpoint was written where this run ends: its outputs would hold the set-up's values of the
 * dats the checkpoint leaves out), naming the checkpoint and what to do. UM_SUCCESS otherwise. */
int um_app_loop_done(um_app_run *run);
/** 1 when this run may write checkpoints (checkpoint.every, .on_signal or .stop_after set, or a restart). */
int um_app_checkpointing(const um_app_run *run);
/** *due = 1 when um_app_step_end(run, step) will write a checkpoint (decided once per step, collectively): an app
 * that leaves work of a step pending into the next (a reduction read late, to overlap it) completes it first then,
 * so that the state the checkpoint saves is whole, and only then. */
int um_app_checkpoint_due(um_app_run *run, long step, int *due);
/** @} */

/** Record an app's error in the context (um_error_message) and return code. */
int um_app_fail(um_app_run *run, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
