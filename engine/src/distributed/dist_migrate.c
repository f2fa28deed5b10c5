/* dist_migrate.c: partitioning and migration (OP2's op_mpi_core.c model, see dist.c): the primary
 * set's parts (dist_whole_part.c, dist_choose.c), the other sets' through maps, each rank keeping only its own
 * rows with exec and non-exec halos, the import/export lists, the gather order and the transport;
 * um_distribute and the queries on a distributed context. */
#include "dist_impl.h"

#ifdef UM_HAVE_MPI

/* ---- partitioning and migration ------------------------------------------------------------ */

/* The primary set by default: the largest set some map points into (ties: first declared); global sizes, the same
 * on every rank when the sets are declared by blocks. */
static int default_primary(const um_context *ctx) {
  int best = -1;
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_set *t = ctx->maps[k]->to;
    if (best < 0 || t->gsize > ctx->sets[best]->gsize || (t->gsize == ctx->sets[best]->gsize && t->index < best))
      best = t->index;
  }
  return best >= 0 ? best : 0;
}

#ifdef UM_HAVE_PTSCOTCH
/* PT-Scotch's k-way partition of a distributed graph (this rank's nv vertices: rows xadj[nv + 1], edges adj in the
 * global numbering, base 0) into loc[nv]. Collective: 0 on every rank, or 1 on every rank when it failed on any
 * (loc NULL counts as a failure: out of memory). */
int umd_scotch_part(MPI_Comm comm, int nv, const int *xadj, const int *adj, int nparts, int *loc) {
  SCOTCH_Num *vert = malloc(((size_t)nv + 1) * sizeof *vert);
  SCOTCH_Dgraph g;
  SCOTCH_Strat st;
  int r = !vert || !loc;
  if (!r) {
    for (int i = 0; i <= nv; i++) vert[i] = xadj[i];
    const SCOTCH_Num ne = vert[nv];
    r = SCOTCH_dgraphInit(&g, comm);
    if (!r) { /* SCOTCH_Num is int in Debian's build (checked below) */
      r = SCOTCH_dgraphBuild(&g, 0, nv, nv, vert, vert + 1, NULL, NULL, ne, ne, (SCOTCH_Num *)adj, NULL, NULL);
      if (!r) {
        SCOTCH_stratInit(&st);
        r = SCOTCH_dgraphPart(&g, nparts, &st, (SCOTCH_Num *)loc);
        SCOTCH_stratExit(&st);
      }
      SCOTCH_dgraphExit(&g);
    }
  }
  free(vert);
  int failed = r != 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}
#endif

static void dset_free(umd_set *s) {
  free(s->l2g), free(s->l2g_halo), free(s->nb), free(s->imp_off), free(s->imp), free(s->exp_off), free(s->exp);
  free(s->all_owned), free(s->all_exec), free(s->all_nonexec), free(s->gather_g);
}


void um__dist_free(um_context *ctx) {
  struct um_dist *D = ctx->dist;
  if (!D) return;
  for (int s = 0; s < D->nsets; s++) dset_free(&D->sets[s]);
  free(D->sets);
  for (int k = 0; k < 2; k++) buffer_free(ctx, k, D->buf[k].s), buffer_free(ctx, k, D->buf[k].r);
  um__transport_close(ctx, D);
  free(D->reqs), free(D->pend), free(D->msgs);
  free(D);
  ctx->dist = NULL;
}

/* Keep rank's rows of a dat (from the global rows it holds now). */
static int migrate_dat(um_context *ctx, um_dat *d, const umd_layout *L) {
  UM_CHECK(ctx, um__dat_to_host(ctx, d));
  const int total = L->owned + L->exec + L->nonexec;
  const int align = ctx->opts.row_align > 1 ? ctx->opts.row_align : 1;
  const int rows = (total + align - 1) / align * align;
  const size_t row = (size_t)d->dim * d->esize;
  char *nd = calloc((size_t)(rows ? rows : 1), row);
  if (!nd) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing dat '%s'", d->name);
  um_dat tmp = *d;
  tmp.data = nd;
  tmp.rows = rows;
  for (int i = 0; i < total; i++)
    for (int c = 0; c < d->dim; c++) memcpy(elem_ptr(&tmp, i, c), elem_ptr(d, L->l2g[i], c), d->esize);
  free(d->data);
  d->data = nd;
  d->rows = rows;
  um__dat_host_moved(d);
  d->halo_stale = 0; /* every halo row came from the global values */
  return UM_SUCCESS;
}

