/* umrun's bash and zsh completions (umrun --help-options=bash | zsh): the
 * command line's flags from --help's text, every config key after --set,
 * --suite-set and --sweep (the runner's, the backends' and the apps' tables),
 * and after "key=" the values of a choice or a bool. Config files (*.yaml)
 * elsewhere. The build writes both scripts and installs them. */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manpage.h"
#include "sweep.h"
#include "tools.h"
#include "options.h"
#include "um/backend.h"
#include "um/option_decl.h"
#include "um/um.h"

enum { MAX_WORDS = 1024 };

typedef struct {
  const char *w[MAX_WORDS];
  char *own[MAX_WORDS]; /* the words this list allocated */
  int n;
} words;

static int has(const words *l, const char *s, size_t n) {
  for (int i = 0; i < l->n; i++)
    if (strlen(l->w[i]) == n && !strncmp(l->w[i], s, n)) return 1;
  return 0;
}

static void add(words *l, const char *s, size_t n) {
  if (l->n == MAX_WORDS || has(l, s, n)) return;
  char *c = malloc(n + 1);
  if (!c) return;
  memcpy(c, s, n), c[n] = '\0';
  l->own[l->n] = c;
  l->w[l->n++] = c;
}

static void drop(words *l) {
  for (int i = 0; i < l->n; i++) free(l->own[i]);
  l->n = 0;
}

/* Whether the flag at p is one the text lists (a line of options or a usage line), not one it quotes in prose
 * (a compiler's flag in an option's help, "--fmad=false"). */
static int listed(const char *buf, const char *p) {
  const char *line = p;
  while (line > buf && line[-1] != '\n') line--;
  const char *t = line;
  while (*t == ' ') t++;
  return t == p || !strncmp(t, "usage:", 6);
}

/* Every "--flag" of --help's text (a flag's "=markdown" spelling kept whole, "=man|bash" as each). */
static void flags_of(const um_runner *r, words *flags) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) return;
  umrun_print_usage(r, m); /* and the tools' own: their flags too */
  umrun_suite_usage(m);
  umrun_compare_usage(m);
  umrun_report_usage(m);
  umrun_validate_usage(m);
  umrun_sweep_usage(m);
  fclose(m);
  for (const char *p = buf; p && (p = strstr(p, "--"));) {
    const char *q = p + 2;
    if (!listed(buf, p)) {
      p = q;
      continue;
    }
    while (islower((unsigned char)*q) || *q == '-' || (*q == '=' && islower((unsigned char)q[1]))) q++;
    if (q - p > 2 && (p == buf || p[-1] == ' ' || p[-1] == '[' || p[-1] == '(' || p[-1] == '\n')) {
      add(flags, p, (size_t)(q - p));
      const char *eq = memchr(p, '=', (size_t)(q - p));
      while (eq && *q == '|' && islower((unsigned char)q[1])) { /* --help-options=man|bash|zsh: each one */
        const char *v = ++q;
        while (islower((unsigned char)*q)) q++;
        char one[128];
        snprintf(one, sizeof one, "%.*s%.*s", (int)(eq + 1 - p), p, (int)(q - v), v);
        add(flags, one, strlen(one));
      }
    }
    p = q;
  }
  free(buf);
}

/* A key as it is typed: "mpi.loops.<loop>" offers "mpi.loops."; a family of the app's keys (mesh.*) none. */
static void key_of(const um_option *o, words *keys) {
  if (o->type == UM_OPT_APP && strchr(o->key, '*')) return;
  const char *lt = strchr(o->key, '<');
  add(keys, o->key, lt ? (size_t)(lt - o->key) : strlen(o->key));
}

/* The values a key takes, space-separated ("" when any). */
static void values_of(const um_runner *r, const um_option *o, char *out, size_t len) {
  size_t k = 0;
  out[0] = '\0';
  if (o->type == UM_OPT_BOOL)
    snprintf(out, len, "true false");
  else if (o->type == UM_OPT_CHOICE && o->choices)
    for (int i = 0; o->choices[i] && k < len; i++)
      k += (size_t)snprintf(out + k, len - k, "%s%s", i ? " " : "", o->choices[i]);
  else if (!strcmp(o->key, "run.backend")) {
    for (int i = 0; i < um_backend_count() && k < len; i++)
      k += (size_t)snprintf(out + k, len - k, "%s ", um_backend_at(i));
    if (k < len) snprintf(out + k, len - k, "auto");
  } else if (!strcmp(o->key, "app"))
    for (int i = 0; i < um_app_count(r) && k < len; i++)
      k += (size_t)snprintf(out + k, len - k, "%s%s", i ? " " : "", um_app_at(r, i)->name);
}

