/* Checkpoints and restarts of an app's run (um/app.h: um_app_state, um_app_resume, um_app_step_end; the file:
 * um/checkpoint.h; the user's page: docs/checkpoints.md).
 *
 * When: every checkpoint.every steps or seconds, at checkpoint.stop_after, and at the first step boundary after
 * SIGTERM or SIGUSR1 reached any rank (checkpoint.on_signal): the ranks combine their flags at each step boundary
 * (one small all-gather), so every rank writes the same step. What: the dats the steps need (the engine's plan),
 * the values the app registered (um_app_state) and the step, with texts that let a restart check what it
 * continues: the app, the mesh's fingerprint, the physics (the app's own options but run.*), the other settings.
 * Where: checkpoint.dir/<app>-step<step>.h5, through a temporary renamed into place; then all but the newest
 * checkpoint.keep of the app's checkpoints there are removed, the new one being complete. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint_run.h"
#include "child.h"
#include "options.h"
#include "provenance.h"
#include "um/build_config.h"
#include "um/checkpoint.h"
#include "um/distributed.h"
#include "um/report.h"

#define CK_MAX_STATE 32

typedef struct {
  char name[64];
  void *data;
  size_t bytes;
  /* a series (um_app_state_series): its block and size are read through these when written; its size travels
   * as a value of its own, um.bytes.<name>, read first on a restart */
  void **series;
  size_t *series_bytes;
  char size_name[80];
  unsigned long long size;
} ck_state;

struct um_app_ckpt {
  int enabled;
  long every_steps, stop_after;
  double every_seconds;
  const char *dir, *restart;
  char dir_buf[4200]; /* checkpoint.dir not set: output.dir/checkpoints (umrun_ckpt_paths) */
  int keep, on_signal;
  int nstate;
  ck_state state[CK_MAX_STATE];
  long step;              /* the step the values hold (um.step) */
  double last_time;       /* when the last checkpoint was written (or the steps began) */
  char *mesh;             /* the mesh's fingerprint, made once */
  char *physics, *settings; /* the options in effect, as text */
  /* what it did, for the log and the JSON */
  int written;
  double bytes, seconds;  /* the last checkpoint's bytes; every checkpoint's seconds */
  char last[4200];
  char *plan;             /* the last checkpoint's dats, a line each */
  char restarted[4096];   /* the checkpoint this run continued, "" none */
  long restart_step;
  double restore_bytes, restore_seconds;
  int stopped;
  long decided;           /* step + 1 of the last decision (decide) */
  int due, sig;           /* that decision */
  int resumed;            /* um_app_resume was called */
  long ran;               /* steps ended since um_app_resume */
  long last_step;         /* the last step ended */
  struct sigaction old_term, old_usr1;
  int handlers;
};

static volatile sig_atomic_t ck_signal; /* the signal that asked for a checkpoint, 0 none */

static void on_signal(int sig) { ck_signal = sig; }

static um_app_ckpt *ck_of(um_app_run *run) {
  if (!run->ckpt) run->ckpt = calloc(1, sizeof *run->ckpt);
  return run->ckpt;
}

/* ---- the settings (read before the app runs, so that they count as read) ---- */

static int parse_every(const char *s, long *steps, double *seconds, char *err, size_t len) {
  *steps = 0;
  *seconds = 0;
  if (!s || !*s) return UM_SUCCESS;
  char *end = NULL;
  errno = 0;
  const double v = strtod(s, &end);
  double unit = 0;
  if (end && !*end) unit = -1; /* steps */
  else if (end && !strcmp(end, "s")) unit = 1;
  else if (end && !strcmp(end, "m")) unit = 60;
  else if (end && !strcmp(end, "h")) unit = 3600;
  /* a time that never comes ("infs") is refused as any other: "0" or no key says none */
  if (errno || end == s || !unit || !(v >= 0) || !isfinite(v) || v > 1e12 || (unit < 0 && v != (double)(long)v)) {
    snprintf(err, len,
             "checkpoint.every = '%s': use a number of steps (100, at most 1e12) or a time (600s, 10m, 2h); 0 or "
             "absent: none", s);
    return UM_ERR_CONFIG;
  }
  if (unit < 0) *steps = (long)v;
  else *seconds = v * unit;
  return UM_SUCCESS;
}

