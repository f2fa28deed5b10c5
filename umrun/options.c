/* The runner's options: one declaration per key (options.h), the typed reads
 * that take their defaults, choices and ranges from it, and the help and the
 * markdown reference printed from it. */
#include "options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um/backend.h"
#include "um/um.h"

#define CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A key the engine declares (um/option_decl.h: core/context.c, transform/split.c, ...): the table holds the
 * engine's declaration itself; here only its place in --help. */
#define FROM_ENGINE (1 << 30)
#define ENGINE(k) {.key = k, .flags = FROM_ENGINE}

/* In the order of umrun --help. The help text says what the key does; the
 * default and the choices are printed from their own fields. */
static const um_option declared_here[] = {
    {.key = "app",
     .type = UM_OPT_CHOICE,
     .range_hint = "a registered app (umrun --list-apps)",
     .help = "the app to run"},
    {.key = "mesh.*", .type = UM_OPT_APP, .help = "generator and its parameters, or mesh.file"},
    {.key = "params.*", .type = UM_OPT_APP, .help = "app parameters"},
    ENGINE("run.backend"),
    ENGINE("run.strategy"),
    ENGINE("run.layout"),
    ENGINE("run.block_size"),
    ENGINE("run.threads"),
    ENGINE("run.check_plans"),
    ENGINE("openmp.parallel_threshold"),
    {.key = "run.reorder",
     .type = UM_OPT_CHOICE,
     .def = "none",
     .choices = CHOICES("none", "gps", "partition"),
     .help = "renumber the mesh for locality before the run"},
    {.key = "run.reorder_map",
     .type = UM_OPT_STRING,
     .help = "the map it is based on (default: the app's main indirect map)"},
    {.key = "run.reorder_file",
     .type = UM_OPT_STRING,
     .flags = UM_OPT_PATH | UM_OPT_PATH_NEW_OK,
     .help = "HDF5 file to save the permutation to / load it from (once per mesh)"},
    ENGINE("mpi.partitioner"),
    ENGINE("mpi.partition_budget_s"),
    ENGINE("mpi.partition_coords"),
    ENGINE("mpi.increments"),
    ENGINE("mpi.loops.<loop>"),
    ENGINE("mpi.gpu_transport"),
    ENGINE("mpi.gpu_transport_min_bytes"),
    {.key = "mpi.deadline_s",
     .type = UM_OPT_DOUBLE,
     .def = "60",
     .min = 1,
     .max = 86400,
     .range_hint = "use 1 .. 86400 seconds",
     .flags = UM_OPT_RANGE | UM_OPT_HINT_DEFAULT,
     .help = "a rank that failed alone waits this long for the others to reach\n"
             "the end of the run, then stops every rank with its message (MPI_Abort)"},
    ENGINE("mpi.partition_set"),
    {.key = "mpi.mesh",
     .type = UM_OPT_CHOICE,
     .def = "blocks",
     .choices = CHOICES("blocks", "whole"),
     .flags = UM_OPT_NEEDS_MPI,
     .help = "how the ranks hold the mesh while it is declared: blocks: each rank makes or reads\n"
             "only its block of every set (apps whose generator or file can: no rank holds the\n"
             "whole mesh; the others say so and declare it whole); whole: every rank declares\n"
             "the whole mesh and keeps its rows when it is distributed (needed by run.reorder)"},
    ENGINE("run.split"),
    ENGINE("split.<loop>"),
    {.key = "block_size.<loop>",
     .type = UM_OPT_INT,
     .def = "0",
     .min = 0,
     .max = 1024,
     .flags = UM_OPT_RANGE,
     .range_hint = "must be 0 (run.block_size) to 1024",
     .help = "run.block_size for one loop, as run.tune may keep it: block_size: {getforce: 128};\n"
             "0: run.block_size"},
    {.key = "variant.<loop>",
     .type = UM_OPT_INT,
     .def = "0",
     .min = 0,
     .max = 64,
     .flags = UM_OPT_RANGE,
     .range_hint = "must be 0 (the backend's default kernel) to 64",
     .help = "the backend's kernel variant for one loop, as run.tune may keep it:\n"
             "variant: {volume_force: 2}. cuda: 0 registers as compiled,\n"
             "1 (2) registers for one (two) more resident blocks per SM; one past\n"
             "the backend's variants is refused, and a backend with none (the CPU\n"
             "backends) runs its default with a note"},
    ENGINE("run.tune"),
    ENGINE("run.reproducible"),
    {.key = "run.prefetch",
     .type = UM_OPT_BOOL,
     .def = "true",
     .help = "device backends: every dat and map goes to the device at the end of\n"
             "set-up (after reordering and distribution), as OP2 copies data when it\n"
             "is declared, not at the first loop that uses it (the JSON's\n"
             "prefetch_seconds, prefetch_bytes); nothing is copied ahead when it would\n"
             "take over half the device's free memory. false: each loop copies what\n"
             "it uses at its first call"},
    ENGINE("run.row_align"),
    ENGINE("hostc.compile"),
    ENGINE("hostc.compile_after"),
    ENGINE("hostc.compile_simd"),
    ENGINE("hostc.cc"),
    ENGINE("hostc.cflags"),
    ENGINE("run.cache"),
    {.key = "run.iterations", .type = UM_OPT_APP, .help = "iterations of the app's main loop"},
    {.key = "run.unknown_keys",
     .type = UM_OPT_CHOICE,
     .def = "error",
     .choices = CHOICES("error", "warn"),
     .help = "a config key nothing reads (misspelt, or another app's) is\n"
             "an error before the first loop, naming the key, where it came from and\n"
             "the closest key that is read; warn: a warning, and run"},
    {.key = "validation.reference",
     .type = UM_OPT_STRING,
     .flags = UM_OPT_PATH | UM_OPT_EMPTY_OK,
     .help = "validation/<app>/<case>.ref.yaml to check the run against (metrics\n"
             "and field files; loaded before the run; field files go to output.dir,\n"
             "else to a temporary folder removed after validation); empty: not validated"},
    {.key = "checkpoint.every",
     .type = UM_OPT_STRING,
     .help = "write a checkpoint every N steps (100) or every so long (600s,\n"
             "10m, 2h; the ranks agree on the step); absent or 0: none\n"
             "(docs/checkpoints.md)"},
    {.key = "checkpoint.dir",
     .type = UM_OPT_STRING,
     .help = "the folder of the checkpoints: <app>-step<N>.h5, each written\n"
             "through a temporary and renamed into place; every rank must see it;\n"
             "made and checked before the first step (writable, and no checkpoint\n"
             "of the app with other settings there); not set: output.dir/checkpoints,\n"
             "or ./checkpoints when output.dir is empty (the run says where)"},
    {.key = "checkpoint.keep",
     .type = UM_OPT_INT,
     .def = "2",
     .min = 1,
     .max = 1000000,
     .flags = UM_OPT_RANGE,
     .range_hint = "use 1 .. 1000000 (how many of the app's newest checkpoints checkpoint.dir keeps)",
     .help = "how many of the app's newest checkpoints to keep in checkpoint.dir\n"
             "(an older one is removed only once the new one is complete)"},
    {.key = "checkpoint.on_signal",
     .type = UM_OPT_BOOL,
     .def = "false",
     .help = "SIGTERM or SIGUSR1 (a scheduler's warning before preemption)\n"
             "reaching any rank: a checkpoint at the next step every rank agrees on,\n"
             "then exit with status 4"},
    {.key = "checkpoint.stop_after",
     .type = UM_OPT_INT,
     .def = "0",
     .min = 0,
     .max = 2147483647,
     .flags = UM_OPT_RANGE,
     .range_hint = "use 0 (never) or a step, at most 2147483647",
     .help = "write a checkpoint after step N and exit with status 4 (a run cut\n"
             "into jobs: each continues with --restart); 0: never"},
    {.key = "checkpoint.restart",
     .type = UM_OPT_STRING,
     .help = "continue from this checkpoint, or the newest of the app's in this\n"
             "folder (what --restart PATH sets): any ranks, backend, layout,\n"
             "strategy; the app's settings and mesh must be the checkpoint's"},
    {.key = "output.dir",
     .type = UM_OPT_STRING,
     .flags = UM_OPT_EMPTY_OK,
     .help = "where to write final fields (HDF5 + XDMF); empty: no output files"},
    {.key = "output.hdf5", .type = UM_OPT_BOOL, .def = "false", .help = "write the final fields as HDF5 + XDMF"},
    {.key = "sweep",
     .type = UM_OPT_LIST,
     .help = "runs of every combination of the listed values, as --sweep:\n"
             "sweep: [\"run.layout=aos,soa\"] (umrun --sweep --help)"},
    {.key = "run.profile",
     .type = UM_OPT_STRING,
     .renamed_to = "cuda.profile",
     .help = "the earlier spelling of cuda.profile, still read (with a note)"},
    {.key = "run.staging",
     .type = UM_OPT_STRING,
     .renamed_to = "cuda.staging",
     .help = "the earlier spelling of cuda.staging, still read (with a note)"},
};
#define NHERE ((int)(sizeof declared_here / sizeof declared_here[0]))

