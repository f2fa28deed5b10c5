/* Exploring: which of a run's settings differ from the config that names its
 * validation reference (umrun: a failed validation of such a run says that the
 * run is not comparable, instead of listing every metric it did not produce). */
#include <stdio.h>
#include <string.h>

#include "tools.h"
#include "um/config.h"

/* A value set on the command line or in the environment, not in a config file. */
static int from_command_line(const um_config *cfg, const char *key) {
  char org[256];
  if (um_config_origin(cfg, key, org, sizeof org)) return 0;
  return !strcmp(org, "--set") || !strcmp(org, "UM_OPTIONS") || !strcmp(org, "--sweep") || !strncmp(org, "suite case", 10);
}

static void add_changed(um_config *cfg, um_config *base, const char *key, char *buf, size_t len, int *n) {
  const um_config_kind_t kind = um_config_kind(cfg, key);
  if ((kind != UM_CONFIG_SCALAR && kind != UM_CONFIG_NULL) || !from_command_line(cfg, key)) return;
  const char *now = NULL, *was = NULL;
  char org[256];
  um_config_origin(cfg, key, org, sizeof org);
  if (um_config_get_string(cfg, key, NULL, &now, NULL, 0)) return;
  if (!now) now = "(none)"; /* key= or key=null: the value removed is a change too */
  if (base && um_config_kind(base, key) == UM_CONFIG_SCALAR) um_config_get_string(base, key, NULL, &was, NULL, 0);
  if ((was && !strcmp(was, now)) || (!was && kind == UM_CONFIG_NULL)) return; /* the value it had: no change */
  const size_t l = strlen(buf);
  if (was)
    snprintf(buf + l, len - l, "%s%s = %s (from %s; the config has %s)", *n ? ", " : "", key, now, org, was);
  else
    snprintf(buf + l, len - l, "%s%s = %s (from %s; the config does not set it)", *n ? ", " : "", key, now, org);
  (*n)++;
}

/* Every scalar under `prefix` (a mapping), depth first. */
static void walk(um_config *cfg, um_config *base, const char *prefix, char *buf, size_t len, int *n, int depth) {
  int nk = 0;
  if (depth > 8 || um_config_kind(cfg, prefix) != UM_CONFIG_MAPPING ||
      um_config_keys(cfg, prefix, &nk, NULL, 0, NULL, 0) || nk <= 0)
    return;
  const char *names[64];
  if (nk > 64) nk = 64;
  if (um_config_keys(cfg, prefix, &nk, names, nk, NULL, 0)) return;
  for (int i = 0; i < nk && i < 64; i++) {
    char key[512];
    snprintf(key, sizeof key, "%s.%s", prefix, names[i]);
    if (um_config_kind(cfg, key) == UM_CONFIG_MAPPING) walk(cfg, base, key, buf, len, n, depth + 1);
    else add_changed(cfg, base, key, buf, len, n);
  }
}

int umrun_changed_settings(um_config *cfg, um_config *base, char *buf, size_t len) {
  int n = 0;
  if (!len) return 0;
  buf[0] = '\0';
  if (from_command_line(cfg, "validation.reference")) return 0; /* the reference was chosen with the changes */
  walk(cfg, base, "mesh", buf, len, &n, 0);
  walk(cfg, base, "params", buf, len, &n, 0);
  add_changed(cfg, base, "run.iterations", buf, len, &n);
  return n;
}