int umrun_ckpt_settings(um_app_run *run, um_config *cfg, char *err, size_t len) {
  um_app_ckpt *ck = ck_of(run);
  if (!ck) return snprintf(err, len, "out of memory"), UM_ERR_ALLOC;
  const char *every = NULL;
  int stop_after = 0;
  int rc = umrun_opt_string(cfg, "checkpoint.every", &every, err, len);
  if (!rc) rc = umrun_opt_string(cfg, "checkpoint.dir", &ck->dir, err, len);
  if (!rc) rc = umrun_opt_int(cfg, "checkpoint.keep", &ck->keep, err, len);
  if (!rc) rc = umrun_opt_bool(cfg, "checkpoint.on_signal", &ck->on_signal, err, len);
  if (!rc) rc = umrun_opt_int(cfg, "checkpoint.stop_after", &stop_after, err, len);
  if (!rc) rc = umrun_opt_string(cfg, "checkpoint.restart", &ck->restart, err, len);
  if (!rc) rc = parse_every(every, &ck->every_steps, &ck->every_seconds, err, len);
  if (rc) return rc;
  if (ck->restart && !*ck->restart) ck->restart = NULL;
  ck->stop_after = stop_after;
  const int writes = ck->every_steps || ck->every_seconds > 0 || ck->on_signal || ck->stop_after;
  ck->enabled = writes || ck->restart;
  return umrun_ckpt_paths(run, &ck->dir, ck->dir_buf, sizeof ck->dir_buf, ck->restart, writes, err, len);
}

void umrun_ckpt_note_unused(const um_app_run *run, const char *prog) {
  if (run->ckpt && run->ckpt->enabled && !run->ckpt->resumed)
    fprintf(stderr, "%s: note: %s does not checkpoint (it never calls um_app_resume: no steps to continue); "
                    "checkpoint.* and --restart did nothing: this run went from the start to the end\n",
            prog, run->app->name);
}

void umrun_ckpt_free(um_app_run *run) {
  um_app_ckpt *ck = run->ckpt;
  if (!ck) return;
  if (ck->handlers) {
    sigaction(SIGTERM, &ck->old_term, NULL);
    sigaction(SIGUSR1, &ck->old_usr1, NULL);
  }
  free(ck->mesh), free(ck->physics), free(ck->settings), free(ck->plan);
  free(ck);
  run->ckpt = NULL;
}

/* ---- the app's values ---- */

