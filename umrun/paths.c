#define _XOPEN_SOURCE 700 /* realpath */
/* The input paths of a config (every option declared UM_OPT_PATH: mesh files,
 * decks, validation.reference, run.reorder_file, ...), resolved where the
 * config is, so that a config runs from any folder: a relative value written
 * in the config file is looked up from the config's own folder, then in the
 * data folder (umrun_data_dir: PREFIX/share/um, or the build tree's share/um),
 * then in the current folder. A value from --set, UM_OPTIONS or a suite is a
 * path typed by the user: relative to the current folder, as given.
 * Found, the value becomes the path that reaches the file (kept as written when
 * the current folder reaches the same file); found nowhere, the run stops with
 * a message naming the folders it looked in (docs/library.md "Paths in a config"). */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "tools.h"
#include "um/um.h"

enum { MAX_PATHS = 64, PATH_LEN = 4096 };

typedef struct {
  char key[256];
  char value[PATH_LEN];
  char origin[512];
} path_entry;

typedef struct {
  char prefix[PATH_LEN + 8]; /* "file <config>:" */
  char app[128];
  path_entry e[MAX_PATHS];
  int n;
} path_walk;

static int collect(const char *key, const char *value, const char *origin, int read, void *user) {
  path_walk *w = user;
  (void)read;
  if (!strcmp(key, "app")) snprintf(w->app, sizeof w->app, "%s", value);
  if (strncmp(origin, w->prefix, strlen(w->prefix)) || !*value || *value == '/' || !strcmp(value, "~") ||
      !strcmp(value, "''")) /* null, or empty ('' as um_config_each writes it): nothing to resolve */
    return 0;
  if (w->n == MAX_PATHS || strlen(key) >= sizeof w->e[0].key || strlen(value) >= PATH_LEN) return 0;
  path_entry *e = &w->e[w->n++];
  snprintf(e->key, sizeof e->key, "%s", key);
  snprintf(e->value, sizeof e->value, "%s", value);
  snprintf(e->origin, sizeof e->origin, "%s", origin);
  return 0;
}

/* The declaration's flags of key: the app's table first (its mesh.*, params.*), then the runner's. */
static int flags_of(const um_app *app, const char *key) {
  for (int i = 0; app && i < app->noptions; i++)
    if (um_option_key_matches(app->options[i].key, key)) return app->options[i].flags;
  const um_option *o = umrun_option_find(key);
  return o ? o->flags : 0;
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The folder of path as written ("." for a bare name), into dir. */
static void folder_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == path)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* value as a YAML flow scalar: single-quoted, quotes doubled (um_config_set reads flow values). */
static void quoted(const char *value, char *out, size_t len) {
  size_t k = 0;
  if (len < 3) return;
  out[k++] = '\'';
  for (const char *p = value; *p && k + 3 < len; p++) {
    if (*p == '\'') out[k++] = '\'';
    out[k++] = *p;
  }
  out[k++] = '\'';
  out[k] = '\0';
}

/* The places looked in, for the message: each folder made absolute when it exists, with what it is. */
static void describe(const char *const *dirs, const char *const *what, int n, char *out, size_t len) {
  size_t k = 0;
  out[0] = '\0';
  for (int i = 0; i < n && k + 1 < len; i++) {
    char *real = realpath(dirs[i], NULL);
    k += (size_t)snprintf(out + k, len - k, "%s%s (%s)",
                          i == 0       ? ""
                          : i == n - 1 ? ", then "
                                       : ", ",
                          real ? real : dirs[i], what[i]);
    free(real);
  }
}

static int resolve_one(um_config *cfg, const char *config_path, const path_entry *e, int new_ok, char *err,
                       size_t len) {
  char cdir[PATH_LEN], ddir[PATH_LEN], cwd[PATH_LEN];
  folder_of(config_path, cdir, sizeof cdir);
  umrun_data_dir(ddir, sizeof ddir);
  if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
  const char *dirs[3] = {cdir, ddir, cwd};
  const char *names[3] = {"the config's folder", "the data folder", "the current folder"};
  const char *looked[3], *what[3];
  int nlooked = 0;
  for (int i = 0; i < 3; i++) {
    int seen = !*dirs[i];
    for (int j = 0; j < nlooked && !seen; j++) seen = same_file(dirs[i], looked[j]);
    if (seen) continue;
    looked[nlooked] = dirs[i], what[nlooked++] = names[i];
    char cand[2 * PATH_LEN + 2];
    snprintf(cand, sizeof cand, "%s/%s", dirs[i], e->value);
    if (access(cand, F_OK) != 0) continue;
    if (same_file(e->value, cand)) return UM_SUCCESS; /* the current folder reaches it: kept as written */
    char q[2 * PATH_LEN + 8];
    quoted(cand, q, sizeof q);
    return um_config_set(cfg, e->key, q, e->origin, err, len);
  }
  if (new_ok) return UM_SUCCESS; /* written by the run, relative to the current folder */
  char where[3 * PATH_LEN + 200];
  describe(looked, what, nlooked, where, sizeof where);
  snprintf(err, len,
           "%s '%s' (%s): no such file or folder; looked in %s. A relative path in a config is relative to the "
           "config's folder: correct it, or give an absolute path (--set %s=PATH is relative to the current folder)",
           e->key, e->value, e->origin, where, e->key);
  return UM_ERR_CONFIG;
}

int umrun_resolve_paths(const um_runner *r, const char *config_path, um_config *cfg, char *err, size_t len) {
  if (!config_path || !*config_path) return UM_SUCCESS; /* the embedded default config: nothing of a folder */
  path_walk *w = calloc(1, sizeof *w);
  if (!w) return snprintf(err, len, "out of memory resolving the config's paths"), UM_ERR_ALLOC;
  snprintf(w->prefix, sizeof w->prefix, "file %s:", config_path);
  um_config_each(cfg, collect, w);
  const um_app *app = *w->app ? um_app_find(r, w->app) : NULL;
  int rc = UM_SUCCESS;
  for (int i = 0; !rc && i < w->n; i++) {
    const int flags = flags_of(app, w->e[i].key);
    if (!(flags & UM_OPT_PATH) || um_config_kind(cfg, w->e[i].key) != UM_CONFIG_SCALAR) continue;
    rc = resolve_one(cfg, config_path, &w->e[i], (flags & UM_OPT_PATH_NEW_OK) != 0, err, len);
  }
  free(w);
  return rc;
}
