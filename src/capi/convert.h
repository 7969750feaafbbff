// The C structs and enums as the C++ API takes them. Every enum arrives from another language as
// a plain number, so each is read as one (never loaded as the enum type) and checked against the
// values adreno.h lists; an unknown one is Error(invalid_argument) naming the field.
#pragma once

#include "capi/objects.h"

#include <adreno/adreno.h>
#include <adreno/adreno.hpp>

#include <span>
#include <vector>

namespace adreno::capi {

MemoryType memory_type_of(const adreno_memory_type& field);
adreno_memory_type memory_type_to_c(MemoryType type) noexcept;
std::optional<WaveSize> wave_size_of(const adreno_wave_size& field);
adreno_wave_size wave_size_to_c(WaveSize size) noexcept;

ImageFormat image_format_of(const adreno_image_format& field);
BufferDesc buffer_desc_of(const adreno_buffer_desc& desc);
/// The image, with its memory's handle looked up.
ImageDesc image_desc_of(const adreno_image_desc* image);
SamplerDesc sampler_desc_of(const adreno_sampler_desc* sampler);
Ir3Metadata ir3_metadata_of(const adreno_ir3_metadata& metadata);
Launch launch_of(const adreno_launch* launch);
IndirectLaunch indirect_launch_of(const adreno_indirect_launch* launch);
RegisterMode register_mode_of(const adreno_register_mode& field);
std::vector<Access> access_of(const adreno_access* access, std::size_t count);

/// The bytes of a scalar argument (`data` may be NULL only when `size` is 0).
std::span<const std::byte> bytes_of(const void* data, std::size_t size);

}  // namespace adreno::capi
