/* dist_whole_part.c: the primary set's partition when every rank holds the whole mesh (um_distribute on a whole
 * declaration): the candidates of dist_choose.c's chain, each giving every rank the same parts of all n elements.
 *   metis     k-way of the primary set's graph, built whole on rank 0 only, the parts broadcast; METIS runs in a
 *             thread waited for at most mpi.partition_budget_s (a true bound: past it the run goes on without it);
 *   ptscotch  PT-Scotch's k-way, every rank handing it the rows of its block of the vertices, parts gathered;
 *   rcb, sfc  every rank computes the points of its block of the elements (dist_geom.c), the parts gathered;
 *   block     contiguous ranges of the numbering.
 * The quality (edge cut, parts not connected) is computed by every rank over its own part's rows of the graph
 * (umd_part_quality) and combined with one MPI_Allreduce: no rank builds the whole graph for it. */
#include "dist_impl.h"

#ifdef UM_HAVE_MPI
#include <pthread.h>

typedef struct {
  um_context *ctx;
  struct um_dist *D;
  const umd_mesh *m;
  int primary, n;
  int *cand, *part; /* [n]: the candidate, the chosen (owner[primary]) */
  const um_dat *coords;
  const um_map *via;
  char coords_why[256];
  int coords_said;
} whole_part;

/* The block of vertices rank q hands a parallel partitioner: [dsp[q], dsp[q] + cnt[q]). */
static void blocks_of(int n, int P, int *cnt, int *dsp) {
  for (int q = 0; q < P; q++) {
    cnt[q] = (int)((long long)n * (q + 1) / P - (long long)n * q / P);
    dsp[q] = (int)((long long)n * q / P);
  }
}

/* PT-Scotch k-way of the primary set's graph, in parallel: each rank hands PT-Scotch a block of the vertices
 * (every rank holds the whole mesh, so the graph too) and every rank gets all the parts back. Collective; 0, or
 * -1 with why. */
static int ptscotch_parts(const umd_mesh *m, int primary, int nranks, int rank, MPI_Comm comm, int *part, char *why,
                          size_t wl) {
#ifdef UM_HAVE_PTSCOTCH
  /* Debian's Scotch 7 starts a thread per core in every rank: 16 ranks on 16 cores then fight for them
   * (upstream OP2 through the same library partitioned the 2.88M Airfoil on 4 ranks in 21 s, in 0.5-1.2 s
   * with one thread each, on the lent 16-core host). One thread per rank unless the user says otherwise. */
  setenv("SCOTCH_PTHREAD_NUMBER", "1", 0);
  const int n = m->size[primary];
  int *xadj = NULL, *adj = NULL, *cnt = malloc((size_t)nranks * sizeof(int)), *dsp = malloc((size_t)nranks * sizeof(int));
  char err[256] = "";
  if (cnt && dsp) blocks_of(n, nranks, cnt, dsp);
  /* each rank builds the rows of its own block of vertices only */
  int ok = cnt && dsp &&
           umd_graph_rows(m, primary, NULL, 0, dsp[rank], dsp[rank] + cnt[rank], &xadj, &adj, err, sizeof err) == UM_SUCCESS;
  if (!ok) snprintf(why, wl, "%s", err[0] ? err : "out of memory");
  long edges = ok ? xadj[cnt[rank]] : 0, all_edges = 0;
  MPI_Allreduce(&edges, &all_edges, 1, MPI_LONG, MPI_SUM, comm);
  if (ok && n < nranks) ok = 0, snprintf(why, wl, "the primary set has fewer elements (%d) than ranks (%d)", n, nranks);
  if (ok && all_edges == 0) ok = 0, snprintf(why, wl, "the primary set's graph has no edges");
  int level = 0;
  MPI_Query_thread(&level);
  if (ok && level < MPI_THREAD_MULTIPLE)
    ok = 0, snprintf(why, wl,
                     "MPI was started without MPI_THREAD_MULTIPLE, which this PT-Scotch (built with threads) needs; "
                     "start it with um_mpi_start");
  int failed = !ok, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm); /* all go on, or none */
  if (!any) {
    const int nv = cnt[rank];
    int *loc = malloc(((size_t)nv + 1) * sizeof *loc);
    any = umd_scotch_part(comm, nv, xadj, adj, nranks, loc);
    if (!any) MPI_Allgatherv(loc, nv, MPI_INT, part, cnt, dsp, MPI_INT, comm);
    else snprintf(why, wl, "SCOTCH_dgraphPart failed on a rank (see the PT-Scotch message above)");
    free(loc);
  } else if (!failed) {
    snprintf(why, wl, "another rank could not build the graph");
  }
  free(xadj), free(adj), free(cnt), free(dsp);
  return any ? -1 : 0;
