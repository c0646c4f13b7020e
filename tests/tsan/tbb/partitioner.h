// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h. The partitioners are accepted and
// ignored: every loop is cut as TBB's simple_partitioner cuts it (parallel_for.h), which our
// bodies must not depend on anyway.
#pragma once

namespace tbb {

class auto_partitioner {};
class simple_partitioner {};
class static_partitioner {};
class affinity_partitioner {};

}  // namespace tbb
