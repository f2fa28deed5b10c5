/* Writing meshes in OP2's HDF5 layout (see um/hdf5io.h for the layout).
 *
 * Writers never leave a half-written file: they work on a unique temporary
 * beside <path> (a copy of <path> when adding to an existing file) and rename
 * it over <path> only once the HDF5 file was closed successfully (h5util.h,
 * util/safe_file.h). HDF5's automatic
 * error printing is off during each call; an HDF5 failure becomes an um error
 * carrying HDF5's own text.
 *
 * A distributed context's file is written by rank 0 alone, from the gathers
 * (um_dat_fetch, um_map_fetch) every rank joins: one file, as one process
 * writes it. The outcome of each step (opening the temporary, each set, map or
 * dat, the commit) is agreed across the ranks before the next gather
 * (um__dist_agree), so a write that fails on rank 0 (a full disk, a folder where
 * the file goes) stops every rank at the same step with rank 0's message.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5util.h"
#include "um/hdf5io.h"
#include "../core/internal.h"
#include "distributed/dist.h"

typedef struct {
  const char *path;
  um_safe_file sf; /* sf.tmp: the unique temporary being written */
  hid_t fid;
  int skip; /* a distributed context's rank other than 0: it joins the gathers and writes nothing */
} writer;

static int copy_file(const char *src, const char *dst, char *why, size_t whylen) {
  FILE *in = fopen(src, "rb");
  if (!in) {
    snprintf(why, whylen, "cannot open '%s': %s", src, strerror(errno));
    return -1;
  }
  FILE *out = fopen(dst, "wb");
  if (!out) {
    snprintf(why, whylen, "cannot create '%s': %s (%s)", dst, strerror(errno), um_safe_why(errno));
    fclose(in);
    return -1;
  }
  char buf[1 << 16];
  size_t k;
  int bad = 0;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0) {
    if (fwrite(buf, 1, k, out) != k) {
      snprintf(why, whylen, "writing '%s' failed: %s (%s)", dst, strerror(errno), um_safe_why(errno));
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
    snprintf(why, whylen, "closing '%s' failed: %s (%s)", dst, strerror(errno), um_safe_why(errno));
    bad = 1;
  }
  return bad ? -1 : 0;
}

static void writer_abort(writer *w) {
  if (w->skip) return;
  um__tmp_abort(w->fid, &w->sf);
  w->fid = H5I_INVALID_HID;
}

/* Start writing `path` through a unique temporary beside it: a fresh file, or
 * (keep) a copy of the existing one. `what` names what is written, for messages. */
static int writer_begin(um_context *ctx, writer *w, const char *path, int keep, const char *what) {
  w->path = path;
  w->fid = H5I_INVALID_HID;
  w->skip = !um__dist_root(ctx);
  if (w->skip) return UM_SUCCESS;
  char why[1200];
  /* first: what stands at the path (a FIFO or device is refused before anything opens it) */
  if (um__tmp_begin(&w->sf, path, why, sizeof why) != 0)
    return UM_ERROR(ctx, UM_ERR_IO, "cannot write %s: %s", what, why);
  int copied = keep && um__file_exists(path);
  if (copied) {
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
      H5Eclear2(H5E_DEFAULT);
      um_safe_abort(&w->sf);
      return UM_ERROR(ctx, UM_ERR_IO,
                      "cannot write %s to '%s': the existing file is not an HDF5 file; remove it or choose "
                      "another name",
                      what, path);
    }
  }
  if (copied) {
    if (copy_file(path, w->sf.tmp, why, sizeof why) != 0) {
      um_safe_abort(&w->sf);
      return UM_ERROR(ctx, UM_ERR_IO, "cannot write %s to '%s': copying it to a temporary failed (%s)", what, path,
                      why);
    }
    w->fid = H5Fopen(w->sf.tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  } else {
    w->fid = H5Fcreate(w->sf.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  }
  if (w->fid < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': HDF5 cannot %s the temporary file '%s'", what, path,
                     copied ? "open" : "create", w->sf.tmp);
    writer_abort(w);
    return rc;
  }
  return UM_SUCCESS;
}

/* writer_begin with its outcome agreed across the ranks (a rank that began aborts when another could not). */
static int begin_agreed(um_context *ctx, writer *w, const char *path, int keep, const char *what) {
  const int rc = writer_begin(ctx, w, path, keep, what);
  const int all = um__dist_agree(ctx, rc);
  if (all && !rc) writer_abort(w);
  return all;
}

