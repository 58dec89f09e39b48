#pragma once
#include <graft/low.hpp>
