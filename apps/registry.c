/* The table of apps umrun knows. Add a line here when an app lands. */
#include <strings.h>
#include "common/um_app.h"

extern const um_app um_app_jacobi;
extern const um_app um_app_airfoil;
extern const um_app um_app_lulesh;

static const um_app *const apps[] = {&um_app_airfoil, &um_app_lulesh, &um_app_jacobi};

int um_app_count(void) { return (int)(sizeof apps / sizeof apps[0]); }
const um_app *um_app_at(int i) { return (i >= 0 && i < um_app_count()) ? apps[i] : NULL; }
const um_app *um_app_find(const char *name) {
  for (int i = 0; i < um_app_count(); i++)
    if (name && strcasecmp(apps[i]->name, name) == 0) return apps[i];
  return NULL;
}
