/* Fuzz the config loader (driver/src/config_parse.c, config_tree.c) and the
 * reference loader (validate.c): any bytes give a config or an error, never a
 * crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "um/config.h"
#include "um/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[1024];
  um_config *cfg = NULL;
  if (um_config_load_string(text, "fuzz.yaml", &cfg, err, sizeof err) == 0) {
    const char *v = NULL;
    int n = 0;
    um_config_get_string(cfg, "app", NULL, &v, err, sizeof err);
    um_config_get_int(cfg, "run.block_size", 256, &n, err, sizeof err);
    um_config_set_assignment(cfg, "run.layout=soa", "--set", err, sizeof err);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      um_config_print(cfg, null);
      um_config_write_yaml(cfg, null, err, sizeof err);
      fclose(null);
    }
    um_config_free(cfg);
  }
  um_ref *ref = NULL;
  if (um_ref_load_string(text, "fuzz.ref.yaml", &ref, err, sizeof err) == 0) um_ref_free(ref);
  free(text);
  return 0;
}
