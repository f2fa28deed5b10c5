/* The CUDA backend's code generator, its decisions (umc_decide, codegen.h): per argument how it is passed
 * and applied, what is staged in shared memory, the parameter block's layout. The source is written from
 * them in codegen.c. */
#include "codegen.h"

#include <stdio.h>
#include <string.h>

const char *umc_exec_name(umc_exec e) {
  switch (e) {
  case UMC_EXEC_FLAT: return "flat";
  case UMC_EXEC_GLOBAL: return "global colouring";
  case UMC_EXEC_HIER: return "hierarchical colouring";
  }
  return "?";
}

const char *umc_pass_name(umc_pass p) {
  switch (p) {
  case UMC_PASS_GLOBAL: return "global pointer";
  case UMC_PASS_SHARED: return "shared memory";
  case UMC_PASS_REG: return "registers";
  case UMC_PASS_REG_INC: return "register increments";
  case UMC_PASS_GBL_READ: return "global value";
  case UMC_PASS_GBL_REDUCE: return "reduction";
  case UMC_PASS_SHARED_DIRECT: return "shared memory (coalesced, direct)";
  case UMC_PASS_VEC: return "um_vec (every target of the map row, in place)";
  }
  return "?";
}

/* static shared memory for direct AoS staging, per CUDA block */
#define UMC_DIRECT_SHARED_MAX (32 * 1024)

/* ---- decisions -------------------------------------------------------------- */

static void add_field(umc_decisions *D, umc_field_kind k, int slot, int bytes, int align) {
  int off = D->param_bytes;
  off = (off + align - 1) / align * align;
  umc_field *f = &D->fields[D->nfields++];
  f->kind = k;
  f->slot = slot;
  f->offset = off;
  f->bytes = bytes;
  D->param_bytes = off + bytes;
}

/* A dat written (RW / WRITE) through a map and reached through another map too: one staged copy per (dat, map)
 * would not see the other's writes, and both would be stored back over each other; such a dat stays in device
 * memory (unstaged; RW / WRITE already run the whole call one thread colour at a time). */
static int written_through_two_maps(const umc_loop *L, int i) {
  int other = 0, written = 0;
  for (int j = 0; j < L->ninds; j++) other |= j != i && L->inds[j].dat == L->inds[i].dat;
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    written |= !x->gbl && x->indirect && x->dat == L->inds[i].dat && (x->acc == UM_RW || x->acc == UM_WRITE);
  }
  return other && written;
}

/* Hierarchical execution: which inds are staged, loaded and written back; the pass of each indirect arg and
 * the local-index slots (one per target list and map index); whether local indices and thread orders fit 16
 * bits. mixed[dat]: the dat is incremented directly too (mixed_inc): its sums go back by atomics. */
