/* umrun's manual page and shell completions, printed from the same tables as
 * --help and docs/options.md (the command line from usage's "options:" text,
 * the config keys from the runner's, the backends' and the apps' declarations):
 * umrun --help-options=man | bash | zsh. The build writes them (umrun.1, the
 * bash and zsh completions) and installs them; the tests check them. */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include "manpage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "um/backend.h"
#include "um/build_config.h"
#include "um/option_decl.h"
#include "um/um.h"

/* Text for roff: backslashes escaped, a line starting with '.' or '\'' protected, '-' as \- (a hyphen that
 * copies and searches as one). */
static void roff_text(FILE *f, const char *s, size_t n) {
  int bol = 1;
  for (size_t i = 0; i < n && s[i]; i++) {
    const char c = s[i];
    if (bol && (c == '.' || c == '\'')) fputs("\\&", f);
    if (c == '\\')
      fputs("\\e", f);
    else if (c == '-')
      fputs("\\-", f);
    else
      fputc(c, f);
    bol = c == '\n';
  }
}
static void roff(FILE *f, const char *s) { roff_text(f, s, strlen(s)); }

/* The usage text, whole, in a string (freed by the caller). */
static char *usage_text(const um_runner *r) {
  char *buf = NULL;
  size_t n = 0;
  FILE *m = open_memstream(&buf, &n);
  if (!m) return NULL;
  umrun_print_usage(r, m);
  fclose(m);
  return buf;
}

/* The usage's "options:" block: each "  --flag ..." line starts an entry, deeper lines continue it. */
static void man_command_line(FILE *f, const char *usage) {
  const char *p = strstr(usage, "\noptions:\n"), *end = strstr(usage, "\nprecedence:");
  if (!p || !end) return;
  for (p += strlen("\noptions:\n"); p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n > 4 && !strncmp(p, "  --", 4)) { /* "  --json FILE       text": the flag and its argument, then text */
      const char *q = p + 2, *gap = strstr(q, "  ");
      if (!gap || gap > p + n) gap = p + n;
      fputs(".TP\n\\fB", f);
      roff_text(f, q, (size_t)(gap - q));
      fputs("\\fR\n", f);
      while (gap < p + n && *gap == ' ') gap++;
      roff_text(f, gap, (size_t)(p + n - gap));
      fputc('\n', f);
    } else {
      const char *q = p;
      while (q < p + n && *q == ' ') q++;
      roff_text(f, q, (size_t)(p + n - q));
      fputc('\n', f);
    }
    p += n + 1;
  }
}

/* The usage's first lines (up to the first empty one), "usage: " taken off: every form of the command line. */
static void man_synopsis(FILE *f, const char *usage) {
  const char *p = strstr(usage, "usage: "), *end = p ? strstr(p, "\n\n") : NULL;
  if (!p || !end) return;
  for (p += strlen("usage: "); p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *q = p;
    while (q < p + n && *q == ' ') q++;
    roff_text(f, q, (size_t)(p + n - q));
    fputc('\n', f);
    p += n + 1;
  }
}

static void man_option(FILE *f, const um_option *o) {
  fputs(".TP\n\\fB", f);
  roff(f, o->key);
  fprintf(f, "\\fR (%s", o->type == UM_OPT_APP ? "the app's keys" : umrun_opt_type_name(o->type));
  if (o->def && *o->def) fputs("; default ", f), roff(f, o->def);
  if (o->type == UM_OPT_CHOICE && o->choices) {
    fputs("; one of", f);
    for (int i = 0; o->choices[i]; i++) fputs(i ? ", " : " ", f), roff(f, o->choices[i]);
  } else if (o->range_hint) {
    fputs("; ", f), roff(f, o->range_hint);
  }
  fputs(")\n", f);
  if (o->help) roff(f, o->help), fputc('\n', f);
  if (o->flags & UM_OPT_PATH)
    fputs(".br\nA relative path in a config file is relative to the config's folder (see PATHS IN A CONFIG).\n", f);
  if (o->renamed_to) fputs(".br\nNow ", f), roff(f, o->renamed_to), fputs(".\n", f);
}

void umrun_each_backend_option(umrun_option_fn *fn, void *arg) {
  for (int i = 0; i < um_backend_count(); i++) {
    const char *b = um_backend_at(i);
    for (int k = 0; k < um_backend_option_count(b); k++) {
      const char *key;
      um_backend_option_at(b, k, &key, NULL, NULL, NULL);
      char full[160];
      snprintf(full, sizeof full, "%s.%s", b, key);
      const um_option *o = um_option_find(full);
      if (o) fn(o, arg);
    }
  }
}

static void man_option_to(const um_option *o, void *f) { man_option(f, o); }

