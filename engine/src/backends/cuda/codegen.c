/* The CUDA backend's code generator, the source it writes from the decisions (codegen_decide.c; see
 * codegen.h). */
#include "codegen.h"
#include "../../util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tname(um_type t) {
  return t == UM_DOUBLE ? "double" : t == UM_FLOAT ? "float" : "int";
}

/* What increments start from: the additive identity, -0.0 for floating point (x + -0.0 is x for every x, so a
 * target the loop adds nothing or only -0.0 to keeps its sign, as on the host backends), 0 for int. */
static const char *inc_identity(um_type t) { return t == UM_DOUBLE ? "-0.0" : t == UM_FLOAT ? "-0.0f" : "0"; }

/* ---- emission --------------------------------------------------------------- */

typedef struct {
  const umc_loop *L;
  const umc_decisions *D;
  um_strbuf *b;
  int staged_k[UM_MAX_ARGS]; /* ind -> running number of its shared array (s<k>) */
} gen;

#define P(...) um_strbuf_printf(g->b, __VA_ARGS__)

/* Index of element / target value c of arg a's dat: "<ptr>[expr]" */
static void value_ref(gen *g, int a, const char *comp, const char *target) {
  const umc_arg *x = &g->L->args[a];
  if (x->soa) P("p.d%d[(size_t)(%s) * %lld + (size_t)(%s)]", x->dat, comp, x->stride, target);
  else if (x->dim == 1) P("p.d%d[(size_t)(%s)]", x->dat, target);
  else P("p.d%d[(size_t)(%s) * %d + (%s)]", x->dat, target, x->dim, comp);
}

/* The target index expression of an arg: "e", "t<map>_<idx>" or "l<slot>" for shared. */
static void target_name(gen *g, int a, char *out, size_t n) {
  const umc_arg *x = &g->L->args[a];
  if (!x->indirect) snprintf(out, n, "e");
  else snprintf(out, n, "t%d_%d", x->map, x->idx);
}

static const char *op_of(um_access acc) { return acc == UM_INC ? "0" : acc == UM_MIN ? "1" : "2"; }

static void emit_apply_inc(gen *g, int a, const char *ind) {
  const umc_arg *x = &g->L->args[a];
  const umc_decisions *D = g->D;
  char t[32];
  target_name(g, a, t, sizeof t);
  const int guard = D->apply[a] == UMC_APPLY_STORE && x->minus; /* um_arg_minus: not stored where the loop drops it */
  if (guard) P("%sif (p.d%d != nullptr) {\n", ind, x->dat);
  P("%s#pragma unroll\n%sfor (int c = 0; c < %d; c++) ", ind, ind, x->dim);
  if (D->exec == UMC_EXEC_HIER && x->indirect && D->ind_staged[x->ind]) {
    if (D->apply[a] == UMC_APPLY_BLOCK_ATOMIC)
      P("atomicAdd(&s%d[l%d * %d + c], r%d[c]);\n", g->staged_k[x->ind], D->loc_slot[a], x->dim, a);
    else
      P("s%d[l%d * %d + c] += r%d[c];\n", g->staged_k[x->ind], D->loc_slot[a], x->dim, a);
    return;
  }
  if (D->apply[a] == UMC_APPLY_ATOMIC || D->apply[a] == UMC_APPLY_BLOCK_ATOMIC) { /* zeros skipped: docs/cuda.md */
    P("if (r%d[c] != 0) atomicAdd(&", a);
    value_ref(g, a, "c", t);
    P(", r%d[c]);\n", a);
  } else {
    value_ref(g, a, "c", t);
    P(D->apply[a] == UMC_APPLY_STORE ? " = r%d[c];\n" : " += r%d[c];\n", a);
  }
  if (guard) P("%s}\n", ind);
}

/* cuda.warp_combine: 1 where arg a is in a pair of any level (umc_loop.pair_levels): its atomics wait for the
 * shuffles */
static int pair_role(const umc_loop *L, int a) {
  for (int k = 0; k < L->npair_levels; k++)
    for (int i = 0; i < L->pair_levels[k].npairs; i++)
      if (L->pair_levels[k].recv[i] == a || L->pair_levels[k].donor[i] == a) return 1;
  return 0;
}

/* After the elements' calls, every thread of the warp here (flat: no thread has left): level by level, pair by
 * pair, each receiver adds the donor of the thread `offset` lanes on where that donor's row is the receiver's
 * row, and that thread drops it; then the paired increments are applied. */
static void emit_warp_combine(gen *g) {
  const umc_loop *L = g->L;
  if (!L->npair_levels) return;
  P("  /* cuda.warp_combine: increments to this thread's rows from threads further on, shuffled here: one atomic "
    "for several */\n"
    "  const int um_lane = tid & 31;\n");
  for (int k = 0; k < L->npair_levels; k++) {
    const umc_pair_level *lv = &L->pair_levels[k];
    const int o = lv->offset;
    P("  {\n    const int um_next = __shfl_down_sync(0xffffffffu, (int)active, %d) && um_lane + %d < 32;\n", o, o);
    for (int i = 0; i < lv->npairs; i++) {
      const int a = lv->recv[i], b = lv->donor[i];
      const umc_arg *x = &L->args[a];
      char ta[32], tb[32];
      target_name(g, a, ta, sizeof ta);
      target_name(g, b, tb, sizeof tb);
      P("    {\n"
        "      const int nt = __shfl_down_sync(0xffffffffu, %s, %d);\n"
        "      const int take = active && um_next && nt == %s;\n"
        "      const int given = __shfl_up_sync(0xffffffffu, take, %d) && um_lane >= %d;\n"
        "#pragma unroll\n"
        "      for (int c = 0; c < %d; c++) {\n"
        "        const %s v = __shfl_down_sync(0xffffffffu, r%d[c], %d);\n"
        "        if (take) r%d[c] += v;\n"
        "        if (given) r%d[c] = 0; /* added by the thread %d lanes before: no atomic */\n"
        "      }\n"
        "    }\n",
        tb, o, ta, o, o, x->dim, tname(x->type), b, o, a, b, o);
    }
    P("  }\n");
  }
  P("  if (active) {\n");
  for (int a = 0; a < L->nargs; a++)
    if (pair_role(L, a)) emit_apply_inc(g, a, "    ");
  P("  }\n");
}

