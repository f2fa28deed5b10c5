/* dist_holders.c: which elements of a set each rank holds, owned or in a halo, gathered to rank 0
 * (um/distributed.h: um_set_holders): what a picture of the partition shows. */
#include "dist_impl.h"

#include <limits.h>

/* The roles of this rank's rows of s in the global numbering, into mine[n] (zeroed by the caller). */
static void my_roles(const um_set *s, const long long *l2g, unsigned char *mine) {
  const int own = s->size, ex = s->exec_halo, nx = s->nonexec_halo;
  for (int i = 0; i < own + ex + nx; i++) {
    const long long g = l2g ? l2g[i] : i; /* < gsize <= INT_MAX: refused past it */
    mine[g] = i < own ? UM_HELD_OWNED : i < own + ex ? UM_HELD_EXEC : UM_HELD_NONEXEC;
  }
}

int um_set_holders(um_context *ctx, const um_set *s, unsigned char *role, size_t bytes) {
  if (!ctx || !s) return UM_ERR_ARG;
  if (s->gsize > INT_MAX) /* the same on every rank */
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "um_set_holders: set '%s' has %lld elements, more than a picture's whole-set gather numbers (at "
                    "most %d)",
                    s->name, s->gsize, INT_MAX);
  const int n = um_set_size(s), nranks = um_context_nranks(ctx), rank = um_context_rank(ctx);
  const int bad = rank == 0 && (!role || bytes != (size_t)nranks * (size_t)n);
#ifdef UM_HAVE_MPI
  const struct um_dist *D = ctx->dist;
  if (D && s->index < D->nsets) {
    unsigned char *mine = calloc(n > 0 ? (size_t)n : 1, 1), *all = NULL, spare = 0;
    if (rank == 0 && bad) all = malloc((size_t)nranks * (size_t)(n > 0 ? n : 1)); /* take part, then refuse */
    const int ok = mine && (rank != 0 || !bad || all) && umd_l2g_ready(ctx, s->index) == UM_SUCCESS;
    if (ok) my_roles(s, D->sets[s->index].l2g, mine);
    int m = MPI_Gather(mine ? mine : &spare, mine ? n : 0, MPI_BYTE, rank == 0 && !bad ? role : all, n, MPI_BYTE, 0,
                       D->comm);
    free(mine);
    free(all);
    if (!ok) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the holders of set '%s'", s->name);
    if (m != MPI_SUCCESS) return mpi_fail(ctx, m, "MPI_Gather (holders of a set)");
    return bad ? UM_ERROR(ctx, UM_ERR_ARG, "um_set_holders: role needs %d ranks x %d elements bytes", nranks, n)
               : UM_SUCCESS;
  }
#endif
  if (bad) return UM_ERROR(ctx, UM_ERR_ARG, "um_set_holders: role needs %d ranks x %d elements bytes", nranks, n);
  if (rank != 0) return UM_SUCCESS; /* a set the distribution does not hold: rank 0 owns it whole */
  memset(role, 0, bytes);
  my_roles(s, NULL, role);
  return UM_SUCCESS;
}
