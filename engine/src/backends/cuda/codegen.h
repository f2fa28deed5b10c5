/* The CUDA backend's code generator: from one loop's argument list to the
 * source of a CUDA kernel around the app's unchanged kernel header.
 *
 * The generator is plain C and needs neither a GPU nor the CUDA toolkit: it
 * takes a description of the loop (umc_loop), decides how every argument
 * reaches the user kernel (umc_decisions, kept for tests and for the host
 * code that fills the kernel's parameter block), and writes the source.
 *
 * Everything that is fixed for a loop is a compile-time constant in the
 * source: dims, SoA strides, map arities and indices, threads per block,
 * the access mode of each argument. Per-launch values (how many elements,
 * where in the element or block list to start, where reduction partials go)
 * are fields of the parameter block.
 */
#ifndef UM_CUDA_CODEGEN_H
#define UM_CUDA_CODEGEN_H

#include <stddef.h>
#include "um/exec.h"
#include "um/um.h"

/* Limits the generator and the backend must agree on. */
#define UMC_REDUCE_THREADS 512          /* threads of the partial-combining kernel um_reduce */
#define UMC_REDUCE_ROW_MAX 16           /* um_reduce folds whole rows of a reduction up to this dim */
#define UMC_MAX_BLOCK_THREADS 1024      /* threads per CUDA block                            */
#define UMC_STATIC_SHARED_MAX (48 * 1024) /* above this a kernel must opt in to shared memory */

