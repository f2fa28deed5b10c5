/* dist_ranges_declared.c: "ranges" (dist_ranges.c) with the halos the app declared with its blocks
 * (um_decl_set_halo_block, um_decl_map_halo_block): each set's core flags from the pass over its maps
 * (umd_ranges_leaving, which rewrites the 32-bit rows as the found halos' steps do), the owners of the declared
 * numbers from the block starts, no exec record (order_ranges and install_map_ranges read the declared numbers and
 * rows), and the owners' export lists from two exchanges for every set at once: the exec numbers, then the
 * non-exec ones. The result is the one the found halos give (tests/check_declared_halo.sh). */
#include "dist_blocks.h"

#include <stdlib.h>

#ifdef UM_HAVE_MPI

/* Whether this rank declared every set's halo (um_decl_set_halo_block): 1, 0 (none, or the tests drop them:
 * UM_TEST_RANGES_UNDECLARED=1), or an error for some but not all. */
int umd_ranges_declared(umd_blocks *B, int *declared) {
  const um_context *ctx = B->ctx;
  const char *drop = getenv("UM_TEST_RANGES_UNDECLARED");
  int some = 0, first_not = -1;
  for (int s = 0; s < B->ns; s++)
    if (ctx->sets[s]->halo_declared)
      some = 1;
    else if (first_not < 0)
      first_not = s;
  *declared = some && first_not < 0 && !(drop && *drop == '1');
  if (!some || first_not < 0) return UM_SUCCESS;
  return UM_ERROR(B->ctx, UM_ERR_ARG,
                  "rank %d declares the halo of some sets (um_decl_set_halo_block) but not of set '%s': declare every "
                  "set's (an empty one too) or none",
                  B->rank, ctx->sets[first_not]->name);
}

/* The owners of the ascending global numbers g[n] of set S (the homes ascend with them: one walk of the block
 * starts) into own. */
static void owners_of(const umd_bset *S, const long long *g, int n, int *own) {
  for (int i = 0, h = 0; i < n; i++) {
    while (g[i] >= S->begin[h + 1]) h++;
    own[i] = h;
  }
}

/* Set s's core flags and exec halo owners where the app declared its halo: the core from rows_outside (which
 * rewrites the 32-bit rows as exec_ranges does), the owners of the declared exec and non-exec elements, no records
 * (order_ranges and install_map_ranges read the declared numbers and rows: S->ex stays NULL); here alone. */
static int exec_declared(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  umd_bset *S = &B->S[s];
  const um_set *set = ctx->sets[s];
  const int n = S->count, nx = set->halo_nexec;
  S->core = calloc((size_t)(n ? n : 1), 1);
  S->ex_owner = malloc((size_t)(nx ? nx : 1) * sizeof *S->ex_owner);
  S->nx_owner = malloc((size_t)(set->halo_nnonexec ? set->halo_nnonexec : 1) * sizeof *S->nx_owner);
  S->nex = nx;
  int rc = S->core && S->ex_owner && S->nx_owner ? umd_ranges_leaving(B, s, S->core) : UM_ERR_ALLOC;
  for (int e = 0; rc == UM_SUCCESS && e < n; e++) S->core[e] = !S->core[e];
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++)
    if (ctx->maps[k]->from->index == s && nx && !ctx->maps[k]->halo_rows)
      rc = UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s': its from-set '%s' declares an exec halo of %d elements on rank %d, but not the map's "
                    "rows for them (um_decl_map_halo_block)",
                    ctx->maps[k]->name, set->name, nx, B->rank);
  if (rc == UM_SUCCESS) owners_of(S, set->halo_exec, nx, S->ex_owner);
  if (rc == UM_SUCCESS) owners_of(S, set->halo_nonexec, set->halo_nnonexec, S->nx_owner);
  return rc == UM_ERR_ALLOC ? UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the halo of set '%s'", set->name)
                            : rc;
}

/* Every set's declared halo numbers (nonexec 0: the exec ones, 1: the non-exec ones) told to their owners in one
 * exchange: to each rank that owns some, for each set its count and then its numbers (ascending); each owner's
 * export lists from them (sent_ex or sent_nx and their counts per rank: grouped by rank ascending, each group
 * ascending, as exec_ranges sends and nonexec_ranges is asked). An exec element must be owned and not core where
 * it is asked. */