/* Calls fn for every option: the runner's, each backend's, each app's. */
typedef void (*option_fn)(const um_runner *r, const um_option *o, FILE *f, words *keys);
typedef struct {
  const um_runner *r;
  option_fn fn;
  FILE *f;
  words *keys;
} each_call;
static void call_one(const um_option *o, void *arg) {
  const each_call *c = arg;
  c->fn(c->r, o, c->f, c->keys);
}
static void each_option(const um_runner *r, option_fn fn, FILE *f, words *keys) {
  for (int i = 0; i < umrun_option_count(); i++) fn(r, umrun_option_at(i), f, keys);
  each_call c = {r, fn, f, keys};
  umrun_each_backend_option(call_one, &c);
  for (int i = 0; i < um_app_count(r); i++)
    for (int k = 0; k < um_app_at(r, i)->noptions; k++) fn(r, &um_app_at(r, i)->options[k], f, keys);
}

static void collect_key(const um_runner *r, const um_option *o, FILE *f, words *keys) {
  (void)r, (void)f;
  key_of(o, keys);
}

/* One case arm per key with values: "  run.layout) v='aos soa auto' ;;" (each key once). */
static void value_arm(const um_runner *r, const um_option *o, FILE *f, words *done) {
  char v[2048];
  values_of(r, o, v, sizeof v);
  if (!*v || strchr(o->key, '<') || has(done, o->key, strlen(o->key))) return;
  add(done, o->key, strlen(o->key));
  fprintf(f, "    %s) v='%s' ;;\n", o->key, v);
}

static void print_words(FILE *f, const words *l) {
  for (int i = 0; i < l->n; i++) fprintf(f, "%s%s", i ? " " : "", l->w[i]);
}

static const char *const bash_body =
    "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} key='' before=''\n"
    "  # bash splits key=value at '=' (COMP_WORDBREAKS): the key is the word before it\n"
    "  if [[ $prev == '=' ]]; then key=${COMP_WORDS[COMP_CWORD-2]}; before=${COMP_WORDS[COMP_CWORD-3]}\n"
    "  elif [[ $cur == '=' ]]; then key=$prev; before=${COMP_WORDS[COMP_CWORD-2]}; cur=''\n"
    "  elif [[ $cur == *=* ]]; then key=${cur%%=*}; before=$prev; cur=${cur#*=}; fi\n"
    "  if [[ -n $key && $before == @(--set|--suite-set|--sweep) ]]; then\n"
    "    COMPREPLY=($(compgen -W \"$(_umrun_values \"$key\")\" -- \"$cur\"))\n"
    "    return\n"
    "  fi\n"
    "  case $prev in\n"
    "    --set|--suite-set|--sweep) COMPREPLY=($(compgen -W \"$_umrun_keys\" -- \"$cur\")); return ;;\n"
    "    --draw) COMPREPLY=($(compgen -W \"plan partition\" -- \"$cur\")); return ;;\n"
    "    --json|--csv|--sweep-out|--out|--report|--validate|--suite|--compare) COMPREPLY=($(compgen -f -- \"$cur\")); "
    "return ;;\n"
    "  esac\n"
    "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$_umrun_flags\" -- \"$cur\")); return; fi\n"
    "  COMPREPLY=($(compgen -f -X '!*.y*ml' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
    "}\n"
    "complete -F _umrun umrun\n";

static const char *const zsh_body =
    "  local prev=${words[CURRENT-1]}\n"
    "  if [[ $prev == (--set|--suite-set|--sweep) ]]; then\n"
    "    if [[ $PREFIX == *=* ]]; then\n"
    "      local key=${PREFIX%%=*}\n"
    "      compset -P '*='\n"
    "      compadd -- ${=$(_umrun_values $key)}\n"
    "    else\n"
    "      compadd -S '=' -- ${=_umrun_keys}\n"
    "    fi\n"
    "    return\n"
    "  fi\n"
    "  case $prev in\n"
    "    --draw) compadd -- plan partition; return ;;\n"
    "    --json|--csv|--sweep-out|--out|--report|--validate|--suite|--compare) _files; return ;;\n"
    "  esac\n"
    "  if [[ $PREFIX == -* ]]; then compadd -- ${=_umrun_flags}; return; fi\n"
    "  _files -g '*.(yaml|yml)'\n"
    "}\n"
    "_umrun \"$@\"\n";

int umrun_completion(FILE *f, const um_runner *r, const char *shell) {
  const int bash = !strcmp(shell, "bash");
  if (!bash && strcmp(shell, "zsh")) return -1;
  struct {
    words flags, keys, done;
  } *l = calloc(1, sizeof *l); /* large: not on the stack */
  if (!l) return -1;
  flags_of(r, &l->flags);
  each_option(r, collect_key, f, &l->keys);
  fprintf(f, "%s# umrun's %s completion, generated by `umrun --help-options=%s`: do not edit.\n",
          bash ? "" : "#compdef umrun\n", shell, shell);
  fputs("_umrun_flags='", f), print_words(f, &l->flags), fputs("'\n", f);
  fputs("_umrun_keys='", f), print_words(f, &l->keys), fputs("'\n", f);
  fputs("_umrun_values() {\n  local v=''\n  case $1 in\n", f);
  each_option(r, value_arm, f, &l->done);
  fputs("  esac\n  echo \"$v\"\n}\n_umrun() {\n", f);
  fputs(bash ? bash_body : zsh_body, f);
  drop(&l->flags), drop(&l->keys), drop(&l->done);
  free(l);
  return 0;
}