/* The runner's table, read in place (no copy, no state): declared_here, an ENGINE entry standing for the engine's
 * declaration, then every engine option declared_here does not place (a new engine key is in --help and the doc
 * at once). */
static const um_option *here(int i) {
  const um_option *o = &declared_here[i];
  if (!(o->flags & FROM_ENGINE)) return o;
  const um_option *e = um_option_find(o->key);
  if (!e || strcmp(e->key, o->key)) {
    fprintf(stderr, "umrun: internal error: the engine declares no option '%s' (umrun/options.c)\n", o->key);
    abort();
  }
  return e;
}
/* 1 if e is a backend's own setting (its um_backend_def.options: cuda.profile), of the backend b. */
static int of_backend(const um_option *e, const char *b) {
  const size_t n = strlen(b);
  if (strncmp(e->key, b, n) || e->key[n] != '.') return 0;
  for (int k = 0; k < um_backend_option_count(b); k++) {
    const char *key;
    um_backend_option_at(b, k, &key, NULL, NULL, NULL);
    if (!strcmp(key, e->key + n + 1)) return 1;
  }
  return 0;
}

/* Placed by declared_here, or a backend's own setting (in the backends' section, read by settings.c), so not
 * appended to the runner's table. */
static int placed(const um_option *e) {
  for (int b = 0; b < um_backend_count(); b++)
    if (of_backend(e, um_backend_at(b))) return 1;
  for (int k = 0; k < NHERE; k++)
    if (!strcmp(declared_here[k].key, e->key)) return 1;
  return 0;
}