/* *out: the entry for name (a new one, or the one of that name, emptied to be replaced). */
static int state_entry(um_app_run *run, const char *fn, const char *name, int null_data, ck_state **out) {
  um_app_ckpt *ck = ck_of(run);
  if (!ck) return um_app_fail(run, UM_ERR_ALLOC, "out of memory");
  if (!name || !*name || strlen(name) >= sizeof ck->state[0].name || null_data || strchr(name, '/'))
    return um_app_fail(run, UM_ERR_INTERNAL, "%s: a bad name or NULL data ('%s')", fn, name ? name : "(null)");
  ck_state *s = NULL;
  for (int i = 0; i < ck->nstate && !s; i++)
    if (!strcmp(ck->state[i].name, name)) s = &ck->state[i];
  if (!s && ck->nstate == CK_MAX_STATE)
    return um_app_fail(run, UM_ERR_INTERNAL, "%s: more than %d values ('%s')", fn, CK_MAX_STATE, name);
  if (!s) s = &ck->state[ck->nstate++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  *out = s;
  return UM_SUCCESS;
}

int um_app_state(um_app_run *run, const char *name, void *data, size_t bytes) {
  ck_state *s = NULL;
  UM_APP_TRY(state_entry(run, "um_app_state", name, !data && bytes, &s));
  s->data = data;
  s->bytes = bytes;
  return UM_SUCCESS;
}

int um_app_state_series(um_app_run *run, const char *name, void **data, size_t *bytes) {
  ck_state *s = NULL;
  UM_APP_TRY(state_entry(run, "um_app_state_series", name, !data || !bytes, &s));
  s->series = data;
  s->series_bytes = bytes;
  snprintf(s->size_name, sizeof s->size_name, "um.bytes.%s", name);
  return UM_SUCCESS;
}

/* A restart: entry s's value from f (a series: its size first, then its block made that size). */
static int state_get(um_app_run *run, um_checkpoint_file *f, ck_state *s) {
  if (!s->series) return um_checkpoint_value_get(run->ctx, f, s->name, s->data, s->bytes);
  unsigned long long n = 0;
  UM_APP_TRY(um_checkpoint_value_get(run->ctx, f, s->size_name, &n, sizeof n));
  void *p = n == (size_t)n ? realloc(*s->series, n ? (size_t)n : 1) : NULL;
  if (!p) return um_app_fail(run, UM_ERR_ALLOC, "out of memory for the checkpoint's '%s' (%llu bytes)", s->name, n);
  *s->series = p;
  UM_APP_TRY(um_checkpoint_value_get(run->ctx, f, s->name, p, (size_t)n));
  *s->series_bytes = (size_t)n;
  return UM_SUCCESS;
}

/* ---- the options in effect, as the texts a restart compares ---- */

/* key's declaration among the app's own options (its table: "params.gamma", or a pattern "params.<x>"), NULL when
 * it is not one of them. */
static const um_option *app_option(const um_app *app, const char *key) {
  for (int i = 0; app && i < app->noptions; i++) {
    const char *k = app->options[i].key, *lt = strchr(k, '<');
    if (lt ? !strncmp(k, key, (size_t)(lt - k)) : !strcmp(k, key)) return &app->options[i];
  }
  return NULL;
}

/* The SHA-256 of the regular file at path, taken on rank 0 (the hash the run's JSON records for its inputs), into
 * out on every rank (collective: every rank's text is rank 0's): 0, or -1 when it is no regular file rank 0 can read
 * (a folder, a file the run is to write). */
static int file_digest(const char *path, char out[65]) {
  struct {
    int ok;
    char hex[65];
  } d = {0, ""};
  struct stat st;
  double bytes = 0;
  if (um_mpi_rank() == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
    d.ok = umrun_sha256_file(path, d.hex, &bytes) == 0;
  if (um_mpi_bcast_bytes(&d, sizeof d) != UM_SUCCESS) d.ok = 0; /* then on every rank: MPI fails everywhere */
  memcpy(out, d.hex, sizeof d.hex);
  return d.ok ? 0 : -1;
}

typedef struct {
  const um_app *app;
  FILE *physics, *settings;
} texts_arg;

static int text_line(const char *key, const char *value, const char *origin, int read, void *user) {
  (void)origin, (void)read;
  texts_arg *t = user;
  if (!strncmp(key, "checkpoint.", 11)) return 0; /* how it is checkpointed is not what it computes */
  const um_option *o = app_option(t->app, key);
  const int physics = o && !(o->flags & UM_OPT_NOT_PHYSICS) && strncmp(key, "run.", 4);
  fprintf(physics ? t->physics : t->settings, "%s = %s\n", key, value);
  char digest[65];
  if (physics && (o->flags & UM_OPT_PATH) && file_digest(value, digest) == 0) /* a deck: what it says, too */
    fprintf(t->physics, "%s content = %s\n", key, digest);
  return 0;
}

static int make_texts(um_app_run *run, um_app_ckpt *ck) {
  if (ck->physics) return UM_SUCCESS;
  size_t np = 0, ns = 0;
  texts_arg t = {run->app, open_memstream(&ck->physics, &np), open_memstream(&ck->settings, &ns)};
  if (t.physics && t.settings) um_config_each(run->cfg, text_line, &t);
  if (t.physics) fclose(t.physics);
  if (t.settings) fclose(t.settings);
  if (!ck->physics || !ck->settings) return um_app_fail(run, UM_ERR_ALLOC, "out of memory");
  return UM_SUCCESS;
}

static int make_mesh(um_app_run *run, um_app_ckpt *ck) {
  if (ck->mesh) return UM_SUCCESS;
  size_t n = 4096 + 200 * (size_t)(um_set_count(run->ctx) + um_map_count(run->ctx));
  ck->mesh = malloc(n);
  if (!ck->mesh) return um_app_fail(run, UM_ERR_ALLOC, "out of memory");
  return um_checkpoint_mesh_hash(run->ctx, ck->mesh, n);
}

/* The sets and maps both fingerprints name (um_checkpoint_mesh_hash's lines "set NAME SIZE", "map NAME ... HASH")
 * compared: a set or map of the same name that differs is a different mesh; one that only one run declares (a
 * map another backend's or setting's path derives) is no difference. The first difference into out. */
static int mesh_differs(const char *there, const char *here, char *out, size_t len) {
  out[0] = 0;
  for (const char *p = there; p && *p;) {
    const char *nl = strchr(p, '\n');
    const size_t ll = nl ? (size_t)(nl - p) : strlen(p);
    char kind[8], name[200];
    if (sscanf(p, "%7s %199s", kind, name) == 2)
      for (const char *q = here; q && *q;) {
        const char *qnl = strchr(q, '\n');
        const size_t ql = qnl ? (size_t)(qnl - q) : strlen(q);
        char k2[8], n2[200];
        if (sscanf(q, "%7s %199s", k2, n2) == 2 && !strcmp(kind, k2) && !strcmp(name, n2) &&
            (ql != ll || strncmp(p, q, ll))) {
          snprintf(out, len, "%s %s: '%.*s' in the checkpoint, '%.*s' now", kind, name, (int)ll, p, (int)ql, q);
          return 1;
        }
        q = qnl ? qnl + 1 : NULL;
      }
    p = nl ? nl + 1 : NULL;
  }
  return 0;
}

/* ---- restart ---- */

/* The texts every checkpoint holds (meta/app, physics, mesh, settings), then its step record (state/um.step, which
 * every checkpoint held from the first): the first of them f lacks, its index (CK_TEXTS for the step), or -1. */
static const char *const ck_texts[] = {"app", "physics", "mesh", "settings"};
#define CK_TEXTS ((int)(sizeof ck_texts / sizeof ck_texts[0]))
static int missing_record(const um_checkpoint_file *f) {
  for (int i = 0; i < CK_TEXTS; i++)
    if (!um_checkpoint_text_get(f, ck_texts[i])) return i;
  return um_checkpoint_value_has(f, "um.step") ? -1 : CK_TEXTS;
}

/* After `bad` failed: the newest of the others in its folder that passes every check, named in the message. */
static void name_good_one(um_app_run *run, const char *dir, const char *bad) {
  umrun_ck_found *f = NULL;
  int n = 0;
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", um_error_message(run->ctx));
  const char *good = NULL;
  if (umrun_ckpt_list(dir, run->app->name, &f, &n) == 0)
    for (int i = 0; i < n && !good; i++) {
      if (!strcmp(f[i].path, bad)) continue;
      um_checkpoint_file *cf = NULL;
      if (um_checkpoint_open(run->ctx, f[i].path, &cf) == UM_SUCCESS &&
          um_checkpoint_verify(run->ctx, cf) == UM_SUCCESS && missing_record(cf) < 0)
        good = f[i].path;
      um_checkpoint_close(cf);
    }
  if (good)
    um_error_set(run->ctx, UM_ERR_IO, "%s\n  the newest checkpoint that passes its checks is %s: restart with --restart %s",
                 msg, good, good);
  else
    um_error_set(run->ctx, UM_ERR_IO, "%s\n  no other checkpoint of %s in '%s' passes its checks", msg,
                 run->app->name, dir);
  free(f);
}

/* The lines of a "key = value" text that drop(line, key length) says to leave out removed, in place. */
static void drop_lines(char *text, int (*drop)(const um_app *app, const char *line, size_t klen), const um_app *app) {
  char *w = text;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n'), *eq = strstr(p, " = ");
    const size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (!eq || eq >= p + n || !drop(app, p, (size_t)(eq - p))) memmove(w, p, n), w += n;
    p += n;
  }
  *w = 0;
}

/* A file's content line ("KEY content = DIGEST"), which an earlier build did not write. */
static int content_line(const um_app *app, const char *line, size_t klen) {
  (void)app;
  return klen > 8 && !strncmp(line + klen - 8, " content", 8);
}

/* A key the app declares UM_OPT_NOT_PHYSICS, which an earlier build counted as physics. */
static int not_physics_line(const um_app *app, const char *line, size_t klen) {
  char key[256];
  snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), line);
  const um_option *o = app_option(app, key);
  return o && (o->flags & UM_OPT_NOT_PHYSICS);
}

