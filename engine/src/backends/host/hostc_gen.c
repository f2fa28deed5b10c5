/* Compiled host loops: the code generated for one loop (see hostc.c).
 *
 * The engine writes the range OP2's code generator would write for this one
 * loop: dims, map arities and slots, layouts and access modes are constants, a
 * global is a local array (kept in registers), and the kernel is inlined into
 * it. The results are the generic range's, bit for bit: the same operations in
 * the same element order. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostc_gen.h"
#include "um/build_config.h"
#include "util/hash.h"
#include "util/strbuf.h"

static const char *ctype(um_type t) { return t == UM_DOUBLE ? "double" : t == UM_FLOAT ? "float" : "int"; }

/* A vector argument (um_arg_vec, um_arg_whole): the kernel gets a um_vec over its map row (or the whole dat), its
 * values read and written in place, as exec.c's generic range hands them over: the range starts from the run's
 * um_vec (B[i]: its base, arity, strides and whether its increments are atomic) and moves its idx per element. */
static int is_vec(const um_arg *a) { return a->kind == UM_ARG_DAT && a->map && a->idx == UM_ALL; }

/* A vector argument's dat stored SoA (um_dat_storage_layout): its targets 1 apart, its components a column apart. */
static int vec_soa(const um_arg *a) { return is_vec(a) && um_dat_storage_layout(a->dat) == UM_SOA; }

/* A vector argument over the whole dat: one row for every element (exec.c: um_exec_arg.whole). */
static int vec_whole(const um_arg *a) { return is_vec(a) && a->map->whole; }

static int is_soa(const um_arg *a) {
  return a->kind == UM_ARG_DAT && !is_vec(a) && a->dat->layout == UM_SOA && a->dim > 1;
}

/* A split loop's contribution temporary that the host backends stage (um__contrib_staged): from -0.0, then stored,
 * its row never read (contrib_store; AoS on the host), as exec.c's generic range does. */
static int is_contrib(const um_arg *a) {
  return a->kind == UM_ARG_DAT && !a->map && a->acc == UM_INC && um__contrib_staged(a->dat);
}

/* Staged in the scalar range: SoA rows (as AoS) and contributions. */
static int scalar_staged(const um_arg *a) { return is_soa(a) || is_contrib(a); }

/* The first argument (j <= i) that goes through argument i's map (same_map) or also reads the same entry of it
 * (same_target; direct arguments all share element e): the generated code keeps one map pointer per map and loads
 * each map entry an element uses once. The arguments of one map get the same M[] pointer at run time (exec.c: the
 * map's data), and two loops of one kernel that share maps differently hash to different modules (hash_shapes).
 * One load per entry is what lets the compiler see that two arguments' rows are one (Airfoil's res_calc with eight
 * map loads an edge instead of four: 1.19x slower on one core). */
static int same_map(const um_loop *loop, int i) {
  for (int j = 0; j < i; j++)
    if (loop->args[j].kind == UM_ARG_DAT && loop->args[j].map == loop->args[i].map) return j;
  return i;
}

static int same_target(const um_loop *loop, int i) {
  for (int j = 0; j < i; j++)
    if (loop->args[j].kind == UM_ARG_DAT && loop->args[j].map == loop->args[i].map &&
        (!loop->args[i].map || loop->args[j].idx == loop->args[i].idx))
      return j;
  return i;
}

/* The element index of argument i's target for element e (a C expression). */
static void target(um_strbuf *b, const um_loop *loop, int i) {
  const um_arg *a = &loop->args[i];
  if (a->map) um_strbuf_printf(b, "(size_t)m%d[(size_t)e * %d + %d]", same_map(loop, i), a->map->arity, a->idx);
  else um_strbuf_printf(b, "(size_t)e");
}

/* The SIMD range stages an argument's rows in a local [lanes][dim] block: an
 * indirect one (gathered), or a direct one the scalar range stages too. */