static int decide_staging(const umc_loop *L, umc_decisions *D, const int *mixed, char *err, size_t errlen) {
  if (L->ninds < 0 || L->ninds > UM_MAX_ARGS)
    return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s': %d inds", L->loop_name, L->ninds);
  /* which inds are staged, loaded and written back */
  for (int i = 0; i < L->ninds; i++) {
    int all_inc = 1, any_write = 0, nargs_i = 0;
    for (int a = 0; a < L->nargs; a++) {
      const umc_arg *x = &L->args[a];
      if (x->gbl || !x->indirect || x->ind != i) continue;
      nargs_i++;
      if (x->acc != UM_INC) all_inc = 0;
      if (umc_is_write(x->acc)) any_write = 1;
    }
    if (!nargs_i) return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s': ind %d has no args", L->loop_name, i);
    const umc_ind *s = &L->inds[i];
    if (s->tlist < 0 || s->tlist >= UM_MAX_ARGS)
      return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s': ind %d: bad target list", L->loop_name, i);
    /* without block colours (block_atomics), data that is read and written is not staged; nor is data of more
     * than UM_MAX_SCRATCH_DIM values a row read through a map (a pointer into the dat needs no copy) */
    D->ind_staged[i] = !written_through_two_maps(L, i) &&
                       (all_inc || (L->stage_all && !(L->block_atomics && any_write) && s->dim <= UM_MAX_SCRATCH_DIM));
    D->ind_load[i] = D->ind_staged[i] && !all_inc;
    D->ind_writeback[i] = !D->ind_staged[i] || !any_write ? 0
                          : all_inc                       ? (L->block_atomics || mixed[s->dat] ? 3 : 1)
                                                          : 2;
    if (D->ind_staged[i]) D->tlist_used[s->tlist] = 1;
    if (s->tlist + 1 > D->ntlists) D->ntlists = s->tlist + 1;
  }
  /* pass modes, and local-index slots: one per (target list, map index) */
  int loc_tlist[UM_MAX_ARGS], loc_idx[UM_MAX_ARGS];
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (x->gbl || !x->indirect || x->vec) continue;
    const int i = x->ind;
    if (D->ind_staged[i]) {
      if (x->acc != UM_INC) D->pass[a] = UMC_PASS_SHARED;
      int t = L->inds[i].tlist, k = 0;
      while (k < D->nlocs && !(loc_tlist[k] == t && loc_idx[k] == x->idx)) k++;
      if (k == D->nlocs) {
        loc_tlist[k] = t;
        loc_idx[k] = x->idx;
        D->nlocs++;
      }
      D->loc_slot[a] = k;
    } else if (x->acc != UM_INC) {
      D->pass[a] = x->soa ? UMC_PASS_REG : UMC_PASS_GLOBAL;
    } else if (mixed[x->dat]) {
      D->apply[a] = UMC_APPLY_ATOMIC; /* unstaged increments of a dat also incremented directly: mixed_inc */
    }
    D->reg_values[a] = (D->pass[a] == UMC_PASS_REG || D->pass[a] == UMC_PASS_REG_INC) ? x->dim : 0;
  }
  /* local indices < targets per block <= block size * map indices of the ind */
  int maxidx = 1;
  for (int i = 0; i < L->ninds; i++) {
    int n = 0, seen[UM_MAX_ARGS];
    for (int a = 0; a < L->nargs; a++) {
      const umc_arg *x = &L->args[a];
      if (x->gbl || !x->indirect || x->ind != i) continue;
      int k = 0;
      while (k < n && seen[k] != x->idx) k++;
      if (k == n) seen[n++] = x->idx;
    }
    if (n > maxidx) maxidx = n;
  }
  D->loc_short = (long long)L->block_threads * maxidx <= 32767;
  D->perm_short = L->block_threads <= 32767;
  return UM_SUCCESS;
}

/* A fused split (variant B): only increments through maps, staged and not read, added by thread colour after
 * a barrier; the shared memory of their contributions. */
static int decide_fused(const umc_loop *L, umc_decisions *D, char *err, size_t errlen) {
  if (L->exec != UMC_EXEC_HIER || L->block_atomics)
    return um_format_error(err, errlen, UM_ERR_ARG,
                           "loop '%s': a fused split needs hierarchical colouring (block and thread colours), "
                           "not %s%s", L->loop_name, umc_exec_name(L->exec),
                           L->block_atomics ? " with shared-memory atomics" : "");
  for (int a = 0; a < L->nargs; a++)
    if (!L->args[a].gbl && L->args[a].indirect && L->args[a].acc != UM_READ && D->apply[a] != UMC_APPLY_COLOURED)
      return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                             "loop '%s', arg %d: %s through a map%s; a fused split adds only increments (use "
                             "run.split gather for this loop)", L->loop_name, a, um_access_name(L->args[a].acc),
                             L->args[a].vec ? " as a vector argument" : "");
  for (int a = 0; a < L->nargs; a++)
    if (D->apply[a] == UMC_APPLY_COLOURED && (!D->ind_staged[L->args[a].ind] || D->ind_load[L->args[a].ind]))
      return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                             "loop '%s', arg %d: its dat is also read through the map; a fused split adds only "
                             "increments (use run.split gather for this loop)", L->loop_name, a);
  D->fused = 1;
  for (int a = 0; a < L->nargs; a++)
    if (D->apply[a] == UMC_APPLY_COLOURED)
      D->contrib_bytes += (L->block_threads * L->args[a].dim * umc_tsize(L->args[a].type) + 15) & ~15;
  return UM_SUCCESS;
}

