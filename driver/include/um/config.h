/** @file um/config.h
 * Run configuration (YAML, via libyaml).
 *
 * A config is a tree of mappings, sequences and scalars, addressed by dotted
 * keys ("run.backend", "mesh.I", "params.size"; "mesh.dims.0" indexes a
 * sequence). Options come from several places with increasing priority, as in
 * PETSc:
 *
 * @verbatim
 *     embedded defaults  <  config file  <  UM_OPTIONS  <  --set key=value
 *
 *     um_config_load_string(default_yaml, "default config", &cfg, ...);
 *     um_config_load_file(path, &file, ...);  um_config_merge(cfg, file, ...);
 *     um_config_apply_env(cfg, "UM_OPTIONS", ...);
 *     um_config_set_assignment(cfg, "run.backend=seq", "--set", ...);
 * @endverbatim
 *
 * Every value remembers where it came from ("file configs/x.yaml:12",
 * "UM_OPTIONS", "--set"); messages and um_config_print show it.
 *
 * Typed getters return the default when a key is absent (or null: `key: ~`),
 * and mark the key as READ. After the run has read everything it needs,
 * um_config_warn_unread() reports scalar keys nobody read (likely misspelt).
 *
 * Every function that can fail returns an error code from um/um.h and writes a
 * message into the caller's buffer (err, errlen; either may be NULL/0) saying
 * what was wrong, where (file:line:column for YAML syntax, origin of values)
 * and what to do. No global state: all state hangs off the um_config object.
 * A um_config is not thread-safe (getters record reads).
 */
#ifndef UM_CONFIG_H
#define UM_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A configuration: a tree of mappings, sequences and scalars, each value with its origin (opaque). */
typedef struct um_config um_config;

/** Limits: mappings/sequences nest at most this deep (files and keys). */
#define UM_CONFIG_MAX_DEPTH 64
/** Largest config accepted (file or string), bytes: configs are a few hundred
 * bytes; anything this large is a mistake (or an attack). */
#define UM_CONFIG_MAX_BYTES (16 * 1024 * 1024)

/** What a key holds (um_config_kind). */
typedef enum {
  UM_CONFIG_ABSENT = 0, /**< no such key (or a parent is absent / null)  */
  UM_CONFIG_NULL,       /**< present with a null value: `key:` or `key: ~` */
  UM_CONFIG_SCALAR,     /**< a scalar (text, number, boolean)           */
  UM_CONFIG_MAPPING,    /**< a mapping of keys to values                 */
  UM_CONFIG_SEQUENCE    /**< a sequence of values                        */
} um_config_kind_t;

/* ---- creation -------------------------------------------------------------- */
/** An empty config (top-level mapping with no keys). */
int um_config_create(um_config **cfg, char *err, size_t errlen);

/** Load a YAML file. Missing/unreadable file: UM_ERR_IO naming the path.
 * Bad YAML: UM_ERR_CONFIG "path:line:col: YAML syntax error: <libyaml text>".
 * The top level must be a mapping (an empty file is an empty mapping).
 * Keys may not contain '.', may not repeat within one mapping; aliases (*x)
 * are rejected; only one YAML document per file. *cfg is NULL on failure. */
int um_config_load_file(const char *path, um_config **cfg, char *err, size_t errlen);

/** Same from a string; origin_name names it in messages and origins
 * ("default config", "test"); NULL means "<string>". */
int um_config_load_string(const char *yaml, const char *origin_name, um_config **cfg, char *err,
                          size_t errlen);

/** Free a config and everything in it (NULL: nothing to do). */
void um_config_free(um_config *cfg);

