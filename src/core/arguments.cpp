#include <adreno/error.hpp>
#include <adreno/program.hpp>

#include "core/arguments_impl.h"
#include "core/descriptors.h"
#include "core/same_device.h"
#include "pm4/a6xx_descriptors.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace adreno {
namespace {

namespace d = pm4::a6xx_descriptors;

std::string describe(std::size_t index, const ProgramArgument& argument) {
  return argument.name.empty() ? fmt::format("argument {}", index) : fmt::format("argument {} ('{}')", index, argument.name);
}

const char* kind_name(ProgramArgument::Kind kind) {
  switch (kind) {
    case ProgramArgument::Kind::constant: return "a buffer or scalar";
    case ProgramArgument::Kind::texture: return "a texture";
    case ProgramArgument::Kind::storage_image: return "a storage image";
    case ProgramArgument::Kind::storage_buffer: return "a storage buffer";
    case ProgramArgument::Kind::sampler: return "a sampler";
    case ProgramArgument::Kind::uniform_buffer: return "a uniform buffer";
  }
  return "?";
}

// Memory is checked against the program's device where it is bound (same_device.h): a dispatch
// then needs to check only that the program is the queue's device's (validate_dispatch).
void require_program_device(const Program::Impl& program, const BufferView& memory, const char* operation,
                            std::size_t index, const ProgramArgument& argument) {
  if (memory.buffer() && belongs_to(memory.buffer()->block(), program.device())) [[likely]] return;
  throw_unusable_view(program.device(), memory, operation, describe(index, argument));
}

}  // namespace

Arguments::Impl::Impl(std::shared_ptr<const Program::Impl> program)
    : program_(std::move(program)),
      image_(program_->data_layout().bytes / 4, 0u),
      bindings_(program_->info().arguments.size()),
      unset_count_(bindings_.size()) {
  const ProgramInfo& info = program_->info();
  const DispatchDataLayout& layout = program_->data_layout();
  const auto part = [&](std::uint64_t at, std::size_t dwords) { return std::span<std::uint32_t>(image_).subspan(at / 4, dwords); };
  constants_ = part(0, std::size_t{info.constlen_vec4} * 4);
  textures_ = part(layout.textures_at, std::size_t{info.textures} * d::kTextureDwords);
  storage_images_ = part(layout.images_at, std::size_t{info.storage_images} * d::kTextureDwords);
  samplers_ = part(layout.samplers_at, std::size_t{info.samplers} * d::kSamplerDwords);
  uniform_buffers_ = part(layout.uniform_buffers_at, std::size_t{info.uniform_buffers} * d::kUboDwords);
  // Immediates were checked against constlen when the program was loaded.
  for (const ProgramImmediate& immediate : program_->info().immediates)
    std::memcpy(reinterpret_cast<std::byte*>(constants_.data()) + immediate.const_byte, &immediate.value, immediate.size_bytes);
}

std::size_t Arguments::Impl::first_unset() const noexcept {
  std::size_t i = 0;
  while (i < bindings_.size() && bindings_[i].set) ++i;
  return i;
}

std::size_t Arguments::Impl::index_of(std::string_view name) const {
  const auto& arguments = program_->info().arguments;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (!name.empty() && arguments[i].name == name) return i;
  throw Error(Errc::not_found, "set argument",
              fmt::format("program '{}' has no argument named '{}'", program_->info().name, name));
}

const ProgramArgument& Arguments::Impl::argument(const ProgramInfo& info, std::size_t index, ProgramArgument::Kind kind,
                                                 const char* operation) {
  const auto& arguments = info.arguments;
  if (index >= arguments.size())
    throw Error(Errc::invalid_argument, operation,
                fmt::format("argument {} does not exist; program '{}' has {}", index, info.name, arguments.size()));
  const ProgramArgument& argument = arguments[index];
  if (argument.kind != kind)
    throw Error(Errc::invalid_argument, operation,
                fmt::format("{} is {}, not {}", describe(index, argument), kind_name(argument.kind), kind_name(kind)));
  return argument;
}

