/* The built-in apps, from um_app_list.h: generated at configure time from the
 * app folders (cmake/UmApp.cmake), one UM_APP(name) per app in
 * `umrun --list-apps` order. Adding an app never edits this file. umrun gives
 * this table to um_run_main (umrun/main.c). */
#include "builtin_apps.h"

#define UM_APP(name) extern const um_app um_app_##name;
#include "um_app_list.h"
#undef UM_APP

const um_app *const um_builtin_apps[] = {
#define UM_APP(name) &um_app_##name,
#include "um_app_list.h"
#undef UM_APP
};

const int um_builtin_app_count = (int)(sizeof um_builtin_apps / sizeof um_builtin_apps[0]);

