/* The runner's state (um/app.h: um_runner): what um_run_main was given, the apps and the default job, and the
 * program's name; made once by um_run_main from its arguments and passed to every part that needs it. Tests
 * make one over the built-in apps. */
#ifndef UMRUN_APPS_TABLE_H
#define UMRUN_APPS_TABLE_H
#include "um/run.h"
#ifdef __cplusplus
extern "C" {
#endif
struct um_runner {
  const um_app *const *apps; /* um_run_args.apps: the apps a config's `app:` names, in --list-apps order */
  int napps;
  const char *prog;                /* argv[0]'s last component: "umrun", or an out-of-tree app's program */
  const char *default_config;      /* um_run_args.default_config: the job run when no config is named; NULL: none */
  const char *default_config_name; /* its name in messages */
};
/* *r from args and argv0 (NULL or "": "umrun"). Returns 0, or -1 after a message on stderr when args has no apps
 * or an app without a name or a run function. */
int umrun_runner_init(um_runner *r, const um_run_args *args, const char *argv0);
#ifdef __cplusplus
}
#endif
#endif
