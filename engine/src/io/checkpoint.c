/* Checkpoints (um/checkpoint.h): which dats the next steps need, learnt from the loops of the steps; the file
 * written by blocks through the writer the mesh dumps use (h5_writer.h); read back by blocks on any number of
 * ranks.
 *
 * Checksums: each row's bytes are hashed with its global (declared) number; the 64-bit hashes are summed as two
 * 32-bit halves in exact 64-bit integers, over the rows of a block and then over the ranks, so the sum does not
 * depend on how the rows were split among ranks; the two sums are mixed into the 16 hex digits stored. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include <hdf5.h>

#include "h5_writer.h"
#include "h5util.h"
#include "um/checkpoint.h"
#include "um/distributed.h"
#include "../core/internal.h"
#include "distributed/dist.h"

/* ---- what the steps do to the dats ---- */

void um__ck_loop(um_context *ctx, const um_loop *loop) {
  if (!ctx->ck_tracking || ctx->ck_quiet) return;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT) continue;
    um_dat *d = a->dat;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = loop->args[j].kind == UM_ARG_DAT && loop->args[j].dat == d;
    if (seen) continue;
    int reads = 0, writes = 0, whole = loop->set == d->set;
    for (int j = i; j < loop->nargs; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind != UM_ARG_DAT || b->dat != d) continue;
      if (b->acc != UM_WRITE) reads = 1; /* READ, RW, INC, MIN, MAX: the old values matter */
      if (b->acc != UM_READ) writes = 1;
      if (b->acc != UM_WRITE || b->map || b->idx == UM_WHOLE) whole = 0; /* through a map: some rows may stay */
    }
    if (!d->ck_first) {
      d->ck_first = writes && !reads && whole ? 2 : 1;
      if (d->ck_first == 2 && d->ck_writer < 0) d->ck_writer = loop->id;
    }
    if (writes) d->ck_written = 1;
  }
}

int um_checkpoint_mark(um_context *ctx) {
  UM_CTX_OK(ctx);
  for (int i = 0; i < ctx->ndats; i++) {
    um_dat *d = ctx->dats[i];
    d->ck_first = 0;
    d->ck_written = d->ck_restored; /* a restart's values are no set-up's: the next checkpoint carries them on */
    d->ck_read_steps = d->ck_over_steps = 0;
    d->ck_writer = -1;
  }
  ctx->ck_tracking = 1;
  ctx->ck_steps = 0;
  return UM_SUCCESS;
}

int um_checkpoint_step(um_context *ctx) {
  UM_CTX_OK(ctx);
  if (!ctx->ck_tracking) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_step before um_checkpoint_mark");
  for (int i = 0; i < ctx->ndats; i++) {
    um_dat *d = ctx->dats[i];
    if (d->ck_first == 1) d->ck_read_steps++;
    if (d->ck_first == 2) d->ck_over_steps++;
    d->ck_first = 0;
  }
  ctx->ck_steps++;
  return UM_SUCCESS;
}

int um_checkpoint_plan(const um_context *ctx, um_checkpoint_dat *out, int *n) {
  if (!ctx || !out || !n) return UM_ERR_ARG;
  for (int i = 0; i < ctx->ndats; i++) {
    const um_dat *d = ctx->dats[i];
    um_checkpoint_dat *o = &out[i];
    o->dat = d;
    o->saved = 0;
    if (!ctx->ck_tracking || !d->ck_written) {
      snprintf(o->reason, sizeof o->reason, "not changed since the set-up (a restart's set-up makes it again)");
    } else if (d->ck_over_steps > 0 && d->ck_read_steps == 0 && d->ck_first != 1) {
      const char *by = d->ck_writer >= 0 && d->ck_writer < ctx->nloops ? ctx->loops[d->ck_writer].name : "?";
      snprintf(o->reason, sizeof o->reason, "every step overwrites it whole (loop '%s') before reading it", by);
    } else {
      o->saved = 1;
      snprintf(o->reason, sizeof o->reason, "%s",
               d->ck_read_steps > 0 || d->ck_first == 1 ? "read by a step before it is overwritten"
               : d->ck_restored && !d->ck_over_steps    ? "restored from the checkpoint this run continued"
                                                        : "changed since the set-up");
    }
  }
  *n = ctx->ndats;
  return UM_SUCCESS;
}