static int staged(const um_arg *a) { return a->kind == UM_ARG_DAT && (a->map || scalar_staged(a)); }

/* A SIMD range exists for loops whose elements are independent within a group
 * of lanes: every indirect and global argument only read, and no vector argument (its rows are read in place). */
static int simd_eligible(const um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (((a->kind == UM_ARG_GBL || a->map) && a->acc != UM_READ) || is_vec(a)) return 0;
  }
  return 1;
}

/* The pointers and maps every range starts with. */
static void declare(um_strbuf *b, const um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    const char *t = ctype(a->type);
    if (a->kind == UM_ARG_GBL) { /* a private copy: the compiler keeps it in registers */
      um_strbuf_printf(b, "  %s g%d[%d];\n  memcpy(g%d, B[%d], sizeof g%d);\n", t, i, a->dim, i, i, i);
      continue;
    }
    if (a->map && same_map(loop, i) == i) um_strbuf_printf(b, "  const int *const m%d = M[%d];\n", i, i);
    if (is_vec(a)) { /* the run's um_vec; what the module's shape fixes made constants the compiler sees */
      um_strbuf_printf(b, "  um_vec v%d = *(const um_vec *)B[%d];\n", i, i);
      if (!vec_whole(a)) um_strbuf_printf(b, "  v%d.n = %d;\n", i, a->map->arity); /* a whole dat's: its set's size */
      if (!vec_soa(a)) um_strbuf_printf(b, "  v%d.es = %d;\n  v%d.cs = 1;\n", i, a->dat->dim, i);
      else um_strbuf_printf(b, "  v%d.es = 1;\n", i); /* SoA: targets 1 apart, components a column apart */
      continue;
    }
    um_strbuf_printf(b, "  %s *const b%d = (%s *)B[%d];\n", t, i, t, i);
    if (is_soa(a)) um_strbuf_printf(b, "  const size_t s%d = S[%d] / sizeof(%s);\n", i, i, t);
  }
}

/* The kernel call: each argument its global copy, its staged row (lane: the
 * SIMD range's lane variable; NULL: the scalar range, which stages SoA rows
 * only and has an index variable t<j> per target: same_target) or its row in place. */
static void call(um_strbuf *b, const um_loop *loop, const char *lane) {
  um_strbuf_printf(b, "um__kernel(");
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (i) um_strbuf_printf(b, ", ");
    if (a->kind == UM_ARG_GBL) um_strbuf_printf(b, "g%d", i);
    else if (is_vec(a)) um_strbuf_printf(b, "&v%d", i);
    else if (lane && staged(a)) um_strbuf_printf(b, "v%d[%s]", i, lane);
    else if (!lane && scalar_staged(a)) um_strbuf_printf(b, "v%d", i);
    else if (!lane) um_strbuf_printf(b, "b%d + t%d * %d", i, same_target(loop, i), a->dim);
    else {
      um_strbuf_printf(b, "b%d + ", i);
      target(b, loop, i);
      um_strbuf_printf(b, " * %d", a->dim);
    }
  }
  um_strbuf_printf(b, ");\n");
}

/* Argument i's row (at index variable t<ti>) into its staged copy v<i><sub> before the kernel
 * (the additive identity for INC, nothing for WRITE), or out of it after (added for INC, stored for a
 * contribution). */