/* The line "key = ..." of a "key = value" text (key: klen bytes), or NULL. */
static char *line_of(char *text, const char *key, size_t klen) {
  for (char *p = text; p && *p;) {
    char *nl = strchr(p, '\n');
    if (!strncmp(p, key, klen) && !strncmp(p + klen, " = ", 3)) return p;
    p = nl ? nl + 1 : NULL;
  }
  return NULL;
}

/* The length of the line at p, without its newline. */
static size_t line_len(const char *p) {
  const char *nl = strchr(p, '\n');
  return nl ? (size_t)(nl - p) : strlen(p);
}

/* The line at p removed from its text, its newline with it. */
static void remove_line(char *p) {
  const size_t n = line_len(p) + (p[line_len(p)] == '\n');
  memmove(p, p + n, strlen(p + n) + 1);
}

/* The files both texts compare by content ("KEY content = DIGEST" in each): their names ("KEY = path") removed from
 * both, so a file moved or copied elsewhere, its bytes the same, continues the run (a moved name said when say);
 * its content line still differs where its bytes do. */
static void drop_named_files(um_app_run *run, char *there, char *here, int say) {
  char key[300];
  for (char *p = there; *p;) {
    const char *eq = strstr(p, " = ");
    const size_t ll = line_len(p);
    if (eq && eq < p + ll && (size_t)(eq - p) + 8 < sizeof key) {
      const size_t kl = (size_t)(eq - p), tl = ll - kl - 3; /* the key's and the value's lengths */
      snprintf(key, sizeof key, "%.*s content", (int)kl, p);
      char *now = line_of(here, p, kl), *dt = line_of(there, key, kl + 8), *dh = line_of(here, key, kl + 8);
      if (dt && dh) {
        const size_t vl = now ? line_len(now) - kl - 3 : 0;
        const int same = line_len(dt) == line_len(dh) && !strncmp(dt, dh, line_len(dt));
        if (say && same && now && (vl != tl || strncmp(now + kl + 3, eq + 3, vl)) && um_mpi_rank() == 0)
          fprintf(run->log,
                  "restart: %.*s: %.*s in the checkpoint, %.*s now: the same content (SHA-256), so the "
                  "run continues\n",
                  (int)kl, p, (int)tl, eq + 3, (int)vl, now + kl + 3);
        if (now) remove_line(now); /* here's first: p still names the key */
        remove_line(p);
        continue;
      }
    }
    p += ll + (p[ll] == '\n');
  }
}

