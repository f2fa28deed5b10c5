/* heat2d's program: the um runner (configs, validation, --json, --suite, mpirun, ...) over one app. */
#include "um/run.h"

extern const um_app um_app_heat2d;

int main(int argc, char **argv) {
  const um_app *apps[] = {&um_app_heat2d};
  const um_run_args args = {.apps = apps, .n_apps = 1};
  return um_run_main(argc, argv, &args);
}