static void stage(um_strbuf *b, const um_arg *a, int i, int ti, const char *sub, int store) {
  if (!store && a->acc == UM_WRITE) return;
  char row[64];
  snprintf(row, sizeof row, is_soa(a) ? "b%d[t%d + c * s%d]" : "b%d[t%d * %d + c]", i, ti, is_soa(a) ? i : a->dim);
  if (store && is_contrib(a) && a->minus) /* declared um_arg_minus: the loop may drop it (um_loop.drop: base NULL) */
    um_strbuf_printf(b, "      if (b%d) for (int c = 0; c < %d; c++) ", i, a->dim);
  else um_strbuf_printf(b, "      for (int c = 0; c < %d; c++) ", a->dim);
  if (store) um_strbuf_printf(b, "%s %s v%d%s[c];\n", row, a->acc == UM_INC && !is_contrib(a) ? "+=" : "=", i, sub);
  else if (a->acc == UM_INC) /* from the additive identity (-0.0 for floating point), as the host backends */
    um_strbuf_printf(b, "v%d%s[c] = %s;\n", i, sub, a->type == UM_DOUBLE ? "-0.0" : a->type == UM_FLOAT ? "-0.0f" : "0");
  else um_strbuf_printf(b, "v%d%s[c] = %s;\n", i, sub, row);
}

/* The kernel called through a function at file scope: inside the ranges a kernel named like one of their variables
 * (t0, e, c, ...) would be shadowed by it. Always inlined, so the call costs nothing. */
static void forwarder(um_strbuf *b, const um_loop *loop) {
  um_strbuf_printf(b, "static inline __attribute__((always_inline)) void um__kernel(");
  for (int i = 0; i < loop->nargs; i++) {
    const char *sep = i ? ", " : "";
    if (is_vec(&loop->args[i])) um_strbuf_printf(b, "%sum_vec *a%d", sep, i); /* a kernel's const um_vec * or not */
    else um_strbuf_printf(b, "%s%s *a%d", sep, ctype(loop->args[i].type), i);
  }
  um_strbuf_printf(b, "%s) {\n  %s(", loop->nargs ? "" : "void", loop->kernel->name);
  for (int i = 0; i < loop->nargs; i++) um_strbuf_printf(b, "%sa%d", i ? ", " : "", i);
  um_strbuf_printf(b, ");\n}\n\n");
}

/* The scalar range: element by element, SoA rows staged as AoS. */
static void scalar_range(um_strbuf *b, const um_loop *loop) {
  um_strbuf_printf(b, "void um__compiled_range(char *const *B, const int *const *M, const size_t *S, int begin, int end) {\n"
                      "  (void)M; (void)S;\n");
  declare(b, loop);
  um_strbuf_printf(b, "  for (int e = begin; e < end; e++) {\n");
  for (int i = 0; i < loop->nargs; i++) /* a vector argument's map row */
    if (is_vec(&loop->args[i]) && !vec_whole(&loop->args[i]))
      um_strbuf_printf(b, "    v%d.idx = m%d + (size_t)e * %d;\n", i, same_map(loop, i), loop->args[i].map->arity);
  for (int i = 0; i < loop->nargs; i++) /* each target's index, once */
    if (loop->args[i].kind == UM_ARG_DAT && !is_vec(&loop->args[i]) && same_target(loop, i) == i) {
      um_strbuf_printf(b, "    const size_t t%d = ", i);
      target(b, loop, i);
      um_strbuf_printf(b, ";\n");
    }
  for (int i = 0; i < loop->nargs; i++) { /* SoA: one element's values staged as AoS; contributions */
    const um_arg *a = &loop->args[i];
    if (!scalar_staged(a)) continue;
    um_strbuf_printf(b, "    %s v%d[%d];\n", ctype(a->type), i, a->dim);
    stage(b, a, i, same_target(loop, i), "", 0);
  }
  um_strbuf_printf(b, "    ");
  call(b, loop, NULL);
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (scalar_staged(a) && a->acc != UM_READ) stage(b, a, i, same_target(loop, i), "", 1);
  }
  um_strbuf_printf(b, "  }\n");
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_GBL && a->acc != UM_READ) um_strbuf_printf(b, "  memcpy(B[%d], g%d, sizeof g%d);\n", i, i, i);
  }
  um_strbuf_printf(b, "}\n");
}

