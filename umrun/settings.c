/* The settings of a run: what the runner reads from the config (through the
 * option table, options.c) and the backends' own settings, checked; and every
 * input and output path the run will use, checked before the first loop. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "options.h"
#include "paths.h"
#include "runner.h"
#include "tools.h"
#include "um/safe_file.h"

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* Earlier spellings (run.compile, run.profile, ...), still read (with a note): copied to the key they are
 * now, with their origin (run.cc from a config is still refused without --allow-compiler). Before the keys
 * are read. */
static int read_renamed(um_config *cfg, FILE *out, char *err, size_t len) {
  for (int r = 0; r < umrun_option_count(); r++) {
    const um_option *o = umrun_option_at(r);
    const char *v = NULL;
    um_config_kind_t kind;
    if (!o->renamed_to) continue;
    if (umrun_opt_kind(cfg, o->key, &kind, err, len)) return UM_ERR_INTERNAL;
    if (kind == UM_CONFIG_ABSENT) continue;
    if (umrun_opt_string(cfg, o->key, &v, err, len)) return UM_ERR_CONFIG;
    char where[1024] = "";
    if (um_config_origin(cfg, o->key, where, sizeof where)) snprintf(where, sizeof where, "%s", o->key);
    char *q = v ? umrun_yaml_quoted(v) : NULL; /* the value as it is: "'-O2' -g" is not YAML to parse again */
    if (v && !q) return snprintf(err, len, "out of memory"), UM_ERR_ALLOC;
    const int rc = !um_config_has(cfg, o->renamed_to) && q ? um_config_set(cfg, o->renamed_to, q, where, err, len) : 0;
    free(q);
    if (rc) return UM_ERR_CONFIG;
    fprintf(out, "note: %s is now spelled %s\n", o->key, o->renamed_to);
  }
  return UM_SUCCESS;
}

/* Every registered backend's own keys "<backend>.<key>" that the config sets. */
static int read_backend_options(um_config *cfg, um_options *o, char *err, size_t len) {
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    for (int k = 0; k < um_backend_option_count(b); k++) {
      const char *key, *def;
      um_backend_option_at(b, k, &key, &def, NULL, NULL);
      char name[128];
      snprintf(name, sizeof name, "%s.%s", b, key);
      if (!um_config_has(cfg, name)) continue;
      const char *v = NULL;
      if (um_config_get_string(cfg, name, def, &v, err, len)) return UM_ERR_CONFIG;
      const um_option *decl = um_option_find(name);
      if (decl && decl->type == UM_OPT_CHOICE && decl->choices) { /* checked here too, so the message names the config key */
        int n = 0, pick;
        while (decl->choices[n]) n++;
        if (um_config_get_choice(cfg, name, def, decl->choices, n, &pick, err, len)) return UM_ERR_CONFIG;
      }
      if (um_options_set_backend(o, name, v)) {
        snprintf(err, len, "%s = '%s': too long, or too many backend settings", name, v);
        return UM_ERR_CONFIG;
      }
    }
  }
  return UM_SUCCESS;
}

