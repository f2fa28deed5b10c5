/* umrun --compare A.json B.json: two suite results files (e.g. an H100 run and
 * an H200 run, or this commit and the last release on one card), case by case:
 *  - correctness: a run that passed in A and does not in B; every metric
 *    against its reference tolerance in both, and the drift |B - A| against
 *    that tolerance (atomics' summation order, for one, legitimately moves
 *    results between GPUs: the drift says by how much of the budget);
 *  - speed: per loop the ratio of time per call B / A, flagged beyond the
 *    noise threshold.
 * Exit status 3 on a correctness regression, else 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "um/safe_file.h"
#include "tools.h"
#include "um/report.h"
#include "compare_settings.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_REGRESSION = 3, EXIT_NOT_COMPARABLE = 4 };
#define MAX_DIFFS 64 /* settings that differ, listed per pair */

void umrun_compare_usage(FILE *f) {
  fputs("usage: umrun --compare A.json B.json [--allow KEY,...] [--noise F] [--drift-fails] [--brief | --top N]\n"
        "                     [--md FILE] [--json FILE]\n"
        "\n"
        "Compares two results files of umrun --suite (A the baseline, B the new run), case by case\n"
        "(runs are matched by their id: case[variant]), or two single runs' --json:\n"
        "  settings     every option in effect of each pair of runs (the runs' JSON records them with\n"
        "               their sources); a pair whose defining settings differ is NOT COMPARABLE and is\n"
        "               not compared, the settings that differ listed first, unless --allow names them\n"
        "  --allow K,.. the settings allowed to differ (keys, or prefixes as params.*): the pair is\n"
        "               compared, the differences shown\n"
        "  correctness  each metric against its tolerance in A and in B, and the drift |B - A|\n"
        "               as a share of that tolerance; a run that passed in A and fails or is\n"
        "               missing in B is a REGRESSION\n"
        "  speed        per loop, time per call B / A; called SLOWER or FASTER only when both sides\n"
        "               measured their spread (--repeat N), the change is beyond the noise threshold\n"
        "               (default 0.10: 10%) and beyond the spread of each side (the ranges min..max\n"
        "               do not overlap), and neither side ran on a loaded machine (load average above\n"
        "               the cores); otherwise a change beyond the threshold is \"noisy\", with why;\n"
        "               a loop run in one file only is listed as\n"
        "               such; the loops a split generates (run.split) are listed after their loop\n"
        "               (\"part of\" it) and not counted again in its run's time in loops\n"
        "  --drift-fails  also count a drift beyond the tolerance as a regression (by default it\n"
        "               is flagged DRIFT: both may still be within tolerance of the reference)\n"
        "  --top N      print the verdict, the correctness regressions and the N largest speed\n"
        "               changes only (--brief: --top 10); --md and --json still get everything\n"
        "  --md FILE, --json FILE   write the comparison as markdown / JSON too\n"
        "\n"
        "The verdict comes first: correctness regressions, drifts, loops slower and faster.\n"
        "\n"
        "exit status: 0 no correctness regression and every pair comparable; 1 bad command line or\n"
        "file; 2 --md or --json could not be written; 3 a correctness regression; 4 no regression,\n"
        "but a pair was not comparable.\n",
        f);
}

static const uj *find_case(const uj *cases, const char *id) {
  for (int i = 0; i < uj_len(cases); i++)
    if (!strcmp(uj_gets(uj_at(cases, i), "id", ""), id)) return uj_at(cases, i);
  return NULL;
}

static const uj *find_named(const uj *arr, const char *name) {
  for (int i = 0; i < uj_len(arr); i++)
    if (!strcmp(uj_gets(uj_at(arr, i), "name", ""), name)) return uj_at(arr, i);
  return NULL;
}

static double ms_per_call(const uj *loop) {
  const double c = uj_getn(loop, "calls", 0);
  return c > 0 ? 1e3 * uj_getn(loop, "seconds", 0) / c : NAN;
}

/* the loop's range of ms per call over its samples (--suite --repeat): min..max, or the one value */
static void ms_range(const uj *loop, double *lo, double *hi) {
  const double c = uj_getn(loop, "calls", 0), med = ms_per_call(loop);
  *lo = *hi = med;
  if (c > 0 && uj_getn(loop, "samples", 1) > 1) {
    *lo = 1e3 * uj_getn(loop, "seconds_min", NAN) / c;
    *hi = 1e3 * uj_getn(loop, "seconds_max", NAN) / c;
    if (!isfinite(*lo) || !isfinite(*hi)) *lo = *hi = med;
  }
}

/* the most samples per run in a results file (1: no --repeat) */
static int file_samples(const uj *R) {
  int n = (int)uj_getn(R, "repeat", uj_getn(uj_get(uj_at(uj_get(R, "cases"), 0), "run"), "repeat", 1));
  return n > 1 ? n : 1;
}

typedef struct {
  char id[600], label[600];
  double ta, tb, ratio;
  const char *flag;
} change;

