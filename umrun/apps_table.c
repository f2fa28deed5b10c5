/* The runner's state (apps_table.h): the apps um_run_main was given (um/app.h: um_app_count, um_app_at,
 * um_app_find), its default job and the program's name. umrun gives the built-in apps (apps/registry.c) and its
 * embedded default config; an out-of-tree program gives its own. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "apps_table.h"

int umrun_runner_init(um_runner *r, const um_run_args *args, const char *argv0) {
  const char *who = argv0 && *argv0 ? argv0 : "um_run_main";
  memset(r, 0, sizeof *r);
  r->prog = "umrun";
  if (!args || !args->apps || args->n_apps < 1) {
    fprintf(stderr, "%s: um_run_main was given no apps (pass a table of at least one um_app)\n", who);
    return -1;
  }
  for (int i = 0; i < args->n_apps; i++)
    if (!args->apps[i] || !args->apps[i]->name || !args->apps[i]->run) {
      fprintf(stderr, "%s: um_run_main: app %d of %d has no name or no run function\n", who, i, args->n_apps);
      return -1;
    }
  r->apps = args->apps;
  r->napps = args->n_apps;
  if (argv0 && *argv0) r->prog = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
  r->default_config = args->default_config;
  r->default_config_name =
      args->default_config_name && *args->default_config_name ? args->default_config_name : "embedded default config";
  return 0;
}

int um_app_count(const um_runner *r) { return r ? r->napps : 0; }
const um_app *um_app_at(const um_runner *r, int i) { return r && i >= 0 && i < r->napps ? r->apps[i] : NULL; }
const um_app *um_app_find(const um_runner *r, const char *name) {
  for (int i = 0; r && name && i < r->napps; i++)
    if (strcasecmp(r->apps[i]->name, name) == 0) return r->apps[i];
  return NULL;
}
