/* CUDA graphs of repeated loop sequences (option cuda.graphs).
 *
 * With graphs on, a loop's launches and timing events are not issued when um_par_loop is called:
 * they are recorded into the current *segment*. A segment ends wherever the host must see the
 * device's work or queue something else on the stream: a reduction read back, a fetch, um_sync,
 * a halo exchange through host memory, a split loop's gather, a constant changed, a new kernel built
 * (every entry point of the backend but the loops, the halo kernels and NCCL's posts and waits calls
 * cu_flush first). At its end the segment is compared,
 * op by op, with the segments seen before: kernels, grids, blocks, shared memory and parameter block
 * sizes (the structure), not the parameter values.
 *   - first time: the ops are issued one by one, as without graphs, and the structure is kept;
 *   - second time: a CUDA graph is built from the ops (a chain of kernel and event-record nodes),
 *     instantiated, and launched;
 *   - later: the instantiated graph is launched again, after updating the kernel nodes whose
 *     parameter values changed (a global READ argument passed by value, a dat reallocated). Every
 *     loop keeps its own device time: the graph records its own events, which the segment's timing
 *     entries take over when a synchronisation has read them since the graph's last launch (else
 *     the event nodes are pointed at the segment's pool events).
 * Halos sent GPU to GPU with NCCL do not end a segment: the packing and unpacking kernels are recorded like
 * loops', and an exchange is recorded as two ops, its post (the communication stream waits for the packing,
 * runs the NCCL group, records its end) and the compute stream's wait (after the core elements). In a graph
 * the post is a child graph -- the NCCL group captured once per exchange (devmsg.c) -- beside the core kernels,
 * and the wait joins the two branches: a whole step, exchanges included, is one graph launch. A segment is
 * made a graph only when each of its exchanges is waited for within it.
 * Results are the same bits as plain launches (same kernels, same parameters, same order). What a
 * graph saves is the host's launch work and the gaps between kernels: it pays on loops of small sets.
 * The cost is that a segment's work starts on the GPU only when the segment ends. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"

#define CG_MAX_OPS 4096 /* a longer segment is ended there */
#define CG_MAX_GRAPHS 256 /* structures kept (seen once, or with a graph) */
#define CG_PERIOD_MIN 32  /* ops before a loop that began the segment may begin the next one */
/* S->graph_min (cuda.graph_min_kernels, default 1): shorter segments are launched one by one. Measured on an
 * H100 (docs/benchmarks.md, "CUDA graphs"): a threshold of 8 made no case faster and left Airfoil's 5-kernel
 * stages recorded but never replayed (2-10% slower), hence 1 */

static unsigned char *op_params(const cu_state *S, const cg_op *o) { return S->cg.arena + o->poff; }

/* A kernel op's parameter pointers into arena: its one block, or its nargs 8-byte slots. */
static void op_args(unsigned char *arena, const cg_op *o, void **args) {
  if (!o->nargs) args[0] = arena + o->poff;
  for (int i = 0; i < o->nargs; i++) args[i] = arena + o->poff + 8 * (size_t)i;
}

