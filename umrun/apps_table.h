/* The runner's table of apps (set once by um_run_main). */
#ifndef UMRUN_APPS_TABLE_H
#define UMRUN_APPS_TABLE_H
#include "um/app.h"
void umrun_apps_set(const um_app *const *apps, int n);
#endif
