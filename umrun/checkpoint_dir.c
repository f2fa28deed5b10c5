/* The folder of a run's checkpoints (checkpoint.c writes and reads them): which folder (checkpoint.dir, else
 * output.dir/checkpoints, else ./checkpoints), said at the start; the app's checkpoints in it, newest
 * first; all but the newest checkpoint.keep removed after each new one, with the temporaries that writers killed
 * mid-write left there; and, before the first step of a run that writes checkpoints, the folder checked: made and
 * writable, and holding no checkpoint of the same app with other physics (a run of another config whose
 * checkpoints this run's would replace, or remove as older). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint_run.h"
#include "child.h"
#include "options.h"
#include "um/checkpoint.h"
#include "um/distributed.h"

static int found_cmp(const void *a, const void *b) {
  const long x = ((const umrun_ck_found *)a)->step, y = ((const umrun_ck_found *)b)->step;
  return (x < y) - (x > y); /* newest first */
}

/* The step of `name` when it is "<prefix><digits><tail>" (tail ".h5", or ".h5.tmp." and more when tmp), else -1. */
static long step_of(const char *name, const char *prefix, int tmp) {
  const size_t pl = strlen(prefix);
  char *end = NULL;
  if (strncmp(name, prefix, pl) || name[pl] < '0' || name[pl] > '9') return -1;
  const long step = strtol(name + pl, &end, 10);
  if (!end) return -1;
  if (tmp ? strncmp(end, ".h5.tmp.", 8) || !end[8] : strcmp(end, ".h5") != 0) return -1;
  return step;
}

/* The files of the app in dir (its checkpoints, or with tmp the temporaries of its writers), newest first. */
static int list_files(const char *dir, const char *app, int tmp, umrun_ck_found **out, int *n) {
  *out = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int cap = 0;
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%s-step", app);
  for (struct dirent *e; (e = readdir(d));) {
    const long step = step_of(e->d_name, prefix, tmp);
    if (step < 0) continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      umrun_ck_found *p = realloc(*out, (size_t)cap * sizeof *p);
      if (!p) break;
      *out = p;
    }
    snprintf((*out)[*n].path, sizeof(*out)[*n].path, "%s/%s", dir, e->d_name);
    (*out)[(*n)++].step = step;
  }
  closedir(d);
  if (*n) qsort(*out, (size_t)*n, sizeof **out, found_cmp);
  return 0;
}

int umrun_ckpt_list(const char *dir, const char *app, umrun_ck_found **out, int *n) {
  return list_files(dir, app, 0, out, n);
}

void umrun_ckpt_prune(const char *dir, const char *app, int keep, long step) {
  umrun_ck_found *f = NULL;
  int n = 0;
  int others = 0; /* kept besides the one just written, which stays even where an earlier run left higher steps */
  if (list_files(dir, app, 0, &f, &n) == 0)
    for (int i = 0; i < n; i++)
      if (f[i].step != step && ++others >= keep && unlink(f[i].path) != 0)
        fprintf(stderr, "umrun: note: could not remove the old checkpoint %s: %s\n", f[i].path, strerror(errno));
  free(f);
  /* a writer killed mid-write (a preemption) left its temporary: gone once a later step's checkpoint is complete */
  if (list_files(dir, app, 1, &f, &n) == 0)
    for (int i = 0; i < n; i++)
      if (f[i].step <= step && unlink(f[i].path) != 0 && errno != ENOENT)
        fprintf(stderr, "umrun: note: could not remove %s, the temporary of a checkpoint whose writing did not end: "
                        "%s\n", f[i].path, strerror(errno));
  free(f);
}

/* Rank 0: the folder made, and a file created and removed in it (umrun_probe_writable); the reason into why when
 * not. */
static int writable(const char *dir, char *why, size_t len) {
  char probe[1024];
  if (umrun_mkdirs(dir, why, len)) return -1;
  if (!umrun_probe_writable(dir, probe, sizeof probe)) return 0;
  return snprintf(why, len, "creating a file in it failed: %s", probe), -1;
}

/* Every rank: the folder's checkpoints of the app (rank 0 lists them; their count and paths broadcast), *paths
 * malloc'd as n paths of 4096 bytes; one outcome on every rank. */
static int shared_list(um_app_run *run, const char *dir, char **paths, int *n) {
  umrun_ck_found *f = NULL;
  int count = 0;
  if (um_mpi_rank() == 0 && umrun_ckpt_list(dir, run->app->name, &f, &count) != 0) count = 0;
  *paths = NULL;
  *n = 0;
  int rc = um_mpi_bcast_bytes(&count, sizeof count) ? UM_ERR_BACKEND : UM_SUCCESS;
  char *p = !rc && count ? calloc((size_t)count, 4096) : NULL;
  if (!rc && count && !p) rc = um_app_fail(run, UM_ERR_ALLOC, "out of memory for %d checkpoint names", count);
  rc = um_app_agree(run, rc, "list the checkpoints in checkpoint.dir");
  for (int i = 0; p && um_mpi_rank() == 0 && i < count; i++) snprintf(p + 4096 * (size_t)i, 4096, "%s", f[i].path);
  free(f);
  if (!rc && count && um_mpi_bcast_bytes(p, 4096 * (size_t)count)) rc = UM_ERR_BACKEND;
  if (rc) return free(p), rc == UM_ERR_BACKEND ? um_app_fail(run, rc, "broadcasting the checkpoints' names failed") : rc;
  *paths = p;
  *n = count;
  return UM_SUCCESS;
}