/* The parameter block of a launch: dat and map pointers, plan arrays, reduction partials and results, the
 * ints, the global arguments passed by value; at most 4096 bytes. */
static int lay_out_params(const umc_loop *L, umc_decisions *D, char *err, size_t errlen) {
  for (int d = 0; d < L->ndats; d++) add_field(D, UMC_F_DAT, d, 8, 8);
  for (int m = 0; m < L->nmaps; m++) add_field(D, UMC_F_MAP, m, 8, 8);
  if (L->exec == UMC_EXEC_GLOBAL) add_field(D, UMC_F_PERM, 0, 8, 8);
  if (L->exec == UMC_EXEC_HIER) {
    add_field(D, UMC_F_BLOCKS, 0, 8, 8);
    add_field(D, UMC_F_BOFF, 0, 8, 8);
    if (D->colour_loop) {
      add_field(D, UMC_F_COFF, 0, 8, 8);
      add_field(D, UMC_F_COLS, 0, 8, 8);
      add_field(D, UMC_F_PERM, 0, 8, 8);
    }
    for (int t = 0; t < D->ntlists; t++)
      if (D->tlist_used[t]) {
        add_field(D, UMC_F_TOFF, t, 8, 8);
        add_field(D, UMC_F_TGT, t, 8, 8);
      }
    for (int l = 0; l < D->nlocs; l++) add_field(D, UMC_F_LOC, l, 8, 8);
  }
  for (int a = 0; a < L->nargs; a++)
    if (D->pass[a] == UMC_PASS_GBL_REDUCE) {
      add_field(D, UMC_F_PART, a, 8, 8);
      add_field(D, UMC_F_RES, a, 8, 8);
    }
  add_field(D, UMC_F_INT_N, 0, 4, 4);
  add_field(D, UMC_F_INT_START, 0, 4, 4);
  add_field(D, UMC_F_INT_PART, 0, 4, 4);
  add_field(D, UMC_F_INT_PAD, 0, 4, 4);
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (x->gbl && (x->acc == UM_READ || x->acc == UM_MIN || x->acc == UM_MAX))
      add_field(D, UMC_F_GBL, a, x->dim * umc_tsize(x->type), 8);
  }
  D->param_bytes = (D->param_bytes + 7) / 8 * 8;
  if (D->param_bytes > 4096)
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                "loop '%s': the kernel's parameters take %d bytes, more than the 4096 a launch can pass; use "
                "fewer or smaller global arguments",
                L->loop_name, D->param_bytes);
  return UM_SUCCESS;
}

/* What the loop does with each dat (by slot), for the rules that look across its arguments. */
typedef struct {
  int direct_inc; /* incremented directly (a contribution temporary's store aside) */
  int map_inc; /* incremented through a map (vector arguments too) */
  int ndirect; /* direct arguments, contribution stores aside */
  int direct_write; /* one of them is not READ */
  int direct_noninc; /* one of them is not INC */
} dat_use;

static void find_dat_uses(const umc_loop *L, dat_use *u) {
  memset(u, 0, sizeof(dat_use) * UM_MAX_ARGS);
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (x->gbl || x->dat < 0 || x->dat >= UM_MAX_ARGS || (!x->indirect && x->store)) continue;
    dat_use *d = &u[x->dat];
    if (x->indirect) {
      d->map_inc |= x->acc == UM_INC;
      continue;
    }
    d->ndirect++;
    d->direct_inc |= x->acc == UM_INC;
    d->direct_write |= x->acc != UM_READ;
    d->direct_noninc |= x->acc != UM_INC;
  }
}

/* A dat incremented both directly and through a map (core/args.c allows it: increments commute). Element e's own
 * row can be another element's map target in the same launch whatever the strategy: flat atomics run all elements
 * at once, and colours (global, or blocks and threads) are made from map targets only, so two elements of one
 * colour meet on that row. The simplest correct scheme: every increment of such a dat reaches the dat by atomic
 * adds. The direct ones go from zero-filled registers (never a shared copy stored back with `=`, never a plain
 * read-modify-write), those through maps are atomic (flat atomics as always; global colouring and one-to-one maps
 * too, vector arguments too), and under hierarchical colouring the staged copy's sums go back by atomics
 * (ind_writeback 3; inside the block they stay added by thread colour or by shared-memory atomics). */
