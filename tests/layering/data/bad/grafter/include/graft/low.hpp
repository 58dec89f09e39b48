#pragma once
// A lower layer that reaches up: the check names it.
#include <graft/high.hpp>
