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

/// Builds a planar graph from segments: splits segments at every crossing and T-junction,
/// merges nodes closer than snap_m (a node keeps the position of its lowest-index member),
/// drops zero-length edges and duplicate edges (keeping the lowest tag). Output order is
/// deterministic: nodes sorted by (x, y), edges by (a, b). O((n + k) log n) with a spatial hash
/// for n segments and k crossings.
PlanarGraph build_planar_graph(const std::vector<TaggedSegment>& segments, double snap_m);

/// Whether any two edges cross or touch other than at a shared end node. Returns the first
/// offending pair (lowest indices) through *ea, *eb when given.
bool planar_graph_has_crossings(const PlanarGraph& g, std::uint32_t* ea = nullptr,
                                std::uint32_t* eb = nullptr);

/// A face of a planar graph: the cycle of nodes around it, counter-clockwise for inner faces.
struct Face {
  std::vector<std::uint32_t> nodes;     ///< Node indices in order around the face.
  std::vector<std::uint32_t> edges;     ///< edges[i] joins nodes[i] and nodes[i+1] (wrapping).
  double signed_area = 0.0;             ///< > 0 for bounded faces.
};

/// Extracts the bounded faces of a planar graph by walking half-edges (next half-edge = the one
/// clockwise-next around the head node). Dangling edges are walked on both sides, so they appear
/// inside the face that contains them. The unbounded (outer) faces of each connected component
/// are dropped. Faces are ordered by their smallest half-edge index.
std::vector<Face> extract_faces(const PlanarGraph& g);

/// Removes dead-end chains shorter than min_length_m (repeatedly, so a dangling chain of short
/// edges goes as a whole); edges whose tag is in `keep_tags` are never removed. Returns the
/// number of edges removed. Node indices are compacted.
std::size_t prune_dangling(PlanarGraph& g, double min_length_m,
                           const std::vector<std::uint32_t>& keep_tags = {});

}  // namespace cityforge
