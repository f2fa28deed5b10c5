/* um-embed: a file's text as a C array, for run-time compilation of kernels.
 *
 *   um-embed INPUT SYMBOL OUTPUT.c
 *
 * writes OUTPUT.c defining `const char SYMBOL[]`: INPUT's bytes and a final
 * NUL. UM_KERNEL_DEFINE (um/kernel.h) names that symbol, so the CUDA backend
 * (NVRTC) and the compiled host loops compile the kernel from the same text
 * the program was built with. CMake users call um_add_kernels() (installed
 * with the package); the tree's own um_embed() runs this tool too. OUTPUT.c
 * is written under a temporary name and renamed, so a failed run leaves
 * nothing half-written. Exit status: 0 written; 1 bad command line; 2 a file
 * could not be read or written (the message says which and why). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/safe_file.h"

static void usage(FILE *f) {
  fputs("usage: um-embed INPUT SYMBOL OUTPUT.c\n"
        "Writes OUTPUT.c defining `const char SYMBOL[]` holding INPUT's bytes and a final NUL\n"
        "(kernel headers for UM_KERNEL_DEFINE: SYMBOL is <header basename>_source).\n"
        "SYMBOL must be a C identifier. Exit status: 0 written, 1 bad command line, 2 a file\n"
        "could not be read or written.\n",
        f);
}

static int identifier(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return usage(stdout), 0;
  if (argc != 4) {
    fprintf(stderr, "um-embed: expected 3 arguments, got %d\n", argc - 1);
    usage(stderr);
    return 1;
  }
  const char *in = argv[1], *sym = argv[2], *out = argv[3];
  if (!identifier(sym)) {
    fprintf(stderr, "um-embed: SYMBOL '%s' is not a C identifier (letters, digits, _; not starting with a digit)\n",
            sym);
    return 1;
  }
  FILE *f = fopen(in, "rb");
  if (!f) {
    fprintf(stderr, "um-embed: cannot read %s: %s\n", in, strerror(errno));
    return 2;
  }
  um_safe_file sf;
  char why[1200];
  if (um_safe_open(&sf, out, why, sizeof why)) {
    fclose(f);
    fprintf(stderr, "um-embed: %s\n", why);
    return 2;
  }
  const char *name = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
  fprintf(sf.f, "/* generated from %s by um-embed; do not edit */\nconst char %s[] = {\n", name, sym);
  int c, n = 0;
  while ((c = fgetc(f)) != EOF) fprintf(sf.f, "0x%02x,%s", (unsigned)c, ++n % 16 ? "" : "\n");
  const int read_failed = ferror(f);
  fclose(f);
  fputs("0x00};\n", sf.f);
  if (read_failed) {
    um_safe_abort(&sf);
    fprintf(stderr, "um-embed: reading %s failed\n", in);
    return 2;
  }
  if (um_safe_commit(&sf, why, sizeof why)) {
    fprintf(stderr, "um-embed: %s\n", why);
    return 2;
  }
  return 0;
}
