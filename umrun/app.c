#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "um/app.h"
#include <sys/stat.h>
#include <unistd.h>
#include "um/reorder.h"
#include "um/hdf5io.h"
#include "um/safe_file.h"
#include "options.h"
#include "runner.h"

/* A runner option read by the frame: its message (a bad value: UM_ERR_CONFIG) into the run's error. */
#define OPT(call)                                                        \
  do {                                                                   \
    char err_[512] = "";                                                 \
    const int rc_ = (call);                                              \
    if (rc_) return um_app_fail(run, rc_ == UM_ERR_INTERNAL ? rc_ : UM_ERR_CONFIG, "%s", err_); \
  } while (0)
#define E err_, sizeof err_

#define UM_PER_LOOP_MAX 64
/* The loop names of a per-loop mapping (mpi.loops, split, variant; at most UM_PER_LOOP_MAX): *n = 0 where the
 * config has none; one that is not a mapping: UM_ERR_CONFIG, saying what it should be (what). */
static int per_loop_names(um_app_run *run, const char *mapping, const char *what, const char **names, int *n) {
  char err[512] = "";
  um_config_kind_t kind = UM_CONFIG_ABSENT;
  *n = 0;
  OPT(umrun_opt_kind(run->cfg, mapping, &kind, E));
  if (kind == UM_CONFIG_ABSENT) return UM_SUCCESS;
  if (um_config_keys(run->cfg, mapping, n, names, UM_PER_LOOP_MAX, err, sizeof err))
    return um_app_fail(run, UM_ERR_CONFIG, "%s: %s (%s)", mapping, err, what);
  if (*n > UM_PER_LOOP_MAX) *n = UM_PER_LOOP_MAX;
  return UM_SUCCESS;
}

/* The divergence check of the app frame: a metric that is NaN or infinite is
 * recorded (written as null in JSON) and stops the run (UM_ERR_DIVERGED, exit
 * status 2), so a diverged run never reports success. */
static int metric_check(um_app_run *run, const char *name, double value) {
  if (isfinite(value)) return UM_SUCCESS;
  return um_app_fail(run, UM_ERR_DIVERGED,
                     "metric '%s' is %g: the run diverged (or the app computed a non-finite result); a non-finite "
                     "metric is never reported as a result",
                     name, value);
}

int um_app_metric(um_app_run *run, const char *name, double value) {
  for (int i = 0; i < run->nmetrics; i++)
    if (strcmp(run->metric_names[i], name) == 0) {
      run->metric_values[i] = value;
      return metric_check(run, name, value);
    }
  if (run->nmetrics >= UM_APP_MAX_METRICS || strlen(name) >= sizeof run->metric_names[0])
    return um_app_fail(run, UM_ERR_ARG, "metric '%s': too many metrics or name too long", name);
  snprintf(run->metric_names[run->nmetrics], sizeof run->metric_names[0], "%s", name);
  run->metric_values[run->nmetrics++] = value;
  return metric_check(run, name, value);
}

const char *um_app_field_dir(const um_app_run *run) {
  if (run->output_dir && *run->output_dir) return run->output_dir;
  return run->field_dir && *run->field_dir ? run->field_dir : NULL;
}

int um_app_wants_field(const um_app_run *run, const char *name) {
  if (!name || !um_app_field_dir(run)) return 0;
  if (run->output_dir && *run->output_dir) return 1;
  for (int i = 0; i < run->nwanted_fields; i++)
    if (run->wanted_fields && run->wanted_fields[i] && strcmp(run->wanted_fields[i], name) == 0) return 1;
  return 0;
}

int um_app_writes(const um_app_run *run) {
  (void)run;
  return um_mpi_rank() == 0;
}

int um_app_output_path(um_app_run *run, const char *name, const char *ext, char *out, size_t n) {
  const char *dir = run->output_dir && *run->output_dir ? run->output_dir : ".";
  const int len = snprintf(out, n, "%s/%s%s", dir, name, ext ? ext : "");
  if (len >= 0 && (size_t)len < n) return UM_SUCCESS;
  return um_app_fail(run, UM_ERR_IO, "output.dir %s: the path of its file '%s%s' is longer than %zu bytes: give a "
                     "shorter output.dir", dir, name, ext ? ext : "", n - 1);
}

int um_app_output_done(um_app_run *run, int rc) {
  if (um_mpi_size() < 2) return rc;
  const int all = um_mpi_agree(rc, -1); /* every rank is at this step: no deadline needed */
  if (rc || !all) return rc;
  run->failed_elsewhere = 1;
  return um_app_fail(run, all > 0 ? all : UM_ERR_BACKEND, "another rank could not finish an output step (its "
                     "message says why); rank %d of %d stops with it", um_mpi_rank(), um_mpi_size());
}

