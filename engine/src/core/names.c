/* Names of the engine's enums, and parsing them back; the library's version. */
#include <string.h>
#include <strings.h>
#include "internal.h"

static const char *const access_names[] = {"READ", "WRITE", "RW", "INC", "MIN", "MAX"};
static const char *const type_names[] = {"double", "float", "int"};
static const char *const layout_names[] = {"aos", "soa", "auto"};
static const char *const strategy_names[] = {"auto", "coloured", "atomics", "global", "hierarchical"};
static const char *const compile_names[] = {"off", "auto", "wait"};

#define NAME_OF(table, v) \
  (((int)(v) >= 0 && (int)(v) < (int)(sizeof table / sizeof table[0])) ? table[(int)(v)] : "?")

const char *um_access_name(um_access a) { return NAME_OF(access_names, a); }
const char *um_type_name(um_type t) { return NAME_OF(type_names, t); }
const char *um_layout_name(um_layout l) { return NAME_OF(layout_names, l); }
const char *um_strategy_name(um_strategy s) { return NAME_OF(strategy_names, s); }
const char *um_compile_name(um_compile c) { return NAME_OF(compile_names, c); }

size_t um_type_size(um_type t) {
  switch (t) {
  case UM_DOUBLE: return sizeof(double);
  case UM_FLOAT: return sizeof(float);
  case UM_INT: return sizeof(int);
  }
  return 0;
}

static int parse_in(const char *s, const char *const *table, int n, int *out) {
  if (!s) return UM_ERR_ARG;
  for (int i = 0; i < n; i++)
    if (strcasecmp(s, table[i]) == 0) {
      *out = i;
      return UM_SUCCESS;
    }
  return UM_ERR_ARG;
}

#define PARSE(fn, T, table)                                                   \
  int fn(const char *s, T *out) {                                             \
    int v = 0, rc = parse_in(s, table, (int)(sizeof table / sizeof table[0]), &v); \
    if (rc == UM_SUCCESS) *out = (T)v;                                        \
    return rc;                                                                \
  }
PARSE(um_type_parse, um_type, type_names)
PARSE(um_layout_parse, um_layout, layout_names)
PARSE(um_strategy_parse, um_strategy, strategy_names)
PARSE(um_compile_parse, um_compile, compile_names)

const char *um_version(void) { return UM_VERSION_STRING; }
