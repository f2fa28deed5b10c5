/* Saving and loading reorderings in HDF5 (layout in um/reorder.h). HDF5's
 * automatic error printing is off during each call; a failed HDF5 call becomes
 * an um error carrying HDF5's own text. */
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

#include "../io/h5util.h"
#include "um/safe_file.h"
#include "reorder_internal.h"
#include "../util/array.h"

static void dataset_name(const char *prefix, const char *set, char *buf, size_t len) {
  snprintf(buf, len, "%s%s", prefix, set);
  for (char *c = buf; *c; c++)
    if (*c == '/') *c = '_';
}

/* ---- save ------------------------------------------------------------------------------ */

static int save_impl(um_context *ctx, const um_reordering *r, const char *file, um_safe_file *sf) {
  char why[1200];
  if (um__tmp_begin(sf, file, why, sizeof why) != 0)
    return UM_ERROR(ctx, UM_ERR_IO, "cannot save the reordering: %s", why);
  hid_t fid = H5Fcreate(sf->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (fid < 0) {
    int rc = H5_FAIL(ctx, UM_ERR_IO, "cannot save the reordering to '%s': HDF5 cannot create the temporary '%s'",
                     file, sf->tmp);
    um__tmp_abort(fid, sf);
    return rc;
  }
  int rc = UM_SUCCESS;
  if (um__h5_put_attr_str(fid, "method", um_reorder_method_name(r->method), 0) < 0 ||
      um__h5_put_attr_str(fid, "map", r->map, 0) < 0 || um__h5_put_attr_str(fid, "map_hash", r->map_hash, 0) < 0 ||
      um__h5_put_attr_int(fid, "nsets", r->nsets, 0) < 0 ||
      um__h5_put_attr_int(fid, "format_version", UM_REORDER_FILE_VERSION, 0) < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot save the reordering to '%s': writing the file's attributes failed", file);
  for (int i = 0; i < r->nsets && rc == UM_SUCCESS; i++) {
    char name[512];
    dataset_name("perm_", r->names[i], name, sizeof name);
    int n = r->sizes[i];
    int *id = NULL;
    const int *p = r->perm[i];
    if (!p) {
      id = malloc((size_t)n * sizeof *id + 1);
      if (!id) {
        rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory saving the reordering");
        break;
      }
      for (int e = 0; e < n; e++) id[e] = e;
      p = id;
    }
    hsize_t dim = (hsize_t)n;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t d = sp >= 0 ? H5Dcreate2(fid, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                      : H5I_INVALID_HID;
    herr_t st = d >= 0 ? (n ? H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, p) : 0) : -1;
    if (st >= 0) st = um__h5_put_attr_str(d, "set", r->names[i], 0);
    if (st >= 0) st = um__h5_put_attr_int(d, "size", n, 0);
    if (st < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "cannot save the reordering to '%s': writing dataset '%s' (set '%s') failed", file,
                   name, r->names[i]);
    if (d >= 0) H5Dclose(d);
    if (sp >= 0) H5Sclose(sp);
    free(id);
  }
  /* partition: the parts of the iteration set, "parts_<set>" (offsets, new numbering) */
  if (rc == UM_SUCCESS && r->part_offset && r->part_slot >= 0 && r->part_slot < r->nsets) {
    char name[512];
    const char *set = r->names[r->part_slot];
    dataset_name("parts_", set, name, sizeof name);
    hsize_t dim = (hsize_t)r->nparts + 1;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t d = sp >= 0 ? H5Dcreate2(fid, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                      : H5I_INVALID_HID;
    herr_t st = d >= 0 ? H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->part_offset) : -1;
    if (st >= 0) st = um__h5_put_attr_str(d, "set", set, 0);
    if (st >= 0) st = um__h5_put_attr_int(d, "block_size", r->part_block_size, 0);
    if (st < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO,
                   "cannot save the reordering to '%s': writing dataset '%s' (parts of set '%s') failed", file, name,
                   set);
    if (d >= 0) H5Dclose(d);
    if (sp >= 0) H5Sclose(sp);
  }
  if (rc != UM_SUCCESS) {
    um__tmp_abort(fid, sf);
    return rc;
  }
  int st = um__tmp_commit(fid, sf, why, sizeof why);
  if (st == UM__TMP_CLOSE)
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "cannot save the reordering to '%s': closing its temporary failed; is the disk full, or the file size "
                 "limit (ulimit -f) reached?",
                 file);
  else if (st == UM__TMP_RENAME)
    rc = UM_ERROR(ctx, UM_ERR_IO, "cannot save the reordering: %s", why);
  return rc;
}

int um_reordering_save(um_context *ctx, const um_reordering *r, const char *file, um_reorder_stats *stats) {
  UM_CTX_OK(ctx);
  if (!r || !file || !*file) return UM_ERROR(ctx, UM_ERR_ARG, "um_reordering_save: reordering or file name missing");
  double t0 = um_wtime();
  um_safe_file sf;
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = save_impl(ctx, r, file, &sf);
  um__h5_quiet_off(&q);
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  if (stats) stats->io_seconds = um_wtime() - t0;
  return UM_SUCCESS;
}

/* ---- load ------------------------------------------------------------------------------ */

typedef struct {
  const char *prefix;
  char **names;
  int n, cap;
} name_list;

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *info, void *p) {
  (void)g;
  (void)info;
  name_list *l = (name_list *)p;
  if (strncmp(name, l->prefix, strlen(l->prefix)) != 0) return 0;
  if (UM_GROW(l->names, l->cap, l->n)) return -1;
  size_t k = strlen(name) + 1;
  if (!(l->names[l->n] = malloc(k))) return -1;
  memcpy(l->names[l->n++], name, k);
  return 0;
}

