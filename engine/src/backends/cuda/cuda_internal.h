/* The CUDA backend's private declarations, shared by its files:
 *   cuda.c          registration, availability, init / finalize, the device description
 *   profiles.c      device profiles, the strategy rule, staging
 *   device_data.c   dats, maps and constants on the GPU
 *   kernel_build.c  describing a loop to the generator, compiling it, its plan arrays
 *   codegen_api.c   um/cuda.h: generating and compiling a loop's kernel without a GPU
 *   launch.c        running a loop
 *   timing.c        CUDA events, synchronisation
 *   device_info.c   um_context_device_info, the copy benchmark
 *   cuda_error.c    the CUDA error wrapper (cu_fail)
 *   halo.c          halo rows packed and unpacked on the GPU (distributed runs)
 *   devmsg.c        halo messages GPU to GPU: the backend's side of a device transport (distributed/transport_cuda.h)
 *   graph.c         CUDA graphs of repeated loop sequences (cuda.graphs)
 */
#ifndef UM_CUDA_INTERNAL_H
#define UM_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include "../../plan/plan.h"
#include "codegen.h"
#include "distributed/transport_cuda.h"
#include "jit.h"
#include "um/backend.h"

#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
#error "the um CUDA backend needs a CUDA 12 or newer toolkit (the runtime's library API)"
#endif

/* What is staged in shared memory per plan block (option cuda.staging). */
typedef enum {
  CU_STAGING_AUTO = 0, /* the profile's default for the strategy */
  CU_STAGING_INC = 1,  /* incremented data only                  */
  CU_STAGING_ALL = 2,  /* all indirect data                      */
  CU_STAGING_NONE = 3  /* none: atomics straight to the dat      */
} cu_staging;

/* Threads of the one-block kernel that combines reduction partials; the
 * generator (codegen.c) sizes its shared arrays from the same constant. */
#define CU_REDUCE_THREADS UMC_REDUCE_THREADS

typedef struct {
  const char *name;    /* config value */
  const char *gpu;     /* what the device name contains */
  int sm;              /* compute capability x 10 */
  int nsm;             /* multiprocessors */
  int smem_optin;      /* shared memory per block, opt-in maximum (bytes) */
  int smem_sm;         /* shared memory per multiprocessor */
  double bw;           /* peak memory bandwidth, GB/s */
  um_strategy strategy;/* default for strategy: auto */
  cu_staging staging;         /* default staging of hierarchical */
  cu_staging atomics_staging; /* default staging of atomics      */
} cu_profile;

/* ---- state -------------------------------------------------------------------- */

typedef struct {
  void *d;          /* device copy (layout = the dat's layout; where it is valid: um_dat_valid) */
  size_t bytes;
} cu_dat;

typedef struct {
  const um_map *map;
  int *d;
} cu_map;

/* How a loop runs: chosen from its strategy, its arguments and the staging. */
typedef struct {
  umc_exec exec;
  int stage_all;     /* hierarchical: stage all indirect data */
  int block_atomics; /* hierarchical blocks, shared-memory atomics, no colouring */
  int fused;         /* hierarchical: run.split fused (umc_loop.fused) */
  int one_to_one;    /* flat: writes through one-to-one maps (um_loop.one_to_one), plain */
  int min_blocks;    /* > 0: launch bounds ask for this many resident blocks per SM (fewer registers per thread):
                        the loop's variants 1 and 2 (one or two blocks more than its default kernel's) */
  int warp_combine;  /* cuda.warp_combine, the levels umc_find_pairs looks for (0 none): in flat atomics,
                        increments to one row from neighbouring threads added by warp shuffles first */
} cu_mode;

typedef struct {
  const um_kernel *kernel;
  const um_set *set;
  int begin, end;
  int nargs, exec, threads, stage_all, block_atomics, fused, one_to_one, min_blocks, warp_combine;
  struct {
    const void *dat, *map, *gbl_type;
    int idx, acc, dim, type, soa, gbl, minus;
  } a[UM_MAX_ARGS];
} cu_key;

