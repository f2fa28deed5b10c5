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

#include "safe_file.h"
#include "tools.h"
#include "um/report.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2, EXIT_REGRESSION = 3 };

void umrun_compare_usage(FILE *f) {
  fputs("usage: umrun --compare A.json B.json [--noise F] [--drift-fails] [--md FILE] [--json FILE]\n"
        "\n"
        "Compares two results files of umrun --suite (A the baseline, B the new run), case by case\n"
        "(runs are matched by their id: case[variant]):\n"
        "  correctness  each metric against its tolerance in A and in B, and the drift |B - A|\n"
        "               as a share of that tolerance; a run that passed in A and fails or is\n"
        "               missing in B is a REGRESSION\n"
        "  speed        per loop, time per call B / A; flagged SLOWER or FASTER beyond the noise\n"
        "               threshold (default 0.10: 10%)\n"
        "  --drift-fails  also count a drift beyond the tolerance as a regression (by default it\n"
        "               is flagged DRIFT: both may still be within tolerance of the reference)\n"
        "  --md FILE, --json FILE   write the comparison as markdown / JSON too\n"
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
} tally;

int umrun_compare_main(int argc, char **argv) {
  const char *fa = NULL, *fb = NULL, *md = NULL, *js = NULL;
  double noise = 0.10;
  int drift_fails = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return umrun_compare_usage(stdout), EXIT_OK;
    if ((!strcmp(a, "--noise") || !strcmp(a, "--md") || !strcmp(a, "--json")) && i + 1 >= argc) {
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
    } else if (!strcmp(a, "--md")) md = argv[++i];
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
  fprintf(o, "- noise threshold for speed: %.0f%%\n\n", 100 * noise);
  fputs("{\"format\": \"um-compare-1\", \"a\": ", J);
  um_json_string(J, fa);
  fputs(", \"b\": ", J);
  um_json_string(J, fb);
  fprintf(J, ", \"noise\": %g, \"cases\": [", noise);
  const uj *ca = uj_get(A, "cases"), *cb = uj_get(B, "cases");
  fputs("## Correctness\n\n| run | A | B | metric | A value | B value | tolerance | drift / tol | verdict |\n"
        "|---|---|---|---|---:|---:|---:|---:|---|\n",
        o);
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
        fprintf(o, "| %s | %s | missing | | | | | | **REGRESSION**: not run in B |\n", eid, esa);
      }
      fprintf(J, ", \"regression\": %s, \"metrics\": [], \"loops\": []}", case_reg ? "true" : "false");
      t.regressions += case_reg;
      continue;
    }
    t.compared_runs++;
    if (!strcmp(sa, "pass") && strcmp(sb, "pass")) {
      case_reg = 1;
      fprintf(o, "| %s | %s | %s | | | | | | **REGRESSION**: %s |\n", eid, esa, esb, MD(emsg, uj_gets(b, "message", "")));
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
        fprintf(o, "| %s | %s | %s | %s | %.10g | %.10g | %.3g | %.3g | %s%s%s |\n", eid, esa, esb, MD(ename, name), va, vb, allow,
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
    /* loops */
    const uj *la = uj_get(uj_get(a, "run"), "loops"), *lb = uj_get(uj_get(b, "run"), "loops");
    fputs("], \"loops\": [", J);
    int firstl = 1;
    for (int k = 0; k < uj_len(la); k++) {
      const uj *x = uj_at(la, k);
      const char *name = uj_gets(x, "name", "?");
      const uj *y = find_named(lb, name);
      if (!y) continue;
      const double ta = ms_per_call(x), tb = ms_per_call(y), ratio = tb / ta;
      ta_sum += uj_getn(x, "seconds", 0);
      tb_sum += uj_getn(y, "seconds", 0);
      nloops++;
      const char *flag = "";
      if (ratio > 1 + noise) flag = "SLOWER", t.slower++;
      else if (ratio < 1 / (1 + noise)) flag = "FASTER", t.faster++;
      fprintf(so, "| %s | %s | %.4g | %.4g | %.3f | %.1f | %.1f | %s |\n", eid, MD(ename, name), ta, tb, ratio,
              umrun_loop_gbs(x), umrun_loop_gbs(y), flag);
      fputs(firstl ? "{\"name\": " : ", {\"name\": ", J);
      firstl = 0;
      um_json_string(J, name);
      fputs(", \"a_ms\": ", J);
      um_json_number(J, ta);
      fputs(", \"b_ms\": ", J);
      um_json_number(J, tb);
      fputs(", \"ratio\": ", J);
      um_json_number(J, ratio);
      fputs(", \"flag\": ", J);
      um_json_string(J, flag);
      fputc('}', J);
    }
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
  fprintf(o, "\n%.*s\n%.*s\n", (int)plen, per ? per : "", (int)slen, speed ? speed : "");
  free(speed);
  free(per);
  fprintf(o, "## Summary\n\n%d runs compared; %d correctness regression%s; %d metric%s drifted beyond the tolerance; "
             "%d loop%s slower and %d faster beyond %.0f%%; %d run%s of A missing in B, %d new in B.\n",
          t.compared_runs, t.regressions, t.regressions == 1 ? "" : "s", t.drifts, t.drifts == 1 ? "" : "s", t.slower,
          t.slower == 1 ? "" : "s", t.faster, 100 * noise, t.missing_b, t.missing_b == 1 ? "" : "s", t.new_b);
  fprintf(J, "\n], \"regressions\": %d, \"drifts\": %d, \"slower\": %d, \"faster\": %d}\n", t.regressions, t.drifts,
          t.slower, t.faster);
  fclose(o);
  fclose(J);
  fwrite(text, 1, tlen, stdout);
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