/* NAME.h5 and NAME.xmf all or nothing (um/app.h, rank 0): the .h5 there now (a symbolic link's target) gets a second
 * name, "<file>.old.<pid>", which the signals that end the run remove; pair->state 1: keep names it; 0: there was
 * none; -1: it could not be kept (a dangling link, a device, no hard links here, a path too long; not this rank's). */
void um_app_h5_pair_begin(const um_app_run *run, const char *h5, um_app_h5_pair *pair) {
  struct stat st;
  const char *base = strrchr(h5, '/');
  pair->state = -1;
  pair->slot = -1;
  pair->keep[0] = '\0';
  snprintf(pair->name, sizeof pair->name, "%s", base ? base + 1 : h5);
  snprintf(pair->target, sizeof pair->target, "%s", h5);
  if (!um_app_writes(run)) return;
  if (lstat(h5, &st) != 0) {
    pair->state = errno == ENOENT ? 0 : -1;
    return;
  }
  if (!realpath(h5, pair->target) || stat(pair->target, &st) != 0 || !S_ISREG(st.st_mode) ||
      snprintf(pair->keep, sizeof pair->keep, "%s.old.%ld", pair->target, (long)getpid()) >= (int)sizeof pair->keep)
    return;
  unlink(pair->keep); /* a killed run's of this pid */
  if (link(pair->target, pair->keep) != 0) return;
  pair->state = 1;
  pair->slot = um_safe_file_register(pair->keep);
}

int um_app_h5_pair_end(um_app_run *run, um_app_h5_pair *pair, const char *xmf_err) {
  int s = pair->state; /* what the folder holds after it: as begin's states */
  if (!xmf_err) {
    if (pair->state == 1) unlink(pair->keep);
  } else if (pair->state == 1 && rename(pair->keep, pair->target) != 0) {
    s = -1;
    unlink(pair->keep);
  } else if (pair->state == 0 && unlink(pair->target) != 0) {
    s = -1;
  }
  um_safe_file_unregister(pair->slot);
  pair->state = -1;
  pair->slot = -1;
  if (!xmf_err) return UM_SUCCESS;
  if (s == 1)
    return um_app_fail(run, UM_ERR_IO, "%s; %s is the earlier one again (the earlier pair stays whole)", xmf_err,
                       pair->name);
  if (s == 0)
    return um_app_fail(run, UM_ERR_IO, "%s; the new %s was removed (no half pair is left)", xmf_err, pair->name);
  return um_app_fail(run, UM_ERR_IO, "%s; the new %s stays, without its .xmf", xmf_err, pair->name);
}

int um_app_write_mesh_xdmf(um_app_run *run, const char *name, const char *coords, int coord_dim, const char *cell_map,
                           const char *const *fields, const int *dims, int nfields) {
  if (!run->output_dir || !*run->output_dir || !run->write_hdf5) return UM_SUCCESS;
  char h5[4096], xmf[4096], h5_name[256], err[1024];
  const um_map *m = um_find_map(run->ctx, cell_map);
  if (!m) return um_app_fail(run, UM_ERR_INTERNAL, "%s.xmf: no map named %s (a bug in the app)", name, cell_map);
  UM_APP_TRY(um_app_output_path(run, name, ".h5", h5, sizeof h5));
  UM_APP_TRY(um_app_output_path(run, name, ".xmf", xmf, sizeof xmf));
  um_app_h5_pair pair; /* the pair all or nothing (rank 0's files) */
  um_app_h5_pair_begin(run, h5, &pair);
  int rc = um_hdf5_write_mesh(run->ctx, h5);
  snprintf(h5_name, sizeof h5_name, "%s.h5", name);
  const um_set *cells = um_map_from(m), *nodes = um_map_to(m);
  if (!rc && um_app_writes(run) && /* the HDF5 writer agrees across the ranks; the XDMF file is rank 0's */
      um_xdmf_write(xmf, h5_name, coords, um_set_gsize(nodes), coord_dim, cell_map, um_set_gsize(cells),
                    um_map_arity(m), fields, dims, nfields, err, sizeof err))
    rc = um_app_h5_pair_end(run, &pair, err);
  else
    um_app_h5_pair_end(run, &pair, NULL); /* written, or the .h5 failed (and stayed as it was) */
  UM_APP_TRY(um_app_output_done(run, rc));
  fprintf(run->log, "%s: wrote %s and %s (open the .xmf in ParaView or VisIt)\n", name, h5, xmf);
  return UM_SUCCESS;
}

