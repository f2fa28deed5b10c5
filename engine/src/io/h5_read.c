/* Reading meshes in OP2's HDF5 layout (see um/hdf5io.h for the layout).
 *
 * Every public function switches HDF5's automatic error printing off on entry
 * and restores the caller's handler on exit; an HDF5 failure becomes an um
 * error whose message carries HDF5's own error text. Every handle is closed on
 * every path. Shape and element type come from the dataset itself, as in OP2.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "h5util.h"
#include "um/safe_file.h"
#include "../util/checked.h"
#include "um/distributed.h"
#include "um/hdf5io.h"
#include "../core/internal.h"

static const char *um_type_const(um_type t) {
  switch (t) {
  case UM_DOUBLE: return "UM_DOUBLE";
  case UM_FLOAT: return "UM_FLOAT";
  case UM_INT: return "UM_INT";
  }
  return "?";
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
  char why[512];
  if (um_read_check(path, 0, why, sizeof why)) /* a regular file: libhdf5 would wait on a FIFO */
    return UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: '%s': %s", what, path, why);
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
  if (!um__h5_path_exists(r->fid, name)) {
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

/* 1: the dataset's integers are not all ints (wider, or unsigned): they are read as long long, then narrowed. */
static int wide_ints(const dinfo *di) {
  return !(di->tsize < sizeof(int) || (di->tsize == sizeof(int) && di->sign == H5T_SGN_2));
}

/* Room for n long long values, or NULL with the context's error set. */
static long long *wide_buffer(um_context *ctx, size_t n, const char *what, const char *name, const char *path) {
  size_t tbytes;
  long long *tmp = um_size_mul(n ? n : 1, sizeof *tmp, &tbytes) ? NULL : (long long *)malloc(tbytes);
  if (!tmp)
    UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu values of '%s' in '%s'", what, n, name, path);
  return tmp;
}

/* The n values read into tmp as ints into out, each checked to fit (tmp[0] is value v0 of the dataset: a failure
 * names its row); tmp freed. */
static int narrow_ints(um_context *ctx, const reader *r, long long *tmp, size_t n, unsigned long long v0, int *out,
                       const char *what, const char *name, const char *path) {
  const unsigned long long cols = r->di.cols ? r->di.cols : 1;
  int rc = UM_SUCCESS;
  for (size_t i = 0; rc == UM_SUCCESS && i < n; i++) {
    if (tmp[i] < INT_MIN || tmp[i] > INT_MAX)
      rc = UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: value %lld in row %llu of dataset '%s' in '%s' does not fit a 32-bit int", what,
                    tmp[i], (v0 + i) / cols, name, path);
    else
      out[i] = (int)tmp[i];
  }
  free(tmp);
  return rc;
}

/* Read all n values of the dataset as `type` into out. Integers of any width
 * are converted to int with a range check. */
