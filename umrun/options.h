/* The runner's options, declared once (options.c): every key umrun and the app
 * frame (app.c) read themselves — app, run.*, mpi.*, validation.*, output.*,
 * split, sweep — with its type, default, allowed values and help line. From
 * the one table come the typed reads below, the "config keys" section of
 * umrun --help, umrun --help-options=markdown (docs/options.md) and the
 * tests that no runner key is read undeclared (PETSc's PetscOptionsBegin is
 * the model). The apps' own keys (mesh.*, params.*) are theirs; the backends'
 * ("<backend>.<key>") are declared as um_option in their um_backend_def.options.
 *
 *     int bs;
 *     rc = umrun_opt_int(cfg, "run.block_size", &bs, err, len);
 *
 * Every read takes the default and the choices from the table and checks the
 * declared range, with the message "run.block_size = 0: use 1 .. 1048576
 * (typically 64 .. 1024)" (UM_ERR_CONFIG). A key that is not declared, or is
 * read as another type than declared, is UM_ERR_INTERNAL naming the key: a
 * runner bug, found by tests (tests/test_tools.cpp, tests/check_options_declared.py). */
#ifndef UMRUN_OPTIONS_H
#define UMRUN_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

#include "um/app.h"
#include "um/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* um_option, um_opt_type and the UM_OPT_* flags are public: um/app.h (apps declare their options too). */

int umrun_option_count(void);
const um_option *umrun_option_at(int i);
/* The declaration of `key` (exact, a "<name>" component, or an item of a list); NULL if undeclared. */
const um_option *umrun_option_find(const char *key);
/* The app's own option of that key (params.*, mesh.*, ...), or NULL. */
const um_option *umrun_app_option_find(const um_app *app, const char *key);
/* 1 if key is a backend's own setting ("cuda.profile"): one its table declares, or any key of a backend not in
 * this build (a run notes those and ignores them) */
int umrun_backend_key(const char *key);
/* 1 if a run of app would take key: umrun's option, app's (app NULL: none), or a backend's (umrun_backend_key) */
int umrun_key_declared(const um_app *app, const char *key);
/* The declared key of umrun or of app (NULL: umrun's alone) closest in spelling to key, as --set's "did you mean"
 * names it (um_config_closest), or a backend's setting; never an earlier spelling (.renamed_to); NULL
 * when none is close. */
const char *umrun_option_suggest(const um_app *app, const char *key);
const char *umrun_opt_type_name(um_opt_type t);
/* --set key= (assignment with an empty value): UM_ERR_CONFIG with a message saying what to write, unless the key's
 * declaration gives an empty value a meaning (UM_OPT_EMPTY_OK: output.dir=, validation.reference=). */
int umrun_check_empty_set(const um_runner *r, um_config *cfg, const char *assignment, char *err, size_t len);

/* ---- reads (absent or null key: the declared default) ---------------------- */
/* The string, or the declared default (NULL when it has none). */
int umrun_opt_string(um_config *cfg, const char *key, const char **out, char *err, size_t len);
int umrun_opt_int(um_config *cfg, const char *key, int *out, char *err, size_t len);
int umrun_opt_long(um_config *cfg, const char *key, long long *out, char *err, size_t len);
int umrun_opt_double(um_config *cfg, const char *key, double *out, char *err, size_t len);
int umrun_opt_bool(um_config *cfg, const char *key, int *out, char *err, size_t len);
/* A choice of the table: *index into its choices, *name (may be NULL) the choice. */
int umrun_opt_choice(um_config *cfg, const char *key, int *index, const char **name, char *err, size_t len);
/* A choice whose list is known at run time only (app: the registered apps; run.backend: the backends). */
int umrun_opt_choice_in(um_config *cfg, const char *key, const char *const *choices, int n, int *index, char *err,
                        size_t len);
/* Presence and kind (do not mark the key read): *kind = um_config_kind(cfg, key). The mapping
 * above a "<name>" option (mpi.loops, split) counts as declared. */
int umrun_opt_kind(const um_config *cfg, const char *key, um_config_kind_t *kind, char *err, size_t len);
/* The first option with every bit of `flags` that the config sets (for "mpi.loops.<loop>": any
 * mpi.loops), NULL if none. */
const um_option *umrun_opt_first_set(const um_config *cfg, int flags);

/* ---- the engine's options (um/option_decl.h) ---------------------------------- */
/* The value of an engine option from the config (absent: its declared default), read as declared. */
int umrun_opt_value(um_config *cfg, const um_option *o, um_option_value *v, char *err, size_t len);
/* Every engine option whose key starts with `prefix` (NULL: all) read from the config and applied
 * through its declaration: those set before um_init to `opts` (when not NULL), the context's to `ctx`
 * (when not NULL). A value the config gets wrong: UM_ERR_CONFIG with the message in err. */
int umrun_apply_engine_options(um_config *cfg, um_options *opts, um_context *ctx, const char *prefix, char *err,
                               size_t len);

/* The reads above within an app's table (um_app.options) and only it, for the app frame's um_app_int etc.
 * (app: the app being run; NULL: the runner's table, as the reads above). */
int umrun_app_opt_string(const um_app *app, um_config *cfg, const char *key, const char **out, char *err, size_t len);
int umrun_app_opt_int(const um_app *app, um_config *cfg, const char *key, int *out, char *err, size_t len);
int umrun_app_opt_long(const um_app *app, um_config *cfg, const char *key, long long *out, char *err, size_t len);
int umrun_app_opt_double(const um_app *app, um_config *cfg, const char *key, double *out, char *err, size_t len);
int umrun_app_opt_bool(const um_app *app, um_config *cfg, const char *key, int *out, char *err, size_t len);
int umrun_app_opt_choice(const um_app *app, um_config *cfg, const char *key, int *index, const char **name, char *err,
                         size_t len);
int umrun_app_opt_kind(const um_app *app, const um_config *cfg, const char *key, um_config_kind_t *kind, char *err,
                       size_t len);

/* ---- documentation ---------------------------------------------------------- */
/* The options of table t[0..n-1] as in --help, indented by `indent` spaces. */
void umrun_options_help_table(FILE *f, const um_option *t, int n, int indent);
/* The "config keys" section of umrun --help (two-space indent, keys in a column). */
void umrun_options_help(FILE *f);
/* Every runner option and every registered backend's as markdown (docs/options.md), then the options of r's apps. */
void umrun_options_markdown(FILE *f, const um_runner *r);

#ifdef __cplusplus
}
#endif
/* 1 when a "key=value" assignment sets hostc.cc or hostc.cflags (or run.cc, run.cflags: a program and its arguments), which only the
 * command line may name (settings.c). */
int umrun_names_compiler(const char *assignment);

#endif
