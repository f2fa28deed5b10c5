/* HDF5 mesh I/O in OP2's layout (see um/hdf5io.h for the layout), and XDMF.
 *
 * Every public function switches HDF5's automatic error printing off on entry
 * and restores the caller's handler on exit; an HDF5 failure is turned into an
 * um error whose message carries HDF5's own error text (from H5Ewalk). Every
 * handle is closed on every path. Writers work on "<path>.tmp" and rename it
 * over <path> only once the file has been closed successfully.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "h5quiet.h"
#include "um/hdf5io.h"
#include "../core/internal.h"

/* ---- HDF5 error handling --------------------------------------------------- */


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

/* Record an error whose cause is a failed HDF5 call: message + HDF5's text. */
static int h5_fail(um_context *ctx, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static int h5_fail(um_context *ctx, int code, const char *file, int line, const char *fmt, ...) {
  char what[1024], h5[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  h5_text(h5, sizeof h5);
  return um__error(ctx, code, file, line, "%s [HDF5: %s]", what, h5);
}
#define H5_FAIL(ctx, code, ...) h5_fail((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)

/* ---- small helpers ----------------------------------------------------------- */

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static hid_t native_of(um_type t) {
  switch (t) {
  case UM_DOUBLE: return H5T_NATIVE_DOUBLE;
  case UM_FLOAT: return H5T_NATIVE_FLOAT;
  case UM_INT: return H5T_NATIVE_INT;
  }
  return H5I_INVALID_HID;
}

static int valid_type(um_type t) { return t == UM_DOUBLE || t == UM_FLOAT || t == UM_INT; }

static const char *um_type_const(um_type t) {
  switch (t) {
  case UM_DOUBLE: return "UM_DOUBLE";
  case UM_FLOAT: return "UM_FLOAT";
  case UM_INT: return "UM_INT";
  }
  return "?";
}

/* Does link `name` exist? Checks every prefix so that a missing intermediate
 * group reads as "no" rather than as an HDF5 error. */
static int path_exists(hid_t loc, const char *name) {
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

typedef struct {
  char text[400];
  size_t n;
  int count;
  int full;
} name_list;

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *info, void *p) {
  (void)g;
  (void)info;
  name_list *l = (name_list *)p;
  if (l->full) return 0;
  size_t need = strlen(name) + (l->count ? 2 : 0);
  if (l->n + need + 8 >= sizeof l->text) {
    snprintf(l->text + l->n, sizeof l->text - l->n, "%s...", l->count ? ", " : "");
    l->full = 1;
    return 0;
  }
  l->n += (size_t)snprintf(l->text + l->n, sizeof l->text - l->n, "%s%s", l->count ? ", " : "", name);
  l->count++;
  return 0;
}

/* Comma-separated names at the file's top level, for hints. */
static void list_top(hid_t fid, name_list *l) {
  memset(l, 0, sizeof *l);
  if (H5Literate(fid, H5_INDEX_NAME, H5_ITER_INC, NULL, list_cb, l) < 0) H5Eclear2(H5E_DEFAULT);
  if (l->count == 0 && !l->full) snprintf(l->text, sizeof l->text, "nothing");
}

/* ---- reading ----------------------------------------------------------------- */

typedef struct {
  int rank;
  unsigned long long rows, cols; /* rank 0: 1x1, rank 1: n x 1, rank 2: n x m */
  H5T_class_t cls;
  size_t tsize;
  H5T_sign_t sign;
} dinfo;

typedef struct {
  hid_t fid, did;
  dinfo di;
} reader;

static void reader_close(reader *r) {
  if (r->did >= 0) H5Dclose(r->did);
  if (r->fid >= 0) H5Fclose(r->fid);
  r->did = r->fid = H5I_INVALID_HID;
  H5Eclear2(H5E_DEFAULT);
}

static void type_desc(const dinfo *di, char *buf, size_t len) {
  switch (di->cls) {
  case H5T_FLOAT: snprintf(buf, len, "%zu-bit float", di->tsize * 8); break;
  case H5T_INTEGER:
    snprintf(buf, len, "%zu-bit %s integer", di->tsize * 8, di->sign == H5T_SGN_NONE ? "unsigned" : "signed");
    break;
  case H5T_STRING: snprintf(buf, len, "string"); break;
  case H5T_COMPOUND: snprintf(buf, len, "compound"); break;
  case H5T_ARRAY: snprintf(buf, len, "array"); break;
  case H5T_ENUM: snprintf(buf, len, "enum"); break;
  default: snprintf(buf, len, "non-numeric (HDF5 class %d)", (int)di->cls); break;
  }
}

/* The um_type a dataset's element type maps to, or -1. */
static int file_um_type(const dinfo *di) {
  if (di->cls == H5T_FLOAT && di->tsize == sizeof(double)) return UM_DOUBLE;
  if (di->cls == H5T_FLOAT && di->tsize == sizeof(float)) return UM_FLOAT;
  if (di->cls == H5T_INTEGER) return UM_INT;
  return -1;
}

/* Open `path` and dataset `name` in it and describe the dataset. `what` says
 * what is being read ("dat 'p_q'") for messages. On failure nothing stays open. */
static int reader_open(um_context *ctx, reader *r, const char *path, const char *name, const char *what) {
  r->fid = r->did = H5I_INVALID_HID;
  struct stat st;
  if (stat(path, &st) != 0) {
    int e = errno;
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: HDF5 file '%s' not found (%s); check the path (relative paths are "
                    "taken from the working directory)",
                    what, path, strerror(e));
  }
  if (S_ISDIR(st.st_mode))
    return UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: '%s' is a folder, not an HDF5 file", what, path);
  htri_t is = H5Fis_hdf5(path);
  if (is < 0) return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: cannot check file '%s'", what, path);
  if (is == 0) {
    H5Eclear2(H5E_DEFAULT);
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: '%s' exists but is not an HDF5 file; pass an HDF5 mesh file "
                    "(OP2 layout, e.g. Airfoil's new_grid.h5)",
                    what, path);
  }
  r->fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (r->fid < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: cannot open HDF5 file '%s'", what, path);
    reader_close(r);
    return rc;
  }
  if (!path_exists(r->fid, name)) {
    name_list l;
    list_top(r->fid, &l);
    reader_close(r);
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: no dataset '%s' in HDF5 file '%s' (its top level holds: %s); check "
                    "the name, or list the file with: h5ls -r %s",
                    what, name, path, l.text, path);
  }
  r->did = H5Dopen2(r->fid, name, H5P_DEFAULT);
  if (r->did < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO,
                     "cannot read %s: '%s' in HDF5 file '%s' exists but cannot be opened as a dataset "
                     "(is it a group?)",
                     what, name, path);
    reader_close(r);
    return rc;
  }

  dinfo *di = &r->di;
  memset(di, 0, sizeof *di);
  hid_t sp = H5Dget_space(r->did);
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (rank < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: cannot get the shape of dataset '%s' in '%s'", what, name,
                     path);
    if (sp >= 0) H5Sclose(sp);
    reader_close(r);
    return rc;
  }
  if (rank > 2) {
    H5Sclose(sp);
    reader_close(r);
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' has rank %d; OP2's layout stores sets as [1], "
                    "maps and dats as [rows][columns] (rank 1 or 2)",
                    what, name, path, rank);
  }
  hsize_t dims[2] = {1, 1};
  if (rank > 0 && H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: cannot get the shape of dataset '%s' in '%s'", what, name,
                     path);
    H5Sclose(sp);
    reader_close(r);
    return rc;
  }
  H5S_class_t sclass = H5Sget_simple_extent_type(sp);
  H5Sclose(sp);
  if (sclass == H5S_NULL) dims[0] = 0;
  di->rank = rank;
  di->rows = dims[0];
  di->cols = rank == 2 ? dims[1] : 1;

  hid_t t = H5Dget_type(r->did);
  if (t < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: cannot get the element type of dataset '%s' in '%s'",
                     what, name, path);
    reader_close(r);
    return rc;
  }
  di->cls = H5Tget_class(t);
  di->tsize = H5Tget_size(t);
  di->sign = di->cls == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_ERROR;
  H5Tclose(t);
  return UM_SUCCESS;
}