int um_app_agree(um_app_run *run, int rc, const char *step) {
  if (um_mpi_size() < 2) return rc;
  /* by messages of its own, never matching the collective a rank that stopped before this step waits in (umrun's
   * agreement after the app): that rank's mpi.deadline_s there stops every rank, with its own message; a slow rank
   * (rank 0 reading a large mesh alone) is waited for */
  const int all = um_mpi_agree_step(rc, -1);
  if (all < 0) {
    um_app_progress_clear(run);
    fprintf(stderr, "umrun: rank %d of %d: MPI failed agreeing on the step '%s'; stopping every rank\n", um_mpi_rank(),
            um_mpi_size(), step);
    um_mpi_abort(2);
  }
  if (rc || !all) return rc;
  run->failed_elsewhere = 1;
  return um_app_fail(run, all > 0 ? all : UM_ERR_BACKEND, "another rank could not %s (its message says why); rank %d "
                     "of %d stops with it", step, um_mpi_rank(), um_mpi_size());
}

int um_app_field(um_app_run *run, const char *name, const char *path) {
  if (!name || !path) return um_app_fail(run, UM_ERR_ARG, "um_app_field: NULL %s", name ? "path" : "name");
  if (strlen(name) >= sizeof run->field_names[0])
    return um_app_fail(run, UM_ERR_ARG, "field '%s': name too long (at most %d characters)", name,
                       (int)sizeof run->field_names[0] - 1);
  if (strlen(path) >= sizeof run->field_paths[0])
    return um_app_fail(run, UM_ERR_ARG, "field '%s': path too long (at most %d characters): %.200s...", name,
                       (int)sizeof run->field_paths[0] - 1, path);
  int i = 0;
  while (i < run->nfields && strcmp(run->field_names[i], name) != 0) i++;
  if (i == run->nfields) {
    if (run->nfields >= UM_APP_MAX_FIELDS)
      return um_app_fail(run, UM_ERR_ARG, "field '%s': too many field files (at most %d per run)", name,
                         UM_APP_MAX_FIELDS);
    run->nfields++;
  }
  snprintf(run->field_names[i], sizeof run->field_names[0], "%s", name);
  snprintf(run->field_paths[i], sizeof run->field_paths[0], "%s", path);
  return UM_SUCCESS;
}

/* TERM=dumb: no erase-line escape (blanks over what a longer line left instead) */
static int dumb_terminal(void) {
  const char *term = getenv("TERM");
  return term && !strcmp(term, "dumb");
}

/* the progress line taken away, the cursor at its start */
static void erase_line(void) {
  fputs(dumb_terminal() ? "\r                                                                               \r"
                        : "\r\033[K",
        stderr);
}

void um_app_progress(um_app_run *run, const char *what, long i, long n) {
  if (!run->progress || n <= 0) return;
  double now = um_wtime();
  if (i < n && now - run->last_progress < 0.1) return; /* at most 10 redraws a second */
  run->last_progress = now;
  int width = 30, done = (int)((double)width * (double)i / (double)n);
  fprintf(stderr, "\r%s [", what);
  for (int k = 0; k < width; k++) fputc(k < done ? '#' : '.', stderr);
  double elapsed = now - run->t_start;
  fprintf(stderr, "] %ld/%ld  %.0f s", i, n, elapsed);
  if (i > 0 && i < n) fprintf(stderr, ", about %.0f s to go", elapsed * (double)(n - i) / (double)i);
  fputs(dumb_terminal() ? "            " : "\033[K", stderr);
  if (i >= n) erase_line();
  fflush(stderr);
}

int um_app_fail(um_app_run *run, int code, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return um_error_set(run->ctx, code, "%s", msg);
}

int um_step_check(const char *app, long step, double t, double dt, double prev_dt, double t_end, long max_steps,
                  char *err, size_t errlen) {
  const char *hint = "check the time step settings (CFL number, dt_initial / dt_min / dt_max) and the end time";
  if (!(dt > 0) || !isfinite(dt))
    return um_format_error(err, errlen, UM_ERR_DIVERGED, "%s: step %ld at t = %.17g: dt = %.17g is not a finite time "
                           "step > 0; %s", app, step, t, dt, hint);
  if (t + dt == t)
    return um_format_error(err, errlen, UM_ERR_DIVERGED, "%s: step %ld at t = %.17g with dt = %.17g does not advance "
                           "the time (t + dt == t): the run would never reach its end time %.17g; %s",
                           app, step, t, dt, t_end, hint);
  const double left = (t_end - t) / dt; /* steps still needed */
  if (prev_dt > 0 && dt <= prev_dt && left > (double)UM_APP_MAX_STEPS &&
      !(max_steps > 0 && max_steps - step < UM_APP_MAX_STEPS))
    return um_format_error(err, errlen, UM_ERR_DIVERGED, "%s: step %ld at t = %.17g with dt = %.17g: reaching the end "
                           "time %.17g would take %.3g more steps, more than %ld (UM_APP_MAX_STEPS); %s",
                           app, step, t, dt, t_end, left, UM_APP_MAX_STEPS, hint);
  return UM_SUCCESS;
}

