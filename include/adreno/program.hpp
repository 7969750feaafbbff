// Compute programs and their arguments.
//
// A Program is compiled code loaded once into GPU memory (128-byte aligned, kept alive by the
// Program and by every submission that uses it) together with the compiler's metadata — the
// instruction length, register footprints, constant-file length, wave size and where the
// hardware delivers work-item ids. Nothing of that is reconstructed from byte sizes. Programs
// come from two kinds of compiler output:
//
//  * a Qualcomm OpenCL compiled binary (the format tinygrad's QCOM runtime reads), launched with
//    CP_RUN_OPENCL;
//  * raw ir3 machine code plus the metadata Mesa's ir3 compiler reports for it (Ir3Metadata, or
//    a fixture JSON file of format `ir3-a630-fixture/1`), launched with CP_EXEC_CS.
//
// Arguments binds values to one program's parameters: buffer addresses and scalars (written into
// the constant file at the program's offsets), textures and storage images (16-dword
// descriptors) and samplers (4-dword descriptors). Queue::dispatch copies them into GPU memory
// at record time, so one Arguments object can be changed and dispatched again.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>
#include <adreno/regid.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace adreno {

/// How ir3 assembly addresses half registers (SP_CS_CNTL_0 MERGEDREGS): merged, as Mesa's
/// assembler and computerator assemble for a6xx (hrN is half of r(N/2)), or split (a separate
/// half-register file).
enum class RegisterMode { merged, split };

/// Hardware wave (thread-group) size. On the A630 a 128-wide wave doubles FP16 MAD throughput but
/// some FP32 kernels run slower, so the compiler's choice can be overridden per launch.
enum class WaveSize { thread64, thread128 };

/// What Mesa's ir3 compiler reports for one compute variant (ir3_shader_variant / ir3_info /
/// ir3_const_state). Every field is the compiler's number; Program::from_ir3 validates them.
struct Ir3Metadata {
  struct BufferPointer {
    std::string name;          ///< optional; lets Arguments bind by name
    std::uint32_t const_dword; ///< constant-file dword that receives the low half of the address
  };
  struct Scalar {
    std::string name;
    std::uint32_t const_dword;
    std::uint32_t size_bytes;  ///< 1..16
  };
  struct Immediate {
    std::uint32_t const_dword;
    std::uint32_t value;
  };

  std::string name;
  std::uint32_t instrlen = 0;          ///< in groups of 16 instructions (128 bytes): SP_CS_INSTR_SIZE
  std::uint32_t constlen_vec4 = 0;     ///< constant-file length the program reads
  std::int32_t max_reg = -1;           ///< highest full vec4 register used (-1: none)
  std::int32_t max_half_reg = -1;      ///< highest half vec4 register used (-1: none)
  bool merged_regs = false;
  WaveSize wave_size = WaveSize::thread64;  ///< THREAD128 when the compiler chose double_threadsize
  std::uint32_t branch_stack = 0;
  std::uint32_t work_group_id_regid = kUnusedRegid;
  std::uint32_t local_id_regid = kUnusedRegid;
  /// Constant dword where the driver writes the local size x, y, z (driver params); nullopt when
  /// the program does not read it.
  std::optional<std::uint32_t> local_size_const_dword;
  /// Mesa's compute driver params (`struct ir3_driver_params_cs` in ir3_shader.h: work-group
  /// counts, work_dim, base group, subgroup size, local size, subgroup-id shift, work-group id):
  /// where the block starts in the constant file (the DRIVER_PARAMS allocation's offset_vec4 × 4)
  /// and how many of its dwords the program reads (num_driver_params). Every dispatch writes them,
  /// clipped to constlen as Turnip does; nullopt when the program reads none.
  struct DriverParams {
    std::uint32_t const_dword;
    std::uint32_t count;  ///< 1..16
  };
  std::optional<DriverParams> driver_params;
  /// A buffer the program reaches as a storage buffer (UAV/IBO slot `slot`, as Mesa computerator's
  /// `@buf` lines): the dispatch writes an R32_UINT buffer descriptor for it, and its 64-bit
  /// address at `address_const_dword` too when given.
  struct StorageBuffer {
    std::string name;
    std::uint32_t slot;
    std::optional<std::uint32_t> address_const_dword;
  };
  std::vector<BufferPointer> buffers;  ///< in kernel-argument order, before the scalars
  std::vector<Scalar> scalars;
  std::vector<StorageBuffer> storage_buffers;  ///< arguments after the scalars
  /// A buffer the program reads as a uniform buffer (UBO slot `slot`, read with ldc / ldc.k, as
  /// Mesa computerator's `@ubo` lines): the dispatch loads its 2-dword UBO descriptor (base and
  /// size in vec4s) with CP_LOAD_STATE6 ST6_UBO, and its 64-bit address at
  /// `address_const_dword` too when given.
  struct UniformBuffer {
    std::string name;
    std::uint32_t slot;
    std::optional<std::uint32_t> address_const_dword;
  };
  std::vector<UniformBuffer> uniform_buffers;  ///< arguments after the storage buffers
  /// The program starts with an early preamble (SP_CS_CNTL_0 EARLYPREAMBLE; Mesa ir3_shader_variant
  /// early_preamble): a shps … shpe block the hardware runs once before the work groups.
  bool early_preamble = false;
  std::vector<Immediate> immediates;
  std::uint32_t private_bytes_per_fiber = 0;
  bool private_per_wave = true;        ///< PERWAVEMEMLAYOUT
  std::uint32_t shared_bytes = 0;
  /// The local size the program was compiled for, when it requires one (0 = free).
  std::uint32_t fixed_local_size[3] = {0, 0, 0};
  /// The GPU the compiler built the code for (Mesa's fd_dev_id gpu_id: 630), when known. The
  /// instruction set differs between generations (ir3/isa: <gen min="700"/> forms), so
  /// Program::from_ir3 refuses code built for a generation other than the device's
  /// (Errc::unsupported) rather than running it as the other instruction set; nullopt: the caller
  /// vouches that the code is in the device's instruction set.
  std::optional<std::uint32_t> compiled_for_gpu_id;
};