static int mixed_inc(const dat_use *u, int dat) { return dat >= 0 && u[dat].direct_inc && u[dat].map_inc; }

/* A direct argument. A dat passed directly more than once is one copy for all its direct arguments, so that they
 * alias as on the host (two copies stored back would lose one argument's writes): the first one's shared-memory
 * slice (AoS) or, SoA where one of them reads or writes other than by increments, its registers (loaded, stored);
 * AoS without a slice they all point into the dat. SoA increments alone keep a register array each (added in turn
 * by the one thread) and reads alone a copy each. */
static void decide_direct(const umc_loop *L, umc_decisions *D, int a, const dat_use *u) {
  const umc_arg *x = &L->args[a];
  const dat_use *du = &u[x->dat];
  if (x->store && x->acc == UM_INC) {
    D->pass[a] = UMC_PASS_REG_INC; /* from zero in registers, stored: the row is never read */
    D->apply[a] = UMC_APPLY_STORE;
    return;
  }
  if (x->acc == UM_INC && mixed_inc(u, x->dat)) { /* atomic adds: mixed_inc */
    D->pass[a] = UMC_PASS_REG_INC;
    D->apply[a] = UMC_APPLY_ATOMIC;
    return;
  }
  const int soa_shared = x->soa && du->ndirect > 1 && du->direct_write && du->direct_noninc;
  for (int b = 0; b < a; b++) { /* the dat's first direct argument */
    const umc_arg *y = &L->args[b];
    if (y->gbl || y->indirect || y->store || y->dat != x->dat) continue;
    if (D->pass[b] == UMC_PASS_SHARED_DIRECT || (D->pass[b] == UMC_PASS_REG && soa_shared)) {
      D->pass[a] = D->pass[b];
      D->copy_of[a] = D->copy_of[b] >= 0 ? D->copy_of[b] : b;
      return;
    }
    if (D->pass[b] == UMC_PASS_GLOBAL) {
      D->pass[a] = UMC_PASS_GLOBAL;
      return;
    }
    break;
  }
  /* AoS with dim > 1: a thread's values are dim apart from its neighbour's, so
   * the block moves its contiguous slice through shared memory, coalesced */
  const int bytes = L->block_threads * x->dim * umc_tsize(x->type);
  if (!x->soa && x->dim > 1 && L->exec != UMC_EXEC_GLOBAL && D->direct_shared_bytes + bytes <= UMC_DIRECT_SHARED_MAX) {
    D->pass[a] = UMC_PASS_SHARED_DIRECT;
    D->direct_shared_bytes += bytes;
  } else if (!x->soa)
    D->pass[a] = UMC_PASS_GLOBAL;
  else if (x->acc == UM_INC && !soa_shared)
    D->pass[a] = UMC_PASS_REG_INC, D->apply[a] = UMC_APPLY_PLAIN;
  else
    D->pass[a] = UMC_PASS_REG;
}