/* The SIMD range (simd_eligible loops): groups of L elements; each group's
 * staged rows gathered into [L][dim] blocks, the kernel run on the L lanes
 * under `omp simd` (each lane only reads shared data and writes its own rows),
 * written rows stored in element order; the rest of the range runs scalar. */
static void simd_range(um_strbuf *b, const um_loop *loop) {
  um_strbuf_printf(b, "\nvoid um__compiled_range_simd(char *const *B, const int *const *M, const size_t *S, int begin, "
                      "int end) {\n  (void)M; (void)S;\n  enum { L = %d };\n",
                   UM_HOSTC_LANES);
  declare(b, loop);
  um_strbuf_printf(b, "  int e0 = begin;\n  for (; e0 + L <= end; e0 += L) {\n");
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (!staged(a)) continue;
    um_strbuf_printf(b, "    %s v%d[L][%d];\n", ctype(a->type), i, a->dim);
    if (a->acc == UM_WRITE) continue;
    um_strbuf_printf(b, "    for (int l = 0; l < L; l++) {\n      const int e = e0 + l;\n      const size_t t%d = ", i);
    target(b, loop, i);
    um_strbuf_printf(b, ";\n");
    stage(b, a, i, i, "[l]", 0);
    um_strbuf_printf(b, "    }\n");
  }
  um_strbuf_printf(b, "#pragma omp simd\n    for (int l = 0; l < L; l++) {\n      const int e = e0 + l;\n      (void)e;\n      ");
  call(b, loop, "l");
  um_strbuf_printf(b, "    }\n");
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (!staged(a) || a->acc == UM_READ) continue;
    um_strbuf_printf(b, "    for (int l = 0; l < L; l++) {\n      const size_t t%d = (size_t)(e0 + l);\n", i);
    stage(b, a, i, i, "[l]", 1);
    um_strbuf_printf(b, "    }\n");
  }
  um_strbuf_printf(b, "  }\n  um__compiled_range(B, M, S, e0, end);\n}\n");
}

char *um__hostc_generate(const um_loop *loop) {
  um_strbuf b = {0};
  /* nothing of the loop's name: modules are shared by every loop of one kernel and shape (the cache's key) */
  um_strbuf_printf(&b, "/* generated by um for kernel %s */\n#define UM_HOST_COMPILED 1\n%s#include <stddef.h>\n"
          "#include <string.h>\n#include \"kernels.h\"\n\n",
      loop->kernel->name, loop->set->ctx->reproducible ? "#define UM_REPRO_MATH 1\n" : "");
  um_strbuf_printf(&b, "extern char __start_um_consts[] __attribute__((weak)), __stop_um_consts[] __attribute__((weak));\n"
          "char *um__consts_begin(void) { return __start_um_consts; }\n"
          "char *um__consts_end(void) { return __stop_um_consts; }\n\n");
  forwarder(&b, loop);
  scalar_range(&b, loop);
  if (simd_eligible(loop)) simd_range(&b, loop);
  if (b.oom) {
    um_strbuf_free(&b);
    return NULL;
  }
  return b.s;
}

/* Continue hash k over each argument's shape: kind, map arity and slot, dim, type, access, SoA (a contribution,
 * one the loop may drop; a vector argument's storage, whole or not), and which earlier
 * argument shares its map and its target (the generated code depends on it). */
uint64_t um__hostc_hash_shapes(uint64_t k, const um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    /* a whole dat's arity is its set's size: not part of the module (which reads it at run time), one for any size */
    const int arity = a->map && !vec_whole(a) ? a->map->arity : 0;
    const int storage =
        is_soa(a) + 2 * is_contrib(a) + 4 * (is_contrib(a) && a->minus) + 8 * vec_soa(a) + 16 * vec_whole(a);
    int shape[9] = {(int)a->kind, arity, a->map ? a->idx : -1, a->dim, (int)a->type, (int)a->acc, storage,
                    same_map(loop, i), same_target(loop, i)};
    k = um_fnv1a(k, shape, sizeof shape);
  }
  return k;
}