int umrun_ckpt_physics_differ(um_app_run *run, const char *there_text, int say, char *diffs, size_t len, int *n) {
  char *here = strdup(run->ckpt->physics), *there = strdup(there_text ? there_text : "");
  *n = -1;
  if (here && there) {
    drop_lines(there, not_physics_line, run->app); /* an earlier build's physics held them */
    if (!strstr(there, " content = ") && strstr(here, " content = ")) {
      drop_lines(here, content_line, run->app); /* an earlier build's checkpoint: the files compared by name alone */
      if (say)
        fprintf(run->log, "restart: the checkpoint records no file contents (an earlier um): the files the settings "
                          "name are compared by name only\n");
    }
    drop_named_files(run, there, here, say);
    *n = umrun_ckpt_diff_lines(there, here, diffs, len, "; ");
  }
  free(here), free(there);
  return *n < 0 ? um_app_fail(run, UM_ERR_ALLOC, "out of memory") : UM_SUCCESS;
}

/* The records every checkpoint holds (missing_record): a file without one is corrupt (a name changed by a flipped
 * byte) or incomplete, never read as another app's, one with nothing to compare or one of another version. */
static int records_present(um_app_run *run, const um_checkpoint_file *f, const char *path) {
  const int i = missing_record(f);
  if (i == CK_TEXTS)
    return um_app_fail(run, UM_ERR_IO,
                       "checkpoint '%s' is incomplete or corrupt: it has no step record (state/um.step), which every "
                       "um checkpoint holds", path);
  if (i >= 0)
    return um_app_fail(run, UM_ERR_IO, "checkpoint '%s' is corrupt: it has no meta/%s, which every um checkpoint "
                                       "holds", path, ck_texts[i]);
  return UM_SUCCESS;
}

static int refuse(um_app_run *run, const char *path, const char *what, const char *diffs) {
  return um_app_fail(run, UM_ERR_CONFIG,
                     "cannot restart from '%s': %s differ%s from the checkpoint's, and they change what the run "
                     "computes: %s. Restart with the config the checkpoint was written with",
                     path, what, strchr(what, ' ') ? "" : "s", diffs);
}

