/* --report: an app's set-up by phase and memory per rank, one row per run that has them (the run JSON's
 * setup_phases and memory): the set-up's seconds, each phase's on the slowest rank, and the largest peak
 * resident memory and mesh bytes over the ranks. */
#include "htmlreport_internal.h"
#include "json.h"
#include "um/um.h"

enum { NPH = UM_SETUP_NPHASES };

static void setup_row(FILE *h, FILE *m, const uj *c) {
  const uj *run = uj_get(c, "run"), *ph = uj_get(run, "setup_phases"), *mem = uj_get(run, "memory");
  char cells[NPH + 5][160];
  const char *p[NPH + 5];
  umrun_variant_label(c, cells[NPH + 4], sizeof cells[NPH + 4]); /* runs of one case told apart by their variant */
  snprintf(cells[0], sizeof cells[0], "%.60s %.90s", uj_gets(c, "case", "?"), cells[NPH + 4]);
  snprintf(cells[1], sizeof cells[1], "%.0f", uj_getn(run, "ranks", 1));
  snprintf(cells[2], sizeof cells[2], "%.3f", uj_getn(run, "setup_seconds", 0));
  for (int k = 0; k < NPH; k++)
    snprintf(cells[3 + k], sizeof cells[3 + k], "%.3f",
             uj_getn(uj_get(ph, um_setup_phase_name((um_setup_phase)k)), "max", 0));
  snprintf(cells[NPH + 3], sizeof cells[NPH + 3], "%.0f", uj_getn(uj_get(mem, "peak_rss_bytes"), "max", 0) / 1e6);
  snprintf(cells[NPH + 4], sizeof cells[NPH + 4], "%.0f", uj_getn(uj_get(mem, "mesh_bytes"), "max", 0) / 1e6);
  for (int k = 0; k < NPH + 5; k++) p[k] = cells[k];
  rep_row(h, m, 0, NPH + 5, p);
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
              "rank (they add up to the set-up on each rank), and the largest peak resident memory and mesh over the "
              "ranks.</p>\n<div class=\"wrap\"><table>\n",
              h);
        fputs("### Set-up by phase and memory per rank\n\n", m);
        const char *head[NPH + 5] = {"run", "ranks", "set-up s"};
        for (int j = 0; j < NPH; j++) head[3 + j] = um_setup_phase_name((um_setup_phase)j);
        head[NPH + 3] = "peak MB", head[NPH + 4] = "mesh MB";
        rep_row(h, m, 1, NPH + 5, head);
      }
      setup_row(h, m, c);
    }
  }
  if (any) {
    fputs("</table></div>\n", h);
    fputs("\n", m);
  }
}
