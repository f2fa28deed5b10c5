/* A small JSON reader for umrun's own results files (--compare, --report read
 * what --suite and --json wrote). Strict RFC 8259 (no comments, no trailing
 * commas), with limits: files up to UJ_MAX_BYTES, nesting up to UJ_MAX_DEPTH.
 * Errors say file:line:column and what was expected. */
#ifndef UMRUN_JSON_H
#define UMRUN_JSON_H
#include <stddef.h>

#define UJ_MAX_BYTES (256u << 20)
#define UJ_MAX_DEPTH 64

typedef enum { UJ_NULL, UJ_BOOL, UJ_NUM, UJ_STR, UJ_ARR, UJ_OBJ } uj_kind;

typedef struct uj {
  uj_kind kind;
  double num;       /* UJ_NUM; UJ_BOOL: 0 or 1                 */
  char *str;        /* UJ_STR (NUL-terminated, may hold no NUL) */
  int n;            /* UJ_ARR / UJ_OBJ: entries               */
  struct uj *items; /* their values                           */
  char **keys;      /* UJ_OBJ: their keys                     */
} uj;

/* Parse text[0..len) (origin names it in messages); *out is malloc'ed: uj_free(). */
int uj_parse(const char *text, size_t len, const char *origin, uj **out, char *err, size_t errlen);
int uj_parse_file(const char *path, uj **out, char *err, size_t errlen);
/* The whole file, NUL-terminated, malloc'ed (at most max bytes); NULL with a message naming it. */
char *uj_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
void uj_free(uj *v);

/* Lookups that tolerate NULL and wrong kinds (they return NULL / the default). */
const uj *uj_get(const uj *obj, const char *key);
const uj *uj_at(const uj *arr, int i);
int uj_len(const uj *arr);
const char *uj_str(const uj *v, const char *def);
double uj_num(const uj *v, double def); /* null or absent: def */
int uj_is_true(const uj *v);
/* uj_str(uj_get(obj, key), def) and the like */
const char *uj_gets(const uj *obj, const char *key, const char *def);
double uj_getn(const uj *obj, const char *key, double def);

/* Writing: v as JSON text (numbers with 17 digits, non-finite ones as null); uj_set_num sets
 * obj[key] to a number (null when not finite), adding the key when absent (0, or -1: not an
 * object, out of memory). */
#include <stdio.h>
void uj_write(FILE *f, const uj *v);
int uj_set_num(uj *obj, const char *key, double value);
/* obj's key renamed to `to` (its value kept): 0, 1 when obj has no such key, -1 not an object or out of memory */
int uj_rename(uj *obj, const char *key, const char *to);
#endif
