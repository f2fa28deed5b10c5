/* Per-loop timing table and plan statistics. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include "um/report.h"

/* A loop's time in the run: its slowest rank's once the ranks' times are combined. */
static double loop_seconds(const um_loop_stats *s) { return s->ranks_timed > 1 ? s->seconds_rank_max : s->seconds; }

void um_report_loops(const um_context *ctx, FILE *f, double total) {
  um_loop_stats s;
  double sum = 0;
  int ranks = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &s) == UM_SUCCESS) {
      sum += loop_seconds(&s);
      if (s.ranks_timed > ranks) ranks = s.ranks_timed;
    }
  if (total <= 0) total = sum;
  if (ranks > 1)
    fprintf(f, "(times of the slowest of %d ranks; max/mean: the slowest rank's time over the ranks' mean)\n", ranks);
  fprintf(f, "%-20s %8s %11s %7s %12s %10s %10s%s\n", "loop", "calls", "time (s)", "%", "ms/call", "GB/s", "set size",
          ranks > 1 ? "   max/mean" : "");
  long calls = 0, compiled = 0, simd = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    const double t = loop_seconds(&s), per = t / (double)s.calls;
    double gbs = per > 0 ? s.bytes / per * 1e-9 : 0;
    char name[64];
    snprintf(name, sizeof name, "%s%s", s.name, 2 * s.simd_calls > s.compiled_calls ? "**" : s.compiled_calls ? "*" : "");
    fprintf(f, "%-20s %8ld %11.4f %7.2f %12.4f %10.2f %10d", name, s.calls, t, total > 0 ? 100.0 * t / total : 0.0,
            1e3 * per, gbs, s.set_size);
    if (ranks > 1) fprintf(f, " %10.2f", s.seconds_rank_mean > 0 ? s.seconds_rank_max / s.seconds_rank_mean : 1.0);
    fputc('\n', f);
    calls += s.calls;
    compiled += s.compiled_calls;
    simd += s.simd_calls;
  }
  fprintf(f, "%-20s %8s %11.4f %7.2f\n", "all loops", "", sum, total > 0 ? 100.0 * sum / total : 0.0);
  if (compiled)
    fprintf(f, "* ran host code compiled for the loop (run.compile) in %ld of these %ld calls; the generic code ran the "
               "others\n",
            compiled, calls);
  if (simd)
    fprintf(f, "** ran the loop's SIMD range (run.compile_simd: groups of elements under omp simd) in most calls; %ld of "
               "the compiled calls ran one\n", simd);
}

static long loop_ops(const um_context *ctx, int i, char *why, size_t len);

void um_report_ops(const um_context *ctx, FILE *f) {
  um_loop_stats s;
  char reasons[8][256]; /* each distinct reason once, numbered */
  int nreasons = 0;
  fprintf(f, "%-20s %10s %10s %9s %10s\n", "loop", "ops/elem", "bytes/elem", "ops/byte", "GFLOP/s");
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    char why[256] = "";
    const long ops = loop_ops(ctx, i, why, sizeof why);
    const double t = loop_seconds(&s), per = t / (double)s.calls, bpe = s.set_size > 0 ? s.bytes / s.set_size : 0;
    fprintf(f, "%-20s", s.name);
    if (ops >= 0) {
      fprintf(f, " %10ld %10.1f", ops, bpe);
      if (s.bytes > 0) fprintf(f, " %9.3f", (double)ops * s.set_size / s.bytes);
      else fprintf(f, " %9s", "-");
      if (per > 0) fprintf(f, " %10.3f\n", (double)ops * s.set_size / per * 1e-9);
      else fprintf(f, " %10s\n", "-");
      continue;
    }
    int r = 0;
    while (r < nreasons && strcmp(reasons[r], why)) r++;
    if (r == nreasons && nreasons < 8) snprintf(reasons[nreasons++], sizeof reasons[0], "%s", why);
    fprintf(f, " %10s %10.1f %9s %10s", "unknown", bpe, "unknown", "unknown");
    if (r < nreasons) fprintf(f, "  (%d)", r + 1);
    fputc('\n', f);
  }
  for (int r = 0; r < nreasons; r++) fprintf(f, "(%d) not counted: %s\n", r + 1, reasons[r]);
}