/* Read all n values of the dataset as `type` into out. Integers of any width
 * are converted to int with a range check. */
static int read_values(um_context *ctx, reader *r, um_type type, size_t n, void *out, const char *what,
                       const char *name, const char *path) {
  if (n == 0) return UM_SUCCESS;
  if (type == UM_INT && !(r->di.tsize < sizeof(int) || (r->di.tsize == sizeof(int) && r->di.sign == H5T_SGN_2))) {
    long long *tmp = (long long *)malloc(n * sizeof *tmp);
    if (!tmp)
      return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu values of '%s' in '%s'", what, n,
                      name, path);
    if (H5Dread(r->did, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) < 0) {
      free(tmp);
      return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading dataset '%s' in '%s' failed", what, name, path);
    }
    int *o = (int *)out;
    for (size_t i = 0; i < n; i++) {
      if (tmp[i] < INT_MIN || tmp[i] > INT_MAX) {
        long long v = tmp[i];
        free(tmp);
        return UM_ERROR(ctx, UM_ERR_IO,
                        "cannot read %s: value %lld at position %zu of dataset '%s' in '%s' does not fit "
                        "a 32-bit int",
                        what, v, i, name, path);
      }
      o[i] = (int)tmp[i];
    }
    free(tmp);
    return UM_SUCCESS;
  }
  if (H5Dread(r->did, native_of(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading dataset '%s' in '%s' failed", what, name, path);
  return UM_SUCCESS;
}

/* Check that the dataset's element type can be read as `type`. */
static int check_type(um_context *ctx, const dinfo *di, um_type type, const char *what, const char *name,
                      const char *path) {
  int ft = file_um_type(di);
  char desc[64];
  type_desc(di, desc, sizeof desc);
  if (ft < 0)
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' holds %s values; only 64-bit float (double), 32-bit float "
                    "(float) and integer (int) datasets can be read",
                    what, name, path, desc);
  if ((um_type)ft != type)
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' holds %s values but %s (%s) was requested; request %s, or "
                    "convert the file (values are not converted between floating-point precisions or "
                    "between floating point and integer)",
                    what, name, path, desc, um_type_const(type), um_type_name(type),
                    um_type_const((um_type)ft));
  return UM_SUCCESS;
}

