// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// An input segment for planar graph construction, with a caller tag carried to the edges it
/// becomes (for example the road class or the index of the source polyline).
struct TaggedSegment {
  Vec2 a;
  Vec2 b;
  std::uint32_t tag = 0;
};

/// A planar straight-line graph: edges meet only at shared nodes.
struct PlanarGraph {
  struct Edge {
    std::uint32_t a = 0;  ///< Node index.
    std::uint32_t b = 0;  ///< Node index, != a.
    std::uint32_t tag = 0;
  };
  std::vector<Vec2> nodes;
  std::vector<Edge> edges;

  /// Edge indices incident to each node, sorted counter-clockwise by angle (ties by edge index).
  std::vector<std::vector<std::uint32_t>> incidence() const;
};

/// Builds a planar graph from segments: splits segments at every crossing and T-junction
/// (a node within snap_m of an edge's interior splits the edge there, so near-miss T-junctions
/// connect), merges nodes within snap_m of each other, transitively (a node keeps the position
/// of its lowest-index member: segment i's end points are members 2i and 2i + 1, crossing points
/// come after), drops zero-length and duplicate edges (keeping the lowest tag) and segments with
/// non-finite coordinates. Noding and snapping alternate until stable; if snapping keeps
/// creating crossings (dense clusters), the last passes use a 1e-9 m tolerance, so a few nodes
/// may then be closer than snap_m. snap_m below 1e-9 m (including 0) means 1e-9 m. Output order
/// is deterministic: nodes sorted by (x, y), edges by (a, b) with a < b. About
/// O((n + k) log n) with a spatial hash for n evenly spread segments and k crossings.
PlanarGraph build_planar_graph(const std::vector<TaggedSegment>& segments, double snap_m);

/// Whether any two edges cross or touch other than at a shared end node, overlap collinearly
/// from a shared node, or duplicate each other. Returns the first offending pair (lowest ea,
/// then lowest eb, ea < eb) through *ea, *eb when given. Exact floating-point predicates.
bool planar_graph_has_crossings(const PlanarGraph& g, std::uint32_t* ea = nullptr,
                                std::uint32_t* eb = nullptr);

/// A face of a planar graph: the cycle of nodes around it, counter-clockwise for inner faces.
struct Face {
  std::vector<std::uint32_t> nodes;  ///< Node indices in order around the face.
  std::vector<std::uint32_t> edges;  ///< edges[i] joins nodes[i] and nodes[i+1] (wrapping).
  double signed_area = 0.0;          ///< > 0 for bounded faces.
};

/// Extracts the bounded faces of a planar graph by walking half-edges (next half-edge = the one
/// clockwise-next around the head node). Dangling edges are walked on both sides, so they appear
/// inside the face that contains them. The unbounded (outer) faces of each connected component
/// are dropped (per component, the face with the most negative signed area). Half-edge 2e runs
/// edges[e].a -> b, 2e + 1 runs back; faces are ordered by their smallest half-edge index and
/// start at its tail. A component nested inside another's face does not cut a hole in it.
std::vector<Face> extract_faces(const PlanarGraph& g);

/// Removes dead-end chains shorter than min_length_m (repeatedly, so a dangling chain of short
/// edges goes as a whole); edges whose tag is in `keep_tags` are never removed. Returns the
/// number of edges removed. A dead-end chain runs from a degree-1 node through degree-2 nodes;
/// each round decides on all chains before removing any, so the result does not depend on the
/// visit order. Nodes without edges are removed and indices compacted (order kept).
std::size_t prune_dangling(PlanarGraph& g, double min_length_m,
                           const std::vector<std::uint32_t>& keep_tags = {});

}  // namespace cityforge