void um_report_plans(const um_context *ctx, FILE *f) {
  um_loop_stats s;
  int any = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || !s.has_plan) continue;
    if (!any) {
      fprintf(f, "%-20s %6s %8s %7s %13s %17s %7s %11s %6s %9s", "plan of loop", "block", "blocks", "bcolours",
              "tcolours mean/max", "shared B mean/max", "reuse", "lines/block", "plans", "build (s)");
      fputc('\n', f);
    }
    any = 1;
    fprintf(f, "%-20s %6d %8d %7d %8.2f/%-4d %10.0f/%-6ld %7.2f %11.1f %6d %9.4f", s.name, s.block_size, s.nblocks,
            s.nblock_colours, s.mean_thread_colours, s.max_thread_colours, s.shared_bytes_mean, s.shared_bytes_max,
            s.reuse_factor, s.cache_lines_mean, s.nplans, s.plan_seconds);
    fputc('\n', f);
  }
  if (!any) fprintf(f, "(no loop needed a plan)\n");
}

void um_report_counters(const um_context *ctx, FILE *f) {
  um_loop_stats s;
  int any = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    int nonzero = 0;
    for (int k = 0; k < s.ncounters; k++) nonzero |= s.counters[k] != 0;
    if (!nonzero) continue;
    if (!any) {
      fprintf(f, "%-20s", "loop");
      for (int k = 0; k < s.ncounters; k++) fprintf(f, " %15s", s.counter_names[k]);
      fputc('\n', f);
    }
    any = 1;
    fprintf(f, "%-20s", s.name);
    for (int k = 0; k < s.ncounters; k++) fprintf(f, " %15.4g", s.counters[k]);
    fputc('\n', f);
  }
}

void um_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

void um_json_number(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.17g", v);
  else fputs("null", f);
}

static void num(FILE *f, const char *key, double v, int last) {
  fprintf(f, "\"%s\": ", key);
  if (isfinite(v)) fprintf(f, "%.10g", v);
  else fputs("null", f);
  if (!last) fputs(", ", f);
}

/* ---- what a loop does (for --report; the counted operations: kernel_ops.c) ---------- */
static const char *arg_pattern(const um_arg *a) {
  if (a->kind != UM_ARG_DAT) return a->acc == UM_READ ? "global read" : "reduction";
  if (!a->map) return a->acc == UM_READ ? "direct read" : a->acc == UM_WRITE ? "direct write" : "direct update";
  switch (a->acc) {
    case UM_READ: return "indirect read";
    case UM_INC: return "indirect increment";
    case UM_WRITE: return "indirect write";
    default: return "indirect update";
  }
}

/* Loop i's counted operations per element (-1: unknown, the reason in why). */
static long loop_ops(const um_context *ctx, int i, char *why, size_t len) {
  const um_kernel *k = um_loop_kernel(ctx, i);
  long ops = -1;
  if (!k) snprintf(why, len, "the loop's kernel is not recorded");
  else um_kernel_ops(k->source, k->name, &ops, why, len);
  return ops;
}

/* Returns the loop's counted operations per element (-1: unknown). */
static long loop_shape_json(const um_context *ctx, int i, FILE *f) {
  const um_kernel *k = um_loop_kernel(ctx, i);
  const um_set *set = um_loop_set(ctx, i);
  fputs(", \"iteration_set\": ", f);
  um_json_string(f, set ? um_set_name(set) : "");
  fputs(", \"kernel\": ", f);
  um_json_string(f, k && k->name ? k->name : "");
  char why[256] = "";
  const long ops = loop_ops(ctx, i, why, sizeof why);
  if (ops >= 0) { /* an unknown count is null with its reason, never 0 */
    fprintf(f, ", \"ops_estimate\": %ld", ops);
  } else {
    fputs(", \"ops_estimate\": null, \"ops_unknown\": ", f);
    um_json_string(f, why);
  }
  fputs(", \"args\": [", f);
  for (int j = 0; j < um_loop_arg_count(ctx, i); j++) {
    um_arg a;
    if (um_loop_arg_get(ctx, i, j, &a) != UM_SUCCESS) continue;
    fputs(j ? ", {" : "{", f);
    fputs("\"dat\": ", f);
    um_json_string(f, a.kind == UM_ARG_DAT ? um_dat_name(a.dat) : "(global)");
    fputs(", \"map\": ", f);
    if (a.kind == UM_ARG_DAT && a.map) um_json_string(f, um_map_name(a.map));
    else fputs("null", f);
    fprintf(f, ", \"idx\": %d, \"dim\": %d, \"type\": ", a.idx, a.dim);
    um_json_string(f, um_type_name(a.type));
    fputs(", \"access\": ", f);
    um_json_string(f, um_access_name(a.acc));
    fputs(", \"pattern\": ", f);
    um_json_string(f, arg_pattern(&a));
    fputc('}', f);
  }
  fputc(']', f);
  return ops;
}

