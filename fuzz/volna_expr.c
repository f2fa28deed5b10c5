/* Fuzz Volna's formula parser (apps/volna/expr.c): parsing, the interpreter and the C text it
 * generates for device kernels; the generated text must stay within the characters of a C
 * expression of x, y, t (nothing of the input is copied into generated code but numbers). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "volna/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[1024];
  vl_expr *e = NULL;
  if (vl_expr_parse(text, "fuzz.vln", 1, &e, err, sizeof err) == 0) {
    (void)vl_expr_eval(e, 1.5f, -2.0f, 0.25f);
    const size_t n = vl_expr_to_c(e, NULL, 0);
    char *c = malloc(n + 1);
    if (c) {
      if (vl_expr_to_c(e, c, n + 1) != n || strlen(c) != n) abort();
      for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789.e+-*/()<>=!?:,&|fxytabcdghilmnoprsquw_ ", c[i])) abort(); /* u: um_expf */
      free(c);
    }
    vl_expr_free(e);
  } else if (e || !strstr(err, "fuzz.vln")) {
    abort();
  }
  free(text);
  return 0;
}