/* ---- checksums ---- */

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* count rows of `row` bytes numbered first, first + 1, ... added into acc[2] (see the top). */
static void hash_rows(const char *rows, size_t row, long long first, size_t count, long long acc[2]) {
  for (size_t k = 0; k < count; k++) {
    const unsigned char *p = (const unsigned char *)rows + k * row;
    uint64_t h = mix64((uint64_t)(first + (long long)k) + 0x9e3779b97f4a7c15ULL);
    size_t b = 0;
    for (; b + 8 <= row; b += 8) {
      uint64_t w;
      memcpy(&w, p + b, 8);
      h = mix64(h ^ w);
    }
    if (b < row) {
      uint64_t w = 0;
      memcpy(&w, p + b, row - b);
      h = mix64(h ^ w ^ ((uint64_t)(row - b) << 56));
    }
    acc[0] += (long long)(h & 0xffffffffu);
    acc[1] += (long long)(h >> 32);
  }
}

static void hash_text(const long long acc[2], long long nrows, char out[17]) {
  const uint64_t h = mix64((uint64_t)acc[0] ^ mix64((uint64_t)acc[1] ^ mix64((uint64_t)nrows)));
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The checksum of a whole array held by one process (a value, a text). */
static void hash_whole(const void *p, size_t bytes, char out[17]) {
  long long acc[2] = {0, 0};
  hash_rows(p, bytes ? bytes : 1, 0, bytes ? 1 : 0, acc);
  hash_text(acc, 1, out);
}

/* ---- writing ---- */

static int dat_block(um_context *ctx, const um_dat *d, long long *begin, int *count, size_t *row) {
  *row = (size_t)d->dim * d->esize;
  return um_set_block(ctx, d->set, begin, count);
}

/* The plan as text: a line per dat, "name saved|skipped: reason". */
static char *plan_text(const um_checkpoint_dat *p, int n) {
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(p[i].dat->name) + strlen(p[i].reason) + 16;
  char *t = malloc(len), *o = t;
  if (!t) return NULL;
  *o = 0;
  for (int i = 0; i < n; i++)
    o += sprintf(o, "%s %s: %s\n", p[i].dat->name, p[i].saved ? "saved" : "skipped", p[i].reason);
  return t;
}

static int put_attr_checksum(um_context *ctx, hid_t did, const char *sum, const char *what, const char *path) {
  if (um__h5_put_attr_str(did, "checksum", sum, 0) < 0)
    return H5_FAIL(ctx, UM_ERR_IO, "cannot write %s to '%s': writing its checksum failed", what, path);
  return UM_SUCCESS;
}

/* Rank 0: a dataset of bytes with its checksum (state/<name>, meta/<key>). */
static int put_bytes(um_context *ctx, const writer *w, const char *group, const char *name, const void *p,
                     size_t bytes) {
  char ds[600], what[700], sum[17];
  snprintf(ds, sizeof ds, "%s/%s", group, name);
  snprintf(what, sizeof what, "checkpoint dataset '%s'", ds);
  hsize_t dims[1] = {(hsize_t)bytes};
  hid_t did;
  UM_CHECK(ctx, um__h5w_dataset(ctx, w, ds, 1, dims, H5T_NATIVE_UCHAR, bytes ? p : NULL, 0, what, &did));
  hash_whole(p, bytes, sum);
  const int rc = put_attr_checksum(ctx, did, sum, what, w->path);
  H5Dclose(did);
  return rc;
}

/* A count: a 32-bit int as OP2 writes its sets, 64-bit when it passes INT_MAX (a set declared by blocks). */
static int put_count(um_context *ctx, const writer *w, const char *name, long long v) {
  hsize_t dims[1] = {1};
  hid_t did;
  const int small = (int)v;
  UM_CHECK(ctx, um__h5w_dataset(ctx, w, name, 1, dims, v <= INT_MAX ? H5T_NATIVE_INT : H5T_NATIVE_LLONG,
                                v <= INT_MAX ? (const void *)&small : (const void *)&v, 0, name, &did));
  H5Dclose(did);
  return UM_SUCCESS;
}

/* Rank 0: every dataset of the file but the marker, the dats' and partitions' rows left to the ranks. */
static int create_all(um_context *ctx, const writer *w, const um_checkpoint_dat *p, int n,
                      const um_checkpoint_content *c, const char *plan, int partition) {
  for (int i = 0; i < ctx->nsets; i++) {
    char ds[300];
    snprintf(ds, sizeof ds, "sets/%s", ctx->sets[i]->name);
    UM_CHECK(ctx, put_count(ctx, w, ds, ctx->sets[i]->gsize));
    if (!partition) continue;
    snprintf(ds, sizeof ds, "partition/%s", ctx->sets[i]->name);
    hsize_t dims[2] = {(hsize_t)ctx->sets[i]->gsize, 1};
    hid_t did;
    UM_CHECK(ctx, um__h5w_dataset(ctx, w, ds, 2, dims, H5T_NATIVE_INT, NULL, 0, ds, &did));
    H5Dclose(did);
  }
  for (int i = 0; i < n; i++) {
    if (!p[i].saved) continue;
    const um_dat *d = p[i].dat;
    char ds[300], what[400];
    snprintf(ds, sizeof ds, "dats/%s", d->name);
    snprintf(what, sizeof what, "dat '%s'", d->name);
    hsize_t dims[2] = {(hsize_t)d->set->gsize, (hsize_t)d->dim};
    hid_t did;
    UM_CHECK(ctx, um__h5w_dataset(ctx, w, ds, 2, dims, um__h5_native_of(d->type), NULL, 0, what, &did));
    H5Dclose(did);
  }
  for (int i = 0; c && i < c->nvalues; i++)
    UM_CHECK(ctx, put_bytes(ctx, w, "state", c->values[i].name, c->values[i].data, c->values[i].bytes));
  for (int i = 0; c && i < c->ntexts; i++)
    UM_CHECK(ctx, put_bytes(ctx, w, "meta", c->texts[i].key, c->texts[i].text, strlen(c->texts[i].text)));
  return put_bytes(ctx, w, "meta", "dats", plan, strlen(plan));
}

/* Every rank: its block of one dat's rows in the declared order, written in turn; its checksum into sum. */
static int write_dat(um_context *ctx, const writer *w, const um_dat *d, char sum[17], double *bytes) {
  long long begin = 0;
  int count = 0;
  size_t row = 0;
  UM_CHECK(ctx, dat_block(ctx, d, &begin, &count, &row));
  char ds[300], what[400];
  snprintf(ds, sizeof ds, "dats/%s", d->name);
  snprintf(what, sizeof what, "dat '%s'", d->name);
  char *buf = malloc((size_t)count * row + 1);
  int rc = um__dist_agree(ctx, buf ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "checkpoint: out of memory for %s", what));
  if (!rc) rc = um_dat_fetch_block_original_order(ctx, d, buf, (size_t)count * row);
  long long acc[2] = {0, 0};
  if (!rc) hash_rows(buf, row, begin, (size_t)count, acc);
  slab s = {w, ds, what, um__h5_native_of(d->type), buf, begin, count, d->dim};
  if (!rc) rc = um__h5w_rows(ctx, &s);
  if (!rc) rc = um__dist_agree(ctx, um__dist_sum_i64(ctx, acc, 2));
  if (!rc) hash_text(acc, d->set->gsize, sum);
  *bytes += (double)d->set->gsize * (double)row;
  free(buf);
  return rc;
}

