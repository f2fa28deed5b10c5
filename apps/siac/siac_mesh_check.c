/* What SIAC's filter assumes of a mesh it did not make (siac_mesh.h: siac_mesh_conforming, siac_mesh_check): a
 * conforming triangulation of the periodic unit square. The filter integrates each triangle's polynomial over the
 * pieces a stencil cuts from it, so a hole or an overlap changes the result silently; refinement finds the edges
 * two triangles share by their node numbers, so a node given twice (two ids at one place) splits an edge in two. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "siac_mesh.h"

typedef struct {
  const double *xy;
  int node;
} sc_node;

static int sc_cmp_node(const void *x, const void *y) {
  const sc_node *p = x, *q = y;
  for (int k = 0; k < 2; k++)
    if (p->xy[k] != q->xy[k]) return p->xy[k] < q->xy[k] ? -1 : 1;
  return (p->node > q->node) - (p->node < q->node);
}

/* "node 5" or "node 5 (Gmsh id 17)" */
static const char *sc_node_name(char *buf, size_t len, const int *ids, int i) {
  if (ids) snprintf(buf, len, "node %d (Gmsh id %d)", i + 1, ids[i]);
  else snprintf(buf, len, "node %d", i);
  return buf;
}

/* both ends of an edge on one side of the square: a boundary edge, the only kind one triangle may have alone */
static int sc_on_side(const double *a, const double *b) {
  for (int k = 0; k < 2; k++)
    for (int s = 0; s <= 1; s++)
      if (fabs(a[k] - s) <= SIAC_NODE_TOL && fabs(b[k] - s) <= SIAC_NODE_TOL) return 1;
  return 0;
}

/* Every node used by a triangle, no two at one place. */
static int sc_nodes(const siac_mesh *m, const char *what, const int *ids, char *err, size_t errlen) {
  char *used = calloc((size_t)m->nnodes + 1, 1);
  sc_node *s = malloc(sizeof *s * ((size_t)m->nnodes + 1));
  int rc = -1;
  char a[64], b[64];
  if (!used || !s) {
    snprintf(err, errlen, "%s: out of memory checking %d nodes", what, m->nnodes);
    goto out;
  }
  for (size_t i = 0; i < 3 * (size_t)m->ncells; i++) used[m->tri[i]] = 1;
  for (int i = 0; i < m->nnodes; i++) {
    if (!used[i]) {
      snprintf(err, errlen, "%s: %s at (%.17g, %.17g) belongs to no triangle: remove it (SIAC reads a triangle mesh "
               "whose every node is a triangle's corner)", what, sc_node_name(a, sizeof a, ids, i), m->xy[2 * (size_t)i],
               m->xy[2 * (size_t)i + 1]);
      goto out;
    }
    s[i] = (sc_node){m->xy + 2 * (size_t)i, i};
  }
  qsort(s, (size_t)m->nnodes, sizeof *s, sc_cmp_node);
  for (int i = 1; i < m->nnodes; i++)
    if (s[i].xy[0] == s[i - 1].xy[0] && s[i].xy[1] == s[i - 1].xy[1]) {
      snprintf(err, errlen, "%s: %s and %s are both at (%.17g, %.17g): a node given twice, so the triangles around "
               "it share no edge; merge the duplicate nodes (Gmsh: Coherence Mesh)", what,
               sc_node_name(a, sizeof a, ids, s[i - 1].node), sc_node_name(b, sizeof b, ids, s[i].node), s[i].xy[0],
               s[i].xy[1]);
      goto out;
    }
  rc = 0;
out:
  free(used);
  free(s);
  return rc;
}

/* Each edge inside the square shared by exactly two triangles running it opposite ways; a boundary edge (on a side
 * of the square) used by one. */