/* An argument through a map (not a vector). */
static int decide_indirect(const umc_loop *L, umc_decisions *D, int a, const dat_use *u, char *err, size_t errlen) {
  const umc_arg *x = &L->args[a];
  if (L->exec == UMC_EXEC_FLAT || L->exec == UMC_EXEC_GLOBAL) {
    const int plain = L->exec == UMC_EXEC_GLOBAL || L->one_to_one; /* one element per target row */
    if (x->acc == UM_INC && plain && !mixed_inc(u, x->dat) && !x->soa && x->dim > UM_MAX_SCRATCH_DIM) {
      D->pass[a] = UMC_PASS_GLOBAL; /* too wide for registers: the kernel adds in place, one element per row */
    } else if (x->acc == UM_INC) {
      D->pass[a] = UMC_PASS_REG_INC;
      D->apply[a] = plain && !mixed_inc(u, x->dat) ? UMC_APPLY_PLAIN : UMC_APPLY_ATOMIC;
    } else if (!plain && x->acc != UM_READ) {
      return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                             "loop '%s', arg %d: %s through a map cannot run with one thread per element and atomics "
                             "(only INC can); the backend runs such loops with colouring",
                             L->loop_name, a, um_access_name(x->acc));
    } else {
      D->pass[a] = x->soa ? UMC_PASS_REG : UMC_PASS_GLOBAL;
    }
    return UM_SUCCESS;
  }
  if (x->ind < 0 || x->ind >= L->ninds)
    return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s', arg %d: bad ind %d", L->loop_name, a, x->ind);
  if (L->block_atomics && (x->acc == UM_RW || x->acc == UM_WRITE))
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                           "loop '%s', arg %d: %s through a map needs colouring; staged atomics handle INC only",
                           L->loop_name, a, um_access_name(x->acc));
  if (x->acc == UM_INC) {
    D->pass[a] = UMC_PASS_REG_INC;
    D->apply[a] = L->block_atomics ? UMC_APPLY_BLOCK_ATOMIC : UMC_APPLY_COLOURED;
  }
  if (x->acc != UM_READ && !L->block_atomics) D->colour_loop = 1;
  if (x->acc == UM_RW || x->acc == UM_WRITE) D->kernel_in_colour_loop = 1;
  return UM_SUCCESS;
}

/* A vector argument (um_vec): every target of the row, in the dat in place: safe as colours include all of them */
static int decide_vec(const umc_loop *L, umc_decisions *D, int a, const dat_use *u, char *err, size_t errlen) {
  const umc_arg *x = &L->args[a];
  if (!x->indirect || (x->acc != UM_READ && x->acc != UM_INC))
    return um_format_error(err, errlen, UM_ERR_ARG,
                           "loop '%s', arg %d: a vector argument goes through a map and is READ or INC, not %s%s",
                           L->loop_name, a, um_access_name(x->acc), x->indirect ? "" : " (and it has no map)");
  D->pass[a] = UMC_PASS_VEC;
  if (x->acc == UM_INC) {
    /* without colours (one thread per element, or staged blocks without colours) increments are atomic */
    const int atomic = L->exec == UMC_EXEC_FLAT || (L->exec == UMC_EXEC_HIER && L->block_atomics);
    D->apply[a] = atomic || mixed_inc(u, x->dat) ? UMC_APPLY_ATOMIC : UMC_APPLY_PLAIN;
    /* hierarchical: the kernel itself adds, so it runs one thread colour at a time */
    if (L->exec == UMC_EXEC_HIER && !L->block_atomics) D->colour_loop = D->kernel_in_colour_loop = 1;
  }
  return UM_SUCCESS;
}

/* An argument of more than UM_MAX_SCRATCH_DIM values is passed only where it needs no per-thread copy in registers
 * (a pointer into the dat, a shared-memory copy, a um_vec); refused where it would need one. */
static int check_register_dims(const umc_loop *L, const umc_decisions *D, const dat_use *u, char *err, size_t errlen) {
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    const umc_pass p = D->pass[a];
    if (x->dim <= UM_MAX_SCRATCH_DIM ||
        (p != UMC_PASS_REG && p != UMC_PASS_REG_INC && p != UMC_PASS_GBL_READ && p != UMC_PASS_GBL_REDUCE))
      continue;
    const char *what = x->gbl              ? "a global argument is copied to registers"
                       : p == UMC_PASS_REG ? "SoA data is gathered into registers (store the dat AoS)"
                       : !x->indirect && mixed_inc(u, x->dat)
                           ? "increments of a dat also incremented through a map are added atomically from registers"
                       : !x->indirect ? "SoA increments are held in registers (store the dat AoS)"
                                      : "increments through a map are held in registers under atomics and "
                                        "hierarchical colouring (strategy global adds them in place)";
    return um_format_error(err, errlen, UM_ERR_UNSUPPORTED,
                           "loop '%s', arg %d: dim %d: %s, at most %d values a thread (UM_MAX_SCRATCH_DIM)",
                           L->loop_name, a, x->dim, what, UM_MAX_SCRATCH_DIM);
  }
  return UM_SUCCESS;
}