int umrun_option_count(void) {
  int n = NHERE;
  for (int i = 0; i < um_option_count(); i++) n += !placed(um_option_at(i));
  return n;
}
const um_option *umrun_option_at(int i) {
  if (i < 0) return NULL;
  if (i < NHERE) return here(i);
  i -= NHERE;
  for (int k = 0; k < um_option_count(); k++)
    if (!placed(um_option_at(k)) && i-- == 0) return um_option_at(k);
  return NULL;
}
#define NOPT umrun_option_count()

const char *umrun_opt_type_name(um_opt_type t) {
  switch (t) {
    case UM_OPT_STRING: return "string";
    case UM_OPT_INT: return "int";
    case UM_OPT_LONG: return "int";
    case UM_OPT_DOUBLE: return "double";
    case UM_OPT_BOOL: return "bool";
    case UM_OPT_CHOICE: return "choice";
    case UM_OPT_LIST: return "list";
    case UM_OPT_APP: return "(app)";
  }
  return "?";
}

/* "sweep.3": an item of a list option */
static int is_item_of(const char *list, const char *key) {
  const size_t n = strlen(list);
  if (strncmp(list, key, n) || key[n] != '.' || !key[n + 1]) return 0;
  return strspn(key + n + 1, "0123456789") == strlen(key + n + 1);
}

static const um_option *find_in(const um_option *t, int n, const char *key, int skip_app) {
  for (int i = 0; key && t && i < n; i++) {
    const um_option *o = &t[i];
    if (skip_app && o->type == UM_OPT_APP) continue; /* the app's, not the runner's */
    if (um_option_key_matches(o->key, key) || (o->type == UM_OPT_LIST && is_item_of(o->key, key))) return o;
  }
  return NULL;
}

static int matches(const um_option *o, const char *key) {
  if (o->type == UM_OPT_APP) return 0; /* the app's, not the runner's */
  return um_option_key_matches(o->key, key) || (o->type == UM_OPT_LIST && is_item_of(o->key, key));
}

/* app_scope set: an app reads its own options (um_app_int, ...): its table, and only it. */
static const um_option *find_scoped(const um_app *app_scope, const char *key) {
  if (app_scope) return find_in(app_scope->options, app_scope->noptions, key, 0);
  for (int i = 0; key && i < NHERE; i++)
    if (matches(here(i), key)) return here(i);
  for (int i = 0; key && i < um_option_count(); i++)
    if (!placed(um_option_at(i)) && matches(um_option_at(i), key)) return um_option_at(i);
  return NULL;
}

const um_option *umrun_option_find(const char *key) { return find_scoped(NULL, key); }
const um_option *umrun_app_option_find(const um_app *app, const char *key) { return app ? find_scoped(app, key) : NULL; }

int umrun_backend_key(const char *key) {
  for (int b = 0; key && b < um_backend_count(); b++) {
    const char *name = um_backend_at(b);
    const size_t n = strlen(name);
    if (strncmp(key, name, n) || key[n] != '.') continue;
    const int declared = um_backend_option_count(name);
    if (!declared) return !um_backend_available(name); /* not in this build: a run notes its settings, ignores them */
    for (int k = 0; k < declared; k++) {
      const char *s = NULL;
      um_backend_option_at(name, k, &s, NULL, NULL, NULL);
      if (s && !strcmp(s, key + n + 1)) return 1;
    }
  }
  return 0;
}