/* A direct arg's copy (shared-memory slice or registers) is its own or that of the first direct arg of its dat
 * (umc_decisions.copy_of): the copy's owner, and whether any arg on it reads (loaded) or writes it (stored). */
static int copy_owner(const umc_decisions *D, int a) { return D->copy_of[a] >= 0 ? D->copy_of[a] : a; }
static int copy_loaded(gen *g, int a) {
  for (int b = 0; b < g->L->nargs; b++)
    if ((b == a || g->D->copy_of[b] == a) && g->L->args[b].acc != UM_WRITE) return 1;
  return 0;
}
static int copy_stored(gen *g, int a) {
  for (int b = 0; b < g->L->nargs; b++)
    if ((b == a || g->D->copy_of[b] == a) && g->L->args[b].acc != UM_READ) return 1;
  return 0;
}

/* Gather SoA args, build pointers, call the kernel, scatter; apply increments
 * unless they are applied by thread colour outside (coloured_apply_here == 0). */
static void emit_body(gen *g, const char *ind, int coloured_apply_here) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    char t[32];
    target_name(g, a, t, sizeof t);
    switch (D->pass[a]) {
    case UMC_PASS_GLOBAL:
      P("%s%s *a%d = p.d%d + (size_t)%s * %d;\n", ind, tname(x->type), a, x->dat, t, x->dim);
      break;
    case UMC_PASS_SHARED:
      P("%s%s *a%d = s%d + l%d * %d;\n", ind, tname(x->type), a, g->staged_k[x->ind], D->loc_slot[a], x->dim);
      break;
    case UMC_PASS_SHARED_DIRECT: /* the slice of the dat's first direct arg (umc_decisions.copy_of) */
      P("%s%s *a%d = sd%d + (e - um_d0) * %d;\n", ind, tname(x->type), a, copy_owner(D, a), x->dim);
      break;
    case UMC_PASS_VEC: /* {idx, base, n, es, cs, atomic}: AoS es = dim, cs = 1; SoA es = 1, cs = rows */
      P("%sconst um_vec v%d = {p.m%d", ind, a, x->map); /* a whole dat's one row serves every element */
      if (!x->whole) P(" + (size_t)e * %d", x->arity);
      P(", (char *)p.d%d, %d, %d, %lld, %d};\n", x->dat, x->arity, x->soa ? 1 : x->dim, x->soa ? x->stride : 1LL,
        D->apply[a] == UMC_APPLY_ATOMIC ? 1 : 0);
      break;
    case UMC_PASS_REG:
      if (D->copy_of[a] >= 0) break; /* the registers of the dat's first direct arg */
      P("%s%s r%d[%d];\n", ind, tname(x->type), a, x->dim);
      if (copy_loaded(g, a)) {
        P("%s#pragma unroll\n%sfor (int c = 0; c < %d; c++) r%d[c] = ", ind, ind, x->dim, a);
        value_ref(g, a, "c", t);
        P(";\n");
      }
      break;
    default: break; /* registers declared at function scope */
    }
  }
  P("%s::%s(", ind, L->kernel_name); /* the global function, whatever local (e, i, p, ...) has its name */
  for (int a = 0; a < L->nargs; a++) {
    const int ptr =
        D->pass[a] == UMC_PASS_GLOBAL || D->pass[a] == UMC_PASS_SHARED || D->pass[a] == UMC_PASS_SHARED_DIRECT;
    if (D->pass[a] == UMC_PASS_VEC) P("%s&v%d", a ? ", " : "", a);
    else
      P("%s%c%d", a ? ", " : "", ptr ? 'a' : 'r', ptr ? a : copy_owner(D, a));
  }
  P(");\n");
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    char t[32];
    target_name(g, a, t, sizeof t);
    if (D->pass[a] == UMC_PASS_REG && D->copy_of[a] < 0 && copy_stored(g, a)) {
      P("%s#pragma unroll\n%sfor (int c = 0; c < %d; c++) ", ind, ind, x->dim);
      value_ref(g, a, "c", t);
      P(" = r%d[c];\n", a);
    } else if (D->pass[a] == UMC_PASS_REG_INC && (D->apply[a] != UMC_APPLY_COLOURED || coloured_apply_here) &&
               !pair_role(L, a)) {
      emit_apply_inc(g, a, ind);
    }
  }
}

