/** @file um/stats.h
 * Timing and statistics of loops, and what each loop last ran.
 * Part of the public API: include um/um.h. */
#ifndef UM_STATS_H
#define UM_STATS_H

#include "um/loop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- timing and statistics ------------------------------------------------ */
/** The most backend counters a loop's statistics hold (um_loop_stats.counters). */
#define UM_MAX_COUNTERS 12
/** What the engine measured of one loop (by name) since the context began or
 * the last um_loop_stats_reset: calls, times, useful bytes, plan statistics,
 * the backend's counters, halo exchanges, splitting. */
typedef struct {
  const char *name;     /**< the loop's name (as passed to um_par_loop)   */
  long calls;           /**< calls of the loop                            */
  long compiled_calls;  /**< calls that ran host code compiled for the loop
                           (hostc.compile)                                */
  long simd_calls;      /**< of those, calls that ran its SIMD range
                           (hostc.compile_simd)                           */
  double seconds;       /**< total time inside the loop (GPU time when
                           device_timed)                                  */
  double host_seconds;  /**< wall-clock time the host spent in um_par_loop
                           (issuing work, building plans, compiling, and
                           waiting where a reduction must be read back)   */
  double bytes;         /**< useful bytes per call (GUIDE.md convention)   */
  int set_size;         /**< elements of the iteration set               */
  int indirect;         /**< 1 if any arg goes through a map               */
  int one_to_one;       /**< 1 if it writes through maps, only through one-to-one columns: run without plan,
                           colours or atomics (um_loop.one_to_one) */
  /** How the last call kept its writes through maps from racing: the run's strategy (run.strategy) or the
   * loop's own, as the backend resolved it and applied it to this loop. A backend whose atomics take vector
   * increments only (OpenMP) runs a loop that increments through a map per index, and any loop under
   * run.reproducible, by its colours: UM_STRATEGY_COLOURED then, whatever run.strategy says. UM_STRATEGY_AUTO:
   * none was needed (nothing written through a map that could meet: direct loops, one_to_one, a loop split with
   * gathers and the loops a split generates, but a scatter split's increment loops). seq's rule is
   * UM_STRATEGY_COLOURED (it runs one element after another, without a plan); a loop that increments a whole
   * dat (um_arg_whole) says UM_STRATEGY_ATOMICS, though OpenMP runs it on one thread under run.reproducible. */
  um_strategy strategy;
  int has_plan;         /**< 1 if the loop used a plan; the plan statistics below are those of the last
                           plan used (0 for direct loops) */
  int block_size;       /**< plan: elements per block                    */
  int nblocks;          /**< plan: blocks (mini-partitions)              */
  int nblock_colours;   /**< plan: block colours                         */
  double mean_thread_colours; /**< plan: thread colours per block, mean  */
  int max_thread_colours;     /**< plan: thread colours per block, most  */
  double shared_bytes_mean;   /**< plan: shared memory per block (staged data), mean bytes */
  long shared_bytes_max;      /**< plan: shared memory per block, most bytes */
  double reuse_factor;        /**< plan: indirect accesses per distinct element staged */
  double cache_lines_mean;    /**< plan: cache lines touched per block, mean */
  int nplans;           /**< plans built for this loop name               */
  double plan_seconds;  /**< time spent building (and checking) its plans */
  /** Wall time of the loop's first call, after its argument checks to its return: tuning, statistics, plans,
   * compilation, uploads, the launch (or on the host the run) and a reduction's wait; the first cycle's cost
   * per loop. */
  double first_call_seconds;
  int device_timed;     /**< 1: seconds is device time (e.g. CUDA events),
                           run-time compilation excluded                 */
  /** The backend's own per-loop counters (names from its registration, e.g.
   * compile_seconds, modules, occupancy on cuda); see um_loop_stats_counter.
   * ncounters: entries used in counter_names and counters. */
  int ncounters;
  const char *counter_names[UM_MAX_COUNTERS]; /**< the counters' names          */
  double counters[UM_MAX_COUNTERS];           /**< the counters' values         */
  /** Distributed runs (0 otherwise), totals over the calls: dats exchanged,
   * messages and bytes sent, seconds spent on the exchange, and of those the
   * seconds that overlapped with core elements running. halo_exchanges: dats exchanged. */
  long halo_exchanges;
  long halo_messages;          /**< messages sent                               */
  double halo_bytes;           /**< bytes sent                                  */
  double halo_seconds;         /**< seconds spent on the exchange               */
  double halo_hidden_seconds;  /**< of those, seconds overlapped with core elements */
  int reverse_increments; /**< 1: the last call sent increments back to their owners (REVERSE) */
  /** Automatic loop splitting: the last call's variant ("off", "scatter",
   * "gather", "fused"); split_reason says why; parent: for the loops a split generates
   * (named "<loop>:contrib", "<loop>:inc<k>", "<loop>:gather<k>"), the loop they
   * belong to (NULL otherwise). temp_bytes: the engine's temporaries. */
  const char *split;
  const char *split_reason;    /**< why the loop ran as `split`                 */
  const char *parent;          /**< the loop a generated loop belongs to, or NULL */
  double temp_bytes;           /**< bytes of the engine's temporaries for the split */
  /** After um_loop_stats_across_ranks (0 before, and on one process): the
   * ranks timed and this loop's seconds on the fastest, average and slowest
   * rank (seconds above stay this rank's own). ranks_timed: the ranks timed. */
  int ranks_timed;
  /** @{ seconds on the fastest rank, averaged over the ranks, and on the slowest rank */
  double seconds_rank_min, seconds_rank_mean, seconds_rank_max;
  /** @} */
  /** @{ the fastest and the slowest rank (the lowest of equals); -1 before um_loop_stats_across_ranks */
  int rank_fastest, rank_slowest;
  /** @} */
  /** After um_loop_stats_across_ranks: the whole job's useful bytes per call and elements (summed over the
   * ranks; bytes and set_size above stay this rank's); 0 before, and on one process. */
  double bytes_all_ranks;
  long long set_size_all_ranks; /**< elements of the iteration set over every rank (exec halos included) */
} um_loop_stats;