/* Import lists (halo rows grouped by owner), then export lists by asking each owner. */
static int build_lists(um_context *ctx, struct um_dist *D, umd_set *S, const umd_layout *L, const int *owner,
                       const int *g2l) {
  const int P = D->nranks, first = L->owned, total = L->owned + L->exec + L->nonexec;
  int *icnt = calloc((size_t)P, sizeof *icnt), *ecnt = calloc((size_t)P, sizeof *ecnt);
  int *sdis = calloc((size_t)P + 1, sizeof *sdis), *rdis = calloc((size_t)P + 1, sizeof *rdis);
  if (!icnt || !ecnt || !sdis || !rdis) {
    free(icnt), free(ecnt), free(sdis), free(rdis);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building halo lists");
  }
  for (int i = first; i < total; i++) icnt[owner[L->l2g[i]]]++;
  int rc = UM_SUCCESS;
  int m = MPI_Alltoall(icnt, 1, MPI_INT, ecnt, 1, MPI_INT, D->comm);
  if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoall (halo sizes)");
  for (int q = 0; q < P; q++) {
    sdis[q + 1] = sdis[q] + icnt[q];
    rdis[q + 1] = rdis[q] + ecnt[q];
  }
  int *req = malloc((size_t)(sdis[P] ? sdis[P] : 1) * sizeof *req), *want = malloc((size_t)(rdis[P] ? rdis[P] : 1) * sizeof *want);
  S->nnb = 0;
  for (int q = 0; q < P; q++) S->nnb += icnt[q] || ecnt[q];
  S->nb = malloc((size_t)(S->nnb ? S->nnb : 1) * sizeof(int));
  S->imp_off = calloc((size_t)S->nnb + 1, sizeof(int));
  S->exp_off = calloc((size_t)S->nnb + 1, sizeof(int));
  S->imp = malloc((size_t)(sdis[P] ? sdis[P] : 1) * sizeof(int));
  S->exp = malloc((size_t)(rdis[P] ? rdis[P] : 1) * sizeof(int));
  if (rc == UM_SUCCESS && (!req || !want || !S->nb || !S->imp_off || !S->exp_off || !S->imp || !S->exp))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building halo lists");
  if (rc == UM_SUCCESS) {
    int *pos = calloc((size_t)P, sizeof *pos);
    if (!pos) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building halo lists");
    for (int i = first; pos && i < total; i++) { /* in local order: ascending within each owner's range */
      const int q = owner[L->l2g[i]];
      S->imp[sdis[q] + pos[q]] = i;
      req[sdis[q] + pos[q]] = L->l2g[i];
      pos[q]++;
    }
    free(pos);
  }
  if (rc == UM_SUCCESS) {
    m = MPI_Alltoallv(req, icnt, sdis, MPI_INT, want, ecnt, rdis, MPI_INT, D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoallv (halo lists)");
  }
  if (rc == UM_SUCCESS) {
    int j = 0;
    for (int q = 0; q < P; q++) {
      if (!icnt[q] && !ecnt[q]) continue;
      S->nb[j] = q;
      S->imp_off[j + 1] = S->imp_off[j] + icnt[q];
      S->exp_off[j + 1] = S->exp_off[j] + ecnt[q];
      j++;
    }
    /* imports are already grouped by ascending owner, as nb is; exports: the owner's local rows */
    for (int i = 0; i < rdis[P]; i++) {
      const int l = g2l[want[i]];
      if (l < 0 || l >= L->owned) {
        rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "halo lists: rank %d was asked for element %d, which it does not own",
                      D->rank, want[i]);
        break;
      }
      S->exp[i] = l;
    }
  }
  free(icnt), free(ecnt), free(sdis), free(rdis), free(req), free(want);
  return rc;
}

