/* validate_internal.h: what the validation sources share (validate_ref.c, validate.c,
 * validate_fields.c): small string and result helpers. Private to the driver. */
#ifndef UM_VALIDATE_INTERNAL_H
#define UM_VALIDATE_INTERNAL_H

#include "um/validate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "um/config.h"
#include "um/safe_file.h"

static inline char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = (char *)malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

static inline void free_fields(um_validation_result *res) {
  if (res->fields)
    for (int i = 0; i < res->nfields; i++) {
      free(res->fields[i].name);
      free(res->fields[i].ref_path);
      free(res->fields[i].got_path);
    }
  free(res->fields);
  res->fields = NULL;
  res->nfields = res->nfields_pass = res->nfields_fail = res->nfields_missing = res->nfields_extra = 0;
}

static inline void print_oneline(FILE *f, const char *s) {
  for (; *s; s++) fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

#endif
