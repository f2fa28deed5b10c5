/** @file um/option_decl.h
 * Options declared once, by the component that reads them (PETSc's
 * SetFromOptions is the model). Each engine component holds a table of
 * um_option in its own source file (core: run.backend, run.block_size, ...;
 * transform: run.split, run.reproducible; tune: run.tune; distributed: mpi.*;
 * the host compiler: hostc.compile, hostc.cc, ...; the OpenMP backend: openmp.*): key, type, default (the only
 * place it is written), allowed values, help, and how a value is applied —
 * to um_options before um_init (to_options) or to the context after it
 * (to_context). The engine lists them (um_option_count / um_option_at /
 * um_option_find) and applies "key=value" with um_option_apply; um_options_default
 * and um_init take their defaults from them. The runner (umrun) declares its own
 * keys (app, output.*, validation.*, ...) and each app its own with the same type,
 * and prints --help and docs/options.md from all of them.
 * Part of the public API: include um/um.h. */
#ifndef UM_OPTION_DECL_H
#define UM_OPTION_DECL_H

#include <stddef.h>
#include "um/base.h"
#include "um/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The type of an option (um_option): how its value is read and checked. */
typedef enum {
  UM_OPT_STRING, /**< any text */
  UM_OPT_INT,    /**< an int (range checked with UM_OPT_RANGE) */
  UM_OPT_LONG,   /**< a long long, e.g. a size in bytes (range checked with UM_OPT_RANGE) */
  UM_OPT_DOUBLE, /**< a double (range checked with UM_OPT_RANGE) */
  UM_OPT_BOOL,   /**< true/false, yes/no, on/off, 1/0 */
  UM_OPT_CHOICE, /**< one of `choices`; run.backend (and the runner's `app`) get their list at run time */
  UM_OPT_LIST,   /**< a sequence of strings, items "<key>.0", "<key>.1", ... (the runner's sweep) */
  UM_OPT_APP     /**< the runner's table only: a family of keys the app declares (mesh.*, params.*) */
} um_opt_type;

/** Flags of an option (um_option.flags). */
enum {
  UM_OPT_NEEDS_MPI = 1,      /**< setting it in a build without MPI is a config error */
  UM_OPT_RANGE = 2,          /**< min .. max are checked: "<key> = <value>: <range_hint>" */
  UM_OPT_HINT_DEFAULT = 4,   /**< ... followed by " (default <def>)" */
  UM_OPT_CONFIG_DEFAULT = 8, /**< `def` is a config's default (umrun); um_options_default keeps the
                                  library's (0: e.g. run.compile is off unless asked for) */
  UM_OPT_PATH = 16,          /**< a file or folder the run reads (UM_OPT_STRING): a relative value from a config
                                  file is looked up from the config's folder, then the data folder, then the
                                  current folder; found nowhere, the run stops naming the places looked in */
  UM_OPT_PATH_NEW_OK = 32,   /**< with UM_OPT_PATH: a file found nowhere is not an error (the run writes it,
                                  relative to the current folder) */
  UM_OPT_NOT_PHYSICS = 64,   /**< an app's key that changes what the run prints or how many steps it takes, not
                                  what a step computes (a log line's period, a step limit): a restart may change
                                  it (umrun lists it with the other settings) */
  UM_OPT_EMPTY_OK = 128      /**< an empty value has a meaning its help states (output.dir: none written):
                                  umrun's --set key= is refused for every other key */
};

struct um_option;
/** A parsed value: `i` for int, bool and choice (the index into choices), `l` for long,
 * `d` for double, `s` for string and choice (the choice's name; NULL: not set). */
typedef struct {
  int i;         /**< int and bool values; a choice's index into its choices */
  long long l;   /**< long values                                            */
  double d;      /**< double values                                          */
  const char *s; /**< string values; a choice's name (NULL: not set)         */
} um_option_value;

/** Applies a value to um_options before um_init (o->key names it in messages). */
typedef int (*um_option_to_options)(um_options *opts, const struct um_option *o, const um_option_value *v, char *err,
                                    size_t len);
/** Applies a value to a context after um_init (a context setter). */
typedef int (*um_option_to_context)(um_context *ctx, const struct um_option *o, const um_option_value *v, char *err,
                                    size_t len);

