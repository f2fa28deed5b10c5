/* umrun's manual page and shell completions (manpage.c, completion.c), printed
 * from the tables --help and docs/options.md come from: umrun --help-options=man,
 * --help-options=bash, --help-options=zsh. */
#ifndef UMRUN_MANPAGE_H
#define UMRUN_MANPAGE_H
#include <stdio.h>

#include "um/app.h"
#include "um/option_decl.h"

/* umrun --help's text (umrun.c), the source of the man page's command-line options and of the completions'
 * flags. */
void umrun_print_usage(const um_runner *r, FILE *f);
/* The manual page umrun(1), roff. */
void umrun_man_page(FILE *f, const um_runner *r);
/* fn(o, arg) for every backend option (um_backend_def.options) the engine declares, backend by backend. */
typedef void umrun_option_fn(const um_option *o, void *arg);
void umrun_each_backend_option(umrun_option_fn *fn, void *arg);
/* A completion script: shell "bash" or "zsh" (the flags, every config key after --set, and the values of a
 * key's choices). Returns 0, or -1 for another shell. */
int umrun_completion(FILE *f, const um_runner *r, const char *shell);
#endif