/* ---- the READ check ----------------------------------------------------------------------------------------------
 *
 * A kernel may declare a parameter its loop passes as READ without const (`double *a`); the compiled range then
 * hands it the dat's own row, and a write through it changed the dat on the CPU (a GPU stages copies: results by
 * backend). The kernel header is compiled with a copy of the kernel right after it whose READ pointer parameters are
 * const-qualified, never called: a write through one of them is the compiler's error (an assignment or increment of
 * a read-only location), at the kernel's own line and column (#line; the body where the kernel's is) in a file named
 * for the check (UM_HOSTC_READ_MARK), which hcc_log_excerpt tells from the kernel's own errors that the copy repeats;
 * passing one (or its address) on to a helper that takes a plain pointer stays quiet (those warnings are off around
 * the copy, -Werror= ones too), so a kernel that only reads still compiles. A definition the scan below cannot take
 * as plain text (found through a macro, a preprocessor line in its parameters or body, text after its closing brace)
 * gets no copy: no check, as before. */

static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Past the comment or string or character literal at s[i] (i itself when there is none). */
static size_t skip_lexeme(const char *s, size_t i) {
  if (s[i] == '/' && s[i + 1] == '*') {
    const char *e = strstr(s + i + 2, "*/");
    return e ? (size_t)(e - s) + 2 : strlen(s);
  }
  if (s[i] == '/' && s[i + 1] == '/') return strcspn(s + i, "\n") + i;
  if (s[i] != '"' && s[i] != '\'') return i;
  const char q = s[i++];
  while (s[i] && s[i] != q && s[i] != '\n') i += s[i] == '\\' && s[i + 1] ? 2 : 1;
  return s[i] == q ? i + 1 : i;
}

/* From s[i] past white space, comments and preprocessor lines (*pp set where one was passed). */
static size_t skip_space(const char *s, size_t i, int *pp) {
  for (;;) {
    size_t k = i;
    while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
    if (s[i] == '#' && (k == 0 || s[k - 1] == '\n')) { /* a directive, with its continuation lines */
      *pp = 1;
      while (s[i] && !(s[i] == '\n' && s[i - 1] != '\\')) i++;
    } else if (s[i] && strchr(" \t\r\n\f\v", s[i]))
      i++;
    else if (s[i] == '/' && (s[i + 1] == '*' || s[i + 1] == '/'))
      i = skip_lexeme(s, i);
    else
      return i;
  }
}

/* The bracket that closes the one at s[i] ('(' or '{'), or 0 (none, or a preprocessor line inside: *pp). */
static size_t closing(const char *s, size_t i, int *pp) {
  int depth = 0;
  for (;;) {
    i = skip_space(s, i, pp);
    if (!s[i] || *pp) return 0;
    if (s[i] == '"' || s[i] == '\'') {
      i = skip_lexeme(s, i);
      continue;
    }
    if (strchr("({[", s[i]))
      depth++;
    else if (strchr(")}]", s[i]) && --depth == 0)
      return i;
    i++;
  }
}

/* The definition of function `name` as plain text: at[0] its name, at[1] and at[2] its parameters' brackets, at[3]
 * and at[4] its body's braces. 0: none found. */
static int find_definition(const char *s, const char *name, size_t at[5]) {
  const size_t len = strlen(name);
  for (size_t i = 0; s[i];) {
    int pp = 0;
    const size_t j = skip_space(s, i, &pp);
    if (j != i || s[i] == '"' || s[i] == '\'') {
      i = j != i ? j : skip_lexeme(s, i);
      continue;
    }
    if (!ident_char(s[i])) {
      i++;
      continue;
    }
    size_t e = i;
    while (ident_char(s[e])) e++;
    if (e - i == len && !memcmp(s + i, name, len) && (i == 0 || !ident_char(s[i - 1]))) {
      const size_t lp = skip_space(s, e, &pp), rp = !pp && s[lp] == '(' ? closing(s, lp, &pp) : 0;
      const size_t lb = rp && !pp ? skip_space(s, rp + 1, &pp) : 0;
      if (lb && !pp && s[lb] == '{') {
        const size_t rb = closing(s, lb, &pp);
        if (!rb) return 0; /* a definition, but not plain text */
        at[0] = i, at[1] = lp, at[2] = rp, at[3] = lb, at[4] = rb;
        return 1;
      }
    }
    i = e;
  }
  return 0;
}