static int restore(um_app_run *run, um_app_ckpt *ck, long *step) {
  char path[4096], dir[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s", ck->restart);
  snprintf(dir, sizeof dir, "%s", ck->restart);
  if (stat(ck->restart, &st) == 0 && S_ISDIR(st.st_mode)) { /* the newest of the app's checkpoints there */
    umrun_ck_found *f = NULL;
    int n = 0;
    umrun_ckpt_list(ck->restart, run->app->name, &f, &n);
    if (n) snprintf(path, sizeof path, "%s", f[0].path);
    free(f);
    char hint[8500];
    if (!n)
      return um_app_fail(run, UM_ERR_CONFIG, "--restart %s: the folder holds no checkpoint of %s (%s-step<N>.h5)%s",
                         ck->restart, run->app->name, run->app->name,
                         umrun_ckpt_sub_hint(ck->restart, run->app->name, hint, sizeof hint));
  } else {
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
  }
  um_checkpoint_file *f = NULL;
  int rc = um_checkpoint_open(run->ctx, path, &f);
  if (rc == UM_ERR_IO) name_good_one(run, dir, path);
  if (rc) return rc;
  const char *app = um_checkpoint_text_get(f, "app");
  char diffs[3000];
  if ((rc = records_present(run, f, path))) {
    name_good_one(run, dir, path);
    um_checkpoint_close(f);
    return rc;
  }
  if (strcmp(app, run->app->name)) {
    rc = um_app_fail(run, UM_ERR_CONFIG, "cannot restart from '%s': it is a checkpoint of %s, and this config runs %s",
                     path, app, run->app->name);
    um_checkpoint_close(f);
    return rc;
  }
  rc = make_texts(run, ck);
  if (!rc) rc = make_mesh(run, ck);
  const char *mesh = um_checkpoint_text_get(f, "mesh");
  int ndiff = 0;
  if (!rc) rc = umrun_ckpt_physics_differ(run, um_checkpoint_text_get(f, "physics"), 1, diffs, sizeof diffs, &ndiff);
  if (!rc && ndiff) rc = refuse(run, path, "the app's settings", diffs);
  if (!rc && mesh_differs(mesh, ck->mesh, diffs, sizeof diffs))
    rc = um_app_fail(run, UM_ERR_CONFIG,
                     "cannot restart from '%s': this run's mesh is not the checkpoint's (%s). Restart with the mesh "
                     "the checkpoint was written with",
                     path, diffs);
  if (!rc && um_mpi_rank() == 0) umrun_ckpt_say_changes(run, f, ck->settings);
  rc = um_app_agree(run, rc, "restart from the checkpoint (this run's settings or mesh differ)");
  um_checkpoint_cost cost = {0};
  if (!rc) rc = um_checkpoint_restore(run->ctx, f, &cost);
  if (rc == UM_ERR_IO) name_good_one(run, dir, path);
  if (!rc) rc = um_checkpoint_value_get(run->ctx, f, "um.step", step, sizeof *step);
  int nm = 0;
  if (!rc) rc = um_checkpoint_value_get(run->ctx, f, "um.nmetrics", &nm, sizeof nm);
  if (!rc && (nm < 0 || nm > UM_APP_MAX_METRICS))
    rc = um_app_fail(run, UM_ERR_IO, "checkpoint '%s' is corrupt: it records %d metrics", path, nm);
  if (!rc) rc = um_checkpoint_value_get(run->ctx, f, "um.metric_names", run->metric_names,
                                        (size_t)nm * sizeof run->metric_names[0]);
  if (!rc) rc = um_checkpoint_value_get(run->ctx, f, "um.metric_values", run->metric_values,
                                        (size_t)nm * sizeof run->metric_values[0]);
  if (!rc) run->nmetrics = nm; /* the metrics recorded before the checkpoint, in their order */
  for (int i = 0; !rc && i < ck->nstate; i++) rc = state_get(run, f, &ck->state[i]);
  um_checkpoint_close(f);
  if (rc) return rc;
  snprintf(ck->restarted, sizeof ck->restarted, "%s", path);
  ck->restart_step = *step;
  ck->restore_bytes = cost.bytes;
  ck->restore_seconds = cost.seconds;
  fprintf(run->log, "restart: continuing from step %ld of %s (%d dats, %.1f MB read in %.3f s)\n", *step, path,
          cost.saved, cost.bytes / 1e6, cost.seconds);
  if (cost.unknown)
    fprintf(run->log, "restart: %d dat%s of the checkpoint %s not declared by this run (another backend's or "
                      "setting's path): not read\n", cost.unknown, cost.unknown == 1 ? "" : "s",
            cost.unknown == 1 ? "is" : "are");
  return UM_SUCCESS;
}

int um_app_restarting(const um_app_run *run) { return run->ckpt && run->ckpt->enabled && run->ckpt->restart; }

int um_app_resume(um_app_run *run, long *step) {
  um_app_ckpt *ck = ck_of(run);
  if (!ck) return um_app_fail(run, UM_ERR_ALLOC, "out of memory");
  if (!step) return um_app_fail(run, UM_ERR_INTERNAL, "um_app_resume: step is NULL");
  ck->resumed = 1;
  if (!ck->enabled) return UM_SUCCESS;
  UM_APP_TRY(make_texts(run, ck)); /* the settings and the files' bytes as the steps begin, not at the first checkpoint */
  if (ck->restart) UM_APP_TRY(restore(run, ck, step));
  if (ck->every_steps || ck->every_seconds > 0 || ck->stop_after) /* it will write: now, not later (on_signal only: at its write) */
    UM_APP_TRY(umrun_ckpt_dir_check(run, ck->dir));
  ck->step = *step;
  if (ck->on_signal && !ck->handlers) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ck_signal = 0;
    sigaction(SIGTERM, &sa, &ck->old_term);
    sigaction(SIGUSR1, &sa, &ck->old_usr1);
    ck->handlers = 1;
  }
  ck->last_time = um_wtime();
  return um_checkpoint_mark(run->ctx);
}

/* ---- writing ---- */

/* A checkpoint that could not be written (a full disk): the message says which checkpoint the run can go on from. */
static int write_failed(um_app_run *run, const um_app_ckpt *ck, int rc) {
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", um_error_message(run->ctx));
  const char *from = ck->last[0] ? ck->last : ck->restarted[0] ? ck->restarted : NULL;
  if (from)
    return um_error_set(run->ctx, rc, "%s\n  the checkpoints already there are complete: once what stopped this one "
                        "is fixed (a full disk: free space, or choose another checkpoint.dir), continue from the "
                        "newest, %s, with --restart %s", msg, from, from);
  return um_error_set(run->ctx, rc, "%s\n  no checkpoint was written: fix what stopped it (a full disk: free space, "
                      "or choose another checkpoint.dir) and run again", msg);
}