int umrun_key_declared(const um_app *app, const char *key) {
  return umrun_option_find(key) || umrun_app_option_find(app, key) || umrun_backend_key(key);
}

const char *umrun_option_suggest(const um_app *app, const char *key) {
  const int nr = umrun_option_count(), na = app ? app->noptions : 0, ne = um_option_count();
  const char **keys = malloc((size_t)(nr + na + ne + 1) * 2 * sizeof *keys), **now = keys + nr + na + ne + 1;
  if (!keys) return NULL;
  int n = 0;
  for (int i = 0; i < nr + na + ne; i++) { /* the keys a user writes as they are (not "mesh.*", "split.<loop>") */
    const um_option *o = i < nr ? umrun_option_at(i) : i < nr + na ? &app->options[i - nr] : um_option_at(i - nr - na);
    if (i >= nr + na && !umrun_backend_key(o->key)) continue; /* of the engine's: the backends' own settings */
    if (o->key && o->type != UM_OPT_APP && !strchr(o->key, '*') && !strchr(o->key, '<')) {
      now[n] = o->renamed_to ? o->renamed_to : o->key; /* an earlier spelling (run.profile): its name now */
      keys[n++] = o->key;
    }
  }
  const char *best = um_config_closest(key, keys, n);
  for (int i = 0; best && i < n; i++)
    if (keys[i] == best) {
      best = now[i];
      break;
    }
  free(keys);
  return best;
}

int umrun_check_empty_set(const um_runner *r, um_config *cfg, const char *assignment, char *err, size_t len) {
  const char *eq = strchr(assignment, '='), *v = eq ? eq + 1 : "";
  while (*v == ' ' || *v == '\t') v++;
  if (!eq || *v) return UM_SUCCESS;
  char key[256];
  const char *kb = assignment, *ke = eq;
  while (kb < ke && (*kb == ' ' || *kb == '\t')) kb++;
  while (ke > kb && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
  snprintf(key, sizeof key, "%.*s", (int)(ke - kb), kb);
  const char *app = NULL;
  if (um_config_kind(cfg, "app") == UM_CONFIG_SCALAR) um_config_get_string(cfg, "app", NULL, &app, NULL, 0);
  const um_option *o = umrun_app_option_find(app ? um_app_find(r, app) : NULL, key);
  if (!o) o = umrun_option_find(key);
  if (o && (o->flags & UM_OPT_EMPTY_OK)) return UM_SUCCESS; /* output.dir=: no outputs, as its help says */
  snprintf(err, len,
           "--set %s=: an empty value, which %s gives no meaning; write a value (--set %s=VALUE), leave the --set out "
           "for the config's value or the default, or write --set %s=null to drop a value the config sets",
           key, o ? "this key" : "um", key, key);
  return UM_ERR_CONFIG;
}

/* The mapping above a "<name>" option ("mpi.loops" of "mpi.loops.<loop>"), if `key` is one. */
static const um_option *parent_of(const char *key) {
  const size_t n = strlen(key);
  for (int i = 0, n_ = NOPT; i < n_; i++) {
    const um_option *o = umrun_option_at(i);
    if (!strncmp(o->key, key, n) && o->key[n] == '.' && o->key[n + 1] == '<') return o;
  }
  return NULL;
}

/* The declaration of a key read as `type`; UM_ERR_INTERNAL when there is none or it says another type. */
static int declared(const um_app *app_scope, const char *key, um_opt_type type, const um_option **out, char *err,
                    size_t len) {
  const um_option *o = find_scoped(app_scope, key);
  if (!o && app_scope) {
    if (err && len)
      snprintf(err, len, "internal error: the app '%s' reads the option '%s', which is not declared in its options "
                         "table (um_app.options): declare it there (type, default, allowed values, help)",
               app_scope->name, key ? key : "(null)");
    return UM_ERR_INTERNAL;
  }
  if (!o) {
    if (err && len)
      snprintf(err, len, "internal error: the runner reads the option '%s', which is not declared in its option "
                         "table (umrun/options.c): declare it there (type, default, allowed values, help)", key ? key : "(null)");
    return UM_ERR_INTERNAL;
  }
  const int item = o->type == UM_OPT_LIST && type == UM_OPT_STRING && strcmp(o->key, key);
  if (o->type != type && !item) {
    if (err && len)
      snprintf(err, len, "internal error: the option '%s' is declared as %s (%s) but read as %s", key,
               umrun_opt_type_name(o->type), app_scope ? "um_app.options" : "umrun/options.c",
               umrun_opt_type_name(type));
    return UM_ERR_INTERNAL;
  }
  *out = o;
  return UM_SUCCESS;
}

/* An option declared without a default: the runner's read 0; an app's keeps the value the variable
 * holds (a default that comes from the app's input: BookLeaf's deck, miniAero's input file). */
#define keep(v) (app_scope ? (v) : 0)

/* "<key> = <value>: <range_hint> (from file t.yaml:5)": where the value came from, as a type error says. */
static int out_of_range(const um_config *cfg, const um_option *o, const char *key, double v, const char *shown,
                        char *err, size_t len) {
  if (!(o->flags & UM_OPT_RANGE) || (v >= o->min && v <= o->max)) return 0;
  if (err && len) {
    char org[600] = "", from[640] = "";
    if (cfg && um_config_origin(cfg, key, org, sizeof org) == UM_SUCCESS) snprintf(from, sizeof from, " (from %s)", org);
    if (o->flags & UM_OPT_HINT_DEFAULT)
      snprintf(err, len, "%s = %s: %s (default %s)%s", key, shown, o->range_hint, o->def, from);
    else snprintf(err, len, "%s = %s: %s%s", key, shown, o->range_hint, from);
  }
  return 1;
}

/* An integer past what the key's type holds ("checkpoint.keep = 3000000000"), for a key with a declared range: the
 * range error (its range_hint), not the type's limits, which the key never allows anyway. 1 with err written. */
static int past_type(um_config *cfg, const um_option *o, const char *key, char *err, size_t len) {
  if (!(o->flags & UM_OPT_RANGE)) return 0;
  long long v;
  const char *text = NULL;
  char e[8], shown[32];
  if (um_config_get_long(cfg, key, 0, &v, e, sizeof e) == UM_SUCCESS) {
    snprintf(shown, sizeof shown, "%lld", v);
    return out_of_range(cfg, o, key, (double)v, shown, err, len);
  }
  if (um_config_get_string(cfg, key, NULL, &text, e, sizeof e) || !text) return 0;
  const char *d = text + (*text == '+' || *text == '-'); /* past 64 bits: decimal digits alone */
  if (!*d || strspn(d, "0123456789") != strlen(d)) return 0;
  return out_of_range(cfg, o, key, *text == '-' ? -HUGE_VAL : HUGE_VAL, text, err, len);
}

int umrun_app_opt_string(const um_app *app_scope, um_config *cfg, const char *key, const char **out, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_STRING, &o, err, len);
  return rc ? rc : um_config_get_string(cfg, key, o->type == UM_OPT_STRING ? o->def : NULL, out, err, len);
}

