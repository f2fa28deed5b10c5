/* dist_carry.c: um_in_turn_carry (um/distributed.h), a state carried from rank to rank in rank order: each rank
 * continues what the ranks before it left (a sum over a global order, each rank its block), and every rank ends
 * with the last rank's state. A sum so made has the bits of the same sum on one process, whatever the ranks. */
#include "dist_impl.h"

#include <limits.h>

#ifdef UM_HAVE_MPI
int um_in_turn_carry(um_context *ctx, int (*fn)(um_context *ctx, void *arg, void *state), void *arg, void *state,
                     size_t bytes) {
  UM_CTX_OK(ctx);
  if (!fn || (!state && bytes) || bytes > (size_t)INT_MAX)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_in_turn_carry: a NULL function or state, or a state over 2 GB");
  const struct um_dist *D = ctx->dist;
  if (!D) return fn(ctx, arg, state);
  int first = D->nranks, rc = UM_SUCCESS; /* the token: the lowest rank that failed so far, or nranks */
  if (D->rank > 0) {
    MPI_TRY(ctx, MPI_Recv(&first, 1, MPI_INT, D->rank - 1, 0, D->comm, MPI_STATUS_IGNORE), "waiting for the turn");
    MPI_TRY(ctx, MPI_Recv(state, (int)bytes, MPI_BYTE, D->rank - 1, 1, D->comm, MPI_STATUS_IGNORE),
            "receiving the state carried from the previous rank");
  }
  if (first == D->nranks) {
    rc = fn(ctx, arg, state);
    if (rc) first = D->rank;
  }
  if (D->rank + 1 < D->nranks) {
    MPI_TRY(ctx, MPI_Send(&first, 1, MPI_INT, D->rank + 1, 0, D->comm), "passing the turn");
    MPI_TRY(ctx, MPI_Send(state, (int)bytes, MPI_BYTE, D->rank + 1, 1, D->comm),
            "passing the state to the next rank");
  }
  MPI_TRY(ctx, MPI_Bcast(state, (int)bytes, MPI_BYTE, D->nranks - 1, D->comm), "sharing the last rank's state");
  return um__dist_agree(ctx, rc);
}
#else /* no MPI: one process */
int um_in_turn_carry(um_context *ctx, int (*fn)(um_context *ctx, void *arg, void *state), void *arg, void *state,
                     size_t bytes) {
  UM_CTX_OK(ctx);
  if (!fn || (!state && bytes)) return UM_ERROR(ctx, UM_ERR_ARG, "um_in_turn_carry: a NULL function or state");
  return fn(ctx, arg, state);
}
#endif