typedef struct {
  int start, n, grid, part;
} cu_launch;

typedef struct {
  cu_key key;
  char *name;
  umc_loop L;
  umc_decisions D;
  const um_dat *dats[UM_MAX_ARGS];
  const um_map *maps[UM_MAX_ARGS];
  cudaLibrary_t lib;
  cudaKernel_t kloop, kreduce;
  int threads;
  size_t shmem;
  double occupancy; /* theoretical: resident warps per SM / the SM's maximum */
  int registers;    /* per thread, as the compiled kernel declares (cudaFuncGetAttributes) */
  int blocks_per_sm; /* resident blocks per SM (the occupancy's), 0 if not known */
  int nlaunch;
  cu_launch *launch;
  int nparts;
  /* plan-derived device arrays; hierarchical plans of a range [base, ...) index perm and loc from 0 */
  int base;
  void *perm, *blocks, *boff, *coff, *cols;
  void *toff[UM_MAX_ARGS], *tgt[UM_MAX_ARGS], *loc[UM_MAX_ARGS];
  /* reductions: partial rows (device) and results (mapped host memory) */
  void *part[UM_MAX_ARGS], *res_host[UM_MAX_ARGS], *res_dev[UM_MAX_ARGS];
  unsigned char *params;
} cu_kern;

typedef struct {
  int rec;          /* the loop's id (um_backend_loop_time) */
  const char *name; /* its kernel's name, for messages */
  cudaEvent_t start, stop;
  unsigned char owned; /* 1: start, 2: stop belong to a CUDA graph (graph.c), not to the event pool */
} cu_timing;

#define MAX_PENDING 2048

/* A halo exchange sent GPU to GPU (devmsg.c): the group's start and end on the communication stream,
 * and where the compute stream's work before the wait ended (core elements). */
typedef struct {
  int id;      /* the loop record */
  int waited;  /* cu_transport_wait has ordered the compute stream after it: its events complete at the next sync */
  cudaEvent_t start, stop, core;
} cu_halo_timing;
#define CU_MAX_HALO_TIMINGS 64

/* CUDA graphs (graph.c): an op of the current segment: a kernel launch, a timing event, or (halos GPU to GPU,
 * devmsg.c) an exchange posted on the communication stream and the compute stream's wait for it */
typedef enum { CG_KERNEL = 0, CG_EVENT = 1, CG_POST = 2, CG_WAIT = 3 } cg_kind;
#define CG_MAX_ARGS 8
typedef struct {
  cg_kind kind;
  int loop;             /* the loop record (-1: none) */
  int start;            /* event: 0 the loop's end; its start: 1 of a call's first piece (counts a call), 2 of a later piece */
  cudaKernel_t f;       /* kernel */
  unsigned grid, block;
  size_t shmem;
  int pbytes;           /* kernel: its parameters at poff in the segment's (or graph's) arena: one block (nargs 0), */
  int nargs;            /* or nargs parameters of 8 bytes or fewer, each in an 8-byte slot */
  size_t poff;
  cudaEvent_t ev;       /* event; post: the exchange's start (communication stream); wait: the core work's end */
  cudaEvent_t ev2;      /* post and wait: the exchange's end (communication stream) */
  int pend;             /* event: its timing entry (S->pending) */
  int x;                /* post: the exchange (S->xg; its NCCL group captured); wait: its post in this segment (-1: none) */
  const char *name;     /* for messages */
} cg_op;

/* A halo exchange sent by a device transport (NCCL), as the communication stream runs it: its messages (the device buffers, sizes,
 * peers and tags), how often it was posted, and from its second post on, its message group captured as a CUDA graph
 * (graph.c replays it alone or inside a segment's graph). Capturing is uniform over the ranks, as NCCL requires:
 * every rank posts the same exchanges in the same order, tags are the same on every rank, and the buffers are
 * reallocated on every rank at once (their sizes come from global halo totals: dist_exchange.c), each time
 * starting a new generation of exchanges. */