/* Every rank: the owner of each of its owned elements, to their blocks, written in turn. */
static int write_partition(um_context *ctx, const writer *w, const um_set *s) {
  const long long *l2g = NULL;
  int rc = um__dist_l2g(ctx, s, &l2g);
  long long begin = 0;
  int count = 0;
  UM_CHECK(ctx, um_set_block(ctx, s, &begin, &count));
  int *mine = malloc(((size_t)s->size + 1) * sizeof(int)), *blk = malloc(((size_t)count + 1) * sizeof(int));
  if (!rc && (!mine || !blk || !l2g)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "checkpoint: out of memory for the partition");
  rc = um__dist_agree(ctx, rc);
  for (int i = 0; !rc && i < s->size; i++) mine[i] = um_context_rank(ctx);
  if (!rc)
    rc = um_rows_to_blocks64(ctx, s->size, l2g, mine, sizeof(int), s->gsize, blk, (size_t)count * sizeof(int));
  char ds[300];
  snprintf(ds, sizeof ds, "partition/%s", s->name);
  slab sl = {w, ds, ds, H5T_NATIVE_INT, blk, begin, count, 1};
  if (!rc) rc = um__h5w_rows(ctx, &sl);
  free(mine), free(blk);
  return rc;
}

/* Rank 0, the rows written: the dats' checksums and the marker, into the temporary. */
static int finish_file(um_context *ctx, const writer *w, const um_checkpoint_dat *p, int n, char (*sums)[17]) {
  if (!w->root) return UM_SUCCESS;
  hid_t f = H5Fopen(w->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return H5_FAIL(ctx, UM_ERR_IO, "cannot write checkpoint '%s': reopening '%s' failed", w->path, w->tmp);
  int rc = UM_SUCCESS;
  for (int i = 0; !rc && i < n; i++) {
    if (!p[i].saved) continue;
    char ds[300];
    snprintf(ds, sizeof ds, "dats/%s", p[i].dat->name);
    hid_t d = H5Dopen2(f, ds, H5P_DEFAULT);
    rc = d < 0 ? H5_FAIL(ctx, UM_ERR_IO, "cannot write checkpoint '%s': reopening '%s' failed", w->path, ds)
               : put_attr_checksum(ctx, d, sums[i], ds, w->path);
    if (d >= 0) H5Dclose(d);
  }
  hid_t sp = H5Screate_simple(1, (hsize_t[]){1}, NULL);
  hid_t d = !rc && sp >= 0 ? H5Dcreate2(f, "um_checkpoint", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                           : H5I_INVALID_HID;
  const int format = UM_CHECKPOINT_FORMAT;
  if (!rc && (d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &format) < 0))
    rc = H5_FAIL(ctx, UM_ERR_IO, "cannot write checkpoint '%s': writing its marker failed", w->path);
  if (d >= 0) H5Dclose(d);
  if (sp >= 0) H5Sclose(sp);
  if (H5Fclose(f) < 0 && !rc)
    rc = H5_FAIL(ctx, UM_ERR_IO,
                 "cannot write checkpoint '%s': closing (flushing) '%s' failed; is the disk full, or the file size "
                 "limit (ulimit -f) reached?",
                 w->path, w->tmp);
  return rc;
}

static int write_impl(um_context *ctx, const char *path, const um_checkpoint_content *c, um_checkpoint_cost *cost) {
  const double t0 = um_wtime();
  const int n = ctx->ndats;
  um_checkpoint_dat *p = malloc(((size_t)n + 1) * sizeof *p);
  char(*sums)[17] = calloc((size_t)n + 1, sizeof *sums);
  char *plan = NULL;
  int rc = p && sums ? um_checkpoint_plan(ctx, p, &(int){0}) : UM_ERROR(ctx, UM_ERR_ALLOC, "checkpoint: out of memory");
  if (!rc && !(plan = plan_text(p, n))) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "checkpoint: out of memory");
  rc = um__dist_agree(ctx, rc);
  /* the partition's owners by global number: where a reordering renumbered a set, its blocks would be in the
   * current numbering, not the declared one the dats use: left out */
  int partition = ctx->dist != NULL;
  for (int i = 0; i < ctx->nsets; i++)
    if (ctx->sets[i]->perm) partition = 0;
  writer w;
  int begun = 0;
  if (!rc) rc = um__h5w_begin(ctx, &w, path, 0, "checkpoint");
  begun = !rc;
  if (!rc && w.root) rc = create_all(ctx, &w, p, n, c, plan, partition);
  rc = um__dist_agree(ctx, rc);
  if (!rc) rc = um__h5w_pause(ctx, &w, "checkpoint");
  double bytes = 0;
  int saved = 0;
  for (int i = 0; !rc && i < n; i++)
    if (p[i].saved) rc = write_dat(ctx, &w, p[i].dat, sums[i], &bytes), saved++;
  for (int i = 0; !rc && partition && i < ctx->nsets; i++) rc = write_partition(ctx, &w, ctx->sets[i]);
  if (!rc) rc = um__dist_agree(ctx, finish_file(ctx, &w, p, n, sums));
  if (!rc) rc = um__dist_agree(ctx, um__h5w_commit(ctx, &w, "checkpoint"));
  else if (begun) um__h5w_abort(&w);
  for (int i = 0; c && i < c->nvalues; i++) bytes += (double)c->values[i].bytes;
  if (!rc && cost) {
    double t = um_wtime() - t0;
    UM_CHECK(ctx, um__dist_max_f64(ctx, &t, 1));
    *cost = (um_checkpoint_cost){bytes, t, saved, n - saved, 0};
  }
  free(p), free(sums), free(plan);
  return rc;
}