static int read_set_impl(um_context *ctx, const char *file, const char *name, um_set **out) {
  if (!file || !name || !out)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_set: file, name and out must not be NULL");
  *out = NULL;
  char what[300];
  snprintf(what, sizeof what, "set '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  char desc[64];
  type_desc(&r.di, desc, sizeof desc);
  if (r.di.cls != H5T_INTEGER || r.di.rows * r.di.cols != 1) {
    unsigned long long rows = r.di.rows, cols = r.di.cols;
    int rank = r.di.rank;
    reader_close(&r);
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' holds %s values of shape [%llu][%llu] (rank %d), "
                    "but a set is stored as one integer, its size (shape [1]); is '%s' the name of a map "
                    "or dat?",
                    what, name, file, desc, rows, cols, rank, name);
  }
  int size = 0;
  int rc = read_values(ctx, &r, UM_INT, 1, &size, what, name, file);
  reader_close(&r);
  if (rc) return um__trace(ctx, rc, __FILE__, __LINE__);
  if (size < 0)
    return UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds the negative size %d", what,
                    name, file, size);
  UM_CHECK(ctx, um_decl_set(ctx, size, name, out));
  return UM_SUCCESS;
}

static int read_map_impl(um_context *ctx, const char *file, um_set *from, um_set *to, int arity,
                         const char *name, um_map **out) {
  if (!file || !name || !out || !from || !to)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_map: file, from, to, name and out must not be NULL");
  *out = NULL;
  if (arity < 0)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_map_expect: arity %d for map '%s' must be > 0", arity, name);
  char what[300];
  snprintf(what, sizeof what, "map '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  dinfo di = r.di;
  char desc[64];
  type_desc(&di, desc, sizeof desc);
  int rc = UM_SUCCESS;
  int nfrom = um_set_size(from), nto = um_set_size(to);
  if (di.cls != H5T_INTEGER)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds %s values; map entries must be integers",
                  what, name, file, desc);
  else if (di.rows != (unsigned long long)nfrom)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "cannot read %s: dataset '%s' in '%s' has %llu rows but the from-set '%s' has size %d; a map "
                  "has one row per element of its from-set (were the sets read from the same file?)",
                  what, name, file, di.rows, um_set_name(from), nfrom);
  else if (di.cols == 0 || di.cols > INT_MAX)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' has %llu columns; a map's arity must be >= 1",
                  what, name, file, di.cols);
  else if (arity > 0 && di.cols != (unsigned long long)arity)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "cannot read %s: dataset '%s' in '%s' has %llu columns (arity) but arity %d was requested",
                  what, name, file, di.cols, arity);
  if (rc) {
    reader_close(&r);
    return rc;
  }
  size_t n = (size_t)di.rows * (size_t)di.cols;
  int *data = (int *)malloc(n ? n * sizeof(int) : 1);
  if (!data) {
    reader_close(&r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu entries", what, n);
  }
  rc = read_values(ctx, &r, UM_INT, n, data, what, name, file);
  reader_close(&r);
  if (rc) {
    free(data);
    return um__trace(ctx, rc, __FILE__, __LINE__);
  }
  for (size_t i = 0; i < n; i++) {
    if (data[i] < 0 || data[i] >= nto) {
      int v = data[i];
      free(data);
      return UM_ERROR(ctx, UM_ERR_IO,
                      "cannot read %s: entry %zu of element %zu in dataset '%s' of '%s' is %d, outside the "
                      "to-set '%s' of size %d; entries must be 0-based indices into the to-set (a 1-based "
                      "mesh must be converted)",
                      what, i % (size_t)di.cols, i / (size_t)di.cols, name, file, v, um_set_name(to), nto);
    }
  }
  rc = um_decl_map(ctx, from, to, (int)di.cols, data, name, out);
  free(data);
  UM_CHECK(ctx, rc);
  return UM_SUCCESS;
}

static int read_dat_impl(um_context *ctx, const char *file, um_set *set, int dim, int type, const char *name,
                         um_dat **out) {
  if (!file || !name || !out || !set)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_dat: file, set, name and out must not be NULL");
  *out = NULL;
  if (dim < 0 || (type >= 0 && !valid_type((um_type)type)))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_dat_expect: dat '%s': dim %d must be > 0 and type valid", name,
                    dim);
  char what[300];
  snprintf(what, sizeof what, "dat '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  dinfo di = r.di;
  int nset = um_set_size(set);
  int rc = UM_SUCCESS;
  int ft = file_um_type(&di);
  if (ft < 0)
    rc = check_type(ctx, &di, UM_DOUBLE, what, name, file);
  else if (di.rows != (unsigned long long)nset)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "cannot read %s: dataset '%s' in '%s' has %llu rows but set '%s' has size %d; a dat has one "
                  "row per element of its set",
                  what, name, file, di.rows, um_set_name(set), nset);
  else if (di.cols == 0 || di.cols > INT_MAX)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' has %llu columns; a dat's dim must be >= 1",
                  what, name, file, di.cols);
  else if (dim > 0 && di.cols != (unsigned long long)dim)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' has %llu columns but dim %d was requested",
                  what, name, file, di.cols, dim);
  else if (type >= 0)
    rc = check_type(ctx, &di, (um_type)type, what, name, file);
  if (rc) {
    reader_close(&r);
    return rc;
  }
  um_type t = type >= 0 ? (um_type)type : (um_type)ft;
  size_t n = (size_t)di.rows * (size_t)di.cols;
  void *data = malloc(n ? n * um_type_size(t) : 1);
  if (!data) {
    reader_close(&r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu values", what, n);
  }
  rc = read_values(ctx, &r, t, n, data, what, name, file);
  reader_close(&r);
  if (rc) {
    free(data);
    return um__trace(ctx, rc, __FILE__, __LINE__);
  }
  rc = um_decl_dat(ctx, set, (int)di.cols, t, data, name, out);
  free(data);
  UM_CHECK(ctx, rc);
  return UM_SUCCESS;
}