int um_app_step_check(um_app_run *run, const char *app, long step, double t, double dt, double prev_dt, double t_end,
                      long max_steps) {
  char msg[1024];
  int rc = um_step_check(app, step, t, dt, prev_dt, t_end, max_steps, msg, sizeof msg);
  return rc ? um_error_set(run->ctx, rc, "%s", msg) : UM_SUCCESS;
}

double um_app_step_seconds(const um_app_run *run) {
  return run->steps > 1 ? (run->run_seconds - run->first_step_seconds) / (double)(run->steps - 1) : run->run_seconds;
}

void um_app_progress_clear(um_app_run *run) {
  if (!run->progress) return;
  erase_line();
  fflush(stderr);
}


static int reorder(um_app_run *run, const char *default_map);

/* One process (not under mpirun with several ranks): mpi.partition_set must still name a set of the app (a
 * misspelt one is refused, as on several ranks), and mpi.* settings are said to do nothing here. */
static int one_process(um_app_run *run, const char *pset) {
  if (pset && *pset && !um_find_set(run->ctx, pset)) {
    char list[512] = "";
    for (int i = 0; i < um_set_count(run->ctx); i++) {
      const size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", um_set_name(um_set_at(run->ctx, i)));
    }
    return um_app_fail(run, UM_ERR_CONFIG, "mpi.partition_set: no set named '%s'; this app has: %s", pset, list);
  }
  const um_option *o = umrun_opt_first_set(run->cfg, UM_OPT_NEEDS_MPI);
  if (!o) return UM_SUCCESS;
  const char *lt = strstr(o->key, ".<"); /* "mpi.loops.<loop>": the mapping mpi.loops */
  const int n = lt ? (int)(lt - o->key) : (int)strlen(o->key);
  fprintf(run->log, "note: %.*s is set, but this run is one process: the mpi.* settings apply under mpirun -np P "
                    "(P > 1), and nothing is partitioned here\n", n, o->key);
  return UM_SUCCESS;
}

/* After the reordering, the mesh is spread over the MPI ranks (when there are
 * several): mpi.partition_set (default: the set the app's main map points
 * into), mpi.partitioner (auto | ptscotch | rcb | sfc | metis | block | ranges; ptscotch in builds with PT-Scotch: the
 * engine says so); mpi.partition_budget_s and mpi.partition_coords are context settings. The log line carries the
 * partition's note: which partitioner was used and why. */
static int distribute(um_app_run *run, const char *default_map) {
  const char *pset = NULL, *method = NULL;
  if (umrun_opt_first_set(run->cfg, UM_OPT_NEEDS_MPI) && !um_mpi_built())
    return um_app_fail(run, UM_ERR_CONFIG,
                       "the config sets mpi.* keys, but this build has no MPI: install libopenmpi-dev and openmpi-bin "
                       "(scripts/install-deps.sh) and configure again, or remove the mpi keys");
  OPT(umrun_opt_choice(run->cfg, "mpi.partitioner", NULL, &method, E));
  OPT(umrun_opt_string(run->cfg, "mpi.partition_set", &pset, E));
  /* increments into other ranks' elements: mpi.increments, and per loop mpi.loops.<loop>: redundant|reverse|auto
   * (the choices in um_increments' order) */
  /* mpi.increments, mpi.gpu_transport, mpi.gpu_transport_min_bytes: context settings, each applied by its
   * declaration (engine/src/distributed/dist_options.c) */
  OPT(umrun_apply_engine_options(run->cfg, NULL, run->ctx, "mpi.", E));
  int nl = 0;
  const char *loops[UM_PER_LOOP_MAX];
  UM_APP_TRY(per_loop_names(run, "mpi.loops", "a mapping, e.g. {res_calc: reverse}", loops, &nl));
  for (int i = 0; i < nl; i++) {
    char key[160];
    int m = 0;
    snprintf(key, sizeof key, "mpi.loops.%s", loops[i]);
    OPT(umrun_opt_choice(run->cfg, key, &m, NULL, E));
    UM_APP_TRY(um_loop_set_increments(run->ctx, loops[i], (um_increments)m));
  }
  if (um_mpi_size() < 2) return one_process(run, pset);
  const um_map *main_map = default_map ? um_find_map(run->ctx, default_map) : NULL;
  if (!pset && main_map) pset = um_set_name(um_map_to(main_map));
  UM_APP_TRY(um_distribute(run->ctx, pset, method));
  um_partition_info pi;
  if (um_partition_info_get(run->ctx, &pi) != UM_SUCCESS) return UM_SUCCESS;
  char cut[32] = "not computed";
  if (pi.edge_cut >= 0) snprintf(cut, sizeof cut, "%ld", pi.edge_cut);
  fprintf(run->log, "mpi: %d ranks; set '%s' partitioned by %s in %.2f s: edge cut %s, imbalance %.3f%s%s\n",
          pi.nranks, pi.primary, pi.partitioner, pi.seconds, cut, pi.imbalance, pi.note[0] ? "; " : "", pi.note);
  fprintf(run->log, "mpi: distributed in %.2f s: partition %.2f s, migration and halos %.2f s, transport %.2f s\n",
          pi.seconds, pi.partition_seconds, pi.migrate_seconds, pi.transport_seconds);
  fprintf(run->log, "mpi: halos %s (%s)\n", !strcmp(pi.transport, "host") ? "through host memory" : pi.transport,
          pi.transport_note);
  for (int i = 0; i < um_set_count(run->ctx); i++) {
    const um_set *s = um_set_at(run->ctx, i);
    int lo = -1, hi = 0;
    long long ex = 0, ne = 0; /* over every rank */
    for (int q = 0; q < pi.nranks; q++) {
      int o = 0, e = 0, n = 0;
      um_set_partition(s, q, &o, &e, &n);
      lo = lo < 0 || o < lo ? o : lo;
      hi = o > hi ? o : hi;
      ex += e;
      ne += n;
    }
    fprintf(run->log, "  %-14s %9lld elements: %d..%d owned per rank, halo %lld exec + %lld non-exec in all\n",
            um_set_name(s), um_set_gsize(s), lo, hi, ex, ne);
  }
  return UM_SUCCESS;
}