int umrun_app_opt_int(const um_app *app_scope, um_config *cfg, const char *key, int *out, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_INT, &o, err, len);
  if (rc) return rc;
  if ((rc = um_config_get_int(cfg, key, o->def ? atoi(o->def) : keep(*out), out, err, len)))
    return past_type(cfg, o, key, err, len) ? UM_ERR_CONFIG : rc;
  char shown[32];
  snprintf(shown, sizeof shown, "%d", *out);
  return out_of_range(cfg, o, key, *out, shown, err, len) ? UM_ERR_CONFIG : UM_SUCCESS;
}

int umrun_app_opt_long(const um_app *app_scope, um_config *cfg, const char *key, long long *out, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_LONG, &o, err, len);
  if (rc) return rc;
  if ((rc = um_config_get_long(cfg, key, o->def ? atoll(o->def) : keep(*out), out, err, len)))
    return past_type(cfg, o, key, err, len) ? UM_ERR_CONFIG : rc;
  char shown[32];
  snprintf(shown, sizeof shown, "%lld", *out);
  return out_of_range(cfg, o, key, (double)*out, shown, err, len) ? UM_ERR_CONFIG : UM_SUCCESS;
}

int umrun_app_opt_double(const um_app *app_scope, um_config *cfg, const char *key, double *out, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_DOUBLE, &o, err, len);
  if (rc) return rc;
  if ((rc = um_config_get_double(cfg, key, o->def ? strtod(o->def, NULL) : keep(*out), out, err, len))) return rc;
  char shown[32];
  snprintf(shown, sizeof shown, "%g", *out);
  return out_of_range(cfg, o, key, *out, shown, err, len) ? UM_ERR_CONFIG : UM_SUCCESS;
}

int umrun_app_opt_bool(const um_app *app_scope, um_config *cfg, const char *key, int *out, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_BOOL, &o, err, len);
  return rc ? rc : um_config_get_bool(cfg, key, o->def ? !strcmp(o->def, "true") : (int)keep(*out), out, err, len);
}

