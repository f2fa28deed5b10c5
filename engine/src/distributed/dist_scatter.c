/* A mesh read whole on rank 0 and declared by blocks (um/distributed.h: um_mpi_scatter_block): rank 0 sends each
 * rank the block partitioner's range of a set's rows (um_block_range) with one MPI_Scatterv of row-sized elements,
 * so no other rank holds more than its block; um_mpi_bcast_bytes sends the few numbers every rank needs first (the
 * sets' sizes). Without MPI, or on one rank, the block is the whole array. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "um/um.h"

#ifdef UM_HAVE_MPI
#include "dist_impl.h"

int um_mpi_bcast_bytes(void *buf, size_t n) {
  if (!buf && n) return UM_ERR_ARG;
  if (!mpi_up() || um_mpi_size() < 2) return UM_SUCCESS;
  for (size_t off = 0; off < n;) { /* in pieces of at most INT_MAX bytes (MPI's counts are int) */
    const size_t k = n - off < (size_t)INT_MAX ? n - off : (size_t)INT_MAX;
    if (MPI_Bcast((char *)buf + off, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return UM_ERR_BACKEND;
    off += k;
  }
  return UM_SUCCESS;
}

int um_mpi_scatter_block(const void *whole, long long gsize, size_t row_bytes, void *mine) {
  const int rank = um_mpi_rank(), nranks = um_mpi_size();
  long long begin = 0;
  int count = 0;
  const int bad_arg = gsize < 0 || gsize > INT_MAX || !row_bytes || row_bytes > INT_MAX ||
                      um_block_range(gsize, rank, nranks, &begin, &count) != UM_SUCCESS || (count && !mine) ||
                      (rank == 0 && gsize && !whole);
  if (!mpi_up() || nranks < 2) {
    if (bad_arg) return UM_ERR_ARG;
    if (count && mine != whole) memcpy(mine, whole, (size_t)count * row_bytes);
    return UM_SUCCESS;
  }
  int *counts = NULL, *displs = NULL;
  if (rank == 0 && !bad_arg) {
    counts = malloc(sizeof(int) * (size_t)nranks);
    displs = malloc(sizeof(int) * (size_t)nranks);
  }
  const int bad_alloc = rank == 0 && !bad_arg && (!counts || !displs);
  for (int p = 0; rank == 0 && !bad_arg && !bad_alloc && p < nranks; p++) {
    long long b = 0;
    um_block_range(gsize, p, nranks, &b, &counts[p]);
    displs[p] = (int)b;
  }
  MPI_Datatype row;
  const int typed = !bad_arg && MPI_Type_contiguous((int)row_bytes, MPI_BYTE, &row) == MPI_SUCCESS;
  const int committed = typed && MPI_Type_commit(&row) == MPI_SUCCESS;
  /* a rank's failure here is every rank's: all enter the scatter, or none (3: argument, 2: memory, 1: MPI) */
  const int mine_bad = bad_arg ? 3 : bad_alloc ? 2 : !committed;
  int status = 1;
  if (MPI_Allreduce(&mine_bad, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) status = 1;
  if (!status && MPI_Scatterv(whole, counts, displs, row, mine, count, row, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    status = 1;
  if (typed) MPI_Type_free(&row);
  free(counts);
  free(displs);
  return status == 3 ? UM_ERR_ARG : status == 2 ? UM_ERR_ALLOC : status ? UM_ERR_BACKEND : UM_SUCCESS;
}

#else /* no MPI: one process, whose block is the whole set */

int um_mpi_bcast_bytes(void *buf, size_t n) { return !buf && n ? UM_ERR_ARG : UM_SUCCESS; }

int um_mpi_scatter_block(const void *whole, long long gsize, size_t row_bytes, void *mine) {
  if (gsize < 0 || gsize > INT_MAX || !row_bytes || (gsize && (!whole || !mine))) return UM_ERR_ARG;
  if (gsize && mine != whole) memcpy(mine, whole, (size_t)gsize * row_bytes);
  return UM_SUCCESS;
}

#endif

/* The ints land in the first half of the long long rows and are widened in place from the last one down. */
int um_mpi_scatter_map_block(const int *whole, long long gsize, int arity, long long *mine) {
  const int rc = um_mpi_scatter_block(whole, gsize, sizeof(int) * (size_t)(arity > 0 ? arity : 0), mine);
  long long begin = 0;
  int count = 0;
  if (rc != UM_SUCCESS) return rc;
  um_block_range(gsize, um_mpi_rank(), um_mpi_size(), &begin, &count);
  const int *narrow = (const int *)mine;
  for (size_t i = (size_t)count * (size_t)arity; i-- > 0;) mine[i] = narrow[i];
  return UM_SUCCESS;
}
