// The launch spec, all of it (DESIGN.md "Launch spec (JSON)"): includes its element types (launch/dtype.hpp), its
// data types (launch/spec_types.hpp), its JSON reader (launch/spec_parser.hpp) and the buffer contents it describes
// (launch/buffer_init.hpp). Holds no code of its own: include the piece you use.
#pragma once

#include "asmevo/launch/buffer_init.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_parser.hpp"
#include "asmevo/launch/spec_types.hpp"
