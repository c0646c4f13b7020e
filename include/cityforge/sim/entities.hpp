// SPDX-License-Identifier: Apache-2.0
#pragma once

// The sim module's data-oriented entity core (in the spirit of Unreal's MassEntity): entity
// handles, components, archetypes in chunks, queries, processors and their schedule, the
// end-of-tick command buffer and the world. See docs/sim-core.md.
#include "cityforge/sim/archetype.hpp"
#include "cityforge/sim/commands.hpp"
#include "cityforge/sim/component.hpp"
#include "cityforge/sim/entity.hpp"
#include "cityforge/sim/query.hpp"
#include "cityforge/sim/schedule.hpp"
#include "cityforge/sim/world.hpp"