/* Permutation i of the file: dataset dname (its set's name in the 'set' attribute), checked against this mesh's
 * set before it is read. */
static int read_perm(um_context *ctx, hid_t fid, const char *file, const char *dname, um_reordering *r, int i) {
  int rc = UM_SUCCESS;
  hid_t d = H5Dopen2(fid, dname, H5P_DEFAULT);
  char set[256];
  hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t dim = 0;
  int ok = d >= 0 && sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &dim, NULL) == 1;
  if (!ok || um__h5_get_attr_str(d, "set", set, sizeof set) < 0) {
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "reordering file '%s': dataset '%s' is not a permutation (rank-1 int dataset with a 'set' "
                 "attribute)",
                 file, dname);
  } else if (!um_find_set(ctx, set) || dim != (hsize_t)um_find_set(ctx, set)->size ||
             H5Dget_storage_size(d) < dim * sizeof(int)) {
    /* checked before allocating: the file's sizes must be this mesh's, and stored in the file */
    um_set *cs = um_find_set(ctx, set);
    H5Eclear2(H5E_DEFAULT);
    if (!cs)
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s' holds a permutation of set '%s', which this context does not declare; the "
                    "file was made for another app or mesh: delete it to compute the reordering again",
                    file, set);
    else if (dim != (hsize_t)cs->size)
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s': set '%s' has %d elements but the file's permutation has %llu; the file "
                    "was made for another mesh: delete it to compute the reordering again",
                    file, set, cs->size, (unsigned long long)dim);
    else
      rc = UM_ERROR(ctx, UM_ERR_IO,
                    "reordering file '%s': dataset '%s' claims %llu entries but the file stores fewer; the file is "
                    "truncated or corrupt: delete it to compute the reordering again",
                    file, dname, (unsigned long long)dim);
  } else {
    r->names[i] = strdup(set);
    r->sizes[i] = (int)dim;
    r->perm[i] = malloc((size_t)dim * sizeof(int) + 1);
    if (!r->names[i] || !r->perm[i])
      rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory loading the reordering");
    else if (dim && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->perm[i]) < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "reordering file '%s': reading dataset '%s' failed", file, dname);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* The parts of the file (dataset dname): offsets into the set named in its 'set' attribute (into part_set, setlen
 * bytes), with their block size. */