int um_checkpoint_write(um_context *ctx, const char *path, const um_checkpoint_content *c, um_checkpoint_cost *cost) {
  UM_CTX_OK(ctx);
  if (!path || !*path) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_write: no path");
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  ctx->ck_quiet++;
  const int rc = write_impl(ctx, path, c, cost);
  ctx->ck_quiet--;
  um__h5_quiet_off(&q);
  return rc;
}

/* ---- reading ---- */

struct um_checkpoint_file {
  char path[4096];
  hid_t fid;
  int ntexts;
  char **keys, **texts;
};

void um_checkpoint_close(um_checkpoint_file *f) {
  if (!f) return;
  if (f->fid >= 0) H5Fclose(f->fid);
  for (int i = 0; i < f->ntexts; i++) free(f->keys[i]), free(f->texts[i]);
  free(f->keys), free(f->texts);
  free(f);
}

const char *um_checkpoint_text_get(const um_checkpoint_file *f, const char *key) {
  for (int i = 0; f && key && i < f->ntexts; i++)
    if (!strcmp(f->keys[i], key)) return f->texts[i];
  return NULL;
}

/* Dataset `name` of bytes, whole, checked against its checksum: *out malloc'd (NUL-terminated), *n its bytes. */
static int read_bytes(um_context *ctx, hid_t fid, const char *path, const char *name, char **out, size_t *n) {
  *out = NULL;
  hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
  if (d < 0) return H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': no dataset '%s'", path, name);
  hid_t sp = H5Dget_space(d);
  hssize_t len = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
  char want[64] = "", got[17];
  int rc = UM_SUCCESS;
  if (!buf) rc = H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': cannot read dataset '%s'", path, name);
  else if (len > 0 && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': reading dataset '%s' failed (a truncated file?)", path, name);
  if (!rc) {
    buf[len] = 0;
    hash_whole(buf, (size_t)len, got);
    if (um__h5_get_attr_str(d, "checksum", want, sizeof want) < 0 || strcmp(want, got))
      rc = UM_ERROR(ctx, UM_ERR_IO, "checkpoint '%s' is corrupt: dataset '%s' does not match its checksum", path,
                    name);
  }
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *n = (size_t)len;
  return UM_SUCCESS;
}

typedef struct {
  char **names;
  int n, cap;
} name_list;

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  (void)g, (void)info;
  name_list *l = arg;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    char **p = realloc(l->names, (size_t)l->cap * sizeof *p);
    if (!p) return -1;
    l->names = p;
  }
  return (l->names[l->n] = strdup(name)) ? (l->n++, 0) : -1;
}

