/* Writing meshes in OP2's HDF5 layout (see um/hdf5io.h for the layout).
 *
 * Writers never leave a half-written file: they work on a unique temporary
 * beside <path> (a copy of <path> when adding to an existing file) and rename
 * it over <path> only once the HDF5 file was closed successfully (h5util.h,
 * util/safe_file.h). HDF5's automatic
 * error printing is off during each call; an HDF5 failure becomes an um error
 * carrying HDF5's own text.
 *
 * Maps and dats are written by blocks, the same way on one process and on many: rank 0 creates the temporary,
 * writes the sets and constants and creates every map's and dat's dataset of its global shape (space allocated,
 * no fill, no times); then, dataset by dataset, every rank fetches its block of the rows in the global, declared
 * numbering (um_dat_fetch_block_original_order, um_map_fetch_block_original_order: no rank holds a whole set,
 * and a reordered run's file is the file of a run without the reordering) and the ranks write their
 * hyperslabs into the temporary one after the other, in rank order (um_in_turn: a token passed from rank
 * to rank; serial HDF5 suffices); last, rank 0 renames the temporary over the file. The outcome of each step is
 * agreed across the ranks before the next (um__dist_agree), so a write that fails on any rank (a full disk, a
 * folder where the file goes) stops every rank at the same step with the lowest failing rank's message, and
 * rank 0 removes the temporary. The file's bytes depend only on what is written, not on the number of ranks.
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
#include "h5_writer.h"
#include "um/hdf5io.h"
#include "../core/internal.h"
#include "distributed/dist.h"


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
  enum { CHUNK = 1 << 16 };
  char *buf = malloc(CHUNK); /* not on the stack: a small one (ulimit -s 256) holds the whole run */
  size_t k;
  int bad = !buf;
  if (bad) snprintf(why, whylen, "out of memory copying '%s'", src);
  while (!bad && (k = fread(buf, 1, CHUNK, in)) > 0) {
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
  free(buf);
  fclose(in);
  if (fclose(out) != 0 && !bad) {
    snprintf(why, whylen, "closing '%s' failed: %s (%s)", dst, strerror(errno), um_safe_why(errno));
    bad = 1;
  }
  return bad ? -1 : 0;
}

void um__h5w_abort(writer *w) {
  if (!w->root) return;
  um__tmp_abort(w->fid, &w->sf);
  w->fid = H5I_INVALID_HID;
}

/* Start writing `path` through a unique temporary beside it (rank 0): a fresh file, or (keep) a copy of the
 * existing one. `what` names what is written, for messages. */
static int writer_begin(um_context *ctx, writer *w, const char *path, int keep, const char *what) {
  w->path = path;
  w->fid = H5I_INVALID_HID;
  w->tmp[0] = 0;
  w->root = um__dist_root(ctx);
  if (!w->root) return UM_SUCCESS;
  char why[1200];
  /* first: what stands at the path (a FIFO or device is refused before anything opens it) */
  if (um__tmp_begin(&w->sf, path, why, sizeof why) != 0)
    return UM_ERROR(ctx, UM_ERR_IO, "cannot write %s: %s", what, why);
  if (snprintf(w->tmp, sizeof w->tmp, "%s", w->sf.tmp) >= (int)sizeof w->tmp) {
    um_safe_abort(&w->sf);
    return UM_ERROR(ctx, UM_ERR_IO, "cannot write %s to '%s': its temporary's name is longer than %zu bytes", what,
                    path, sizeof w->tmp - 1);
  }
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
    um__h5w_abort(w);
    return rc;
  }
  return UM_SUCCESS;
}

/* writer_begin with its outcome agreed across the ranks (a rank that began aborts when another could not). */
int um__h5w_begin(um_context *ctx, writer *w, const char *path, int keep, const char *what) {
  const int rc = writer_begin(ctx, w, path, keep, what);
  const int all = um__dist_agree(ctx, rc);
  if (all && !rc) um__h5w_abort(w);
  return all;
}

/* Rank 0 has created every dataset: it closes the file, and every rank learns the temporary's name, to write
 * its rows into it in turn (agreed). */