static const char *const man_head =
    ".SH DESCRIPTION\n"
    "Runs one app of the um suite (Airfoil, Volna, BookLeaf, LULESH, miniAero, SIAC, Jacobi) as a YAML config "
    "says: app, mesh, parameters, backend, strategy, layout, block size, validation and outputs, and checks the "
    "result against a validation reference. Without \\fICONFIG\\fR it runs the embedded default job (a small "
    "Airfoil case, validated). Values come from the config file, then the environment variable "
    "\\fBUM_OPTIONS\\fR, then each \\fB\\-\\-set\\fR, in increasing priority.\n"
    ".SH OPTIONS\n";

static const char *const man_tail =
    ".SH PATHS IN A CONFIG\n"
    "A relative path that a config file gives for an input (mesh files, decks, validation.reference, "
    "run.reorder_file, SIAC's mesh.dir) is looked up from the config file's own folder, then in the data folder "
    "(\\fBUM_DATA_DIR\\fR, else \\fIPREFIX\\fR/share/um beside the installed umrun), then in the current folder; "
    "an input found nowhere stops the run before the first loop, naming the folders looked in. A path given with "
    "\\fB\\-\\-set\\fR, \\fBUM_OPTIONS\\fR or a suite is relative to the current folder. Outputs (output.dir, "
    "\\fB\\-\\-json\\fR, \\fB\\-\\-csv\\fR) are written relative to the current folder.\n"
    ".SH ENVIRONMENT\n"
    ".TP\n\\fBUM_OPTIONS\\fR\nwhitespace\\-separated key=value pairs applied after the config file\n"
    ".TP\n\\fBUM_DATA_DIR\\fR\nthe data folder (validation/, configs/); default \\fIPREFIX\\fR/share/um\n"
    ".TP\n\\fBUM_\\fIBACKEND\\fB_\\fIKEY\\fR\na backend's own setting (\\fIbackend\\fR.\\fIkey\\fR)\n"
    ".TP\n\\fBUM_VERBOSE\\fR=1|2\nthe engine's details on stderr\n"
    ".TP\n\\fBTMPDIR\\fR\nwhere temporary folders are made (field files without output.dir, \\-\\-suite and "
    "\\-\\-repeat runs, compiled loops without a cache); one that is relative, missing or not a writable folder: "
    "/tmp, with a warning naming it and why\n"
    ".SH FILES\n"
    ".TP\n\\fIPREFIX\\fR/share/um/configs/\nthe configs of every app (umrun \\fIPREFIX\\fR/share/um/configs/"
    "airfoil_small.yaml runs from any folder)\n"
    ".TP\n\\fIPREFIX\\fR/share/um/validation/\nthe validation references and the upstream decks\n"
    ".SH EXIT STATUS\n"
    "0 success (and validation passed, if configured); 1 bad command line or config, or an input or output path "
    "that does not work; 2 the run failed; 3 validation failed; 4 stopped at a checkpoint as asked "
    "(checkpoint.on_signal, checkpoint.stop_after): continue with \\-\\-restart.\n"
    ".SH LICENSE\n"
    "um is under the BSD 3\\-Clause licence; the third\\-party validation data keeps its own licences "
    "(THIRD_PARTY.md, installed with the documentation).\n"
    ".SH SEE ALSO\n"
    "\\fBumrun \\-\\-help\\fR, \\fBumrun \\-\\-list\\-apps\\fR, \\fBumrun \\-\\-suite \\-\\-help\\fR, "
    "\\fBmpirun\\fR(1); docs/options.md and docs/library.md in um's documentation.\n";

void umrun_man_page(FILE *f, const um_runner *r) {
  char *usage = usage_text(r);
  fprintf(f,
          ".\\\" Generated by `umrun --help-options=man`: do not edit.\n"
          ".TH UMRUN 1 \"\" \"um %s\" \"User Commands\"\n.SH NAME\numrun \\- run, validate and measure the "
          "apps of the um suite\n",
          UM_VERSION);
  fputs(".SH SYNOPSIS\n.nf\n", f);
  if (usage) man_synopsis(f, usage);
  fputs(".fi\n", f);
  fputs(man_head, f);
  if (usage) man_command_line(f, usage);
  free(usage);
  fputs(".SH CONFIG KEYS\nThe runner's keys, then each backend's, then each app's (\\fBumrun \\-\\-list\\-apps\\fR):\n",
        f);
  for (int i = 0; i < umrun_option_count(); i++) man_option(f, umrun_option_at(i));
  umrun_each_backend_option(man_option_to, f); /* every backend option, as the engine declares it */
  for (int i = 0; i < um_app_count(r); i++) {
    const um_app *a = um_app_at(r, i);
    fputs(".SS ", f), roff(f, a->name), fputc('\n', f);
    for (int k = 0; k < a->noptions; k++) man_option(f, &a->options[k]);
  }
  fputs(man_tail, f);
}
