/** @file um/gmsh.h
 * Reading 2D triangle meshes from Gmsh ASCII files, format 2 (what
 * `gmsh -2 -format msh22` writes), for the apps that take meshes from Gmsh.
 *
 *  - Nodes: x and y in double; z is read and ignored (a surface in the plane).
 *    Coordinates must be finite (nan, inf refused at their line); each node id
 *    once (a repeated id refused naming both lines).
 *  - Elements: first-order triangles (Gmsh type 2) become the mesh's triangles,
 *    in file order, their nodes as 0-based indices into the node arrays in the
 *    order the file gives them (no reorientation). Lines (type 1) and points
 *    (type 15), a surface's boundary and corners, are checked as triangles are
 *    (their node count, 2 or 1, and that $Nodes defines their nodes), then
 *    skipped and counted; any other element type is an error naming the element,
 *    its line and what to do. Each element id once (both lines named).
 *  - $Nodes and $Elements hold exactly the count their first line gives:
 *    $EndNodes / $EndElements must follow the counted lines (a count too small
 *    or too large is named at the line where the file disagrees).
 *  - Binary files and format 4 are refused with the command that converts them
 *    (`gmsh in.msh -format msh22 -save -o out.msh`).
 *  - Every error message starts with "file:line: " where a line is at fault,
 *    says what is wrong and what to do. Geometry (degenerate or repeated
 *    triangles) is not checked here: the callers check what they need.
 */
#ifndef UM_GMSH_H
#define UM_GMSH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A triangle mesh read from a Gmsh file; every array is malloc'd and freed by
 * um_gmsh_free. */
typedef struct {
  int nnodes;    /**< nodes in $Nodes                                              */
  int ntris;     /**< triangles (Gmsh type 2) in $Elements                         */
  int nskipped;  /**< lines and points skipped (boundary and corner elements)     */
  double *xy;    /**< nnodes x 2: x, y of each node, in $Nodes order (z ignored)   */
  int *node_id;  /**< nnodes: each node's Gmsh id (>= 1), for messages            */
  int *tri;      /**< ntris x 3: 0-based node indices, in the file's order         */
  int *tri_tag;  /**< ntris: the physical tag (the element's first tag; 0 if none) */
  int *tri_id;   /**< ntris: the element's Gmsh id                                  */
  int *tri_line; /**< ntris: the 1-based line of the element in the file           */
} um_gmsh_mesh;

/** Parse a Gmsh ASCII format 2 mesh held in memory: `text` (n bytes, need not
 * end in a NUL); `name` names it in messages (a path). Returns 0 with *m
 * filled, or -1 with *m empty (all NULL / 0) and the reason in err
 * ("name:line: what; what to do"). */
int um_gmsh_parse(const char *text, size_t n, const char *name, um_gmsh_mesh *m, char *err, size_t errlen);

/** Read and parse the Gmsh file at `path` (a regular file of at most 2 GiB),
 * as um_gmsh_parse. Returns 0, or -1 with the reason (cannot open: why) in err. */
int um_gmsh_read(const char *path, um_gmsh_mesh *m, char *err, size_t errlen);

/** Free the arrays of a mesh from um_gmsh_parse / um_gmsh_read and zero it
 * (safe on a zeroed or already freed mesh). */
void um_gmsh_free(um_gmsh_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