static int by_size(const void *a, const void *b) {
  const change *x = a, *y = b;
  const double dx = fabs(log(x->ratio)), dy = fabs(log(y->ratio));
  return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* every string from a results file reaches the markdown escaped (umrun_md_escape) */
#define MD(buf, s) umrun_md_str(buf, sizeof buf, s)

static void machine_line(FILE *o, const char *tag, const uj *R) {
  const uj *m = uj_get(R, "machine"), *g = uj_get(m, "gpu"), *um = uj_get(R, "um");
  char e[5][512];
  fprintf(o, "- %s: %s, %s", MD(e[0], tag), MD(e[1], uj_gets(m, "host", "?")), MD(e[2], uj_gets(m, "cpu", "?")));
  if (g && g->kind == UJ_OBJ) {
    fprintf(o, "; GPU %s (cc %s, ", MD(e[0], uj_gets(g, "name", "?")), MD(e[1], uj_gets(g, "compute_capability", "?")));
    /* the kernel driver's release when the file has one (digits and dots: older files may hold a
     * word from /proc/driver/nvidia/version there), then the CUDA level it supports */
    const char *rel = uj_gets(g, "driver_release", "");
    const int has_rel = *rel && strspn(rel, "0123456789.") == strlen(rel);
    if (has_rel) fprintf(o, "driver %s, ", MD(e[2], rel));
    fprintf(o, "CUDA driver API %s, runtime %s)", MD(e[3], uj_gets(g, "driver", "?")),
            MD(e[4], uj_gets(g, "cuda_runtime", "?")));
  }
  fprintf(o, "; um commit %s", MD(e[0], uj_gets(um, "commit", "?")));
  if (uj_get(R, "started")) fprintf(o, "; started %s", MD(e[1], uj_gets(R, "started", "?")));
  if (uj_is_true(uj_get(R, "single_run"))) fputs("; a single run's --json", o);
  fputc('\n', o);
}

typedef struct {
  int regressions, drifts, slower, faster, compared_runs, missing_b, new_b;
  int loops_only_a, loops_only_b, generated; /* loops of one side only; loops generated by splitting */
  int within_spread;                          /* changes beyond the noise but inside the measured spread */
  int noisy_one, noisy_loaded;                /* changes beyond the noise not called: one sample; a loaded side */
  int not_comparable, allowed;                /* pairs whose settings differ: refused; allowed (--allow) */
  int unjudged;                               /* metrics that differ where no validation gives a tolerance */
} tally;

/* the command line */
typedef struct {
  const char *fa, *fb, *md, *js; /* the two results files; --md and --json */
  double noise;
  int drift_fails, top;
  cmp_allow allow; /* --allow */
} cmp_opts;

/* what the comparison writes to and counts, case after case */
typedef struct {
  FILE *J, *co, *so, *po, *xo; /* the JSON; the correctness, speed, per-run and settings tables */
  const cmp_allow *allow;
  double noise;
  int drift_fails;
  tally t;
  change *ch; /* the loops run in both files, for --top */
  int nch, cch;
} cmp_ctx;

/* one run (case) of A and its match in B, as it is compared */
typedef struct {
  char eid[600], esa[64], esb[64]; /* its id and both statuses, escaped for markdown */
  int reg;                         /* a correctness regression */
  double max_share, ta_sum, tb_sum; /* the largest drift / tolerance; time in loops in A and B */
  char max_name[128];              /* the metric of the largest drift */
  int nloops;                      /* loops counted in its time in loops */
  int loaded_a, loaded_b;          /* a side ran on a loaded machine: no speed verdict */
  char differ[300];                /* the settings that differ (allowed), for the loops it cannot pair */
  const uj *la, *lb;               /* the runs' loops */
  char why[700];                   /* a loop in one run only: why (the flag of that loop) */
} case_acc;

/* the command line into *op: -1 to go on, else the exit status */
static int parse_compare_args(int argc, char **argv, cmp_opts *op) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return umrun_compare_usage(stdout), EXIT_OK;
    if ((!strcmp(a, "--noise") || !strcmp(a, "--md") || !strcmp(a, "--json") || !strcmp(a, "--top") ||
         !strcmp(a, "--allow")) && i + 1 >= argc) {
      fprintf(stderr, "umrun --compare: %s needs an argument\n", a);
      return EXIT_USAGE;
    }
    if (!strcmp(a, "--compare")) continue;
    if (!strcmp(a, "--noise")) {
      char *end = NULL;
      op->noise = strtod(argv[++i], &end);
      if (!end || *end || !(op->noise >= 0)) {
        fprintf(stderr, "umrun --compare: --noise '%s': expected a fraction >= 0 (0.1 for 10%%)\n", argv[i]);
        return EXIT_USAGE;
      }
    } else if (!strcmp(a, "--top")) {
      char *end = NULL;
      const long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1) {
        fprintf(stderr, "umrun --compare: --top '%s': expected a number of changes >= 1 (e.g. 10)\n", argv[i]);
        return EXIT_USAGE;
      }
      op->top = v > 100000 ? 100000 : (int)v;
    } else if (!strcmp(a, "--allow")) {
      if (cmp_allow_add(&op->allow, argv[++i])) return EXIT_RUN;
    } else if (!strcmp(a, "--brief")) op->top = 10;
    else if (!strcmp(a, "--md")) op->md = argv[++i];
    else if (!strcmp(a, "--json")) op->js = argv[++i];
    else if (!strcmp(a, "--drift-fails")) op->drift_fails = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "umrun --compare: unknown option '%s' (see umrun --compare --help)\n", a);
      return EXIT_USAGE;
    } else if (!op->fa) op->fa = a;
    else if (!op->fb) op->fb = a;
    else {
      fprintf(stderr, "umrun --compare: give two results files (A, the baseline, and B); '%s' is a third\n", a);
      return EXIT_USAGE;
    }
  }
  if (!op->fa || !op->fb) {
    fprintf(stderr, "usage: umrun --compare A.json B.json (results files of umrun --suite; see --compare --help)\n");
    return EXIT_USAGE;
  }
  const char *const ins[] = {op->fa, op->fb}, *outs[] = {op->md, op->js}, *flags[] = {"--md", "--json"};
  for (int k = 0; k < 2; k++)
    if (umrun_output_is_input(outs[k], ins, 2) >= 0) {
      fprintf(stderr, "umrun --compare: %s '%s' is one of the files compared; write it elsewhere\n", flags[k], outs[k]);
      return EXIT_USAGE;
    }
  return -1;
}