void um_report_mesh_json(const um_context *ctx, FILE *f) {
  fputs("{\"sets\": [", f);
  for (int i = 0; i < um_set_count(ctx); i++) {
    const um_set *s = um_set_at(ctx, i);
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    um_json_string(f, um_set_name(s));
    fprintf(f, ", \"size\": %d}", um_set_size(s));
  }
  fputs("],\n    \"maps\": [", f);
  for (int i = 0; i < um_map_count(ctx); i++) {
    const um_map *m = um_map_at(ctx, i);
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    um_json_string(f, um_map_name(m));
    fputs(", \"from\": ", f);
    um_json_string(f, um_set_name(um_map_from(m)));
    fputs(", \"to\": ", f);
    um_json_string(f, um_set_name(um_map_to(m)));
    fprintf(f, ", \"arity\": %d}", um_map_arity(m));
  }
  fputs("],\n    \"dats\": [", f);
  for (int i = 0; i < um_dat_count(ctx); i++) {
    const um_dat *d = um_dat_at(ctx, i);
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    um_json_string(f, um_dat_name(d));
    fputs(", \"set\": ", f);
    um_json_string(f, um_set_name(um_dat_set(d)));
    fprintf(f, ", \"dim\": %d, \"type\": ", um_dat_dim(d));
    um_json_string(f, um_type_name(um_dat_type(d)));
    fputc('}', f);
  }
  fputs("]}", f);
}

/* The share of a loop's halo exchange that overlapped its core elements. */
static double hidden_share(const um_loop_stats *s) {
  const double tot = s->halo_seconds + s->halo_hidden_seconds;
  return tot > 0 ? s->halo_hidden_seconds / tot : 0;
}