/* Every rank: the first of the folder's checkpoints of the app whose physics differs from this run's, refused
 * (collective: every rank opens each, and agrees on each outcome). A checkpoint that does not open is left to the
 * restart's own checks; each one is compared, since prune may remove any past checkpoint.keep. */
static int foreign(um_app_run *run, const char *dir) {
  char *paths = NULL;
  int n = 0;
  UM_APP_TRY(shared_list(run, dir, &paths, &n));
  int rc = UM_SUCCESS;
  for (int i = 0; !rc && i < n; i++) {
    const char *path = paths + 4096 * (size_t)i;
    um_checkpoint_file *cf = NULL;
    char diffs[3000];
    int nd = 0;
    if (um_checkpoint_open(run->ctx, path, &cf) != UM_SUCCESS) um_error_clear(run->ctx), cf = NULL;
    const char *app = cf ? um_checkpoint_text_get(cf, "app") : NULL;
    const char *physics = cf ? um_checkpoint_text_get(cf, "physics") : NULL;
    if (app && physics && !strcmp(app, run->app->name))
      rc = umrun_ckpt_physics_differ(run, physics, 0, diffs, sizeof diffs, &nd);
    if (!rc && nd)
      rc = um_app_fail(run, UM_ERR_CONFIG,
                       "checkpoint.dir '%s' holds %s, a checkpoint of %s with other settings (%s): this run's "
                       "checkpoints would replace that run's, or be removed as older than them (checkpoint.keep). "
                       "Give this run a checkpoint.dir of its own, or move those checkpoints away",
                       dir, path, run->app->name, diffs);
    if (cf) um_checkpoint_close(cf);
    rc = um_app_agree(run, rc, "compare the checkpoints in checkpoint.dir");
  }
  free(paths);
  return rc;
}

int umrun_ckpt_dir_check(um_app_run *run, const char *dir) {
  char why[1200] = "";
  int rc = UM_SUCCESS;
  if (um_mpi_rank() == 0 && writable(dir, why, sizeof why))
    rc = um_app_fail(run, UM_ERR_CONFIG,
                     "checkpoint.dir: cannot write checkpoints into '%s': %s. Choose a folder this run can write "
                     "(every rank must see it); checked before the first step",
                     dir, why);
  UM_APP_TRY(um_app_agree(run, rc, "write into checkpoint.dir"));
  return foreign(run, dir);
}

/* dir/checkpoints into buf, without a doubled slash (dir "./rel3//" gives "./rel3/checkpoints", "/" "/checkpoints") */
static void sub_folder(const char *dir, char *buf, size_t len) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  snprintf(buf, len, "%.*s/checkpoints", (int)(n == 1 && dir[0] == '/' ? 0 : n), dir);
}

int umrun_ckpt_paths(const um_app_run *run, const char **dir, char *buf, size_t buflen, const char *restart, int writes,
                     char *err, size_t len) {
  const int given = *dir && **dir;
  const char *out = run->output_dir;
  if (!given && out && *out) { /* output.dir/checkpoints */
    sub_folder(out, buf, buflen);
    *dir = buf;
  } else if (!given)
    *dir = "checkpoints";
  struct stat st;
  if (restart && stat(restart, &st) != 0) /* an input path that does not work: the config's, status 1 */
    return snprintf(err, len,
                    "checkpoint.restart: '%s' does not exist (%s): give a checkpoint file or the folder of "
                    "the checkpoints%s%s%s",
                    restart, strerror(errno), writes ? " (this run writes its own into " : "",
                    !writes                  ? ""
                    : given || (out && *out) ? *dir
                                             : "./checkpoints",
                    writes ? ")" : ""),
           UM_ERR_CONFIG;
  if (!writes || um_mpi_rank() != 0 || !run->log) return UM_SUCCESS;
  if (given)
    fprintf(run->log, "checkpoints go to %s (checkpoint.dir)\n", *dir);
  else if (out && *out)
    fprintf(run->log, "checkpoints go to %s (output.dir/checkpoints: checkpoint.dir is not set)\n", *dir);
  else
    fprintf(run->log,
            "checkpoints go to ./%s (checkpoint.dir is not set, and output.dir is empty: no outputs, so the "
            "current folder)\n",
            *dir);
  return UM_SUCCESS;
}

const char *umrun_ckpt_sub_hint(const char *dir, const char *app, char *buf, size_t len) {
  char sub[4200];
  sub_folder(dir, sub, sizeof sub);
  umrun_ck_found *f = NULL;
  int k = 0;
  if (umrun_ckpt_list(sub, app, &f, &k) || !k) k = 0;
  free(f);
  if (!k) return "";
  snprintf(buf, len, "; %s holds %d (an earlier run's output.dir?): did you mean --restart %s?", sub, k, sub);
  return buf;
}
