/* umrun --report FILE.html RESULTS.json...: the command line, the files read (results files of umrun --suite, and
 * single runs' --json read as the results of their one run, as umrun --compare reads them), the page written
 * through temporaries (htmlreport.c writes it). */
#include "compare_settings.h"
#include "htmlreport_internal.h"
#include "um/safe_file.h"

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUN = 2 };

void umrun_report_usage(FILE *f) {
  fputs("usage: umrun --report FILE.html RESULTS.json [RESULTS2.json ...]\n"
        "\n"
        "Writes FILE.html (self-contained: inline styles and SVG plots, no scripts, nothing\n"
        "fetched from the network) and FILE.md from results files of umrun --suite, one per\n"
        "device or machine (a single run's --json, as `umrun CONFIG --json RUN.json` writes it,\n"
        "is read as the results of its one run; the copy bandwidth is measured by --suite only):\n"
        "per app its sets and maps, each loop's access pattern (direct,\n"
        "indirect read, indirect increment, reductions), bytes moved per element and per call,\n"
        "estimated arithmetic intensity, and per variant the achieved useful GB/s and its share\n"
        "of the device's measured copy bandwidth, colours, reuse and shared bytes per block; a\n"
        "glossary, a paragraph per app quoting its loops table (what bounds its largest loop:\n"
        "memory, arithmetic or between, said alike on the chart), notes on figures above the copy\n"
        "bandwidth and variants far off, a banner when the machine was loaded, and a roofline per\n"
        "device with every point numbered, a legend, and the CPU's measured roofs. Operation counts\n"
        "are per path through a kernel's branches (a..b: shortest..longest). Given two or more\n"
        "files, each loop's figures for the same run on the two devices side by side (columns\n"
        "named by the devices, the ratio B/A). Files made with --suite --repeat N show each time's\n"
        "spread, flagged as noise above 25%. The page fits a 1366 px screen.\n"
        "View it with any browser; to check it renders headless:\n"
        "  chromium --headless --disable-gpu --screenshot=report.png --window-size=1366,4000 FILE.html\n"
        "\n"
        "exit status: 0 written; 1 bad command line or results file; 2 FILE.html or FILE.md could not\n"
        "be written (nothing is left half-written).\n",
        f);
}

int umrun_report_main(const um_runner *r, int argc, char **argv) {
  const char *out = NULL;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  uj **files = calloc((size_t)argc + 1, sizeof *files);
  int n = 0, rc = EXIT_USAGE;
  char err[4096];
  if (!paths || !files) {
    free(paths);
    free(files);
    return EXIT_RUN;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      umrun_report_usage(stdout);
      rc = EXIT_OK;
      goto done;
    }
    if (!strcmp(a, "--report")) continue;
    if (a[0] == '-' && a[1]) {
      fprintf(stderr, "umrun --report: unknown option '%s' (see umrun --report --help)\n", a);
      goto done;
    }
    if (!out)
      out = a;
    else
      paths[n++] = a;
  }
  if (!out || !n) {
    fprintf(stderr, "usage: umrun --report FILE.html RESULTS.json... (results files of umrun --suite, or runs' "
                    "--json)\n");
    goto done;
  }
  const size_t ol = strlen(out);
  if (ol < 6 || strcmp(out + ol - 5, ".html")) {
    fprintf(stderr,
            "umrun --report: the page's name must end in .html (got '%s'); the markdown goes beside it as .md\n", out);
    goto done;
  }
  for (int k = 0; k < n; k++) {
    int single = 0; /* a single run's --json: read as the results file of its one run, as --compare reads it */
    if (cmp_load_file(paths[k], &files[k], &single, err, sizeof err)) {
      fprintf(stderr, "umrun --report: %s\n", err);
      goto done;
    }
    if (strcmp(uj_gets(files[k], "format", ""), "um-suite-results-1")) {
      umrun_results_format_why("umrun --report", paths[k], files[k], " nor a run's --json", err, sizeof err);
      fprintf(stderr, "%s\n", err);
      goto done;
    }
  }
  if (rep_prepare_runs(files, n)) {
    fprintf(stderr, "umrun --report: out of memory reading the results\n");
    rc = EXIT_RUN;
    goto done;
  }
  char mdpath[4096];
  snprintf(mdpath, sizeof mdpath, "%.*s.md", (int)(ol - 5), out);
  if (rep_overwrites_results(out, mdpath, paths, n)) goto done;
  um_safe_file hf, mf;
  if (um_safe_open(&hf, out, err, sizeof err)) {
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  if (um_safe_open(&mf, mdpath, err, sizeof err)) {
    um_safe_abort(&hf);
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  rep_write_page(r, hf.f, mf.f, (const uj *const *)files, paths, n);
  int bad = um_safe_commit(&hf, err, sizeof err);
  if (bad)
    um_safe_abort(&mf);
  else
    bad = um_safe_commit(&mf, err, sizeof err);
  if (bad) {
    fprintf(stderr, "umrun --report: %s\n", err);
    rc = EXIT_RUN;
    goto done;
  }
  printf("umrun --report: wrote %s and %s (%d file%s read)\n", out, mdpath, n, n == 1 ? "" : "s");
  rc = EXIT_OK;
done:
  for (int k = 0; k < n; k++) uj_free(files[k]);
  free(files);
  free(paths);
  return rc;
}