/* both files parsed: two results files of umrun --suite, or two single runs' --json (each read as a results
 * file of its one run): 0, or the exit status */
static int load_results(const cmp_opts *op, uj **A, uj **B) {
  char err[4096];
  int single[2] = {0, 0};
  *A = *B = NULL;
  if (cmp_load_file(op->fa, A, &single[0], err, sizeof err) || cmp_load_file(op->fb, B, &single[1], err, sizeof err)) {
    fprintf(stderr, "umrun --compare: %s\n", err);
    uj_free(*A);
    return EXIT_USAGE;
  }
  const char *bad = NULL;
  for (int k = 0; k < 2 && !bad; k++)
    if (strcmp(uj_gets(k ? *B : *A, "format", ""), "um-suite-results-1") != 0) bad = k ? op->fb : op->fa;
  if (bad) {
    umrun_results_format_why("umrun --compare", bad, bad == op->fb ? *B : *A, " nor a run's --json", err, sizeof err);
    fprintf(stderr, "%s\n", err);
  } else if (single[0] != single[1])
    fprintf(stderr, "umrun --compare: '%s' is %s and '%s' %s: compare like with like (two results files of umrun "
                    "--suite, or two runs' --json)\n", op->fa, single[0] ? "a single run's --json" : "a results file of "
                    "umrun --suite", op->fb, single[1] ? "a single run's --json" : "a results file of umrun --suite");
  const char *app[2] = {"", ""};
  for (int k = 0; !bad && single[0] && single[1] && k < 2; k++)
    app[k] = uj_gets(uj_at(uj_get(k ? *B : *A, "cases"), 0), "app", "");
  const int other_app = strcmp(app[0], app[1]) != 0;
  if (other_app) /* no loop, metric or setting of one is the other's: nothing to compare */
    fprintf(stderr, "umrun --compare: '%s' is a run of %s and '%s' a run of %s: compare runs of one app\n", op->fa,
            app[0], op->fb, app[1]);
  if (bad || single[0] != single[1] || other_app) {
    uj_free(*A);
    uj_free(*B);
    return EXIT_USAGE;
  }
  return 0;
}

/* the markdown's header (machines, thresholds) and the JSON's opening */
static void write_header(FILE *o, FILE *J, const uj *A, const uj *B, const cmp_opts *op, int sa_n, int sb_n) {
  fprintf(o, "# um --compare\n\n");
  machine_line(o, "A", A);
  machine_line(o, "B", B);
  fprintf(o, "- noise threshold for speed: %.0f%%\n", 100 * op->noise);
  if (sa_n > 1 || sb_n > 1)
    fprintf(o, "- spread: A has %d sample%s per run, B %d (umrun --suite --repeat); a change is called only beyond the "
               "measured spread of each side (the ranges min..max apart) as well as beyond the noise threshold\n",
            sa_n, sa_n == 1 ? "" : "s", sb_n);
  else
    fprintf(o, "- spread: one sample per run in A and in B: no spread was measured, so no change is called faster or "
               "slower: one beyond the noise threshold is \"noisy\" (measure with umrun --suite ... --repeat 5, or "
               "umrun CONFIG --repeat 5, on an idle machine)\n");
  fprintf(o, "- a run on a loaded machine (load average above its cores, recorded around each run) gets no speed "
             "verdict\n\n");
  fputs("{\"format\": \"um-compare-1\", \"a\": ", J);
  um_json_string(J, op->fa);
  fputs(", \"b\": ", J);
  um_json_string(J, op->fb);
  fprintf(J, ", \"noise\": %g, \"cases\": [", op->noise);
}

/* the metrics: both runs' validation entries, by name, each against its tolerance and the drift */
static void compare_metrics(cmp_ctx *c, case_acc *r, const uj *ma, const uj *mb) {
  FILE *J = c->J;
  char ename[300];
  fputs(", \"metrics\": [", J);
  for (int k = 0; k < uj_len(ma); k++) {
    const uj *x = uj_at(ma, k);
    const char *name = uj_gets(x, "name", "?");
    const uj *y = find_named(mb, name);
    const double va = uj_getn(x, "got", NAN), vb = y ? uj_getn(y, "got", NAN) : NAN;
    double allow = umrun_metric_allowance(x);
    const double allow_b = y ? umrun_metric_allowance(y) : -1;
    if (allow_b > allow) allow = allow_b;
    const double drift = fabs(vb - va);
    const double share = allow > 0 ? drift / allow : (drift == 0 ? 0 : INFINITY);
    const int pa = uj_is_true(uj_get(x, "pass")), pb = y && uj_is_true(uj_get(y, "pass"));
    if (share > r->max_share || (isnan(share) && r->max_share < INFINITY)) {
      r->max_share = isnan(share) ? INFINITY : share;
      snprintf(r->max_name, sizeof r->max_name, "%s", name);
    }
    const char *verdict = "ok";
    int reg = 0;
    if (pa && !pb) verdict = "REGRESSION (B outside the tolerance)", reg = 1;
    else if (!(share <= 1)) {
      verdict = "DRIFT beyond the tolerance";
      c->t.drifts++;
      if (c->drift_fails) reg = 1;
    } else if (!pa && !pb) verdict = "fails in both";
    r->reg |= reg;
    /* every metric: its drift against its tolerance, always */
    fprintf(c->co, "| %s | %s | %s | %s | %.10g | %.10g | %.3g | %.3g | %s%s%s |\n", r->eid, r->esa, r->esb,
            MD(ename, name), va, vb, allow, share, reg ? "**" : "", verdict, reg ? "**" : "");
    fputs(k ? ", {\"name\": " : "{\"name\": ", J);
    um_json_string(J, name);
    fputs(", \"a\": ", J);
    um_json_number(J, va);
    fputs(", \"b\": ", J);
    um_json_number(J, vb);
    fputs(", \"tolerance\": ", J);
    um_json_number(J, allow > 0 ? allow : NAN);
    fputs(", \"drift_share\": ", J);
    um_json_number(J, share);
    fputs(", \"verdict\": ", J);
    um_json_string(J, verdict);
    fputc('}', J);
  }
}