static int record(um_context *ctx, cu_state *S, const cg_op *o, const void *params) {
  cg_segment *G = &S->cg;
  if (G->nops == CG_MAX_OPS) UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  if (UM_GROW(G->ops, G->capops, G->nops)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  cg_op *d = &G->ops[G->nops];
  *d = *o;
  d->poff = G->used;
  if (o->pbytes && params) {
    size_t need = G->used + (size_t)o->pbytes;
    if (need > G->cap) {
      size_t cap = G->cap ? G->cap : 4096;
      while (cap < need) cap *= 2;
      unsigned char *a = realloc(G->arena, cap);
      if (!a) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
      G->arena = a;
      G->cap = cap;
    }
    memcpy(G->arena + G->used, params, (size_t)o->pbytes);
    G->used = need;
  }
  G->nops++;
  if (o->kind == CG_KERNEL) G->nkernels++;
  return UM_SUCCESS;
}

/* One launch on the stream of a kernel op's parameters (args from op_args): a loop's, or (nargs) a halo kernel's. */
static int launch(um_context *ctx, cu_state *S, cudaKernel_t f, unsigned grid, unsigned block, size_t shmem,
                  void **args, int nargs, const char *name) {
  dim3 g = {grid, 1, 1}, b = {block, 1, 1};
  CU(ctx, cudaLaunchKernel((const void *)f, g, b, args, shmem, S->stream),
     "launching %s%s%s (%u blocks of %u threads, %zu bytes of shared memory)", nargs ? "" : "loop '", name,
     nargs ? "" : "'", grid, block, shmem);
  return UM_SUCCESS;
}

int cu_graph_kernel(um_context *ctx, cu_state *S, int loop, cudaKernel_t f, unsigned grid, unsigned block,
                    size_t shmem, void *params, int pbytes, const char *name) {
  if (!S->graphs) {
    void *args[1] = {params};
    return launch(ctx, S, f, grid, block, shmem, args, 0, name);
  }
  cg_op o = {.kind = CG_KERNEL, .loop = loop, .f = f, .grid = grid, .block = block, .shmem = shmem, .pbytes = pbytes,
             .name = name, .x = -1};
  return record(ctx, S, &o, params);
}

int cu_graph_kernel_args(um_context *ctx, cu_state *S, cudaKernel_t f, unsigned grid, unsigned block, void **args,
                         const int *sizes, int nargs, const char *name) {
  if (nargs < 1 || nargs > CG_MAX_ARGS) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "%s: %d parameters to record", name, nargs);
  unsigned char slots[8 * CG_MAX_ARGS];
  memset(slots, 0, sizeof slots);
  for (int i = 0; i < nargs; i++) {
    if (sizes[i] < 1 || sizes[i] > 8) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "%s: a parameter of %d bytes", name, sizes[i]);
    memcpy(slots + 8 * i, args[i], (size_t)sizes[i]);
  }
  cg_op o = {.kind = CG_KERNEL, .loop = -1, .f = f, .grid = grid, .block = block, .pbytes = 8 * nargs, .nargs = nargs,
             .name = name, .x = -1};
  return record(ctx, S, &o, slots);
}

int cu_graph_post(um_context *ctx, cu_state *S, int id, int x, cudaEvent_t start, cudaEvent_t stop) {
  cg_op o = {.kind = CG_POST, .loop = id, .x = x, .ev = start, .ev2 = stop, .name = "a halo exchange"};
  return record(ctx, S, &o, NULL);
}

/* The wait for the last post not waited for in this segment (x -1: it was posted in an earlier one). */
int cu_graph_wait(um_context *ctx, cu_state *S, int id, cudaEvent_t core, cudaEvent_t stop) {
  const cg_segment *G = &S->cg;
  int x = -1;
  for (int i = G->nops - 1; i >= 0 && x < 0; i--)
    if (G->ops[i].kind == CG_POST && G->ops[i].ev2 == stop) x = i;
  cg_op o = {.kind = CG_WAIT, .loop = id, .x = x, .ev = core, .ev2 = stop, .name = "a halo wait"};
  return record(ctx, S, &o, NULL);
}

int cu_graph_event(um_context *ctx, cu_state *S, int loop, int start, cudaEvent_t ev, int pend) {
  if (!S->graphs) {
    CU(ctx, cudaEventRecord(ev, S->stream), "recording a timing event");
    return UM_SUCCESS;
  }
  /* an app that never reads a result back between steps (a fixed time step) would make one long segment
   * cut at CG_MAX_OPS, at a different place in each step: never the same twice. A segment ends instead
   * where the loop that began it begins again (a step, or a stage of one): periods that repeat */
  const cg_segment *G = &S->cg;
  if (start && G->nops >= CG_PERIOD_MIN && G->ops[0].kind == CG_EVENT && G->ops[0].start && G->ops[0].loop == loop)
    UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  cg_op o = {.kind = CG_EVENT, .loop = loop, .start = start, .ev = ev, .pend = pend};
  return record(ctx, S, &o, NULL);
}

/* The same structure: every op of the same kind, kernel, launch shape and parameter size. */
static int same_shape(const cg_op *a, const cg_op *b, int n) {
  for (int i = 0; i < n; i++) {
    if (a[i].kind != b[i].kind || a[i].loop != b[i].loop || a[i].start != b[i].start) return 0;
    if (a[i].kind == CG_KERNEL && (a[i].f != b[i].f || a[i].grid != b[i].grid || a[i].block != b[i].block ||
                                   a[i].shmem != b[i].shmem || a[i].pbytes != b[i].pbytes || a[i].nargs != b[i].nargs))
      return 0;
    if ((a[i].kind == CG_POST || a[i].kind == CG_WAIT) && a[i].x != b[i].x) return 0;
  }
  return 1;
}

