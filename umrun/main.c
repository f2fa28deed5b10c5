/* umrun: the runner (um/run.h) over the built-in apps, with the embedded
 * default job (configs/default.yaml) when no config is given. */
#include "builtin_apps.h"
#include "um/run.h"

extern const char umrun_default_config[];

int main(int argc, char **argv) {
  um_run_set_default_config(umrun_default_config, "embedded default config");
  return um_run_main(argc, argv, um_builtin_apps, um_builtin_app_count);
}
