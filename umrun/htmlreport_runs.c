/* umrun --report: which runs the page's figures come from, and with which of their numbers. */
#include "htmlreport_internal.h"

/* Whether a suite's case passed: the page's figures come from those alone. */
static int passed(const uj *c) { return !strcmp(uj_gets(c, "status", ""), "pass"); }

/* A loop of a run on several ranks as the job's: the slowest rank's time, every rank's bytes and elements, and
 * the bandwidth between them (driver/src/report.c writes both views; the page shows the job). */
static int job_figures(uj *l) {
  const uj *t = uj_get(l, "seconds_rank_max"), *b = uj_get(l, "bytes_per_call_all_ranks"),
           *n = uj_get(l, "set_size_all_ranks");
  if (!t || !b || !n) return 0;
  const double s = uj_num(t, 0), bytes = uj_num(b, 0), elems = uj_num(n, 0), calls = uj_getn(l, "calls", 0);
  int bad = uj_set_num(l, "seconds", s) | uj_set_num(l, "bytes_per_call", bytes) | uj_set_num(l, "set_size", elems);
  bad |= uj_set_num(l, "gb_per_s", s > 0 && calls > 0 ? bytes * calls / s * 1e-9 : 0);
  return bad ? -1 : 0;
}

int rep_prepare_runs(uj *const *files, int nfiles) {
  for (int k = 0; k < nfiles; k++) {
    uj *cases = (uj *)uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      uj *c = &cases->items[i];
      if (!passed(c)) {
        if (uj_rename(c, "run", "run_not_shown") < 0) return -1;
        continue;
      }
      uj *loops = (uj *)uj_get(uj_get(c, "run"), "loops");
      for (int j = 0; j < uj_len(loops); j++)
        if (job_figures(&loops->items[j])) return -1;
    }
  }
  return 0;
}

void rep_write_not_shown(FILE *h, FILE *m, const uj *const *files, const char *const *paths, int nfiles) {
  int n = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) n += !passed(uj_at(cases, i));
  }
  if (!n) return;
  fprintf(h, "<h2 id=\"not-shown\">Runs not in the figures (%d)</h2>\n<p>These runs did not pass: a failed "
             "validation, an error or a timeout. Their timings are not results and no figure, chart or table "
             "below uses them.</p>\n<div class=\"wrap\"><table>\n", n);
  fprintf(m, "## Runs not in the figures (%d)\n\nThese runs did not pass (a failed validation, an error or a "
             "timeout); no figure below uses them.\n\n", n);
  const char *hd[] = {"results", "run", "status", "message"};
  rep_row(h, m, 1, 4, hd);
  for (int k = 0; k < nfiles; k++) {
    const uj *cases = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cases); i++) {
      const uj *c = uj_at(cases, i);
      if (passed(c)) continue;
      const char *cells[] = {paths[k], uj_gets(c, "id", uj_gets(c, "case", "?")), uj_gets(c, "status", "?"),
                             uj_gets(c, "message", "")};
      rep_row(h, m, 0, 4, cells);
    }
  }
  fputs("</table></div>\n", h);
  fputc('\n', m);
}

/* 1 (said on stderr) when the page or its markdown would replace a results file or what its suite wrote beside it
 * (summary.md, junit.xml). */
int rep_overwrites_results(const char *out, const char *mdpath, const char *const *paths, int n) {
  const char *mine[] = {out, mdpath};
  for (int w = 0; w < 2; w++) {
    int k = umrun_output_is_input(mine[w], paths, n), own = k < 0;
    for (int q = 0; q < n && k < 0; q++) { /* the suite's own files beside its results.json */
      char dir[4096], beside[2][4200];
      snprintf(dir, sizeof dir, "%s", paths[q]);
      char *sl = strrchr(dir, '/');
      if (sl) *sl = '\0';
      else snprintf(dir, sizeof dir, ".");
      snprintf(beside[0], sizeof beside[0], "%s/summary.md", dir);
      snprintf(beside[1], sizeof beside[1], "%s/junit.xml", dir);
      const char *const b[] = {beside[0], beside[1]};
      if (umrun_output_is_input(mine[w], b, 2) >= 0) k = q;
    }
    if (k >= 0) {
      fprintf(stderr, "umrun --report: %s is %s %s: name the page elsewhere (its markdown goes beside it as .md)\n",
              mine[w], own ? "what the suite wrote beside" : "the results file", paths[k]);
      return 1;
    }
  }
  return 0;
}