static void emit_reduction_helpers(gen *g) {
  P("/* global reductions: 0 sum, 1 min, 2 max (min/max as the host backends, um__combine in core/exec.c:\n"
    " * keep the old value unless the new one compares less / greater or is NaN, so NaN propagates) */\n"
    "template <typename T> __device__ __forceinline__ bool um_isnan(T x) { return x != x; }\n"
    "template <> __device__ __forceinline__ bool um_isnan<int>(int) { return false; }\n"
    "template <int OP, typename T> __device__ __forceinline__ T um_op(T a, T b) {\n"
    "  return OP == 0 ? a + b : OP == 1 ? ((b < a || um_isnan(b)) ? b : a) : ((b > a || um_isnan(b)) ? b : a);\n"
    "}\n"
    "/* reduce v over the CUDA block (any size: partial warps shuffle only among their own\n"
    " * lanes); the result is valid in thread 0 */\n"
    "template <int OP, typename T> __device__ __forceinline__ T um_block_reduce(T v, T *red) {\n"
    "  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;\n"
    "  int wn = blockDim.x - (threadIdx.x & ~31);\n"
    "  if (wn > 32) wn = 32;\n"
    "  unsigned mask = wn == 32 ? 0xffffffffu : (1u << wn) - 1u;\n"
    "#pragma unroll\n"
    "  for (int o = 16; o > 0; o >>= 1) {\n"
    "    const T x = __shfl_down_sync(mask, v, o);\n"
    "    if (lane + o < wn) v = um_op<OP>(v, x);\n"
    "  }\n"
    "  if (lane == 0) red[w] = v;\n"
    "  __syncthreads();\n"
    "  if (w == 0) {\n"
    "    v = lane < nw ? red[lane] : (OP == 0 ? T(0) : red[0]);\n"
    "#pragma unroll\n"
    "    for (int o = 16; o > 0; o >>= 1) {\n"
    "      const T x = __shfl_down_sync(mask, v, o);\n"
    "      if (lane + o < wn) v = um_op<OP>(v, x);\n"
    "    }\n"
    "  }\n"
    "  __syncthreads();\n"
    "  return v;\n"
    "}\n"
    "/* MIN / MAX across blocks: an atomic on a key ordered as the values (a negative value's bits reversed:\n"
    " * -0.0 below 0.0) where NaN is the extreme that wins, so it propagates as in um_op; exact in any order */\n"
    "__device__ __forceinline__ long long um_key(double x, bool mx) {\n"
    "  const long long b = __double_as_longlong(x);\n"
    "  return x != x ? (mx ? 0x7fffffffffffffffLL : -0x7fffffffffffffffLL - 1) : b >= 0 ? b : b ^ 0x7fffffffffffffffLL;\n"
    "}\n"
    "__device__ __forceinline__ int um_key(float x, bool mx) {\n"
    "  const int b = __float_as_int(x);\n"
    "  return x != x ? (mx ? 0x7fffffff : -0x7fffffff - 1) : b >= 0 ? b : b ^ 0x7fffffff;\n"
    "}\n"
    "__device__ __forceinline__ int um_key(int x, bool) { return x; }\n"
    "__device__ __forceinline__ double um_unkey(long long k, double) {\n"
    "  return __longlong_as_double(k >= 0 ? k : k ^ 0x7fffffffffffffffLL);\n"
    "}\n"
    "__device__ __forceinline__ float um_unkey(int k, float) { return __int_as_float(k >= 0 ? k : k ^ 0x7fffffff); }\n"
    "__device__ __forceinline__ int um_unkey(int k, int) { return k; }\n"
    "template <int OP, typename T> __device__ __forceinline__ void um_atomic_red(T *row, T v) {\n"
    "  typedef decltype(um_key(v, false)) K;\n"
    "  if (OP == 1) atomicMin((K *)row, um_key(v, false));\n"
    "  else atomicMax((K *)row, um_key(v, true));\n"
    "}\n\n");
}

/* shared scratch for block reductions, one array per type used (sums_only: um_reduce, where min / max read their
 * atomics' key instead, so that no array is declared and left unused) */
static void emit_red_scratch(gen *g, const char *ind, int sums_only) {
  int used[3] = {0, 0, 0};
  for (int a = 0; a < g->L->nargs; a++)
    if (g->D->pass[a] == UMC_PASS_GBL_REDUCE && !(sums_only && umc_red_atomic(g->L->args[a].acc)))
      used[g->L->args[a].type] = 1;
  for (int t = 0; t < 3; t++)
    if (used[t]) P("%s__shared__ %s um_red_%s[32];\n", ind, tname((um_type)t), tname((um_type)t));
}

/* Direct AoS data through shared memory: declare, and load the block's slice
 * (elements [um_d0, um_d0 + um_dn)); returns 1 if anything was loaded. */
static int emit_direct_loads(gen *g) {
  const umc_loop *L = g->L;
  int any = 0, loaded = 0;
  for (int a = 0; a < L->nargs; a++) {
    if (g->D->pass[a] != UMC_PASS_SHARED_DIRECT || g->D->copy_of[a] >= 0) continue; /* one slice per dat */
    const umc_arg *x = &L->args[a];
    if (!any) {
      if (L->exec == UMC_EXEC_FLAT)
        P("  const int um_d0 = p.start + blockIdx.x * %d, um_dn = min(%d, p.n - (int)blockIdx.x * %d);\n",
          L->block_threads, L->block_threads, L->block_threads);
      else
        P("  const int um_d0 = e0, um_dn = ne;\n");
    }
    any = 1;
    P("  __shared__ %s sd%d[%d]; /* direct AoS: the block's slice */\n", tname(x->type), a,
      L->block_threads * x->dim);
    if (!copy_loaded(g, a)) continue;
    P("  for (int l = tid; l < um_dn * %d; l += %d) sd%d[l] = p.d%d[(size_t)um_d0 * %d + l];\n", x->dim,
      L->block_threads, a, x->dat, x->dim);
    loaded = 1;
  }
  return loaded;
}

