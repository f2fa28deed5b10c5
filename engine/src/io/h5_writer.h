/* The writer of files the ranks fill by blocks (h5_write.c), shared by the mesh writers and the checkpoints
 * (checkpoint.c): rank 0 creates a unique temporary beside the path and every dataset of its global shape; the
 * ranks write their blocks of rows into it in turn (um_in_turn); rank 0 renames it over the path. Each step's
 * outcome is agreed across the ranks before the next. */
#ifndef UM_IO_H5_WRITER_H
#define UM_IO_H5_WRITER_H

#include <hdf5.h>

#include "um/um.h"
#include "um/safe_file.h"

typedef struct {
  const char *path;
  um_safe_file sf; /* sf.tmp: the unique temporary being written (rank 0's) */
  hid_t fid; /* rank 0's, while it creates the datasets */
  int root; /* the rank that creates, renames and removes the file: 0, or the one process */
  char tmp[4096]; /* the temporary's name, on every rank once shared (um__h5w_pause) */
} writer;

/* A dataset's rows: this rank's block [begin, begin + count) of cols values of HDF5 type `type` at buf. */
typedef struct {
  const writer *w;
  const char *name, *what;
  hid_t type;
  const void *buf;
  long long begin;
  int count, cols;
} slab;

/* Start writing `path` (keep: a copy of the existing file; else a new one), agreed across the ranks. */
int um__h5w_begin(um_context *ctx, writer *w, const char *path, int keep, const char *what);
/* Rank 0: create dataset `name` of rank 1 or 2 and shape dims, written from buf (NULL: left to the ranks' blocks);
 * open in *did. replace: an existing one of that name is replaced, else it is an error. */
int um__h5w_dataset(um_context *ctx, const writer *w, const char *name, int rank, const hsize_t *dims, hid_t type,
                    const void *buf, int replace, const char *what, hid_t *did);
/* Rank 0 has created every dataset: it closes the temporary and every rank learns its name (agreed). */
int um__h5w_pause(um_context *ctx, writer *w, const char *what);
/* Every rank: its block of a dataset's rows, written in its turn (agreed). */
int um__h5w_rows(um_context *ctx, slab *s);
/* Rank 0 renames the temporary over the path (call it on every rank, then agree). */
int um__h5w_commit(um_context *ctx, writer *w, const char *what);
/* Rank 0 removes the temporary. */
void um__h5w_abort(writer *w);

#endif