static int read_const_impl(um_context *ctx, const char *file, const char *name, int dim, um_type type, void *out) {
  if (!file || !name || !out)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_const: file, name and out must not be NULL");
  if (dim <= 0 || !valid_type(type))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_const: constant '%s': dim %d must be > 0 and type valid", name,
                    dim);
  char what[300];
  snprintf(what, sizeof what, "constant '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  dinfo di = r.di;
  unsigned long long n = di.rows * di.cols;
  int rc;
  if (n != (unsigned long long)dim)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds %llu values but dim %d was requested",
                  what, name, file, n, dim);
  else
    rc = check_type(ctx, &di, type, what, name, file);
  if (!rc) rc = read_values(ctx, &r, type, (size_t)dim, out, what, name, file);
  reader_close(&r);
  return rc;
}

int um_hdf5_read_set(um_context *ctx, const char *file, const char *name, um_set **out) {
  h5_quiet q;
  quiet_on(&q);
  int rc = read_set_impl(ctx, file, name, out);
  quiet_off(&q);
  return rc;
}

int um_hdf5_read_map(um_context *ctx, const char *file, um_set *from, um_set *to, const char *name,
                     um_map **out) {
  h5_quiet q;
  quiet_on(&q);
  int rc = read_map_impl(ctx, file, from, to, 0, name, out);
  quiet_off(&q);
  return rc;
}

int um_hdf5_read_map_expect(um_context *ctx, const char *file, um_set *from, um_set *to, int arity,
                            const char *name, um_map **out) {
  if (arity <= 0) {
    if (out) *out = NULL;
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_map_expect: arity %d for map '%s' must be > 0", arity,
                    name ? name : "(null)");
  }
  h5_quiet q;
  quiet_on(&q);
  int rc = read_map_impl(ctx, file, from, to, arity, name, out);
  quiet_off(&q);
  return rc;
}

int um_hdf5_read_dat(um_context *ctx, const char *file, um_set *set, const char *name, um_dat **out) {
  h5_quiet q;
  quiet_on(&q);
  int rc = read_dat_impl(ctx, file, set, 0, -1, name, out);
  quiet_off(&q);
  return rc;
}

int um_hdf5_read_dat_expect(um_context *ctx, const char *file, um_set *set, int dim, um_type type,
                            const char *name, um_dat **out) {
  if (dim <= 0 || !valid_type(type)) {
    if (out) *out = NULL;
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_dat_expect: dat '%s': dim %d must be > 0 and type valid",
                    name ? name : "(null)", dim);
  }
  h5_quiet q;
  quiet_on(&q);
  int rc = read_dat_impl(ctx, file, set, dim, (int)type, name, out);
  quiet_off(&q);
  return rc;
}

int um_hdf5_read_const(um_context *ctx, const char *file, const char *name, int dim, um_type type, void *out) {
  h5_quiet q;
  quiet_on(&q);
  int rc = read_const_impl(ctx, file, name, dim, type, out);
  quiet_off(&q);
  return rc;
}

/* ---- writing ----------------------------------------------------------------- */

typedef struct {
  const char *path;
  char *tmp;
  hid_t fid;
} writer;

static int copy_file(const char *src, const char *dst, char *why, size_t whylen) {
  FILE *in = fopen(src, "rb");
  if (!in) {
    snprintf(why, whylen, "cannot open '%s': %s", src, strerror(errno));
    return -1;
  }
  FILE *out = fopen(dst, "wb");
  if (!out) {
    snprintf(why, whylen, "cannot create '%s': %s", dst, strerror(errno));
    fclose(in);
    return -1;
  }
  char buf[1 << 16];
  size_t k;
  int bad = 0;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0) {
    if (fwrite(buf, 1, k, out) != k) {
      snprintf(why, whylen, "writing '%s' failed: %s", dst, strerror(errno));
      bad = 1;
      break;
    }
  }
  if (!bad && ferror(in)) {
    snprintf(why, whylen, "reading '%s' failed", src);
    bad = 1;
  }
  fclose(in);
  if (fclose(out) != 0 && !bad) {
    snprintf(why, whylen, "closing '%s' failed: %s", dst, strerror(errno));
    bad = 1;
  }
  return bad ? -1 : 0;
}

static void writer_abort(writer *w) {
  if (w->fid >= 0) H5Fclose(w->fid);
  w->fid = H5I_INVALID_HID;
  if (w->tmp) {
    remove(w->tmp);
    free(w->tmp);
    w->tmp = NULL;
  }
  H5Eclear2(H5E_DEFAULT);
}

/* Start writing `path` through "<path>.tmp": a fresh file, or (keep) a copy of
 * the existing one. `what` names what is written, for messages. */