int um__h5w_pause(um_context *ctx, writer *w, const char *what) {
  int rc = UM_SUCCESS;
  if (w->root && w->fid >= 0 && H5Fclose(w->fid) < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "cannot write %s to '%s': closing (flushing) '%s' failed; is the disk full, or the file size limit "
                 "(ulimit -f) reached?",
                 what, w->path, w->tmp);
  if (w->root) w->fid = H5I_INVALID_HID;
  UM_CHECK(ctx, um__dist_agree(ctx, rc));
  return um__dist_agree(ctx, um__dist_bcast(ctx, w->tmp, (int)sizeof w->tmp));
}

int um__h5w_commit(um_context *ctx, writer *w, const char *what) {
  if (!w->root) return UM_SUCCESS;
  char why[1200];
  int rc = UM_SUCCESS;
  int st = um__tmp_commit(w->fid, &w->sf, why, sizeof why);
  w->fid = H5I_INVALID_HID;
  if (st == UM__TMP_CLOSE)
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "cannot write %s to '%s': closing (flushing) '%s' failed; is the disk full, or the file size limit "
                 "(ulimit -f) reached?",
                 what, w->path, w->tmp);
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

/* A count as OP2 writes it (a 32-bit int), 64-bit when it passes INT_MAX (a set declared by blocks). */
static int attr_count(um_context *ctx, hid_t did, const char *aname, long long v, const char *what, const char *path) {
  if (v <= INT_MAX) return attr_int(ctx, did, aname, (int)v, what, path);
  hsize_t one = 1;
  hid_t sp = H5Screate_simple(1, &one, NULL);
  hid_t a = sp >= 0 ? H5Acreate2(did, aname, H5T_NATIVE_LLONG, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  herr_t st = a >= 0 ? H5Awrite(a, H5T_NATIVE_LLONG, &v) : -1;
  if (a >= 0) H5Aclose(a);
  if (sp >= 0) H5Sclose(sp);
  if (st < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  return UM_SUCCESS;
}

static int attr_str(um_context *ctx, hid_t did, const char *aname, const char *s, size_t fixed, const char *what,
                    const char *path) {
  if (um__h5_put_attr_str(did, aname, s, fixed) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing attribute '%s' failed", what, path, aname);
  return UM_SUCCESS;
}

/* The creation properties of a dataset the ranks fill by blocks: its space allocated when it is created and
 * never filled (every row is written by its block's rank), and no modification times (the file's bytes depend
 * only on what is written). */
static hid_t blocks_dcpl(void) {
  hid_t p = H5Pcreate(H5P_DATASET_CREATE);
  if (p < 0) return p;
  if (H5Pset_alloc_time(p, H5D_ALLOC_TIME_EARLY) < 0 || H5Pset_fill_time(p, H5D_FILL_TIME_NEVER) < 0 ||
      H5Pset_obj_track_times(p, 0) < 0) {
    H5Pclose(p);
    return H5I_INVALID_HID;
  }
  return p;
}

/* Create dataset `name` (rank 1 or 2) and write buf into it (buf NULL: leave its rows to the ranks, by blocks);
 * returns it open in *did. replace: delete an existing link of that name first; otherwise an existing one is an
 * error (a name clash within one dump). */
int um__h5w_dataset(um_context *ctx, const writer *w, const char *name, int rank, const hsize_t *dims,
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
  hid_t dcpl = blocks_dcpl();
  hid_t d = (sp >= 0 && lcpl >= 0 && dcpl >= 0) ? H5Dcreate2(w->fid, name, type, sp, lcpl, dcpl, H5P_DEFAULT)
                                                : H5I_INVALID_HID;
  int rc = UM_SUCCESS;
  if (d < 0) {
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': creating dataset '%s' failed", what, w->path, name);
  } else {
    hsize_t n = dims[0] * (rank > 1 ? dims[1] : 1);
    if (buf && n > 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing dataset '%s' failed", what, w->path, name);
  }
  if (dcpl >= 0) H5Pclose(dcpl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (sp >= 0) H5Sclose(sp);
  if (rc) {
    if (d >= 0) H5Dclose(d);
    return rc;
  }
  *did = d;
  return UM_SUCCESS;
}

/* ---- rank 0: the sets, the constants and the datasets of the maps and dats, of their global shapes ---- */

/* A set's size: one int as OP2 writes it, 64-bit when it passes INT_MAX (um's reader takes either). */
static int put_set(um_context *ctx, const writer *w, const char *name, long long size, int replace) {
  char what[300];
  snprintf(what, sizeof what, "set '%s'", name);
  hsize_t dims[1] = {1};
  hid_t d;
  const int small = (int)size;
  UM_CHECK(ctx, um__h5w_dataset(ctx, w, name, 1, dims, size <= INT_MAX ? H5T_NATIVE_INT : H5T_NATIVE_LLONG,
                                size <= INT_MAX ? (const void *)&small : (const void *)&size, replace, what, &d));
  H5Dclose(d);
  return UM_SUCCESS;
}

/* A map's or dat's dataset [rows][cols] of type t with OP2's attributes (a map's: size, dim, type "int" of 10
 * bytes; a dat's: size in bytes per element, dim, type). wide: a map into a set past INT_MAX, its targets 64-bit
 * integers (type "long long"; um's reader by blocks takes them). */
static int create_rows(um_context *ctx, const writer *w, const char *name, int is_map, long long rows, int cols,
                       um_type t, int wide, int replace) {
  char what[300];
  snprintf(what, sizeof what, "%s '%s'", is_map ? "map" : "dat", name);
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t d;
  const hid_t type = wide ? H5T_NATIVE_LLONG : um__h5_native_of(t);
  UM_CHECK(ctx, um__h5w_dataset(ctx, w, name, 2, dims, type, NULL, replace, what, &d));
  int rc = attr_count(ctx, d, "size", is_map ? rows : cols * (long long)um_type_size(t), what, w->path);
  if (!rc) rc = attr_int(ctx, d, "dim", cols, what, w->path);
  if (!rc && is_map) rc = attr_str(ctx, d, "type", wide ? "long long" : "int", 10, what, w->path); /* OP2: 10 bytes */
  if (!rc && !is_map) rc = attr_str(ctx, d, "type", um_type_name(t), 0, what, w->path);
  H5Dclose(d);
  return rc;
}

static int put_const(um_context *ctx, const writer *w, const char *name, int dim, um_type type, const void *data,
                     int replace) {
  char what[300];
  snprintf(what, sizeof what, "constant '%s'", name);
  hsize_t dims[1] = {(hsize_t)dim};
  hid_t d;
  UM_CHECK(ctx, um__h5w_dataset(ctx, w, name, 1, dims, um__h5_native_of(type), data, replace, what, &d));
  int rc = attr_int(ctx, d, "dim", dim, what, w->path);
  if (!rc) rc = attr_str(ctx, d, "type", um_type_name(type), 0, what, w->path);
  H5Dclose(d);
  return rc;
}

/* ---- every rank: its block of a dataset's rows, in turn ---- */


/* Rows [begin, begin + count) of dataset `name` of the temporary from buf (this rank's turn). */
static int write_slab(um_context *ctx, void *arg) {
  const slab *s = arg;
  if (s->count == 0) return UM_SUCCESS;
  hid_t f = H5Fopen(s->w->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, s->name, H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t fs = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t start[2] = {(hsize_t)s->begin, 0}, cnt[2] = {(hsize_t)s->count, (hsize_t)s->cols};
  hid_t ms = H5Screate_simple(2, cnt, NULL);
  herr_t st = fs >= 0 && ms >= 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) : -1;
  if (st >= 0) st = H5Dwrite(d, s->type, ms, fs, H5P_DEFAULT, s->buf);
  int rc = UM_SUCCESS;
  if (st < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing rows %lld..%lld of dataset '%s' into '%s' failed",
                 s->what, s->w->path, s->begin, s->begin + s->count - 1, s->name, s->w->tmp);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  if (f >= 0 && H5Fclose(f) < 0 && !rc)
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "cannot write %s to '%s': closing (flushing) '%s' failed; is the disk full, or the file size limit "
                 "(ulimit -f) reached?",
                 s->what, s->w->path, s->w->tmp);
  return rc;
}

/* Rows of a dataset: this rank's block (rows [s->begin, s->begin + s->count)) at s->buf, written in its turn. */
int um__h5w_rows(um_context *ctx, slab *s) { return um_in_turn(ctx, write_slab, s); }

/* A map's or dat's rows: each rank fetches its block (um/distributed.h) and writes it in its turn (agreed). */
static int write_rows(um_context *ctx, const writer *w, const um_map *map, const um_dat *dat) {
  const um_set *set = map ? um_map_from(map) : um_dat_set(dat);
  const int cols = map ? um_map_arity(map) : um_dat_dim(dat);
  const int wide = map && um_set_gsize(um_map_to(map)) > INT_MAX; /* 64-bit targets (create_rows) */
  const size_t esize = wide ? sizeof(long long) : map ? sizeof(int) : um_type_size(um_dat_type(dat));
  char what[300];
  snprintf(what, sizeof what, "%s '%s'", map ? "map" : "dat", map ? um_map_name(map) : um_dat_name(dat));
  slab s = {w,    map ? um_map_name(map) : um_dat_name(dat),
            what, wide ? H5T_NATIVE_LLONG : map ? H5T_NATIVE_INT : um__h5_native_of(um_dat_type(dat)),
            NULL, 0,
            0,    cols};
  UM_CHECK(ctx, um_set_block(ctx, set, &s.begin, &s.count));
  const size_t bytes = (size_t)s.count * (size_t)cols * esize;
  void *buf = malloc(bytes ? bytes : 1);
  int rc = um__dist_agree(
      ctx, buf ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write %s: out of memory for %zu bytes", what, bytes));
  /* the declared numbering: a run with run.reorder writes the file a run without it writes */
  if (!rc && wide) rc = um_map_fetch_block_original_order64(ctx, map, buf, bytes);
  else if (!rc)
    rc = map ? um_map_fetch_block_original_order(ctx, map, buf, bytes)
             : um_dat_fetch_block_original_order(ctx, dat, buf, bytes);
  s.buf = buf;
  if (!rc) rc = um__h5w_rows(ctx, &s);
  free(buf);
  return rc;
}

typedef enum { W_SET, W_MAP, W_DAT, W_CONST, W_SIZE, W_ROWS } wkind;

typedef struct {
  wkind kind;
  const void *obj; /* the set, map or dat; W_ROWS: the um_hdf5_rows */
  const char *name;
  int dim; /* W_CONST: values */
  um_type type;
  const void *data;
  long long size; /* W_SIZE: the set's size over all ranks (a global count: 64-bit) */
} wjob;

/* Rank 0's part of a job: a set or constant written, a map's or dat's dataset created. */
static int create_job(um_context *ctx, const writer *w, const wjob *j, int replace) {
  const um_map *m = j->obj;
  const um_dat *d = j->obj;
  const um_hdf5_rows *r = j->obj;
  switch (j->kind) {
  case W_SET: return put_set(ctx, w, um_set_name(j->obj), um_set_gsize(j->obj), replace);
  case W_SIZE: return put_set(ctx, w, j->name, j->size, replace);
  case W_MAP:
    return create_rows(ctx, w, um_map_name(m), 1, um_set_gsize(um_map_from(m)), um_map_arity(m), UM_INT,
                       um_set_gsize(um_map_to(m)) > INT_MAX, replace);
  case W_DAT:
    return create_rows(ctx, w, um_dat_name(d), 0, um_set_gsize(um_dat_set(d)), um_dat_dim(d), um_dat_type(d), 0,
                       replace);
  case W_ROWS: return create_rows(ctx, w, r->name, r->map, r->rows, r->cols, r->map ? UM_INT : r->type, 0, replace);
  case W_CONST: return put_const(ctx, w, j->name, j->dim, j->type, j->data, replace);
  }
  return UM_ERR_INTERNAL;
}

/* A job's rows, every rank its block: fetched from a map or dat, or the caller's (W_ROWS). */
static int job_rows(um_context *ctx, const writer *w, const wjob *j) {
  if (j->kind == W_MAP || j->kind == W_DAT)
    return write_rows(ctx, w, j->kind == W_MAP ? j->obj : NULL, j->kind == W_DAT ? j->obj : NULL);
  if (j->kind != W_ROWS) return UM_SUCCESS;
  const um_hdf5_rows *r = j->obj;
  char what[300];
  snprintf(what, sizeof what, "%s '%s'", r->map ? "map" : "dat", r->name);
  slab s = {w, r->name, what, um__h5_native_of(r->map ? UM_INT : r->type), r->block, 0, 0, r->cols};
  UM_CHECK(ctx, um_block_range(r->rows, um_context_rank(ctx), um_context_nranks(ctx), &s.begin, &s.count));
  return um__h5w_rows(ctx, &s);
}

/* Write jobs[0 .. n) into `file` (keep: added to the existing file, replacing datasets of the same names; else a
 * new file): rank 0 creates the temporary, the sets, the constants and every map's and dat's dataset of its
 * global shape; then each map's and dat's rows by blocks, each rank's in turn; then rank 0 renames the
 * temporary over the file. Every step's outcome is agreed before the next. */
static int write_jobs(um_context *ctx, const char *file, int keep, const char *what, const wjob *jobs, int n) {
  writer w;
  UM_CHECK(ctx, um__h5w_begin(ctx, &w, file, keep, what));
  int rc = UM_SUCCESS;
  for (int i = 0; w.root && i < n && !rc; i++) rc = create_job(ctx, &w, &jobs[i], keep);
  rc = um__dist_agree(ctx, rc);
  if (!rc) rc = um__h5w_pause(ctx, &w, what);
  for (int i = 0; i < n && !rc; i++) rc = job_rows(ctx, &w, &jobs[i]);
  if (rc) {
    um__h5w_abort(&w);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  UM_CHECK(ctx, um__dist_agree(ctx, um__h5w_commit(ctx, &w, what)));
  return UM_SUCCESS;
}

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
  return write_jobs(ctx, file, 1, what, j, 1);
}

static int write_job(um_context *ctx, const char *file, const wjob *j) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = write_one(ctx, file, j);
  um__h5_quiet_off(&q);
  return rc;
}

int um_hdf5_write_set(um_context *ctx, const char *file, const um_set *set) {
  wjob j = {W_SET, set, NULL, 0, UM_INT, NULL, 0};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_map(um_context *ctx, const char *file, const um_map *map) {
  wjob j = {W_MAP, map, NULL, 0, UM_INT, NULL, 0};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_dat(um_context *ctx, const char *file, const um_dat *dat) {
  wjob j = {W_DAT, dat, NULL, 0, UM_INT, NULL, 0};
  return write_job(ctx, file, &j);
}

int um_hdf5_write_const(um_context *ctx, const char *file, const char *name, int dim, um_type type,
                        const void *data) {
  if (!name || !data || dim <= 0 || !um__h5_valid_type(type))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_hdf5_write_const: constant '%s': name and data must not be NULL, dim (%d) must be > 0 "
                    "and type valid",
                    name ? name : "(null)", dim);
  wjob j = {W_CONST, data, name, dim, type, data, 0};
  return write_job(ctx, file, &j);
}

static int write_mesh_impl(um_context *ctx, const char *file) {
  if (!ctx || !file) return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_write_mesh: ctx and file must not be NULL");
  const int ns = um_set_count(ctx), nm = um_map_count(ctx), nd = um_dat_count(ctx);
  wjob *jobs = malloc(((size_t)ns + nm + nd + 1) * sizeof *jobs);
  if (!jobs) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write the mesh to '%s': out of memory", file);
  int n = 0;
  for (int i = 0; i < ns; i++) jobs[n++] = (wjob){W_SET, um_set_at(ctx, i), NULL, 0, UM_INT, NULL, 0};
  for (int i = 0; i < nm; i++) jobs[n++] = (wjob){W_MAP, um_map_at(ctx, i), NULL, 0, UM_INT, NULL, 0};
  for (int i = 0; i < nd; i++) jobs[n++] = (wjob){W_DAT, um_dat_at(ctx, i), NULL, 0, UM_INT, NULL, 0};
  const int rc = write_jobs(ctx, file, 0, "the mesh", jobs, n);
  free(jobs);
  return rc;
}

int um_hdf5_write_mesh(um_context *ctx, const char *file) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = write_mesh_impl(ctx, file);
  um__h5_quiet_off(&q);
  return rc;
}

static int write_blocks_impl(um_context *ctx, const char *file, int nsets, const char *const *set_names,
                             const long long *set_sizes, int nrows, const um_hdf5_rows *rows) {
  if (!ctx || !file || nsets < 0 || nrows < 0 || (nsets && (!set_names || !set_sizes)) || (nrows && !rows))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_write_blocks: a NULL or out-of-range argument");
  for (int i = 0; i < nsets; i++)
    if (!set_names[i] || set_sizes[i] < 0)
      return UM_ERROR(ctx, UM_ERR_ARG, "um_hdf5_write_blocks('%s'): set %d has no name or a negative size (%lld)",
                      file, i, set_sizes[i]);
  const long long P = um_context_nranks(ctx);
  for (int i = 0; i < nrows; i++) {
    if (!rows[i].name || rows[i].rows < 0 || rows[i].cols < 1 || (!rows[i].map && !um__h5_valid_type(rows[i].type)))
      return UM_ERROR(
          ctx, UM_ERR_ARG,
          "um_hdf5_write_blocks('%s'): dataset %d ('%s') needs a name, rows >= 0, cols >= 1 and a valid type", file, i,
          rows[i].name ? rows[i].name : "(null)");
    /* the largest block (the same test on every rank, before anything is created): each rank's rows are an int */
    if (rows[i].rows / P + (rows[i].rows % P != 0) > INT_MAX)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "um_hdf5_write_blocks('%s'): dataset '%s' has %lld rows: on %lld ranks a rank's block passes %d "
                      "(an int); run on at least %lld ranks",
                      file, rows[i].name, rows[i].rows, P, INT_MAX,
                      rows[i].rows / INT_MAX + (rows[i].rows % INT_MAX != 0));
  }
  wjob *jobs = malloc(((size_t)nsets + nrows + 1) * sizeof *jobs);
  if (!jobs) return UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write '%s': out of memory", file);
  int n = 0;
  for (int i = 0; i < nsets; i++)
    jobs[n++] = (wjob){W_SIZE, set_names[i], set_names[i], 0, UM_INT, NULL, set_sizes[i]};
  for (int i = 0; i < nrows; i++) jobs[n++] = (wjob){W_ROWS, &rows[i], rows[i].name, 0, UM_INT, NULL, 0};
  const int rc = write_jobs(ctx, file, 0, "the file", jobs, n);
  free(jobs);
  return rc;
}

int um_hdf5_write_blocks64(um_context *ctx, const char *file, int nsets, const char *const *set_names,
                           const long long *set_sizes, int nrows, const um_hdf5_rows *rows) {
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = write_blocks_impl(ctx, file, nsets, set_names, set_sizes, nrows, rows);
  um__h5_quiet_off(&q);
  return rc;
}

/* The int sizes widened to the 64-bit writer's (every rank: a failure to allocate them is agreed). */
int um_hdf5_write_blocks(um_context *ctx, const char *file, int nsets, const char *const *set_names,
                         const int *set_sizes, int nrows, const um_hdf5_rows *rows) {
  UM_CTX_OK(ctx);
  long long *sizes = nsets >= 0 ? malloc(((size_t)nsets + 1) * sizeof *sizes) : NULL;
  int rc = sizes || nsets < 0 ? UM_SUCCESS
                              : UM_ERROR(ctx, UM_ERR_ALLOC, "cannot write '%s': out of memory", file ? file : "(null)");
  for (int i = 0; sizes && set_sizes && i < nsets; i++) sizes[i] = set_sizes[i];
  rc = um__dist_agree(ctx, rc);
  if (!rc) rc = um_hdf5_write_blocks64(ctx, file, nsets, set_names, set_sizes ? sizes : NULL, nrows, rows);
  free(sizes);
  return rc;
}
