// The CPU emulator's bit-exact numeric helpers, all of them: includes the VALU's float rules (emu/fp_valu.hpp), the
// saturating v_cvt_* conversions (emu/fp_convert.hpp) and the integer helpers (emu/int_ops.hpp), all in emu::fp,
// which also sees the storage formats of support/float_formats.hpp. Holds no code of its own: include the piece you
// use.
#pragma once

#include "asmevo/emu/fp_convert.hpp"
#include "asmevo/emu/fp_valu.hpp"
#include "asmevo/emu/int_ops.hpp"
#include "asmevo/support/float_formats.hpp"