static int writer_begin(um_context *ctx, writer *w, const char *path, int keep, const char *what) {
  w->path = path;
  w->fid = H5I_INVALID_HID;
  size_t len = strlen(path);
  w->tmp = (char *)malloc(len + 5);
  if (!w->tmp) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write %s to '%s': out of memory", what, path);
  memcpy(w->tmp, path, len);
  memcpy(w->tmp + len, ".tmp", 5);
  int copied = keep && file_exists(path);
  if (copied) {
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
      H5Eclear2(H5E_DEFAULT);
      free(w->tmp);
      w->tmp = NULL;
      return UM_ERROR(ctx, UM_ERR_IO,
                      "cannot write %s to '%s': the existing file is not an HDF5 file; remove it or choose "
                      "another name",
                      what, path);
    }
    char why[600];
    if (copy_file(path, w->tmp, why, sizeof why) != 0) {
      remove(w->tmp);
      free(w->tmp);
      w->tmp = NULL;
      return UM_ERROR(ctx, UM_ERR_IO,
                      "cannot write %s to '%s': copying it to '%s' failed (%s); check permissions and free "
                      "space in the folder",
                      what, path, path, why);
    }
    w->fid = H5Fopen(w->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  } else {
    w->fid = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  }
  if (w->fid < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO,
                     "cannot write %s to '%s': cannot %s the temporary file '%s'; check that the folder "
                     "exists and is writable",
                     what, path, copied ? "open" : "create", w->tmp);
    writer_abort(w);
    return rc;
  }
  return UM_SUCCESS;
}

static int writer_commit(um_context *ctx, writer *w, const char *what) {
  herr_t st = H5Fclose(w->fid);
  w->fid = H5I_INVALID_HID;
  if (st < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': closing (flushing) '%s' failed; disk full?", what,
                     w->path, w->tmp);
    writer_abort(w);
    return rc;
  }
  if (rename(w->tmp, w->path) != 0) {
    int e = errno;
    int rc = UM_ERROR(ctx, UM_ERR_IO, "cannot write %s to '%s': renaming '%s' to it failed: %s", what, w->path,
                      w->tmp, strerror(e));
    writer_abort(w);
    return rc;
  }
  free(w->tmp);
  w->tmp = NULL;
  return UM_SUCCESS;
}

static int attr_int(um_context *ctx, hid_t did, const char *aname, int v, const char *what, const char *path) {
  hsize_t one = 1;
  hid_t sp = H5Screate_simple(1, &one, NULL);
  hid_t a = sp >= 0 ? H5Acreate2(did, aname, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  herr_t st = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT, &v) : -1;
  int rc = UM_SUCCESS;
  if (st < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  if (a >= 0) H5Aclose(a);
  if (sp >= 0) H5Sclose(sp);
  return rc;
}

/* Scalar fixed-length C string attribute of `fixed` bytes (0: strlen(s)), as OP2 writes it. */
static int attr_str(um_context *ctx, hid_t did, const char *aname, const char *s, size_t fixed, const char *what,
                    const char *path) {
  size_t len = fixed ? fixed : strlen(s);
  char buf[64];
  memset(buf, 0, sizeof buf);
  if (len >= sizeof buf) len = sizeof buf - 1;
  strncpy(buf, s, len);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t t = H5Tcopy(H5T_C_S1);
  herr_t st = t >= 0 ? H5Tset_size(t, len) : -1;
  hid_t a = (sp >= 0 && st >= 0) ? H5Acreate2(did, aname, t, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  st = a >= 0 ? H5Awrite(a, t, buf) : -1;
  int rc = UM_SUCCESS;
  if (st < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  if (a >= 0) H5Aclose(a);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  return rc;
}

/* Create dataset `name` (rank 1 or 2) and write buf into it; returns it open in
 * *did. replace: delete an existing link of that name first; otherwise an
 * existing one is an error (a name clash within one dump). */
static int put_dataset(um_context *ctx, const writer *w, const char *name, int rank, const hsize_t *dims,
                       hid_t type, const void *buf, int replace, const char *what, hid_t *did) {
  *did = H5I_INVALID_HID;
  if (path_exists(w->fid, name)) {
    if (!replace)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "cannot write %s to '%s': a dataset named '%s' was already written (sets, maps and dats "
                      "share one namespace in the file); rename one of them",
                      what, w->path, name);
    if (H5Ldelete(w->fid, name, H5P_DEFAULT) < 0)
      return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': cannot replace the existing '%s'", what, w->path,
                     name);
  }
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0) H5Pset_create_intermediate_group(lcpl, 1); /* OP2 allows "/group/name" */
  hid_t d = (sp >= 0 && lcpl >= 0) ? H5Dcreate2(w->fid, name, type, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT)
                                   : H5I_INVALID_HID;
  int rc = UM_SUCCESS;
  if (d < 0) {
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': creating dataset '%s' failed", what, w->path, name);
  } else {
    hsize_t n = dims[0] * (rank > 1 ? dims[1] : 1);
    if (n > 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing dataset '%s' failed", what, w->path, name);
  }
  if (lcpl >= 0) H5Pclose(lcpl);
  if (sp >= 0) H5Sclose(sp);
  if (rc) {
    if (d >= 0) H5Dclose(d);
    return rc;
  }
  *did = d;
  return UM_SUCCESS;
}

static int put_set(um_context *ctx, const writer *w, const um_set *set, int replace) {
  char what[300];
  snprintf(what, sizeof what, "set '%s'", um_set_name(set));
  hsize_t dims[1] = {1};
  int size = um_set_size(set);
  hid_t d;
  UM_CHECK(ctx, put_dataset(ctx, w, um_set_name(set), 1, dims, H5T_NATIVE_INT, &size, replace, what, &d));
  H5Dclose(d);
  return UM_SUCCESS;
}

static int put_map(um_context *ctx, const writer *w, const um_map *map, int replace) {
  char what[300];
  snprintf(what, sizeof what, "map '%s'", um_map_name(map));
  int rows = um_set_size(um_map_from(map)), arity = um_map_arity(map);
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)arity};
  hid_t d;
  UM_CHECK(ctx, put_dataset(ctx, w, um_map_name(map), 2, dims, H5T_NATIVE_INT, um_map_data(map), replace, what, &d));
  int rc = attr_int(ctx, d, "size", rows, what, w->path);
  if (!rc) rc = attr_int(ctx, d, "dim", arity, what, w->path);
  if (!rc) rc = attr_str(ctx, d, "type", "int", 10, what, w->path); /* OP2: 10-byte string */
  H5Dclose(d);
  return rc;
}

