/* Fuzz Volna's Gmsh ASCII reader (apps/volna/mesh.c) with its connectivity and geometry: any bytes
 * give a triangle mesh or an error, never a crash, a leak or undefined behaviour; a mesh that is
 * accepted has consistent maps. */
#include <stdint.h>
#include <stdlib.h>

#include "volna/volna.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024];
  vl_mesh m;
  if (vl_mesh_gmsh_parse((const char *)data, size, "fuzz.msh", &m, err, sizeof err) == 0) {
    for (int e = 0; e < m.nedges; e++) {
      const int l = m.edge_cells[2 * e], r = m.edge_cells[2 * e + 1];
      if (l < 0 || l >= m.ncells || r < 0 || r > l || (m.is_boundary[e] && l != r)) abort();
    }
    for (int i = 0; i < 3 * m.ncells; i++)
      if (m.cell_edges[i] < 0 || m.cell_edges[i] >= m.nedges || m.cell_cells[i] < 0 || m.cell_cells[i] >= m.ncells)
        abort();
    vl_mesh_free(&m);
  }
  return 0;
}