static int read_values(um_context *ctx, reader *r, um_type type, size_t n, void *out, const char *what,
                       const char *name, const char *path) {
  if (n == 0) return UM_SUCCESS;
  if (type == UM_INT && wide_ints(&r->di)) {
    long long *tmp = wide_buffer(ctx, n, what, name, path);
    if (!tmp) return UM_ERR_ALLOC;
    if (H5Dread(r->did, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) < 0) {
      free(tmp);
      return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading dataset '%s' in '%s' failed", what, name, path);
    }
    return narrow_ints(ctx, r, tmp, n, 0, (int *)out, what, name, path);
  }
  if (H5Dread(r->did, um__h5_native_of(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading dataset '%s' in '%s' failed", what, name, path);
  return UM_SUCCESS;
}

/* Rows [row0, row0 + nrows) of the dataset (all its columns) as `native` into out: a hyperslab, so a rank
 * reading its block reads nothing else. */
static int read_rows(um_context *ctx, reader *r, hid_t native, unsigned long long row0, size_t nrows, void *out,
                     const char *what, const char *name, const char *path) {
  if (nrows == 0) return UM_SUCCESS;
  const int rank = r->di.rank < 1 ? 1 : r->di.rank;
  hsize_t start[2] = {row0, 0}, count[2] = {nrows, r->di.cols};
  hid_t fs = H5Dget_space(r->did), ms = H5Screate_simple(rank, count, NULL);
  herr_t e = fs >= 0 && ms >= 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) : -1;
  if (e >= 0) e = H5Dread(r->did, native, ms, fs, H5P_DEFAULT, out);
  if (fs >= 0) H5Sclose(fs);
  if (ms >= 0) H5Sclose(ms);
  if (e < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading rows %llu .. %llu of dataset '%s' in '%s' failed", what,
                   row0, row0 + nrows, name, path);
  return UM_SUCCESS;
}

/* This rank's block of a dataset of integers wider than 32 bits (or unsigned ones; h5py and numpy write int64) as
 * the 32-bit ints of a dat: read as 64-bit rows, then narrowed as the whole reader does. */
static int read_int_rows(um_context *ctx, reader *r, const um_set *set, size_t cols, int *out, const char *what,
                         const char *name, const char *path) {
  size_t n = 0;
  if (um_size_mul((size_t)set->size, cols, &n))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: too many values in this rank's rows of '%s'", what, name);
  long long *tmp = wide_buffer(ctx, n, what, name, path);
  if (!tmp) return UM_ERR_ALLOC;
  const int rc = read_rows(ctx, r, H5T_NATIVE_LLONG, (unsigned long long)set->block_begin, (size_t)set->size, tmp, what,
                           name, path);
  if (rc) {
    free(tmp);
    return rc;
  }
  return narrow_ints(ctx, r, tmp, n, (unsigned long long)set->block_begin * cols, out, what, name, path);
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

/* Before allocating for n values of elem bytes each: the byte count must fit
 * (overflow-checked) and the dataset must hold the data it claims. A file can
 * declare any extent at almost no cost (a dataset never written takes no
 * space), so the extent is checked against the bytes stored: at least the raw
 * size without filters, or within deflate's best ratio (about 1:1032) with
 * them. */
static int check_extent(um_context *ctx, const reader *r, size_t elem, size_t *count, size_t *bytes, const char *what,
                        const char *name, const char *path) {
  size_t raw, n;
  if (um_size_mul((size_t)r->di.rows, (size_t)r->di.cols, &n))
    return UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' has %llu x %llu entries (size overflow)",
                    what, name, path, r->di.rows, r->di.cols);
  *count = n;
  if (um_size_mul(n, elem, bytes) || um_size_mul(n, r->di.tsize ? r->di.tsize : elem, &raw))
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' claims %llu x %llu values, more than fit in memory (size "
                    "overflow); the file is corrupt",
                    what, name, path, r->di.rows, r->di.cols);
  if (n == 0) return UM_SUCCESS;
  const hsize_t stored = H5Dget_storage_size(r->did);
  int nfilters = 0;
  hid_t dcpl = H5Dget_create_plist(r->did);
  if (dcpl >= 0) {
    nfilters = H5Pget_nfilters(dcpl);
    H5Pclose(dcpl);
  }
  H5Eclear2(H5E_DEFAULT);
  const double limit = nfilters > 0 ? 1100.0 * (double)stored + 65536.0 : (double)stored;
  if ((double)raw > limit)
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: dataset '%s' in '%s' claims %llu x %llu values (%zu bytes) but the file stores "
                    "only %llu bytes of it%s; the count is implausible: the file is truncated or corrupt",
                    what, name, path, r->di.rows, r->di.cols, raw, (unsigned long long)stored,
                    nfilters > 0 ? " (compressed)" : "");
  return UM_SUCCESS;
}

/* The size stored for set `name` (shape [1], integer, >= 0), 64-bit: a set read by blocks may pass INT_MAX. */
static int read_set_size(um_context *ctx, const char *file, const char *name, long long *size) {
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
  const herr_t e = H5Dread(r.did, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, size);
  reader_close(&r);
  if (e < 0) return H5_FAIL(ctx, UM_ERR_IO, "cannot read %s: reading dataset '%s' in '%s' failed", what, name, file);
  if (*size < 0)
    return UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds the negative size %lld", what,
                    name, file, *size);
  return UM_SUCCESS;
}

static int read_set_impl(um_context *ctx, const char *file, const char *name, um_set **out) {
  if (!file || !name || !out)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_set: file, name and out must not be NULL");
  *out = NULL;
  long long size = 0;
  UM_CHECK(ctx, read_set_size(ctx, file, name, &size));
  if (size > INT_MAX)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "set '%s' in '%s' has %lld elements: a set read whole holds at most %d; read it by blocks "
                    "(um_hdf5_read_set_block; umrun: mpi.mesh: blocks) on enough ranks",
                    name, file, size, INT_MAX);
  UM_CHECK(ctx, um_decl_set(ctx, (int)size, name, out));
  return UM_SUCCESS;
}