/* Every rank's counts, and the global index of every owned row in rank order (for gathers). */
static int build_gather(um_context *ctx, struct um_dist *D, umd_set *S, const um_set *s, const umd_layout *L) {
  const int P = D->nranks;
  S->all_owned = malloc((size_t)P * sizeof(int));
  S->all_exec = malloc((size_t)P * sizeof(int));
  S->all_nonexec = malloc((size_t)P * sizeof(int));
  S->gather_g = malloc((size_t)(s->gsize ? s->gsize : 1) * sizeof(int));
  int *dis = malloc(((size_t)P + 1) * sizeof *dis);
  int rc = S->all_owned && S->all_exec && S->all_nonexec && S->gather_g && dis
               ? UM_SUCCESS
               : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing set '%s'", s->name);
  int mine[3] = {L->owned, L->exec, L->nonexec}, *all = malloc((size_t)P * 3 * sizeof(int));
  if (rc == UM_SUCCESS && !all) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) {
    int m = MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgather (partition sizes)");
  }
  if (rc == UM_SUCCESS) {
    dis[0] = 0;
    for (int q = 0; q < P; q++) {
      S->all_owned[q] = all[3 * q];
      S->all_exec[q] = all[3 * q + 1];
      S->all_nonexec[q] = all[3 * q + 2];
      dis[q + 1] = dis[q] + S->all_owned[q];
    }
    if (dis[P] != s->gsize)
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "set '%s': the ranks own %d elements together, not %lld", s->name, dis[P],
                    s->gsize);
  }
  if (rc == UM_SUCCESS) {
    int m = MPI_Allgatherv(L->l2g, L->owned, MPI_INT, S->gather_g, S->all_owned, dis, MPI_INT, D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgatherv (owned elements)");
  }
  free(all);
  free(dis);
  return rc;
}

/* The checks before distributing, the partitioner's name known (um__dist_partitioner_named): a context not
 * distributed yet, no loop run yet, the partitioner built here. */
static int distribute_checks(um_context *ctx, const char *method) {
  (void)method; /* used where PT-Scotch is not built */
  if (ctx->dist) return UM_ERROR(ctx, UM_ERR_ARG, "um_distribute: the context is distributed already");
  for (int i = 0; i < ctx->nloops; i++)
    if (ctx->loops[i].calls > 0)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "um_distribute: loop '%s' has run already; distribute the mesh after declaring it and before "
                      "the first loop",
                      ctx->loops[i].name);
#ifndef UM_HAVE_PTSCOTCH
  if (!strcmp(method, "ptscotch"))
    return UM_ERROR(ctx, UM_ERR_CONFIG,
                    "mpi.partitioner = ptscotch: this build has no PT-Scotch; install libptscotch-dev (or run "
                    "scripts/install-deps.sh) and configure again, or use metis");
#endif
  return UM_SUCCESS;
}

/* The primary set: the one named, else the default. */
static int primary_set(um_context *ctx, const char *primary_name, int *primary) {
  *primary = default_primary(ctx);
  if (!primary_name || !*primary_name) return UM_SUCCESS;
  const um_set *ps = um_find_set(ctx, primary_name);
  if (!ps) {
    char list[512] = "";
    for (int i = 0; i < ctx->nsets; i++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", ctx->sets[i]->name);
    }
    return UM_ERROR(ctx, UM_ERR_CONFIG, "mpi.partition_set: no set named '%s'; this app has: %s", primary_name, list);
  }
  *primary = ps->index;
  return UM_SUCCESS;
}

/* "ranges": every set split into the block partitioner's ranges of its own numbering (element i on rank
 * floor(i * P / n)), no set following another. */
static int range_owners(um_context *ctx, struct um_dist *D, const umd_mesh *mesh, int primary, int **owner) {
  const int P = D->nranks;
  for (int s = 0; s < mesh->nsets; s++) {
    const int n = mesh->size[s];
    if (!(owner[s] = malloc((size_t)(n ? n : 1) * sizeof(int))))
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory partitioning set '%s'", ctx->sets[s]->name);
    for (int i = 0; i < n; i++) owner[s][i] = (int)((long long)i * P / n);
  }
  const int n = mesh->size[primary];
  um_partition_info *info = &D->info;
  snprintf(info->partitioner, sizeof info->partitioner, "ranges");
  info->edge_cut = -1;
  info->imbalance = n ? (double)((n + P - 1) / P) * P / n : 1.0;
  umd_add_note(info, "ranges: every set split into ranges of its own numbering");
  return UM_SUCCESS;
}

/* Every set's owners and this rank's layout of it: the primary set's parts, the same on every rank
 * (dist_whole_part.c), the other sets following through maps; or every set by ranges. */