/// Reads a fixture's metadata JSON (format `ir3-a630-fixture/1`). Throws Error(malformed) naming
/// the key that is missing or out of range; Error(not_found) when the file cannot be read.
Ir3Metadata load_ir3_metadata_json(const std::filesystem::path& path);

/// Texel formats the image descriptors support (a6xx FMT6_* formats).
enum class ImageFormat { r32_uint, r32_float, rgba8_unorm, rgba16_float, rgba32_float, rgba32_uint };
/// Bytes per texel of `format`.
std::uint32_t bytes_per_texel(ImageFormat format) noexcept;

/// A linear 2D image inside a buffer: `memory` starts at the image's first texel; rows are
/// `pitch_bytes` apart. The view must hold pitch_bytes·(height−1) + width·bytes_per_texel bytes.
struct ImageDesc {
  BufferView memory;
  ImageFormat format = ImageFormat::rgba32_float;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint32_t pitch_bytes = 0;  ///< multiple of 64; at least width·bytes_per_texel
};

struct SamplerDesc {
  enum class Filter { nearest, linear };
  enum class Address { repeat, mirrored_repeat, clamp_to_edge, clamp_to_border };
  Filter filter = Filter::nearest;
  Address address = Address::clamp_to_border;
  bool normalized_coordinates = false;  ///< false: coordinates are in texels (OpenCL's default)
};