/* A metric's name that says it is a time (never compared as a result). */
static int timing_name(const char *name) {
  static const char *const t[] = {"seconds", "ms_per", "per_second", "speedup", "_time_ratio"};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strstr(name, t[i])) return 1;
  return 0;
}

/* Runs without a validation reference have no tolerances: their metrics (the JSON's "metrics", times left out)
 * that differ are listed and counted, not judged (a 1000x change would otherwise pass unseen). */
static void unjudged_metrics(cmp_ctx *c, const case_acc *r, const uj *a, const uj *b) {
  char ename[300];
  for (int k = 0; a && a->kind == UJ_OBJ && k < a->n; k++) {
    const char *name = a->keys[k];
    const uj *x = &a->items[k], *y = uj_get(b, name);
    if (x->kind != UJ_NUM || timing_name(name)) continue;
    const double va = x->num, vb = y && y->kind == UJ_NUM ? y->num : NAN;
    if (va == vb || (isnan(va) && isnan(vb) && y)) continue;
    c->t.unjudged++;
    fprintf(c->co, "| %s | %s | %s | %s | %.10g | %.10g | - | - | differs (no validation reference: no tolerance) |\n",
            r->eid, r->esa, r->esb, MD(ename, name), va, vb);
  }
}

/* the order the loops are listed in: each of A's in table order (a split loop's generated loops under it,
 * then those of its group only in B), then the rest of B's. seq gets A's index, or na + B's; returns their
 * number. ord, dep (na each) and used (nb) are work space. */
static int loop_sequence(const uj *la, const uj *lb, int *ord, int *dep, int *seq, int *used) {
  const int na = uj_len(la), nb = uj_len(lb);
  const int nord = umrun_loop_order(la, ord, dep);
  int nseq = 0;
  for (int k = 0; k < nb; k++) used[k] = find_named(la, uj_gets(uj_at(lb, k), "name", "?")) != NULL;
  const char *top = NULL;
  for (int q = 0; q <= nord; q++) {
    if (q == nord || !dep[q]) { /* the group of the previous loop of the app ends: B's loops of it that A lacks */
      for (int k = 0; top && k < nb; k++) {
        const char *p = umrun_loop_parent(uj_at(lb, k));
        if (!used[k] && p && !strcmp(p, top)) used[k] = 1, seq[nseq++] = na + k;
      }
      if (q == nord) break;
      top = umrun_loop_parent(uj_at(la, ord[q])) ? NULL : uj_gets(uj_at(la, ord[q]), "name", "?");
    }
    seq[nseq++] = ord[q];
  }
  for (int k = 0; k < nb; k++) /* B's loops that A lacks (e.g. the generated loops of a loop split only in B) */
    if (!used[k]) seq[nseq++] = na + k;
  return nseq;
}

/* a loop run in one side only (x: the loop, in A when in_a): the real reason, into r->why */
static const char *unpaired(const case_acc *r_, const uj *x, int in_a) {
  case_acc *r = (case_acc *)r_;
  const char *side = in_a ? "A" : "B", *other = in_a ? "B" : "A", *parent = umrun_loop_parent(x);
  const uj *mine = in_a ? r->la : r->lb, *theirs = in_a ? r->lb : r->la;
  if (parent) { /* a loop a split generated: how each side ran its parent */
    const uj *pm = NULL, *pt = NULL;
    for (int i = 0; i < uj_len(mine); i++) if (!strcmp(uj_gets(uj_at(mine, i), "name", ""), parent)) pm = uj_at(mine, i);
    for (int i = 0; i < uj_len(theirs); i++) if (!strcmp(uj_gets(uj_at(theirs, i), "name", ""), parent)) pt = uj_at(theirs, i);
    const char *sm = uj_gets(pm, "split", "off"), *st = pt ? uj_gets(pt, "split", "off") : "not run";
    if (strcmp(sm, st)) {
      snprintf(r->why, sizeof r->why, "only in %s: %s ran %s split (%s), %s %s", side, side, parent, sm, other,
               !strcmp(st, "off") ? "whole" : st);
      return r->why;
    }
  }
  if (r->differ[0]) snprintf(r->why, sizeof r->why, "only in %s: %s did not run it (the settings differ: %s)", side,
                             other, r->differ);
  else snprintf(r->why, sizeof r->why, "only in %s: %s did not run it with the same settings (compare the um commits)",
                side, other);
  return r->why;
}

/* the loop's speed flag, counted in the tally (a generated loop is flagged but not counted). A change is called
 * only where both sides measured their spread (--repeat), neither ran loaded, and the change is beyond the
 * noise threshold and beyond the spread of each side; otherwise it is "noisy", with why. */