/* The names in group `group` of the file, in name order (absent group: none). */
static int list_group(hid_t fid, const char *group, name_list *l) {
  memset(l, 0, sizeof *l);
  if (!um__h5_path_exists(fid, group)) return 0;
  hid_t g = H5Gopen2(fid, group, H5P_DEFAULT);
  if (g < 0) return -1;
  herr_t st = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, list_cb, l);
  H5Gclose(g);
  return st < 0 ? -1 : 0;
}

static void list_free(name_list *l) {
  for (int i = 0; i < l->n; i++) free(l->names[i]);
  free(l->names);
}

static int open_impl(um_context *ctx, const char *path, um_checkpoint_file *f) {
  if (!um__file_exists(path)) return UM_ERROR(ctx, UM_ERR_IO, "checkpoint '%s' does not exist", path);
  if (H5Fis_hdf5(path) <= 0)
    return UM_ERROR(ctx, UM_ERR_IO, "'%s' is not a um checkpoint: not an HDF5 file (or a truncated one)", path);
  f->fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f->fid < 0) return H5_FAIL(ctx, UM_ERR_IO, "cannot open checkpoint '%s' (a truncated file?)", path);
  int format = -1;
  hid_t d = um__h5_path_exists(f->fid, "um_checkpoint") ? H5Dopen2(f->fid, "um_checkpoint", H5P_DEFAULT) : -1;
  if (d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &format) < 0) {
    if (d >= 0) H5Dclose(d);
    return UM_ERROR(ctx, UM_ERR_IO,
                    "'%s' is not a complete um checkpoint: it has no readable 'um_checkpoint' marker (another "
                    "program's HDF5 file, or one whose writing did not finish)",
                    path);
  }
  H5Dclose(d);
  if (format != UM_CHECKPOINT_FORMAT)
    return UM_ERROR(ctx, UM_ERR_CONFIG,
                    "checkpoint '%s' is of format %d; this um reads format %d: restart it with the um that wrote it",
                    path, format, UM_CHECKPOINT_FORMAT);
  name_list l;
  if (list_group(f->fid, "meta", &l) != 0) {
    list_free(&l);
    return H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': cannot list its texts (meta/)", path);
  }
  f->keys = calloc((size_t)l.n + 1, sizeof *f->keys);
  f->texts = calloc((size_t)l.n + 1, sizeof *f->texts);
  int rc = f->keys && f->texts ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reading '%s'", path);
  for (int i = 0; !rc && i < l.n; i++) {
    char ds[600];
    size_t len = 0;
    snprintf(ds, sizeof ds, "meta/%s", l.names[i]);
    rc = read_bytes(ctx, f->fid, path, ds, &f->texts[i], &len);
    if (!rc) f->keys[i] = l.names[i], l.names[i] = NULL, f->ntexts++;
  }
  list_free(&l);
  return rc;
}