static int put_dat(um_context *ctx, const writer *w, const um_dat *dat, int replace) {
  char what[300];
  snprintf(what, sizeof what, "dat '%s'", um_dat_name(dat));
  um_type t = um_dat_type(dat);
  int rows = um_set_size(um_dat_set(dat)), dim = um_dat_dim(dat);
  size_t esize = um_type_size(t);
  size_t bytes = (size_t)rows * (size_t)dim * esize;
  void *buf = malloc(bytes ? bytes : 1);
  if (!buf) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write %s: out of memory for %zu bytes", what, bytes);
  int rc = um_dat_fetch(ctx, dat, buf, bytes);
  if (rc) {
    free(buf);
    return um__trace(ctx, rc, __FILE__, __LINE__);
  }
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)dim};
  hid_t d;
  rc = put_dataset(ctx, w, um_dat_name(dat), 2, dims, native_of(t), buf, replace, what, &d);
  free(buf);
  UM_CHECK(ctx, rc);
  rc = attr_int(ctx, d, "size", dim * (int)esize, what, w->path); /* OP2's op_dat->size: bytes per element */
  if (!rc) rc = attr_int(ctx, d, "dim", dim, what, w->path);
  if (!rc) rc = attr_str(ctx, d, "type", um_type_name(t), 0, what, w->path);
  H5Dclose(d);
  return rc;
}

static int put_const(um_context *ctx, const writer *w, const char *name, int dim, um_type type, const void *data,
                     int replace) {
  char what[300];
  snprintf(what, sizeof what, "constant '%s'", name);
  hsize_t dims[1] = {(hsize_t)dim};
  hid_t d;
  UM_CHECK(ctx, put_dataset(ctx, w, name, 1, dims, native_of(type), data, replace, what, &d));
  int rc = attr_int(ctx, d, "dim", dim, what, w->path);
  if (!rc) rc = attr_str(ctx, d, "type", um_type_name(type), 0, what, w->path);
  H5Dclose(d);
  return rc;
}

typedef enum { W_SET, W_MAP, W_DAT, W_CONST } wkind;

typedef struct {
  wkind kind;
  const void *obj;
  const char *name;
  int dim;
  um_type type;
  const void *data;
} wjob;

static int write_one(um_context *ctx, const char *file, const wjob *j) {
  const char *kinds[] = {"set", "map", "dat", "constant"};
  if (!file || !j->obj)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_write_%s: file and the %s must not be NULL", kinds[j->kind],
                    kinds[j->kind]);
  const char *name = j->kind == W_SET   ? um_set_name((const um_set *)j->obj)
                     : j->kind == W_MAP ? um_map_name((const um_map *)j->obj)
                     : j->kind == W_DAT ? um_dat_name((const um_dat *)j->obj)
                                        : j->name;
  char what[300];
  snprintf(what, sizeof what, "%s '%s'", kinds[j->kind], name);
  writer w;
  UM_CHECK(ctx, writer_begin(ctx, &w, file, 1, what));
  int rc = UM_SUCCESS;
  switch (j->kind) {
  case W_SET: rc = put_set(ctx, &w, (const um_set *)j->obj, 1); break;
  case W_MAP: rc = put_map(ctx, &w, (const um_map *)j->obj, 1); break;
  case W_DAT: rc = put_dat(ctx, &w, (const um_dat *)j->obj, 1); break;
  case W_CONST: rc = put_const(ctx, &w, j->name, j->dim, j->type, j->data, 1); break;
  }
  if (rc) {
    writer_abort(&w);
    return um__trace(ctx, rc, __FILE__, __LINE__);
  }
  UM_CHECK(ctx, writer_commit(ctx, &w, what));
  return UM_SUCCESS;
}

static int write_job(um_context *ctx, const char *file, const wjob *j) {
  h5_quiet q;
  quiet_on(&q);
  int rc = write_one(ctx, file, j);
  quiet_off(&q);
  return rc;
}

int um_hdf5_write_set(um_context *ctx, const char *file, const um_set *set) {
  wjob j = {W_SET, set, NULL, 0, UM_INT, NULL};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_map(um_context *ctx, const char *file, const um_map *map) {
  wjob j = {W_MAP, map, NULL, 0, UM_INT, NULL};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_dat(um_context *ctx, const char *file, const um_dat *dat) {
  wjob j = {W_DAT, dat, NULL, 0, UM_INT, NULL};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_const(um_context *ctx, const char *file, const char *name, int dim, um_type type,
                        const void *data) {
  if (!name || !data || dim <= 0 || !valid_type(type))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_hdf5_write_const: constant '%s': name and data must not be NULL, dim (%d) must be > 0 "
                    "and type valid",
                    name ? name : "(null)", dim);
  wjob j = {W_CONST, data, name, dim, type, data};
  return write_job(ctx, file, &j);
}

static int write_mesh_impl(um_context *ctx, const char *file) {
  if (!ctx || !file) return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_write_mesh: ctx and file must not be NULL");
  writer w;
  UM_CHECK(ctx, writer_begin(ctx, &w, file, 0, "the mesh"));
  int rc = UM_SUCCESS;
  for (int i = 0, n = um_set_count(ctx); i < n && !rc; i++) rc = put_set(ctx, &w, um_set_at(ctx, i), 0);
  for (int i = 0, n = um_map_count(ctx); i < n && !rc; i++) rc = put_map(ctx, &w, um_map_at(ctx, i), 0);
  for (int i = 0, n = um_dat_count(ctx); i < n && !rc; i++) rc = put_dat(ctx, &w, um_dat_at(ctx, i), 0);
  if (rc) {
    writer_abort(&w);
    return um__trace(ctx, rc, __FILE__, __LINE__);
  }
  UM_CHECK(ctx, writer_commit(ctx, &w, "the mesh"));
  return UM_SUCCESS;
}

int um_hdf5_write_mesh(um_context *ctx, const char *file) {
  h5_quiet q;
  quiet_on(&q);
  int rc = write_mesh_impl(ctx, file);
  quiet_off(&q);
  return rc;
}

/* ---- XDMF -------------------------------------------------------------------- */

static void xml_put(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: fputc(*s, f);
    }
  }
}

