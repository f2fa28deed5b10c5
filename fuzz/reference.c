/* Fuzz the validation reference reader (driver/src/validate.c) through a
 * file, as runs and umrun --validate load it: any bytes as <dir>/x.ref.yaml,
 * beside a small field file q.txt its fields may name. A reference that
 * loads is used as a run would use it: its metrics validated against values
 * near its own (and a NaN), its fields compared with q.txt, the result
 * written as JSON. Every refusal names the file; never a crash. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "um/validate.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char dir[64], path[96], field[96];
  static FILE *null;
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/um_fuzz_ref_%ld", (long)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/x.ref.yaml", dir);
    snprintf(field, sizeof field, "%s/q.txt", dir);
    FILE *q = fopen(field, "wb");
    if (q) {
      fputs("1 2.5 -3e-7\n0.25 nan 4\n", q);
      fclose(q);
    }
    null = fopen("/dev/null", "w");
  }
  if (fuzz_write_file(path, data, size)) return 0;
  um_ref *ref = NULL;
  char err[2048] = "";
  if (um_ref_load(path, &ref, err, sizeof err) != 0) {
    if (ref || !strstr(err, "x.ref.yaml")) abort(); /* a refusal names the file */
    return 0;
  }
  const int n = ref->nmetrics;
  const char **names = calloc((size_t)n + 1, sizeof *names);
  double *values = calloc((size_t)n + 1, sizeof *values);
  if (names && values) {
    for (int i = 0; i < n; i++) {
      names[i] = ref->metrics[i].name;
      values[i] = i == 1 ? NAN : ref->metrics[i].value * (1 + 1e-9 * i);
    }
    um_validation_result res;
    memset(&res, 0, sizeof res);
    int rc = um_validate(ref, ref->app, n, names, values, null, &res);
    if (rc == 0 || rc == 7 /* UM_ERR_VALIDATION */) {
      const char *fnames[4], *fpaths[4];
      int nf = 0;
      for (int i = 0; i < ref->nfields && nf < 4; i++) fnames[nf] = ref->fields[i].name, fpaths[nf++] = field;
      um_validate_fields(ref, nf, fnames, fpaths, null, &res);
    }
    if (null) um_validation_write_json(ref, &res, null);
    um_validation_result_free(&res);
  }
  free(names);
  free(values);
  um_ref_free(ref);
  return 0;
}