#else
  (void)m, (void)primary, (void)nranks, (void)rank, (void)comm, (void)part;
  snprintf(why, wl, "this build has no PT-Scotch");
  return -1;
#endif
}

/* METIS on rank 0, in a thread of its own that owns its graph and parts: the caller waits for it at most the
 * budget (0: as long as it takes). Past it the caller goes on without it and the thread, abandoned, finishes on
 * its own and frees what it owns (it holds a core until then): whichever of the two comes second frees the job. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, abandoned, result;
  int n, nparts, hang; /* hang: the test hook's metis:hang, an hour's sleep first */
  int *xadj, *adj, *part;
} metis_job;

static void job_free(metis_job *J) {
  pthread_mutex_destroy(&J->mu);
  pthread_cond_destroy(&J->cv);
  free(J->xadj), free(J->adj), free(J->part), free(J);
}

static void *metis_thread(void *arg) {
  metis_job *J = arg;
  struct timespec hour = {3600, 0};
  while (J->hang && nanosleep(&hour, &hour) != 0) {
  }
  idx_t nv = J->n, ncon = 1, np = J->nparts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;
  const int r = METIS_PartGraphKway(&nv, &ncon, (idx_t *)J->xadj, (idx_t *)J->adj, NULL, NULL, NULL, &np, NULL, NULL,
                                    options, &objval, (idx_t *)J->part);
  pthread_mutex_lock(&J->mu);
  J->done = 1, J->result = r;
  const int abandoned = J->abandoned;
  pthread_cond_signal(&J->cv);
  pthread_mutex_unlock(&J->mu);
  if (abandoned) job_free(J);
  return NULL;
}

/* Run the job (its graph built) and wait at most budget seconds: 0 with the parts in part[n], or -1 with why. */
static int metis_wait(metis_job *J, double budget, int *part, char *why, size_t wl) {
  pthread_t th;
  pthread_attr_t at;
  int started = pthread_attr_init(&at) == 0;
  if (started) {
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&th, &at, metis_thread, J) == 0;
    pthread_attr_destroy(&at);
  }
  if (!started) metis_thread(J); /* no thread: here, unbounded */
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  const double end = (double)until.tv_sec + until.tv_nsec * 1e-9 + budget;
  until.tv_sec = (time_t)end, until.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
  pthread_mutex_lock(&J->mu);
  int late = 0;
  while (!J->done && !late) /* a timed wait that fails otherwise than by the time (EINVAL) gives up too */
    late = budget > 0 ? pthread_cond_timedwait(&J->cv, &J->mu, &until) != 0 && !J->done
                      : (pthread_cond_wait(&J->cv, &J->mu), 0);
  if (late) J->abandoned = 1;
  pthread_mutex_unlock(&J->mu);
  if (late) {
    snprintf(why, wl, "still running after mpi.partition_budget_s = %g s: left to finish in the background, its "
                      "parts unused", budget);
    return -1; /* the thread frees the job */
  }
  const int ok = J->result == METIS_OK;
  if (ok) memcpy(part, J->part, (size_t)J->n * sizeof *part);
  else snprintf(why, wl, "METIS_PartGraphKway returned %d", J->result);
  job_free(J);
  return ok ? 0 : -1;
}