static int partition_mesh(um_context *ctx, struct um_dist *D, const umd_mesh *mesh, int primary, const char *method,
                          int **owner, umd_layout *lay) {
  const int P = D->nranks, rank = D->rank, n = mesh->size[primary];
  char err[512] = "";
  if (!strcmp(method, "ranges")) {
    UM_CHECK(ctx, range_owners(ctx, D, mesh, primary, owner));
    if (umd_build_layout(mesh, owner, rank, lay, err, sizeof err)) return UM_ERROR(ctx, UM_ERR_ALLOC, "%s", err);
    return UM_SUCCESS;
  }
  owner[primary] = malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!owner[primary]) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory partitioning set '%s'", D->info.primary);
  UM_CHECK(ctx, umd_partition_whole(ctx, D, mesh, primary, method, owner[primary]));
  if (umd_derive_owners(mesh, primary, P, owner, err, sizeof err)) return UM_ERROR(ctx, UM_ERR_ALLOC, "%s", err);
  if (umd_build_layout(mesh, owner, rank, lay, err, sizeof err)) return UM_ERROR(ctx, UM_ERR_ALLOC, "%s", err);
  return UM_SUCCESS;
}

/* A map's rows kept by this rank (those of its from-set's layout F), their targets in local indices (tg: the
 * to-set's global -> local). */
static int migrate_map(um_context *ctx, um_map *mp, const umd_layout *F, const int *tg, int rank) {
  const int total = F->owned + F->exec + F->nonexec, ar = mp->arity;
  int *nd = malloc(((size_t)total * ar + 1) * sizeof(int));
  if (!nd) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing map '%s'", mp->name);
  const int run = F->owned + F->exec;
  for (int i = 0; i < run; i++)
    for (int a = 0; a < ar; a++) {
      const int t = tg[mp->data[(size_t)F->l2g[i] * ar + a]];
      if (t < 0) {
        free(nd);
        return UM_ERROR(ctx, UM_ERR_INTERNAL, "map '%s': local element %d reaches an element rank %d does not hold",
                        mp->name, i, rank);
      }
      nd[(size_t)i * ar + a] = t;
    }
  memset(nd + (size_t)run * ar, 0, (size_t)(total - run) * ar * sizeof *nd); /* non-exec rows: never run, zeros */
  free(mp->data);
  mp->data = nd;
  return UM_SUCCESS;
}

/* This rank's part of the mesh from the layouts: the halo lists and the gather order (collective: every rank
 * runs them), then the dats, the maps (to local indices) and the sets' ranges. */
static int migrate_mesh(um_context *ctx, struct um_dist *D, int **owner, umd_layout *lay) {
  const int ns = ctx->nsets;
  int rc = UM_SUCCESS;
  /* g2l per set: global -> local (-1: not here) */
  int **g2l = calloc((size_t)ns, sizeof *g2l);
  if (!g2l) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    const int n = ctx->sets[s]->size, total = lay[s].owned + lay[s].exec + lay[s].nonexec;
    if (!(g2l[s] = malloc((size_t)(n ? n : 1) * sizeof(int)))) {
      rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
      break;
    }
    for (int g = 0; g < n; g++) g2l[s][g] = -1;
    for (int i = 0; i < total; i++) g2l[s][lay[s].l2g[i]] = i;
  }
  um_setup_begin(ctx, UM_SETUP_HALOS);
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    rc = build_lists(ctx, D, &D->sets[s], &lay[s], owner[s], g2l[s]);
    if (rc == UM_SUCCESS) rc = build_gather(ctx, D, &D->sets[s], ctx->sets[s], &lay[s]);
  }
  um_setup_end(ctx, UM_SETUP_HALOS);
  for (int i = 0; rc == UM_SUCCESS && i < ctx->ndats; i++) rc = migrate_dat(ctx, ctx->dats[i], &lay[ctx->dats[i]->set->index]);
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) {
    um_map *mp = ctx->maps[k];
    rc = migrate_map(ctx, mp, &lay[mp->from->index], g2l[mp->to->index], D->rank);
  }
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    um_set *S = ctx->sets[s];
    S->size = lay[s].owned;
    S->core_size = lay[s].core;
    S->core_begin = lay[s].core_begin;
    S->exec_halo = lay[s].exec;
    S->nonexec_halo = lay[s].nonexec;
    D->sets[s].total = lay[s].owned + lay[s].exec + lay[s].nonexec;
    D->sets[s].l2g = malloc(((size_t)D->sets[s].total + 1) * sizeof *D->sets[s].l2g); /* 64-bit, as by blocks */
    if (!D->sets[s].l2g) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing set '%s'", S->name);
    for (int i = 0; rc == UM_SUCCESS && i < D->sets[s].total; i++) D->sets[s].l2g[i] = lay[s].l2g[i];
    free(S->part_offset); /* the parts of a partition reordering are global: no longer blocks */
    S->part_offset = NULL;
    S->nparts = 0;
  }
  for (int s = 0; s < ns; s++) free(g2l[s]);
  free(g2l);
  return rc;
}

