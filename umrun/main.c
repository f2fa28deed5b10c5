/* umrun: the runner (um/run.h) over the built-in apps, with the embedded
 * default job (configs/default.yaml) when no config is given. */
#include "builtin_apps.h"
#include "um/run.h"

extern const char umrun_default_config[];

int main(int argc, char **argv) {
  const um_run_args args = {.apps = um_builtin_apps,
                            .n_apps = um_builtin_app_count,
                            .default_config = umrun_default_config,
                            .default_config_name = "embedded default config"};
  return um_run_main(argc, argv, &args);
}