/* Whether parameter text p[0..n) (no comment in it) is a pointer to a type without const: where its decl-specifiers
 * end (the first '*' or '['), in *spec; its name (the last identifier before any '[') into name. */
static int plain_pointer(const char *p, size_t n, size_t *spec, char *name, size_t nn) {
  size_t star = 0;
  while (star < n && p[star] != '*' && p[star] != '[') star++;
  if (star == n) return 0;
  size_t end = n, b = 0, e = 0;
  for (size_t k = 0; k < n; k++)
    if (p[k] == '[') {
      end = k;
      break;
    }
  for (size_t k = 0; k < end;) {
    if (!ident_char(p[k]) || isdigit((unsigned char)p[k])) {
      k++;
      continue;
    }
    size_t j = k;
    while (j < end && ident_char(p[j])) j++;
    if (j - k == 5 && !memcmp(p + k, "const", 5) && k < star) return 0;
    b = k, e = j, k = j;
  }
  snprintf(name, nn, "%.*s", (int)(e - b), p + b);
  *spec = star;
  return e > b;
}

/* The line of s[i] (1-based). */
static long line_of(const char *s, size_t i) {
  long l = 1;
  for (size_t k = 0; k < i; k++) l += s[k] == '\n';
  return l;
}

/* Into b: the kernel header text s with the copy of the kernel (at: find_definition) whose READ pointer parameters are
 * const after the line of its closing brace (file: the header's name in messages); what it made const into note ("a
 * (argument 0), c (argument 2)"). 0: nothing written (nothing to check, or a text this scan does not take). */