static int read_parts(um_context *ctx, hid_t fid, const char *file, const char *dname, um_reordering *r,
                      char *part_set, size_t setlen) {
  int rc = UM_SUCCESS, part_bs = 0;
  hid_t d = H5Dopen2(fid, dname, H5P_DEFAULT);
  hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  hsize_t dim = 0;
  int ok = d >= 0 && sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, &dim, NULL) == 1 && dim >= 1 && dim <= (hsize_t)INT_MAX;
  ok = ok && um__h5_get_attr_int(d, "block_size", &part_bs) == 0;
  /* parts are offsets into one set: at most (its size + 1), and stored in the file */
  int max_set = 0;
  for (int i = 0; i < ctx->nsets; i++)
    if (ctx->sets[i]->size > max_set) max_set = ctx->sets[i]->size;
  ok = ok && dim <= (hsize_t)max_set + 1 && H5Dget_storage_size(d) >= dim * sizeof(int);
  if (!ok || um__h5_get_attr_str(d, "set", part_set, setlen) < 0) {
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "reordering file '%s': dataset '%s' is not a list of parts (rank-1 int dataset with 'set' "
                 "and 'block_size' attributes, at most one entry per element + 1, all stored)",
                 file, dname);
  } else {
    r->nparts = (int)dim - 1;
    r->part_block_size = part_bs;
    r->part_offset = malloc((size_t)dim * sizeof(int));
    if (!r->part_offset)
      rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory loading the reordering");
    else if (H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->part_offset) < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "reordering file '%s': reading dataset '%s' failed", file, dname);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* A loaded reordering against the context: a bijection of each of its sets, every set covered, the parts a
 * split of their set (part_set) into consecutive ranges, and the map it was computed from the same. */
static int check_against_context(um_context *ctx, const char *file, um_reordering *r, const char *part_set) {
  int rc = UM_SUCCESS;
  for (int i = 0; i < r->nsets && rc == UM_SUCCESS; i++) {
    um_set *s = um_find_set(ctx, r->names[i]);
    int bij = um__is_bijection(r->perm[i], r->sizes[i]);
    if (!s)
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s' holds a permutation of set '%s', which this context does not declare; the "
                    "file was made for another app or mesh: delete it to compute the reordering again",
                    file, r->names[i]);
    else if (s->size != r->sizes[i])
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s': set '%s' has %d elements but the file's permutation has %d; the file was "
                    "made for another mesh: delete it to compute the reordering again",
                    file, s->name, s->size, r->sizes[i]);
    else if (bij != 1)
      rc = UM_ERROR(ctx, bij < 0 ? UM_ERR_ALLOC : UM_ERR_IO,
                    "reordering file '%s': the permutation of set '%s' is not a bijection of 0..%d; the file is "
                    "corrupt",
                    file, s->name, s->size - 1);
  }
  for (int i = 0; i < ctx->nsets && rc == UM_SUCCESS; i++)
    if (!um_reordering_perm(r, ctx->sets[i]->name))
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s' has no permutation of set '%s'; the file was made for another app or mesh: "
                    "delete it to compute the reordering again",
                    file, ctx->sets[i]->name);
  if (rc == UM_SUCCESS && r->part_offset) {
    for (int i = 0; i < r->nsets; i++)
      if (strcmp(r->names[i], part_set) == 0) r->part_slot = i;
    if (r->part_slot < 0)
      rc = UM_ERROR(ctx, UM_ERR_IO, "reordering file '%s' holds parts of set '%s' but no permutation of it; the file "
                                    "is corrupt",
                    file, part_set);
    else if (!um__parts_valid(r->part_offset, r->nparts, r->sizes[r->part_slot], r->part_block_size))
      rc = UM_ERROR(ctx, UM_ERR_IO,
                    "reordering file '%s': the %d parts of set '%s' (block size %d) do not split its %d elements "
                    "into consecutive ranges of 1..%d; the file is corrupt",
                    file, r->nparts, part_set, r->part_block_size, r->sizes[r->part_slot], r->part_block_size);
  }
  if (rc == UM_SUCCESS && r->map[0]) {
    um_map *mp = um_find_map(ctx, r->map);
    char h[17];
    if (!mp)
      rc = UM_ERROR(ctx, UM_ERR_ARG, "reordering file '%s' was computed from map '%s', which this context does not "
                                     "declare",
                    file, r->map);
    else if (um__map_hash(mp, h), r->map_hash[0] && strcmp(h, r->map_hash) != 0)
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering file '%s' was computed from a different map '%s' (hash %s, this mesh's is %s): same "
                    "sizes, another mesh or numbering; delete the file to compute the reordering again",
                    file, r->map, r->map_hash, h);
  }
  return rc;
}

