/** @file um/distributed.h
 * Distributed memory (MPI): starting MPI, distributing a context, halo increments, the GPU transport, partitions.
 * Part of the public API: include um/um.h. */
#ifndef UM_DISTRIBUTED_H
#define UM_DISTRIBUTED_H

#include "um/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- distributed memory (MPI) ---------------------------------------------
 * A run on P ranks declares the whole mesh on every rank, as one process
 * would, then calls um_distribute once before its first loop: the engine
 * partitions a primary set, places the other sets' elements through the maps
 * (OP2's rule), keeps on each rank its owned elements plus an exec halo and a
 * non-exec halo, and from then on exchanges stale halos before the loops that
 * read them and combines reductions across ranks. The app keeps the global
 * view: um_set_size is the global size, um_dat_fetch / um_dat_update take
 * arrays of the whole set (collective calls: every rank makes them; each rank
 * then holds a whole-set array: a convenience for small meshes and tests, where
 * outputs use the blocks below, um_dat_fetch_block), and dats declared later
 * take their global values. um_map_data and um_set_ranges are the local ones. */

/** 1 if this build has MPI. */
int um_mpi_built(void);
/** 1 if this build has the partitioner `name` for um_distribute ("auto", "metis",
 * "rcb", "sfc", "block", "ranges": with MPI; "ptscotch": with MPI and PT-Scotch). */
int um_mpi_partitioner_built(const char *name);
/** Start MPI when the process was launched by mpirun (MPI_Init), so that
 * contexts can be distributed; else (or without MPI) nothing: one process.
 * rank and nranks (may be NULL) say where it runs. */
int um_mpi_start(int *argc, char ***argv, int *rank, int *nranks);
/** 1 if the process was launched by mpirun with more than one rank (whether or
 * not this build can use it): lets a program without MPI refuse clearly. */
int um_mpi_launched(void);
/** This process's rank (0 without MPI). */
int um_mpi_rank(void);
/** The number of ranks (1 without MPI). */
int um_mpi_size(void);
/** Every rank agrees on one status (>= 0): the largest of the ranks' `status`.
 * With timeout_s > 0, returns -1 when the others have not all arrived by then
 * (they wait in a loop for this rank, which failed): the caller then says why
 * and calls um_mpi_abort rather than hang. Without MPI: returns status. */
int um_mpi_agree(int status, double timeout_s);
/** The same agreement for a step of an app that every rank takes where a rank may have stopped before it (a
 * deck or a mesh one rank could not read, before the first loop): the largest status, by messages of tags of their
 * own through rank 0 (never matching a collective another rank has entered meanwhile), or -1 when the others have
 * not all arrived within timeout_s (> 0; <= 0: no limit): the caller then says why and stops (um_mpi_abort).
 * Without MPI: returns status. */
int um_mpi_agree_step(int status, double timeout_s);
/** After a step every rank has reached (collective), the first failure: the lowest rank whose rc is not
 * UM_SUCCESS sends its rc and its message (`mine`) to every rank; returns that rc (UM_SUCCESS where no rank
 * failed), with its message in msg (n bytes, at most 1023 characters sent) and the rank in *who (-1: none). One
 * process: rc, mine and 0. */
int um_mpi_first_failure(int rc, const char *mine, char *msg, size_t n, int *who);
/** End every rank with exit status `status` (MPI_Abort; exit without MPI). */
void um_mpi_abort(int status);
/** End MPI if um_mpi_start started it (MPI_Finalize); else nothing. */
int um_mpi_finish(void);
/** Broadcast n ints from rank 0 to every rank (a no-op on one rank): for
 * drivers that must take one decision (validation on rank 0, say). */
int um_mpi_bcast_int(int *v, int n);
/** Every rank's value of `mine`, in rank order, into all[0 .. um_mpi_size()) on every rank (collective;
 * all[0] = mine on one rank). */
int um_mpi_allgather_double(double mine, double *all);
/** Wait until every rank has arrived (a no-op on one rank). */
int um_mpi_barrier(void);

/** Partition the context's mesh over the MPI ranks (collective; nothing on one
 * rank): primary_set NULL picks the largest set some map points into. The
 * partitioner of the primary set:
 *   - "metis"     k-way of the primary set's graph (elements that share a map
 *                 target, that one element maps to, or that a map of the set to
 *                 itself joins), on rank 0: small whole meshes only;
 *   - "ptscotch"  PT-Scotch's k-way of the same graph, every rank taking part
 *                 (in builds with it);
 *   - "rcb"       recursive coordinate bisection of the elements' points (a
 *                 coordinate dat, or the centroids of its rows an element's map
 *                 reaches: um_context_set_partition_coords), in parallel;
 *   - "sfc"       a Hilbert curve through the same points, cut into P pieces;
 *   - "block"     contiguous ranges of the current numbering;
 *   - "ranges"    no partitioner: every set, not only the primary one, in
 *                 contiguous ranges of its own numbering (element i of a set of
 *                 n on rank floor(i * P / n)); on a mesh declared by blocks,
 *                 each rank owns the blocks it declared (any tiling), nothing
 *                 moves and no owner is asked of another rank: the cheapest
 *                 set-up, for meshes whose sets are numbered alike through space
 *                 (the generators'); an element's exec halo and non-exec halo
 *                 are as for any partition, so results are as for any other.
 *                 Never fails, no budget, no edge cut computed;
 *   - "auto" or NULL: metis for a whole mesh of up to 2^20 elements, rcb for a
 *                 mesh declared by blocks whose primary set has coordinates,
 *                 else ptscotch where built, else rcb where there are
 *                 coordinates, else metis (whole) or block (by blocks).
 * rcb and sfc give parts of exactly the block partitioner's sizes (imbalance at
 * most ceil(N/P) / (N/P)) and depend only on the points and the global numbers,
 * not on which rank holds what. A partitioner that fails (on any rank), runs
 * past the budget (um_context_set_partition_budget) or leaves a part empty gives
 * way to the next of its chain: rcb (where there are coordinates), then block,
 * which is kept whatever it gives; one that leaves parts not connected gives way
 * too, and of those tried the one with the fewest such parts is kept. Every rank
 * takes the same decisions; um_partition_info's note says what was tried, which
 * was used and why. Call after declaring every set and map and before the first
 * loop. A context declared by blocks (um_decl_set_block) is partitioned the same
 * way with no rank holding the whole mesh: "block" keeps the declared blocks,
 * ptscotch partitions the graph the ranks build from their blocks, rcb and sfc
 * the points of their blocks (coordinates of other ranks' targets fetched from
 * them), and metis (which needs the whole graph on one rank) gives way to the
 * chain. METIS runs in a thread that rank 0 waits for at most the budget: past
 * it the run goes on (the thread finishes in the background). For tests only:
 * the environment variable UM_TEST_PARTITION_FAULT =
 * NAME:fail|overrun|hang[,...] (NAME a partitioner) makes it fail, or count as
 * having taken the budget + 1 s (never block, which has no budget), or METIS's
 * thread sleep an hour first (metis:hang). */
int um_distribute(um_context *ctx, const char *primary_set, const char *partitioner);
/** The time budget of um_distribute's partitioner, in seconds of the slowest
 * rank (0: none; default 60, the option mpi.partition_budget_s): a partitioner
 * that takes longer has its parts discarded and the next of its chain is used.
 * METIS (on rank 0) runs in a thread waited for at most the budget, so a METIS
 * that never returns costs the budget and a core; PT-Scotch (collective, in
 * MPI) and rcb / sfc cannot be cut short: the budget is checked when they
 * return. Before um_distribute. */
int um_context_set_partition_budget(um_context *ctx, double seconds);
/** The dat rcb and sfc place the primary set's elements by (NULL or "": the
 * default): 2 or 3 doubles or floats per element of the primary set, or of a
 * set a map from it reaches (the first such map: each element's point is the
 * mean of its targets' rows). The default is the first such dat named like
 * coordinates (x, xy, xyz, coords, coordinates, *coord*, *centre*, *center*,
 * *_x, *_xy, *_xyz), one on the primary set before one on another set, else the
 * first such dat by the same order; without one, rcb and sfc give way to the
 * chain, said in the note. A named dat that cannot serve is an error of
 * um_distribute (UM_ERR_CONFIG). Before um_distribute. */
int um_context_set_partition_coords(um_context *ctx, const char *dat_name);
/** Declares that every loop argument through map m READs (none writes or
 * increments through it). A distribution's exec halo then does not follow m:
 * an element of another rank that reaches this rank's elements only through m
 * is not run here, so the halos and the redundant work of each step shrink
 * where loops only read through a map (a neighbour map such as LULESH's
 * element faces, or an element-to-node map read for coordinates); the targets
 * of the elements a rank runs are still in its halo, through m too. A loop
 * with a WRITE, RW or INC argument through m is refused (UM_ERR_ARG). Before
 * um_distribute: UM_ERR_ARG on a context distributed already. */
int um_map_set_read_only(um_map *m);
/* ---- declaring by blocks: no rank holds the whole mesh -------------------------
 * Instead of declaring the whole mesh on every rank, each rank may declare a
 * contiguous block of every set's global numbering (rank 0 the first block,
 * rank 1 the next, ..., together [0, gsize)), with the map rows of its block in
 * global numbers and the dat rows of its block (um_decl_dat with the block's
 * `count` rows). um_distribute then partitions and migrates without any rank
 * holding a global-sized array (engine/src/distributed/dist_blocks.c): the
 * primary set keeps the declared blocks as its partition ("block"; "ptscotch":
 * PT-Scotch's parts of the graph the ranks build from their blocks), the other
 * sets follow the same rules as a whole declaration, so both give the same
 * layout when the primary set's blocks are the block partitioner's ranges
 * (element i on rank floor(i * nranks / gsize)). Every set of the context is
 * declared by blocks or none is; blocks that do not tile [0, gsize) in rank
 * order are an error of um_distribute on every rank. On one rank (or without
 * MPI) a block is the whole set and these are um_decl_set / um_decl_map. After
 * um_distribute the global view is as with a whole declaration (dats declared
 * then take whole-set values: declare them before to stay with blocks); before
 * it, loops, um_dat_fetch / um_dat_update, um_map_fetch and reorderings of a
 * mesh declared by blocks are refused. Global sizes and numbers are 64-bit: a
 * set declared by blocks may have more than INT_MAX elements over its ranks
 * (um_set_gsize), each rank's part an int. Such a set is refused, with what to
 * use instead, where an int cannot number it: the graph partitioners (METIS's
 * idx_t and PT-Scotch's SCOTCH_Num as built here; the chain goes on to rcb),
 * whole-set fetches (um_dat_fetch, um_map_fetch; fetch by blocks), um_map_fetch_block
 * (its targets are int; um_map_fetch_block64 hands out 64-bit ones) and whole reads
 * (um_hdf5_read_set). */

/** The block partitioner's range of rank `rank` of `nranks` in a set of `gsize` elements (element i on rank
 * floor(i * nranks / gsize)): the block a rank declares to get the same layout as a whole declaration
 * partitioned by "block". gsize may pass INT_MAX (64-bit); UM_ERR_ARG for a bad argument or a block over INT_MAX
 * elements (then run on more ranks). */
int um_block_range(long long gsize, int rank, int nranks, long long *begin, int *count);
/** Declare set `name` of `gsize` elements over all ranks, of which this rank
 * declares the block [begin, begin + count) (collective in effect: every rank
 * declares the same sets in the same order). gsize may pass INT_MAX (global
 * numbers are 64-bit; um_set_gsize gives it, um_set_size then -1), count is an
 * int. On one rank the block must be the whole set: a plain um_decl_set. */
int um_decl_set_block(um_context *ctx, long long gsize, long long begin, int count, const char *name, um_set **out);
/** Declare map `name` from a set declared by blocks: `targets` holds this
 * rank's rows, um_set_size-local count(from) * arity entries, each a 0-based
 * global number of the to-set (< its gsize). Both sets are declared by blocks
 * (or neither: then a plain um_decl_map). */
int um_decl_map_block(um_context *ctx, um_set *from, um_set *to, int arity, const long long *targets, const char *name,
                      um_map **out);
/** um_decl_map_block handing the rows over: the context takes `targets` (from malloc; freed by the context, at once
 * when the call fails) and turns them into the map's local rows in that buffer at um_distribute (with "ranges"
 * no copy of the rank's rows is made); on one rank the global rows are the local ones, narrowed in place. */
int um_decl_map_block_take(um_context *ctx, um_set *from, um_set *to, int arity, long long *targets, const char *name,
                           um_map **out);
/** um_decl_map_block_take with the rows as 32-bit global numbers, for a to-set of at most INT_MAX elements
 * (UM_ERR_ARG for a larger one): half the memory while the rows are global, and with "ranges" the local rows are
 * made in the same buffer, 4 bytes an entry for 4. The other partitioners widen the rows to 64 bits first. */
int um_decl_map_block_take_i32(um_context *ctx, um_set *from, um_set *to, int arity, int *targets, const char *name,
                               um_map **out);
/** Declare this rank's halo of set `set` (declared by blocks) where the app knows it, as a generator of a structured
 * mesh does: `exec`, the nexec elements of other ranks' blocks whose rows reach this rank's block through a map that
 * is not read-only (this rank runs them), and `nonexec`, the nnonexec others that this rank's rows and the exec rows
 * reach (read only); global numbers, each list ascending, none in this rank's block nor in both lists. The context
 * takes both arrays (from malloc; freed at once when the call fails). With mpi.partitioner "ranges" and every set's
 * halo declared (an empty one too: 0, NULL, 0, NULL), um_distribute takes these halos instead of finding them: no
 * pass over the rows leaving the block for the ranks they reach, no exec rows sent, and the export lists from two
 * exchanges of the declared numbers with their owners, each for every set at once (the exec, then the non-exec);
 * each map from a set of a non-empty exec halo then needs its exec rows (um_decl_map_halo_block). Another
 * partitioner finds the halo of its own partition, and the declared ones are dropped. A halo declared wrong gives
 * wrong results: check an app's declarations against the halos found (UM_TEST_RANGES_UNDECLARED=1 in the
 * environment drops them), as tests/check_declared_halo.sh does. UM_ERR_ARG for a list not ascending, an entry
 * outside the set or in the rank's block, an entry in both lists, a set not declared by blocks with a non-empty
 * halo, a second declaration, or a call after um_distribute. */
int um_decl_set_halo_block(um_set *set, int nexec, long long *exec, int nnonexec, long long *nonexec);
/** The rows of map `map` for the exec halo its from-set declared (um_decl_set_halo_block, called first): nexec *
 * arity global numbers of the to-set, row i the exec element exec[i]'s; taken as um_decl_set_halo_block takes its
 * lists. UM_ERR_ARG for an entry outside the to-set, a map whose from-set declared no halo, a second declaration. */
int um_decl_map_halo_block(um_map *map, long long *rows);
/* A mesh source that must be read whole (a text deck, a generator that needs the whole mesh) is read on rank 0
 * alone and scattered by blocks: rank 0 broadcasts the sizes (um_mpi_bcast_bytes), then sends each rank its block
 * of every set's rows (um_mpi_scatter_block) and frees its whole arrays; the other ranks never hold more than their
 * blocks, rank 0 holds the whole mesh once, while it is read and sent (engine/src/distributed/dist_scatter.c).
 * @code
 *   long long n = rank0 ? m.ncells : 0;                       // every rank
 *   um_mpi_bcast_bytes(&n, sizeof n);
 *   long long begin; int count;
 *   um_block_range(n, um_mpi_rank(), um_mpi_size(), &begin, &count);
 *   float *area = malloc(sizeof(float) * count);
 *   um_mpi_scatter_block(rank0 ? m.area : NULL, n, sizeof(float), area);
 *   um_decl_set_block(ctx, n, begin, count, "cells", &cells);
 * @endcode */
/** Broadcast n bytes from rank 0 to every rank (collective; a no-op on one rank). UM_ERR_ARG for a NULL buffer of
 * n > 0 bytes, UM_ERR_BACKEND if MPI fails. */
int um_mpi_bcast_bytes(void *buf, size_t n);
/** Scatter a set's rows by blocks (collective): `whole` holds on rank 0 the gsize rows of row_bytes bytes each
 * (read only there: NULL elsewhere), and every rank gets into `mine` its block of them, the block partitioner's
 * range [begin, begin + count) of um_block_range (mine holds count * row_bytes bytes; NULL for an empty block). On
 * one rank (or without MPI) `mine` gets the whole array (a no-op when mine == whole). Every rank passes the same
 * gsize and row_bytes. A failure on one rank is every rank's (agreed before the scatter, never a hang): UM_ERR_ARG
 * for a bad argument, UM_ERR_ALLOC when rank 0 could not make its tables, UM_ERR_BACKEND if MPI fails. */
int um_mpi_scatter_block(const void *whole, long long gsize, size_t row_bytes, void *mine);
/** um_mpi_scatter_block for a map's rows: rank 0's int rows of `arity` targets each, and every rank gets its block
 * widened to the 64-bit rows um_decl_map_block takes (mine holds count * arity long longs); the same agreement
 * and errors (UM_ERR_ARG for an arity under 1). */
int um_mpi_scatter_map_block(const int *whole, long long gsize, int arity, long long *mine);

/** How a loop that increments through a map reaches elements other ranks own:
 * REDUNDANT (OP2's rule) runs the exec halo too, so every increment into an
 * owned element is computed on its owner; REVERSE (PETSc's SFReduce) runs only
 * the owned elements, then sends the increments that landed in halo copies to
 * their owners, which add them (less computing, one more message); AUTO picks
 * per loop by comparing the exec halo's work with the halo rows to send back.
 * Loops that also read the incremented dat, or write through a map otherwise
 * than INC, always run REDUNDANT, and so does every loop in reproducible mode
 * (um_context_set_reproducible). Nothing changes on one rank. */
typedef enum {
  UM_INCREMENTS_REDUNDANT = 0, /**< run the exec halo too (OP2)                        */
  UM_INCREMENTS_REVERSE,       /**< owned elements only, halo increments sent back     */
  UM_INCREMENTS_AUTO           /**< per loop, by the work and the rows to send         */
} um_increments;
/** The name of an increments mode ("redundant", "reverse", "auto"). */
const char *um_increments_name(um_increments m);
/** The increments mode of every loop of the context (default REDUNDANT). */
int um_context_set_increments(um_context *ctx, um_increments mode);
/** The increments mode of one loop, by name (overrides the context's). */
int um_loop_set_increments(um_context *ctx, const char *loop_name, um_increments mode);
/** How halo messages travel between ranks whose dats live on a device (CUDA
 * ranks; host backends always send from host memory):
 *   - HOST    rows packed on the device into pinned host buffers and sent with
 *             MPI (any MPI, any number of ranks on a GPU);
 *   - DEVICE  rows packed into device buffers and sent device to device by the
 *             backend's own transport (NCCL on CUDA), on a communication stream
 *             beside the compute stream: no host copy, no host wait, core
 *             elements run while the halo moves;
 *   - AUTO    the device transport when the backend has one, this build and
 *             machine can load it, every rank has a device of its own and all
 *             ranks are on one host, for exchanges of at least
 *             um_context_set_gpu_transport_min_bytes per rank; HOST otherwise.
 *
 * Set before um_distribute; um_partition_info says which was taken and why.
 * DEVICE where it cannot run is an error of um_distribute naming the reason. */
typedef enum {
  UM_TRANSPORT_AUTO = 0, /**< the device transport where it can run and pays off */
  UM_TRANSPORT_HOST,     /**< through pinned host buffers and MPI               */
  UM_TRANSPORT_DEVICE,   /**< device to device by the backend's transport (NCCL) */
  /** the test transport "loopback" on any backend (engine/src/distributed/transports/loopback.c): every
   * exchange's messages in buffers of its own, sent with MPI on a communicator of its own after the queued
   * work; the same bits as HOST, through the transport table (docs/transports.md) */
  UM_TRANSPORT_LOOPBACK
} um_transport;
/** The halo transport of the context (see um_transport); before um_distribute. */
int um_context_set_gpu_transport(um_context *ctx, um_transport t);
/** AUTO with the device transport open sends an exchange device to device
 * only when its halo rows average at least this many bytes per rank (the
 * same choice on every rank), and smaller ones through host memory: on the
 * H100 host it was measured on, an exchange of a small halo (76 KB) took
 * about 1 ms of device time through NCCL against 0.17 ms through host
 * memory, and NCCL's first exchange ~1 s to connect (docs/benchmarks.md,
 * "Several GPUs of one host"). 0: every exchange device to device. Before
 * um_distribute.
 * The size rule of UM_TRANSPORT_AUTO: bytes per rank from which an exchange
 * goes device to device; before um_distribute. Its default (1 MiB) is declared
 * once, by the option mpi.gpu_transport_min_bytes (um_option_find(...)->def). */
int um_context_set_gpu_transport_min_bytes(um_context *ctx, long bytes);

/** This rank's number: 0 when not distributed. */
int um_context_rank(const um_context *ctx);   /* 0 when not distributed */
/** The number of ranks the context is distributed over: 1 when not distributed. */
int um_context_nranks(const um_context *ctx); /* 1 when not distributed */
/** The partition of a distributed context: the primary set, the partitioner
 * that produced it (and why another one, if it fell back), the edge cut of the
 * primary set's graph and the imbalance (largest part / mean). */
typedef struct {
  int nranks;         /**< ranks the mesh is partitioned over                  */
  char primary[64];   /**< the primary set's name                              */
  char partitioner[32]; /**< the partitioner that produced the partition       */
  char note[512];   /**< what happened: auto's choice, the coordinates, the partitioners tried and why each gave
                         way, disconnected parts ("" if none) */
  char transport[32];        /**< halo messages: "host" (MPI from host memory) or the transport's name
                                ("nccl", "loopback"; "nccl+host" when auto sends small exchanges through
                                host memory) */
  char transport_note[256];  /**< why that one */
  long edge_cut;    /**< edges of the primary set's graph between parts          */
  double imbalance; /**< largest part / mean part                               */
  double seconds;   /**< partitioning and building the halos: the three phases below and their checks */
  double partition_seconds; /**< the primary set's partition (its graph or points, the partitioner, the quality
                                 checks, any fallback) and the other sets placed by it */
  double migrate_seconds;   /**< rows to their owners, the halos, the local order, maps, dats and halo lists */
  double transport_seconds; /**< setting up the halo transport (NCCL communicators, device lists) */
} um_partition_info;
/** Fill *out with the context's partition; UM_ERR_UNSUPPORTED when the context is not distributed. */
int um_partition_info_get(const um_context *ctx, um_partition_info *out);
/** What rank `rank` holds of set s (any rank's, known on every rank). */
int um_set_partition(const um_set *s, int rank, int *owned, int *exec_halo, int *nonexec_halo);
/** The roles um_set_holders gives an element of a set on a rank. */
enum {
  UM_HELD_NONE = 0,   /**< the rank does not hold the element                          */
  UM_HELD_OWNED = 1,  /**< the rank owns it                                             */
  UM_HELD_EXEC = 2,   /**< in the rank's exec halo: its loops run it too                */
  UM_HELD_NONEXEC = 3 /**< in the rank's non-exec halo: the rank only reads its values  */
};
/** Which elements of set s each rank holds, for pictures and checks of small meshes (collective on a
 * distributed context: every rank calls it). On rank 0, role[r * n + g] for rank r < um_context_nranks(ctx)
 * and element g < n = um_set_size(s) in the global numbering (um_dat_fetch's): UM_HELD_OWNED, UM_HELD_EXEC
 * (in r's exec halo: run redundantly there), UM_HELD_NONEXEC (in r's non-exec halo: only read there) or
 * UM_HELD_NONE. role must hold nranks * n bytes on rank 0; other ranks may pass NULL and 0. Not distributed:
 * rank 0 owns every element. UM_ERR_ARG for a NULL context or set, or rank 0's role too small. */
int um_set_holders(um_context *ctx, const um_set *s, unsigned char *role, size_t bytes);
/** A map with global indices for every element of its from-set (collective when
 * distributed): out holds um_set_size(from) * arity entries. */
int um_map_fetch(um_context *ctx, const um_map *m, int *out, size_t bytes);

/* ---- the global view by blocks: outputs and checkpoints without a whole set on any rank ----------------
 * Each rank fetches its block of a set in the global numbering: the block partitioner's range of the set's
 * global size for this rank (um_block_range; um_set_block gives it), rows [begin, begin + count). The rows
 * travel from the ranks that own them to their block's rank with one all-to-all; no rank allocates anything of
 * the set's global size. Put together in rank order the blocks are the whole array um_dat_fetch (um_map_fetch,
 * um_dat_fetch_original_order) gives. Collective on a distributed context: every rank makes the call, also
 * with an empty block. On one process (or a context not distributed) the block is the whole set. A set declared
 * by blocks has its blocks once um_distribute ran. Writers that put blocks into one file: um/hdf5io.h. */

/** This rank's block of set s in the global numbering: [*begin, *begin + *count) (um_block_range of
 * um_set_gsize(s) for um_context_rank(ctx) of um_context_nranks(ctx)). UM_ERR_ARG for a NULL argument or a block
 * over INT_MAX elements. */
int um_set_block(const um_context *ctx, const um_set *s, long long *begin, int *count);
/** This rank's block of dat d in the global (declared, or last reordered) numbering, AoS, into out: bytes must
 * be count * dim * sizeof(type) for um_set_block's count. The block of um_dat_fetch's array. */
int um_dat_fetch_block(um_context *ctx, const um_dat *d, void *out, size_t bytes);
/** The same in the order the app declared the set (before any reordering): the block of
 * um_dat_fetch_original_order's array. Where the set was reordered, each rank finds the declared numbers of
 * its rows by looking them up in the reordering's permutation (which every rank holds, as the reordering ran
 * on the whole declaration). */
int um_dat_fetch_block_original_order(um_context *ctx, const um_dat *d, void *out, size_t bytes);
/** The reverse of um_dat_fetch_block: every row of d this rank holds (owned and halo) from the blocks of the
 * global numbering, each rank giving its block at in (AoS, bytes = count * dim * sizeof(type) for um_set_block's
 * count): the rows travel from their blocks' ranks to the ranks that hold them (two all-to-alls). Put together in
 * rank order the blocks are the whole array um_dat_update takes. Collective on a distributed context. */
int um_dat_update_block(um_context *ctx, um_dat *d, const void *in, size_t bytes);
/** The same with the blocks in the order the app declared the set (before any reordering): the reverse of
 * um_dat_fetch_block_original_order (checkpoints: um/checkpoint.h). */
int um_dat_update_block_original_order(um_context *ctx, um_dat *d, const void *in, size_t bytes);
/** This rank's block of map m's rows (from-set numbering, as um_set_block of the from-set), targets as global
 * numbers of the to-set: the block of um_map_fetch's array (current numbering); bytes = count * arity *
 * sizeof(int). */
int um_map_fetch_block(um_context *ctx, const um_map *m, int *out, size_t bytes);
/** The same in the order the app declared both sets (before any reordering): rows in the from-set's declared
 * order, targets as declared numbers of the to-set (the map as the app declared it). */
int um_map_fetch_block_original_order(um_context *ctx, const um_map *m, int *out, size_t bytes);
/** um_map_fetch_block with 64-bit targets (global numbers of a to-set that may pass INT_MAX elements: a mesh
 * declared by blocks); bytes = count * arity * sizeof(long long). */
int um_map_fetch_block64(um_context *ctx, const um_map *m, long long *out, size_t bytes);
/** um_map_fetch_block_original_order with 64-bit targets (declared numbers of the to-set). */
int um_map_fetch_block_original_order64(um_context *ctx, const um_map *m, long long *out, size_t bytes);
/** Rows numbered by the caller sent to their blocks: this rank's n rows of row_bytes bytes at rows, row e bound
 * for element keys[e] of a numbering of gsize elements (an output order of the app's own: a grid's, a table's),
 * put in place in out, this rank's block of that numbering (um_block_range of gsize; bytes = count * row_bytes).
 * Every element must be sent by exactly one rank. Collective on a distributed context (one all-to-all); not
 * distributed, n must be gsize and out is the whole array. A key outside [0, gsize) is UM_ERR_ARG on every rank. */
int um_rows_to_blocks(um_context *ctx, int n, const int *keys, const void *rows, size_t row_bytes, long long gsize,
                      void *out, size_t bytes);
/** um_rows_to_blocks with 64-bit keys: the global numbers of a numbering of more than INT_MAX elements (a mesh
 * declared by blocks: um_set_gsize). Each rank's n rows and its block stay int-counted. Collective on a
 * distributed context; a key outside [0, gsize) is UM_ERR_ARG on every rank, the key named in 64 bits. */
int um_rows_to_blocks64(um_context *ctx, int n, const long long *keys, const void *rows, size_t row_bytes,
                        long long gsize, void *out, size_t bytes);
/** fn(ctx, arg) on each rank in turn, rank 0 first, rank 1 once rank 0's returned, and so on (a token passed from
 * rank to rank): for a file the ranks write one after the other, each its block (um/hdf5io.h's writers; an app's
 * text file: rank 0 creates it, the others append). A rank after one whose fn failed skips its turn; every rank
 * then returns the same code and message (the lowest failing rank's, its number said when not 0): no rank hangs
 * and none goes on alone. Collective on a distributed context; not distributed: fn(ctx, arg). */
int um_in_turn(um_context *ctx, int (*fn)(um_context *ctx, void *arg), void *arg);
/** fn(ctx, arg, state) on each rank in turn as um_in_turn, with `bytes` bytes of state carried from rank to rank:
 * rank 0's fn starts from its own state, each next rank's from the state the previous rank's fn left, and every
 * rank returns with the last rank's. A sum over a global order with each rank adding its block (um_set_block) in
 * turn has the bits of the one-process sum whatever the ranks (BookLeaf's region tables). A rank after one whose
 * fn failed skips its turn; every rank returns the same code. Collective; not distributed: fn(ctx, arg, state). */
int um_in_turn_carry(um_context *ctx, int (*fn)(um_context *ctx, void *arg, void *state), void *arg, void *state,
                     size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
