/* The runner's options, declared once (options.c): every key umrun and the app
 * frame (app.c) read themselves — app, run.*, mpi.*, validation.*, output.*,
 * split, sweep — with its type, default, allowed values and help line. From
 * the one table come the typed reads below, the "config keys" section of
 * umrun --help, umrun --help-options=markdown (docs/options.md) and the
 * tests that no runner key is read undeclared (PETSc's PetscOptionsBegin is
 * the model). The apps' own keys (mesh.*, params.*) are theirs; the backends'
 * ("<backend>.<key>") are declared in their um_backend_option tables.
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

#include "um/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  UMRUN_OPT_STRING,
  UMRUN_OPT_INT,
  UMRUN_OPT_LONG,
  UMRUN_OPT_DOUBLE,
  UMRUN_OPT_BOOL,
  UMRUN_OPT_CHOICE,  /* one of `choices` ("a|b|c"); NULL choices: a list the caller gives (apps, backends) */
  UMRUN_OPT_LIST,    /* a sequence of strings, items "<key>.0", "<key>.1", ... (sweep) */
  UMRUN_OPT_APP      /* documented here, read by the app (mesh.*, params.*, run.iterations): never by the runner */
} umrun_opt_type;

enum {
  UMRUN_OPT_NEEDS_MPI = 1, /* setting it in a build without MPI is a config error */
  UMRUN_OPT_RANGE = 2,     /* min .. max are checked: "<key> = <value>: <range_hint>" */
  UMRUN_OPT_HINT_DEFAULT = 4 /* ... followed by " (default <def>)" */
};

typedef struct {
  const char *key;        /* "run.block_size"; a component "<loop>" matches any name (mpi.loops.<loop>) */
  umrun_opt_type type;
  const char *def;        /* the default as text; NULL: none (absent means unset) */
  const char *const *choices; /* UMRUN_OPT_CHOICE: {"aos", "soa", "auto", NULL}, in the order of the index read */
  double min, max;        /* with UMRUN_OPT_RANGE */
  const char *range_hint; /* what a value out of range is told: "use 1 .. 4096"; for a choice
                           * whose list comes at run time (choices NULL), the values in words */
  int flags;
  const char *renamed_to; /* an earlier spelling, still read: the key it is now ("cuda.profile") */
  const char *help;       /* lines separated by '\n'; the default and choices are added when printed */
} umrun_option;

int umrun_option_count(void);
const umrun_option *umrun_option_at(int i);
/* The declaration of `key` (exact, a "<name>" component, or an item of a list); NULL if undeclared. */
const umrun_option *umrun_option_find(const char *key);
const char *umrun_opt_type_name(umrun_opt_type t);

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
const umrun_option *umrun_opt_first_set(const um_config *cfg, int flags);

/* ---- documentation ---------------------------------------------------------- */
/* The "config keys" section of umrun --help (two-space indent, keys in a column). */
void umrun_options_help(FILE *f);
/* Every runner option and every registered backend's as markdown (docs/options.md). */
void umrun_options_markdown(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