/** Collective (every rank calls it, after the same loops): each loop's time on
 * the fastest, average and slowest rank, into um_loop_stats. The slowest rank's
 * time is the loop's time in the run; max/mean is its load imbalance. A no-op
 * on one process; UM_ERR_BACKEND if the ranks ran different loops. */
int um_loop_stats_across_ranks(um_context *ctx);

/** The number of loops (by name) with statistics. */
int um_loop_stats_count(const um_context *ctx);
/** A backend counter of a loop by name: 1 and *value if the backend keeps it, else 0. */
int um_loop_stats_counter(const um_loop_stats *s, const char *name, double *value);
/** The statistics of loop i (0 <= i < um_loop_stats_count), in the order loops first ran. */
int um_loop_stats_get(const um_context *ctx, int i, um_loop_stats *out);
/** Plans in the context's plan cache. */
int um_plan_cache_size(const um_context *ctx);
/** Reset counters (keeps plans). */
void um_loop_stats_reset(um_context *ctx);

/** The last plan loop i (as in um_loop_stats_get) ran with, read-only, for tools that draw or inspect it
 * (umrun --draw plan). The plan covers elements [begin, begin + size) of the loop's set (um_loop_set): block b
 * is elements begin + [block_offset[b], block_offset[b + 1]), of block colour block_colour[b] (blocks of one
 * colour run concurrently), and element begin + e has thread colour thread_colour[e] within its block (elements
 * of one thread colour run concurrently). The arrays belong to the engine's plan cache: valid until the next
 * loop call, reordering, um_distribute or um_finalize; copy what must outlive them. */
typedef struct {
  int begin; /**< the first element of the set the plan covers             */
  int size; /**< elements planned                                          */
  int block_size; /**< elements per block (the last one, or given blocks, fewer) */
  int nblocks; /**< blocks (mini-partitions)                                  */
  int nblock_colours; /**< block colours                                             */
  int max_thread_colours; /**< thread colours of the block with the most                 */
  const int *block_offset; /**< [nblocks + 1], from 0 to size                             */
  const int *block_colour; /**< [nblocks]: 0 .. nblock_colours - 1                        */
  const int *nthread_colours; /**< [nblocks]: thread colours of each block                   */
  const int *thread_colour; /**< [size]: 0 .. nthread_colours[block] - 1                    */
} um_plan_view;
/** Fill *out with the last plan of loop i. UM_ERR_ARG for a NULL argument or i out of range;
 * UM_ERR_UNSUPPORTED when the loop ran without a plan (direct loops; strategies and backends that need none). */