int um_checkpoint_open(um_context *ctx, const char *path, um_checkpoint_file **out) {
  UM_CTX_OK(ctx);
  if (!path || !out) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_open: a NULL argument");
  *out = NULL;
  um_checkpoint_file *f = calloc(1, sizeof *f);
  if (!f) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory opening checkpoint '%s'", path);
  f->fid = H5I_INVALID_HID;
  snprintf(f->path, sizeof f->path, "%s", path);
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = um__dist_agree(ctx, open_impl(ctx, path, f));
  um__h5_quiet_off(&q);
  if (rc) {
    um_checkpoint_close(f);
    return rc;
  }
  *out = f;
  return UM_SUCCESS;
}

int um_checkpoint_value_get(um_context *ctx, const um_checkpoint_file *f, const char *name, void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!f || !name || (!out && bytes)) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_value_get: a NULL argument");
  char ds[600], *buf = NULL;
  size_t n = 0;
  snprintf(ds, sizeof ds, "state/%s", name);
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  int rc = um__h5_path_exists(f->fid, ds)
               ? read_bytes(ctx, f->fid, f->path, ds, &buf, &n)
               : UM_ERROR(ctx, UM_ERR_IO,
                          "checkpoint '%s' has no value '%s': it was written by another app or version of it",
                          f->path, name);
  um__h5_quiet_off(&q);
  if (!rc && n != bytes)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "checkpoint '%s': value '%s' is %zu bytes where this run keeps %zu (another version of the app?)",
                  f->path, name, n, bytes);
  if (!rc) memcpy(out, buf, bytes);
  free(buf);
  return um__dist_agree(ctx, rc);
}

int um_checkpoint_value_has(const um_checkpoint_file *f, const char *name) {
  if (!f || !name) return 0;
  char ds[600];
  snprintf(ds, sizeof ds, "state/%s", name);
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  const int has = um__h5_path_exists(f->fid, ds) > 0;
  um__h5_quiet_off(&q);
  return has;
}