static int read_check(um_strbuf *b, const um_loop *loop, const char *s, const size_t at[5], const char *file,
                      char *note, size_t nn) {
  size_t eol = at[4] + 1; /* only white space or a // comment after the brace */
  while (s[eol] == ' ' || s[eol] == '\t' || s[eol] == '\r') eol++;
  if (s[eol] == '/' && s[eol + 1] == '/') eol += strcspn(s + eol, "\n");
  if (s[eol] && s[eol] != '\n') return 0;
  size_t cut[UM_MAX_ARGS + 1], spec[UM_MAX_ARGS];
  int np = 0, depth = 0, nconst = 0, more = 0, mark[UM_MAX_ARGS] = {0};
  cut[0] = at[1] + 1;
  for (size_t k = at[1] + 1; k < at[2]; k++) { /* the parameters, split at the commas outside brackets */
    if (s[k] == '/' || s[k] == '"' || s[k] == '\'' || s[k] == '#') return 0;
    depth += strchr("([{", s[k]) != NULL, depth -= strchr(")]}", s[k]) != NULL;
    if (s[k] == ',' && !depth && ++np <= UM_MAX_ARGS) cut[np] = k + 1;
  }
  if (++np != loop->nargs || np > UM_MAX_ARGS) return 0;
  note[0] = '\0';
  for (int i = 0; i < np; i++) {
    const um_arg *a = &loop->args[i];
    const size_t from = cut[i], to = i + 1 < np ? cut[i + 1] - 1 : at[2];
    char name[64];
    if (a->acc != UM_READ || (a->kind == UM_ARG_DAT && is_vec(a))) continue;
    if (!plain_pointer(s + from, to - from, &spec[i], name, sizeof name)) continue;
    mark[i] = 1, nconst++;
    const size_t len = strlen(note);
    char one[96];
    const int w = snprintf(one, sizeof one, "%s%s (argument %d)", len ? ", " : "", name, i);
    if (more || len + (size_t)w + 24 >= nn)
      more++; /* room kept for "one of " and " and N more" */
    else
      memcpy(note + len, one, (size_t)w + 1);
  }
  if (!nconst) return 0;
  if (more) snprintf(note + strlen(note), nn - strlen(note), " and %d more", more);
  if (nconst > 1) { /* "one of a (argument 0), c (argument 2)" */
    const size_t len = strnlen(note, nn - 8);
    memmove(note + 7, note, len);
    memcpy(note, "one of ", 7);
    note[7 + len] = '\0';
  }
  /* the copy's name and parameters on a line of their own, then its body where the kernel's is: blanks (tabs kept)
   * for what stands before it on that line, so the columns of the copy's messages are the kernel's own */
  um_strbuf_printf(b,
                   "%.*s\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wpragmas\"\n"
                   "#pragma GCC diagnostic ignored \"-Wunknown-warning-option\"\n"
                   "#pragma GCC diagnostic ignored \"-Wdiscarded-qualifiers\"\n"
                   "#pragma GCC diagnostic ignored \"-Wincompatible-pointer-types\"\n"
                   "#pragma GCC diagnostic ignored \"-Wincompatible-pointer-types-discards-qualifiers\"\n"
                   "#pragma GCC diagnostic ignored \"-Wcast-qual\"\nstatic void __attribute__((unused))\n"
                   "#line %ld \"%s: %s " UM_HOSTC_READ_MARK "\"\num_READ_check__%s(",
                   (int)eol, s, line_of(s, at[0]), file, loop->kernel->name, loop->kernel->name);
  size_t from = at[1] + 1;
  for (int i = 0; i <= np; i++) { /* the parameters as they stand on one line, const before each marked one */
    size_t p = at[2];
    if (i < np && !mark[i]) continue;
    if (i < np)
      for (p = cut[i]; p < at[2] && isspace((unsigned char)s[p]);) p++;
    for (; from < p; from++) um_strbuf_printf(b, "%c", s[from] == '\n' || s[from] == '\r' ? ' ' : s[from]);
    if (i < np) um_strbuf_printf(b, "const ");
  }
  um_strbuf_printf(b, ")\n#line %ld \"%s: %s " UM_HOSTC_READ_MARK "\"\n", line_of(s, at[2]), file, loop->kernel->name);
  size_t ls = at[2];
  while (ls > 0 && s[ls - 1] != '\n') ls--;
  for (; ls <= at[2]; ls++) um_strbuf_printf(b, "%c", s[ls] == '\t' ? '\t' : ' ');
  um_strbuf_printf(b, "%.*s\n#pragma GCC diagnostic pop\n#line %ld \"%s\"\n%s", (int)(at[4] - at[2]), s + at[2] + 1,
                   line_of(s, eol) + 1, file, s[eol] ? s + eol + 1 : "");
  return 1;
}

char *um__hostc_kernel_text(const um_loop *loop, char *note, size_t n) {
  const char *s = loop->kernel->source, *sn = loop->kernel->source_name;
  const char *file = sn && sn[0] && !strpbrk(sn, "\"\\\n") ? sn : "kernels.h"; /* the messages' name of the header */
  size_t at[5];
  um_strbuf b = {0}, c = {0};
  note[0] = '\0';
  if (!find_definition(s, loop->kernel->name, at) || !read_check(&c, loop, s, at, file, note, n)) note[0] = '\0';
  um_strbuf_printf(&b, "#line 1 \"%s\"\n%s", file, c.s ? c.s : s);
  const int oom = b.oom || c.oom;
  um_strbuf_free(&c);
  if (oom) {
    um_strbuf_free(&b);
    return NULL;
  }
  return b.s;
}