/* METIS k-way of the primary set's graph on rank 0 (the whole graph there only), the parts and the outcome
 * broadcast. */
static int metis_parts(whole_part *W, char *why, size_t wl) {
  const int n = W->n, P = W->D->nranks;
  int ok = 0;
  if (W->D->rank == 0) {
    metis_job *J = calloc(1, sizeof *J);
    char err[256] = "";
    const int graph = J && umd_graph(W->m, W->primary, &J->xadj, &J->adj, err, sizeof err) == UM_SUCCESS;
    if (J) J->part = malloc((size_t)(n ? n : 1) * sizeof *J->part), J->n = n, J->nparts = P;
    if (J) J->hang = umd_fault("metis") == 'h';
    if (!graph || !J->part) snprintf(why, wl, "%s", err[0] ? err : "out of memory");
    else if (n < P) snprintf(why, wl, "the primary set has fewer elements (%d) than there are ranks (%d)", n, P);
    else if (J->xadj[n] == 0) snprintf(why, wl, "the primary set's graph has no edges (%d elements, %d ranks)", n, P);
    if (graph && J->part && n >= P && J->xadj[n] > 0) {
      pthread_mutex_init(&J->mu, NULL);
      pthread_cond_init(&J->cv, NULL);
      ok = metis_wait(J, W->ctx->partition_budget_s, W->cand, why, wl) == 0;
    } else if (J) {
      free(J->xadj), free(J->adj), free(J->part), free(J);
    }
  }
  int m = MPI_Bcast(&ok, 1, MPI_INT, 0, W->D->comm);
  if (m == MPI_SUCCESS && ok) m = MPI_Bcast(W->cand, n, MPI_INT, 0, W->D->comm);
  if (m != MPI_SUCCESS) snprintf(why, wl, "MPI_Bcast of the parts failed");
  return ok && m == MPI_SUCCESS ? 0 : -1;
}

_Static_assert(sizeof(idx_t) == sizeof(int), "METIS's idx_t must be int (Debian's metis.h, IDXTYPEWIDTH 32)");

/* rcb or sfc: the points of this rank's block of the elements, the parts gathered on every rank. */
static int geom_parts(whole_part *W, int sfc, char *why, size_t wl) {
  if (!W->coords) {
    snprintf(why, wl, "%s", W->coords_why);
    return -1;
  }
  const int P = W->D->nranks, rank = W->D->rank;
  if (!W->coords_said) {
    char say[200];
    umd_coords_say(W->coords, W->via, say, sizeof say);
    umd_add_note(&W->D->info, "coordinates: %s", say);
    W->coords_said = 1;
  }
  int *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
  int rc = cnt && dsp ? UM_SUCCESS : UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) blocks_of(W->n, P, cnt, dsp);
  const int nv = rc == UM_SUCCESS ? cnt[rank] : 0;
  double *xyz = malloc(((size_t)nv + 1) * 3 * sizeof *xyz);
  long long *gid = malloc(((size_t)nv + 1) * sizeof *gid);
  int *loc = malloc(((size_t)nv + 1) * sizeof *loc);
  if (rc == UM_SUCCESS && (!xyz || !gid || !loc)) rc = UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) rc = umd_centroids(W->ctx, W->coords, W->via, dsp[rank], dsp[rank] + nv, xyz);
  for (int i = 0; rc == UM_SUCCESS && i < nv; i++) gid[i] = dsp[rank] + i;
  int all = 0, m = MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, W->D->comm);
  if (m == MPI_SUCCESS && all == UM_SUCCESS)
    all = umd_geom_part(W->D->comm, sfc, nv, W->coords->dim, xyz, gid, P, loc);
  if (m == MPI_SUCCESS && all == UM_SUCCESS)
    m = MPI_Allgatherv(loc, nv, MPI_INT, W->cand, cnt, dsp, MPI_INT, W->D->comm);
  if (m != MPI_SUCCESS || all != UM_SUCCESS)
    snprintf(why, wl, "%s", m != MPI_SUCCESS ? "an MPI call failed" : "out of memory (or an MPI call failed)");
  free(cnt), free(dsp), free(xyz), free(gid), free(loc);
  return m == MPI_SUCCESS && all == UM_SUCCESS ? 0 : -1;
}