static const char *speed_flag(cmp_ctx *c, case_acc *r, const uj *x, const uj *y, int generated, double ratio) {
  const double noise = c->noise;
  if (!x) return c->t.loops_only_b++, unpaired(r, y, 0);
  if (!y) return c->t.loops_only_a++, unpaired(r, x, 1);
  if (!generated) {
    r->ta_sum += uj_getn(x, "seconds", 0);
    r->tb_sum += uj_getn(y, "seconds", 0);
    r->nloops++;
  }
  if (!(ratio > 1 + noise || ratio < 1 / (1 + noise))) return "";
  if (r->loaded_a || r->loaded_b) {
    c->t.noisy_loaded += !generated;
    return r->loaded_a && r->loaded_b ? "noisy (A and B loaded)" : r->loaded_a ? "noisy (A loaded)" : "noisy (B loaded)";
  }
  if (uj_getn(x, "samples", 1) < 2 || uj_getn(y, "samples", 1) < 2) return c->t.noisy_one += !generated, "noisy (one sample)";
  double alo, ahi, blo, bhi; /* the samples' ranges: a change inside them is not called */
  ms_range(x, &alo, &ahi);
  ms_range(y, &blo, &bhi);
  const double d = fabs(ms_per_call(y) - ms_per_call(x));
  const int beyond = d > ahi - alo && d > bhi - blo;
  if (ratio > 1 && blo > ahi && beyond) return c->t.slower += !generated, "SLOWER";
  if (ratio < 1 && bhi < alo && beyond) return c->t.faster += !generated, "FASTER";
  return c->t.within_spread += !generated, "noisy (within spread)";
}

/* the loop's cell: a generated loop says whose part it is; a loop split in either run says how */
static void loop_label(char *label, size_t n, const char *name, const char *parent, const uj *x, const uj *y) {
  const char *sa_ = x ? uj_gets(x, "split", "off") : "-", *sb_ = y ? uj_gets(y, "split", "off") : "-";
  const int split_a = x && strcmp(sa_, "off"), split_b = y && strcmp(sb_, "off");
  if (parent) snprintf(label, n, "%s (part of %s)", name, parent);
  else if ((split_a || split_b) && x && y && !strcmp(sa_, sb_)) snprintf(label, n, "%s (split: %s)", name, sa_);
  else if (split_a || split_b) snprintf(label, n, "%s (split: A %s, B %s)", name, sa_, sb_);
  else snprintf(label, n, "%s", name);
}

/* a loop in both files, for --top's largest changes: 0, or -1 out of memory */
static int record_change(cmp_ctx *c, const char *eid, const char *label, double ta, double tb, double ratio,
                         const char *flag) {
  if (c->nch == c->cch) {
    c->cch = c->cch ? 2 * c->cch : 64;
    change *nc = realloc(c->ch, (size_t)c->cch * sizeof *nc);
    if (!nc) return -1;
    c->ch = nc;
  }
  change *e = &c->ch[c->nch];
  snprintf(e->id, sizeof e->id, "%s", eid);
  MD(e->label, label);
  e->ta = ta, e->tb = tb, e->ratio = ratio, e->flag = flag;
  c->nch++;
  return 0;
}

/* the loop's JSON entry */
static void loop_json(FILE *J, int first, const char *name, const char *parent, const uj *x, const uj *y, double ta,
                      double tb, double ratio, const char *flag) {
  fputs(first ? "{\"name\": " : ", {\"name\": ", J);
  um_json_string(J, name);
  fputs(", \"parent\": ", J);
  if (parent) um_json_string(J, parent);
  else fputs("null", J);
  fputs(", \"split_a\": ", J);
  if (x) um_json_string(J, uj_gets(x, "split", "off"));
  else fputs("null", J);
  fputs(", \"split_b\": ", J);
  if (y) um_json_string(J, uj_gets(y, "split", "off"));
  else fputs("null", J);
  fputs(", \"a_ms\": ", J);
  um_json_number(J, ta);
  fputs(", \"b_ms\": ", J);
  um_json_number(J, tb);
  fputs(", \"ratio\": ", J);
  um_json_number(J, x && y ? ratio : NAN);
  fputs(", \"flag\": ", J);
  um_json_string(J, flag);
  fputc('}', J);
}

/* one loop, of A (x) or B (y) or both: its speed row and JSON entry. 0, or -1 out of memory */
static int compare_loop(cmp_ctx *c, case_acc *r, const uj *x, const uj *y, int first) {
  const uj *any = x ? x : y;
  const char *name = uj_gets(any, "name", "?"), *parent = umrun_loop_parent(any);
  const int generated = parent != NULL;
  const double ta = x ? ms_per_call(x) : NAN, tb = y ? ms_per_call(y) : NAN, ratio = tb / ta;
  c->t.generated += generated;
  const char *flag = speed_flag(c, r, x, y, generated, ratio);
  char label[600], ename[300];
  loop_label(label, sizeof label, name, parent, x, y);
  char cta[32] = "-", ctb[32] = "-", cr[32] = "-", cga[32] = "-", cgb[32] = "-";
  if (x) snprintf(cta, sizeof cta, "%.4g", ta), snprintf(cga, sizeof cga, "%.1f", umrun_loop_gbs(x));
  if (y) snprintf(ctb, sizeof ctb, "%.4g", tb), snprintf(cgb, sizeof cgb, "%.1f", umrun_loop_gbs(y));
  if (x && y) snprintf(cr, sizeof cr, "%.3f", ratio);
  if (x && y && !generated && ratio > 0 && isfinite(ratio)) /* for --top: the largest changes */
    if (record_change(c, r->eid, label, ta, tb, ratio, flag)) return -1;
  fprintf(c->so, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->eid, MD(ename, label), cta, ctb, cr, cga, cgb, flag);
  loop_json(c->J, first, name, parent, x, y, ta, tb, ratio, flag);
  return 0;
}

/* the loops of a run in A and B. A generated loop's time is inside its parent's: compared and flagged, but
 * neither summed into the run's time in loops nor counted among the loops slower or faster (its parent is).
 * 0, or -1 out of memory */