/* One dat's dataset: this rank's block of rows read into *out (malloc'd), its checksum checked (collective). */
static int read_dat(um_context *ctx, um_checkpoint_file *f, const char *name, um_dat *d, char **out,
                    size_t *bytes) {
  char ds[600];
  snprintf(ds, sizeof ds, "dats/%s", name);
  long long begin = 0;
  int count = 0;
  size_t row = 0;
  *out = NULL;
  int rc = UM_SUCCESS;
  hid_t did = H5Dopen2(f->fid, ds, H5P_DEFAULT), sp = did >= 0 ? H5Dget_space(did) : -1;
  hid_t ft = did >= 0 ? H5Dget_type(did) : -1;
  hsize_t dims[2] = {0, 0};
  const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (nd == 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (did < 0 || nd != 2) rc = H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': cannot read dataset '%s'", f->path, ds);
  else if (!d)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "checkpoint '%s' holds dat '%s', which this run does not declare: it was written by another app, "
                  "mesh or version",
                  f->path, name);
  else if (dims[0] != (hsize_t)d->set->gsize || dims[1] != (hsize_t)d->dim ||
           H5Tget_class(ft) != (d->type == UM_INT ? H5T_INTEGER : H5T_FLOAT) ||
           H5Tget_size(ft) != d->esize)
    rc = UM_ERROR(ctx, UM_ERR_IO,
                  "checkpoint '%s': dat '%s' is [%llu][%llu] of %zu-byte values there, [%lld][%d] of %s here: it was "
                  "written for another mesh or version",
                  f->path, name, (unsigned long long)dims[0], (unsigned long long)dims[1], H5Tget_size(ft),
                  d->set->gsize, d->dim, um_type_name(d->type));
  if (!rc) rc = dat_block(ctx, d, &begin, &count, &row);
  char *buf = rc ? NULL : malloc((size_t)count * row + 1);
  if (!rc && !buf) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reading dat '%s' of '%s'", name, f->path);
  if (!rc && count > 0) {
    hsize_t start[2] = {(hsize_t)begin, 0}, cnt[2] = {(hsize_t)count, (hsize_t)d->dim};
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    herr_t st = ms >= 0 ? H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, cnt, NULL) : -1;
    if (st >= 0) st = H5Dread(did, um__h5_native_of(d->type), ms, sp, H5P_DEFAULT, buf);
    if (st < 0)
      rc = H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': reading rows %lld..%lld of '%s' failed (a truncated file?)",
                   f->path, begin, begin + count - 1, ds);
    if (ms >= 0) H5Sclose(ms);
  }
  char want[64] = "";
  if (!rc && um__h5_get_attr_str(did, "checksum", want, sizeof want) < 0)
    rc = UM_ERROR(ctx, UM_ERR_IO, "checkpoint '%s' is corrupt: dataset '%s' has no checksum", f->path, ds);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  if (did >= 0) H5Dclose(did);
  rc = um__dist_agree(ctx, rc);
  long long acc[2] = {0, 0};
  if (!rc) hash_rows(buf, row, begin, (size_t)count, acc);
  if (!rc) rc = um__dist_agree(ctx, um__dist_sum_i64(ctx, acc, 2));
  char got[17];
  if (!rc) hash_text(acc, d->set->gsize, got);
  if (!rc && strcmp(got, want))
    rc = UM_ERROR(ctx, UM_ERR_IO, "checkpoint '%s' is corrupt: dataset '%s' does not match its checksum", f->path, ds);
  rc = um__dist_agree(ctx, rc);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *bytes = (size_t)count * row;
  return UM_SUCCESS;
}

static um_dat *find_dat(const um_context *ctx, const char *name) {
  for (int i = 0; i < ctx->ndats; i++)
    if (!strcmp(ctx->dats[i]->name, name)) return ctx->dats[i];
  return NULL;
}

/* Every dat of this run that the file's plan (meta/dats: "name saved: reason" lines) says was saved is in dats/:
 * a dataset gone from the file (the others' checksums still match) makes a corrupt checkpoint, never a dat left
 * at its set-up values. */
