/* dist_choose.c: which partitioner partitions the primary set, for a whole declaration (dist_migrate.c) and a
 * declaration by blocks (dist_blocks_graph.c) alike: "auto" resolved, then a chain tried in order until one
 * gives a partition that is usable and good, and the words that say which was used and why.
 *
 * The chain: the partitioner asked for, then rcb (where the primary set has coordinates), then block; sfc's is
 * sfc, rcb, block; block's is block. A candidate is discarded when it failed (on any rank), when it ran past
 * the time budget (mpi.partition_budget_s, which does not apply to block: every rank's time from the same start, the largest taken, so every
 * rank decides alike; METIS is waited for at most the budget (dist_whole_part.c: its thread is left behind past
 * it); PT-Scotch, rcb and sfc are checked when they return, an overrun's parts discarded) or when it left a part empty; block is kept whatever it gives (its parts are
 * empty only when there are fewer elements than ranks). A candidate that leaves parts not connected gives way
 * to the next, and the one with the fewest such parts is kept (the earlier on a tie). Every decision comes
 * from figures combined over the ranks, so every rank takes the same; the run always ends with a partition.
 *
 * A test hook, read only here and set only by tests: UM_TEST_PARTITION_FAULT=<partitioner>:fail|overrun|hang[,...]
 * makes that partitioner fail, or count as having taken the budget + 1 s on rank 0 (an overrun that is certain,
 * without waiting for it; the chain's next candidates are timed as usual), block excepted, the last resort, which
 * no hook touches and no budget limits; metis:hang makes METIS's thread sleep an hour before it starts
 * (dist_whole_part.c): a real overrun, which the budget must cut short. */
#include "dist_impl.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

/* Whole meshes up to this many elements of the primary set are partitioned by METIS on rank 0 under "auto". */
#define AUTO_METIS_MAX (1L << 20)

char umd_fault(const char *name) {
  const char *v = getenv("UM_TEST_PARTITION_FAULT");
  const size_t l = strlen(name);
  for (const char *p = v; p && *p;) {
    if (!strncmp(p, name, l) && p[l] == ':') return strchr("foh", p[l + 1]) ? p[l + 1] : 0;
    p = strchr(p, ',');
    if (p) p++;
  }
  return 0;
}

int umd_graph_fits(const char *name, const char *set, long long n, char *why, size_t wl) {
  if (n <= INT_MAX) return 1;
  const int metis = !strcmp(name, "metis");
#ifdef UM_HAVE_PTSCOTCH
  const int scotch32 = sizeof(SCOTCH_Num) == 4;
#else
  const int scotch32 = 1;
#endif
  const int dep32 = metis ? IDXTYPEWIDTH == 32 : scotch32;
  snprintf(why, wl, "set '%s' has %lld elements: %s as built here takes at most %d (%s); use mpi.partitioner rcb",
           set, n, metis ? "METIS" : "PT-Scotch", INT_MAX,
           dep32 ? (metis ? "its idx_t is 32-bit" : "its SCOTCH_Num is 32-bit") : "um numbers its graph in int");
  return 0;
}

const char *umd_auto(int whole, long long n, int have_coords, um_partition_info *info) {
  const int scotch = um_mpi_partitioner_built("ptscotch");
  /* a mesh declared by blocks with coordinates: rcb, whose parts are as good as PT-Scotch's on the apps' meshes
   * (LULESH 150^3, Airfoil 2.88M: an edge cut within 2% either way, docs/apps.md) at a fraction of its time and of
   * its memory (PT-Scotch's own was several times the mesh's at few ranks: no rank then held less than one alone) */
  const char *pick = whole && n <= AUTO_METIS_MAX ? "metis" : !whole && have_coords ? "rcb" : scotch ? "ptscotch"
                     : have_coords ? "rcb" : whole ? "metis" : "block";
  if (whole && n <= AUTO_METIS_MAX)
    umd_add_note(info, "auto: metis (a whole mesh of %lld elements, up to %ld)", n, AUTO_METIS_MAX);
  else if (!whole && have_coords)
    umd_add_note(info, "auto: rcb (a mesh declared by blocks, with coordinates; mpi.partitioner: ptscotch partitions "
                       "its graph instead)");
  else
    umd_add_note(info, "auto: %s (%s%s)", pick, whole ? "a whole mesh over 2^20 elements" : "a mesh declared by blocks",
                 scotch ? "" : have_coords ? ", no PT-Scotch in this build" : ", no PT-Scotch, no coordinates");
  return pick;
}

