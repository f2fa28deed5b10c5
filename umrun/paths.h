/* The input paths of a config resolved where the config is (paths.c): every
 * option declared UM_OPT_PATH whose value the config file gives as a relative
 * path is looked up from the config's folder, then the data folder, then the
 * current folder; values from --set, UM_OPTIONS or a suite stay relative to the
 * current folder. */
#ifndef UMRUN_PATHS_H
#define UMRUN_PATHS_H
#include <stddef.h>

#include "um/app.h"
#include "um/config.h"

/* Resolve cfg's paths from the config file config_path (NULL: the embedded config, nothing to do).
 * UM_ERR_CONFIG with the message in err when an input is found nowhere (it names the folders looked in). */
int umrun_resolve_paths(const um_runner *r, const char *config_path, um_config *cfg, char *err, size_t len);
#endif