static int load_impl(um_context *ctx, const char *file, um_reordering **out) {
  struct stat sb;
  if (stat(file, &sb) != 0)
    return UM_ERROR(ctx, UM_ERR_IO,
                    "cannot load a reordering from '%s': %s; compute it (run.reorder) and save it first", file,
                    strerror(errno));
  char why[512];
  if (um_read_check(file, 0, why, sizeof why)) /* a regular file: libhdf5 would wait on a FIFO */
    return UM_ERROR(ctx, UM_ERR_IO, "cannot load a reordering from '%s': %s", file, why);
  if (H5Fis_hdf5(file) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return UM_ERROR(ctx, UM_ERR_IO, "cannot load a reordering from '%s': not an HDF5 file", file);
  }
  hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) return H5_FAIL(ctx, UM_ERR_IO, "cannot load a reordering from '%s': cannot open it", file);
  char method[64], map[256], hash[64];
  int rc = UM_SUCCESS;
  um_reorder_method m = UM_REORDER_NONE;
  if (um__h5_get_attr_str(fid, "method", method, sizeof method) < 0 ||
      um__h5_get_attr_str(fid, "map", map, sizeof map) < 0 ||
      um__h5_get_attr_str(fid, "map_hash", hash, sizeof hash) < 0) {
    H5Eclear2(H5E_DEFAULT);
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "'%s' is not a reordering file: the attributes 'method', 'map' and 'map_hash' are missing; it must "
                  "be written by um_reordering_save",
                  file);
  } else if (um_reorder_method_parse(method, &m) != UM_SUCCESS) {
    rc = UM_ERROR(ctx, UM_ERR_IO, "reordering file '%s': unknown method '%s' (none, gps, partition)", file, method);
  } else {
    int version = 1; /* files of the first format carry no version */
    if (H5Aexists(fid, "format_version") > 0 && um__h5_get_attr_int(fid, "format_version", &version) < 0)
      version = -1;
    if (version != UM_REORDER_FILE_VERSION)
      rc = UM_ERROR(ctx, UM_ERR_IO,
                    "reordering file '%s' has format version %d, this um reads version %d (version 1 files fingerprint "
                    "the map with a hash that was not FNV-1a); delete the file and run again: the reordering is "
                    "computed and saved anew",
                    file, version, UM_REORDER_FILE_VERSION);
  }
  name_list l = {"perm_", NULL, 0, 0}, lp = {"parts_", NULL, 0, 0};
  if (rc == UM_SUCCESS && (H5Literate(fid, H5_INDEX_NAME, H5_ITER_INC, NULL, list_cb, &l) < 0 ||
                           H5Literate(fid, H5_INDEX_NAME, H5_ITER_INC, NULL, list_cb, &lp) < 0))
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot load a reordering from '%s': listing its datasets failed", file);
  if (rc == UM_SUCCESS && lp.n > 1)
    rc = UM_ERROR(ctx, UM_ERR_IO, "reordering file '%s' holds parts of %d sets ('%s', '%s', ...), at most one is "
                                  "allowed; the file is corrupt",
                  file, lp.n, lp.names[0], lp.names[1]);
  um_reordering *r = NULL;
  if (rc == UM_SUCCESS) rc = um__reordering_alloc(ctx, l.n, &r);
  if (rc == UM_SUCCESS) rc = um__reordering_label(ctx, r, m, map, hash);
  for (int i = 0; i < l.n && rc == UM_SUCCESS; i++) rc = read_perm(ctx, fid, file, l.names[i], r, i);
  /* parts (files of older versions have none) */
  char part_set[256] = "";
  if (rc == UM_SUCCESS && lp.n == 1) rc = read_parts(ctx, fid, file, lp.names[0], r, part_set, sizeof part_set);
  for (int i = 0; i < l.n; i++) free(l.names[i]);
  free(l.names);
  for (int i = 0; i < lp.n; i++) free(lp.names[i]);
  free(lp.names);
  H5Fclose(fid);
  if (rc != UM_SUCCESS) {
    um_reordering_free(&r);
    return rc;
  }
  rc = check_against_context(ctx, file, r, part_set);
  if (rc != UM_SUCCESS) {
    um_reordering_free(&r);
    return rc;
  }
  *out = r;
  return UM_SUCCESS;
}

int um_reordering_load(um_context *ctx, const char *file, um_reordering **out, um_reorder_stats *stats) {
  UM_CTX_OK(ctx);
  if (!file || !out) return UM_ERROR(ctx, UM_ERR_ARG, "um_reordering_load: file name or out missing");
  *out = NULL;
  double t0 = um_wtime();
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = load_impl(ctx, file, out);
  um__h5_quiet_off(&q);
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  if (stats) stats->io_seconds = um_wtime() - t0;
  return UM_SUCCESS;
}