static int write_checkpoint(um_app_run *run, um_app_ckpt *ck, long step) {
  char err[1024] = "", path[4200];
  int rc = UM_SUCCESS;
  if (um_mpi_rank() == 0 && umrun_mkdirs(ck->dir, err, sizeof err))
    rc = um_app_fail(run, UM_ERR_IO, "checkpoint.dir: cannot create '%s': %s", ck->dir, err);
  rc = um_app_agree(run, rc, "create checkpoint.dir");
  if (rc) return rc;
  UM_APP_TRY(make_texts(run, ck));
  UM_APP_TRY(make_mesh(run, ck));
  snprintf(path, sizeof path, "%s/%s-step%09ld.h5", ck->dir, run->app->name, step);
  um_checkpoint_value values[2 * CK_MAX_STATE + 4];
  ck->step = step;
  /* the runner's own: the step, and the metrics recorded so far (a history the app records as it goes) */
  values[0] = (um_checkpoint_value){"um.step", &ck->step, sizeof ck->step};
  values[1] = (um_checkpoint_value){"um.nmetrics", &run->nmetrics, sizeof run->nmetrics};
  values[2] = (um_checkpoint_value){"um.metric_names", run->metric_names, (size_t)run->nmetrics * sizeof run->metric_names[0]};
  values[3] = (um_checkpoint_value){"um.metric_values", run->metric_values,
                                    (size_t)run->nmetrics * sizeof run->metric_values[0]};
  int nv = 4;
  for (int i = 0; i < ck->nstate; i++) {
    ck_state *s = &ck->state[i];
    if (s->series) { /* its block and size now, the size first */
      s->data = *s->series;
      s->bytes = *s->series_bytes;
      s->size = s->bytes;
      values[nv++] = (um_checkpoint_value){s->size_name, &s->size, sizeof s->size};
    }
    values[nv++] = (um_checkpoint_value){s->name, s->data, s->bytes};
  }
  char when[64], ranks[32];
  const time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  snprintf(ranks, sizeof ranks, "%d", um_context_nranks(run->ctx));
  const um_checkpoint_text texts[] = {{"app", run->app->name},   {"um_version", UM_VERSION},
                                      {"physics", ck->physics},  {"settings", ck->settings},
                                      {"mesh", ck->mesh},        {"written", when},
                                      {"ranks", ranks},          {"backend", um_context_backend(run->ctx)}};
  const um_checkpoint_content c = {values, nv, texts, (int)(sizeof texts / sizeof texts[0])};
  um_checkpoint_cost cost = {0};
  const int wrc = um_checkpoint_write(run->ctx, path, &c, &cost);
  if (wrc) return write_failed(run, ck, wrc);
  if (um_mpi_rank() == 0) umrun_ckpt_prune(ck->dir, run->app->name, ck->keep, step);
  ck->written++;
  ck->bytes = cost.bytes;
  ck->seconds += cost.seconds;
  snprintf(ck->last, sizeof ck->last, "%s", path);
  /* the plan, for the JSON */
  const int nd = um_dat_count(run->ctx);
  um_checkpoint_dat *p = malloc(((size_t)nd + 1) * sizeof *p);
  if (p && um_checkpoint_plan(run->ctx, p, &(int){0}) == UM_SUCCESS) {
    size_t len = 0;
    free(ck->plan);
    ck->plan = NULL;
    FILE *m = open_memstream(&ck->plan, &len);
    for (int i = 0; m && i < nd; i++)
      fprintf(m, "%s\t%s\t%s\n", um_dat_name(p[i].dat), p[i].saved ? "saved" : "skipped", p[i].reason);
    if (m) fclose(m);
  }
  free(p);
  um_app_progress_clear(run);
  fprintf(run->log, "checkpoint: step %ld -> %s: %.1f MB in %.3f s (%.2f GB/s), %d dats saved, %d skipped\n", step,
          path, cost.bytes / 1e6, cost.seconds, cost.seconds > 0 ? cost.bytes / cost.seconds / 1e9 : 0.0, cost.saved,
          cost.skipped);
  fflush(run->log);
  ck->last_time = um_wtime();
  return UM_SUCCESS;
}

int um_app_checkpointing(const um_app_run *run) { return run && run->ckpt && run->ckpt->enabled; }

/* Whether a checkpoint is due after `step` (and whether a signal asked for it), decided once per step: the
 * ranks' flags are combined at the first call for the step. */
static int decide(um_app_run *run, um_app_ckpt *ck, long step) {
  if (ck->decided == step + 1) return UM_SUCCESS;
  int due = (ck->every_steps && step % ck->every_steps == 0) || (ck->stop_after && step == ck->stop_after);
  int sig = 0;
  if (ck->on_signal || ck->every_seconds > 0) { /* the ranks' flags combined: every rank writes the same step */
    double mine = (ck->on_signal && ck_signal ? 2 : 0) +
                  (ck->every_seconds > 0 && um_wtime() - ck->last_time >= ck->every_seconds ? 1 : 0);
    const int nr = um_context_nranks(run->ctx);
    if (nr > 1) {
      double *all = malloc((size_t)nr * sizeof *all);
      if (!all) return um_app_fail(run, UM_ERR_ALLOC, "out of memory");
      int m = um_mpi_allgather_double(mine, all);
      for (int q = 0; q < nr; q++) mine = all[q] > mine ? all[q] : mine; /* 3 = both, 2 a signal, 1 the time */
      free(all);
      if (m) return um_app_fail(run, UM_ERR_BACKEND, "combining the ranks' checkpoint flags failed");
    }
    sig = mine >= 2;
    due |= mine > 0;
  }
  ck->decided = step + 1;
  ck->due = due;
  ck->sig = sig;
  return UM_SUCCESS;
}

