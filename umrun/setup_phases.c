/* The set-up by phase (um/stats.h: um_setup_phase) of every rank: gathered after a run, written to the JSON as
 * "setup_phases" (each phase's max, mean and per-rank seconds) and summed up in one line of the summary. */
#include <stdio.h>
#include <stdlib.h>
#include "runner.h"

/* one value per phase on every rank into *out ([q * UM_SETUP_NPHASES + p]; collective): every rank gathers, or
 * (one could not allocate, or its app left the window open) none keeps it */
static int gather_phases(int n, const double mine[UM_SETUP_NPHASES], int closed, double **out) {
  double *all = calloc((size_t)n * UM_SETUP_NPHASES, sizeof *all), *col = calloc((size_t)n, sizeof *col);
  const int ok = um_mpi_agree(all && col && closed ? 0 : 1, -1) == 0;
  int rc = UM_SUCCESS;
  for (int p = 0; ok && rc == UM_SUCCESS && p < UM_SETUP_NPHASES; p++) {
    rc = um_mpi_allgather_double(mine[p], col);
    for (int q = 0; rc == UM_SUCCESS && q < n; q++) all[(size_t)q * UM_SETUP_NPHASES + p] = col[q];
  }
  free(col);
  if (!ok || rc != UM_SUCCESS) {
    free(all);
    return rc;
  }
  *out = all;
  return UM_SUCCESS;
}

int umrun_measure_setup_phases(um_app_run *run, um_context *ctx) {
  const int n = run->nranks_measured;
  double seconds[UM_SETUP_NPHASES], faulted[UM_SETUP_NPHASES];
  const int closed = um_setup_phases(ctx, seconds);
  um_setup_faulted(ctx, faulted);
  free(run->rank_setup_phases);
  free(run->rank_setup_faulted);
  run->rank_setup_phases = run->rank_setup_faulted = NULL;
  if (n <= 0) return UM_SUCCESS;
  const int rc = gather_phases(n, seconds, closed, &run->rank_setup_phases);
  return rc == UM_SUCCESS && run->rank_setup_phases ? gather_phases(n, faulted, closed, &run->rank_setup_faulted) : rc;
}

/* phase p's value on each rank (v: run->rank_setup_phases or _faulted): max and mean */
static void phase_max_mean(const um_app_run *run, const double *v, int p, double *max, double *mean) {
  *max = 0, *mean = 0;
  for (int q = 0; q < run->nranks_measured; q++) {
    const double x = v[(size_t)q * UM_SETUP_NPHASES + p];
    *max = x > *max ? x : *max;
    *mean += x / run->nranks_measured;
  }
}

/* "key": {"mesh": {"max": .., "mean": .., "per_rank": [..]}, ...} of v, each value with fmt */
static void phases_json(FILE *f, const um_app_run *run, const char *key, const double *v, const char *fmt) {
  fprintf(f, ",\n  \"%s\": {", key);
  for (int p = 0; p < UM_SETUP_NPHASES; p++) {
    double mx, mean;
    phase_max_mean(run, v, p, &mx, &mean);
    fprintf(f, "%s\"%s\": {\"max\": ", p ? ", " : "", um_setup_phase_name((um_setup_phase)p));
    fprintf(f, fmt, mx);
    fputs(", \"mean\": ", f);
    fprintf(f, fmt, mean);
    fputs(", \"per_rank\": [", f);
    for (int q = 0; q < run->nranks_measured; q++) {
      if (q) fputs(", ", f);
      fprintf(f, fmt, v[(size_t)q * UM_SETUP_NPHASES + p]);
    }
    fputs("]}", f);
  }
  fputc('}', f);
}

void umrun_setup_phases_json(FILE *f, const um_app_run *run) {
  if (run->rank_setup_phases) phases_json(f, run, "setup_phases", run->rank_setup_phases, "%.6f");
  if (run->rank_setup_faulted) phases_json(f, run, "setup_faulted_bytes", run->rank_setup_faulted, "%.0f");
}

/* The bytes the set-up touched for the first time, summed over its phases: the largest rank's (0: not measured) */
double umrun_setup_faulted_max(const um_app_run *run) {
  double mx = 0;
  for (int q = 0; run->rank_setup_faulted && q < run->nranks_measured; q++) {
    double t = 0;
    for (int p = 0; p < UM_SETUP_NPHASES; p++) t += run->rank_setup_faulted[(size_t)q * UM_SETUP_NPHASES + p];
    mx = t > mx ? t : mx;
  }
  return mx;
}

/* "set-up 1.234 s: mesh 0.80 s (65%), partition 0.20 s (16%), ...": the phases above 5% of the set-up, largest
 * first (under mpirun the ranks' mean of each; the JSON has the slowest rank's too) */
void umrun_setup_phases_line(FILE *out, const um_app_run *run) {
  if (!run->rank_setup_phases) return;
  double mx, mean[UM_SETUP_NPHASES], total = 0;
  int order[UM_SETUP_NPHASES], n = 0;
  for (int p = 0; p < UM_SETUP_NPHASES; p++) {
    phase_max_mean(run, run->rank_setup_phases, p, &mx, &mean[p]);
    total += mean[p];
  }
  for (int p = 0; p < UM_SETUP_NPHASES; p++) {
    if (total <= 0 || mean[p] <= 0.05 * total) continue;
    int i = n++;
    for (; i > 0 && mean[order[i - 1]] < mean[p]; i--) order[i] = order[i - 1];
    order[i] = p;
  }
  fprintf(out, "set-up %.3f s", total);
  if (run->nranks_measured > 1) fprintf(out, " (the mean of %d ranks, as each phase)", run->nranks_measured);
  fputc(':', out);
  for (int i = 0; i < n; i++)
    fprintf(out, "%s %s %.3f s (%.0f%%)", i ? "," : "", um_setup_phase_name((um_setup_phase)order[i]), mean[order[i]],
            100 * mean[order[i]] / total);
  fprintf(out, "%s\n", n < UM_SETUP_NPHASES ? "; the other phases 5% or less (the JSON's setup_phases)" : "");
}
