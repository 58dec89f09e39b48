#include <graft/high.hpp>
#include <graft/low.hpp>
#include <graft/harness/snapshot.hpp>