int um_app_checkpoint_due(um_app_run *run, long step, int *due) {
  um_app_ckpt *ck = run->ckpt;
  *due = 0;
  if (!ck || !ck->enabled) return UM_SUCCESS;
  UM_APP_TRY(decide(run, ck, step));
  *due = ck->due;
  return UM_SUCCESS;
}

int um_app_step_end_last(um_app_run *run, long step, int last) {
  um_app_ckpt *ck = run->ckpt;
  if (ck) ck->ran++, ck->last_step = step;
  if (!ck || !ck->enabled) return UM_SUCCESS;
  UM_APP_TRY(um_checkpoint_step(run->ctx));
  UM_APP_TRY(decide(run, ck, step));
  const int sig = ck->sig;
  if (!ck->due) return UM_SUCCESS;
  UM_APP_TRY(write_checkpoint(run, ck, step));
  if (last) return UM_SUCCESS; /* the run ends here anyway: it writes its outputs, and the checkpoint can extend it */
  if (!sig && !(ck->stop_after && step == ck->stop_after)) return UM_SUCCESS;
  ck->stopped = 1;
  return um_app_fail(run, UM_ERR_STOPPED,
                     "stopped at step %ld after writing checkpoint %s (%s); continue with --restart %s", step, ck->last,
                     sig ? "a signal asked for it" : "checkpoint.stop_after", ck->dir);
}

int um_app_step_end(um_app_run *run, long step) { return um_app_step_end_last(run, step, 0); }

int um_app_loop_done(um_app_run *run) {
  const um_app_ckpt *ck = run->ckpt;
  if (ck && ck->enabled && ck->ran > 0 && ck->stop_after && um_mpi_rank() == 0 &&
      (ck->stop_after > ck->last_step || ck->stop_after <= ck->restart_step)) /* asked for, never reached */
    fprintf(run->log, "checkpoint: note: checkpoint.stop_after = %ld: this run went from step %ld to %ld, so it did "
                      "not stop there and wrote no checkpoint for it\n", ck->stop_after, ck->restart_step,
            ck->last_step);
  if (!ck || !ck->enabled || !ck->restarted[0] || ck->ran > 0) return UM_SUCCESS;
  return um_app_fail(run, UM_ERR_CONFIG,
                     "--restart %s: this run ends at or before step %ld, where that checkpoint was written (its step "
                     "limit, end time or stopping rule), so it has no step to take; its outputs would hold the "
                     "set-up's values of the dats a checkpoint leaves out (those every step makes anew). To go "
                     "further, raise run.iterations where the limit stopped it; to make the final outputs again, "
                     "restart from an earlier checkpoint (checkpoint.keep keeps the newest 2 by default)",
                     ck->restarted, ck->restart_step);
}

/* ---- what it did, for the JSON ---- */

void umrun_ckpt_json(FILE *f, const um_app_run *run) {
  const um_app_ckpt *ck = run->ckpt;
  if (!ck || !ck->enabled) return;
  fprintf(f, ",\n  \"checkpoints\": {\"written\": %d, \"last_bytes\": %.0f, \"seconds\": %.6f, \"last\": ", ck->written,
          ck->bytes, ck->seconds);
  um_json_string(f, ck->last);
  fputs(", \"stopped\": ", f);
  fputs(ck->stopped ? "true" : "false", f);
  if (ck->restarted[0]) {
    fputs(", \"restart\": {\"from\": ", f);
    um_json_string(f, ck->restarted);
    fprintf(f, ", \"step\": %ld, \"bytes\": %.0f, \"seconds\": %.6f}", ck->restart_step, ck->restore_bytes,
            ck->restore_seconds);
  }
  fputs(", \"dats\": [", f);
  int first = 1;
  for (const char *p = ck->plan; p && *p;) {
    const char *t1 = strchr(p, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *nl = t2 ? strchr(t2, '\n') : NULL;
    if (!nl) break;
    char name[256], why[256];
    snprintf(name, sizeof name, "%.*s", (int)(t1 - p), p);
    snprintf(why, sizeof why, "%.*s", (int)(nl - t2 - 1), t2 + 1);
    fputs(first ? "{\"name\": " : ", {\"name\": ", f);
    um_json_string(f, name);
    fprintf(f, ", \"saved\": %s, \"reason\": ", !strncmp(t1 + 1, "saved", 5) ? "true" : "false");
    um_json_string(f, why);
    fputs("}", f);
    first = 0;
    p = nl + 1;
  }
  fputs("]}", f);
}