int umrun_app_opt_choice(const um_app *app_scope, um_config *cfg, const char *key, int *index, const char **name, char *err, size_t len) {
  const um_option *o;
  int rc = declared(app_scope, key, UM_OPT_CHOICE, &o, err, len);
  if (!rc && !o->choices) {
    if (err && len)
      snprintf(err, len, "internal error: the option '%s' has no fixed choices (umrun/options.c): read it with "
                         "umrun_opt_choice_in", key);
    rc = UM_ERR_INTERNAL;
  }
  if (rc) return rc;
  int n = 0, pick = -1;
  while (o->choices[n]) n++;
  if ((rc = um_config_get_choice(cfg, key, o->def, o->choices, n, &pick, err, len))) return rc;
  if (index) *index = pick;
  if (name) *name = pick >= 0 ? o->choices[pick] : NULL;
  return UM_SUCCESS;
}

int umrun_opt_string(um_config *cfg, const char *key, const char **out, char *err, size_t len) {
  return umrun_app_opt_string(NULL, cfg, key, out, err, len);
}
int umrun_opt_int(um_config *cfg, const char *key, int *out, char *err, size_t len) {
  return umrun_app_opt_int(NULL, cfg, key, out, err, len);
}
int umrun_opt_long(um_config *cfg, const char *key, long long *out, char *err, size_t len) {
  return umrun_app_opt_long(NULL, cfg, key, out, err, len);
}
int umrun_opt_double(um_config *cfg, const char *key, double *out, char *err, size_t len) {
  return umrun_app_opt_double(NULL, cfg, key, out, err, len);
}
int umrun_opt_bool(um_config *cfg, const char *key, int *out, char *err, size_t len) {
  return umrun_app_opt_bool(NULL, cfg, key, out, err, len);
}
int umrun_opt_choice(um_config *cfg, const char *key, int *index, const char **name, char *err, size_t len) {
  return umrun_app_opt_choice(NULL, cfg, key, index, name, err, len);
}

int umrun_opt_choice_in(um_config *cfg, const char *key, const char *const *choices, int n, int *index, char *err,
                        size_t len) {
  const um_option *o;
  int rc = declared(NULL, key, UM_OPT_CHOICE, &o, err, len);
  return rc ? rc : um_config_get_choice(cfg, key, o->def, choices, n, index, err, len);
}

int umrun_app_opt_kind(const um_app *app_scope, const um_config *cfg, const char *key, um_config_kind_t *kind, char *err, size_t len) {
  if (!find_scoped(app_scope, key) && !(key && parent_of(key))) {
    const um_option *o;
    return declared(app_scope, key, UM_OPT_STRING, &o, err, len);
  }
  *kind = um_config_kind(cfg, key);
  return UM_SUCCESS;
}

int umrun_opt_kind(const um_config *cfg, const char *key, um_config_kind_t *kind, char *err, size_t len) {
  return umrun_app_opt_kind(NULL, cfg, key, kind, err, len);
}

const um_option *umrun_opt_first_set(const um_config *cfg, int flags) {
  for (int i = 0, n_ = NOPT; i < n_; i++) {
    const um_option *o = umrun_option_at(i);
    if ((o->flags & flags) != flags || o->type == UM_OPT_APP) continue;
    const char *lt = strstr(o->key, ".<"); /* "mpi.loops.<loop>": is there an mpi.loops? */
    char key[128];
    snprintf(key, sizeof key, "%.*s", lt ? (int)(lt - o->key) : (int)strlen(o->key), o->key);
    if (um_config_has(cfg, key)) return o;
  }
  return NULL;
}

/* ---- documentation --------------------------------------------------------------------- */

static void join_choices(const um_option *o, const char *sep, char *buf, size_t n) {
  buf[0] = '\0';
  if (o->type == UM_OPT_CHOICE && !o->choices) {
    snprintf(buf, n, "%s", o->range_hint ? o->range_hint : "");
    return;
  }
  for (int i = 0; o->choices && o->choices[i]; i++) {
    const size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", i ? sep : "", o->choices[i]);
  }
}

static void help_row(FILE *f, const um_option *o, int indent) {
  if (o->renamed_to) return; /* earlier spellings: in the reference, not in --help */
  char head[256];
  join_choices(o, " | ", head, sizeof head);
  if (strlen(o->key) < 19) fprintf(f, "%*s%-19s ", indent, "", o->key);
  else fprintf(f, "%*s%s  ", indent, "", o->key);
  if (*head) fprintf(f, "%s   ", head);
  for (const char *p = o->help ? o->help : ""; *p;) {
    const char *nl = strchr(p, '\n');
    const int len = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(f, "%.*s", len, p);
    p += len;
    if (*p) {
      fprintf(f, "\n%*s", indent + 20, "");
      p++;
    }
  }
  if (o->def && o->type != UM_OPT_APP) fprintf(f, " (default %s)", o->def);
  fputc('\n', f);
}

