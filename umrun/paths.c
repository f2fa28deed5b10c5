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
 * a message naming the folders it looked in (docs/library.md "Paths in a config"). The values of a config's
 * own sweep (sweep: [key=v1,v2]) follow the same rule. */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "tools.h"
#include "um/um.h"

enum { PATH_LEN = 4096 };

typedef struct {
  char key[256];
  char value[PATH_LEN];
  char origin[512];
} path_entry;

typedef struct {
  char prefix[PATH_LEN + 8]; /* "file <config>:" */
  char app[128];
  const um_app *app_def; /* the config's app, found first */
  path_entry *e; /* the path keys the config file gives a relative value (grown: none dropped) */
  int n, cap, oom;
} path_walk;

/* The declaration's flags of key: the app's table first (its mesh.*, params.*), then the runner's. */
static int flags_of(const um_app *app, const char *key) {
  for (int i = 0; app && i < app->noptions; i++)
    if (um_option_key_matches(app->options[i].key, key)) return app->options[i].flags;
  const um_option *o = umrun_option_find(key);
  return o ? o->flags : 0;
}

static int find_app(const char *key, const char *value, const char *origin, int read, void *user) {
  path_walk *w = user;
  (void)origin, (void)read;
  if (!strcmp(key, "app")) snprintf(w->app, sizeof w->app, "%s", value);
  return 0;
}