static int sc_edges(const siac_mesh *m, const char *what, const int *ids, const int *lines, char *err, size_t errlen) {
  const size_t n3 = 3 * (size_t)m->ncells;
  siac_edge *e = siac_mesh_edges(m);
  if (!e) return snprintf(err, errlen, "%s: out of memory checking %d triangles", what, m->ncells), -1;
  int rc = 0;
  for (size_t s = 0, t; s < n3 && !rc; s = t) {
    for (t = s + 1; t < n3 && e[t].lo == e[s].lo && e[t].hi == e[s].hi;) t++;
    const double *pa = m->xy + 2 * (size_t)e[s].lo, *pb = m->xy + 2 * (size_t)e[s].hi;
    const char *why = t - s > 2                                           ? "is a side of more than two triangles"
                      : t - s == 2 && e[s].forward == e[s + 1].forward    ? "runs the same way in two triangles"
                      : t - s == 1 && !sc_on_side(pa, pb)                 ? "lies inside the square but is a side of "
                                                                            "one triangle only (a hanging node or a gap)"
                                                                          : NULL;
    if (!why) continue;
    const int c = e[t - s == 1 ? s : s + 1].slot / 3;
    char a[64], b[64], tri[48];
    if (lines) snprintf(tri, sizeof tri, ":%d: the triangle there", lines[c]);
    else snprintf(tri, sizeof tri, ": triangle %d", c);
    snprintf(err, errlen, "%s%s: its edge from %s (%.17g, %.17g) to %s (%.17g, %.17g) %s: the mesh is not a "
             "conforming tiling of the unit square (triangles overlap, or one crosses a gap); SIAC filters "
             "conforming meshes: remesh (scripts/siac-meshes.sh)", what, tri, sc_node_name(a, sizeof a, ids, e[s].lo),
             pa[0], pa[1], sc_node_name(b, sizeof b, ids, e[s].hi), pb[0], pb[1], why);
    rc = -1;
  }
  free(e);
  return rc;
}

int siac_mesh_conforming(const siac_mesh *m, const char *what, const int *node_ids, const int *tri_lines, char *err,
                         size_t errlen) {
  if (m->ncells < 1 || m->nnodes < 3)
    return snprintf(err, errlen, "%s: %d triangles and %d nodes: an empty mesh; give a triangle mesh of the unit "
                    "square", what, m->ncells, m->nnodes), -1;
  if (sc_nodes(m, what, node_ids, err, errlen)) return -1;
  return sc_edges(m, what, node_ids, tri_lines, err, errlen);
}

int siac_mesh_check(const siac_mesh *m, const char *what, char *err, size_t errlen) {
  if (m->ncells < 1 || m->nnodes < 3) return siac_mesh_conforming(m, what, NULL, NULL, err, errlen);
  for (int c = 0; c < m->ncells; c++)
    for (int j = 0; j < 3; j++)
      if (m->tri[3 * (size_t)c + j] < 0 || m->tri[3 * (size_t)c + j] >= m->nnodes)
        return snprintf(err, errlen, "%s: triangle %d names node %d of %d", what, c, m->tri[3 * (size_t)c + j],
                        m->nnodes), -1;
  for (int i = 0; i < m->nnodes; i++) {
    const double x = m->xy[2 * (size_t)i], y = m->xy[2 * (size_t)i + 1];
    if (!(x >= -SIAC_NODE_TOL && x <= 1 + SIAC_NODE_TOL && y >= -SIAC_NODE_TOL && y <= 1 + SIAC_NODE_TOL))
      return snprintf(err, errlen, "%s: node %d at (%.17g, %.17g) is %s the unit square [0,1]^2: SIAC filters dG "
                      "solutions on the periodic unit square; give a mesh of [0,1]^2", what, i, x, y,
                      isfinite(x) && isfinite(y) ? "outside" : "not a finite point of"), -1;
  }
  double area = 0;
  for (int c = 0; c < m->ncells; c++) {
    const int *t = m->tri + 3 * (size_t)c;
    int degenerate;
    const double o = siac_tri_orient(m->xy, t, &degenerate);
    if (degenerate)
      return snprintf(err, errlen, "%s: triangle %d (nodes %d %d %d) is degenerate (area %g): fix the mesh", what, c,
                      t[0], t[1], t[2], 0.5 * fabs(o)), -1;
    if (o < 0)
      return snprintf(err, errlen, "%s: triangle %d (nodes %d %d %d) is clockwise (inverted): its coefficients are "
                      "tied to its corners' order, so it cannot be turned; write the solution with counter-clockwise "
                      "triangles", what, c, t[0], t[1], t[2]), -1;
    area += 0.5 * o;
  }
  if (!siac_areas_tile(area, m->ncells))
    return snprintf(err, errlen, "%s: the %d triangles' areas sum to %.12g, not 1: they do not tile the periodic unit "
                    "square [0,1]^2 (%s)", what, m->ncells, area, area < 1 ? "a hole" : "triangles overlap"), -1;
  return siac_mesh_conforming(m, what, NULL, NULL, err, errlen);
}