static int saved_dats_present(um_context *ctx, const um_checkpoint_file *f, const name_list *l) {
  const char *plan = um_checkpoint_text_get(f, "dats");
  if (!plan) return UM_ERROR(ctx, UM_ERR_IO, "checkpoint '%s' is corrupt: it has no meta/dats (the list of its dats)", f->path);
  for (int i = 0; i < ctx->ndats; i++) {
    const char *name = ctx->dats[i]->name;
    const size_t len = strlen(name);
    int saved = 0, held = 0;
    for (const char *line = plan; line && !saved; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
      saved = !strncmp(line, name, len) && !strncmp(line + len, " saved:", 7);
    for (int j = 0; saved && !held && j < l->n; j++) held = !strcmp(l->names[j], name);
    if (saved && !held)
      return UM_ERROR(ctx, UM_ERR_IO,
                      "checkpoint '%s' is corrupt: its list of dats says dat '%s' was saved, and it has no dataset "
                      "'dats/%s'",
                      f->path, name, name);
  }
  return UM_SUCCESS;
}

/* Every dataset of dats/ read and checked; with restore, each dat then updated from its block. */
static int restore_impl(um_context *ctx, um_checkpoint_file *f, int restore, um_checkpoint_cost *cost) {
  const double t0 = um_wtime();
  name_list l;
  int rc = list_group(f->fid, "dats", &l) ? H5_FAIL(ctx, UM_ERR_IO, "checkpoint '%s': cannot list dats/", f->path)
                                          : UM_SUCCESS;
  if (!rc) rc = saved_dats_present(ctx, f, &l);
  rc = um__dist_agree(ctx, rc);
  char **bufs = calloc((size_t)l.n + 1, sizeof *bufs);
  size_t *sizes = calloc((size_t)l.n + 1, sizeof *sizes);
  if (!rc && (!bufs || !sizes)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reading '%s'", f->path);
  rc = um__dist_agree(ctx, rc);
  double bytes = 0;
  int unknown = 0;
  for (int i = 0; !rc && i < l.n; i++) {
    um_dat *d = find_dat(ctx, l.names[i]);
    if (!d) { /* another backend's or setting's dat (a derived map's, a fused path's): this run has no use for it */
      unknown++;
      continue;
    }
    rc = read_dat(ctx, f, l.names[i], d, &bufs[i], &sizes[i]);
    if (!rc) bytes += (double)d->set->gsize * (double)d->dim * (double)d->esize;
    if (!rc && !restore) free(bufs[i]), bufs[i] = NULL;
  }
  for (int i = 0; !rc && restore && i < l.n; i++)
    if (bufs[i]) {
      um_dat *d = find_dat(ctx, l.names[i]);
      rc = um_dat_update_block_original_order(ctx, d, bufs[i], sizes[i]);
      d->ck_restored = !rc;
    }
  if (!rc && cost) {
    double t = um_wtime() - t0;
    rc = um__dist_max_f64(ctx, &t, 1);
    *cost = (um_checkpoint_cost){bytes, t, l.n - unknown, ctx->ndats - (l.n - unknown), unknown};
  }
  for (int i = 0; bufs && i < l.n; i++) free(bufs[i]);
  free(bufs), free(sizes);
  list_free(&l);
  return rc;
}

static int restore_call(um_context *ctx, um_checkpoint_file *f, int restore, um_checkpoint_cost *cost) {
  UM_CTX_OK(ctx);
  if (!f) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_restore: no checkpoint");
  um__h5_quiet q;
  um__h5_quiet_on(&q);
  ctx->ck_quiet++;
  const int rc = restore_impl(ctx, f, restore, cost);
  ctx->ck_quiet--;
  um__h5_quiet_off(&q);
  return rc;
}

int um_checkpoint_restore(um_context *ctx, um_checkpoint_file *f, um_checkpoint_cost *cost) {
  return restore_call(ctx, f, 1, cost);
}

int um_checkpoint_verify(um_context *ctx, um_checkpoint_file *f) { return restore_call(ctx, f, 0, NULL); }

/* ---- the mesh's fingerprint ---- */

int um_checkpoint_mesh_hash(um_context *ctx, char *out, size_t n) {
  UM_CTX_OK(ctx);
  if (!out || !n) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_mesh_hash: no buffer");
  size_t o = 0;
  out[0] = 0;
  for (int i = 0; i < ctx->nsets; i++)
    o += (size_t)snprintf(out + o, o < n ? n - o : 0, "set %s %lld\n", ctx->sets[i]->name, ctx->sets[i]->gsize);
  for (int i = 0; i < ctx->nmaps; i++) {
    const um_map *m = ctx->maps[i];
    long long begin = 0;
    int count = 0;
    UM_CHECK(ctx, um_set_block(ctx, m->from, &begin, &count));
    /* targets as ints (the fingerprint's bytes as ever), 64-bit where the to-set passes INT_MAX */
    const int wide = m->to->gsize > INT_MAX;
    const size_t row = (size_t)m->arity * (wide ? sizeof(long long) : sizeof(int));
    void *buf = malloc((size_t)count * row + 1);
    int rc = um__dist_agree(ctx, buf ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory hashing the mesh"));
    if (!rc && wide) rc = um_map_fetch_block_original_order64(ctx, m, buf, (size_t)count * row);
    else if (!rc) rc = um_map_fetch_block_original_order(ctx, m, buf, (size_t)count * row);
    long long acc[2] = {0, 0};
    if (!rc) hash_rows((const char *)buf, row, begin, (size_t)count, acc);
    if (!rc) rc = um__dist_agree(ctx, um__dist_sum_i64(ctx, acc, 2));
    free(buf);
    if (rc) return rc;
    char h[17];
    hash_text(acc, m->from->gsize, h);
    o += (size_t)snprintf(out + o, o < n ? n - o : 0, "map %s %s->%s %d %s\n", m->name, m->from->name, m->to->name,
                          m->arity, h);
  }
  if (o >= n) return UM_ERROR(ctx, UM_ERR_ARG, "um_checkpoint_mesh_hash: %zu bytes do not hold the fingerprint", n);
  return UM_SUCCESS;
}
