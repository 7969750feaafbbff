// ir3 assembly as a program source: what the assembler's directives and analysis mean as the
// compiler metadata Program::from_ir3 takes (the assembler is our compiler for hand-written code).
#pragma once

#include <adreno/program.hpp>

#include "ir3/assembler.h"

#include <vector>

namespace adreno {

/// The metadata of an assembled program: footprints, instrlen and constlen from the analysis;
/// @buf slots as storage-buffer arguments ("buf0", "buf1", … in UAV slot order, the address
/// also in their constant when named); @const values as immediates; @localsize as the fixed
/// local size; @invocationid/@wgid as the system-value registers; @numwg as driver params;
/// @branchstack, @localmem, @pvtmem as the branch stack, shared and private memory. Throws
/// Error(malformed) when the code uses private memory no @pvtmem declares, or a size is too big.
Ir3Metadata ir3_metadata(const ir3::Program& assembled);

/// The instruction words as the little-endian dwords Program::from_ir3 loads.
std::vector<std::uint32_t> ir3_code_dwords(const ir3::Program& assembled);

}  // namespace adreno
