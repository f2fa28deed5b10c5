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

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_REGRESSION = 3 };

void umrun_compare_usage(FILE *f) {
  fputs("usage: umrun --compare A.json B.json [--noise F] [--drift-fails] [--brief | --top N] [--md FILE]\n"
        "                     [--json FILE]\n"
        "\n"
        "Compares two results files of umrun --suite (A the baseline, B the new run), case by case\n"
        "(runs are matched by their id: case[variant]):\n"
        "  correctness  each metric against its tolerance in A and in B, and the drift |B - A|\n"
        "               as a share of that tolerance; a run that passed in A and fails or is\n"
        "               missing in B is a REGRESSION\n"
        "  speed        per loop, time per call B / A; flagged SLOWER or FASTER beyond the noise\n"
        "               threshold (default 0.10: 10%) and, where the files were made with\n"
        "               --suite --repeat N, beyond the measured spread (the two ranges min..max\n"
        "               of the samples do not overlap; a change inside them is \"within spread\");\n"
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
        "exit status: 0 no correctness regression; 1 bad command line or file; 3 a correctness\n"
        "regression.\n",
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
  int n = (int)uj_getn(R, "repeat", 1);
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
  fprintf(o, "; um commit %s; started %s\n", MD(e[0], uj_gets(um, "commit", "?")), MD(e[1], uj_gets(R, "started", "?")));
}

typedef struct {
  int regressions, drifts, slower, faster, compared_runs, missing_b, new_b;
  int loops_only_a, loops_only_b, generated; /* loops of one side only; loops generated by splitting */
  int within_spread;                          /* changes beyond the noise but inside the measured spread */
} tally;

int umrun_compare_main(int argc, char **argv) {
  const char *fa = NULL, *fb = NULL, *md = NULL, *js = NULL;
  double noise = 0.10;
  int drift_fails = 0, top = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return umrun_compare_usage(stdout), EXIT_OK;
    if ((!strcmp(a, "--noise") || !strcmp(a, "--md") || !strcmp(a, "--json") || !strcmp(a, "--top")) && i + 1 >= argc) {
      fprintf(stderr, "umrun --compare: %s needs an argument\n", a);
      return EXIT_USAGE;
    }
    if (!strcmp(a, "--compare")) continue;
    if (!strcmp(a, "--noise")) {
      char *end = NULL;
      noise = strtod(argv[++i], &end);
      if (!end || *end || !(noise >= 0)) {
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
      top = v > 100000 ? 100000 : (int)v;
    } else if (!strcmp(a, "--brief")) top = 10;
    else if (!strcmp(a, "--md")) md = argv[++i];
    else if (!strcmp(a, "--json")) js = argv[++i];
    else if (!strcmp(a, "--drift-fails")) drift_fails = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "umrun --compare: unknown option '%s' (see umrun --compare --help)\n", a);
      return EXIT_USAGE;
    } else if (!fa) fa = a;
    else if (!fb) fb = a;
    else {
      fprintf(stderr, "umrun --compare: give two results files (A, the baseline, and B); '%s' is a third\n", a);
      return EXIT_USAGE;
    }
  }
  if (!fa || !fb) {
    fprintf(stderr, "usage: umrun --compare A.json B.json (results files of umrun --suite; see --compare --help)\n");
    return EXIT_USAGE;
  }
  char own[32];
  const char **outs[] = {&md, &js}; /* --md /dev/stdout > cmp.md: the markdown alone */
  umrun_outputs_own_stdout(outs, 2, own, sizeof own);
  char err[4096];
  uj *A = NULL, *B = NULL;
  if (uj_parse_file(fa, &A, err, sizeof err) || uj_parse_file(fb, &B, err, sizeof err)) {
    fprintf(stderr, "umrun --compare: %s\n", err);
    uj_free(A);
    return EXIT_USAGE;
  }
  for (int k = 0; k < 2; k++) {
    const uj *R = k ? B : A;
    if (strcmp(uj_gets(R, "format", ""), "um-suite-results-1") != 0) {
      fprintf(stderr, "umrun --compare: '%s' is not a results file of umrun --suite (no \"format\": "
                      "\"um-suite-results-1\"); a single run's --json cannot be compared this way\n",
              k ? fb : fa);
      uj_free(A);
      uj_free(B);
      return EXIT_USAGE;
    }
  }
  /* everything goes to a memory buffer, printed and written as markdown */
  char *text = NULL, *jtext = NULL;
  size_t tlen = 0, jlen = 0;
  FILE *o = open_memstream(&text, &tlen), *J = open_memstream(&jtext, &jlen);
  if (!o || !J) return EXIT_RUN;
  tally t = {0};
  fprintf(o, "# um --compare\n\n");
  machine_line(o, "A", A);
  machine_line(o, "B", B);
  const int sa_n = file_samples(A), sb_n = file_samples(B), spread = sa_n > 1 || sb_n > 1;
  fprintf(o, "- noise threshold for speed: %.0f%%\n", 100 * noise);
  if (spread)
    fprintf(o, "- spread: A has %d sample%s per run, B %d (umrun --suite --repeat); a change is called only beyond the "
               "measured spread (the ranges min..max of the two do not overlap) as well as beyond the noise threshold\n\n",
            sa_n, sa_n == 1 ? "" : "s", sb_n);
  else
    fprintf(o, "- spread: one sample per run in A and in B: no spread was measured, so a change is called beyond the "
               "noise threshold only (umrun --suite --repeat N measures the spread)\n\n");
  fputs("{\"format\": \"um-compare-1\", \"a\": ", J);
  um_json_string(J, fa);
  fputs(", \"b\": ", J);
  um_json_string(J, fb);
  fprintf(J, ", \"noise\": %g, \"cases\": [", noise);
  const uj *ca = uj_get(A, "cases"), *cb = uj_get(B, "cases");
  char *corr = NULL;
  size_t clen = 0;
  FILE *co = open_memstream(&corr, &clen);
  if (!co) return EXIT_RUN;
  change *ch = NULL;
  int nch = 0, cch = 0;
  fputs("## Correctness\n\n| run | A | B | metric | A value | B value | tolerance | drift / tol | verdict |\n"
        "|---|---|---|---|---:|---:|---:|---:|---|\n",
        co);
  char *speed = NULL, *per = NULL;
  size_t slen = 0, plen = 0;
  FILE *so = open_memstream(&speed, &slen), *po = open_memstream(&per, &plen);
  if (!so || !po) return EXIT_RUN;
  fputs("## Per run\n\n| run | A | B | metrics | largest drift / tolerance | loops | B/A time in loops |\n"
        "|---|---|---|---:|---|---:|---:|\n",
        po);
  fputs("## Speed (time per call, B / A)\n\n| run | loop | A ms/call | B ms/call | B/A | A GB/s | B GB/s | flag |\n"
        "|---|---|---:|---:|---:|---:|---:|---|\n",
        so);
  int firstj = 1;
  for (int i = 0; i < uj_len(ca); i++) {
    const uj *a = uj_at(ca, i);
    const char *id = uj_gets(a, "id", "?");
    const uj *b = find_case(cb, id);
    const char *sa = uj_gets(a, "status", "?"), *sb = b ? uj_gets(b, "status", "?") : "missing";
    char eid[600], esa[64], esb[64], ename[300], emsg[2100], edrift[400];
    MD(eid, id), MD(esa, sa), MD(esb, sb);
    fputs(firstj ? "\n  {\"id\": " : ",\n  {\"id\": ", J);
    firstj = 0;
    um_json_string(J, id);
    fputs(", \"a\": ", J);
    um_json_string(J, sa);
    fputs(", \"b\": ", J);
    um_json_string(J, sb);
    int case_reg = 0;
    if (!b) {
      t.missing_b++;
      if (!strcmp(sa, "pass")) {
        case_reg = 1;
        fprintf(co, "| %s | %s | missing | | | | | | **REGRESSION**: not run in B |\n", eid, esa);
      }
      fprintf(J, ", \"regression\": %s, \"metrics\": [], \"loops\": []}", case_reg ? "true" : "false");
      t.regressions += case_reg;
      continue;
    }
    t.compared_runs++;
    if (!strcmp(sa, "pass") && strcmp(sb, "pass")) {
      case_reg = 1;
      fprintf(co, "| %s | %s | %s | | | | | | **REGRESSION**: %s |\n", eid, esa, esb, MD(emsg, uj_gets(b, "message", "")));
    }
    /* metrics: both runs' validation entries, by name */
    double max_share = -1, ta_sum = 0, tb_sum = 0;
    char max_name[128] = "";
    int nloops = 0;
    const uj *ma = uj_get(uj_get(uj_get(a, "run"), "validation"), "metrics");
    const uj *mb = uj_get(uj_get(uj_get(b, "run"), "validation"), "metrics");
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
      if (share > max_share || (isnan(share) && max_share < INFINITY)) {
        max_share = isnan(share) ? INFINITY : share;
        snprintf(max_name, sizeof max_name, "%s", name);
      }
      const char *verdict = "ok";
      int reg = 0;
      if (pa && !pb) verdict = "REGRESSION (B outside the tolerance)", reg = 1;
      else if (!(share <= 1)) {
        verdict = "DRIFT beyond the tolerance";
        t.drifts++;
        if (drift_fails) reg = 1;
      } else if (!pa && !pb) verdict = "fails in both";
      case_reg |= reg;
      if (reg || strcmp(verdict, "ok"))
        fprintf(co, "| %s | %s | %s | %s | %.10g | %.10g | %.3g | %.3g | %s%s%s |\n", eid, esa, esb, MD(ename, name), va, vb, allow,
                share, reg ? "**" : "", verdict, reg ? "**" : "");
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
    /* loops: each of A's in table order (a split loop's generated loops under it), then those only in B.
     * A generated loop's time is inside its parent's: compared and flagged, but neither summed into the
     * run's time in loops nor counted among the loops slower or faster (its parent is). */
    const uj *la = uj_get(uj_get(a, "run"), "loops"), *lb = uj_get(uj_get(b, "run"), "loops");
    fputs("], \"loops\": [", J);
    int firstl = 1;
    const int na = uj_len(la), nb = uj_len(lb);
    int *ord = malloc((size_t)(3 * na + 2 * nb + 1) * sizeof *ord);
    if (!ord) return EXIT_RUN;
    int *dep = ord + na, *seq = dep + na, *used = seq + na + nb; /* seq: A's index, or na + B's */
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
    for (int q = 0; q < nseq; q++) {
      const int in_b_only = seq[q] >= na;
      const uj *x = in_b_only ? NULL : uj_at(la, seq[q]);
      const uj *y = in_b_only ? uj_at(lb, seq[q] - na) : find_named(lb, uj_gets(x, "name", "?"));
      const uj *any = x ? x : y;
      const char *name = uj_gets(any, "name", "?");
      const int generated = umrun_loop_parent(any) != NULL;
      const double ta = x ? ms_per_call(x) : NAN, tb = y ? ms_per_call(y) : NAN, ratio = tb / ta;
      const char *flag = "";
      t.generated += generated;
      if (!x) flag = "only in B", t.loops_only_b++;
      else if (!y) flag = "only in A", t.loops_only_a++;
      else {
        if (!generated) {
          ta_sum += uj_getn(x, "seconds", 0);
          tb_sum += uj_getn(y, "seconds", 0);
          nloops++;
        }
        double alo, ahi, blo, bhi; /* the samples' ranges: a change inside them is not called */
        ms_range(x, &alo, &ahi);
        ms_range(y, &blo, &bhi);
        if (ratio > 1 + noise && blo > ahi) flag = "SLOWER", t.slower += !generated;
        else if (ratio < 1 / (1 + noise) && bhi < alo) flag = "FASTER", t.faster += !generated;
        else if (ratio > 1 + noise || ratio < 1 / (1 + noise)) flag = "within spread", t.within_spread += !generated;
      }
      /* the loop's cell: a generated loop says whose part it is; a loop split in either run says how */
      char label[600];
      const char *sa_ = x ? uj_gets(x, "split", "off") : "-", *sb_ = y ? uj_gets(y, "split", "off") : "-";
      const int split_a = x && strcmp(sa_, "off"), split_b = y && strcmp(sb_, "off");
      if (generated) snprintf(label, sizeof label, "%s (part of %s)", name, umrun_loop_parent(any));
      else if ((split_a || split_b) && x && y && !strcmp(sa_, sb_))
        snprintf(label, sizeof label, "%s (split: %s)", name, sa_);
      else if (split_a || split_b) snprintf(label, sizeof label, "%s (split: A %s, B %s)", name, sa_, sb_);
      else snprintf(label, sizeof label, "%s", name);
      char cta[32] = "-", ctb[32] = "-", cr[32] = "-", cga[32] = "-", cgb[32] = "-";
      if (x) snprintf(cta, sizeof cta, "%.4g", ta), snprintf(cga, sizeof cga, "%.1f", umrun_loop_gbs(x));
      if (y) snprintf(ctb, sizeof ctb, "%.4g", tb), snprintf(cgb, sizeof cgb, "%.1f", umrun_loop_gbs(y));
      if (x && y) snprintf(cr, sizeof cr, "%.3f", ratio);
      if (x && y && !generated && ratio > 0 && isfinite(ratio)) { /* for --top: the largest changes */
        if (nch == cch) {
          cch = cch ? 2 * cch : 64;
          change *nc = realloc(ch, (size_t)cch * sizeof *nc);
          if (!nc) return EXIT_RUN;
          ch = nc;
        }
        snprintf(ch[nch].id, sizeof ch[nch].id, "%s", eid);
        MD(ch[nch].label, label);
        ch[nch].ta = ta, ch[nch].tb = tb, ch[nch].ratio = ratio, ch[nch].flag = flag;
        nch++;
      }
      fprintf(so, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", eid, MD(ename, label), cta, ctb, cr, cga, cgb, flag);
      fputs(firstl ? "{\"name\": " : ", {\"name\": ", J);
      firstl = 0;
      um_json_string(J, name);
      fputs(", \"parent\": ", J);
      if (generated) um_json_string(J, umrun_loop_parent(any));
      else fputs("null", J);
      fputs(", \"split_a\": ", J);
      if (x) um_json_string(J, sa_);
      else fputs("null", J);
      fputs(", \"split_b\": ", J);
      if (y) um_json_string(J, sb_);
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
    free(ord);
    char drift[200] = "-";
    if (max_share > 0) snprintf(drift, sizeof drift, "%.3g (%s)", max_share, max_name);
    else if (max_share == 0) snprintf(drift, sizeof drift, "0");
    fprintf(po, "| %s | %s | %s | %d | %s | %d | %.3f |\n", eid, esa, esb, uj_len(ma), MD(edrift, drift), nloops,
            ta_sum > 0 ? tb_sum / ta_sum : NAN);
    fputs("], \"max_drift_share\": ", J);
    um_json_number(J, max_share >= 0 ? max_share : NAN);
    fputs(", \"loop_time_ratio\": ", J);
    um_json_number(J, ta_sum > 0 ? tb_sum / ta_sum : NAN);
    fprintf(J, ", \"regression\": %s}", case_reg ? "true" : "false");
    t.regressions += case_reg;
  }
  for (int i = 0; i < uj_len(cb); i++)
    if (!find_case(ca, uj_gets(uj_at(cb, i), "id", ""))) t.new_b++;
  fclose(so);
  fclose(po);
  fclose(co);
  /* the verdict first, then the tables */
  fprintf(o, "## Verdict\n\n%s: %d runs compared; %d correctness regression%s; %d metric%s drifted beyond the "
             "tolerance; %d loop%s slower and %d faster beyond %.0f%%%s; %d run%s of A missing in B, %d new in B.\n",
          t.regressions ? "**REGRESSION**" : "no correctness regression", t.compared_runs, t.regressions,
          t.regressions == 1 ? "" : "s", t.drifts, t.drifts == 1 ? "" : "s", t.slower, t.slower == 1 ? "" : "s",
          t.faster, 100 * noise, spread ? " and the measured spread" : "", t.missing_b, t.missing_b == 1 ? "" : "s",
          t.new_b);
  if (t.within_spread)
    fprintf(o, "%d loop%s changed by more than %.0f%% but within the measured spread: not called.\n", t.within_spread,
            t.within_spread == 1 ? "" : "s", 100 * noise);
  if (t.loops_only_a || t.loops_only_b)
    fprintf(o, "Loops run in one file only: %d in A, %d in B (e.g. the generated loops of a loop split in one run: "
               "run.split).\n", t.loops_only_a, t.loops_only_b);
  if (t.generated)
    fprintf(o, "Loops generated by splitting (\"part of\" a loop) are compared but counted neither in the loops slower "
               "or faster nor in the time in loops: their time is inside their parent's.\n");
  fflush(o);
  const size_t head_len = tlen; /* header and verdict: --top prints them, then its own table */
  fprintf(o, "\n%.*s\n%.*s\n%.*s", (int)clen, corr ? corr : "", (int)plen, per ? per : "", (int)slen,
          speed ? speed : "");
  if (nch > 1) qsort(ch, (size_t)nch, sizeof *ch, by_size); /* ch is NULL when nothing changed */
  char *brief = NULL;
  size_t blen = 0;
  FILE *bo = open_memstream(&brief, &blen);
  if (!bo) return EXIT_RUN;
  if (top) {
    if (t.regressions) fprintf(bo, "\n%.*s", (int)clen, corr ? corr : "");
    fprintf(bo, "\n## The %d largest speed changes (of %d loops in both files)\n\n| run | loop | A ms/call | B ms/call | "
                "B/A | flag |\n|---|---|---:|---:|---:|---|\n",
            top < nch ? top : nch, nch);
    for (int q = 0; q < nch && q < top; q++)
      fprintf(bo, "| %s | %s | %.4g | %.4g | %.3f | %s |\n", ch[q].id, ch[q].label, ch[q].ta, ch[q].tb, ch[q].ratio,
              ch[q].flag);
    fprintf(bo, "\n(the full comparison: without --top, or with --md FILE)\n");
  }
  fclose(bo);
  free(ch);
  free(corr);
  free(speed);
  free(per);
  fprintf(J, "\n], \"regressions\": %d, \"drifts\": %d, \"slower\": %d, \"faster\": %d, \"within_spread\": %d, "
             "\"samples_a\": %d, \"samples_b\": %d}\n", t.regressions, t.drifts, t.slower, t.faster, t.within_spread, sa_n,
          sb_n);
  fclose(o);
  fclose(J);
  if (top) {
    fwrite(text, 1, head_len, stdout);
    fwrite(brief, 1, blen, stdout);
  } else fwrite(text, 1, tlen, stdout);
  free(brief);
  int rc = t.regressions ? EXIT_REGRESSION : EXIT_OK;
  const char *paths[2] = {md, js};
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
  if (t.regressions) printf("\numrun --compare: %d CORRECTNESS REGRESSION%s\n", t.regressions, t.regressions == 1 ? "" : "S");
  free(text);
  free(jtext);
  uj_free(A);
  uj_free(B);
  return rc;
}
