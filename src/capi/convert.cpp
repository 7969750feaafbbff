#include "capi/convert.h"

#include "capi/registry.h"
#include "capi/status.h"

#include <cstring>
#include <string>

namespace adreno::capi {
namespace {

/// The number in a C enum field, read without loading it as the enum type.
template <typename Enum>
int number_in(const Enum& field) noexcept {
  static_assert(sizeof(Enum) == sizeof(int));
  int number;
  std::memcpy(&number, &field, sizeof number);
  return number;
}

[[noreturn]] void unknown(const char* field, int number) {
  throw Error(Errc::invalid_argument, "read C arguments", std::string(field) + " " + std::to_string(number) +
                                                              " is not one of the values adreno.h lists");
}

/// The C++ enum value at position `number` of a C enum numbered 0..count-1.
template <typename Cpp>
Cpp enumerator(int number, int count, const char* field) {
  if (number < 0 || number >= count) unknown(field, number);
  return static_cast<Cpp>(number);
}

}  // namespace

static_assert(ADRENO_UNUSED_REGID == kUnusedRegid);

// The C enums below number their values as the C++ enums order theirs.
MemoryType memory_type_of(const adreno_memory_type& field) {
  static_assert(ADRENO_MEMORY_UNCACHED == static_cast<int>(MemoryType::uncached));
  return enumerator<MemoryType>(number_in(field), ADRENO_MEMORY_UNCACHED + 1, "memory type");
}

adreno_memory_type memory_type_to_c(MemoryType type) noexcept { return static_cast<adreno_memory_type>(type); }

std::optional<WaveSize> wave_size_of(const adreno_wave_size& field) {
  switch (number_in(field)) {
    case ADRENO_WAVE_SIZE_DEFAULT: return std::nullopt;
    case ADRENO_WAVE_SIZE_64: return WaveSize::thread64;
    case ADRENO_WAVE_SIZE_128: return WaveSize::thread128;
    default: unknown("wave size", number_in(field));
  }
}

adreno_wave_size wave_size_to_c(WaveSize size) noexcept {
  return size == WaveSize::thread128 ? ADRENO_WAVE_SIZE_128 : ADRENO_WAVE_SIZE_64;
}

BufferDesc buffer_desc_of(const adreno_buffer_desc& desc) {
  constexpr std::uint32_t kKnown = ADRENO_BUFFER_GPU_READ_ONLY | ADRENO_BUFFER_NO_CPU_VIEW | ADRENO_BUFFER_EXPORTABLE;
  if ((desc.flags & ~kKnown) != 0) unknown("buffer flags", static_cast<int>(desc.flags));
  return BufferDesc{.size = desc.size,
                    .alignment = desc.alignment,
                    .memory = memory_type_of(desc.memory),
                    .gpu_read_only = (desc.flags & ADRENO_BUFFER_GPU_READ_ONLY) != 0,
                    .host_visible = (desc.flags & ADRENO_BUFFER_NO_CPU_VIEW) == 0,
                    .exportable = (desc.flags & ADRENO_BUFFER_EXPORTABLE) != 0};
}

ImageFormat image_format_of(const adreno_image_format& field) {
  static_assert(ADRENO_IMAGE_RGBA32_UINT == static_cast<int>(ImageFormat::rgba32_uint));
  return enumerator<ImageFormat>(number_in(field), ADRENO_IMAGE_RGBA32_UINT + 1, "image format");
}

ImageDesc image_desc_of(const adreno_image_desc* image) {
  require(image, "image");
  return ImageDesc{.memory = lookup(image->memory, "image memory")->view,
                   .format = image_format_of(image->format),
                   .width = image->width,
                   .height = image->height,
                   .pitch_bytes = image->pitch_bytes};
}

SamplerDesc sampler_desc_of(const adreno_sampler_desc* sampler) {
  require(sampler, "sampler");
  static_assert(ADRENO_FILTER_LINEAR == static_cast<int>(SamplerDesc::Filter::linear));
  static_assert(ADRENO_ADDRESS_CLAMP_TO_BORDER == static_cast<int>(SamplerDesc::Address::clamp_to_border));
  return SamplerDesc{
      .filter = enumerator<SamplerDesc::Filter>(number_in(sampler->filter), ADRENO_FILTER_LINEAR + 1, "sampler filter"),
      .address = enumerator<SamplerDesc::Address>(number_in(sampler->address), ADRENO_ADDRESS_CLAMP_TO_BORDER + 1,
                                                  "sampler address mode"),
      .normalized_coordinates = sampler->normalized_coordinates};
}

Ir3Metadata ir3_metadata_of(const adreno_ir3_metadata& in) {
  if (in.buffer_count != 0) require(in.buffers, "metadata buffers");
  if (in.scalar_count != 0) require(in.scalars, "metadata scalars");
  if (in.immediate_count != 0) require(in.immediates, "metadata immediates");
  if (in.storage_buffer_count != 0) require(in.storage_buffers, "metadata storage buffers");
  const auto text = [](const char* name) { return name != nullptr ? std::string(name) : std::string(); };
  Ir3Metadata out;
  out.name = text(in.name);
  out.instrlen = in.instrlen;
  out.constlen_vec4 = in.constlen_vec4;
  out.max_reg = in.max_reg;
  out.max_half_reg = in.max_half_reg;
  out.merged_regs = in.merged_regs;
  const std::optional<WaveSize> wave = wave_size_of(in.wave_size);
  if (!wave) unknown("metadata wave size", number_in(in.wave_size));
  out.wave_size = *wave;
  out.branch_stack = in.branch_stack;
  out.work_group_id_regid = in.work_group_id_regid;
  out.local_id_regid = in.local_id_regid;
  if (in.has_local_size_const_dword) out.local_size_const_dword = in.local_size_const_dword;
  for (std::size_t i = 0; i < in.buffer_count; ++i)
    out.buffers.push_back({text(in.buffers[i].name), in.buffers[i].const_dword});
  for (std::size_t i = 0; i < in.scalar_count; ++i)
    out.scalars.push_back({text(in.scalars[i].name), in.scalars[i].const_dword, in.scalars[i].size_bytes});
  for (std::size_t i = 0; i < in.immediate_count; ++i)
    out.immediates.push_back({in.immediates[i].const_dword, in.immediates[i].value});
  out.private_bytes_per_fiber = in.private_bytes_per_fiber;
  out.private_per_wave = in.private_per_wave;
  out.shared_bytes = in.shared_bytes;
  for (int i = 0; i < 3; ++i) out.fixed_local_size[i] = in.fixed_local_size[i];
  if (in.driver_params_count != 0) out.driver_params = Ir3Metadata::DriverParams{in.driver_params_const_dword, in.driver_params_count};
  for (std::size_t i = 0; i < in.storage_buffer_count; ++i) {
    const adreno_ir3_storage_buffer& buffer = in.storage_buffers[i];
    out.storage_buffers.push_back({text(buffer.name), buffer.slot,
                                   buffer.has_address_const_dword ? std::optional(buffer.address_const_dword) : std::nullopt});
  }
  return out;
}

Launch launch_of(const adreno_launch* launch) {
  require(launch, "launch");
  Launch out;
  for (int i = 0; i < 3; ++i) {
    out.groups[i] = launch->groups[i];
    out.local_size[i] = launch->local_size[i];
    out.base_group[i] = launch->base_group[i];
  }
  out.wave_size = wave_size_of(launch->wave_size);
  return out;
}

IndirectLaunch indirect_launch_of(const adreno_indirect_launch* launch) {
  require(launch, "launch");
  IndirectLaunch out;
  for (int i = 0; i < 3; ++i) out.local_size[i] = launch->local_size[i];
  out.wave_size = wave_size_of(launch->wave_size);
  return out;
}

RegisterMode register_mode_of(const adreno_register_mode& field) {
  static_assert(ADRENO_REGISTERS_SPLIT == static_cast<int>(RegisterMode::split));
  return enumerator<RegisterMode>(number_in(field), ADRENO_REGISTERS_SPLIT + 1, "register mode");
}

std::vector<Access> access_of(const adreno_access* access, std::size_t count) {
  if (count != 0) require(access, "access");
  static_assert(ADRENO_ACCESS_READ_WRITE == static_cast<int>(Access::read_write));
  std::vector<Access> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(enumerator<Access>(number_in(access[i]), ADRENO_ACCESS_READ_WRITE + 1, "access"));
  return out;
}

std::span<const std::byte> bytes_of(const void* data, std::size_t size) {
  if (size != 0) require(data, "data");
  return {static_cast<const std::byte*>(data), size};
}

}  // namespace adreno::capi