/* The dat slot of each argument checked, and that a dat has one type throughout. */
static int check_slots(const umc_loop *L, char *err, size_t errlen) {
  int ndat_type_set[UM_MAX_ARGS] = {0};
  um_type dat_type[UM_MAX_ARGS];
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    if (x->dim < 1)
      return um_format_error(err, errlen, UM_ERR_ARG, "loop '%s', arg %d: dim %d", L->loop_name, a, x->dim);
    if (x->gbl) continue;
    if (x->dat < 0 || x->dat >= L->ndats || x->dat >= UM_MAX_ARGS ||
        (x->indirect && (x->map < 0 || x->map >= L->nmaps)))
      return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s', arg %d: bad dat or map slot", L->loop_name, a);
    if (ndat_type_set[x->dat] && dat_type[x->dat] != x->type)
      return um_format_error(err, errlen, UM_ERR_INTERNAL, "loop '%s', arg %d: dat slot %d seen with two types",
                             L->loop_name, a, x->dat);
    ndat_type_set[x->dat] = 1;
    dat_type[x->dat] = x->type;
  }
  return UM_SUCCESS;
}

int umc_decide(const umc_loop *L, umc_decisions *D, char *err, size_t errlen) {
  memset(D, 0, sizeof *D);
  D->exec = L->exec;
  if (L->nargs < 0 || L->nargs > UM_MAX_ARGS)
    return um_format_error(err, errlen, UM_ERR_ARG, "loop '%s': %d args (at most %d)", L->loop_name, L->nargs, UM_MAX_ARGS);
  if (L->block_threads < 1 || L->block_threads > UMC_MAX_BLOCK_THREADS)
    return um_format_error(err, errlen, UM_ERR_ARG,
                "loop '%s': %d threads per CUDA block; a CUDA block has 1 to 1024 threads (use a block size of "
                "at most 1024)",
                L->loop_name, L->block_threads);
  int rc = check_slots(L, err, errlen);
  if (rc != UM_SUCCESS) return rc;
  dat_use u[UM_MAX_ARGS];
  find_dat_uses(L, u);
  for (int a = 0; a < L->nargs; a++) {
    const umc_arg *x = &L->args[a];
    D->loc_slot[a] = -1;
    D->copy_of[a] = -1;
    if (x->gbl) {
      D->pass[a] = x->acc == UM_READ ? UMC_PASS_GBL_READ : UMC_PASS_GBL_REDUCE;
      if (x->acc != UM_READ) D->has_reduction = 1;
    } else if (x->vec) {
      rc = decide_vec(L, D, a, u, err, errlen);
    } else if (!x->indirect) {
      decide_direct(L, D, a, u);
    } else {
      rc = decide_indirect(L, D, a, u, err, errlen);
    }
    if (rc != UM_SUCCESS) return rc;
    const umc_pass p = D->pass[a];
    if (p == UMC_PASS_REG || p == UMC_PASS_REG_INC || p == UMC_PASS_GBL_READ || p == UMC_PASS_GBL_REDUCE)
      D->reg_values[a] = x->dim;
  }
  int mixed[UM_MAX_ARGS];
  for (int d = 0; d < UM_MAX_ARGS; d++) mixed[d] = mixed_inc(u, d);
  if (L->exec == UMC_EXEC_HIER && (rc = decide_staging(L, D, mixed, err, errlen)) != UM_SUCCESS) return rc;
  if ((rc = check_register_dims(L, D, u, err, errlen)) != UM_SUCCESS) return rc;
  if (L->fused && (rc = decide_fused(L, D, err, errlen)) != UM_SUCCESS) return rc;
  return lay_out_params(L, D, err, errlen);
}

/* ---- cuda.warp_combine: column pairs of a map along consecutive rows ------------------------------------- */

static int pairable(const umc_loop *L, int a) {
  const umc_arg *x = &L->args[a];
  return !x->gbl && x->indirect && !x->vec && x->acc == UM_INC && x->idx >= 0 && x->idx < x->arity;
}