static cg_graph *find_graph(cu_state *S) {
  const cg_segment *G = &S->cg;
  for (int i = 0; i < G->ngraphs; i++) {
    cg_graph *g = &G->graphs[i];
    if (g->nops == G->nops && same_shape(g->ops, G->ops, G->nops)) return g;
  }
  return NULL;
}

/* Keep the segment's structure and parameter values (the values the graph's nodes will hold). */
static int keep_shape(um_context *ctx, cu_state *S, cg_graph *g) {
  const cg_segment *G = &S->cg;
  g->ops = malloc((size_t)G->nops * sizeof *g->ops);
  g->arena = malloc(G->used ? G->used : 1);
  if (!g->ops || !g->arena) { /* an empty shape: matches no segment */
    g->failed = 1;
    return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  }
  g->nops = G->nops;
  memcpy(g->ops, G->ops, (size_t)G->nops * sizeof *g->ops);
  memcpy(g->arena, G->arena, G->used);
  return UM_SUCCESS;
}

static int issue_direct(um_context *ctx, cu_state *S) {
  const cg_segment *G = &S->cg;
  for (int i = 0; i < G->nops; i++) {
    const cg_op *o = &G->ops[i];
    if (o->kind == CG_EVENT) {
      CU(ctx, cudaEventRecord(o->ev, S->stream), "recording a timing event");
      continue;
    }
#ifdef UM_HAVE_NCCL
    if (o->kind == CG_POST) {
      UM_BACKEND_CHECK(ctx, cu_peer_issue_post(ctx, S, o->loop, &S->xg[o->x], o->ev, o->ev2));
      continue;
    }
    if (o->kind == CG_WAIT) {
      UM_BACKEND_CHECK(ctx, cu_peer_issue_wait(ctx, S, o->ev, o->ev2));
      continue;
    }
#else
    if (o->kind == CG_POST || o->kind == CG_WAIT) continue; /* never recorded without NCCL */
#endif
    void *args[CG_MAX_ARGS];
    op_args(G->arena, o, args);
    UM_BACKEND_CHECK(ctx, launch(ctx, S, o->f, o->grid, o->block, o->shmem, args, o->nargs, o->name));
  }
  return UM_SUCCESS;
}

/* A segment can be a graph when each exchange posted in it is waited for in it, and each wait's post is in it
 * (a post is recorded only once its NCCL group is captured: devmsg.c). */
static int graphable(const cg_segment *G) {
  int open = 0;
  for (int i = 0; i < G->nops; i++) {
    const cg_op *o = &G->ops[i];
    if (o->kind == CG_WAIT && o->x < 0) return 0;
    open += o->kind == CG_POST ? 1 : o->kind == CG_WAIT ? -1 : 0;
  }
  return open == 0;
}

static void free_own(cg_graph *g) {
  for (int i = 0; g->own && i < g->nops; i++)
    if (g->own[i]) cudaEventDestroy(g->own[i]);
  free(g->own);
  g->own = NULL;
}

static struct cudaKernelNodeParams node_params(const cg_op *o, void **args) {
  struct cudaKernelNodeParams p;
  memset(&p, 0, sizeof p);
  p.func = (void *)o->f;
  p.gridDim.x = o->grid;
  p.gridDim.y = p.gridDim.z = 1;
  p.blockDim.x = o->block;
  p.blockDim.y = p.blockDim.z = 1;
  p.sharedMemBytes = (unsigned)o->shmem;
  p.kernelParams = args;
  return p;
}

/* The graph's nodes, in the segment's order: a chain of kernel and event nodes on the compute stream's side; an
 * exchange's post branches off it (start event, the captured NCCL group as a child graph, end event) and its
 * wait joins the two (the core elements' end event, then an empty node after both). Node k of op i is
 * nodes[CG_NODES * i + k]. Instantiated. A failure leaves g without a graph (its segments are issued op by op)
 * and says why once. */