void umrun_options_help_table(FILE *f, const um_option *t, int n, int indent) {
  for (int i = 0; t && i < n; i++) help_row(f, &t[i], indent);
}

void umrun_options_help(FILE *f) {
  for (int i = 0, n_ = NOPT; i < n_; i++) help_row(f, umrun_option_at(i), 2);
}

/* A table cell: '|' escaped, '<' '>' '&' as entities, newlines as spaces. */
static void md_cell(FILE *f, const char *s) {
  for (const char *p = s; p && *p; p++) {
    switch (*p) {
      case '|': fputs("\\|", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '\n': fputc(' ', f); break;
      default: fputc(*p, f);
    }
  }
}

static void md_code(FILE *f, const char *s) {
  fputc('`', f);
  for (const char *p = s; *p; p++) {
    if (*p == '|') fputc('\\', f);
    fputc(*p, f);
  }
  fputc('`', f);
}

static void md_values(FILE *f, const char *const *choices, const char *text) {
  if (choices && choices[0]) {
    for (int i = 0; choices[i]; i++) {
      fputs(i ? ", " : "", f);
      md_code(f, choices[i]);
    }
  } else {
    md_cell(f, text);
  }
}

static void md_row(FILE *f, const um_option *o) {
  fputs("| ", f);
  md_code(f, o->key);
  fprintf(f, " | %s | ", umrun_opt_type_name(o->type));
  if (o->def) md_code(f, o->def);
  else fputs("—", f);
  fputs(" | ", f);
  if (o->type == UM_OPT_BOOL) md_values(f, CHOICES("true", "false"), NULL);
  else if (o->type == UM_OPT_CHOICE) md_values(f, o->choices, o->range_hint);
  else if (o->range_hint) md_cell(f, strncmp(o->range_hint, "use ", 4) ? o->range_hint : o->range_hint + 4);
  else if (o->type == UM_OPT_LIST) fputs("`key=v1,v2,...` strings", f);
  else fputs("any", f);
  fputs(" | ", f);
  md_cell(f, o->help);
  if (o->renamed_to) {
    fputs(" (now `", f);
    md_cell(f, o->renamed_to);
    fputs("`)", f);
  }
  fputs(" |\n", f);
}

static void md_table(FILE *f, const um_option *t, int n) {
  for (int i = 0; t && i < n; i++) md_row(f, &t[i]);
}

void umrun_options_markdown(FILE *f, const um_runner *r) {
  fputs("# Options\n\n"
        "<!-- Generated by `umrun --help-options=markdown`: do not edit. The test umrun.options_doc_current\n"
        "     (tests/check_options_doc.cmake) fails when it differs from what umrun prints; it says how to\n"
        "     regenerate it. -->\n\n"
        "Every key a config can set, from the declarations they are read with: the engine's, each\n"
        "declared by the component that reads it (`um/option_decl.h`: `run.backend` ... `run.row_align`\n"
        "and `run.cache` in `core/context.c`, `hostc.compile`, `hostc.cc` ... in `backends/host/hostc.c`,\n"
        "`openmp.parallel_threshold` in `backends/openmp_options.c`, `run.split` and `run.reproducible`\n"
        "in `transform/split.c`, `run.tune` in `tune/tune.c`, `mpi.*` in `distributed/dist_options.c`;\n"
        "a library applies them with `um_option_apply` or `um_options_set`), the runner's own\n"
        "(`umrun/options.c`), each backend's own settings (`um_backend_def.options`) and each app's\n"
        "(`um_app.options`: `mesh.*`, `params.*`, `run.iterations`; also `umrun --list-apps`).\n\n"
        "Values come from, in increasing priority: the config file (or the embedded default job), the\n"
        "environment variable `UM_OPTIONS` (`UM_OPTIONS='run.backend=seq mesh.I=40'`), then each\n"
        "`--set key=value`. A key nothing reads stops the run before the first loop (`run.unknown_keys`).\n"
        "An empty `--set key=` is refused, except for the keys whose description says what empty means\n"
        "(`output.dir=`: no output files; `validation.reference=`: not validated); `--set key=null` drops\n"
        "a value the config sets.\n\n"
        "## The runner\n\n"
        "| key | type | default | allowed values | description |\n"
        "|---|---|---|---|---|\n",
        f);
  for (int i = 0, n_ = NOPT; i < n_; i++) md_row(f, umrun_option_at(i));
  fputs("\n## Backends\n\n"
        "Each backend's own settings, `<backend>.<key>`; every one can also come from the environment\n"
        "variable `UM_<BACKEND>_<KEY>` (`UM_CUDA_DUMP=1`), used only where the config, `UM_OPTIONS` and\n"
        "`--set` leave the key unset (a library: `um_options_set_backend` comes first), and checked against\n"
        "the setting's allowed values as a config value is (`UM_CUDA_DUMP=false` is refused, naming the\n"
        "variable). Listed by priority; a build prints the backends it has (the test keeps the sections of\n"
        "the others).\n",
        f);
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    if (!um_backend_option_count(b) && !um_backend_available(b)) continue; /* not in this build */
    fprintf(f, "\n<!-- backend %s -->\n### %s\n\n", b, b);
    if (!um_backend_option_count(b)) fputs("No settings of its own.\n", f);
    else
      fputs("| key | type | default | allowed values | description |\n"
            "|---|---|---|---|---|\n",
            f);
    for (int k = 0; k < um_option_count(); k++) /* its declarations (um_backend_def.options) */
      if (of_backend(um_option_at(k), b)) md_row(f, um_option_at(k));
    fprintf(f, "<!-- end backend %s -->\n", b);
  }
  fputs("\n## Apps\n\n"
        "Each app's own options, read with `um_app_int` and the other reads of `um/app.h` from the app's\n"
        "table (`um_app.options`): the apps this program has, in `--list-apps` order.\n",
        f);
  for (int i = 0; i < um_app_count(r); i++) {
    const um_app *a = um_app_at(r, i);
    fprintf(f, "\n### %s\n\n", a->name);
    md_cell(f, a->description);
    fputs("\n\n", f);
    if (!a->noptions) {
      fputs("No options of its own.\n", f);
      continue;
    }
    fputs("| key | type | default | allowed values | description |\n"
          "|---|---|---|---|---|\n",
          f);
    md_table(f, a->options, a->noptions);
  }
}