/* One level: the column pairs of map slot m at `offset` rows, most frequent first, as argument pairs: those over
 * half the samples (wide: over 2/5, for y neighbours in strips, half the rows). Returns the best column pair's
 * count (0: none). */
static int find_level(umc_loop *L, int m, const int *d, int arity, int begin, int end, int offset, int wide,
                      umc_pair_level *lv) {
  enum { WINDOWS = 64, RUN = 64, MAXA = 16 };
  int count[MAXA][MAXA] = {{0}}, samples = 0;
  /* count[s][t]: rows r whose column s is row r + offset's column t, over WINDOWS runs spread evenly */
  for (int w = 0; w < WINDOWS; w++) {
    const long long r0 = begin + (long long)(end - begin - RUN) * w / WINDOWS;
    for (long long r = r0; r + offset < r0 + RUN; r++, samples++)
      for (int s = 0; s < arity; s++)
        for (int t = 0; t < arity; t++) count[s][t] += d[r * arity + s] == d[(r + offset) * arity + t];
  }
  lv->offset = offset;
  lv->npairs = 0;
  int best = 0;
  for (;;) { /* the most frequent column pair left, then its argument pairs */
    int bs = -1, bt = -1, top = wide ? samples * 2 / 5 : samples / 2;
    for (int s = 0; s < arity; s++)
      for (int t = 0; t < arity; t++)
        if (s != t && count[s][t] > top) top = count[s][t], bs = s, bt = t;
    if (bs < 0) break;
    count[bs][bt] = 0;
    if (!best) best = top;
    for (int a = 0; a < L->nargs; a++) {
      const umc_arg *x = &L->args[a];
      if (!pairable(L, a) || x->map != m || x->idx != bs) continue;
      for (int b = 0; b < L->nargs && lv->npairs < UMC_MAX_PAIRS; b++) {
        const umc_arg *y = &L->args[b];
        if (pairable(L, b) && y->map == m && y->idx == bt && y->dat == x->dat && y->dim == x->dim &&
            y->type == x->type) {
          lv->recv[lv->npairs] = a;
          lv->donor[lv->npairs++] = b;
          break;
        }
      }
    }
  }
  return lv->npairs ? best : 0;
}

int umc_find_pairs(umc_loop *L, const int *const *maps, int begin, int end, int levels) {
  L->npair_levels = 0;
  if (L->exec != UMC_EXEC_FLAT || L->one_to_one || L->block_threads % 32 || end - begin < 64) return 0;
  umc_pair_level lv[UMC_PAIR_LEVELS];
  int score[UMC_PAIR_LEVELS] = {0}, npairs = 0;
  if (levels > UMC_PAIR_LEVELS) levels = UMC_PAIR_LEVELS;
  for (int k = 0; k < UMC_PAIR_LEVELS; k++) { /* offsets 1, 2: every map's pairs at that offset in one level */
    lv[k].offset = k + 1;
    lv[k].npairs = 0;
    for (int m = 0; m < L->nmaps; m++) {
      int arity = 0;
      for (int a = 0; a < L->nargs; a++)
        if (pairable(L, a) && L->args[a].map == m) arity = L->args[a].arity;
      if (k >= levels || arity < 2 || arity > 16 || !maps[m]) continue;
      umc_pair_level one;
      const int best = find_level(L, m, maps[m], arity, begin, end, k + 1, levels > 1, &one);
      for (int i = 0; i < one.npairs && lv[k].npairs < UMC_MAX_PAIRS; i++, lv[k].npairs++) {
        lv[k].recv[lv[k].npairs] = one.recv[i];
        lv[k].donor[lv[k].npairs] = one.donor[i];
      }
      if (best > score[k]) score[k] = best;
    }
    npairs += lv[k].npairs;
  }
  /* the level whose best pair holds for more rows first (ties: the smaller offset) */
  const int first = score[1] > score[0] ? 1 : 0;
  for (int k = 0; k < UMC_PAIR_LEVELS; k++) {
    const umc_pair_level *x = &lv[k == 0 ? first : 1 - first];
    if (x->npairs) L->pair_levels[L->npair_levels++] = *x;
  }
  return npairs;
}
