/* umrun --report: the figures a table row shows, as text, computed once so that the paragraph beside a table
 * quotes exactly the table's numbers (issue 61: Volna's paragraph said 45% where its table said 26.9%): a row's
 * share of loop time (the median over the app's runs), its counted operations per element and per byte (per
 * path: the shortest and the longest through the kernel's branches; or counted by the app at run time) and
 * what bounds it; the spread of a time and whether it is noise; a GB/s figure. */
#include "htmlreport_internal.h"

/* A loop's operations per element. From the kernel's source (ops_estimate: the longest path, ops_fewest: the
 * shortest), or, when the source cannot give them, from the app's own count at run time (the run's metrics
 * gflops_<loop> and seconds_<loop>: the operations of one call; SIAC counts its quadrature so: a lower bound). */
rep_ops rep_loop_ops(const uj *run, const uj *loop) {
  rep_ops o = {-1, -1, REP_OPS_NONE};
  const double hi = uj_getn(loop, "ops_estimate", -1);
  if (hi >= 0) {
    o.hi = hi;
    o.lo = uj_getn(loop, "ops_fewest", hi);
    o.source = o.lo < o.hi ? REP_OPS_PATHS : REP_OPS_EXACT;
    return o;
  }
  char gk[300], sk[300];
  const char *name = uj_gets(loop, "name", "");
  snprintf(gk, sizeof gk, "gflops_%s", name);
  snprintf(sk, sizeof sk, "seconds_%s", name);
  const uj *m = uj_get(run, "metrics");
  const double g = uj_getn(m, gk, NAN), s = uj_getn(m, sk, NAN), size = uj_getn(loop, "set_size", 0);
  if (isfinite(g) && isfinite(s) && g > 0 && s > 0 && size > 0) {
    o.lo = o.hi = g * 1e9 * s / size;
    o.source = REP_OPS_RUN;
  }
  return o;
}

/* what bounds a loop of ops/byte lo .. hi: memory below 1 everywhere, arithmetic from REP_COMPUTE up */
int rep_bound_class(double ai_lo, double ai_hi, int known) {
  if (!known) return REP_BOUND_UNKNOWN;
  if (ai_hi < 1) return REP_BOUND_MEMORY;
  if (ai_lo >= REP_COMPUTE) return REP_BOUND_ARITHMETIC;
  return REP_BOUND_BETWEEN;
}

const char *rep_bound_words(int cls) {
  static const char *const w[] = {"bound by memory", "between memory and arithmetic", "bound by arithmetic",
                                  "operations not counted"};
  return w[cls < 0 || cls > 3 ? 3 : cls];
}

/* the share of the loops' time of the row's loops in the app's runs: the median over them (-1: none) */
static double median_share(const rep_index *ix, const uj *const *files, int nfiles, const char *app,
                           const app_loop *al, const rep_rowspan *one) {
  double *shares = NULL;
  int ns = 0, cap = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cs = uj_get(files[k], "cases");
    for (int c = 0; c < uj_len(cs); c++) {
      const uj *r = uj_get(uj_at(cs, c), "run");
      rep_figs fg;
      if (strcmp(uj_gets(uj_at(cs, c), "app", ""), app) || !rep_row_figures(ix, r, al, one, &fg)) continue;
      const double tot = rep_loops_seconds(ix, r);
      if (tot <= 0) continue;
      if (ns == cap) {
        cap = cap ? 2 * cap : 64;
        double *n2 = realloc(shares, (size_t)cap * sizeof *n2);
        if (!n2) break;
        shares = n2;
      }
      shares[ns++] = fg.seconds / tot;
    }
  }
  const double m = ns ? umrun_median(shares, ns) : -1;
  free(shares);
  return m;
}

/* The row's figures as the loops table prints them (the paragraph quotes these strings). */
void rep_row_text(const rep_index *ix, const uj *const *files, int nfiles, const char *app, const app_loop *al,
                  const rep_rowspan *one, rep_rowtext *t) {
  double size = 0, bpc = 0, lo = 0, hi = 0;
  int unknown = 0, run_counted = 0;
  for (int z = one->start; z < one->start + one->count; z++) {
    const double zs = uj_getn(al[z].loop, "set_size", 0);
    const rep_ops o = rep_loop_ops(al[z].run, al[z].loop);
    size += zs, bpc += uj_getn(al[z].loop, "bytes_per_call", 0);
    unknown |= o.source == REP_OPS_NONE;
    run_counted |= o.source == REP_OPS_RUN;
    lo += o.lo * zs, hi += o.hi * zs;
  }
  t->share = median_share(ix, files, nfiles, app, al, one);
  if (t->share >= 0) snprintf(t->share_text, sizeof t->share_text, "%.1f%%", 100 * t->share);
  else snprintf(t->share_text, sizeof t->share_text, "-");
  t->ops_lo = unknown || size <= 0 ? -1 : lo / size;
  t->ops_hi = unknown || size <= 0 ? -1 : hi / size;
  t->ai_lo = unknown || bpc <= 0 ? -1 : lo / bpc;
  t->ai_hi = unknown || bpc <= 0 ? -1 : hi / bpc;
  t->bound_kind = unknown ? REP_OPS_NONE : run_counted ? REP_OPS_RUN : lo < hi ? REP_OPS_PATHS : REP_OPS_EXACT;
  const char *pre = t->bound_kind == REP_OPS_RUN ? "\u2265" : ""; /* the app's count: a lower bound */
  if (unknown) { /* an unknown count (null, or -1 from older files) is said, never shown as 0 */
    snprintf(t->ops_text, sizeof t->ops_text, "unknown");
    snprintf(t->ai_text, sizeof t->ai_text, "unknown");
  } else if (t->bound_kind == REP_OPS_PATHS) { /* the shortest .. the longest path */
    snprintf(t->ops_text, sizeof t->ops_text, "%.0f..%.0f", t->ops_lo, t->ops_hi);
    snprintf(t->ai_text, sizeof t->ai_text, bpc > 0 ? "%.3f..%.3f" : "-", t->ai_lo, t->ai_hi);
  } else {
    snprintf(t->ops_text, sizeof t->ops_text, "%s%.0f", pre, t->ops_hi);
    snprintf(t->ai_text, sizeof t->ai_text, bpc > 0 ? "%s%.3f" : "-", pre, t->ai_hi);
  }
  t->bound = rep_bound_class(t->ai_lo, t->ai_hi, !unknown && bpc > 0);
}

/* " ±12%" (half the spread of the samples as a share of the median), with REP_NOISE_MARK when it is above
 * REP_NOISY percent; "" with one sample. Returns 1 when it is noise. */
int rep_spread_text(char *buf, size_t len, const rep_figs *f) {
  buf[0] = '\0';
  if (!(f->samples > 1 && f->seconds > 0)) return 0;
  const long pct = lround(50 * (f->smax - f->smin) / f->seconds); /* the flag goes by the figure shown */
  const int noisy = pct > REP_NOISY;
  snprintf(buf, len, " \u00b1%ld%%%s", pct, noisy ? REP_NOISE_MARK : "");
  return noisy;
}

/* a GB/s figure with its significant digits: 1234.5, 16.1, 0.00426 (never a bare 0.0 for a slow loop) */
void rep_gbs_text(char *buf, size_t len, double g) {
  if (g >= 10 || g == 0) snprintf(buf, len, "%.1f", g);
  else snprintf(buf, len, "%.3g", g);
}