#ifdef __cplusplus
extern "C" {
#endif

/* How a loop's elements are spread over CUDA threads. */
typedef enum {
  UMC_EXEC_FLAT = 0, /* one thread per element, element order; INC through maps by atomics */
  UMC_EXEC_GLOBAL,   /* one launch per element colour over a permuted element list        */
  UMC_EXEC_HIER      /* one CUDA block per plan block, one launch per block colour         */
} umc_exec;

/* One argument of the loop, as the generator sees it. */
typedef struct {
  int gbl;            /* 1: a global (READ, or reduced with INC/MIN/MAX) */
  int indirect;       /* through a map */
  um_access acc;
  um_type type;
  int dim;
  int soa;            /* dat stored SoA and dim > 1 */
  long long stride;   /* SoA: values between components (the dat's set size) */
  int dat;            /* slot of the dat among the loop's distinct dats; -1 for globals */
  int map;            /* slot of the map among the loop's distinct maps; -1 */
  int arity, idx;     /* indirect */
  int store;          /* direct INC into a split loop's contribution temporary: registers from zero, stored */
  int minus;          /* store, declared um_arg_minus: stored only where its pointer is set (NULL: um_loop.drop) */
  int ind;            /* hierarchical: the arg's staging list ("ind"), -1 if direct/global */
  int vec;            /* a vector arg (idx UM_ALL): every target of the map row as one um_vec, read or
                         incremented in the dat in place (never staged, never in an ind) */
  int whole;          /* a vector arg over a whole dat (um_arg_whole): the map's one row serves every element */
} umc_arg;

/* cuda.warp_combine: pairs of increments (args) whose rows often agree between an element and the one `offset`
 * elements later (a map's columns s and t: row r + offset's column t is row r's column s). In each pair, in the
 * order given, the thread `offset` lanes on in the warp hands its donor increment to this thread's receiver where
 * the two rows agree (checked per element), and drops it: one atomic where there were two. Each step moves values
 * between lanes only where they go to one row, so any order of steps and levels is exact. */
#define UMC_PAIR_LEVELS 2
#define UMC_MAX_PAIRS 32
typedef struct {
  int offset;                                  /* 1 .. 16 lanes */
  int npairs;
  int recv[UMC_MAX_PAIRS], donor[UMC_MAX_PAIRS]; /* args: same dat, map, dim and type, INC */
} umc_pair_level;

/* A staging list of the hierarchical scheme: one (dat, map) pair. */
typedef struct {
  int dat, map;       /* slots */
  int tlist;          /* target-list slot: inds through one map with one set of indices share it */
  int dim;
  um_type type;
  int soa;
  long long stride;
} umc_ind;

typedef struct {
  const char *loop_name;
  const char *kernel_name;  /* the user kernel's function name */
  const char *header_name;  /* how the app's kernel header is #included */
  int nargs;
  umc_arg args[UM_MAX_ARGS];
  int ndats, nmaps;
  umc_exec exec;
  int block_threads;        /* CUDA threads per block (hierarchical: the plan's block size) */
  int stage_all;            /* hierarchical: stage every ind, not only all-INC ones */
  int one_to_one;           /* flat: the loop writes through one-to-one maps only (no two elements write one
                               row): increments are plain adds, RW / WRITE through the map allowed */
  int block_atomics;        /* hierarchical blocks without colours: increments go to the
                               staged copy with shared-memory atomics and back to the dat
                               with one global atomic per staged value (INC only)    */
  int fused;                /* hierarchical, coloured: a split inside the launch (variant B, run.split fused):
                               every element's increments through maps to shared memory, a block barrier,
                               then the block's targets staged (where phase 1's staged data was) and the
                               contributions added by thread colour */
  int min_blocks;           /* > 0: __launch_bounds__(block_threads, min_blocks): the compiler keeps registers
                               per thread low enough for that many resident blocks per SM (cuda.max_registers) */
  int ninds;                /* hierarchical */
  umc_ind inds[UM_MAX_ARGS];
  int npair_levels;          /* flat, atomic increments (cuda.warp_combine; umc_find_pairs): levels of pairs */
  umc_pair_level pair_levels[UMC_PAIR_LEVELS];
} umc_loop;

/* How an argument reaches the user kernel. */
typedef enum {
  UMC_PASS_GLOBAL = 0,  /* pointer into the dat in device memory (AoS, or dim 1)   */
  UMC_PASS_SHARED,      /* pointer into the block's shared-memory copy             */
  UMC_PASS_REG,         /* register array gathered from / scattered to the dat     */
  UMC_PASS_REG_INC,     /* register array of increments, zero-filled, applied after */
  UMC_PASS_GBL_READ,    /* register copy of a global READ value                    */
  UMC_PASS_GBL_REDUCE,  /* register accumulator of a global reduction              */
  UMC_PASS_SHARED_DIRECT,/* direct AoS data of the CUDA block's contiguous elements, moved
                           between device and shared memory in coalesced sweeps      */
  UMC_PASS_VEC          /* a um_vec over the element's map row, the dat in device memory in
                           place (um/kernel.h); increments atomic with UMC_APPLY_ATOMIC */
} umc_pass;

/* How an increment held in registers is applied. */
typedef enum {
  UMC_APPLY_NONE = 0,
  UMC_APPLY_ATOMIC,     /* atomicAdd per component                                  */
  UMC_APPLY_PLAIN,      /* += (no conflicts: element colour, or direct)             */
  UMC_APPLY_COLOURED,   /* += one thread colour at a time, __syncthreads between    */
  UMC_APPLY_BLOCK_ATOMIC,/* atomicAdd into the block's shared copy (or the dat if not staged) */
  UMC_APPLY_STORE       /* = (a contribution temporary: the row starts at zero)      */
} umc_apply;

/* The kernel's parameter block: what each field holds. */
typedef enum {
  UMC_F_DAT = 0,   /* slot: dat            */
  UMC_F_MAP,       /* slot: map            */
  UMC_F_PERM,      /* global: element list; hierarchical: element offsets sorted by thread colour */
  UMC_F_BLOCKS,    /* hierarchical: blocks in block-colour order */
  UMC_F_BOFF,      /* hierarchical: block offsets [nblocks+1] */
  UMC_F_COFF,      /* hierarchical: per block, where its thread-colour offsets start [nblocks] */
  UMC_F_COLS,      /* hierarchical: thread-colour offsets, ncolours+1 per block */
  UMC_F_TOFF,      /* slot: target list, offsets per block [nblocks+1] */
  UMC_F_TGT,       /* slot: target list, targets */
  UMC_F_LOC,       /* slot: local-index array (int16 or int) */
  UMC_F_PART,      /* slot: arg; reduction partials, one row per CUDA block */
  UMC_F_RES,       /* slot: arg; reduction result (mapped host memory) */
  UMC_F_INT_N,     /* elements (blocks) of this launch; um_reduce: partial rows */
  UMC_F_INT_START, /* first entry of the launch in the element / block list */
  UMC_F_INT_PART,  /* first partial row of this launch */
  UMC_F_INT_PAD,
  UMC_F_GBL        /* slot: arg; a global's value (READ) or initial value (MIN/MAX) */
} umc_field_kind;

typedef struct {
  umc_field_kind kind;
  int slot;
  int offset; /* bytes from the start of the parameter block */
  int bytes;
} umc_field;

#define UMC_MAX_FIELDS (8 * UM_MAX_ARGS + 16)

typedef struct {
  umc_exec exec;
  int colour_loop;            /* hierarchical: the thread-colour loop is emitted          */
  int kernel_in_colour_loop;  /* hierarchical: RW/WRITE through a map: the whole call is
                                 made one thread colour at a time                        */
  int has_reduction;
  umc_pass pass[UM_MAX_ARGS];
  umc_apply apply[UM_MAX_ARGS];
  int reg_values[UM_MAX_ARGS];/* register array length (values), 0 if none               */
  int loc_slot[UM_MAX_ARGS];  /* hierarchical: local-index slot of the arg, -1            */
  /* a direct arg whose dat an earlier direct arg b also passes: b, whose shared-memory (sd<b>) or register (r<b>)
   * copy its pointer goes to, so that the two alias as on the host; -1: its own copy (umc_decide) */
  int copy_of[UM_MAX_ARGS];
  int ind_staged[UM_MAX_ARGS];   /* hierarchical: the ind lives in shared memory          */
  int ind_load[UM_MAX_ARGS];     /* staged with the dat's values (else zero: all INC)    */
  int ind_writeback[UM_MAX_ARGS];/* 0 none, 1 add (zero-filled INC), 2 store, 3 atomic add */
  int tlist_used[UM_MAX_ARGS];   /* target list needed on the device                     */
  int nlocs, ntlists;
  int loc_short;              /* local indices stored as 16-bit                           */
  int perm_short;             /* hierarchical element offsets stored as 16-bit            */
  int nfields;
  umc_field fields[UMC_MAX_FIELDS];
  int param_bytes;            /* size of the parameter block                              */
  int direct_shared_bytes;    /* static shared memory of SHARED_DIRECT args               */
  int fused;                  /* the launch is split in two phases (umc_loop.fused)       */
  int contrib_bytes;          /* fused: the contributions' dynamic shared memory, per block
                                 (before the staged data, 16-byte aligned per arg)        */
} umc_decisions;


/* Decide how each argument is passed and lay out the parameter block.
 * Returns UM_SUCCESS, or UM_ERR_ARG / UM_ERR_UNSUPPORTED with a message in err. */
int umc_decide(const umc_loop *L, umc_decisions *D, char *err, size_t errlen);

/* The symbols of a loop's kernels, named after the loop so that profilers (Nsight Compute, Nsight Systems)
 * show which loop a kernel is: "um_loop_" + the loop's name with every byte outside [A-Za-z0-9_] as '_'
 * ("res_calc:contrib": um_loop_res_calc_contrib), at most UMC_SYMBOL_NAME bytes of it; reduce: the kernel that
 * combines its reductions, "um_reduce_" + the same. No loop name (NULL or ""): um_loop / um_reduce. */
#define UMC_SYMBOL_NAME 96
#define UMC_SYMBOL_MAX (UMC_SYMBOL_NAME + 16)
void umc_kernel_symbol(const char *loop_name, int reduce, char *buf, size_t n);

/* Write the CUDA source of the loop (kernel umc_kernel_symbol(L->loop_name, 0), and (.., 1) when
 * the loop reduces a global). *source is malloc'ed; free it. */
int umc_generate(const umc_loop *L, const umc_decisions *D, char **source, char *err, size_t errlen);

/* cuda.warp_combine: fills L->pair_levels for the loop's atomic increments through maps whose rows (maps[m]:
 * the data of map slot m, rows of elements [begin, end)) pair columns (s, t) at an offset of 1 row (levels 1:
 * row r + 1's column t equals row r's column s for over half the rows sampled; hexahedra or quadrilaterals
 * numbered along x: a cell's right face is the next one's left face) or of 1 and 2 rows (levels 2: over 2/5 of
 * the rows; numbered in strips two rows high: y neighbours at offset 1, half the rows, x neighbours at 2).
 * Levels go most frequent first, pairs likewise. Returns the number of argument pairs. Wrong guesses cost time,
 * never results: the kernel compares the rows. */
int umc_find_pairs(umc_loop *L, const int *const *maps, int begin, int end, int levels);

/* Names of the enums above (for messages and the generated comments). */
const char *umc_exec_name(umc_exec e);
const char *umc_pass_name(umc_pass p);

/* The generator's own helpers, shared by its decisions (codegen_decide.c) and its source (codegen.c). */
static inline int umc_tsize(um_type t) { return t == UM_DOUBLE ? 8 : 4; }
static inline int umc_is_write(um_access a) { return a == UM_WRITE || a == UM_RW || a == UM_INC; }
/* A MIN or MAX reduction combines its blocks by one atomic each on an ordered integer key (um_reduce only reads
 * the row and resets it): exact in any order, so no partial rows to fold; sums keep their rows, in order. */
static inline int umc_red_atomic(um_access a) { return a == UM_MIN || a == UM_MAX; }
/* The key of the identity an atomic MIN (MAX) row starts from and is reset to, as stored (8 or 4 bytes). */
static inline long long umc_red_identity_key(um_access a, um_type t) {
  const long long big = t == UM_DOUBLE ? 0x7fffffffffffffffLL : 0x7fffffffLL;
  return a == UM_MIN ? big : -big - 1;
}

/* The kernels that pack and unpack halo rows (distributed runs): one thread per
 * value; arguments (T *dat, T *buffer, const int *rows, int n, int dim,
 * long long soa_stride, 0 for AoS). OUT: buffer[k*dim+c] = row rows[k] of the
 * dat; IN: the reverse; ADD: the reverse, added (by type). */
typedef enum {
  UMC_HALO_OUT4, UMC_HALO_OUT8, UMC_HALO_IN4, UMC_HALO_IN8, UMC_HALO_ADD_D, UMC_HALO_ADD_F, UMC_HALO_ADD_I,
  UMC_GATHER_D, UMC_GATHER_F, UMC_GATHER_I, /* (T *dat, const T *const *src, const int *rows, const int *off, const int *ent,
                                               int ntargets, int nsrc, int dim, long long soa_stride,
                                               long long src_soa_stride, unsigned long long neg) */
  UMC_XSUM_D, UMC_XSUM_F,     /* (const T *v, int n, int dim, int c, long long soa_stride, unsigned long long *words) */
  UMC_FILL4, UMC_FILL8,       /* (T *p, long long n, T bits): n values set to the bit pattern (-0.0: halo copies) */
  UMC_HALO_KERNELS
} umc_halo_kernel;
#define UMC_HALO_KERNEL_NAMES                                                                             \
  {"um_rows_out4", "um_rows_out8", "um_rows_in4", "um_rows_in8", "um_rows_add_d", "um_rows_add_f", "um_rows_add_i", \
   "um_gather_d", "um_gather_f", "um_gather_i", "um_xsum_d", "um_xsum_f", "um_fill4", "um_fill8"}
const char *umc_halo_source(void);

#ifdef __cplusplus
}
#endif
#endif