/* ---- overriding ------------------------------------------------------------ */
/** Set a value at a dotted key, creating intermediate mappings. The value is
 * read as a YAML flow value: plain text is a scalar (taken verbatim, trimmed),
 * '...' / "..." a quoted scalar, {a: 1} a mapping, [1, 2] a sequence.
 * Replacing a scalar by a scalar or a sequence by a sequence is allowed, a
 * mapping given for a mapping is merged key by key, a null value may be
 * replaced by anything; any other change of kind (e.g. a scalar where the
 * config has a mapping) is UM_ERR_CONFIG. `origin` labels the value in
 * messages and um_config_print ("--set" if NULL). */
int um_config_set(um_config *cfg, const char *dotted_key, const char *value, const char *origin,
                  char *err, size_t errlen);

/** One "key=value" (split at the first '='), e.g. the argument of --set. */
int um_config_set_assignment(um_config *cfg, const char *assignment, const char *origin, char *err,
                             size_t errlen);

/** Whitespace-separated key=value entries: "run.backend=seq mesh.I=40".
 * Quote with '...' or "..." (backslash escapes inside "..." and outside
 * quotes): run.name='a b' or "run.name=a b"; spaces inside a {...} or [...]
 * value do not end an entry: mesh.dims=[4, 8]. A value entirely in quotes is
 * always a string scalar. An entry without '=' or with an empty key is
 * UM_ERR_CONFIG naming it; all entries are checked before any is applied. */
int um_config_apply_options_string(um_config *cfg, const char *s, const char *origin, char *err,
                                   size_t errlen);

/** The options in the environment variable `var` (UM_OPTIONS):
 * um_config_apply_options_string(cfg, getenv(var), var, ...); unset or empty
 * variable: nothing to do. */
int um_config_apply_env(um_config *cfg, const char *var, char *err, size_t errlen);

/** Overlay `over` onto `cfg` with the rules of um_config_set (over wins).
 * Origins are kept. `over` is not modified. */
int um_config_merge(um_config *cfg, const um_config *over, char *err, size_t errlen);

/* ---- typed getters ---------------------------------------------------------- */
/** A string value. All getters: absent or null key -> *out = default, UM_SUCCESS (the default is
 * remembered for um_config_print). Present -> parsed, key marked READ.
 * A mapping/sequence where a scalar is expected, or a value that does not
 * parse, is UM_ERR_CONFIG: "run.block_size: expected an integer, got '12x'
 * (from file x.yaml:5); ...". A malformed key (empty component) is UM_ERR_ARG.
 * Strings returned stay valid until the key is changed or cfg is freed. */
int um_config_get_string(um_config *cfg, const char *key, const char *def, const char **out,
                         char *err, size_t errlen);
/** An int value: decimal (optionally 0x hex) integer within int range. */
int um_config_get_int(um_config *cfg, const char *key, int def, int *out, char *err, size_t errlen);
/** A long long value: decimal (optionally 0x hex) integer within long long range. */
int um_config_get_long(um_config *cfg, const char *key, long long def, long long *out, char *err,
                       size_t errlen);
/** A double value: strtod syntax, plus YAML .inf / -.inf / .nan. */
int um_config_get_double(um_config *cfg, const char *key, double def, double *out, char *err,
                         size_t errlen);
/** A boolean value: true/false, yes/no, on/off, 1/0 (case-insensitive); *out is 0 or 1. */
int um_config_get_bool(um_config *cfg, const char *key, int def, int *out, char *err,
                       size_t errlen);
/** A choice: one of `choices` (case-insensitive); *index is its position. Absent key:
 * *index = position of `def` in choices (-1 if def is NULL; def not among
 * choices is UM_ERR_ARG). Unknown value: "run.backend: unknown value 'cuad';
 * expected one of: auto, seq, openmp, cuda (from ...); did you mean 'cuda'?" */
int um_config_get_choice(um_config *cfg, const char *key, const char *def,
                         const char *const *choices, int nchoices, int *index, char *err,
                         size_t errlen);