static int has_direct_stores(gen *g) {
  for (int a = 0; a < g->L->nargs; a++)
    if (g->D->pass[a] == UMC_PASS_SHARED_DIRECT && g->D->copy_of[a] < 0 && copy_stored(g, a)) return 1;
  return 0;
}

static void emit_direct_stores(gen *g) {
  const umc_loop *L = g->L;
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (g->D->pass[a] != UMC_PASS_SHARED_DIRECT || g->D->copy_of[a] >= 0 || !copy_stored(g, a)) continue;
    P("  for (int l = tid; l < um_dn * %d; l += %d) p.d%d[(size_t)um_d0 * %d + l] = sd%d[l];\n", x->dim,
      L->block_threads, x->dat, x->dim, a);
  }
}

/* Staged ind i of a hierarchical block: its target list, shared array s<k> (from um_sp) and contents
 * (the dat's values, or the additive identity for increments). */
static void emit_staged(gen *g, int i) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  const umc_ind *s = &L->inds[i];
  const int k = g->staged_k[i], tl = s->tlist, BS = L->block_threads;
  P("  /* staged: dat slot %d through map slot %d, %s */\n", s->dat, s->map,
    D->ind_load[i] ? "loaded" : "zero-filled");
  P("  const int nt%d = p.toff%d[b + 1] - p.toff%d[b];\n  const int *tg%d = p.tgt%d + p.toff%d[b];\n", k, tl, tl,
    k, tl, tl);
  P("  %s *s%d = (%s *)um_sp;\n  um_sp += ((size_t)nt%d * %d + 15) & ~(size_t)15;\n", tname(s->type), k,
    tname(s->type), k, s->dim * umc_tsize(s->type));
  if (!D->ind_load[i]) {
    P("  for (int l = tid; l < nt%d * %d; l += %d) s%d[l] = %s;\n", k, s->dim, BS, k, inc_identity(s->type));
  } else if (s->soa) {
    P("#pragma unroll\n  for (int c = 0; c < %d; c++)\n"
      "    for (int j = tid; j < nt%d; j += %d) s%d[j * %d + c] = p.d%d[(size_t)c * %lld + (size_t)tg%d[j]];\n",
      s->dim, k, BS, k, s->dim, s->dat, s->stride, k);
  } else if (s->dim == 1) {
    P("  for (int j = tid; j < nt%d; j += %d) s%d[j] = p.d%d[(size_t)tg%d[j]];\n", k, BS, k, s->dat, k);
  } else {
    P("  for (int l = tid; l < nt%d * %d; l += %d) {\n    const int j = l / %d;\n"
      "    s%d[l] = p.d%d[(size_t)tg%d[j] * %d + (l - j * %d)];\n  }\n",
      k, s->dim, BS, s->dim, k, s->dat, k, s->dim, s->dim);
  }
}

/* A name inside the generated comment: bytes outside printable ASCII as '?', and a space between '*' and '/'
 * (either order), so that no name ends the comment or opens another */
static void comment_name(gen *g, const char *s) {
  for (const char *c = s ? s : ""; *c; c++) {
    const unsigned char ch = (unsigned char)*c;
    um_strbuf_printf(g->b, "%c", ch < 0x20 || ch > 0x7e ? '?' : ch);
    if ((ch == '*' && c[1] == '/') || (ch == '/' && c[1] == '*')) um_strbuf_printf(g->b, " ");
  }
}

/* The header comment: what was decided, loop and args */
static void emit_header_comment(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  P("/* um CUDA backend: loop '");
  comment_name(g, L->loop_name);
  P("', kernel ");
  comment_name(g, L->kernel_name);
  P(" (");
  comment_name(g, L->header_name);
  P(")\n * %s, %d threads per block", umc_exec_name(L->exec), L->block_threads);
  if (L->exec == UMC_EXEC_HIER)
    P(", staging %s%s", L->stage_all ? "all indirect data" : "incremented data",
      L->block_atomics ? ", shared-memory atomics, no colouring" : "");
  if (L->one_to_one) P(", one-to-one maps: no two elements write one row");
  P("\n");
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    P(" * arg %d: %s %s[%d] %s%s", a, um_access_name(x->acc), tname(x->type), x->dim,
      x->gbl ? "global" : x->indirect ? "indirect" : "direct", x->soa ? " SoA" : "");
    if (x->vec) P(" (map slot %d, every index of %d)", x->map, x->arity);
    else if (x->indirect) P(" (map slot %d, index %d of %d)", x->map, x->idx, x->arity);
    P(": %s", umc_pass_name(D->pass[a]));
    if (D->copy_of[a] >= 0) P(" (arg %d's copy: one copy of the dat)", D->copy_of[a]);
    if (D->apply[a] == UMC_APPLY_ATOMIC) P(", atomic adds");
    if (D->apply[a] == UMC_APPLY_COLOURED) P(", applied by thread colour");
    if (D->apply[a] == UMC_APPLY_BLOCK_ATOMIC) P(", atomic adds to the block's staged copy");
    if (D->apply[a] == UMC_APPLY_STORE)
      P(", stored from -0.0 (a split loop's contributions)%s", x->minus ? ", unless dropped (um_arg_minus)" : "");
    P("\n");
  }
  P(" * generated code: do not edit */\n#include \"%s\"\n\n", L->header_name);
}