typedef struct {
  int id, n, gen;
  um_transport_msg *msgs;
  long seen;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
} cu_xgraph;

/* A segment structure seen before; with a graph once seen twice. */
typedef struct {
  int nops;
  cg_op *ops;           /* structure, and the values the graph's nodes hold */
  unsigned char *arena; /* their parameter blocks */
  cudaGraphNode_t *nodes;
  cudaEvent_t *own;     /* the graph's own events, per event op */
  long synced_at;       /* S->syncs when last launched: a later sync has read its events' times */
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  int failed;           /* could not be built: issued op by op */
  long replays;
} cg_graph;

typedef struct {
  cg_op *ops;           /* the current segment */
  int nops, capops;
  unsigned char *arena;
  size_t used, cap;
  cg_graph *graphs;
  int ngraphs, capgraphs;
  int nkernels;         /* kernel ops in the current segment */
  long launches, updates, segments, short_segments, replayed_kernels;
  int warned;
} cg_segment;

typedef struct {
  int device;
  struct cudaDeviceProp prop;
  int arch;                /* device compute capability x 10 */
  int jit_arch, jit_ptx;   /* what NVRTC builds for it */
  cudaStream_t stream;
  const cu_profile *profile;
  cu_profile auto_profile;
  cu_staging staging;      /* cuda.staging (AUTO: the profile's) */
  char desc[512];
  char cache_dir[1024];
  int dump, poison, no_fma;
  cu_kern **kerns;
  int nkerns, capkerns;
  cu_map *maps;
  int nmaps, capmaps;
  cu_timing pending[MAX_PENDING];
  int npending;
  cudaEvent_t *free_events;
  int nfree, capfree;
  double copy_gbs;
  /* distributed halos (halo.c): the kernels, and the row lists on the device */
  cudaLibrary_t halo_lib;
  cudaKernel_t halo_k[UMC_HALO_KERNELS];
  struct {
    const int *h;
    int n;
    void *d;
  } *lists;
  int nlists, caplists;
  struct { /* gathers of split loops: their inverse maps and source lists on the device, by um_gather.key */
    unsigned long key;
    void *rows, *off, *ent, *src;
    const um_dat *srcd[UM_MAX_ARGS]; /* the sources src holds (um_arg_minus may change them under one key) */
  } *gathers;
  int ngathers, capgathers;
  void *xsum_words;        /* exact sums: the device accumulator (UM_XSUM_WORDS words) */
  /* halos GPU to GPU (devmsg.c): the device transport's group and close (NULL: none open) and their argument,
   * the communication stream, and the exchanges whose times are not read yet */
  cu_transport_group tgroup;
  void (*tclose)(void *arg);
  void *targ;
  cudaStream_t comm_stream;
  cudaEvent_t halo_ready;
  cu_halo_timing halo_t[CU_MAX_HALO_TIMINGS];
  int nhalo_t;
  cu_xgraph *xg;           /* with cuda.graphs: the exchanges posted so far */
  int nxg, capxg, xg_gen;  /* xg_gen: the message buffers' generation (cu_dev_alloc starts a new one) */
  const char *last_loop;   /* for messages about asynchronous failures (a kernel's name) */
  int graphs;              /* cuda.graphs: loops recorded into segments, replayed as CUDA graphs (graph.c) */
  int graph_min;           /* cuda.graph_min_kernels: shorter segments are not made graphs */
  int compile_threads;     /* cuda.compile_threads: 0 one per core, 1 none ahead (prepare.c) */
  int max_registers;       /* cuda.max_registers: registers per thread through launch bounds, 0 the compiler's choice */
  int warp_combine;        /* cuda.warp_combine: 0 off, 1 pairs one element apart, 2 also two apart */
  int upload_threads;      /* cuda.upload_threads: host threads staging large uploads through pinned memory (upload.c) */
  struct cu_stager *stager; /* their streams and pinned buffers, made at the first large upload */
  size_t uploaded;         /* bytes copied host -> device so far (upload.c stages only past a first amount) */
  long syncs;              /* synchronisations so far (each reads every pending time) */
  int cur_loop;            /* the loop record cu_run is running (-1 outside): dat uploads are counted to it */
  cg_segment cg;
} cu_state;