typedef struct {
  const char *num; /* "Float", "Int", "UInt" */
  int prec;
} xnum;

/* Number type of dataset `name` and check of its shape, when the HDF5 file is
 * open (fid >= 0); defaults otherwise. */
static int xdmf_probe(hid_t fid, const char *h5, const char *name, unsigned long long rows, unsigned long long cols,
                      xnum def, xnum *out, char *err, size_t errlen) {
  *out = def;
  if (fid < 0) return UM_SUCCESS;
  if (!path_exists(fid, name))
    return um_format_error(err, errlen, UM_ERR_IO, "XDMF: dataset '%s' not found in HDF5 file '%s'; write it first", name, h5);
  hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
  if (d < 0) {
    H5Eclear2(H5E_DEFAULT);
    return um_format_error(err, errlen, UM_ERR_IO, "XDMF: '%s' in HDF5 file '%s' is not a dataset", name, h5);
  }
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  size_t sz = t >= 0 ? H5Tget_size(t) : 0;
  H5T_sign_t sg = c == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_ERROR;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hsize_t dims[2] = {0, 1};
  if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  if (rank < 1 || rank > 2 || dims[0] != rows || (rank == 2 ? dims[1] : 1) != cols)
    return um_format_error(err, errlen, UM_ERR_ARG,
                "XDMF: dataset '%s' in '%s' has shape [%llu][%llu] (rank %d) but [%llu][%llu] was given", name, h5,
                (unsigned long long)dims[0], (unsigned long long)(rank == 2 ? dims[1] : 1), rank, rows, cols);
  if (c == H5T_FLOAT)
    out->num = "Float";
  else if (c == H5T_INTEGER)
    out->num = sg == H5T_SGN_NONE ? "UInt" : "Int";
  else
    return um_format_error(err, errlen, UM_ERR_ARG, "XDMF: dataset '%s' in '%s' is not numeric", name, h5);
  out->prec = (int)sz;
  return UM_SUCCESS;
}

static void xdmf_item(FILE *f, const char *indent, unsigned long long rows, unsigned long long cols, xnum n,
                      const char *h5, const char *name) {
  fprintf(f, "%s<DataItem Dimensions=\"%llu %llu\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", indent,
          rows, cols, n.num, n.prec);
  xml_put(f, h5);
  fputc(':', f);
  if (name[0] != '/') fputc('/', f);
  xml_put(f, name);
  fputs("</DataItem>\n", f);
}