/* The parameter block (struct um_params), a member per field the decisions list */
static void emit_params(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  P("struct um_params {\n");
  for (int f = 0; f < D->nfields; f++) {
    const umc_field *F = &D->fields[f];
    const int s = F->slot;
    switch (F->kind) {
    case UMC_F_DAT: {
      um_type t = UM_DOUBLE;
      for (int a = 0; a < L->nargs; a++)
        if (!L->args[a].gbl && L->args[a].dat == s) t = L->args[a].type;
      P("  %s *d%d;\n", tname(t), s);
      break;
    }
    case UMC_F_MAP: P("  const int *m%d;\n", s); break;
    case UMC_F_PERM:
      P("  const %s *perm;\n", L->exec == UMC_EXEC_HIER && D->perm_short ? "short" : "int");
      break;
    case UMC_F_BLOCKS: P("  const int *blocks;\n"); break;
    case UMC_F_BOFF: P("  const int *boff;\n"); break;
    case UMC_F_COFF: P("  const int *coff;\n"); break;
    case UMC_F_COLS: P("  const int *cols;\n"); break;
    case UMC_F_TOFF: P("  const int *toff%d;\n", s); break;
    case UMC_F_TGT: P("  const int *tgt%d;\n", s); break;
    case UMC_F_LOC: P("  const %s *loc%d;\n", D->loc_short ? "short" : "int", s); break;
    case UMC_F_PART: P("  %s *part%d;\n", tname(L->args[s].type), s); break;
    case UMC_F_RES: P("  %s *res%d;\n", tname(L->args[s].type), s); break;
    case UMC_F_INT_N: P("  int n;\n"); break;
    case UMC_F_INT_START: P("  int start;\n"); break;
    case UMC_F_INT_PART: P("  int part;\n"); break;
    case UMC_F_INT_PAD: P("  int pad;\n"); break;
    case UMC_F_GBL: P("  alignas(8) %s g%d[%d];\n", tname(L->args[s].type), s, L->args[s].dim); break;
    }
  }
  P("};\n\n");
}

/* A hierarchical kernel's start: its plan block, shared memory (fused: phase 1's contributions first), the
 * staged data it reads and the element of each thread. nstaged: the staged inds in all. */
static void emit_hier_prologue(gen *g, int nstaged) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  const int BS = L->block_threads;
  P("  extern __shared__ __align__(16) unsigned char um_sh[];\n"
    "  const int b = p.blocks[p.start + blockIdx.x]; /* plan block */\n"
    "  const int e0 = p.boff[b], ne = p.boff[b + 1] - e0;\n"
    "  const bool active = tid < ne;\n");
  if (nstaged || D->fused) P("  unsigned char *um_sp = um_sh;\n");
  if (D->fused) { /* variant B: the contributions first, then each phase's staged data from um_p2 */
    for (int a = 0; a < L->nargs; a++) {
      if (D->apply[a] != UMC_APPLY_COLOURED) continue;
      const umc_arg *x = &L->args[a];
      P("  %s *sc%d = (%s *)um_sp; /* phase 1: arg %d's contributions, by thread */\n"
        "  um_sp += %d;\n", tname(x->type), a, tname(x->type), a, (BS * x->dim * umc_tsize(x->type) + 15) & ~15);
    }
    P("  unsigned char *const um_p2 = um_sp; /* phase 2 stages its targets where phase 1 staged its data */\n");
  }
  int nstaged1 = 0; /* staged now: fused, only the data phase 1 reads */
  for (int i = 0; i < L->ninds; i++)
    if (D->ind_staged[i] && (!D->fused || D->ind_load[i])) emit_staged(g, i), nstaged1++;
  if (emit_direct_loads(g) || nstaged1) P("  __syncthreads();\n");
  if (D->colour_loop)
    P("  const int *um_co = p.cols + p.coff[b]; /* [ncolours, first thread of each colour..., ne] */\n"
      "  const int e = e0 + (active ? (int)p.perm[e0 + tid] : 0); /* threads sorted by thread colour */\n");
  else
    P("  const int e = e0 + tid;\n");
}

void umc_kernel_symbol(const char *loop_name, int reduce, char *buf, size_t n) {
  const char *base = reduce ? "um_reduce" : "um_loop";
  if (!loop_name || !*loop_name) {
    snprintf(buf, n, "%s", base);
    return;
  }
  size_t k = (size_t)snprintf(buf, n, "%s_", base);
  for (const char *c = loop_name; *c && k + 1 < n && c - loop_name < UMC_SYMBOL_NAME; c++, k++) {
    const int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
    buf[k] = ok ? *c : '_';
  }
  if (k < n) buf[k] = '\0';
}

