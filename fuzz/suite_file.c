/* Fuzz the suite file reader (umrun --suite): any bytes as a suite file,
 * listed (--list: every case loaded and checked, its config read, its app
 * checked against the registry, its matrix counted and expanded one run at a
 * time; nothing is run). Whatever the input, the command ends with status 0
 * (listed) or 1 (refused, with a message), never a crash, a hang or memory
 * growing with the matrix (a few axes of many values are counted, not
 * expanded). Run from the source root: the seeds' configs are configs/... */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int quiet = 0, devnull = -1, err_fd = -1;
  if (!quiet) { /* the listing and the messages: not wanted here (libFuzzer's own stay on stderr) */
    quiet = 1;
    if (!freopen("/dev/null", "w", stdout)) return 0;
    devnull = open("/dev/null", O_WRONLY);
    err_fd = dup(2);
  }
  char path[64];
  snprintf(path, sizeof path, "/tmp/um_fuzz_suite_%ld.yaml", (long)getpid());
  if (fuzz_write_file(path, data, size)) return 0;
  char *argv[] = {"--suite", path, "--list", "--tags", "all", NULL};
  fflush(stderr);
  if (devnull >= 0) dup2(devnull, 2);
  const int rc = umrun_suite_main(NULL, "umrun", 5, argv); /* no apps: every case refused at its app */
  fflush(stderr);
  if (err_fd >= 0) dup2(err_fd, 2);
  unlink(path);
  if (rc != 0 && rc != 1) abort(); /* --list: listed or refused, nothing else */
  return 0;
}