void Arguments::Impl::bind(std::size_t index, Binding binding) {
  if (!bindings_[index].set) --unset_count_;
  bindings_[index] = std::move(binding);
  set_listed_in(0);  // no recording listed the new binding
}

const ProgramArgument& Arguments::Impl::buffer_argument(const ProgramInfo& info, std::size_t index) {
  constexpr const char* kOperation = "set buffer argument";
  if (index < info.arguments.size() && (info.arguments[index].kind == ProgramArgument::Kind::storage_buffer ||
                                       info.arguments[index].kind == ProgramArgument::Kind::uniform_buffer))
    return info.arguments[index];
  const ProgramArgument& arg = argument(info, index, ProgramArgument::Kind::constant, kOperation);
  if (arg.size_bytes != 8 || arg.const_byte % 4 != 0)
    throw Error(Errc::invalid_argument, kOperation,
                fmt::format("{} is a {}-byte scalar, not a 64-bit buffer address", describe(index, arg), arg.size_bytes));
  return arg;
}

const ProgramArgument& Arguments::Impl::scalar_argument(const ProgramInfo& info, std::size_t index, std::size_t bytes) {
  constexpr const char* kOperation = "set scalar argument";
  if (index < info.arguments.size() && (info.arguments[index].kind == ProgramArgument::Kind::storage_buffer ||
                                       info.arguments[index].kind == ProgramArgument::Kind::uniform_buffer))
    throw Error(Errc::invalid_argument, kOperation,
                fmt::format("{} is {}, bound with set_buffer: its address holds 8 bytes; got {}",
                            describe(index, info.arguments[index]), kind_name(info.arguments[index].kind), bytes));
  const ProgramArgument& arg = argument(info, index, ProgramArgument::Kind::constant, kOperation);
  if (bytes == 0 || bytes > arg.size_bytes)
    throw Error(Errc::invalid_argument, kOperation,
                fmt::format("{} holds {} bytes; got {}", describe(index, arg), arg.size_bytes, bytes));
  return arg;
}

const ProgramArgument& Arguments::Impl::storage_buffer_descriptor(std::span<std::uint32_t, 16> out, const ProgramInfo& info,
                                                                 std::size_t index, GpuAddress address, std::uint64_t size) {
  constexpr const char* kOperation = "set buffer argument";
  const ProgramArgument& arg = argument(info, index, ProgramArgument::Kind::storage_buffer, kOperation);
  write_buffer_descriptor(out, address, size, kOperation, describe(index, arg));
  return arg;
}

const ProgramArgument& Arguments::Impl::uniform_buffer_descriptor(std::span<std::uint32_t, 2> out, const ProgramInfo& info,
                                                                 std::size_t index, GpuAddress address, std::uint64_t size) {
  constexpr const char* kOperation = "set buffer argument";
  const ProgramArgument& arg = argument(info, index, ProgramArgument::Kind::uniform_buffer, kOperation);
  write_uniform_buffer_descriptor(out, address, size, kOperation, describe(index, arg));
  return arg;
}

void Arguments::Impl::set_buffer(std::size_t index, const BufferView& buffer) {
  const ProgramArgument& arg = buffer_argument(program_->info(), index);
  require_program_device(*program_, buffer, "set buffer argument", index, arg);
  const GpuAddress address = buffer.gpu_address();
  if (arg.kind == ProgramArgument::Kind::storage_buffer) {
    storage_buffer_descriptor(std::span<std::uint32_t, 16>(storage_images_.data() + std::size_t{arg.slot} * d::kTextureDwords, 16),
                              program_->info(), index, address, buffer.size());
  } else if (arg.kind == ProgramArgument::Kind::uniform_buffer) {
    uniform_buffer_descriptor(std::span<std::uint32_t, 2>(uniform_buffers_.data() + std::size_t{arg.slot} * d::kUboDwords, 2),
                              program_->info(), index, address, buffer.size());
  }
  if (arg.const_byte != kNoConstant) {
    constants_[arg.const_byte / 4] = address.lo();
    constants_[arg.const_byte / 4 + 1] = address.hi();
  }
  // A buffer argument may be written by the program: list it as writable (a UBO is only read).
  bind(index, Binding{buffer.buffer()->block_shared(), arg.kind != ProgramArgument::Kind::uniform_buffer, true});
}