/* A map from a set declared by blocks: the block's rows of the dataset (a hyperslab), targets global (checked
 * against the to-set's global size), declared with um_decl_map_block. */
static int read_map_block(um_context *ctx, reader *r, um_set *from, um_set *to, const char *what, const char *name,
                          const char *file, um_map **out) {
  const size_t cols = (size_t)r->di.cols, n = (size_t)from->size * cols;
  long long *t = malloc((n ? n : 1) * sizeof *t);
  if (!t) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu entries", what, n);
  int rc = read_rows(ctx, r, H5T_NATIVE_LLONG, (unsigned long long)from->block_begin, (size_t)from->size, t, what,
                     name, file);
  for (size_t i = 0; rc == UM_SUCCESS && i < n; i++)
    if (t[i] < 0 || t[i] >= to->gsize)
      rc = UM_ERROR(ctx, UM_ERR_IO,
                    "cannot read %s: entry %zu of element %lld in dataset '%s' of '%s' is %lld, outside the to-set "
                    "'%s' of size %lld; entries must be 0-based indices into the to-set (a 1-based mesh must be "
                    "converted)",
                    what, i % cols, from->block_begin + (long long)(i / cols), name, file, t[i], to->name, to->gsize);
  if (rc == UM_SUCCESS) rc = um_decl_map_block(ctx, from, to, (int)cols, t, name, out);
  free(t);
  return rc;
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
  const long long nfrom = um_set_gsize(from), nto = um_set_gsize(to); /* global sizes, declared by blocks or not */
  if (di.cls != H5T_INTEGER)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds %s values; map entries must be integers",
                  what, name, file, desc);
  else if (di.rows != (unsigned long long)nfrom)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "cannot read %s: dataset '%s' in '%s' has %llu rows but the from-set '%s' has size %lld; a map "
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
  size_t n, nbytes;
  rc = check_extent(ctx, &r, sizeof(int), &n, &nbytes, what, name, file);
  if (rc || from->block) {
    if (!rc) rc = read_map_block(ctx, &r, from, to, what, name, file, out);
    reader_close(&r);
    return rc;
  }
  int *data = (int *)malloc(n ? nbytes : 1);
  if (!data) {
    reader_close(&r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu entries", what, n);
  }
  rc = read_values(ctx, &r, UM_INT, n, data, what, name, file);
  reader_close(&r);
  if (rc) {
    free(data);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  for (size_t i = 0; i < n; i++) {
    if (data[i] < 0 || data[i] >= nto) {
      int v = data[i];
      free(data);
      return UM_ERROR(ctx, UM_ERR_IO,
                      "cannot read %s: entry %zu of element %zu in dataset '%s' of '%s' is %d, outside the "
                      "to-set '%s' of size %lld; entries must be 0-based indices into the to-set (a 1-based "
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
  if (dim < 0 || (type >= 0 && !um__h5_valid_type((um_type)type)))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_dat_expect: dat '%s': dim %d must be > 0 and type valid", name,
                    dim);
  char what[300];
  snprintf(what, sizeof what, "dat '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  dinfo di = r.di;
  const long long nset = um_set_gsize(set); /* the global size, declared by blocks or not */
  int rc = UM_SUCCESS;
  int ft = file_um_type(&di);
  if (ft < 0)
    rc = check_type(ctx, &di, UM_DOUBLE, what, name, file);
  else if (di.rows != (unsigned long long)nset)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "cannot read %s: dataset '%s' in '%s' has %llu rows but set '%s' has size %lld; a dat has one "
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
  size_t n, nbytes;
  rc = check_extent(ctx, &r, um_type_size(t), &n, &nbytes, what, name, file);
  if (rc) {
    reader_close(&r);
    return rc;
  }
  if (set->block) n = (size_t)set->size * (size_t)di.cols, nbytes = n * um_type_size(t); /* the block's rows */
  void *data = malloc(n ? nbytes : 1);
  if (!data) {
    reader_close(&r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot read %s: out of memory for %zu values", what, n);
  }
  if (set->block && t == UM_INT && wide_ints(&di))
    rc = read_int_rows(ctx, &r, set, (size_t)di.cols, (int *)data, what, name, file);
  else if (set->block)
    rc = read_rows(ctx, &r, um__h5_native_of(t), (unsigned long long)set->block_begin, (size_t)set->size, data, what,
                   name, file);
  else rc = read_values(ctx, &r, t, n, data, what, name, file);
  reader_close(&r);
  if (rc) {
    free(data);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  rc = um_decl_dat(ctx, set, (int)di.cols, t, data, name, out);
  free(data);
  UM_CHECK(ctx, rc);
  return UM_SUCCESS;
}

static int read_const_impl(um_context *ctx, const char *file, const char *name, int dim, um_type type, void *out) {
  if (!file || !name || !out)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_const: file, name and out must not be NULL");
  if (dim <= 0 || !um__h5_valid_type(type))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_const: constant '%s': dim %d must be > 0 and type valid", name,
                    dim);
  char what[300];
  snprintf(what, sizeof what, "constant '%s'", name);
  reader r;
  UM_CHECK(ctx, reader_open(ctx, &r, file, name, what));
  dinfo di = r.di;
  size_t n = 0;
  int rc;
  if (um_size_mul((size_t)di.rows, (size_t)di.cols, &n) || n != (size_t)dim)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot read %s: dataset '%s' in '%s' holds %zu values but dim %d was requested",
                  what, name, file, n, dim);
  else
    rc = check_type(ctx, &di, type, what, name, file);
  if (!rc) rc = read_values(ctx, &r, type, (size_t)dim, out, what, name, file);
  reader_close(&r);
  return rc;
}

int um_hdf5_read_set(um_context *ctx, const char *file, const char *name, um_set **out) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_set_impl(ctx, file, name, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_set_block(um_context *ctx, const char *file, const char *name, um_set **out) {
  UM_CTX_OK(ctx);
  if (!file || !name || !out)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_set_block: file, name and out must not be NULL");
  *out = NULL;
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int count = 0;
  long long size = 0, begin = 0;
  int rc = read_set_size(ctx, file, name, &size);
  um__h5_quiet_off(&q);
  UM_CHECK(ctx, rc);
  const int P = um_mpi_size();
  if (um_block_range(size, um_mpi_rank(), P, &begin, &count) != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "set '%s' in '%s' has %lld elements: on %d ranks a rank's block passes %d elements (an int); run "
                    "on at least %lld ranks",
                    name, file, size, P, INT_MAX, (size + INT_MAX - 1) / INT_MAX);
  return um_decl_set_block(ctx, size, begin, count, name, out);
}

int um_hdf5_read_map(um_context *ctx, const char *file, um_set *from, um_set *to, const char *name,
                     um_map **out) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_map_impl(ctx, file, from, to, 0, name, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_map_expect(um_context *ctx, const char *file, um_set *from, um_set *to, int arity,
                            const char *name, um_map **out) {
  if (arity <= 0) {
    if (out) *out = NULL;
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_map_expect: arity %d for map '%s' must be > 0", arity,
                    name ? name : "(null)");
  }
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_map_impl(ctx, file, from, to, arity, name, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_dat(um_context *ctx, const char *file, um_set *set, const char *name, um_dat **out) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_dat_impl(ctx, file, set, 0, -1, name, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_dat_expect(um_context *ctx, const char *file, um_set *set, int dim, um_type type,
                            const char *name, um_dat **out) {
  if (dim <= 0 || !um__h5_valid_type(type)) {
    if (out) *out = NULL;
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_read_dat_expect: dat '%s': dim %d must be > 0 and type valid",
                    name ? name : "(null)", dim);
  }
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_dat_impl(ctx, file, set, dim, (int)type, name, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_const(um_context *ctx, const char *file, const char *name, int dim, um_type type, void *out) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = read_const_impl(ctx, file, name, dim, type, out);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_read_agree(um_context *ctx, int rc, const char *file) {
  if (um_mpi_size() < 2) return rc;
  char msg[1024] = "";
  int who = -1;
  const int first = um_mpi_first_failure(rc, rc ? um_error_message(ctx) : "", msg, sizeof msg, &who);
  if (!first || who == um_mpi_rank()) return rc;
  if (rc) return rc; /* this rank's own reason stands */
  char *trace = strchr(msg, '\n'); /* the reason, without where in the engine it arose */
  if (trace) *trace = 0;
  return UM_ERROR(ctx, first, "rank %d of %d could not read its block of %s: %s; rank %d stops with it", who,
                  um_mpi_size(), file ? file : "the mesh file", msg, um_mpi_rank());
}