static int compare_loops(cmp_ctx *c, case_acc *r, const uj *la, const uj *lb) {
  fputs("], \"loops\": [", c->J);
  r->la = la, r->lb = lb;
  const int na = uj_len(la), nb = uj_len(lb);
  int *ord = malloc((size_t)(3 * na + 2 * nb + 1) * sizeof *ord);
  if (!ord) return -1;
  int *dep = ord + na, *seq = dep + na, *used = seq + na + nb; /* seq: A's index, or na + B's */
  const int nseq = loop_sequence(la, lb, ord, dep, seq, used);
  for (int q = 0; q < nseq; q++) {
    const int in_b_only = seq[q] >= na;
    const uj *x = in_b_only ? NULL : uj_at(la, seq[q]);
    const uj *y = in_b_only ? uj_at(lb, seq[q] - na) : find_named(lb, uj_gets(x, "name", "?"));
    if (compare_loop(c, r, x, y, q == 0)) return -1;
  }
  free(ord);
  return 0;
}

/* the settings of run a and its match b: each that differs listed in the settings table and the JSON; 1 when
 * one that --allow does not name differs (the pair is not comparable: its entry closed, nothing compared) */
static int compare_settings(cmp_ctx *c, case_acc *r, const uj *a, const uj *b) {
  cmp_setting d[MAX_DIFFS];
  int recorded = 0, refused = 0;
  const int nd = cmp_settings_differ(uj_get(a, "run"), uj_get(b, "run"), c->allow, d, MAX_DIFFS, &recorded);
  char e[4][700];
  fprintf(c->J, ", \"settings_recorded\": %s, \"differences\": [", recorded ? "true" : "false");
  for (int k = 0; k < nd && k < MAX_DIFFS; k++) {
    refused |= !d[k].allowed;
    fprintf(c->xo, "| %s | %s | %s (%s) | %s (%s) | %s |\n", r->eid, MD(e[0], d[k].key), MD(e[1], d[k].a), d[k].sa,
            MD(e[2], d[k].b), d[k].sb, d[k].allowed ? "allowed (--allow)" : "**differs: not comparable**");
    fputs(k ? ", {\"key\": " : "{\"key\": ", c->J);
    um_json_string(c->J, d[k].key);
    fputs(", \"a\": ", c->J);
    um_json_string(c->J, d[k].a);
    fputs(", \"b\": ", c->J);
    um_json_string(c->J, d[k].b);
    fputs(", \"source_a\": ", c->J);
    um_json_string(c->J, d[k].sa);
    fputs(", \"source_b\": ", c->J);
    um_json_string(c->J, d[k].sb);
    fprintf(c->J, ", \"allowed\": %s}", d[k].allowed ? "true" : "false");
    const size_t l = strlen(r->differ);
    if (l + strlen(d[k].key) + 3 < sizeof r->differ) snprintf(r->differ + l, sizeof r->differ - l, "%s%.199s", l ? ", " : "", d[k].key);
  }
  if (!recorded)
    fprintf(c->xo, "| %s | (not recorded) | | | settings unchecked: a file older than the provenance (um-run-2) |\n",
            r->eid);
  fprintf(c->J, "], \"comparable\": %s", refused ? "false" : "true");
  if (!refused) {
    c->t.allowed += nd > 0;
    return 0;
  }
  c->t.not_comparable++;
  fprintf(c->po, "| %s | %s | %s | - | NOT COMPARABLE: %s differ%s | - | - |\n", r->eid, r->esa, r->esb,
          MD(e[3], r->differ), nd > 1 ? "" : "s");
  fputs(", \"regression\": false, \"metrics\": [], \"loops\": []}", c->J);
  return 1;
}

/* one run of A (a) against its match in the cases of B: 0, or -1 out of memory */
static int compare_case(cmp_ctx *c, const uj *a, const uj *cb, int first) {
  FILE *J = c->J;
  const char *id = uj_gets(a, "id", "?");
  const uj *b = find_case(cb, id);
  const char *sa = uj_gets(a, "status", "?"), *sb = b ? uj_gets(b, "status", "?") : "missing";
  case_acc r = {.max_share = -1};
  char emsg[2100], edrift[400];
  MD(r.eid, id), MD(r.esa, sa), MD(r.esb, sb);
  fputs(first ? "\n  {\"id\": " : ",\n  {\"id\": ", J);
  um_json_string(J, id);
  fputs(", \"a\": ", J);
  um_json_string(J, sa);
  fputs(", \"b\": ", J);
  um_json_string(J, sb);
  if (!b) {
    c->t.missing_b++;
    if (!strcmp(sa, "pass")) {
      r.reg = 1;
      fprintf(c->co, "| %s | %s | missing | | | | | | **REGRESSION**: not run in B |\n", r.eid, r.esa);
    }
    fprintf(J, ", \"regression\": %s, \"metrics\": [], \"loops\": []}", r.reg ? "true" : "false");
    c->t.regressions += r.reg;
    return 0;
  }
  if (compare_settings(c, &r, a, b)) return 0; /* not comparable: not compared */
  c->t.compared_runs++;
  r.loaded_a = cmp_loaded(a), r.loaded_b = cmp_loaded(b);
  if (!strcmp(sa, "pass") && strcmp(sb, "pass")) {
    r.reg = 1;
    fprintf(c->co, "| %s | %s | %s | | | | | | **REGRESSION**: %s |\n", r.eid, r.esa, r.esb,
            MD(emsg, uj_gets(b, "message", "")));
  }
  const uj *ma = uj_get(uj_get(uj_get(a, "run"), "validation"), "metrics");
  const uj *mb = uj_get(uj_get(uj_get(b, "run"), "validation"), "metrics");
  compare_metrics(c, &r, ma, mb);
  if (!uj_len(ma)) unjudged_metrics(c, &r, uj_get(uj_get(a, "run"), "metrics"), uj_get(uj_get(b, "run"), "metrics"));
  if (compare_loops(c, &r, uj_get(uj_get(a, "run"), "loops"), uj_get(uj_get(b, "run"), "loops"))) return -1;
  char drift[200] = "-";
  if (r.max_share > 0) snprintf(drift, sizeof drift, "%.3g (%s)", r.max_share, r.max_name);
  else if (r.max_share == 0) snprintf(drift, sizeof drift, "0");
  fprintf(c->po, "| %s | %s | %s | %d | %s | %d | %.3f |\n", r.eid, r.esa, r.esb, uj_len(ma), MD(edrift, drift),
          r.nloops, r.ta_sum > 0 ? r.tb_sum / r.ta_sum : NAN);
  fputs("], \"max_drift_share\": ", J);
  um_json_number(J, r.max_share >= 0 ? r.max_share : NAN);
  fputs(", \"loop_time_ratio\": ", J);
  um_json_number(J, r.ta_sum > 0 ? r.tb_sum / r.ta_sum : NAN);
  fprintf(J, ", \"regression\": %s}", r.reg ? "true" : "false");
  c->t.regressions += r.reg;
  return 0;
}

