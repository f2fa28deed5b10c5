/* Exploring: which of a run's settings differ from the config that names its
 * validation reference (umrun: a failed validation of such a run says that the
 * run is not comparable, instead of listing every metric it did not produce). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"
#include "provenance.h"
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
  else if (base)
    snprintf(buf + l, len - l, "%s%s = %s (from %s; the config does not set it)", *n ? ", " : "", key, now, org);
  else /* the config file is not at hand (a run's JSON read elsewhere, or the file changed since) */
    snprintf(buf + l, len - l, "%s%s = %s (from %s)", *n ? ", " : "", key, now, org);
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

/* The config file a run's JSON names, when it is at hand and holds the bytes the run read (its SHA-256 in the
 * JSON's inputs); else NULL. */
static um_config *run_config_file(const uj *run) {
  const char *path = uj_gets(run, "config", NULL);
  const char *sha = NULL;
  const uj *ins = uj_get(run, "inputs");
  for (int i = 0; i < uj_len(ins); i++)
    if (!strcmp(uj_gets(uj_at(ins, i), "role", ""), "config")) sha = uj_gets(uj_at(ins, i), "sha256", NULL);
  char hex[65];
  double bytes = 0;
  um_config *cfg = NULL;
  if (!path || !sha || umrun_sha256_file(path, hex, &bytes) || strcmp(hex, sha) ||
      um_config_load_file(path, &cfg, NULL, 0))
    return NULL;
  return cfg;
}

/* A reference's file as umrun_ref_load finds it (as given, else in the data folder): 0 and its stat */
static int ref_stat(const char *given, struct stat *st) {
  char dir[4096], path[8200];
  if (!stat(given, st)) return 0;
  if (given[0] == '/' || !*umrun_data_dir(dir, sizeof dir)) return -1;
  snprintf(path, sizeof path, "%s/%s", dir, given);
  return stat(path, st);
}

/* 1 when the config names the reference file `ref` (the changes are then from the config of ref) */
static int names_this_ref(um_config *base, const char *ref) {
  const char *named = NULL;
  struct stat a, b;
  um_config_kind_t kind = UM_CONFIG_ABSENT;
  if (!base || !ref || umrun_opt_kind(base, "validation.reference", &kind, NULL, 0) || kind != UM_CONFIG_SCALAR ||
      umrun_opt_string(base, "validation.reference", &named, NULL, 0) || !named || !*named)
    return 0;
  return !ref_stat(named, &a) && !ref_stat(ref, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int umrun_changed_settings_json(const uj *run, const char *ref, char *unknown, size_t ulen, char *buf, size_t len) {
  if (!len) return 0;
  buf[0] = '\0';
  if (ulen) unknown[0] = '\0';
  const uj *opts = uj_get(run, "options");
  um_config *cfg = NULL;
  if (!opts || opts->kind != UJ_OBJ || um_config_create(&cfg, NULL, 0)) return 0; /* older files: nothing known */
  for (int i = 0; i < opts->n; i++) { /* the options the run's config and command line gave, with their origins */
    const uj *o = &opts->items[i];
    const char *value = uj_gets(o, "value", NULL), *origin = uj_gets(o, "origin", "default");
    if (value && strcmp(origin, "default")) um_config_set(cfg, opts->keys[i], value, origin, NULL, 0);
  }
  um_config *base = run_config_file(run);
  int n = 0;
  if (base && names_this_ref(base, ref)) /* only then do the changes make the run another than ref's */
    n = umrun_changed_settings(cfg, base, buf, len);
  else if (!base && ulen) /* which config ref is of cannot be known: the changes said, not judged */
    umrun_changed_settings(cfg, NULL, unknown, ulen);
  um_config_free(base);
  um_config_free(cfg);
  return n;
}

void umrun_print_not_comparable(FILE *out, const char *reference, const char *changed, const um_validation_result *val,
                                const char *advice) {
  fprintf(out,
          "\nvalidation against %s: NOT COMPARABLE\n"
          "  this run's settings differ from those of the config that names the reference: %s.\n"
          "  The reference holds the numbers of the run that config describes, so this run's results are not\n"
          "  comparable with it (%d of %d metrics",
          reference, changed, val->nfail, val->nmetrics);
  if (val->nfields) fprintf(out, ", %d of %d fields", val->nfields_fail, val->nfields);
  fprintf(out, " do not match the reference).\n  %s\n", advice);
}