class Program {
 public:
  /// Loads a Qualcomm OpenCL compiled binary. Throws Error(malformed) naming the field that is
  /// out of range, Error(unsupported) on a GPU this library cannot drive.
  static Program from_qualcomm_binary(Device& device, std::span<const std::byte> binary);
  /// Loads ir3 machine code (64-bit instruction words as little-endian dwords, including the
  /// compiler's padding) with the compiler's metadata. Throws Error(unsupported) when
  /// metadata.compiled_for_gpu_id names a GPU of another generation than the device's.
  static Program from_ir3(Device& device, std::span<const std::uint32_t> code, const Ir3Metadata& metadata);
  /// Assembles ir3 source — Mesa's disassembler syntax plus Mesa computerator's directives
  /// (`@localsize X, Y, Z`, `@buf SIZE [(cN.c)] [values]`, `@const(cN.c) a, b, c, d`,
  /// `@invocationid(rN.c)`, `@wgid(rN.c)`, `@numwg(cN.x)`, `@branchstack N`, `@localmem BYTES`,
  /// `@pvtmem BYTES`, `@ubo SIZE [(cN.c)] [values]`, `@earlypreamble`, `@fullnopstart/end`,
  /// `@fullsyncstart/end`) — and loads it. Its arguments are the @buf lines in order, then the
  /// @ubo lines in order, each named "buf<i>" by its position i among all @buf and @ubo lines: the
  /// n-th @buf is storage-buffer (UAV) slot n and the n-th @ubo uniform-buffer slot n, an address
  /// also in cN.xy when the line names a constant, as in computerator. @const
  /// values are preloaded; @numwg receives the work-group counts; @localsize is the local size it
  /// must be launched with. Throws Error(malformed) whose detail starts with "line:column:" for
  /// bad source.
  /// With `legalize`, the assembler first adds the (sy)/(ss) waits and delay slots the code lacks
  /// (Mesa's a6xx scheduling rules), so it can be written without counting them; code that
  /// already has them is loaded as written. Registers are merged unless `registers` says split.
  static Program from_ir3_assembly(Device& device, std::string_view source, bool legalize = false,
                                   RegisterMode registers = RegisterMode::merged);
  /// Loads a fixture: `<dir>/<name>.code.bin` and its `<name>.json`.
  static Program from_ir3_fixture(Device& device, const std::filesystem::path& json_path);

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  const std::string& name() const noexcept;
  /// The wave size the compiler chose (a Launch may override it).
  WaveSize wave_size() const noexcept;
  /// Where the code lives on the GPU.
  GpuAddress code_address() const noexcept;
  /// Number of arguments, and the index of the argument named `name` (nullopt if none).
  std::size_t argument_count() const noexcept;
  std::optional<std::size_t> argument_index(std::string_view name) const;

  class Impl;  ///< library-internal
  const std::shared_ptr<const Impl>& impl() const noexcept { return impl_; }

 private:
  explicit Program(std::shared_ptr<const Impl> impl) noexcept;
  std::shared_ptr<const Impl> impl_;
};

/// Values for one program's arguments. Each argument is set by its index (kernel order) or by
/// name; setters check that the argument has that kind, that the value fits and that its memory
/// belongs to the program's device, and throw Error(invalid_argument) naming the argument
/// otherwise, the argument keeping what it had. The object keeps every bound buffer alive; a
/// dispatch of it lists those buffers for the kernel.
class Arguments {
 public:
  explicit Arguments(const Program& program);
  Arguments(Arguments&&) noexcept;
  Arguments& operator=(Arguments&&) noexcept;
  ~Arguments();

  /// A buffer argument: its 64-bit GPU address goes into the constant file.
  Arguments& set_buffer(std::size_t index, const BufferView& buffer);
  Arguments& set_buffer(std::string_view name, const BufferView& buffer);

  /// A scalar argument: `bytes` (at most the argument's size) go into the constant file.
  Arguments& set_bytes(std::size_t index, std::span<const std::byte> bytes);
  template <typename T>
  Arguments& set_scalar(std::size_t index, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return set_bytes(index, std::as_bytes(std::span<const T, 1>(&value, 1)));
  }

  /// A sampled image (texture descriptor) or storage image (IBO descriptor). Throws
  /// Error(invalid_argument) when the image exceeds the GPU's limits (16384×16384 texels on
  /// a6xx) or does not fit in its buffer view.
  Arguments& set_texture(std::size_t index, const ImageDesc& image);
  Arguments& set_storage_image(std::size_t index, const ImageDesc& image);
  Arguments& set_sampler(std::size_t index, const SamplerDesc& sampler);

  class Impl;  ///< library-internal
  const Impl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// The shape of one dispatch: `groups` work-groups of `local_size` invocations each.
struct Launch {
  std::uint32_t groups[3] = {1, 1, 1};
  std::uint32_t local_size[3] = {1, 1, 1};
  /// Overrides the program's wave size for this launch.
  std::optional<WaveSize> wave_size;
  /// The first work-group's id (Vulkan's vkCmdDispatchBase, OpenCL's global work offset in
  /// groups): delivered to the program as the base-group driver params, which Mesa-compiled code
  /// adds to its work-group id as Turnip's does; the hardware's own ids still start at 0.
  /// base_group + groups must fit 32 bits on every axis.
  std::uint32_t base_group[3] = {0, 0, 0};
};

/// The shape of an indirect dispatch (Queue::dispatch_indirect): as Launch, but the group counts
/// are read by the GPU from memory.
struct IndirectLaunch {
  std::uint32_t local_size[3] = {1, 1, 1};
  std::optional<WaveSize> wave_size;
};

}  // namespace adreno