static int whole_run(void *self, const char *name, char *why, size_t wl) {
  whole_part *W = self;
  if (!strcmp(name, "metis")) return metis_parts(W, why, wl);
  if (!strcmp(name, "ptscotch"))
    return ptscotch_parts(W->m, W->primary, W->D->nranks, W->D->rank, W->D->comm, W->cand, why, wl);
  if (!strcmp(name, "rcb") || !strcmp(name, "sfc")) return geom_parts(W, !strcmp(name, "sfc"), why, wl);
  umd_block_partition(W->n, W->D->nranks, W->cand);
  return 0;
}

/* Empty parts, and the edge cut and the parts not connected, each rank checking its own part from its own rows
 * of the graph; every rank ends with the same figures. */
static int whole_quality(void *self, int *empty, int *disc, long *cut) {
  whole_part *W = self;
  const int P = W->D->nranks;
  int *cnt = calloc((size_t)P, sizeof *cnt);
  if (!cnt) return UM_ERROR(W->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  for (int i = 0; i < W->n; i++) cnt[W->cand[i]]++;
  *empty = 0;
  for (int q = 0; q < P; q++) *empty += cnt[q] == 0;
  free(cnt);
  long ends = 0;
  int ncomp = 0;
  char err[256] = "";
  const int failed = umd_part_quality(W->m, W->primary, W->cand, W->D->rank, &ends, &ncomp, err, sizeof err) != 0;
  long mine[3] = {ends, ncomp > 1, failed}, sum[3] = {0, 0, 0};
  const int m = MPI_Allreduce(mine, sum, 3, MPI_LONG, MPI_SUM, W->D->comm);
  if (m != MPI_SUCCESS) return mpi_fail(W->ctx, m, "MPI_Allreduce (partition quality)");
  *cut = sum[2] ? -1 : sum[0] / 2;
  *disc = sum[2] ? 0 : (int)sum[1];
  return UM_SUCCESS;
}

static void whole_keep(void *self) {
  whole_part *W = self;
  memcpy(W->part, W->cand, (size_t)W->n * sizeof *W->part);
}

int umd_partition_whole(um_context *ctx, struct um_dist *D, const umd_mesh *m, int primary, const char *method,
                        int *part) {
  whole_part W = {ctx, D, m, primary, m->size[primary], NULL, part, NULL, NULL, "", 0};
  UM_CHECK(ctx, umd_coords_find(ctx, primary, &W.coords, &W.via, W.coords_why, sizeof W.coords_why));
  if (!strcmp(method, "auto")) method = umd_auto(1, W.n, W.coords != NULL, &D->info);
  if (!(W.cand = malloc((size_t)(W.n ? W.n : 1) * sizeof *W.cand)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory partitioning set '%s'", D->info.primary);
  static const umd_part_ops ops = {whole_run, whole_quality, whole_keep};
  const int rc = umd_choose(ctx, D->comm, &ops, &W, method, W.coords != NULL, &D->info);
  free(W.cand);
  if (rc != UM_SUCCESS) return rc;
  int *cnt = calloc((size_t)D->nranks, sizeof *cnt), mx = 0;
  if (!cnt) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int i = 0; i < W.n; i++) cnt[part[i]]++;
  for (int q = 0; q < D->nranks; q++) mx = cnt[q] > mx ? cnt[q] : mx;
  free(cnt);
  D->info.imbalance = W.n ? (double)mx * D->nranks / W.n : 1.0;
  return UM_SUCCESS;
}
#ifdef UM_HAVE_PTSCOTCH
_Static_assert(sizeof(SCOTCH_Num) == sizeof(int), "PT-Scotch's SCOTCH_Num must be int (Debian's scotch headers)");
#endif
#endif /* UM_HAVE_MPI */