void Arguments::Impl::set_bytes(std::size_t index, std::span<const std::byte> bytes) {
  const ProgramArgument& arg = scalar_argument(program_->info(), index, bytes.size());
  std::byte* at = reinterpret_cast<std::byte*>(constants_.data()) + arg.const_byte;
  std::memset(at, 0, arg.size_bytes);
  std::memcpy(at, bytes.data(), bytes.size());
  bind(index, Binding{nullptr, false, true});
}

const ProgramArgument& Arguments::Impl::image_descriptor(std::span<std::uint32_t, 16> out, const ProgramInfo& info,
                                                         std::size_t index, const ImageDesc& image, bool storage) {
  const char* operation = storage ? "set storage image argument" : "set texture argument";
  const ProgramArgument& arg =
      argument(info, index, storage ? ProgramArgument::Kind::storage_image : ProgramArgument::Kind::texture, operation);
  write_image_descriptor(out, image, storage, operation, describe(index, arg));
  return arg;
}

void Arguments::Impl::set_image(std::size_t index, const ImageDesc& image, bool storage) {
  std::uint32_t descriptor[d::kTextureDwords];
  const ProgramArgument& arg = image_descriptor(descriptor, program_->info(), index, image, storage);
  require_program_device(*program_, image.memory, storage ? "set storage image argument" : "set texture argument", index, arg);
  const std::span<std::uint32_t> table = storage ? storage_images_ : textures_;
  std::copy(descriptor, descriptor + d::kTextureDwords, table.begin() + std::size_t{arg.slot} * d::kTextureDwords);
  bind(index, Binding{image.memory.buffer()->block_shared(), storage, true});
}

void Arguments::Impl::set_sampler(std::size_t index, const SamplerDesc& sampler) {
  const ProgramArgument& arg = argument(program_->info(), index, ProgramArgument::Kind::sampler, "set sampler argument");
  write_sampler_descriptor(std::span<std::uint32_t, 4>(samplers_.data() + std::size_t{arg.slot} * d::kSamplerDwords, 4), sampler);
  bind(index, Binding{nullptr, false, true});
}

Arguments::Arguments(const Program& program) : impl_(std::make_unique<Impl>(program.impl())) {}
Arguments::Arguments(Arguments&&) noexcept = default;
Arguments& Arguments::operator=(Arguments&&) noexcept = default;
Arguments::~Arguments() = default;

Arguments& Arguments::set_buffer(std::size_t index, const BufferView& buffer) {
  impl_->set_buffer(index, buffer);
  return *this;
}
Arguments& Arguments::set_buffer(std::string_view name, const BufferView& buffer) {
  impl_->set_buffer(impl_->index_of(name), buffer);
  return *this;
}
Arguments& Arguments::set_bytes(std::size_t index, std::span<const std::byte> bytes) {
  impl_->set_bytes(index, bytes);
  return *this;
}
Arguments& Arguments::set_texture(std::size_t index, const ImageDesc& image) {
  impl_->set_image(index, image, false);
  return *this;
}
Arguments& Arguments::set_storage_image(std::size_t index, const ImageDesc& image) {
  impl_->set_image(index, image, true);
  return *this;
}
Arguments& Arguments::set_sampler(std::size_t index, const SamplerDesc& sampler) {
  impl_->set_sampler(index, sampler);
  return *this;
}

}  // namespace adreno