#define CG_NODES 3
static int build(um_context *ctx, cu_state *S, cg_graph *g) {
  cudaGraph_t graph = NULL;
  cudaGraphNode_t prev = NULL;
  cudaError_t e = cudaGraphCreate(&graph, 0);
  g->nodes = e == cudaSuccess ? calloc((size_t)g->nops * CG_NODES, sizeof *g->nodes) : NULL;
  g->own = e == cudaSuccess ? calloc((size_t)g->nops, sizeof *g->own) : NULL;
  if (e == cudaSuccess && (!g->nodes || !g->own)) e = cudaErrorMemoryAllocation;
  for (int i = 0; e == cudaSuccess && i < g->nops; i++) {
    cg_op *o = &g->ops[i];
    cudaGraphNode_t *nd = &g->nodes[CG_NODES * i];
    const size_t ndep = prev ? 1 : 0;
    if (o->kind == CG_EVENT) {
      e = cudaEventCreate(&g->own[i]);
      if (e == cudaSuccess) e = cudaGraphAddEventRecordNode(&nd[0], graph, prev ? &prev : NULL, ndep, g->own[i]);
      o->ev = g->own[i];
      prev = nd[0];
    } else if (o->kind == CG_POST) {
      e = cudaGraphAddEventRecordNode(&nd[0], graph, prev ? &prev : NULL, ndep, o->ev);
      if (e == cudaSuccess) e = cudaGraphAddChildGraphNode(&nd[1], graph, &nd[0], 1, S->xg[o->x].graph);
      if (e == cudaSuccess) e = cudaGraphAddEventRecordNode(&nd[2], graph, &nd[1], 1, o->ev2);
    } else if (o->kind == CG_WAIT) {
      e = cudaGraphAddEventRecordNode(&nd[0], graph, prev ? &prev : NULL, ndep, o->ev);
      cudaGraphNode_t both[2] = {nd[0], g->nodes[CG_NODES * o->x + 2]};
      if (e == cudaSuccess) e = cudaGraphAddEmptyNode(&nd[1], graph, both, 2);
      prev = nd[1];
    } else {
      void *args[CG_MAX_ARGS];
      op_args(g->arena, o, args);
      struct cudaKernelNodeParams p = node_params(o, args);
      e = cudaGraphAddKernelNode(&nd[0], graph, prev ? &prev : NULL, ndep, &p);
      prev = nd[0];
    }
  }
  if (e == cudaSuccess) e = cudaGraphInstantiate(&g->exec, graph, 0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (graph) cudaGraphDestroy(graph);
    free(g->nodes);
    g->nodes = NULL;
    free_own(g);
    g->exec = NULL;
    g->failed = 1;
    if (!S->cg.warned) {
      S->cg.warned = 1;
      um_backend_log(ctx, UM_LOG_WARNING, "um cuda: warning: CUDA graphs: cannot build a graph of %d launches (%s); "
                     "those loops are launched one by one", g->nops, cudaGetErrorString(e));
    }
    return UM_SUCCESS;
  }
  g->graph = graph;
  return UM_SUCCESS;
}

/* The segment's timing entry of event op o uses the graph's event ev; its pool event goes back. */
static int take_own(um_context *ctx, cu_state *S, const cg_op *o, cudaEvent_t ev) {
  cu_timing *t = &S->pending[o->pend];
  if (o->start) {
    t->start = ev;
    t->owned |= 1;
  } else {
    t->stop = ev;
    t->owned |= 2;
  }
  return cu_put_event(ctx, o->ev);
}

/* Point the graph's nodes at this segment's values: changed kernel parameters, and events. The graph's
 * own events serve when a synchronisation has read their times since its last launch (the usual case: a
 * segment ends at a read-back): the segment's timing entries then take them and give theirs back to the
 * pool, and no node changes. Otherwise (launched twice without a sync) the event nodes are pointed at the
 * segment's own events, so no time is overwritten before it is read. */
static int update(um_context *ctx, cu_state *S, cg_graph *g) {
  const cg_segment *G = &S->cg;
  const int reuse = S->syncs > g->synced_at;
  for (int i = 0; i < g->nops; i++) {
    const cg_op *o = &G->ops[i];
    cg_op *h = &g->ops[i];
    cudaGraphNode_t *nd = &g->nodes[CG_NODES * i];
    if (o->kind == CG_EVENT) {
      cudaEvent_t want = reuse ? g->own[i] : o->ev;
      if (h->ev != want) CU(ctx, cudaGraphExecEventRecordNodeSetEvent(g->exec, nd[0], want), "updating a CUDA graph's event");
      h->ev = want;
      if (want == g->own[i]) UM_BACKEND_CHECK(ctx, take_own(ctx, S, o, want));
      continue;
    }
    if (o->kind == CG_POST || o->kind == CG_WAIT) { /* the exchange's timing events, this time's */
      if (h->ev != o->ev) CU(ctx, cudaGraphExecEventRecordNodeSetEvent(g->exec, nd[0], o->ev), "updating a CUDA graph's event");
      if (o->kind == CG_POST && h->ev2 != o->ev2)
        CU(ctx, cudaGraphExecEventRecordNodeSetEvent(g->exec, nd[2], o->ev2), "updating a CUDA graph's event");
      h->ev = o->ev;
      h->ev2 = o->ev2;
      continue;
    }
    unsigned char *now = op_params(S, o), *was = g->arena + h->poff;
    if (memcmp(now, was, (size_t)o->pbytes)) {
      memcpy(was, now, (size_t)o->pbytes);
      void *args[CG_MAX_ARGS];
      op_args(g->arena, h, args);
      struct cudaKernelNodeParams p = node_params(h, args);
      CU(ctx, cudaGraphExecKernelNodeSetParams(g->exec, nd[0], &p), "updating the parameters of %s in a CUDA graph",
         o->name);
      S->cg.updates++;
    }
  }
  return UM_SUCCESS;
}

