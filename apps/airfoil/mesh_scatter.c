/* Airfoil's text new_grid.dat by blocks: OP2's text layout can only be read from its start, so rank 0 reads it
 * whole (mesh_text.c) and sends every rank its block of each set (the block partitioner's ranges, um/distributed.h:
 * um_mpi_scatter_block); rank 0 frees the whole mesh once sent. Rank 0's peak is the mesh once plus its block; the
 * other ranks hold only their blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "naca0012.h"
#include "um/um.h"

int airfoil_block_scatter(airfoil_mesh *m, airfoil_block *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  long long n[4] = {m->nnode, m->ncell, m->nedge, m->nbedge}; /* rank 0's; the others' are 0 until sent */
  int rc = um_mpi_bcast_bytes(n, sizeof n);
  for (int s = 0; s < 4 && !rc; s++) {
    b->gsize[s] = n[s];
    rc = um_block_range(n[s], um_mpi_rank(), um_mpi_size(), &b->first[s], &b->count[s]);
  }
  const size_t c[4] = {(size_t)b->count[0] + 1, (size_t)b->count[1] + 1, (size_t)b->count[2] + 1,
                       (size_t)b->count[3] + 1};
  b->x = malloc(sizeof(double) * 2 * c[0]);
  b->cell = malloc(sizeof(long long) * 4 * c[1]);
  b->edge = malloc(sizeof(long long) * 2 * c[2]), b->ecell = malloc(sizeof(long long) * 2 * c[2]);
  b->bedge = malloc(sizeof(long long) * 2 * c[3]), b->becell = malloc(sizeof(long long) * c[3]);
  b->bound = malloc(sizeof(int) * c[3]);
  const int mem = !b->x || !b->cell || !b->edge || !b->ecell || !b->bedge || !b->becell || !b->bound;
  if (!rc && um_mpi_agree(mem, -1)) rc = UM_ERR_ALLOC; /* some rank is out of memory: none scatters */
  if (!rc) rc = um_mpi_scatter_block(m->x, n[0], 2 * sizeof(double), b->x);
  if (!rc) rc = um_mpi_scatter_map_block(m->cell, n[1], 4, b->cell);
  if (!rc) rc = um_mpi_scatter_map_block(m->edge, n[2], 2, b->edge);
  if (!rc) rc = um_mpi_scatter_map_block(m->ecell, n[2], 2, b->ecell);
  if (!rc) rc = um_mpi_scatter_map_block(m->bedge, n[3], 2, b->bedge);
  if (!rc) rc = um_mpi_scatter_map_block(m->becell, n[3], 1, b->becell);
  if (!rc) rc = um_mpi_scatter_block(m->bound, n[3], sizeof(int), b->bound);
  airfoil_mesh_free(m); /* rank 0's whole copy: sent */
  if (rc) {
    snprintf(err, errlen, "the mesh read on rank 0 could not be sent out by blocks (%s)",
             rc == UM_ERR_ALLOC ? "out of memory on some rank" : "MPI failed");
    airfoil_block_free(b);
  }
  return rc;
}