/* ---- structure ------------------------------------------------------------- */
/** 1 if the key is present (null values included), else 0. Does not mark READ. */
int um_config_has(const um_config *cfg, const char *key);
/** What `key` holds: absent, null, scalar, mapping or sequence. Does not mark READ. */
um_config_kind_t um_config_kind(const um_config *cfg, const char *key);

/** Child keys of the mapping at `key` (NULL or "" = top level), in file order.
 * Writes up to `cap` names into names[] (may be NULL when cap is 0) and the
 * total into *n. Absent or null key: *n = 0. A scalar or sequence is
 * UM_ERR_CONFIG. Names stay valid until cfg is changed or freed. Listing does
 * not mark anything READ: read the values with the getters, e.g.
 *     int n; um_config_keys(cfg, "params", &n, NULL, 0, err, len);
 *     const char *k[n]; um_config_keys(cfg, "params", &n, k, n, err, len);   */
int um_config_keys(const um_config *cfg, const char *key, int *n, const char **names, int cap,
                   char *err, size_t errlen);

/** Number of items of a sequence or keys of a mapping (absent/null: 0; a
 * scalar is UM_ERR_CONFIG). Items are addressed as "key.0", "key.1", ... */
int um_config_size(const um_config *cfg, const char *key, int *n, char *err, size_t errlen);

/** Where the value of `key` came from, e.g. "file configs/x.yaml:12",
 * "UM_OPTIONS". Absent key: UM_ERR_CONFIG and an empty buffer. */
int um_config_origin(const um_config *cfg, const char *key, char *buf, size_t len);

/** Mark `key` and everything below it READ (for subtrees consumed some other
 * way). Absent key: nothing to do. */
int um_config_mark_read(um_config *cfg, const char *key, char *err, size_t errlen);

/* ---- reporting -------------------------------------------------------------- */
/** Called for every scalar value never read by a getter. `suggestion` is a key
 * that a getter asked for but did not find and that is close in spelling
 * (e.g. "run.block_size" for "run.blok_size"), or NULL. Return non-zero to stop. */
typedef int (*um_config_unread_fn)(const char *key, const char *origin, const char *suggestion,
                                   void *user);
/** Call fn for every scalar key never read; returns the number of unread keys reported (>= 0). */
int um_config_unread(const um_config *cfg, um_config_unread_fn fn, void *user);

/** Print "warning: unknown key 'run.blok_size' (file x.yaml:7) was never read
 * — misspelt? did you mean 'run.block_size'?" per unread key; returns count. */
int um_config_warn_unread(const um_config *cfg, FILE *f);

/** The key of keys[0..n) closest in spelling to `key` by the rule that um_config_unread's suggestions follow
 * (an edit distance of at most 2, or a quarter of the longer name), NULL when none is that close or key is
 * among them. For a key checked against a table of declared keys before it is set: "did you mean ...?". */
const char *um_config_closest(const char *key, const char *const *keys, int n);

/** The options in effect, one per line, in file order:
 *     run.backend    = seq      [UM_OPTIONS]
 * followed by defaults that getters used for absent keys, marked [default].
 * Sequences of scalars print inline: mesh.dims = [4, 4]. */
void um_config_print(const um_config *cfg, FILE *f);

/** Called by um_config_each for every option in effect: `key` (dotted), its value as text (a sequence
 * of scalars inline: "[4, 4]", a null "~"), `origin` ("file configs/x.yaml:12", "UM_OPTIONS", "--set",
 * ..., or "default" for a default a getter used for an absent key) and whether a getter read it.
 * Return non-zero to stop. */
typedef int (*um_config_each_fn)(const char *key, const char *value, const char *origin, int read, void *user);
/** Every option in effect, as um_config_print lists them: the config's values in file order, then
 * the defaults getters used for absent keys. Returns the number visited. */
int um_config_each(const um_config *cfg, um_config_each_fn fn, void *user);

/** The config as a YAML document (loadable again with um_config_load_*). */
int um_config_write_yaml(const um_config *cfg, FILE *f, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
