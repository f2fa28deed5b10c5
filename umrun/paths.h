/* The input paths of a config resolved where the config is (paths.c): every
 * option declared UM_OPT_PATH whose value the config file gives as a relative
 * path is looked up from the config's folder, then the data folder, then the
 * current folder; values from --set, UM_OPTIONS or a suite stay relative to the
 * current folder. A suite case's config: follows the same rule from the suite file. */
#ifndef UMRUN_PATHS_H
#define UMRUN_PATHS_H
#include <stddef.h>

#include "um/app.h"
#include "um/config.h"

/* Resolve cfg's paths from the config file config_path (NULL: the embedded config, nothing to do).
 * UM_ERR_CONFIG with the message in err when an input is found nowhere (it names the folders looked in). */
int umrun_resolve_paths(const um_runner *r, const char *config_path, um_config *cfg, char *err, size_t len);

/* One value of key that the config file config_path gives (its sweep: list), resolved by the same rule into out
 * (as given when key is no path, or the current folder reaches it); app_name: the config's app, for its keys. */
int umrun_resolve_path_value(const um_runner *r, const char *config_path, const char *app_name, const char *key,
                             const char *value, char *out, size_t outlen, char *err, size_t len);

/* A suite case's config: (value, written in the suite file suite_path) resolved by the same rule, from the suite
 * file's folder, then the data folder, then the current folder, into out (as given when absolute or when the
 * current folder reaches it). UM_ERR_CONFIG naming the folders looked in when it is found nowhere. */
int umrun_resolve_suite_config(const char *suite_path, const char *value, char *out, size_t outlen, char *err,
                               size_t len);

/* value as a YAML single-quoted flow scalar (quotes doubled), which um_config_set reads as the string itself;
 * malloc'd, NULL when out of memory. */
char *umrun_yaml_quoted(const char *value);
#endif
