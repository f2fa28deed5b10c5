/* --report: an app's set-up by phase and memory per rank, one row per run that has them (the run JSON's
 * setup_phases, setup_faulted_bytes and memory): the set-up's seconds, each phase's on the slowest rank, the most
 * fresh memory a rank's set-up touched, and the largest peak resident memory and mesh bytes over the ranks. */
#include "htmlreport_internal.h"
#include "json.h"
#include "um/um.h"

enum { NPH = UM_SETUP_NPHASES, NCOL = NPH + 6 };

/* The most bytes one rank's set-up touched for the first time (its phases summed; f: setup_faulted_bytes) */
static double touched_max(const uj *f) {
  double mx = 0;
  const int n = uj_len(uj_get(uj_get(f, um_setup_phase_name((um_setup_phase)0)), "per_rank"));
  for (int q = 0; q < n; q++) {
    double t = 0;
    for (int k = 0; k < NPH; k++)
      t += uj_num(uj_at(uj_get(uj_get(f, um_setup_phase_name((um_setup_phase)k)), "per_rank"), q), 0);
    mx = t > mx ? t : mx;
  }
  return mx;
}

static void setup_row(FILE *h, FILE *m, const uj *c) {
  const uj *run = uj_get(c, "run"), *ph = uj_get(run, "setup_phases"), *mem = uj_get(run, "memory");
  const uj *faulted = uj_get(run, "setup_faulted_bytes");
  char cells[NCOL][160];
  const char *p[NCOL];
  umrun_variant_label(c, cells[NCOL - 1], sizeof cells[NCOL - 1]); /* runs of one case told apart by their variant */
  snprintf(cells[0], sizeof cells[0], "%.60s %.90s", uj_gets(c, "case", "?"), cells[NCOL - 1]);
  snprintf(cells[1], sizeof cells[1], "%.0f", uj_getn(run, "ranks", 1));
  snprintf(cells[2], sizeof cells[2], "%.3f", uj_getn(run, "setup_seconds", 0));
  for (int k = 0; k < NPH; k++)
    snprintf(cells[3 + k], sizeof cells[3 + k], "%.3f",
             uj_getn(uj_get(ph, um_setup_phase_name((um_setup_phase)k)), "max", 0));
  if (faulted)
    snprintf(cells[NPH + 3], sizeof cells[NPH + 3], "%.0f", touched_max(faulted) / 1e6);
  else
    snprintf(cells[NPH + 3], sizeof cells[NPH + 3], "-"); /* a results file from before it was counted */
  snprintf(cells[NPH + 4], sizeof cells[NPH + 4], "%.0f", uj_getn(uj_get(mem, "peak_rss_bytes"), "max", 0) / 1e6);
  snprintf(cells[NPH + 5], sizeof cells[NPH + 5], "%.0f", uj_getn(uj_get(mem, "mesh_bytes"), "max", 0) / 1e6);
  for (int k = 0; k < NCOL; k++) p[k] = cells[k];
  rep_row(h, m, 0, NCOL, p);
}

void rep_write_setup(FILE *h, FILE *m, const uj *const *files, int nfiles, const char *app) {
  int any = 0;
  for (int k = 0; k < nfiles; k++) {
    const uj *cs = uj_get(files[k], "cases");
    for (int i = 0; i < uj_len(cs); i++) {
      const uj *c = uj_at(cs, i);
      if (strcmp(uj_gets(c, "app", ""), app) || !uj_get(uj_get(c, "run"), "setup_phases")) continue;
      if (!any++) {
        fputs("<h3>Set-up by phase and memory per rank</h3>\n<p>Seconds of each phase of the set-up on the slowest "
              "rank (they add up to the set-up on each rank), the most fresh memory one rank's set-up touched (its "
              "page faults: memory written for the first time, a cost of its own), and the largest peak resident "
              "memory and mesh over the ranks.</p>\n<div class=\"wrap\"><table>\n",
              h);
        fputs("### Set-up by phase and memory per rank\n\n", m);
        const char *head[NCOL] = {"run", "ranks", "set-up s"};
        for (int j = 0; j < NPH; j++) head[3 + j] = um_setup_phase_name((um_setup_phase)j);
        head[NPH + 3] = "touched MB", head[NPH + 4] = "peak MB", head[NPH + 5] = "mesh MB";
        rep_row(h, m, 1, NCOL, head);
      }
      setup_row(h, m, c);
    }
  }
  if (any) {
    fputs("</table></div>\n", h);
    fputs("\n", m);
  }
}