int umrun_read_settings(const um_runner *r, um_config *cfg, const char *config_path, run_settings *s, FILE *out, char *err, size_t len) {
  um_options_default(&s->opts);
  const char *app_names[64];
  int napps = um_app_count(r) < 64 ? um_app_count(r) : 64;
  for (int i = 0; i < napps; i++) app_names[i] = um_app_at(r, i)->name;
  int app = -1;
  um_config_kind_t app_kind;
  int rc = umrun_opt_kind(cfg, "app", &app_kind, err, len);
  if (rc) return rc;
  if (app_kind == UM_CONFIG_ABSENT) {
    snprintf(err, len, "the config names no app: add 'app: <name>' (one of the apps listed by umrun --list-apps)");
    return UM_ERR_CONFIG;
  }
  rc = umrun_opt_choice_in(cfg, "app", app_names, napps, &app, err, len);
  if (!rc && app < 0) { /* app: with no value (empty, ~, null) */
    int n = snprintf(err, len, "app: no app named; give one of:");
    for (int i = 0; i < napps && n > 0 && (size_t)n < len; i++)
      n += snprintf(err + n, len - (size_t)n, "%s %s", i ? "," : "", app_names[i]);
    return UM_ERR_CONFIG;
  }
  if (!rc) rc = read_renamed(cfg, out, err, len);
  /* the engine's options (run.backend, run.block_size, hostc.compile, ...), each applied by its declaration */
  if (!rc) rc = umrun_apply_engine_options(cfg, &s->opts, NULL, NULL, err, len);
  if (!rc) rc = umrun_opt_choice(cfg, "run.reorder", NULL, &s->reorder, err, len);
  if (!rc) rc = read_backend_options(cfg, &s->opts, err, len);
  if (!rc) rc = umrun_opt_string(cfg, "validation.reference", &s->reference, err, len);
  if (!rc) rc = umrun_opt_string(cfg, "output.dir", &s->outdir, err, len);
  if (!rc) rc = umrun_opt_bool(cfg, "output.hdf5", &s->write_hdf5, err, len);
  if (!rc) rc = umrun_opt_double(cfg, "mpi.deadline_s", &s->deadline_s, err, len);
  if (rc) return rc;
  s->app = app_names[app];
  char why[512];
  if (strcmp(s->opts.backend, "auto") != 0 && !um_backend_status(s->opts.backend, why, sizeof why)) {
    /* never change backend behind the user's back: say how to run it on what is here */
    const char *alt = um_backend_auto();
    um_options o = s->opts;
    o.backend = alt;
    um_context *probe = NULL;
    const int strategy_ok = um_init(&probe, &o) == UM_SUCCESS; /* does the alternative run this strategy? */
    um_finalize(&probe);
    snprintf(err, len,
             "run.backend = %s, but %s.\n"
             "  To run the same config here: umrun %s --set run.backend=%s%s",
             s->opts.backend, why, config_path ? config_path : "", alt, strategy_ok ? "" : " --set run.strategy=auto");
    return UM_ERR_UNSUPPORTED;
  }
  return UM_SUCCESS;
}
/* ---- before the first loop: every input and output path -------------------------------- */

/* What stands at an output path must be one um writes (a regular file or
 * nothing; a device or FIFO, written in place; a symlink, followed), and the
 * folder a file would be written to must exist and be writable. */
static int check_out_file(const char *what, const char *path, char *err, size_t len) {
  struct stat st;
  const size_t n = strlen(path);
  if (n >= 4096) /* past PATH_MAX: no system call takes it */
    return snprintf(err, len,
                    "%s '%.60s...%s': the path is too long (%zu bytes, at most 4095); write nearer the root "
                    "or to a shorter path",
                    what, path, path + n - 60, n),
           UM_ERR_CONFIG;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s '%s' is a folder; give a file name", what, path), UM_ERR_CONFIG;
  char why[2048];
  if (um_safe_check(path, 1, why, sizeof why)) return snprintf(err, len, "%s %s", what, why), UM_ERR_CONFIG;
  if (um_safe_fd_path(path) >= 0) return UM_SUCCESS; /* an open stream of this process (/dev/stdout): written in it */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return UM_SUCCESS; /* a device or FIFO: written in place */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) { /* a link: its target's folder */
    ssize_t n = readlink(path, dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = '\0';
    if (n <= 0) return UM_SUCCESS; /* said when it is written */
    if (dir[0] != '/') {
      char rel[8200];
      const char *slash = strrchr(path, '/');
      snprintf(rel, sizeof rel, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, dir);
      snprintf(dir, sizeof dir, "%.4095s", rel);
    }
  }
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s '%.1024s': the folder '%.1024s' does not exist; create it or fix the path", what, path, dir),
           UM_ERR_CONFIG;
  if (umrun_probe_writable(dir, why, sizeof why))
    return snprintf(err, len, "%s '%.1024s': the folder '%.1024s' is not writable (%.512s)", what, path, dir, why),
           UM_ERR_CONFIG;
  return UM_SUCCESS;
}

/* An input file must exist, be a regular file and be readable. */
static int check_in_file(const char *what, const char *path, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0)
    return snprintf(err, len, "%s '%s' not found (%s); check the path (relative paths start from the current "
                              "directory)", what, path, strerror(errno)), UM_ERR_CONFIG;
  if (!S_ISREG(st.st_mode)) return snprintf(err, len, "%s '%s' is not a regular file", what, path), UM_ERR_CONFIG;
  if (access(path, R_OK) != 0) return snprintf(err, len, "%s '%s' is not readable", what, path), UM_ERR_CONFIG;
  return UM_SUCCESS;
}