/* After a run: each per-loop key (mpi.loops.<loop>, block_size.<loop>, split.<loop>, variant.<loop>) whose loop
 * never ran, a misspelt loop name most likely, warned on `f` naming the key and the loops that ran (they are
 * known only once they ran). Returns the number warned. */
int umrun_warn_loop_keys(um_app_run *run, FILE *f) {
  static const char *const mappings[] = {"mpi.loops", "block_size", "split", "variant"};
  char ran[2048] = "";
  size_t len = 0;
  um_loop_stats ls;
  for (int i = 0; i < um_loop_stats_count(run->ctx); i++)
    if (um_loop_stats_get(run->ctx, i, &ls) == UM_SUCCESS && ls.calls > 0 && !strchr(ls.name, ':') &&
        len < sizeof ran) /* the app's loops, not those a split generates ("res_calc:contrib") */
      len += (size_t)snprintf(ran + len, sizeof ran - len, "%s%s", len ? ", " : "", ls.name);
  int nwarned = 0;
  for (size_t m = 0; m < sizeof mappings / sizeof mappings[0]; m++) {
    int n = 0;
    const char *names[UM_PER_LOOP_MAX];
    if (per_loop_names(run, mappings[m], "", names, &n)) {
      um_error_clear(run->ctx);
      continue;
    }
    for (int k = 0; k < n; k++) {
      int found = 0;
      for (int i = 0; !found && i < um_loop_stats_count(run->ctx); i++)
        found = um_loop_stats_get(run->ctx, i, &ls) == UM_SUCCESS && ls.calls > 0 && !strcmp(ls.name, names[k]);
      if (found) continue;
      fprintf(f, "warning: %s.%s: no loop named '%s' ran (a misspelt name, or a loop these settings do not run), so "
                 "this setting was not used; the loops of this run are: %s\n", mappings[m], names[k], names[k],
              *ran ? ran : "none");
      nwarned++;
    }
  }
  return nwarned;
}

/* One unread key into the message (or onto stderr as a warning). */
typedef struct {
  char msg[2048];
  size_t len;
  int n;
  FILE *warn;
} unread_keys;

static int one_unread(const char *key, const char *origin, const char *suggestion, void *user) {
  unread_keys *u = user;
  char line[640];
  snprintf(line, sizeof line, "'%.200s' (from %.200s%s%.200s%s)", key, origin, suggestion ? "; did you mean '" : "",
           suggestion ? suggestion : "", suggestion ? "'?" : "");
  if (u->warn) fprintf(u->warn, "warning: unknown config key %s; it is ignored\n", line);
  else if (u->len < sizeof u->msg)
    u->len += (size_t)snprintf(u->msg + u->len, sizeof u->msg - u->len, "%s%s", u->n ? "; " : "", line);
  u->n++;
  return 0;
}

/* Before the first loop: a key nobody read is a misspelling or a key of another
 * app; running on with its default would answer a question nobody asked. */