/* the verdict, first in the markdown */
static void write_verdict(FILE *o, const tally *t, double noise, int spread) {
  fprintf(o, "## Verdict\n\n%s: %d runs compared; %d correctness regression%s; %d metric%s drifted beyond the "
             "tolerance; %d loop%s slower and %d faster beyond %.0f%%%s; %d run%s of A missing in B, %d new in B.\n",
          t->regressions ? "**REGRESSION**" : "no correctness regression", t->compared_runs, t->regressions,
          t->regressions == 1 ? "" : "s", t->drifts, t->drifts == 1 ? "" : "s", t->slower, t->slower == 1 ? "" : "s",
          t->faster, 100 * noise, spread ? " and the measured spread" : "", t->missing_b, t->missing_b == 1 ? "" : "s",
          t->new_b);
  if (t->unjudged)
    fprintf(o, "%d metric%s differ%s between A and B with no tolerance to judge %s (runs without a validation reference: "
               "the table of correctness below): not called.\n",
            t->unjudged, t->unjudged == 1 ? "" : "s", t->unjudged == 1 ? "s" : "", t->unjudged == 1 ? "it" : "them");
  if (t->within_spread)
    fprintf(o, "%d loop%s changed by more than %.0f%% but within the measured spread: noisy, not called.\n", t->within_spread,
            t->within_spread == 1 ? "" : "s", 100 * noise);
  if (t->not_comparable)
    fprintf(o, "**%d pair%s NOT COMPARABLE**: their settings differ (the table of settings above); not compared. Run "
               "both with the same settings, or name the settings allowed to differ with --allow KEY,...\n",
            t->not_comparable, t->not_comparable == 1 ? "" : "s");
  if (t->allowed)
    fprintf(o, "%d pair%s compared with settings that differ, as --allow says (the table of settings above).\n",
            t->allowed, t->allowed == 1 ? " was" : "s were");
  if (t->noisy_one || t->noisy_loaded)
    fprintf(o, "%d loop%s changed by more than %.0f%% but %s not called: noisy (%d: one sample, no spread measured; "
               "%d: a side ran on a loaded machine). To measure: umrun --suite ... --repeat 5 (or umrun CONFIG "
               "--repeat 5) on an idle machine (load average below its cores), on both sides.\n",
            t->noisy_one + t->noisy_loaded, t->noisy_one + t->noisy_loaded == 1 ? "" : "s", 100 * noise,
            t->noisy_one + t->noisy_loaded == 1 ? "is" : "are", t->noisy_one, t->noisy_loaded);
  if (t->loops_only_a || t->loops_only_b)
    fprintf(o, "Loops run in one file only: %d in A, %d in B (each named with its reason in the speed table).\n",
            t->loops_only_a, t->loops_only_b);
  if (t->generated)
    fprintf(o, "Loops generated by splitting (\"part of\" a loop) are compared but counted neither in the loops slower "
               "or faster nor in the time in loops: their time is inside their parent's.\n");
}

/* --top N: the correctness regressions and the N largest speed changes (c->ch sorted) */
static void write_top(FILE *bo, const cmp_ctx *c, int top, const char *corr, size_t clen) {
  const int nch = c->nch;
  if (c->t.regressions) fprintf(bo, "\n%.*s", (int)clen, corr ? corr : "");
  fprintf(bo, "\n## The %d largest speed changes (of %d loops in both files)\n\n| run | loop | A ms/call | B ms/call | "
              "B/A | flag |\n|---|---|---:|---:|---:|---|\n",
          top < nch ? top : nch, nch);
  for (int q = 0; q < nch && q < top; q++)
    fprintf(bo, "| %s | %s | %.4g | %.4g | %.3f | %s |\n", c->ch[q].id, c->ch[q].label, c->ch[q].ta, c->ch[q].tb,
            c->ch[q].ratio, c->ch[q].flag);
  fprintf(bo, "\n(the full comparison: without --top, or with --md FILE)\n");
}

/* --md and --json: the markdown and the JSON to their files; rc, or EXIT_RUN where one could not be written */
static int write_outputs(const cmp_opts *op, const char *text, size_t tlen, const char *jtext, size_t jlen, int rc) {
  char err[4096];
  const char *paths[2] = {op->md, op->js};
  const char *bufs[2] = {text, jtext};
  const size_t lens[2] = {tlen, jlen};
  for (int k = 0; k < 2; k++) {
    if (!paths[k]) continue;
    um_safe_file sf;
    if (um_safe_open(&sf, paths[k], err, sizeof err) == 0) {
      fwrite(bufs[k], 1, lens[k], sf.f);
      if (um_safe_commit(&sf, err, sizeof err) == 0) continue;
    }
    fprintf(stderr, "umrun --compare: %s\n", err);
    if (rc == EXIT_OK) rc = EXIT_RUN;
  }
  return rc;
}