/* The backend's state; counters it keeps per loop (def->counters order). */
#define ST(ctx) ((cu_state *)um_context_backend_state(ctx))
enum { CU_COUNTER_COMPILE = 0, CU_COUNTER_MODULES, CU_COUNTER_CACHED, CU_COUNTER_OCCUPANCY, CU_COUNTER_HALO_POST,
       CU_COUNTER_GRAPHED, CU_COUNTER_UPLOAD, CU_COUNTER_REGISTERS, CU_COUNTER_UPLOAD_SECONDS,
       CU_COUNTER_UPLOAD_STAGED };

/* A CUDA runtime call; its own error text reaches the user. */
#define CU(ctx, call, ...)                                                                              \
  do {                                                                                                  \
    cudaError_t cu_e_ = (call);                                                                         \
    if (cu_e_ != cudaSuccess) return cu_fail((ctx), cu_e_, __FILE__, __LINE__, __VA_ARGS__);            \
  } while (0)

/* cuda_error.c */
int cu_fail(um_context *ctx, cudaError_t e, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* profiles.c */
int cu_choose_profile(um_context *ctx, cu_state *S);
int cu_strategy(um_context *ctx, void *state, um_strategy want, um_strategy *out);
cu_staging cu_staging_for(const cu_state *S, um_strategy s);
/* device_data.c */
int cu_dalloc(um_context *ctx, void **p, size_t bytes, const char *what, const char *name);
int cu_upload(um_context *ctx, void **d, const void *h, size_t bytes, const char *what, const char *name);
/* upload.c: bytes from host h to device d, ordered on the main stream (large ones staged by several threads) */
int cu_copy_in(um_context *ctx, void *d, const void *h, size_t bytes, const char *what, const char *name);
void cu_stager_free(struct cu_stager *G);
void cu_dfree(void **p);
cu_dat *cu_dat_state(const um_dat *d);
int cu_dat_on_device(um_context *ctx, um_dat *d);
int cu_dat_to_host(um_context *ctx, void *state, um_dat *d);
int cu_dat_keep(um_context *ctx, void *state, um_dat *d, void **copy);
int cu_dat_restore(um_context *ctx, void *state, um_dat *d, void *copy);
void cu_dat_drop(um_context *ctx, void *state, void **copy);
int cu_dat_to_device(um_context *ctx, void *state, um_dat *d);
int cu_map_on_device(um_context *ctx, const um_map *m, int **out);
int cu_prefetch(um_context *ctx, void *state, um_dat *const *dats, int n, double *bytes);
int cu_publish_const(um_context *ctx, cu_kern *k, const char *name, int dim, um_type type, const void *data);
int cu_const_changed(um_context *ctx, void *state, const char *name, int dim, um_type type, const void *data);
/* kernel_build.c */
cu_mode cu_choose_mode(const um_loop *loop, um_strategy s, cu_staging staging);
int cu_threads_for(um_context *ctx, const um_loop *loop, umc_exec exec, int *threads);
int cu_describe(um_context *ctx, const um_loop *loop, cu_mode mode, int threads, int layout, umc_loop *L,
                const um_dat **dats, const um_map **maps);
int cu_gen_source(um_context *ctx, const umc_loop *L, umc_decisions *D, char **src);
void cu_jit_request(um_context *ctx, const um_kernel *k, const char *name, const char *src, int arch, int ptx,
                    const char *cache, int dump, const char *hn[2], const char *hs[2], umj_request *rq);
int cu_load_module(um_context *ctx, const umj_request *rq, const char *what, cudaLibrary_t *lib, int *from_cache);
void cu_make_key(const um_loop *loop, cu_mode mode, int threads, cu_key *k);
/* strategy -> mode and staging -> threads -> key, the one way cu_run, cu_prepare and the variants do it */
int cu_loop_settings(um_context *ctx, cu_state *S, const um_loop *loop, cu_mode *mode, int *threads, cu_key *key);
size_t cu_key_bytes(const cu_key *k);
void cu_kern_free(cu_kern *k);
int cu_build_kern(um_context *ctx, um_loop *loop, cu_mode mode, int threads, const cu_key *key, cu_kern **out);
/* launch.c */
int cu_run(um_context *ctx, void *state, um_loop *loop);
/* timing.c: lazy reductions' marks (an event after the loop that reduced) */
int cu_reduction_mark(um_context *ctx, void *state, void **mark);
int cu_reduction_wait(um_context *ctx, void *state, void *mark);
void cu_reduction_mark_free(um_context *ctx, void *state, void *mark);
/* The loop's kernel built already (the same key), or NULL. */
cu_kern *cu_find_kern(cu_state *S, const cu_key *key);
/* Compiling ahead (prepare.c, um_backend_def.prepare). */
int cu_prepare(um_context *ctx, void *state, um_loop *const *loops, int n);
/* halo.c */
int cu_rows_out(um_context *ctx, void *state, um_dat *d, const int *rows, int n, void *out);
int cu_rows_in(um_context *ctx, void *state, um_dat *d, const int *rows, int n, const void *in, int add);
int cu_rows_zero(um_context *ctx, void *state, um_dat *d, int begin, int end);
void *cu_host_alloc(um_context *ctx, void *state, size_t bytes);
void cu_host_free(void *p);
void *cu_dev_alloc(um_context *ctx, void *state, size_t bytes);
void cu_dev_free(void *p);
void cu_halo_free(cu_state *S);
int cu_gather(um_context *ctx, void *state, const um_gather *g);
int cu_exact_sum(um_context *ctx, void *state, um_dat *d, int n, long long *words);
/* devmsg.c (the rest of it: distributed/transport_cuda.h): the device transport's end, at finalize */
void cu_peer_close(cu_state *S);
/* devmsg.c, for graph.c: issue an exchange's post / wait on the streams now; an exchange's captured group */
int cu_peer_issue_post(um_context *ctx, cu_state *S, int id, const cu_xgraph *x, cudaEvent_t start, cudaEvent_t stop);
int cu_peer_issue_wait(um_context *ctx, cu_state *S, cudaEvent_t core, cudaEvent_t stop);
/* graph.c: with cuda.graphs on, launches and timing events are recorded and issued by cu_flush, which every
 * other use of the stream calls first; off, they are issued at once */
int cu_graph_kernel(um_context *ctx, cu_state *S, int loop, cudaKernel_t f, unsigned grid, unsigned block,
                    size_t shmem, void *params, int pbytes, const char *name);
int cu_graph_event(um_context *ctx, cu_state *S, int loop, int start, cudaEvent_t ev, int pend);
/* graphs on: record a kernel of nargs parameters (args[i] points at one of sizes[i] <= 8 bytes) */
int cu_graph_kernel_args(um_context *ctx, cu_state *S, cudaKernel_t f, unsigned grid, unsigned block, void **args,
                         const int *sizes, int nargs, const char *name);
/* halos GPU to GPU: the exchange x posted (its group's start and end events) and the compute stream's wait */
int cu_graph_post(um_context *ctx, cu_state *S, int id, int x, cudaEvent_t start, cudaEvent_t stop);
int cu_graph_wait(um_context *ctx, cu_state *S, int id, cudaEvent_t core, cudaEvent_t stop);
int cu_flush(um_context *ctx, cu_state *S);
void cu_graph_free(um_context *ctx, cu_state *S);
/* timing.c */
int cu_get_event(um_context *ctx, cudaEvent_t *ev);
int cu_put_event(um_context *ctx, cudaEvent_t ev);
int cu_sync(um_context *ctx, void *state);
/* device_info.c */
int cu_device_info(um_context *ctx, void *state, um_device_info *out);

#endif