/* The loop kernel's signature and start, to each thread's element e (and whether it is active) */
static void emit_kernel_prologue(gen *g, int nstaged) {
  const umc_loop *L = g->L;
  const int BS = L->block_threads;
  char sym[UMC_SYMBOL_MAX];
  umc_kernel_symbol(L->loop_name, 0, sym, sizeof sym);
  if (L->min_blocks > 0)
    P("extern \"C\" __global__ void __launch_bounds__(%d, %d) %s(const um_params p) {\n", BS, L->min_blocks, sym);
  else
    P("extern \"C\" __global__ void __launch_bounds__(%d) %s(const um_params p) {\n", BS, sym);
  P("  const int tid = threadIdx.x;\n");
  if (g->D->has_reduction) emit_red_scratch(g, "  ", 0);
  if (L->exec == UMC_EXEC_FLAT) {
    P("  const int i = blockIdx.x * %d + tid;\n  const bool active = i < p.n;\n  const int e = p.start + i;\n", BS);
    if (emit_direct_loads(g)) P("  __syncthreads();\n");
  } else if (L->exec == UMC_EXEC_GLOBAL) {
    P("  const int i = blockIdx.x * %d + tid;\n  const bool active = i < p.n;\n"
      "  const int e = active ? p.perm[p.start + i] : 0; /* elements of one colour */\n",
      BS);
  } else {
    emit_hier_prologue(g, nstaged);
  }
}

/* Map rows of arity 2 or 4 the loop reads at two or more indices: one vector load each (mr<map>);
 * vec_row[map] gets the arity of those loaded so, else 0 */
static void emit_map_rows(gen *g, int *vec_row) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  for (int m = 0; m < L->nmaps; m++) {
    int seen[4] = {0, 0, 0, 0}, n = 0, arity = 0;
    for (int a = 0; a < L->nargs; a++) {
      const umc_arg *x = &L->args[a];
      if (x->gbl || !x->indirect || x->vec || x->map != m || D->loc_slot[a] >= 0) continue;
      arity = x->arity;
      if (x->idx >= 0 && x->idx < 4 && !seen[x->idx]) seen[x->idx] = 1, n++;
    }
    if ((arity == 2 || arity == 4) && n >= 2) {
      vec_row[m] = arity;
      P("  const int%d mr%d = active ? *(const int%d *)(p.m%d + (size_t)e * %d) : make_int%d(%s);\n", arity, m,
        arity, m, arity, arity, arity == 2 ? "0, 0" : "0, 0, 0, 0");
    }
  }
}

/* The indices: map entries (t<map>_<idx>) and local shared-memory indices (l<slot>), once each */
static void emit_indices(gen *g, const int *vec_row) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  int done_m[UM_MAX_ARGS], done_i[UM_MAX_ARGS], ndone = 0;
  int done_loc[UM_MAX_ARGS] = {0};
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (x->gbl || !x->indirect || x->vec) continue;
    if (D->loc_slot[a] >= 0) {
      if (!done_loc[D->loc_slot[a]]) {
        P("  const int l%d = active ? (int)p.loc%d[e] : 0;\n", D->loc_slot[a], D->loc_slot[a]);
        done_loc[D->loc_slot[a]] = 1;
      }
      continue;
    }
    int k = 0;
    while (k < ndone && !(done_m[k] == x->map && done_i[k] == x->idx)) k++;
    if (k < ndone) continue;
    done_m[ndone] = x->map;
    done_i[ndone++] = x->idx;
    if (vec_row[x->map])
      P("  const int t%d_%d = mr%d.%c;\n", x->map, x->idx, x->map, "xyzw"[x->idx]);
    else
      P("  const int t%d_%d = active ? p.m%d[(size_t)e * %d + %d] : 0;\n", x->map, x->idx, x->map, x->arity,
        x->idx);
  }
}

/* Registers that live across the call: increments and globals */
static void emit_live_registers(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (D->pass[a] == UMC_PASS_REG_INC) { /* from the additive identity: -0.0 keeps a -0.0 target's sign */
      P("  %s r%d[%d];\n#pragma unroll\n  for (int c = 0; c < %d; c++) r%d[c] = %s;\n", tname(x->type), a, x->dim,
        x->dim, a, inc_identity(x->type));
    } else if (D->pass[a] == UMC_PASS_GBL_READ || (D->pass[a] == UMC_PASS_GBL_REDUCE && x->acc != UM_INC)) {
      P("  %s r%d[%d];\n#pragma unroll\n  for (int c = 0; c < %d; c++) r%d[c] = p.g%d[c];\n", tname(x->type), a,
        x->dim, x->dim, a, a);
    } else if (D->pass[a] == UMC_PASS_GBL_REDUCE) {
      P("  %s r%d[%d];\n#pragma unroll\n  for (int c = 0; c < %d; c++) r%d[c] = (%s)0;\n", tname(x->type), a, x->dim,
        x->dim, a, tname(x->type));
    }
  }
}

/* Fused (variant B): phase 1 the contributions to shared memory, phase 2 the targets staged where phase 1's
 * data was and the contributions added by thread colour */
static void emit_fused_phases(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  P("  /* phase 1: every element's contributions, to shared memory */\n  if (active) {\n");
  emit_body(g, "    ", 0);
  for (int a = 0; a < L->nargs; a++)
    if (D->apply[a] == UMC_APPLY_COLOURED)
      P("#pragma unroll\n    for (int c = 0; c < %d; c++) sc%d[tid * %d + c] = r%d[c];\n", L->args[a].dim, a,
        L->args[a].dim, a);
  P("  }\n  __syncthreads();\n"
    "  /* phase 2: the block's targets staged where phase 1's data was, the contributions added by thread "
    "colour */\n  um_sp = um_p2;\n");
  for (int i = 0; i < L->ninds; i++)
    if (D->ind_staged[i] && !D->ind_load[i]) emit_staged(g, i);
  P("  __syncthreads();\n");
  P("  for (int c = 0; c < um_co[0]; c++) {\n    if (active && tid >= um_co[1 + c] && tid < um_co[2 + c]) {\n");
  for (int a = 0; a < L->nargs; a++) {
    if (D->apply[a] != UMC_APPLY_COLOURED) continue;
    const umc_arg *x = &L->args[a];
    P("#pragma unroll\n      for (int c = 0; c < %d; c++) s%d[l%d * %d + c] += sc%d[tid * %d + c];\n", x->dim,
      g->staged_k[x->ind], D->loc_slot[a], x->dim, a, x->dim);
  }
  P("    }\n    __syncthreads();\n  }\n");
}

