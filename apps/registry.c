/* The table of apps umrun knows, from um_app_list.h: generated at configure
 * time from the app folders (cmake/UmApp.cmake), one UM_APP(name) per app in
 * `umrun --list-apps` order. Adding an app never edits this file. */
#include <strings.h>
#include "common/um_app.h"

#define UM_APP(name) extern const um_app um_app_##name;
#include "um_app_list.h"
#undef UM_APP

static const um_app *const apps[] = {
#define UM_APP(name) &um_app_##name,
#include "um_app_list.h"
#undef UM_APP
};

int um_app_count(void) { return (int)(sizeof apps / sizeof apps[0]); }
const um_app *um_app_at(int i) { return (i >= 0 && i < um_app_count()) ? apps[i] : NULL; }
const um_app *um_app_find(const char *name) {
  for (int i = 0; i < um_app_count(); i++)
    if (name && strcasecmp(apps[i]->name, name) == 0) return apps[i];
  return NULL;
}