int umrun_names_compiler(const char *assignment) {
  const char *eq = strchr(assignment, '=');
  const size_t n = eq ? (size_t)(eq - assignment) : strlen(assignment);
  return (n == 6 && !strncmp(assignment, "run.cc", 6)) || (n == 10 && !strncmp(assignment, "run.cflags", 10)) ||
         (n == 8 && !strncmp(assignment, "hostc.cc", 8)) || (n == 12 && !strncmp(assignment, "hostc.cflags", 12));
}

/* hostc.cc and hostc.cflags (earlier run.cc, run.cflags) name a program that um runs, with its arguments: only
 * the command line (--set, --sweep) names them, or a config file or UM_OPTIONS when the command line says
 * --allow-compiler. */
static int check_compiler(const cmdline *c, um_config *cfg, char *err, size_t len) {
  static const char *const keys[] = {"run.cc", "run.cflags", "hostc.cc", "hostc.cflags"}; /* as written first */
  for (int k = 0; k < 4 && !c->allow_compiler; k++) {
    char where[1024] = "";
    if (um_config_kind(cfg, keys[k]) == UM_CONFIG_ABSENT || um_config_origin(cfg, keys[k], where, sizeof where))
      continue;
    if (!strcmp(where, "--set") || !strcmp(where, "--sweep")) continue;
    snprintf(err, len,
             "%s is set by %s: the compiler and its flags are a program um runs, so only the command line may name "
             "them (--set %s=...); pass --allow-compiler to accept the value from a config or UM_OPTIONS",
             keys[k], where, keys[k]);
    return UM_ERR_CONFIG;
  }
  return UM_SUCCESS;
}

/* Every input and output path the run will use, checked before the first
 * loop: a missing or misspelt file is a config error (exit status 1) found
 * at once, not after all the computing. */
int umrun_check_paths(const cmdline *c, const run_settings *s, um_config *cfg, char *err, size_t len) {
  const char *v = NULL;
  int rc = UM_SUCCESS;
  if (s->reference && *s->reference) { /* the reference is loaded (and its app checked) now */
    char why[4096] = "";
    um_ref *ref = NULL;
    if (umrun_ref_load(s->reference, &ref, why, sizeof why))
      return snprintf(err, len, "validation.reference: %s", why), UM_ERR_CONFIG;
    if (ref->app && strcmp(ref->app, s->app) != 0) {
      snprintf(err, len, "validation.reference '%s' holds reference numbers of app '%s', but the config runs '%s'; "
                         "point validation.reference at a reference of %s",
               s->reference, ref->app, s->app, s->app);
      rc = UM_ERR_CONFIG;
    }
    um_ref_free(ref);
    if (rc) return rc;
  }
  if (s->outdir && s->outdir[0] == '~' && (!s->outdir[1] || s->outdir[1] == '/')) /* a shell's, not a path's */
    return snprintf(err, len,
                    "output.dir '%s' begins with '~', which only a shell expands: here it would make a folder "
                    "named '~'; give the full path (--set output.dir=$HOME/...)",
                    s->outdir),
           UM_ERR_CONFIG;
  if (s->outdir && *s->outdir) {
    struct stat st, lst;
    const int gone = stat(s->outdir, &st) != 0 ? errno : 0;
    if (gone && lstat(s->outdir, &lst) == 0 && S_ISLNK(lst.st_mode)) { /* a link to nothing, or a loop of links */
      char to[1024];
      const ssize_t n = readlink(s->outdir, to, sizeof to - 1);
      to[n > 0 ? n : 0] = '\0';
      return snprintf(err, len,
                      "output.dir '%.1024s' is a symbolic link to '%s', which %s; create the folder it names "
                      "or fix the link",
                      s->outdir, to, gone == ELOOP ? "leads back to itself (a loop of links)" : "does not exist"),
             UM_ERR_CONFIG;
    }
    if (!gone && !S_ISDIR(st.st_mode))
      return snprintf(err, len, "output.dir '%s' exists and is not a folder; remove it or choose another output.dir",
                      s->outdir), UM_ERR_CONFIG;
    char why[512];
    /* now, not after the run; a folder gone meanwhile (another run's, made and taken away again) is made later */
    if (!gone && umrun_probe_writable(s->outdir, why, sizeof why) && stat(s->outdir, &st) == 0)
      return snprintf(err, len, "output.dir '%.1024s' is not writable (%s); make it writable or choose another "
                                "output.dir", s->outdir, why), UM_ERR_CONFIG;
  }
  if ((rc = check_compiler(c, cfg, err, len))) return rc;
  if (c->json_path && (rc = check_out_file("--json file", c->json_path, err, len))) return rc;
  if (c->csv_path && (rc = check_out_file("--csv file", c->csv_path, err, len))) return rc;
  if (c->draw.path && (rc = check_out_file("--draw file", c->draw.path, err, len))) return rc;
  if (um_config_kind(cfg, "mesh.file") == UM_CONFIG_SCALAR && !um_config_get_string(cfg, "mesh.file", NULL, &v, NULL, 0) &&
      v && *v && (rc = check_in_file("mesh.file", v, err, len)))
    return rc;
  v = NULL;
  um_config_kind_t kind = UM_CONFIG_ABSENT;
  if ((rc = umrun_opt_kind(cfg, "run.reorder_file", &kind, err, len))) return rc;
  if (kind == UM_CONFIG_SCALAR && !umrun_opt_string(cfg, "run.reorder_file", &v, NULL, 0) && v && *v) {
    rc = file_exists(v) ? check_in_file("run.reorder_file", v, err, len) : check_out_file("run.reorder_file", v, err, len);
    if (rc) return rc;
  }
  return UM_SUCCESS;
}