/* The calls of the kernel: all at once, fused, with their increments applied by thread colour, or the whole
 * call one thread colour at a time */
static void emit_calls(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  if (L->exec != UMC_EXEC_HIER || !D->colour_loop) {
    P("  if (active) {\n");
    emit_body(g, "    ", 1);
    P("  }\n");
    emit_warp_combine(g);
  } else if (D->fused) {
    emit_fused_phases(g);
  } else if (!D->kernel_in_colour_loop) {
    P("  if (active) {\n");
    emit_body(g, "    ", 0);
    P("  }\n");
    P("  /* increments, one thread colour at a time */\n");
    P("  for (int c = 0; c < um_co[0]; c++) {\n    if (active && tid >= um_co[1 + c] && tid < um_co[2 + c]) {\n");
    for (int a = 0; a < L->nargs; a++)
      if (D->apply[a] == UMC_APPLY_COLOURED) emit_apply_inc(g, a, "      ");
    P("    }\n    __syncthreads();\n  }\n");
  } else {
    P("  /* RW or WRITE through a map, or increments through a um_vec: the whole call one thread colour at a time */\n");
    P("  for (int c = 0; c < um_co[0]; c++) {\n    if (active && tid >= um_co[1 + c] && tid < um_co[2 + c]) {\n");
    emit_body(g, "      ", 1);
    P("    }\n    __syncthreads();\n  }\n");
  }
}

/* Staged ind i written back to its dat: added, stored or added atomically (ind_writeback 1, 2, 3) */
static void emit_writeback(gen *g, int i) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  const int BS = L->block_threads;
  const umc_ind *s = &L->inds[i];
  const int k = g->staged_k[i];
  const int at = D->ind_writeback[i] == 3;
  const char *op = at ? "," : D->ind_writeback[i] == 1 ? " +=" : " =", *pre = at ? "atomicAdd(&" : "",
             *post = at ? ")" : "";
  if (s->soa) {
    P("#pragma unroll\n  for (int c = 0; c < %d; c++)\n"
      "    for (int j = tid; j < nt%d; j += %d) %sp.d%d[(size_t)c * %lld + (size_t)tg%d[j]]%s s%d[j * %d + c]%s;\n",
      s->dim, k, BS, pre, s->dat, s->stride, k, op, k, s->dim, post);
  } else if (s->dim == 1) {
    P("  for (int j = tid; j < nt%d; j += %d) %sp.d%d[(size_t)tg%d[j]]%s s%d[j]%s;\n", k, BS, pre, s->dat, k, op,
      k, post);
  } else {
    P("  for (int l = tid; l < nt%d * %d; l += %d) {\n    const int j = l / %d;\n"
      "    %sp.d%d[(size_t)tg%d[j] * %d + (l - j * %d)]%s s%d[l]%s;\n  }\n",
      k, s->dim, BS, s->dim, pre, s->dat, k, s->dim, s->dim, op, k, post);
  }
}

/* After the calls: direct data stored from shared memory, staged data written back */
static void emit_stores(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  if (L->exec == UMC_EXEC_FLAT && has_direct_stores(g)) {
    P("  __syncthreads();\n");
    emit_direct_stores(g);
  }
  if (L->exec == UMC_EXEC_HIER) {
    int any_wb = 0;
    for (int i = 0; i < L->ninds; i++) any_wb |= D->ind_writeback[i] != 0;
    if (any_wb || has_direct_stores(g)) {
      if (!D->colour_loop) P("  __syncthreads();\n");
      emit_direct_stores(g);
    }
    if (any_wb) {
      P("  /* write the staged data back (no other block of this colour touches it) */\n");
      for (int i = 0; i < L->ninds; i++)
        if (D->ind_writeback[i]) emit_writeback(g, i);
    }
  }
}

/* The loop kernel's global reductions: sums a partial row per block, min / max an atomic per block */
static void emit_block_reductions(gen *g) {
  const umc_loop *L = g->L;
  const umc_decisions *D = g->D;
  P("  /* global reductions: sums one partial row per CUDA block, combined by um_reduce; min / max one atomic\n"
    "   * per block on the row's keys */\n");
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (D->pass[a] != UMC_PASS_GBL_REDUCE) continue;
    P("#pragma unroll\n  for (int c = 0; c < %d; c++) {\n"
      "    const %s v = um_block_reduce<%s>(r%d[c], um_red_%s);\n",
      x->dim, tname(x->type), op_of(x->acc), a, tname(x->type));
    if (umc_red_atomic(x->acc)) P("    if (tid == 0) um_atomic_red<%s>(p.part%d + c, v);\n  }\n", op_of(x->acc), a);
    else P("    if (tid == 0) p.part%d[(size_t)(p.part + blockIdx.x) * %d + c] = v;\n  }\n", a, x->dim);
  }
}