static int writer_commit(um_context *ctx, writer *w, const char *what) {
  if (w->skip) return UM_SUCCESS;
  char why[1200], tmp[1100];
  snprintf(tmp, sizeof tmp, "%s", w->sf.tmp ? w->sf.tmp : "");
  int rc = UM_SUCCESS;
  int st = um__tmp_commit(w->fid, &w->sf, why, sizeof why);
  w->fid = H5I_INVALID_HID;
  if (st == UM__TMP_CLOSE)
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': closing (flushing) '%s' failed; is the disk full?", what,
                 w->path, tmp);
  else if (st == UM__TMP_RENAME)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot write %s: %s", what, why);
  return rc;
}

/* OP2's attributes: int of shape [1], fixed-length string of `fixed` bytes (0: its length). */
static int attr_int(um_context *ctx, hid_t did, const char *aname, int v, const char *what, const char *path) {
  if (um__h5_put_attr_int(did, aname, v, 1) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  return UM_SUCCESS;
}

static int attr_str(um_context *ctx, hid_t did, const char *aname, const char *s, size_t fixed, const char *what,
                    const char *path) {
  if (um__h5_put_attr_str(did, aname, s, fixed) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  return UM_SUCCESS;
}

/* Create dataset `name` (rank 1 or 2) and write buf into it; returns it open in
 * *did. replace: delete an existing link of that name first; otherwise an
 * existing one is an error (a name clash within one dump). */
static int put_dataset(um_context *ctx, const writer *w, const char *name, int rank, const hsize_t *dims,
                       hid_t type, const void *buf, int replace, const char *what, hid_t *did) {
  *did = H5I_INVALID_HID;
  if (um__h5_path_exists(w->fid, name)) {
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
  if (w->skip) return UM_SUCCESS;
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
  /* the whole map in the global numbering (gathered from the ranks when distributed) */
  const size_t bytes = (size_t)rows * (size_t)arity * sizeof(int);
  int *buf = malloc(bytes ? bytes : 1);
  if (!buf) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write %s: out of memory for %zu bytes", what, bytes);
  int rc = um_map_fetch(ctx, map, buf, bytes);
  if (!rc && w->skip) return free(buf), UM_SUCCESS;
  if (!rc) rc = put_dataset(ctx, w, um_map_name(map), 2, dims, H5T_NATIVE_INT, buf, replace, what, &d);
  free(buf);
  UM_CHECK(ctx, rc);
  rc = attr_int(ctx, d, "size", rows, what, w->path);
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
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  if (w->skip) return free(buf), UM_SUCCESS;
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)dim};
  hid_t d;
  rc = put_dataset(ctx, w, um_dat_name(dat), 2, dims, um__h5_native_of(t), buf, replace, what, &d);
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
  if (w->skip) return UM_SUCCESS;
  UM_CHECK(ctx, put_dataset(ctx, w, name, 1, dims, um__h5_native_of(type), data, replace, what, &d));
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
  UM_CHECK(ctx, begin_agreed(ctx, &w, file, 1, what));
  int rc = UM_SUCCESS;
  switch (j->kind) {
  case W_SET: rc = put_set(ctx, &w, (const um_set *)j->obj, 1); break;
  case W_MAP: rc = put_map(ctx, &w, (const um_map *)j->obj, 1); break;
  case W_DAT: rc = put_dat(ctx, &w, (const um_dat *)j->obj, 1); break;
  case W_CONST: rc = put_const(ctx, &w, j->name, j->dim, j->type, j->data, 1); break;
  }
  if ((rc = um__dist_agree(ctx, rc)) != UM_SUCCESS) {
    writer_abort(&w);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  UM_CHECK(ctx, um__dist_agree(ctx, writer_commit(ctx, &w, what)));
  return UM_SUCCESS;
}

static int write_job(um_context *ctx, const char *file, const wjob *j) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = write_one(ctx, file, j);
  um__h5_quiet_off(&q);
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
  if (!name || !data || dim <= 0 || !um__h5_valid_type(type))
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
  UM_CHECK(ctx, begin_agreed(ctx, &w, file, 0, "the mesh"));
  int rc = UM_SUCCESS; /* each step agreed before the next gather */
  for (int i = 0, n = um_set_count(ctx); i < n && !rc; i++)
    rc = um__dist_agree(ctx, put_set(ctx, &w, um_set_at(ctx, i), 0));
  for (int i = 0, n = um_map_count(ctx); i < n && !rc; i++)
    rc = um__dist_agree(ctx, put_map(ctx, &w, um_map_at(ctx, i), 0));
  for (int i = 0, n = um_dat_count(ctx); i < n && !rc; i++)
    rc = um__dist_agree(ctx, put_dat(ctx, &w, um_dat_at(ctx, i), 0));
  if (rc) {
    writer_abort(&w);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  UM_CHECK(ctx, um__dist_agree(ctx, writer_commit(ctx, &w, "the mesh")));
  return UM_SUCCESS;
}

int um_hdf5_write_mesh(um_context *ctx, const char *file) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = write_mesh_impl(ctx, file);
  um__h5_quiet_off(&q);
  return rc;
}