int um_distribute(um_context *ctx, const char *primary_name, const char *partitioner) {
  UM_CTX_OK(ctx);
  const char *method = partitioner && *partitioner ? partitioner : "auto";
  UM_CHECK(ctx, um__dist_partitioner_named(ctx, method)); /* on any number of ranks: one rank's name fails on several */
  if (!mpi_up()) return UM_SUCCESS;
  int P = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (P == 1) return UM_SUCCESS;
  UM_CHECK(ctx, distribute_checks(ctx, method));
  if (ctx->nsets == 0) return UM_SUCCESS;
  int blocks = 0; /* declared by blocks (dist_blocks.c): every rank says, so all take the same path */
  UM_CHECK(ctx, umd_blocks_mode(ctx, MPI_COMM_WORLD, &blocks));
  const double t0 = MPI_Wtime();
  um_setup_begin(ctx, UM_SETUP_PARTITION); /* ended with the migration, which begins inside it */
  int primary = 0;
  UM_CHECK(ctx, primary_set(ctx, primary_name, &primary));
  const int ns = ctx->nsets, nm = ctx->nmaps;
  int *sizes = malloc((size_t)ns * sizeof *sizes);
  umd_map *maps = malloc((size_t)(nm ? nm : 1) * sizeof *maps);
  int **owner = calloc((size_t)ns, sizeof *owner);
  umd_layout *lay = calloc((size_t)ns, sizeof *lay);
  struct um_dist *D = calloc(1, sizeof *D);
  if (D) D->sets = calloc((size_t)ns, sizeof *D->sets);
  if (!sizes || !maps || !owner || !lay || !D || !D->sets) {
    free(sizes), free(maps), free(owner), free(lay);
    if (D) free(D->sets);
    free(D);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing the mesh");
  }
  D->rank = rank;
  D->nranks = P;
  D->comm = MPI_COMM_WORLD;
  D->nsets = ns;
  for (int s = 0; s < ns; s++) sizes[s] = ctx->sets[s]->size;
  for (int k = 0; k < nm; k++)
    maps[k] = (umd_map){ctx->maps[k]->from->index, ctx->maps[k]->to->index, ctx->maps[k]->arity, ctx->maps[k]->data,
                        ctx->maps[k]->read_only};
  umd_mesh mesh = {ns, sizes, nm, maps};
  um_partition_info *info = &D->info;
  info->nranks = P;
  snprintf(info->primary, sizeof info->primary, "%s", ctx->sets[primary]->name);
  int rc = blocks ? umd_distribute_blocks(ctx, D, primary, method)
                 : partition_mesh(ctx, D, &mesh, primary, method, owner, lay);
  const double t1 = MPI_Wtime();
  um_setup_begin(ctx, UM_SETUP_MIGRATE);
  if (!blocks) info->partition_seconds = t1 - t0;
  if (rc == UM_SUCCESS && !blocks) rc = migrate_mesh(ctx, D, owner, lay);
  if (!blocks) info->migrate_seconds = MPI_Wtime() - t1;
  um_setup_end(ctx, UM_SETUP_PARTITION);
  for (int s = 0; s < ns; s++) free(owner[s]);
  free(owner);
  umd_layout_free(lay, ns);
  free(lay);
  free(sizes);
  free(maps);
  if (rc != UM_SUCCESS) {
    ctx->dist = D;
    um__dist_free(ctx);
    return rc;
  }
  um_plan_cache_clear(ctx->plans);
  for (int i = 0; i < ctx->nloops; i++) ctx->loops[i].last_plan = NULL;
  ctx->dist = D;
  ctx->dist_ops = &um__dist_ops; /* what core calls on it (core/pass.h) */
  um_setup_begin(ctx, UM_SETUP_HALOS); /* the halo transport */
  const double t2 = MPI_Wtime();
  if ((rc = um__transport_setup(ctx, D)) != UM_SUCCESS) {
    um__dist_free(ctx);
    return rc;
  }
  info->transport_seconds = MPI_Wtime() - t2;
  um_setup_end(ctx, UM_SETUP_HALOS);
  info->seconds = MPI_Wtime() - t0;
  umd_heap_release(); /* the distribution's transients, freed: out of the run's resident memory */
  return UM_SUCCESS;
}

