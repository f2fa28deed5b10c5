/* The apps built into umrun (apps/<app>/ and UM_EXTRA_APP_DIRS), in
 * `umrun --list-apps` order: the table umrun gives um_run_main. */
#ifndef UM_BUILTIN_APPS_H
#define UM_BUILTIN_APPS_H
#include "um/app.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const um_app *const um_builtin_apps[];
extern const int um_builtin_app_count;
#ifdef __cplusplus
}
#endif
#endif
