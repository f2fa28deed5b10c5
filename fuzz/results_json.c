/* Fuzz the JSON reader of umrun's tools (umrun/json.c) and the two commands
 * that read results files: any input is parsed or refused with a
 * "<file>:<line>:<col>: ..." message, and a parsed one goes through
 * --compare (against itself), --report (whose page must hold no element
 * from the input) and --validate (as a run's JSON, against jacobi's
 * reference: a run whose status is not a finished run's never passes):
 * whatever its shape (missing keys, wrong kinds, odd numbers), never a crash.
 * Run from the source root (the reference is validation/jacobi/...). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "tools.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int quiet = 0;
  if (!quiet) { /* the commands print their tables: not wanted here */
    quiet = 1;
    if (!freopen("/dev/null", "w", stdout)) return 0;
  }
  uj *v = NULL;
  char err[512];
  if (uj_parse((const char *)data, size, "fuzz.json", &v, err, sizeof err) != 0) {
    if (!strstr(err, "fuzz.json:")) abort(); /* every refusal says where */
    return 0;
  }
  uj_free(v);
  char path[64], html[64], md[64];
  snprintf(path, sizeof path, "/tmp/um_fuzz_results_%ld.json", (long)getpid());
  snprintf(html, sizeof html, "/tmp/um_fuzz_report_%ld.html", (long)getpid());
  snprintf(md, sizeof md, "/tmp/um_fuzz_report_%ld.md", (long)getpid());
  if (fuzz_write_file(path, data, size)) return 0;
  char *cargv[] = {"--compare", path, path, NULL};
  umrun_compare_main(3, cargv);
  char *rargv[] = {"--report", html, path, NULL};
  umrun_report_main(NULL, 3, rargv);
  /* no string of the input becomes an element of the page (issue 25): the page has no script of its own */
  FILE *h = fopen(html, "rb");
  if (h) {
    static char page[1 << 22];
    size_t n = fread(page, 1, sizeof page - 1, h);
    fclose(h);
    page[n] = 0;
    if (strstr(page, "<script") || strstr(page, "<img") || strstr(page, "<iframe")) abort();
  }
  /* --validate reads the same JSON as one run's (status, app, metrics) against a reference */
  char *vargv[] = {"--validate", path, "validation/jacobi/grid16.ref.yaml", NULL};
  const int vrc = umrun_validate_main(3, vargv);
  char *text = malloc(size + 1);
  if (text) {
    memcpy(text, data, size);
    text[size] = 0;
    if (vrc == 0 && !strstr(text, "\"ok\"") && !strstr(text, "\"validation")) abort(); /* no status, no pass */
    free(text);
  }
  unlink(path);
  unlink(html);
  unlink(md);
  return 0;
}
