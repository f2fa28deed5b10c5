/* The folder for temporary files (um/safe_file.h, um_temp_dir): $TMPDIR when it can serve, else /tmp, with why. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "um/safe_file.h"

const char *um_temp_dir(char *why, size_t n) {
  const char *t = getenv("TMPDIR");
  char reason[512] = "";
  struct stat st;
  if (why && n) why[0] = '\0';
  if (!t || !*t) return "/tmp";
  if (t[0] != '/')
    snprintf(reason, sizeof reason, "is not an absolute path");
  else if (stat(t, &st) != 0) /* a folder removed after the variable was set (a job's scratch, a session's /run/user) */
    snprintf(reason, sizeof reason, "%s (%s)", errno == ENOENT ? "does not exist" : "cannot be reached",
             strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    snprintf(reason, sizeof reason, "is not a folder");
  else if (access(t, W_OK | X_OK) != 0)
    snprintf(reason, sizeof reason, "is not writable (%s)", strerror(errno));
  else
    return t;
  if (why && n) snprintf(why, n, "$TMPDIR ('%.1024s') %s", t, reason);
  return "/tmp";
}