void umrun_signal_note(const um_runner *r, int status) {
  um_safe_signal_message(r->prog,
                         status < 0 ? "the run did not finish; the files it had not completed were removed (none is "
                                      "left half-written). To stop a long run at a checkpoint and continue it later: "
                                      "checkpoint.on_signal (SIGTERM, SIGUSR1; docs/checkpoints.md)"
                         : status == EXIT_STOPPED    ? "the job was ending at its checkpoint (mpirun stops the other "
                                                       "ranks when one exits with a status other than 0): --restart "
                                                       "continues it"
                         : status == EXIT_VALIDATION ? "the job was ending, its validation failed (mpirun stops the "
                                                       "other ranks when one exits with a status other than 0)"
                                                     : "the job was ending after an error (mpirun stops the other "
                                                       "ranks when one exits with a status other than 0): the "
                                                       "messages above say why");
}

/* run.unknown_keys: error (default: a key nobody read stops the run before the
 * first loop) or warn. */
int umrun_read_unknown_keys(um_config *cfg, int *mode, char *err, size_t len) {
  int m = 0, rc = umrun_opt_choice(cfg, "run.unknown_keys", &m, NULL, err, len);
  if (rc) return rc == UM_ERR_INTERNAL ? rc : UM_ERR_CONFIG;
  *mode = m ? UM_APP_KEYS_WARN : UM_APP_KEYS_ERROR;
  /* the declared settings of a backend this machine lacks (cuda.* without a GPU) are known keys, noted and
   * ignored; any other key under it is unknown like any misspelt key (cuda.profle: did you mean cuda.profile?) */
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    char why[512];
    if (um_config_kind(cfg, b) != UM_CONFIG_MAPPING || um_backend_status(b, why, sizeof why)) continue;
    const int declared = um_backend_option_count(b);
    for (int k = 0; k < declared; k++) {
      const char *name, *v = NULL;
      char key[256];
      um_backend_option_at(b, k, &name, NULL, NULL, NULL);
      snprintf(key, sizeof key, "%s.%s", b, name);
      if (um_config_get_string(cfg, key, NULL, &v, err, len)) return UM_ERR_CONFIG; /* read: a known key */
      if (v) fprintf(stdout, "note: %s is a setting of the %s backend, which is not available here; ignored\n", key, b);
    }
    if (!declared) { /* a backend not built: its settings are not known here, so not checked: said, then ignored */
      int n = 0;
      if (um_config_keys(cfg, b, &n, NULL, 0, err, len)) return UM_ERR_CONFIG;
      const char **names = n ? malloc((size_t)n * sizeof *names) : NULL;
      if (n && (!names || um_config_keys(cfg, b, &n, names, n, err, len))) {
        if (!names) snprintf(err, len, "out of memory");
        free(names);
        return UM_ERR_CONFIG;
      }
      for (int k = 0; k < n; k++) fprintf(stdout, "%s%s.%s", k ? ", " : "note: ", b, names[k]);
      if (n) fprintf(stdout, ": not checked, ignored: %s\n", why); /* an empty mapping (cuda: {}): nothing to say */
      free(names);
      um_config_mark_read(cfg, b, NULL, 0);
    }
  }
  return UM_SUCCESS;
}