static int tell_owners(umd_blocks *B, int nonexec) {
  um_context *ctx = B->ctx;
  const int P = B->P, ns = B->ns;
  long long tot = 0, *sb = NULL, *rb = NULL;
  int *scnt = calloc((size_t)P, sizeof *scnt), *rcnt = calloc((size_t)P, sizeof *rcnt), nr = 0;
  int *cnt = calloc((size_t)ns * P + 1, sizeof *cnt), *at = malloc(((size_t)(P > ns ? P : ns) + 1) * sizeof *at);
  int **el = NULL;
  int rc = scnt && rcnt && cnt && at && (el = calloc((size_t)ns, sizeof *el)) ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) { /* cnt[s * P + q]: set s's numbers owned by q */
    const int m = nonexec ? ctx->sets[s]->halo_nnonexec : ctx->sets[s]->halo_nexec;
    const int *own = nonexec ? B->S[s].nx_owner : B->S[s].ex_owner;
    for (int i = 0; i < m; i++) cnt[(size_t)s * P + own[i]]++;
    tot += m;
  }
  for (int q = 0, o = 0; rc == UM_SUCCESS && q < P; q++) { /* to q: ns counts and the numbers, where there are some */
    for (int s = 0; s < ns; s++) scnt[q] += cnt[(size_t)s * P + q];
    scnt[q] += scnt[q] ? ns : 0;
    at[q] = o, o += scnt[q];
  }
  if (rc == UM_SUCCESS && !(sb = malloc((size_t)(tot + (long long)ns * P + 1) * sizeof *sb))) rc = UM_ERR_ALLOC;
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    const um_set *set = ctx->sets[s];
    const int m = nonexec ? set->halo_nnonexec : set->halo_nexec, *own = nonexec ? B->S[s].nx_owner : B->S[s].ex_owner;
    const long long *g = nonexec ? set->halo_nonexec : set->halo_exec;
    for (int q = 0; q < P; q++)
      if (scnt[q]) sb[at[q]++] = cnt[(size_t)s * P + q];
    for (int i = 0; i < m; i++) sb[at[own[i]]++] = g[i]; /* ascending: each q's after its count */
  }
  if (rc == UM_ERR_ALLOC) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory telling the owners of the halos");
  long long any = tot;
  rc = umd_agree_any(B, rc, "telling the owners of the halos", &any);
  if (rc == UM_SUCCESS && any) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *rb, sb, scnt, (void **)&rb, rcnt, &nr);
  for (int i = 0; rc == UM_SUCCESS && i < ns * P; i++) cnt[i] = 0; /* now: what q asks of set s here */
  for (int q = 0, j = 0; rc == UM_SUCCESS && q < P; q++)
    for (int s = 0, end = j + rcnt[q]; j < end && s < ns; s++) {
      const long long c = rb[j++];
      if (c < 0 || c > end - j) {
        rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "rank %d: a malformed list of halo numbers from rank %d", B->rank, q);
        break;
      }
      cnt[(size_t)s * P + q] = (int)c, j += (int)c;
    }
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    int k = 0;
    for (int q = 0; q < P; q++) k += cnt[(size_t)s * P + q];
    if (!(el[s] = malloc((size_t)(k ? k : 1) * sizeof **el)))
      rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory telling the owners of the halos");
  }
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) at[s] = 0; /* at: where set s's next export goes */
  for (int q = 0, j = 0; rc == UM_SUCCESS && q < P; q++)
    for (int s = 0, end = j + rcnt[q]; j < end && s < ns; s++) {
      const umd_bset *S = &B->S[s];
      const int c = (int)rb[j++];
      for (int i = 0; rc == UM_SUCCESS && i < c; i++, j++) {
        const long long o = rb[j] - S->begin[B->rank];
        if (o < 0 || o >= S->count || (!nonexec && S->core[o]))
          rc = UM_ERROR(ctx, UM_ERR_ARG,
                        "set '%s': rank %d declares element %lld in its %s halo, which rank %d %s (a declared halo "
                        "must be the one its partition has: check it with UM_TEST_RANGES_UNDECLARED=1)",
                        ctx->sets[s]->name, q, rb[j], nonexec ? "non-exec" : "exec", B->rank,
                        o < 0 || o >= S->count ? "does not own" : "owns as a core element");
        else
          el[s][at[s]++] = (int)o;
      }
    }
  for (int s = 0; el && s < ns; s++) { /* handed over, even on a failure (freed with the sets) */
    umd_bset *S = &B->S[s];
    int *c = malloc((size_t)P * sizeof *c);
    if (c)
      memcpy(c, cnt + (size_t)s * P, (size_t)P * sizeof *c);
    else if (rc == UM_SUCCESS)
      rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory telling the owners of the halos");
    if (nonexec)
      S->sent_nx = el[s], S->sent_nx_cnt = c;
    else
      S->sent_ex = el[s], S->sent_ex_cnt = c;
  }
  free(el), free(cnt), free(scnt), free(rcnt), free(at), free(sb), free(rb);
  return umd_agree(B, rc, "checking the declared halos");
}

/* Every set's halo as declared (exec_declared, tell_owners): the non-exec numbers as nonexec_ranges keeps them
 * (T->nx: 8 bytes each, by owner then number, with their owners), taken from the set. */
int umd_halos_from_declared(umd_blocks *B) {
  int rc = UM_SUCCESS;
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) rc = exec_declared(B, s);
  rc = umd_agree(B, rc, "building the halos");
  if (rc == UM_SUCCESS) rc = tell_owners(B, 0);
  if (rc == UM_SUCCESS) rc = tell_owners(B, 1);
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) {
    umd_bset *T = &B->S[s];
    um_set *set = B->ctx->sets[s];
    T->nx = (char *)set->halo_nonexec, T->nnx = set->halo_nnonexec;
    set->halo_nonexec = NULL, set->halo_nnonexec = 0;
  }
  return rc;
}

#endif /* UM_HAVE_MPI */