/* Only the keys declared UM_OPT_PATH: a config holds any number of other values. */
static int collect(const char *key, const char *value, const char *origin, int read, void *user) {
  path_walk *w = user;
  (void)read;
  if (strncmp(origin, w->prefix, strlen(w->prefix)) || !*value || *value == '/' || !strcmp(value, "~") ||
      !strcmp(value, "''")) /* null, or empty ('' as um_config_each writes it): nothing to resolve */
    return 0;
  if (!(flags_of(w->app_def, key) & UM_OPT_PATH)) return 0;
  if (strlen(key) >= sizeof w->e[0].key || strlen(value) >= PATH_LEN) return 0; /* longer than a path: the open says so */
  if (w->n == w->cap) {
    const int cap = w->cap ? 2 * w->cap : 8;
    path_entry *e = realloc(w->e, (size_t)cap * sizeof *e);
    if (!e) return w->oom = 1;
    w->e = e, w->cap = cap;
  }
  path_entry *e = &w->e[w->n++];
  snprintf(e->key, sizeof e->key, "%s", key);
  snprintf(e->value, sizeof e->value, "%s", value);
  snprintf(e->origin, sizeof e->origin, "%s", origin);
  return 0;
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

char *umrun_yaml_quoted(const char *value) {
  char *out = malloc(2 * strlen(value) + 3), *q = out;
  if (!out) return NULL;
  *q++ = '\'';
  for (const char *p = value; *p; p++) {
    if (*p == '\'') *q++ = '\'';
    *q++ = *p;
  }
  *q++ = '\'';
  *q = '\0';
  return out;
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

/* Where a relative value written in the file config_path is found: that file's folder (named file_folder in the
 * message), the data folder, the current folder (the first that has it). *found: 0 found nowhere; 1 the current
 * folder reaches it as written; 2 at out. */
static void find_path(const char *config_path, const char *file_folder, const char *value, char *out, size_t outlen,
                      int *found, char *where, size_t wlen) {
  char cdir[PATH_LEN], ddir[PATH_LEN], cwd[PATH_LEN];
  folder_of(config_path, cdir, sizeof cdir);
  umrun_data_dir(ddir, sizeof ddir);
  if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
  const char *dirs[3] = {cdir, ddir, cwd};
  const char *names[3] = {file_folder, "the data folder", "the current folder"};
  const char *looked[3], *what[3];
  int nlooked = 0;
  *found = 0;
  for (int i = 0; i < 3; i++) {
    int seen = !*dirs[i];
    for (int j = 0; j < nlooked && !seen; j++) seen = same_file(dirs[i], looked[j]);
    if (seen) continue;
    looked[nlooked] = dirs[i], what[nlooked++] = names[i];
    char cand[2 * PATH_LEN + 2];
    snprintf(cand, sizeof cand, "%s/%s", dirs[i], value);
    if (access(cand, F_OK) != 0) continue;
    *found = same_file(value, cand) ? 1 : 2; /* the current folder reaches it: kept as written */
    snprintf(out, outlen, "%s", cand);
    return;
  }
  describe(looked, what, nlooked, where, wlen);
}

static int not_found(const char *key, const char *value, const char *origin, const char *where, char *err,
                     size_t len) {
  snprintf(err, len,
           "%s '%s' (%s): no such file or folder; looked in %s. A relative path in a config is relative to the "
           "config's folder: correct it, or give an absolute path (--set %s=PATH is relative to the current folder)",
           key, value, origin, where, key);
  return UM_ERR_CONFIG;
}

static int resolve_one(um_config *cfg, const char *config_path, const path_entry *e, int new_ok, char *err,
                       size_t len) {
  char cand[2 * PATH_LEN + 2], where[3 * PATH_LEN + 200];
  int found;
  find_path(config_path, "the config's folder", e->value, cand, sizeof cand, &found, where, sizeof where);
  if (found == 1 || (!found && new_ok)) return UM_SUCCESS; /* new_ok: written by the run, from the current folder */
  if (!found) return not_found(e->key, e->value, e->origin, where, err, len);
  char *q = umrun_yaml_quoted(cand);
  const int rc = q ? um_config_set(cfg, e->key, q, e->origin, err, len) : UM_ERR_ALLOC;
  free(q);
  return rc;
}

int umrun_resolve_paths(const um_runner *r, const char *config_path, um_config *cfg, char *err, size_t len) {
  if (!config_path || !*config_path) return UM_SUCCESS; /* the embedded default config: nothing of a folder */
  path_walk *w = calloc(1, sizeof *w);
  if (!w) return snprintf(err, len, "out of memory resolving the config's paths"), UM_ERR_ALLOC;
  snprintf(w->prefix, sizeof w->prefix, "file %s:", config_path);
  um_config_each(cfg, find_app, w); /* the app first: its path keys are in its table */
  const um_app *app = *w->app ? um_app_find(r, w->app) : NULL;
  w->app_def = app;
  um_config_each(cfg, collect, w);
  int rc = w->oom ? (snprintf(err, len, "out of memory resolving the config's paths"), UM_ERR_ALLOC) : UM_SUCCESS;
  for (int i = 0; !rc && i < w->n; i++) {
    const int flags = flags_of(app, w->e[i].key);
    if (um_config_kind(cfg, w->e[i].key) != UM_CONFIG_SCALAR) continue;
    rc = resolve_one(cfg, config_path, &w->e[i], (flags & UM_OPT_PATH_NEW_OK) != 0, err, len);
  }
  free(w->e);
  free(w);
  return rc;
}

int umrun_resolve_path_value(const um_runner *r, const char *config_path, const char *app_name, const char *key,
                             const char *value, char *out, size_t outlen, char *err, size_t len) {
  snprintf(out, outlen, "%s", value);
  const um_app *app = app_name ? um_app_find(r, app_name) : NULL;
  const int flags = flags_of(app, key);
  if (!config_path || !*config_path || !(flags & UM_OPT_PATH) || !*value || *value == '/') return UM_SUCCESS;
  char cand[2 * PATH_LEN + 2], where[3 * PATH_LEN + 200], origin[PATH_LEN + 16];
  int found;
  find_path(config_path, "the config's folder", value, cand, sizeof cand, &found, where, sizeof where);
  if (found == 1 || (!found && (flags & UM_OPT_PATH_NEW_OK))) return UM_SUCCESS;
  snprintf(origin, sizeof origin, "the sweep of file %s", config_path);
  if (!found) return not_found(key, value, origin, where, err, len);
  if (strlen(cand) >= outlen) return snprintf(err, len, "%s '%s': the path is too long", key, cand), UM_ERR_CONFIG;
  snprintf(out, outlen, "%s", cand);
  return UM_SUCCESS;
}

int umrun_resolve_suite_config(const char *suite_path, const char *value, char *out, size_t outlen, char *err,
                               size_t len) {
  snprintf(out, outlen, "%s", value);
  if (!*value || *value == '/') return UM_SUCCESS; /* absolute: as given (a missing file is told when it is read) */
  char cand[2 * PATH_LEN + 2], where[3 * PATH_LEN + 200];
  int found;
  find_path(suite_path, "the suite's folder", value, cand, sizeof cand, &found, where, sizeof where);
  if (found == 1) return UM_SUCCESS;
  if (!found)
    return snprintf(err, len, "'%s': no such file; looked in %s. A case's config is relative to the suite file's "
                    "folder (or the data folder, or the current folder): correct it, or give an absolute path",
                    value, where),
           UM_ERR_CONFIG;
  if (strlen(cand) >= outlen) return snprintf(err, len, "'%s': the path is too long", cand), UM_ERR_CONFIG;
  snprintf(out, outlen, "%s", cand);
  return UM_SUCCESS;
}
