/* The runner's table of apps (set once by um_run_main; tests set the built-in apps). */
#ifndef UMRUN_APPS_TABLE_H
#define UMRUN_APPS_TABLE_H
#include "um/app.h"
#ifdef __cplusplus
extern "C" {
#endif
void umrun_apps_set(const um_app *const *apps, int n);
#ifdef __cplusplus
}
#endif
#endif
