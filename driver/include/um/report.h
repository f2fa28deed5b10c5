/** @file um/report.h
 * The per-loop timing table and plan statistics, as text and JSON. */
#ifndef UM_REPORT_H
#define UM_REPORT_H
#include <stdio.h>
#include "um/um.h"
#ifdef __cplusplus
extern "C" {
#endif
/** Per-loop table: calls, time, % of `total_seconds` (<= 0: of the loops' sum),
 * time per call and useful GB/s (bytes counted as in docs/architecture.md). */
void um_report_loops(const um_context *ctx, FILE *f, double total_seconds);
/** Per loop: counted operations per element (um_kernel_ops), useful bytes per
 * element, operations per useful byte and GFLOP/s (counted operations per
 * second); a count that cannot be computed is "unknown", with its reason below
 * the table, never 0. */
void um_report_ops(const um_context *ctx, FILE *f);
/** Plan statistics of every loop that used a plan. */
void um_report_plans(const um_context *ctx, FILE *f);
/** The backend's per-loop counters (e.g. compile time, modules, occupancy on
 * cuda), for loops where any is non-zero; prints nothing otherwise. */
void um_report_counters(const um_context *ctx, FILE *f);
/** The same as a JSON array of objects (no trailing newline). */
void um_report_loops_json(const um_context *ctx, FILE *f);
/** The context's sets (sizes), maps (from, to, arity) and dats (set, dim,
 * type) as a JSON object {"sets": [...], "maps": [...], "dats": [...]}. */
void um_report_mesh_json(const um_context *ctx, FILE *f);
/** Distributed contexts only (nothing otherwise): ",\n  \"partition\": {...}" with
 * the primary set, partitioner, edge cut, imbalance and every set's owned /
 * exec-halo / non-exec-halo sizes per rank. */
void um_report_partition_json(const um_context *ctx, FILE *f);
/** Per loop: the halo exchanges before its calls (dats, messages and KB per
 * call, seconds waiting, the share hidden behind core elements). */
void um_report_halos(const um_context *ctx, FILE *f);
/** Counted arithmetic operations per element of kernel `name` in `source`:
 * binary + - * / (and compound assignments) and math-library calls outside
 * array subscripts, following calls of functions and function-like macros
 * defined in `source` and multiplying the bodies of for loops with a constant
 * trip count (for (int i = A; i < B; i++), A and B literals or constants
 * given by a `#define`); *ops is the most operations of any path through the branches (if / else, ?:), the
 * count of the longest path. Returns 0 with *ops set, or
 * -1 when the count cannot be computed (no source or definition, a loop whose
 * trip count is known only at run time, a call of a function not in `source`,
 * recursion), with the reason in why (a sentence, may be NULL). */
int um_kernel_ops(const char *source, const char *name, long *ops, char *why, size_t whylen);
/** The same, per path: *fewest and *most the operations of the shortest and the longest path through the kernel's
 * branches (equal when its branches do the same work). A return, break or continue ends a path, so *fewest is
 * a lower bound where a loop breaks early; *most is always an upper bound. */
int um_kernel_ops_paths(const char *source, const char *name, long *fewest, long *most, char *why, size_t whylen);
/** The same as an int: the count, or -1 when it cannot be computed (unknown: never shown as 0). */
int um_kernel_op_estimate(const char *source, const char *name);
/** Write s as a JSON string literal. */
void um_json_string(FILE *f, const char *s);
/** Write v as a JSON number (%.17g), or null when it is NaN or infinite (JSON
 * has no spelling for them; "nan" would make the file unreadable). */
void um_json_number(FILE *f, double v);
#ifdef __cplusplus
}
#endif
#endif
