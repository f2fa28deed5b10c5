/* umrun --report: which runs the page's figures come from, and with which of their numbers. */
#include "htmlreport_internal.h"

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
      if (strcmp(uj_gets(c, "status", ""), "pass")) {
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
    for (int i = 0; i < uj_len(cases); i++) n += strcmp(uj_gets(uj_at(cases, i), "status", ""), "pass") != 0;
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
      if (!strcmp(uj_gets(c, "status", ""), "pass")) continue;
      const char *cells[] = {paths[k], uj_gets(c, "id", uj_gets(c, "case", "?")), uj_gets(c, "status", "?"),
                             uj_gets(c, "message", "")};
      rep_row(h, m, 0, 4, cells);
    }
  }
  fputs("</table></div>\n", h);
  fputc('\n', m);
}