int umrun_compare_main(int argc, char **argv) {
  cmp_opts op = {.noise = 0.10};
  const int prc = parse_compare_args(argc, argv, &op);
  if (prc >= 0) return prc;
  char own[32];
  const char **outs[] = {&op.md, &op.js}; /* --md /dev/stdout > cmp.md: the markdown alone */
  umrun_outputs_own_stdout(outs, 2, own, sizeof own);
  uj *A = NULL, *B = NULL;
  const int lrc = load_results(&op, &A, &B);
  if (lrc) return lrc;
  /* everything goes to a memory buffer, printed and written as markdown */
  char *text = NULL, *jtext = NULL;
  size_t tlen = 0, jlen = 0;
  FILE *o = open_memstream(&text, &tlen), *J = open_memstream(&jtext, &jlen);
  if (!o || !J) return EXIT_RUN;
  cmp_ctx c = {.J = J, .noise = op.noise, .drift_fails = op.drift_fails, .allow = &op.allow};
  const int sa_n = file_samples(A), sb_n = file_samples(B), spread = sa_n > 1 || sb_n > 1;
  write_header(o, J, A, B, &op, sa_n, sb_n);
  const uj *ca = uj_get(A, "cases"), *cb = uj_get(B, "cases");
  char *corr = NULL, *speed = NULL, *per = NULL;
  size_t clen = 0, slen = 0, plen = 0;
  c.co = open_memstream(&corr, &clen);
  if (!c.co) return EXIT_RUN;
  fputs("## Correctness\n\n| run | A | B | metric | A value | B value | tolerance | drift / tol | verdict |\n"
        "|---|---|---|---|---:|---:|---:|---:|---|\n",
        c.co);
  char *sett = NULL;
  size_t xlen = 0;
  c.so = open_memstream(&speed, &slen), c.po = open_memstream(&per, &plen), c.xo = open_memstream(&sett, &xlen);
  if (!c.so || !c.po || !c.xo) return EXIT_RUN;
  fputs("## Settings that differ\n\n| run | setting | A (source) | B (source) | |\n|---|---|---|---|---|\n", c.xo);
  fputs("## Per run\n\n| run | A | B | metrics | largest drift / tolerance | loops | B/A time in loops |\n"
        "|---|---|---|---:|---|---:|---:|\n",
        c.po);
  fputs("## Speed (time per call, B / A)\n\n| run | loop | A ms/call | B ms/call | B/A | A GB/s | B GB/s | flag |\n"
        "|---|---|---:|---:|---:|---:|---:|---|\n",
        c.so);
  for (int i = 0; i < uj_len(ca); i++)
    if (compare_case(&c, uj_at(ca, i), cb, i == 0)) return EXIT_RUN;
  for (int i = 0; i < uj_len(cb); i++)
    if (!find_case(ca, uj_gets(uj_at(cb, i), "id", ""))) c.t.new_b++;
  fclose(c.so);
  fclose(c.po);
  fclose(c.co);
  fclose(c.xo);
  /* the settings that differ first, then the verdict, then the tables */
  if (c.t.not_comparable || c.t.allowed || strstr(sett, "(not recorded)")) fprintf(o, "%.*s\n", (int)xlen, sett);
  free(sett);
  write_verdict(o, &c.t, op.noise, spread);
  fflush(o);
  const size_t head_len = tlen; /* header and verdict: --top prints them, then its own table */
  fprintf(o, "\n%.*s\n%.*s\n%.*s", (int)clen, corr ? corr : "", (int)plen, per ? per : "", (int)slen,
          speed ? speed : "");
  if (c.nch > 1) qsort(c.ch, (size_t)c.nch, sizeof *c.ch, by_size); /* ch is NULL when nothing changed */
  char *brief = NULL;
  size_t blen = 0;
  FILE *bo = open_memstream(&brief, &blen);
  if (!bo) return EXIT_RUN;
  if (op.top) write_top(bo, &c, op.top, corr, clen);
  fclose(bo);
  free(c.ch);
  free(corr);
  free(speed);
  free(per);
  const tally *t = &c.t;
  fprintf(J, "\n], \"regressions\": %d, \"drifts\": %d, \"slower\": %d, \"faster\": %d, \"within_spread\": %d, "
             "\"noisy\": %d, \"not_comparable\": %d, \"samples_a\": %d, \"samples_b\": %d}\n", t->regressions, t->drifts,
          t->slower, t->faster, t->within_spread, t->noisy_one + t->noisy_loaded, t->not_comparable, sa_n, sb_n);
  fclose(o);
  fclose(J);
  if (op.top) {
    fwrite(text, 1, head_len, stdout);
    fwrite(brief, 1, blen, stdout);
  } else fwrite(text, 1, tlen, stdout);
  free(brief);
  const int rc = write_outputs(&op, text, tlen, jtext, jlen,
                               t->regressions ? EXIT_REGRESSION : t->not_comparable ? EXIT_NOT_COMPARABLE : EXIT_OK);
  if (t->not_comparable && !t->regressions)
    printf("\numrun --compare: %d pair%s NOT COMPARABLE (settings differ; --allow KEY,... to compare them anyway)\n",
           t->not_comparable, t->not_comparable == 1 ? "" : "s");
  cmp_allow_free(&op.allow);
  if (t->regressions) printf("\numrun --compare: %d CORRECTNESS REGRESSION%s\n", t->regressions, t->regressions == 1 ? "" : "S");
  free(text);
  free(jtext);
  uj_free(A);
  uj_free(B);
  return rc;
}