/* ---- the engine's options, applied through their declarations ------------------------------------------------ */

int umrun_opt_value(um_config *cfg, const um_option *o, um_option_value *v, char *err, size_t len) {
  memset(v, 0, sizeof *v);
  int rc = UM_SUCCESS;
  switch (o->type) {
    case UM_OPT_INT: rc = umrun_opt_int(cfg, o->key, &v->i, err, len), v->l = v->i; break;
    case UM_OPT_LONG: rc = umrun_opt_long(cfg, o->key, &v->l, err, len), v->i = (int)v->l; break;
    case UM_OPT_DOUBLE: rc = umrun_opt_double(cfg, o->key, &v->d, err, len); break;
    case UM_OPT_BOOL: rc = umrun_opt_bool(cfg, o->key, &v->i, err, len); break;
    case UM_OPT_STRING: rc = umrun_opt_string(cfg, o->key, &v->s, err, len); break;
    case UM_OPT_CHOICE:
      if (o->choices) {
        rc = umrun_opt_choice(cfg, o->key, &v->i, &v->s, err, len);
      } else if (!strcmp(o->key, "run.backend")) { /* the registered backends, and auto */
        const char *names[33];
        int n = 0;
        for (int i = 0; i < um_backend_count() && n < 32; i++) names[n++] = um_backend_at(i);
        names[n++] = "auto";
        rc = umrun_opt_choice_in(cfg, o->key, names, n, &v->i, err, len);
        if (!rc) v->s = names[v->i];
      } else {
        if (err && len) snprintf(err, len, "internal error: the option '%s' has no fixed choices", o->key);
        rc = UM_ERR_INTERNAL;
      }
      break;
    default:
      if (err && len) snprintf(err, len, "internal error: the option '%s' is not an engine setting", o->key);
      rc = UM_ERR_INTERNAL;
  }
  return rc;
}

int umrun_apply_engine_options(um_config *cfg, um_options *opts, um_context *ctx, const char *prefix, char *err,
                               size_t len) {
  for (int i = 0, n_ = NOPT; i < n_; i++) {
    const um_option *o = umrun_option_at(i);
    if (!(opts && o->to_options) && !(ctx && o->to_context)) continue;
    if (prefix && strncmp(o->key, prefix, strlen(prefix))) continue;
    um_option_value v;
    int rc = umrun_opt_value(cfg, o, &v, err, len);
    if (rc) return rc;
    if (err && len) err[0] = '\0';
    rc = um_option_apply_value(opts, ctx, o, &v, err, len);
    if (rc) return err && len && err[0] ? UM_ERR_CONFIG : rc;
  }
  return UM_SUCCESS;
}
