/* Helpers shared by the engine's HDF5 users (see h5util.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "h5util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/internal.h"

/* ---- error printing and error text ------------------------------------------- */

void um__h5_quiet_on(um__h5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void um__h5_quiet_off(const um__h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

typedef struct {
  char first[256]; /* the API call that failed            */
  char last[384];  /* the innermost (most specific) error  */
  int n;
} h5_walk;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *p) {
  (void)n;
  h5_walk *w = (h5_walk *)p;
  const char *desc = (e->desc && e->desc[0]) ? e->desc : "(no description)";
  if (w->n == 0) snprintf(w->first, sizeof w->first, "%s: %s", e->func_name ? e->func_name : "?", desc);
  snprintf(w->last, sizeof w->last, "%s", desc);
  w->n++;
  return 0;
}

/* HDF5's current error stack as one line, then clear it. */
static void h5_text(char *buf, size_t len) {
  h5_walk w;
  memset(&w, 0, sizeof w);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &w);
  H5Eclear2(H5E_DEFAULT);
  for (char *c = w.first; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  for (char *c = w.last; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  if (w.n == 0)
    snprintf(buf, len, "no HDF5 error text");
  else if (w.n == 1 || strcmp(w.first, w.last) == 0)
    snprintf(buf, len, "%s", w.first);
  else
    snprintf(buf, len, "%s; %s", w.first, w.last);
}

int um__h5_fail(um_context *ctx, int code, const char *file, int line, const char *fmt, ...) {
  char what[1024], h5[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  h5_text(h5, sizeof h5);
  return um_backend_error(ctx, code, file, line, "%s [HDF5: %s]", what, h5);
}

hid_t um__h5_native_of(um_type t) {
  switch (t) {
  case UM_DOUBLE: return H5T_NATIVE_DOUBLE;
  case UM_FLOAT: return H5T_NATIVE_FLOAT;
  case UM_INT: return H5T_NATIVE_INT;
  }
  return H5I_INVALID_HID;
}

int um__h5_valid_type(um_type t) { return t == UM_DOUBLE || t == UM_FLOAT || t == UM_INT; }

/* ---- files and links ---------------------------------------------------------- */

int um__file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int um__h5_path_exists(hid_t loc, const char *name) {
  size_t len = strlen(name);
  if (len == 0) return 0;
  char *buf = (char *)malloc(len + 1);
  if (!buf) return 0;
  memcpy(buf, name, len + 1);
  int ok = 1;
  for (size_t i = 1; i < len && ok; i++) {
    if (buf[i] != '/' || buf[i - 1] == '/') continue;
    buf[i] = '\0';
    if (H5Lexists(loc, buf, H5P_DEFAULT) <= 0) ok = 0;
    buf[i] = '/';
  }
  if (ok && H5Lexists(loc, buf, H5P_DEFAULT) <= 0) ok = 0;
  free(buf);
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

void um_hdf5_no_exit_cleanup(void) { H5dont_atexit(); }

/* ---- atomic writes (util/safe_file.h) ----------------------------------------------- */

int um__tmp_begin(um_safe_file *sf, const char *path, char *why, size_t whylen) {
  return um_safe_open_name(sf, path, why, whylen) == 0 ? 0 : -1;
}

int um__tmp_commit(hid_t fid, um_safe_file *sf, char *why, size_t whylen) {
  if (fid >= 0 && H5Fclose(fid) < 0) {
    um_safe_abort(sf); /* leaves HDF5's error stack for the caller's message */
    snprintf(why, whylen,
             "closing (flushing) the HDF5 file failed; is the disk full, or the file size limit (ulimit -f) reached?");
    return UM__TMP_CLOSE;
  }
  if (um_safe_commit(sf, why, whylen) != 0) return UM__TMP_RENAME;
  return 0;
}

void um__tmp_abort(hid_t fid, um_safe_file *sf) {
  if (fid >= 0) H5Fclose(fid);
  um_safe_abort(sf);
  H5Eclear2(H5E_DEFAULT);
}

/* ---- attributes ------------------------------------------------------------------ */

herr_t um__h5_put_attr_int(hid_t loc, const char *name, int v, int rank) {
  hsize_t one = 1;
  hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &one, NULL);
  hid_t a = sp >= 0 ? H5Acreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  herr_t st = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT, &v) : -1;
  if (a >= 0) H5Aclose(a);
  if (sp >= 0) H5Sclose(sp);
  return st;
}

herr_t um__h5_put_attr_str(hid_t loc, const char *name, const char *s, size_t fixed) {
  size_t len = fixed ? fixed : strlen(s);
  if (len == 0) len = 1; /* HDF5 has no zero-length fixed strings */
  char *buf = (char *)calloc(len + 1, 1);
  if (!buf) return -1;
  strncpy(buf, s, len);
  hid_t sp = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
  herr_t st = (sp >= 0 && t >= 0) ? H5Tset_size(t, len) : -1;
  hid_t a = st >= 0 ? H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  st = a >= 0 ? H5Awrite(a, t, buf) : -1;
  if (a >= 0) H5Aclose(a);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  free(buf);
  return st;
}

int um__h5_get_attr_str(hid_t loc, const char *name, char *buf, size_t len) {
  buf[0] = 0;
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t ft = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
  int rc = -1;
  if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) == 0) {
    size_t n = H5Tget_size(ft);
    char *tmp = calloc(n + 1, 1);
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (tmp && mt >= 0 && H5Tset_size(mt, n) >= 0 && H5Aread(a, mt, tmp) >= 0) {
      snprintf(buf, len, "%s", tmp);
      rc = 0;
    }
    if (mt >= 0) H5Tclose(mt);
    free(tmp);
  }
  if (ft >= 0) H5Tclose(ft);
  if (a >= 0) H5Aclose(a);
  return rc;
}

int um__h5_get_attr_int(hid_t loc, const char *name, int *v) {
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  int rc = a >= 0 && H5Aread(a, H5T_NATIVE_INT, v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  return rc;
}
