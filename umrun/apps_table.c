/* The apps the runner knows: the table um_run_main was given (um/app.h:
 * um_app_count, um_app_at, um_app_find). umrun gives the built-in apps
 * (apps/registry.c); an out-of-tree program gives its own. */
#include <strings.h>
#include "apps_table.h"

static const um_app *const *table;
static int ntable;

void umrun_apps_set(const um_app *const *apps, int n) {
  table = apps;
  ntable = apps && n > 0 ? n : 0;
}

int um_app_count(void) { return ntable; }
const um_app *um_app_at(int i) { return (i >= 0 && i < ntable) ? table[i] : NULL; }
const um_app *um_app_find(const char *name) {
  for (int i = 0; name && i < ntable; i++)
    if (strcasecmp(table[i]->name, name) == 0) return table[i];
  return NULL;
}
