/* Per-loop timing table and plan statistics. */
#include <math.h>
#include <string.h>
#include "um/report.h"

static double loops_total(const um_context *ctx) {
  double t = 0;
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &s) == UM_SUCCESS) t += s.seconds;
  return t;
}

void um_report_loops(const um_context *ctx, FILE *f, double total) {
  double sum = loops_total(ctx);
  if (total <= 0) total = sum;
  fprintf(f, "%-20s %8s %11s %7s %12s %10s %10s\n", "loop", "calls", "time (s)", "%", "ms/call", "GB/s", "set size");
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || s.calls == 0) continue;
    double per = s.seconds / (double)s.calls;
    double gbs = per > 0 ? s.bytes / per * 1e-9 : 0;
    fprintf(f, "%-20s %8ld %11.4f %7.2f %12.4f %10.2f %10d\n", s.name, s.calls, s.seconds,
            total > 0 ? 100.0 * s.seconds / total : 0.0, 1e3 * per, gbs, s.set_size);
  }
  fprintf(f, "%-20s %8s %11.4f %7.2f\n", "all loops", "", sum, total > 0 ? 100.0 * sum / total : 0.0);
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
    num(f, "seconds", s.seconds, 0);
    num(f, "host_seconds", s.host_seconds, 0);
    num(f, "plan_seconds", s.plan_seconds, 0);
    num(f, "bytes_per_call", s.bytes, 0);
    num(f, "gb_per_s", per > 0 ? s.bytes / per * 1e-9 : 0, 0);
    num(f, "set_size", s.set_size, 0);
    fprintf(f, "\"indirect\": %s", s.indirect ? "true" : "false");
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
    fputc('}', f);
  }
  fputs(first ? "]" : "\n  ]", f);
}