int um_loop_plan_view(const um_context *ctx, int i, um_plan_view *out);

/** The number of arguments of what loop i (as in um_loop_stats_get) last ran.
 * With um_loop_arg_get, um_loop_kernel and um_loop_set: its kernel, iteration
 * set and arguments (dats, maps, indices, access modes). Lets a tool describe the
 * loops' access patterns (umrun's JSON, --report). */
int um_loop_arg_count(const um_context *ctx, int i);
/** Argument j of loop i as it last ran. A gbl argument's data pointer is not
 * kept valid: read only its dim, type and access. */
int um_loop_arg_get(const um_context *ctx, int i, int j, um_arg *out);
/** The kernel loop i last ran, or NULL. */
const um_kernel *um_loop_kernel(const um_context *ctx, int i);
/** The set loop i last ran over, or NULL. */
um_set *um_loop_set(const um_context *ctx, int i);

/** @name Set-up by phase
 * Where a run's set-up went, timed on the context between um_setup_start and um_setup_stop (umrun opens the
 * window before the app's set-up; the app closes it before its main loop). Phases nest: time inside an inner
 * phase is not its outer phase's, so the phases add up to the window's wall time. Outside the window begin and
 * end only read the clock (a plan built in the main loop is not set-up).
 * @{ */
typedef enum {
  UM_SETUP_MESH,      /**< the app reads or generates its mesh, before the engine distributes it */
  UM_SETUP_PARTITION, /**< um_distribute: the primary set's partition and the other sets placed by it */
  UM_SETUP_MIGRATE,   /**< um_distribute: rows to their owners, the local order, maps and dats */
  UM_SETUP_HALOS,     /**< um_distribute: the halos, their exchange lists and the halo transport */
  UM_SETUP_PLANS,     /**< plans built by the plan builder */
  UM_SETUP_COMPILE,   /**< host compiles, NVRTC and module loads that the set-up waits for */
  UM_SETUP_UPLOADS,   /**< the first copies of dats and maps to the device */
  UM_SETUP_OTHER,     /**< the rest: the app's set-up after its mesh, reordering, initial loops */
  UM_SETUP_NPHASES    /**< the number of phases */
} um_setup_phase;
/** The phase's name in the JSON and the reports ("mesh", "partition", ...); "?" out of range. */
const char *um_setup_phase_name(um_setup_phase p);
/** Open the set-up window: from now on time goes to `base` (and to the phases begun inside it). */
void um_setup_start(um_context *ctx, um_setup_phase base);
/** Close the window (the phases still open end here); returns the window's seconds (0: it was not open). */
double um_setup_stop(um_context *ctx);
/** Phase p begins inside the open window (the phase open before it resumes at um_setup_end); returns um_wtime(). */
double um_setup_begin(um_context *ctx, um_setup_phase p);
/** Phase p ends (with any phase begun inside it and left open); returns um_wtime(). */
double um_setup_end(um_context *ctx, um_setup_phase p);
/** The seconds of each phase, into seconds[0 .. UM_SETUP_NPHASES); returns 1 when a window was opened and
 * closed (the values are a set-up's), else 0 (all 0). */
int um_setup_phases(const um_context *ctx, double seconds[UM_SETUP_NPHASES]);
/** The bytes each phase touched for the first time (the process's minor page faults in it, every thread's, times
 * the page size: the kernel's fault and zeroing of fresh memory, a cost apart from the phase's arithmetic), into
 * bytes[0 .. UM_SETUP_NPHASES); returns as um_setup_phases. */
int um_setup_faulted(const um_context *ctx, double bytes[UM_SETUP_NPHASES]);
/** @} */

#ifdef __cplusplus
}
#endif
#endif