static int check_unread(um_app_run *run) {
  if (run->unknown_keys == UM_APP_KEYS_UNCHECKED || !run->cfg) return UM_SUCCESS;
  run->unknown_keys_checked = 1;
  unread_keys u;
  memset(&u, 0, sizeof u);
  if (run->unknown_keys == UM_APP_KEYS_WARN) {
    u.warn = stderr;
    um_app_progress_clear(run);
  }
  um_config_unread(run->cfg, one_unread, &u);
  if (!u.n || u.warn) return UM_SUCCESS;
  return um_app_fail(run, UM_ERR_CONFIG,
                     "unknown config key%s %s: nothing in this run reads %s. Correct the spelling (umrun --help and "
                     "umrun --list-apps list the keys), remove %s, or set run.unknown_keys=warn to run anyway",
                     u.n > 1 ? "s" : "", u.msg, u.n > 1 ? "them" : "it", u.n > 1 ? "them" : "it");
}

/* Automatic loop splitting: run.split (auto | off | on | scatter | gather | fused; on is gather), per loop
 * split: {res_calc: on}, run.reproducible; and per-loop tuning, run.tune. */
static um_split split_mode(int m) { return m == 4 ? UM_SPLIT_GATHER : m == 5 ? UM_SPLIT_FUSED : (um_split)m; }

/* block_size.<loop>: run.block_size for one loop (um_loop_set_block_size) */
static int loop_block_sizes(um_app_run *run) {
  int n = 0;
  const char *names[UM_PER_LOOP_MAX];
  UM_APP_TRY(per_loop_names(run, "block_size",
                            "a mapping from loop names to block sizes, e.g. block_size: {getforce: 128}", names, &n));
  for (int i = 0; i < n; i++) {
    char key[160];
    int b = 0;
    snprintf(key, sizeof key, "block_size.%s", names[i]);
    OPT(umrun_opt_int(run->cfg, key, &b, E));
    UM_APP_TRY(um_loop_set_block_size(run->ctx, names[i], b));
  }
  return UM_SUCCESS;
}

/* variant.<loop>: the backend's kernel variant of one loop (um_loop_set_variant); a backend with no variants (the
 * CPU backends: a config tuned on a GPU runs there): a note; one out of a backend's range: an error */