static void count_calls(um_context *ctx, const cg_graph *g) {
  for (int i = 0; i < g->nops; i++)
    if (g->ops[i].kind == CG_EVENT && g->ops[i].start == 1) um_backend_counter_add(ctx, g->ops[i].loop, CU_COUNTER_GRAPHED, 1);
}

int cu_flush(um_context *ctx, cu_state *S) {
  if (!S || !S->cg.nops) return UM_SUCCESS;
  cg_segment *G = &S->cg;
  G->segments++;
  const int can = G->nkernels >= S->graph_min && graphable(G);
  cg_graph *g = can ? find_graph(S) : NULL;
  int rc = UM_SUCCESS;
  if (!can) {
    G->short_segments++;
  } else if (!g && G->ngraphs < CG_MAX_GRAPHS) {
    if (UM_GROW(G->graphs, G->capgraphs, G->ngraphs)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    g = &G->graphs[G->ngraphs++];
    memset(g, 0, sizeof *g);
    rc = keep_shape(ctx, S, g);
    g = NULL; /* first time: issued op by op below */
  } else if (g && !g->exec && !g->failed) {
    /* second time: the graph, holding this segment's values */
    memcpy(g->arena, G->arena, G->used);
    memcpy(g->ops, G->ops, (size_t)G->nops * sizeof *g->ops);
    rc = build(ctx, S, g);
    for (int i = 0; rc == UM_SUCCESS && g->exec && i < g->nops; i++)
      if (G->ops[i].kind == CG_EVENT) rc = take_own(ctx, S, &G->ops[i], g->own[i]);
  } else if (g && g->exec) {
    rc = update(ctx, S, g);
  }
  if (rc == UM_SUCCESS) {
    if (g && g->exec) {
      cudaError_t e = cudaGraphLaunch(g->exec, S->stream);
      if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "launching a CUDA graph of %d loops' launches", g->nops);
      else {
        g->synced_at = S->syncs;
        g->replays++;
        G->launches++;
        G->replayed_kernels += G->nkernels;
        count_calls(ctx, g);
      }
    } else {
      rc = issue_direct(ctx, S);
    }
  }
  G->nops = 0;
  G->nkernels = 0;
  G->used = 0;
  return rc;
}

void cu_graph_free(um_context *ctx, cu_state *S) {
  cg_segment *G = &S->cg;
  if (S->graphs) {
    int built = 0, captured = 0, inside = 0;
    for (int i = 0; i < G->ngraphs; i++) {
      built += G->graphs[i].exec != NULL;
      for (int k = 0; G->graphs[i].exec && k < G->graphs[i].nops; k++) inside += G->graphs[i].ops[k].kind == CG_POST;
    }
    for (int i = 0; i < S->nxg; i++) captured += S->xg[i].exec != NULL;
    um_backend_log(ctx, UM_LOG_INFO, "um cuda: graphs: %ld segments (%ld launched one by one: under %d kernels, or an exchange posted and waited for in two segments), %d "
                   "shapes, %d graphs, %ld graph launches of %.1f kernels on average, %ld parameter updates; %d NCCL exchanges "
                   "captured, %d inside graphs", G->segments, G->short_segments,
            S->graph_min, G->ngraphs, built, G->launches, G->launches ? (double)G->replayed_kernels / G->launches : 0.0,
            G->updates, captured, inside);
  }
  for (int i = 0; i < G->ngraphs; i++) {
    cg_graph *g = &G->graphs[i];
    if (g->exec) cudaGraphExecDestroy(g->exec);
    if (g->graph) cudaGraphDestroy(g->graph);
    free(g->nodes);
    free_own(g);
    free(g->ops);
    free(g->arena);
  }
  free(G->graphs);
  free(G->ops);
  free(G->arena);
  memset(G, 0, sizeof *G);
}