/* um_reduce's part for reduced arg a: the blocks' partial rows folded into p.res<a> (min / max: the key
 * their atomics left, read and reset) */
static void emit_reduce_arg(gen *g, int a) {
  const umc_arg *x = &g->L->args[a];
  const char *t = tname(x->type), *op = op_of(x->acc);
  if (umc_red_atomic(x->acc)) { /* the blocks' atomics left the result's key: read it, reset the row */
    const char *kt = x->type == UM_DOUBLE ? "long long" : "int";
    P("  for (int c = threadIdx.x; c < %d; c += %d) {\n    %s *key = (%s *)p.part%d + c;\n"
      "    p.res%d[c] = um_unkey(*key, (%s)0);\n    *key = %lldLL;\n  }\n",
      x->dim, UMC_REDUCE_THREADS, kt, kt, a, a, t, umc_red_identity_key(x->acc, x->type));
    return;
  }
  char init[48];
  if (x->acc == UM_INC) snprintf(init, sizeof init, "(%s)0", t);
  else snprintf(init, sizeof init, "p.part%d[c]", a);
  if (x->dim <= UMC_REDUCE_ROW_MAX) {
    P("  {\n    %s v[%d];\n#pragma unroll\n    for (int c = 0; c < %d; c++) v[c] = %s;\n"
      "#pragma unroll %d\n    for (int k = threadIdx.x; k < p.n; k += %d) {\n"
      "      const %s *row = p.part%d + (size_t)k * %d;\n"
      "#pragma unroll\n      for (int c = 0; c < %d; c++) v[c] = um_op<%s>(v[c], row[c]);\n    }\n"
      "#pragma unroll\n    for (int c = 0; c < %d; c++) {\n"
      "      const %s r = um_block_reduce<%s>(v[c], um_red_%s);\n"
      "      if (threadIdx.x == 0) p.res%d[c] = r;\n    }\n  }\n",
      t, x->dim, x->dim, init, x->dim <= 4 ? 4 : 2, UMC_REDUCE_THREADS, t, a, x->dim, x->dim, op, x->dim, t, op,
      t, a);
  } else {
    P("  for (int c = 0; c < %d; c++) {\n"
      "    %s v = %s;\n"
      "#pragma unroll 4\n"
      "    for (int k = threadIdx.x; k < p.n; k += %d) v = um_op<%s>(v, p.part%d[(size_t)k * %d + c]);\n"
      "    v = um_block_reduce<%s>(v, um_red_%s);\n"
      "    if (threadIdx.x == 0) p.res%d[c] = v;\n  }\n",
      x->dim, t, init, UMC_REDUCE_THREADS, op, a, x->dim, op, t, a);
  }
}

/* The um_reduce kernel: one block; each thread folds whole partial rows (one contiguous read per row, unrolled
 * so several rows' loads are in flight), then the block combines the threads' values */
static void emit_reduce_kernel(gen *g) {
  char sym[UMC_SYMBOL_MAX];
  umc_kernel_symbol(g->L->loop_name, 1, sym, sizeof sym);
  P("\n/* combine the partial rows of all launches of the loop, in a fixed order */\n"
    "extern \"C\" __global__ void __launch_bounds__(%d) %s(const um_params p) {\n", UMC_REDUCE_THREADS, sym);
  emit_red_scratch(g, "  ", 1);
  for (int a = 0; a < g->L->nargs; a++)
    if (g->D->pass[a] == UMC_PASS_GBL_REDUCE) emit_reduce_arg(g, a);
  P("}\n");
}

int umc_generate(const umc_loop *L, const umc_decisions *D, char **source, char *err, size_t errlen) {
  *source = NULL;
  if (!L->header_name || strpbrk(L->header_name, "\"\\\n\r"))
    return um_format_error(err, errlen, UM_ERR_ARG,
                           "loop '%s': kernel header name '%s': an #include \"...\" cannot name a header with a '\"', "
                           "a '\\' or a line break; name it without (UM_KERNEL_DEFINE's last argument)",
                           L->loop_name, L->header_name ? L->header_name : "(none)");
  um_strbuf buf = {0};
  gen G, *g = &G;
  memset(g, 0, sizeof *g);
  g->L = L;
  g->D = D;
  g->b = &buf;
  int nstaged = 0;
  for (int i = 0; i < L->ninds; i++) g->staged_k[i] = (L->exec == UMC_EXEC_HIER && D->ind_staged[i]) ? nstaged++ : -1;

  emit_header_comment(g);
  emit_params(g);
  if (D->has_reduction) emit_reduction_helpers(g);

  /* ---- the loop kernel ---- */
  emit_kernel_prologue(g, nstaged);
  /* indices: map entries and local (shared-memory) indices, once each; a map
   * row of arity 2 or 4 the loop reads at two or more indices comes in one
   * vector load */
  int vec_row[UM_MAX_ARGS] = {0};
  emit_map_rows(g, vec_row);
  emit_indices(g, vec_row);
  emit_live_registers(g);
  emit_calls(g);
  emit_stores(g);
  if (D->has_reduction) emit_block_reductions(g);
  P("}\n");

  if (D->has_reduction) emit_reduce_kernel(g);
  if (buf.oom) {
    um_strbuf_free(&buf);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory generating the kernel of loop '%s'", L->loop_name);
  }
  *source = buf.s;
  return UM_SUCCESS;
}