static int loop_variants(um_app_run *run) {
  int n = 0;
  const char *names[UM_PER_LOOP_MAX];
  UM_APP_TRY(per_loop_names(run, "variant",
                            "a mapping from loop names to the backend's kernel variant, e.g. variant: "
                            "{volume_force: 2}",
                            names, &n));
  for (int i = 0; i < n; i++) {
    char key[160];
    int v = 0;
    snprintf(key, sizeof key, "variant.%s", names[i]);
    OPT(umrun_opt_int(run->cfg, key, &v, E));
    if (!um_backend_variant_name(run->ctx, v)) {
      char list[400] = "", org[200] = "";
      int nv = 0; /* the backend's variants, its default counted: 1 where it has none besides */
      for (const char *name; (name = um_backend_variant_name(run->ctx, nv)) != NULL; nv++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d: %s", nv ? "; " : "", nv, name);
      if (nv > 1) {
        um_config_origin(run->cfg, key, org, sizeof org);
        return um_app_fail(run, UM_ERR_CONFIG,
                           "%s = %d (%s): the %s backend's kernel variants are 0 to %d (%s); set one of them, or "
                           "leave the key out (run.tune: once keeps the fastest)",
                           key, v, org, um_context_backend(run->ctx), nv - 1, list);
      }
      fprintf(run->log, "note: %s = %d: the %s backend has no such kernel variant; the loop runs its default\n", key,
              v, um_context_backend(run->ctx));
      continue;
    }
    UM_APP_TRY(um_loop_set_variant(run->ctx, names[i], v));
  }
  return UM_SUCCESS;
}

static int split_options(um_app_run *run) {
  /* run.split, run.reproducible (transform/split.c), run.tune (tune/tune.c): context settings, each applied by its
   * declaration */
  OPT(umrun_apply_engine_options(run->cfg, NULL, run->ctx, "run.", E));
  UM_APP_TRY(loop_variants(run));
  UM_APP_TRY(loop_block_sizes(run));
  int n = 0;
  const char *names[UM_PER_LOOP_MAX];
  UM_APP_TRY(per_loop_names(run, "split",
                            "a mapping from loop names to off | on | scatter | gather | fused | auto, e.g. split: "
                            "{res_calc: on}",
                            names, &n));
  for (int i = 0; i < n; i++) {
    char key[160];
    int m = 3; /* the choices: um_split's order to auto, then on (gather), then fused */
    snprintf(key, sizeof key, "split.%s", names[i]);
    OPT(umrun_opt_choice(run->cfg, key, &m, NULL, E));
    UM_APP_TRY(um_loop_set_split(run->ctx, names[i], split_mode(m)));
  }
  return UM_SUCCESS;
}

/* run.prefetch: the data on the device before the run starts (um_prefetch), once it has its final order and place */
static int prefetch(um_app_run *run) {
  int on = 1;
  OPT(umrun_opt_bool(run->cfg, "run.prefetch", &on, E));
  if (!on) return UM_SUCCESS;
  const double t0 = um_wtime();
  UM_APP_TRY(um_prefetch(run->ctx, &run->prefetch_bytes));
  run->prefetch_seconds = um_wtime() - t0;
  return UM_SUCCESS;
}

double um_app_setup_done(um_app_run *run, double t0) {
  const double window = um_setup_stop(run->ctx); /* 0: no window (a caller other than umrun) */
  run->setup_seconds = window > 0 ? window : um_wtime() - t0;
  return um_wtime();
}

int um_app_by_blocks(um_app_run *run, int *blocks) {
  int whole = 0, reorder_m = 0;
  const char *reorder_name = NULL;
  *blocks = 0;
  OPT(umrun_opt_choice(run->cfg, "mpi.mesh", &whole, NULL, E));
  if (whole || um_mpi_size() < 2) return UM_SUCCESS;
  OPT(umrun_opt_choice(run->cfg, "run.reorder", &reorder_m, &reorder_name, E));
  if (reorder_m)
    return um_app_fail(run, UM_ERR_CONFIG,
                       "run.reorder: %s renumbers the whole mesh, and under mpirun each rank declares only its block "
                       "of it (mpi.mesh: blocks, the default): set mpi.mesh: whole to reorder (every rank then holds "
                       "the whole mesh while it is declared), or drop run.reorder",
                       reorder_name);
  *blocks = 1;
  return UM_SUCCESS;
}

int um_app_rows32(um_app_run *run, int *rows32) {
  const char *method = NULL;
  *rows32 = 0;
  OPT(umrun_opt_choice(run->cfg, "mpi.partitioner", NULL, &method, E));
  *rows32 = um_mpi_size() > 1 && method && !strcmp(method, "ranges");
  return UM_SUCCESS;
}

int um_app_block(um_app_run *run, long long gsize, long long *begin, int *count) {
  if (um_block_range(gsize, um_mpi_rank(), um_mpi_size(), begin, count) != UM_SUCCESS)
    return um_app_fail(run, UM_ERR_ARG, "a set of %lld elements has blocks of over %d elements on %d ranks: run on more "
                                        "ranks", gsize, 2147483647, um_mpi_size());
  return UM_SUCCESS;
}

void um_app_whole_note(um_app_run *run, const char *why) {
  if (um_mpi_size() < 2) return;
  fprintf(run->log, "note: mpi.mesh is blocks, but %s: every rank declares the whole mesh (each holds all of it "
                    "until it is distributed)\n", why);
}

int um_app_prepare(um_app_run *run, const char *default_map) {
  um_setup_begin(run->ctx, UM_SETUP_OTHER); /* the mesh is read or generated: the rest of the set-up is not */
  UM_APP_TRY(reorder(run, default_map));
  UM_APP_TRY(distribute(run, default_map));
  UM_APP_TRY(split_options(run));
  UM_APP_TRY(prefetch(run));
  return check_unread(run);
}

static int reorder(um_app_run *run, const char *default_map) {
  int m, bs;
  const char *name, *map_name, *file;
  OPT(umrun_opt_choice(run->cfg, "run.reorder", &m, &name, E));
  OPT(umrun_opt_string(run->cfg, "run.reorder_map", &map_name, E));
  OPT(umrun_opt_string(run->cfg, "run.reorder_file", &file, E));
  OPT(umrun_opt_int(run->cfg, "run.block_size", &bs, E));
  if (!map_name) map_name = default_map; /* the table's default: the app's main indirect map */
  if (m == 0) return UM_SUCCESS;
  um_reorder_method method;
  int rc = um_reorder_method_parse(name, &method);
  if (rc) return um_app_fail(run, rc, "run.reorder: unknown method '%s'", name);
  um_map *map = map_name ? um_find_map(run->ctx, map_name) : NULL;
  if (!map) {
    char list[256] = "";
    for (int i = 0; i < um_map_count(run->ctx); i++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", um_map_name(um_map_at(run->ctx, i)));
    }
    return um_app_fail(run, UM_ERR_CONFIG, "run.reorder_map: no map named '%s'; this app has: %s",
                       map_name ? map_name : "(none)", list);
  }
  double t0 = um_wtime();
  um_reorder_stats st;
  memset(&st, 0, sizeof st);
  um_reordering *r = NULL;
  struct stat sb;
  int loaded = 0;
  if (file && stat(file, &sb) == 0) {
    rc = um_reordering_load(run->ctx, file, &r, &st);
    /* a reordering file that does not match this mesh, or is not one, is the user's input: a config error */
    if (rc && rc != UM_ERR_ALLOC)
      return um_app_fail(run, UM_ERR_CONFIG, "run.reorder_file: %s", um_error_message(run->ctx));
    if (rc) return rc;
    if (um_reordering_method(r) != method || strcmp(um_reordering_map(r), map_name) != 0) {
      int code = um_app_fail(run, UM_ERR_CONFIG,
                             "run.reorder_file %s holds a %s reordering on map '%s', but the config asks for %s on "
                             "'%s'; delete the file or point run.reorder_file elsewhere",
                             file, um_reorder_method_name(um_reordering_method(r)), um_reordering_map(r),
                             name, map_name);
      um_reordering_free(&r);
      return code;
    }
    loaded = 1;
  } else {
    um_reorder_options o;
    um_reorder_options_default(&o);
    o.block_size = bs;
    rc = um_reorder_compute(run->ctx, method, map, &o, &r, &st);
    if (rc) return rc;
    if (file && (rc = um_reordering_save(run->ctx, r, file, &st)) != UM_SUCCESS) {
      um_reordering_free(&r);
      return rc;
    }
  }
  rc = um_reorder_apply(run->ctx, r, &st);
  um_reordering_free(&r);
  if (rc) return rc;
  run->reorder_seconds = um_wtime() - t0;
  fprintf(run->log, "reorder: %s on map '%s' %s in %.2f s (compute %.2f s, apply %.2f s, file %.2f s)", name,
          map_name, loaded ? "loaded from file" : "computed", run->reorder_seconds, st.compute_seconds,
          st.apply_seconds, st.io_seconds);
  if (method == UM_REORDER_PARTITION && !loaded)
    fprintf(run->log, "; %d parts of at most %d elements, edge cut %ld", st.nparts, st.max_part_size, st.edgecut);
  fputc('\n', run->log);
  return UM_SUCCESS;
}

/* ---- the app's options: reads from its declaration table (um_app.options) ------------------ */

/* Runs a read of the options module within the app's table; a failure's message goes to the context. */
#define APP_READ(run, key, call)                                                                                \
  do {                                                                                                          \
    if (!(run)->app)                                                                                            \
      return um_app_fail(run, UM_ERR_INTERNAL,                                                                  \
                         "internal error: reading the option '%s' with run->app unset (the runner sets it to "  \
                         "the app being run; a test calling app->run must too)",                               \
                         key);                                                                                  \
    char err_[1024] = "";                                                                                       \
    const int rc_ = (call);                                                                                     \
    return rc_ ? um_app_fail(run, rc_, "%s", err_) : UM_SUCCESS;                                                \
  } while (0)

int um_app_string(um_app_run *run, const char *key, const char **out) {
  APP_READ(run, key, umrun_app_opt_string(run->app, run->cfg, key, out, err_, sizeof err_));
}
int um_app_int(um_app_run *run, const char *key, int *out) {
  APP_READ(run, key, umrun_app_opt_int(run->app, run->cfg, key, out, err_, sizeof err_));
}
int um_app_long(um_app_run *run, const char *key, long long *out) {
  APP_READ(run, key, umrun_app_opt_long(run->app, run->cfg, key, out, err_, sizeof err_));
}
int um_app_double(um_app_run *run, const char *key, double *out) {
  APP_READ(run, key, umrun_app_opt_double(run->app, run->cfg, key, out, err_, sizeof err_));
}
int um_app_bool(um_app_run *run, const char *key, int *out) {
  APP_READ(run, key, umrun_app_opt_bool(run->app, run->cfg, key, out, err_, sizeof err_));
}
int um_app_choice(um_app_run *run, const char *key, int *index, const char **name) {
  APP_READ(run, key, umrun_app_opt_choice(run->app, run->cfg, key, index, name, err_, sizeof err_));
}
static int kind_present(const um_app *app, um_config *cfg, const char *key, int *present, char *err, size_t len) {
  um_config_kind_t kind = UM_CONFIG_ABSENT;
  const int rc = umrun_app_opt_kind(app, cfg, key, &kind, err, len);
  if (!rc) *present = kind != UM_CONFIG_ABSENT;
  return rc;
}
int um_app_has(um_app_run *run, const char *key, int *present) {
  APP_READ(run, key, kind_present(run->app, run->cfg, key, present, err_, sizeof err_));
}