/* The chain for `method`: chain[0..n). */
static int make_chain(const char *method, int have_coords, const char **chain) {
  int n = 0;
  chain[n++] = method;
  if (!strcmp(method, "block")) return n;
  if (strcmp(method, "rcb") && have_coords) chain[n++] = "rcb";
  chain[n++] = "block";
  return n;
}

/* One candidate: run it, timed, with the test hook; failed (1) or overran (2) on any rank, or 0; why said. */
static int run_one(um_context *ctx, MPI_Comm comm, const umd_part_ops *ops, void *self, const char *name, char *why,
                   size_t wl) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  why[0] = '\0';
  const double budget = ctx->partition_budget_s, t0 = MPI_Wtime();
  int failed = ops->run(self, name, why, wl) != 0;
  const char f = strcmp(name, "block") ? umd_fault(name) : 0; /* block is the last resort: never made to fail */
  if (f == 'f' && !failed) failed = 1, snprintf(why, wl, "made to fail by UM_TEST_PARTITION_FAULT (a test hook)");
  double t = MPI_Wtime() - t0;
  if (f == 'o' && budget > 0 && rank == 0) t += budget + 1.0; /* the test hook: counted as over, without waiting */
  int who = failed ? rank : INT_MAX, first = INT_MAX;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first != INT_MAX) { /* the first failing rank's words on every rank */
    MPI_Bcast(why, (int)wl, MPI_CHAR, first, comm);
    why[wl - 1] = '\0';
    return 1;
  }
  if (budget > 0 && t > budget && strcmp(name, "block")) { /* block, the last resort, has no budget */
    snprintf(why, wl, "took %.3g s, over mpi.partition_budget_s = %g s: its parts discarded", t, budget);
    return 2;
  }
  return 0;
}

int umd_choose(um_context *ctx, MPI_Comm comm, const umd_part_ops *ops, void *self, const char *method,
               int have_coords, um_partition_info *info) {
  const char *chain[3];
  const int nc = make_chain(method, have_coords, chain);
  int best = -1, best_disc = 0;
  long best_cut = -1;
  char why[256];
  for (int i = 0; i < nc; i++) {
    const char *name = chain[i];
    const int last = i == nc - 1;
    const int bad = run_one(ctx, comm, ops, self, name, why, sizeof why);
    if (bad) {
      umd_add_note(info, "%s %s%s", name, bad == 1 ? "failed: " : "", why);
      continue;
    }
    int empty = 0, disc = 0;
    long cut = -1;
    UM_CHECK(ctx, ops->quality(self, &empty, &disc, &cut));
    if (empty && !last) {
      umd_add_note(info, "%s left %d of %d parts empty", name, empty, info->nranks);
      continue;
    }
    if (disc && !last && (best < 0 || disc < best_disc)) { /* kept for now; the next may do better */
      umd_add_note(info, "%s left %d of %d parts not connected", name, disc, info->nranks);
      ops->keep(self);
      best = i, best_disc = disc, best_cut = cut;
      continue;
    }
    if (disc && best >= 0 && disc >= best_disc) { /* the earlier one stays */
      if (last)
        umd_add_note(info, "%s left %d of %d not connected too: kept %s's partition (the first with the fewest)", name,
                     disc, info->nranks, chain[best]);
      else umd_add_note(info, "%s left %d of %d parts not connected", name, disc, info->nranks);
      if (!last) continue;
      break;
    }
    ops->keep(self);
    best = i, best_disc = disc, best_cut = cut;
    break;
  }
  if (best < 0) return UM_ERROR(ctx, UM_ERR_INTERNAL, "um_distribute: no partitioner of the chain gave a partition");
  snprintf(info->partitioner, sizeof info->partitioner, "%s", chain[best]);
  info->edge_cut = best_cut;
  if (best > 0) umd_add_note(info, "partitioned by %s instead", chain[best]);
  if (best_disc)
    umd_add_note(info, "%d of %d parts are not connected (more halo, same results)", best_disc, info->nranks);
  return UM_SUCCESS;
}
#endif /* UM_HAVE_MPI */