void um_report_loops_json(const um_context *ctx, FILE *f) {
  um_loop_stats s;
  int first = 1;
  fputc('[', f);
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    double per = s.seconds / (double)s.calls;
    fputs(first ? "\n    {" : ",\n    {", f);
    first = 0;
    fputs("\"name\": ", f);
    um_json_string(f, s.name);
    fputs(", ", f);
    num(f, "calls", (double)s.calls, 0);
    num(f, "compiled_calls", (double)s.compiled_calls, 0);
    num(f, "simd_calls", (double)s.simd_calls, 0);
    num(f, "seconds", s.seconds, 0);
    num(f, "host_seconds", s.host_seconds, 0);
    if (s.ranks_timed > 1) {
      num(f, "seconds_rank_min", s.seconds_rank_min, 0);
      num(f, "seconds_rank_mean", s.seconds_rank_mean, 0);
      num(f, "seconds_rank_max", s.seconds_rank_max, 0);
    }
    num(f, "plan_seconds", s.plan_seconds, 0);
    num(f, "bytes_per_call", s.bytes, 0);
    num(f, "gb_per_s", per > 0 ? s.bytes / per * 1e-9 : 0, 0);
    num(f, "set_size", s.set_size, 0);
    fprintf(f, "\"indirect\": %s", s.indirect ? "true" : "false");
    const long ops = loop_shape_json(ctx, i, f);
    /* counted operations per useful byte, and per second (null when the count is unknown) */
    fputs(", ", f);
    num(f, "ops_per_byte", ops >= 0 && s.bytes > 0 ? (double)ops * s.set_size / s.bytes : NAN, 0);
    num(f, "gflop_per_s", ops >= 0 && per > 0 ? (double)ops * s.set_size / per * 1e-9 : NAN, 1);
    for (int k = 0; k < s.ncounters; k++) { /* the backend's own counters, by their names */
      fputs(", ", f);
      num(f, s.counter_names[k], s.counters[k], 1);
    }
    if (s.has_plan) {
      fputs(", \"plan\": {", f);
      num(f, "block_size", s.block_size, 0);
      num(f, "blocks", s.nblocks, 0);
      num(f, "block_colours", s.nblock_colours, 0);
      num(f, "thread_colours_mean", s.mean_thread_colours, 0);
      num(f, "thread_colours_max", s.max_thread_colours, 0);
      num(f, "shared_bytes_mean", s.shared_bytes_mean, 0);
      num(f, "shared_bytes_max", (double)s.shared_bytes_max, 0);
      num(f, "reuse_factor", s.reuse_factor, 0);
      num(f, "cache_lines_mean", s.cache_lines_mean, 0);
      num(f, "plans_built", s.nplans, 0);
      num(f, "build_seconds", s.plan_seconds, 1);
      fputc('}', f);
    }
    if (s.halo_exchanges > 0 || s.halo_messages > 0) { /* this rank's (rank 0's in umrun) halo traffic before the loop's calls */
      fputs(", \"halo\": {", f);
      num(f, "dats_exchanged", (double)s.halo_exchanges, 0);
      num(f, "messages_per_call", (double)s.halo_messages / (double)s.calls, 0);
      num(f, "bytes_per_call", s.halo_bytes / (double)s.calls, 0);
      num(f, "seconds", s.halo_seconds, 0);
      num(f, "hidden_seconds", s.halo_hidden_seconds, 0);
      fprintf(f, "\"increments\": \"%s\", ", s.reverse_increments ? "reverse" : "redundant");
      num(f, "hidden_share", hidden_share(&s), 1);
      fputc('}', f);
    }
    fputc('}', f);
  }
  fputs(first ? "]" : "\n  ]", f);
}

void um_report_partition_json(const um_context *ctx, FILE *f) {
  um_partition_info pi;
  if (um_partition_info_get(ctx, &pi) != UM_SUCCESS) return;
  fputs(",\n  \"partition\": {\"primary\": ", f);
  um_json_string(f, pi.primary);
  fputs(", \"partitioner\": ", f);
  um_json_string(f, pi.partitioner);
  fputs(", \"note\": ", f);
  um_json_string(f, pi.note);
  fprintf(f, ", \"edge_cut\": %ld, \"imbalance\": %.6f, \"seconds\": %.6f, \"sets\": [", pi.edge_cut, pi.imbalance,
          pi.seconds);
  for (int i = 0; i < um_set_count(ctx); i++) {
    const um_set *s = um_set_at(ctx, i);
    fputs(i ? ",\n      {\"name\": " : "\n      {\"name\": ", f);
    um_json_string(f, um_set_name(s));
    static const char *const what[3] = {"owned", "exec_halo", "nonexec_halo"};
    for (int w = 0; w < 3; w++) {
      fprintf(f, ", \"%s\": [", what[w]);
      for (int q = 0; q < pi.nranks; q++) {
        int v[3] = {0, 0, 0};
        um_set_partition(s, q, &v[0], &v[1], &v[2]);
        fprintf(f, "%s%d", q ? ", " : "", v[w]);
      }
      fputc(']', f);
    }
    fputc('}', f);
  }
  fputs("]}", f);
}

void um_report_halos(const um_context *ctx, FILE *f) {
  um_loop_stats s;
  int any = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0 || (s.halo_exchanges == 0 && !s.halo_messages)) continue;
    if (!any)
      fprintf(f, "%-20s %8s %10s %12s %10s %8s %10s\n", "halo of loop", "dats", "msgs/call", "KB/call", "wait (s)",
              "hidden", "increments");
    any = 1;
    fprintf(f, "%-20s %8ld %10.1f %12.1f %10.4f %7.0f%% %10s\n", s.name, s.halo_exchanges,
            (double)s.halo_messages / (double)s.calls, s.halo_bytes / (double)s.calls / 1024.0, s.halo_seconds,
            100.0 * hidden_share(&s), s.reverse_increments ? "reverse" : "redundant");
  }
  if (!any) fprintf(f, "(no loop exchanged halos)\n");
}