int um_context_rank(const um_context *ctx) { return ctx && ctx->dist ? ctx->dist->rank : 0; }
int um_context_nranks(const um_context *ctx) { return ctx && ctx->dist ? ctx->dist->nranks : 1; }

int um_partition_info_get(const um_context *ctx, um_partition_info *out) {
  if (!ctx || !out) return UM_ERR_ARG;
  if (!ctx->dist) return UM_ERR_UNSUPPORTED;
  *out = ctx->dist->info;
  return UM_SUCCESS;
}

int um_set_partition(const um_set *s, int rank, int *owned, int *exec, int *nonexec) {
  if (!s) return UM_ERR_ARG;
  const struct um_dist *D = s->ctx->dist;
  if (!D) {
    if (rank != 0) return UM_ERR_ARG;
    if (owned) *owned = s->size;
    if (exec) *exec = s->exec_halo;
    if (nonexec) *nonexec = s->nonexec_halo;
    return UM_SUCCESS;
  }
  if (rank < 0 || rank >= D->nranks || s->index >= D->nsets) return UM_ERR_ARG;
  const umd_set *S = &D->sets[s->index];
  if (owned) *owned = S->all_owned[rank];
  if (exec) *exec = S->all_exec[rank];
  if (nonexec) *nonexec = S->all_nonexec[rank];
  return UM_SUCCESS;
}

int um__dist_root(const um_context *ctx) { return !ctx->dist || ctx->dist->rank == 0; }

int umd_l2g_ready(um_context *ctx, int s) {
  umd_set *U = &ctx->dist->sets[s];
  if (U->l2g || !U->l2g_halo) return UM_SUCCESS;
  const int own = ctx->sets[s]->size; /* the owned rows, first */
  if (!(U->l2g = malloc(((size_t)U->total + 1) * sizeof *U->l2g)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the global numbers of set '%s'", ctx->sets[s]->name);
  for (int e = 0; e < own; e++) U->l2g[e] = U->l2g_base + e;
  memcpy(U->l2g + own, U->l2g_halo, (size_t)(U->total - own) * sizeof *U->l2g);
  free(U->l2g_halo);
  U->l2g_halo = NULL;
  return UM_SUCCESS;
}

int um__dist_l2g(um_context *ctx, const um_set *s, const long long **l2g) {
  struct um_dist *D = ctx->dist;
  *l2g = NULL;
  if (!D || s->index >= D->nsets) return UM_SUCCESS;
  UM_CHECK(ctx, umd_l2g_ready(ctx, s->index));
  *l2g = D->sets[s->index].l2g;
  return UM_SUCCESS;
}

int um__dist_sum_i64(um_context *ctx, long long *v, int n) {
  if (!ctx->dist || n <= 0) return UM_SUCCESS;
  int m = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG_LONG, MPI_SUM, ctx->dist->comm);
  return m == MPI_SUCCESS ? UM_SUCCESS : mpi_fail(ctx, m, "MPI_Allreduce (exact sum)");
}

int um__dist_max_f64(um_context *ctx, double *v, int n) {
  if (!ctx->dist || n <= 0) return UM_SUCCESS;
  int m = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, ctx->dist->comm);
  return m == MPI_SUCCESS ? UM_SUCCESS : mpi_fail(ctx, m, "MPI_Allreduce (tuning times)");
}

int um__dist_bcast(um_context *ctx, void *buf, int n) {
  if (!ctx->dist || n <= 0) return UM_SUCCESS;
  int m = MPI_Bcast(buf, n, MPI_BYTE, 0, ctx->dist->comm);
  return m == MPI_SUCCESS ? UM_SUCCESS : mpi_fail(ctx, m, "MPI_Bcast (tuning choice)");
}

int um__dist_set_has_exec(const um_context *ctx, const um_set *s) {
  const struct um_dist *D = ctx->dist;
  if (!D || s->index >= D->nsets) return 0;
  for (int q = 0; q < D->nranks; q++)
    if (D->sets[s->index].all_exec[q]) return 1;
  return 0;
}

int um__dist_set_has_halo(const um_context *ctx, const um_set *s) {
  const struct um_dist *D = ctx->dist;
  if (!D || s->index >= D->nsets) return 0;
  for (int q = 0; q < D->nranks; q++)
    if (D->sets[s->index].all_exec[q] || D->sets[s->index].all_nonexec[q]) return 1;
  return 0;
}
#endif /* UM_HAVE_MPI */