static int xdmf_impl(const char *xmf_path, const char *h5_name, const char *node_coords_dat, int nnodes,
                     int coord_dim, const char *cell_map, int ncells, int nodes_per_cell,
                     const char *const *cell_dats, const int *cell_dat_dims, int ncell_dats, char *err,
                     size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!xmf_path || !h5_name || !node_coords_dat || !cell_map)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_xdmf_write: xmf_path, h5_name, node_coords_dat and cell_map must not be NULL");
  if (nnodes < 0 || ncells < 0 || ncell_dats < 0 || (ncell_dats > 0 && (!cell_dats || !cell_dat_dims)))
    return um_format_error(err, errlen, UM_ERR_ARG,
                "um_xdmf_write: nnodes (%d), ncells (%d) and ncell_dats (%d) must be >= 0, and cell_dats / "
                "cell_dat_dims given when ncell_dats > 0",
                nnodes, ncells, ncell_dats);
  if (coord_dim != 2 && coord_dim != 3)
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED, "um_xdmf_write: coord_dim %d is not supported (2 or 3)", coord_dim);
  const char *topo = NULL;
  switch (nodes_per_cell) {
  case 2: topo = "Polyline"; break;
  case 3: topo = "Triangle"; break;
  case 4: topo = coord_dim == 2 ? "Quadrilateral" : "Tetrahedron"; break;
  case 8: topo = "Hexahedron"; break;
  default:
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                "um_xdmf_write: %d nodes per cell is not supported (2 polyline, 3 triangle, 4 quadrilateral/"
                "tetrahedron, 8 hexahedron)",
                nodes_per_cell);
  }
  for (int i = 0; i < ncell_dats; i++)
    if (!cell_dats[i] || cell_dat_dims[i] <= 0)
      return um_format_error(err, errlen, UM_ERR_ARG, "um_xdmf_write: cell dat %d has no name or dim %d <= 0", i,
                  cell_dat_dims[i]);

  /* The HDF5 file, relative to the .xmf's folder unless absolute. */
  char *h5path = NULL;
  const char *slash = strrchr(xmf_path, '/');
  size_t dirlen = (h5_name[0] == '/' || !slash) ? 0 : (size_t)(slash - xmf_path + 1);
  h5path = (char *)malloc(dirlen + strlen(h5_name) + 1);
  if (!h5path) return um_format_error(err, errlen, UM_ERR_ALLOC, "um_xdmf_write: out of memory");
  memcpy(h5path, xmf_path, dirlen);
  strcpy(h5path + dirlen, h5_name);
  hid_t fid = H5I_INVALID_HID;
  if (file_exists(h5path) && H5Fis_hdf5(h5path) > 0) fid = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);

  const xnum fdef = {"Float", 8}, idef = {"Int", 4};
  xnum ncoord, ncell;
  xnum *ndat = (xnum *)calloc((size_t)(ncell_dats > 0 ? ncell_dats : 1), sizeof(xnum));
  int rc = ndat ? UM_SUCCESS : um_format_error(err, errlen, UM_ERR_ALLOC, "um_xdmf_write: out of memory");
  if (!rc) rc = xdmf_probe(fid, h5path, node_coords_dat, (unsigned long long)nnodes, (unsigned long long)coord_dim,
                           fdef, &ncoord, err, errlen);
  if (!rc) rc = xdmf_probe(fid, h5path, cell_map, (unsigned long long)ncells, (unsigned long long)nodes_per_cell,
                           idef, &ncell, err, errlen);
  for (int i = 0; i < ncell_dats && !rc; i++)
    rc = xdmf_probe(fid, h5path, cell_dats[i], (unsigned long long)ncells, (unsigned long long)cell_dat_dims[i],
                    fdef, &ndat[i], err, errlen);
  if (fid >= 0) H5Fclose(fid);
  H5Eclear2(H5E_DEFAULT);
  free(h5path);
  if (!rc && ncell.num[0] == 'F')
    rc = um_format_error(err, errlen, UM_ERR_ARG, "XDMF: cell map '%s' holds floating-point values; it must be integer",
              cell_map);
  if (rc) {
    free(ndat);
    return rc;
  }

  size_t len = strlen(xmf_path);
  char *tmp = (char *)malloc(len + 5);
  if (!tmp) {
    free(ndat);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "um_xdmf_write: out of memory");
  }
  memcpy(tmp, xmf_path, len);
  memcpy(tmp + len, ".tmp", 5);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int e = errno;
    free(ndat);
    rc = um_format_error(err, errlen, UM_ERR_IO, "um_xdmf_write: cannot create '%s': %s; check that the folder exists and is writable",
              tmp, strerror(e));
    free(tmp);
    return rc;
  }
  fputs("<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
        "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n",
        f);
  fprintf(f, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%d\" NodesPerElement=\"%d\">\n", topo, ncells,
          nodes_per_cell);
  xdmf_item(f, "        ", (unsigned long long)ncells, (unsigned long long)nodes_per_cell, ncell, h5_name, cell_map);
  fputs("      </Topology>\n", f);
  fprintf(f, "      <Geometry GeometryType=\"%s\">\n", coord_dim == 2 ? "XY" : "XYZ");
  xdmf_item(f, "        ", (unsigned long long)nnodes, (unsigned long long)coord_dim, ncoord, h5_name,
            node_coords_dat);
  fputs("      </Geometry>\n", f);
  for (int i = 0; i < ncell_dats; i++) {
    int d = cell_dat_dims[i];
    const char *at = d == 1 ? "Scalar" : d == 3 ? "Vector" : d == 6 ? "Tensor6" : d == 9 ? "Tensor" : "Matrix";
    const char *base = strrchr(cell_dats[i], '/');
    base = base ? base + 1 : cell_dats[i];
    fputs("      <Attribute Name=\"", f);
    xml_put(f, base);
    fprintf(f, "\" AttributeType=\"%s\" Center=\"Cell\">\n", at);
    xdmf_item(f, "        ", (unsigned long long)ncells, (unsigned long long)d, ndat[i], h5_name, cell_dats[i]);
    fputs("      </Attribute>\n", f);
  }
  fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", f);
  free(ndat);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) {
    remove(tmp);
    free(tmp);
    return um_format_error(err, errlen, UM_ERR_IO, "um_xdmf_write: writing '%s' failed (disk full?)", xmf_path);
  }
  if (rename(tmp, xmf_path) != 0) {
    int e = errno;
    remove(tmp);
    free(tmp);
    return um_format_error(err, errlen, UM_ERR_IO, "um_xdmf_write: renaming '%s.tmp' to '%s' failed: %s", xmf_path, xmf_path,
                strerror(e));
  }
  free(tmp);
  return UM_SUCCESS;
}

int um_xdmf_write(const char *xmf_path, const char *h5_name, const char *node_coords_dat, int nnodes,
                  int coord_dim, const char *cell_map, int ncells, int nodes_per_cell,
                  const char *const *cell_dats, const int *cell_dat_dims, int ncell_dats, char *err,
                  size_t errlen) {
  h5_quiet q;
  quiet_on(&q);
  int rc = xdmf_impl(xmf_path, h5_name, node_coords_dat, nnodes, coord_dim, cell_map, ncells, nodes_per_cell,
                     cell_dats, cell_dat_dims, ncell_dats, err, errlen);
  quiet_off(&q);
  return rc;
}
