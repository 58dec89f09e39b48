// The fused receive pass from a bfloat16 source, into every target dtype.

#include <c10/util/BFloat16.h>

#include "stats/write_steps.hpp"

namespace graft::detail {

GRAFT_WRITE_FROM(c10::BFloat16);

}  // namespace graft::detail