/** One option, declared once: its key, type, default, allowed values and help, and
 * where its value goes. The engine's components, the runner (umrun/options.c) and
 * each app (um_app.options) declare theirs with it; reads take the default, the
 * choices and the range from the declaration, and `--help`, `--list-apps` and
 * docs/options.md are printed from the tables. */
typedef struct um_option {
  const char *key;            /**< "params.tolerance"; a component in angle brackets matches any name (mpi.loops.&lt;loop&gt;) */
  um_opt_type type;           /**< how the value is read */
  const char *def;            /**< the default as text ("1e-12", "true", "aos"); NULL: none */
  const char *const *choices; /**< UM_OPT_CHOICE: {"aos", "soa", "auto", NULL}, in the order of the index read */
  double min;                 /**< with UM_OPT_RANGE: the smallest value allowed */
  double max;                 /**< with UM_OPT_RANGE: the largest value allowed */
  const char *range_hint;     /**< what a value out of range is told: "use 2 .. 4000"; for a choice whose list
                               * comes at run time (choices NULL), the values in words */
  int flags;                  /**< UM_OPT_* flags */
  const char *renamed_to;     /**< an earlier spelling, still read: the key it is now ("cuda.profile") */
  const char *help;           /**< lines separated by newlines; the default and choices are added when printed */
  const char *component;      /**< engine options: the component that declares and reads it ("core", "transform", ...) */
  um_option_to_options to_options; /**< set before um_init (on um_options); NULL: not an um_options setting */
  um_option_to_context to_context; /**< set after um_init (a context setter); NULL: not a context setting */
} um_option;

/** The engine's declared options, in component order (core, host compiler, OpenMP, transform,
 * tune, distributed), then every registered backend's "<backend>.<key>" settings (its
 * um_backend_def.options: component the backend's name, kept as settings). */
int um_option_count(void);
/** The i-th declaration (0 .. um_option_count() - 1), NULL out of range. */
const um_option *um_option_at(int i);
/** 1 if `key` matches the declared key `pattern` component by component, a "<...>" component of the pattern
 * matching any one component (e.g. "mpi.loops.res_calc" matches "mpi.loops.<loop>"), else 0. */
int um_option_key_matches(const char *pattern, const char *key);
/** The declaration of `key` (exact, or a "<name>" component), NULL if the engine declares none. */
const um_option *um_option_find(const char *key);
/** The declared key nearest to `key` (edit distance), for "did you mean", written to buf (n bytes);
 * returns buf, or NULL (buf "") if none is near. */
const char *um_option_nearest(const char *key, char *buf, size_t n);
/** Parse `text` as o's type into *v, checking its choices and range. UM_ERR_ARG with a
 * message saying the allowed values (and that o->component declares the key). */
int um_option_parse(const um_option *o, const char *text, um_option_value *v, char *err, size_t len);
/** Apply one key=value: to `opts` when the option is set before um_init, to `ctx` when it is
 * a context setting (either may be NULL when not wanted). Unknown key: UM_ERR_ARG naming the
 * nearest declared key; a value that does not parse: the allowed values; an option of the
 * other stage: says where it belongs (um_options before um_init, or the context). */
int um_option_apply(um_options *opts, um_context *ctx, const char *key, const char *value, char *err, size_t len);
/** The setter of a component's setting (um_option.to_options): the value, as text, into
 * um_options.settings under o->key; the component reads it back with um_options_get. */
int um_option_to_setting(um_options *opts, const um_option *o, const um_option_value *v, char *err, size_t len);
/** A component's setting read with its declared type: the text um_options.settings holds for `key`
 * (an earlier spelling followed through renamed_to), else its declared default, parsed into *v
 * (v->s points into opts or the declaration). Not set and no default for a library caller (none
 * declared, or UM_OPT_CONFIG_DEFAULT): *v zeroed, v->s NULL. UM_ERR_ARG: no such declaration, or a
 * value that does not parse. */
int um_options_get(const um_options *opts, const char *key, um_option_value *v);
/** Apply a parsed value of the declaration o (the runner reads config values itself). */
int um_option_apply_value(um_options *opts, um_context *ctx, const um_option *o, const um_option_value *v, char *err,
                          size_t len);

#ifdef __cplusplus
}
#endif
#endif
