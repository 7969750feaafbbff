/* The adreno C API: plain C11 over the C++ API (adreno.hpp), for C programs and for any language
 * that calls C (Python's ctypes, Rust, Go, Zig, Java).
 *
 * Conventions:
 *  - Objects are opaque handles. Every *_create / *_open / *_allocate / *_import / *_from_*
 *    returns a handle that *_release gives back; handles may be released in any order (a buffer
 *    outliving its device keeps what it needs, as in C++). A handle is never reused: a released
 *    or made-up handle, a NULL one, or one of another type gets ADRENO_INVALID_ARGUMENT — never a
 *    crash.
 *  - Every fallible call returns an adreno_status (ADRENO_SUCCESS = 0). On failure the
 *    out-parameters are left untouched, and adreno_last_error_message() on the same thread says
 *    what failed: the operation, the object or field, and the kernel's errno where one applies
 *    (adreno_last_error_operation() and adreno_last_error_detail() give the parts apart).
 *    Successful calls leave the last error as it was.
 *  - Handles may be used from several threads; one object (a queue, a graph, an arguments set)
 *    is used by one thread at a time, as in C++.
 *  - Buffers and signals belong to the device that made them: passing one to an object of another
 *    device (arguments of its program, its queue) is ADRENO_INVALID_ARGUMENT naming the argument,
 *    and nothing changes — another device's GPU addresses mean nothing in this one's.
 *  - Timeouts are in nanoseconds; ADRENO_WAIT_FOREVER waits without limit.
 *  - Not covered: the test kit (adreno/testing.hpp: fault plans, the ledger of kernel objects,
 *    the call log) is C++ only. From C, a virtual device opens like any other
 *    ("virtual-kgsl", "virtual-msm"), without fault injection or inspection.
 */
#ifndef ADRENO_ADRENO_H
#define ADRENO_ADRENO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ---------------------------------------------------------------------- */

/** What went wrong; one code per adreno::Errc, in its order. */
typedef enum adreno_status {
  ADRENO_SUCCESS = 0,
  ADRENO_INVALID_ARGUMENT = 1, /**< out of range, inconsistent, NULL, released or wrong handle */
  ADRENO_NOT_FOUND = 2,        /**< no device, object or entry with that name or id */
  ADRENO_UNSUPPORTED = 3,      /**< the kernel, GPU or backend cannot do this */
  ADRENO_OUT_OF_MEMORY = 4,    /**< host or GPU memory exhausted */
  ADRENO_KERNEL_ERROR = 5,     /**< the kernel refused (see adreno_last_error_errno) */
  ADRENO_TIMEOUT = 6,          /**< a wait ran out of time */
  ADRENO_DEVICE_LOST = 7,      /**< the GPU faulted or hung; the queue is unusable (sticky) */
  ADRENO_MALFORMED = 8,        /**< a binary, source or file is malformed (names the field) */
  ADRENO_BUSY = 9              /**< the object is still in use by the GPU */
} adreno_status;

/** A short, stable name for a status ("invalid_argument", ...; "success"; "unknown"). */
const char* adreno_status_name(adreno_status status);
/** The last failure on this thread: its status, full message ("" when none) and the kernel's
 * errno (0 when none applies). The message stays valid until the next failing call on this
 * thread. */
adreno_status adreno_last_error_status(void);
const char* adreno_last_error_message(void);
int adreno_last_error_errno(void);
/** The last failure's parts, as adreno::Error::operation() and detail() give them: what was being
 * done ("IOCTL_KGSL_GPUOBJ_ALLOC", "check arguments") and the object or field and what was wrong
 * with it ("device is NULL"). For a failure that is no adreno::Error, the C function's name and
 * the message. "" when there was no failure; valid as long as adreno_last_error_message(). */
const char* adreno_last_error_operation(void);
const char* adreno_last_error_detail(void);

/** The library's version (major, minor, patch; any pointer may be NULL) and as "major.minor.patch". */
void adreno_version(uint32_t* major, uint32_t* minor, uint32_t* patch);
const char* adreno_version_string(void);

/** How many handles are live — made by a call above and not yet released — of every type
 * together, in this process. A handle never released is never freed (nor is its GPU memory, nor
 * the device it keeps open): tests call this at the end to check that everything was released. */
size_t adreno_live_handle_count(void);

#define ADRENO_WAIT_FOREVER UINT64_MAX

/* ---- Handles --------------------------------------------------------------------------------- */

typedef struct adreno_device_t* adreno_device;
typedef struct adreno_buffer_t* adreno_buffer;       /**< a buffer, or a view (window) into one */
typedef struct adreno_program_t* adreno_program;
typedef struct adreno_arguments_t* adreno_arguments;
typedef struct adreno_queue_t* adreno_queue;
typedef struct adreno_signal_t* adreno_signal;
typedef struct adreno_graph_t* adreno_graph;

/* ---- Devices --------------------------------------------------------------------------------- */

typedef struct adreno_device_info {
  const char* backend;  /**< "kgsl" or "msm" */
  const char* node;     /**< device node, e.g. "/dev/kgsl-3d0" */
  const char* name;     /**< e.g. "Adreno 630" */
  bool is_virtual;      /**< a virtual kernel over the virtual GPU */
  bool has_va_range;    /**< va_start and va_size are what the kernel reports */
  uint32_t chip_id;     /**< e.g. 0x06030001 */
  uint32_t gpu_id;      /**< e.g. 630 */
  uint32_t priority_levels; /**< queue priorities are 0 (highest) .. priority_levels-1 */
  uint64_t gmem_size;
  uint64_t va_start;
  uint64_t va_size;
} adreno_device_info;

/** Opens the device `spec` names (`kgsl[:path]`, `msm[:/dev/dri/renderDN]`,
 * `virtual-kgsl[:model]`, `virtual-msm[:model]`); NULL: ADRENO_DEVICE, else probe the kernel. */
adreno_status adreno_device_open(const char* spec, adreno_device* device);
adreno_status adreno_device_release(adreno_device device);
/** The strings stay valid until the device handle is released. */
adreno_status adreno_device_get_info(adreno_device device, adreno_device_info* info);

/* ---- Buffers --------------------------------------------------------------------------------- */

typedef enum adreno_memory_type {
  ADRENO_MEMORY_WRITE_COMBINED = 0, /**< uncached, write-combining CPU mapping (default) */
  ADRENO_MEMORY_CACHED = 1,         /**< CPU-cached; flush before and invalidate after GPU use */
  ADRENO_MEMORY_CACHED_COHERENT = 2,/**< CPU-cached and IO-coherent */
  ADRENO_MEMORY_UNCACHED = 3        /**< strongly ordered (KGSL); write-combined on MSM */
} adreno_memory_type;

/** adreno_buffer_desc.flags */
enum {
  ADRENO_BUFFER_GPU_READ_ONLY = 1u << 0, /**< GPU writes to it fault */
  ADRENO_BUFFER_NO_CPU_VIEW = 1u << 1,   /**< not host-visible */
  ADRENO_BUFFER_EXPORTABLE = 1u << 2     /**< a kernel object of its own, so it can be exported */
};

typedef struct adreno_buffer_desc {
  uint64_t size;
  uint64_t alignment;         /**< power of two; 0 means 64 bytes */
  adreno_memory_type memory;
  uint32_t flags;             /**< ADRENO_BUFFER_* */
} adreno_buffer_desc;

typedef struct adreno_buffer_info {
  uint64_t offset;            /**< of a view in its buffer; 0 for a buffer */
  uint64_t size;
  uint64_t gpu_address;       /**< what the GPU sees; never the CPU pointer */
  adreno_memory_type memory;
  uint32_t flags;             /**< ADRENO_BUFFER_GPU_READ_ONLY, ADRENO_BUFFER_NO_CPU_VIEW */
  bool is_view;
} adreno_buffer_info;

adreno_status adreno_buffer_allocate(adreno_device device, const adreno_buffer_desc* desc, adreno_buffer* buffer);
/** Imports [offset, offset+size) of a dma-buf (size 0: to its end); the caller keeps `fd`. */
adreno_status adreno_buffer_import_dmabuf(adreno_device device, int fd, uint64_t offset, uint64_t size,
                                          adreno_buffer* buffer);
/** Exports a buffer allocated with ADRENO_BUFFER_EXPORTABLE (or imported) as a new dma-buf fd
 * the caller owns. KGSL refuses with ADRENO_UNSUPPORTED unless the memory came from a dma-heap. */
adreno_status adreno_buffer_export_dmabuf(adreno_buffer buffer, int* fd);
/** Makes `size` bytes at `pointer` usable by the GPU without copying (KGSL only). The memory
 * must stay allocated until the buffer is released and the GPU is done with it. */
adreno_status adreno_buffer_import_host_memory(adreno_device device, void* pointer, uint64_t size,
                                               adreno_buffer* buffer);
/** A window [offset, offset+size) into a buffer or view (relative to it); keeps the memory alive
 * and is accepted wherever a buffer is (except export). */
adreno_status adreno_buffer_view(adreno_buffer buffer, uint64_t offset, uint64_t size, adreno_buffer* view);
adreno_status adreno_buffer_release(adreno_buffer buffer);
adreno_status adreno_buffer_get_info(adreno_buffer buffer, adreno_buffer_info* info);
/** The CPU mapping of the buffer or view: ADRENO_UNSUPPORTED when it has none. */
adreno_status adreno_buffer_cpu_view(adreno_buffer buffer, void** data, size_t* size);
/** Cache maintenance for ADRENO_MEMORY_CACHED (a no-op otherwise) over [offset, offset+size) of
 * the buffer or view; size is clamped to its end (UINT64_MAX: all of it). */
adreno_status adreno_buffer_flush_for_gpu(adreno_buffer buffer, uint64_t offset, uint64_t size);
adreno_status adreno_buffer_invalidate_for_cpu(adreno_buffer buffer, uint64_t offset, uint64_t size);

/* ---- Programs -------------------------------------------------------------------------------- */

typedef enum adreno_wave_size {
  ADRENO_WAVE_SIZE_DEFAULT = 0, /**< in a launch: the program's; never a program's own */
  ADRENO_WAVE_SIZE_64 = 64,
  ADRENO_WAVE_SIZE_128 = 128
} adreno_wave_size;

typedef struct adreno_program_info {
  const char* name;          /**< valid until the program is released */
  adreno_wave_size wave_size;
  uint64_t code_address;     /**< GPU address of the code */
  uint32_t argument_count;
} adreno_program_info;

/** How ir3 assembly addresses half registers (SP_CS_CNTL_0 MERGEDREGS): merged, as Mesa's
 * assembler and computerator assemble for a6xx (hrN is half of r(N/2)), or split (a separate
 * half-register file). */
typedef enum adreno_register_mode { ADRENO_REGISTERS_MERGED = 0, ADRENO_REGISTERS_SPLIT = 1 } adreno_register_mode;

typedef struct adreno_assembly_options {
  /** First add the (sy)/(ss) waits and delay slots the code lacks (Mesa's a6xx scheduling
   * rules), so it can be written without counting them; code that has them loads as written. */
  bool legalize;
  adreno_register_mode registers;
} adreno_assembly_options;

/** ir3 assembly (Mesa's syntax plus computerator's @-directives); arguments are the @buf slots,
 * named "buf0", "buf1", ... `options` may be NULL: not legalized, merged registers.
 * ADRENO_MALFORMED's message starts with "line:column:". */
adreno_status adreno_program_from_ir3_assembly(adreno_device device, const char* source, size_t length,
                                               const adreno_assembly_options* options, adreno_program* program);
/** ir3 register ids are 4·register + component; this one means "not read by the program". */
#define ADRENO_UNUSED_REGID 0xfcu

/** What Mesa's ir3 compiler reports for one compute variant (see adreno::Ir3Metadata). */
typedef struct adreno_ir3_buffer_pointer {
  const char* name;     /**< may be NULL */
  uint32_t const_dword; /**< receives the low half of the address; the high half the next one */
} adreno_ir3_buffer_pointer;
typedef struct adreno_ir3_scalar {
  const char* name;     /**< may be NULL */
  uint32_t const_dword;
  uint32_t size_bytes;  /**< 1..16 */
} adreno_ir3_scalar;
typedef struct adreno_ir3_immediate {
  uint32_t const_dword;
  uint32_t value;
} adreno_ir3_immediate;
/** A buffer the program reaches as a storage buffer (computerator's `@buf`): the dispatch writes a
 * buffer descriptor into UAV slot `slot`, and its 64-bit address at `address_const_dword` too
 * when `has_address_const_dword`. */
typedef struct adreno_ir3_storage_buffer {
  const char* name;     /**< may be NULL */
  uint32_t slot;
  bool has_address_const_dword;
  uint32_t address_const_dword;
} adreno_ir3_storage_buffer;
typedef struct adreno_ir3_metadata {
  const char* name;
  uint32_t instrlen;          /**< in groups of 16 instructions */
  uint32_t constlen_vec4;
  int32_t max_reg;            /**< -1: none */
  int32_t max_half_reg;       /**< -1: none */
  bool merged_regs;
  adreno_wave_size wave_size; /**< ADRENO_WAVE_SIZE_64 or ADRENO_WAVE_SIZE_128 */
  uint32_t branch_stack;
  uint32_t work_group_id_regid; /**< ADRENO_UNUSED_REGID when not read */
  uint32_t local_id_regid;
  bool has_local_size_const_dword;
  uint32_t local_size_const_dword;
  /** In kernel-argument order: the buffers, then the scalars. */
  const adreno_ir3_buffer_pointer* buffers;
  size_t buffer_count;
  const adreno_ir3_scalar* scalars;
  size_t scalar_count;
  const adreno_ir3_immediate* immediates;
  size_t immediate_count;
  uint32_t private_bytes_per_fiber;
  bool private_per_wave;
  uint32_t shared_bytes;
  uint32_t fixed_local_size[3]; /**< 0: free */
  /** Mesa's compute driver params (struct ir3_driver_params_cs in ir3_shader.h: work-group
   * counts, work_dim, base group, subgroup size, local size, subgroup-id shift, work-group id):
   * the constant dword where the block starts and how many of its dwords the program reads
   * (num_driver_params, 1..16); 0 when it reads none. Every dispatch writes them. */
  uint32_t driver_params_const_dword;
  uint32_t driver_params_count;
  /** The storage-buffer arguments, after the scalars in argument order. */
  const adreno_ir3_storage_buffer* storage_buffers;
  size_t storage_buffer_count;
} adreno_ir3_metadata;

/** ir3 machine code (`dwords` little-endian dwords, with the compiler's padding) and the
 * compiler's metadata; every field is validated, errors name it. */
adreno_status adreno_program_from_ir3(adreno_device device, const uint32_t* code, size_t dwords,
                                      const adreno_ir3_metadata* metadata, adreno_program* program);
/** As adreno_program_from_ir3, with the metadata read from a JSON file of format
 * `ir3-a630-fixture/1` (ADRENO_MALFORMED names the key that is missing or out of range).
 * ADRENO_UNSUPPORTED when the JSON's compiler built the code for another GPU generation than the
 * device's (an a630 fixture on an a740). */
adreno_status adreno_program_from_ir3_json(adreno_device device, const uint32_t* code, size_t dwords,
                                           const char* metadata_json_path, adreno_program* program);
/** A fixture: `<name>.json` and the `<name>.code.bin` beside it. */
adreno_status adreno_program_from_ir3_fixture(adreno_device device, const char* json_path, adreno_program* program);
/** A Qualcomm OpenCL compiled binary. */
adreno_status adreno_program_from_qualcomm_binary(adreno_device device, const void* binary, size_t size,
                                                  adreno_program* program);
adreno_status adreno_program_release(adreno_program program);
adreno_status adreno_program_get_info(adreno_program program, adreno_program_info* info);
/** The index of the argument named `name`; ADRENO_NOT_FOUND when there is none. */
adreno_status adreno_program_argument_index(adreno_program program, const char* name, uint32_t* index);

/* ---- Arguments ------------------------------------------------------------------------------- */

typedef enum adreno_image_format {
  ADRENO_IMAGE_R32_UINT = 0,
  ADRENO_IMAGE_R32_FLOAT = 1,
  ADRENO_IMAGE_RGBA8_UNORM = 2,
  ADRENO_IMAGE_RGBA16_FLOAT = 3,
  ADRENO_IMAGE_RGBA32_FLOAT = 4,
  ADRENO_IMAGE_RGBA32_UINT = 5
} adreno_image_format;

/** Bytes per texel of `format`. */
adreno_status adreno_image_format_bytes_per_texel(adreno_image_format format, uint32_t* bytes);

/** A linear 2D image whose first texel is at the start of `memory` (a buffer or view), rows
 * `pitch_bytes` apart (a multiple of 64). */
typedef struct adreno_image_desc {
  adreno_buffer memory;
  adreno_image_format format;
  uint32_t width;
  uint32_t height;
  uint32_t pitch_bytes;
} adreno_image_desc;

typedef enum adreno_filter { ADRENO_FILTER_NEAREST = 0, ADRENO_FILTER_LINEAR = 1 } adreno_filter;
typedef enum adreno_address_mode {
  ADRENO_ADDRESS_REPEAT = 0,
  ADRENO_ADDRESS_MIRRORED_REPEAT = 1,
  ADRENO_ADDRESS_CLAMP_TO_EDGE = 2,
  ADRENO_ADDRESS_CLAMP_TO_BORDER = 3
} adreno_address_mode;

typedef struct adreno_sampler_desc {
  adreno_filter filter;
  adreno_address_mode address;
  bool normalized_coordinates; /**< false: coordinates in texels */
} adreno_sampler_desc;

/** Values for one program's arguments, by index (kernel order). Each setter checks the
 * argument's kind and that the value fits (ADRENO_INVALID_ARGUMENT naming the argument). */
adreno_status adreno_arguments_create(adreno_program program, adreno_arguments* arguments);
adreno_status adreno_arguments_release(adreno_arguments arguments);
/** A buffer or a view: its GPU address goes into the constant file. */
adreno_status adreno_arguments_set_buffer(adreno_arguments arguments, uint32_t index, adreno_buffer buffer);
/** A scalar: `size` bytes (at most the argument's size). */
adreno_status adreno_arguments_set_bytes(adreno_arguments arguments, uint32_t index, const void* data, size_t size);
adreno_status adreno_arguments_set_i8(adreno_arguments arguments, uint32_t index, int8_t value);
adreno_status adreno_arguments_set_u8(adreno_arguments arguments, uint32_t index, uint8_t value);
adreno_status adreno_arguments_set_i16(adreno_arguments arguments, uint32_t index, int16_t value);
adreno_status adreno_arguments_set_u16(adreno_arguments arguments, uint32_t index, uint16_t value);
adreno_status adreno_arguments_set_i32(adreno_arguments arguments, uint32_t index, int32_t value);
adreno_status adreno_arguments_set_u32(adreno_arguments arguments, uint32_t index, uint32_t value);
adreno_status adreno_arguments_set_i64(adreno_arguments arguments, uint32_t index, int64_t value);
adreno_status adreno_arguments_set_u64(adreno_arguments arguments, uint32_t index, uint64_t value);
adreno_status adreno_arguments_set_f32(adreno_arguments arguments, uint32_t index, float value);
adreno_status adreno_arguments_set_f64(adreno_arguments arguments, uint32_t index, double value);
adreno_status adreno_arguments_set_texture(adreno_arguments arguments, uint32_t index, const adreno_image_desc* image);
adreno_status adreno_arguments_set_storage_image(adreno_arguments arguments, uint32_t index,
                                                 const adreno_image_desc* image);
adreno_status adreno_arguments_set_sampler(adreno_arguments arguments, uint32_t index,
                                           const adreno_sampler_desc* sampler);

/* ---- Queues and signals ---------------------------------------------------------------------- */

/** One dispatch: `groups` work-groups of `local_size` invocations. */
typedef struct adreno_launch {
  uint32_t groups[3];
  uint32_t local_size[3];
  adreno_wave_size wave_size; /**< ADRENO_WAVE_SIZE_DEFAULT: the program's */
  /** The first work-group's id (vkCmdDispatchBase; OpenCL's global offset in groups), zero
   * initialised for none; base_group + groups must fit 32 bits on every axis. */
  uint32_t base_group[3];
} adreno_launch;

/** An indirect dispatch's shape: as adreno_launch, the group counts read by the GPU from memory. */
typedef struct adreno_indirect_launch {
  uint32_t local_size[3];
  adreno_wave_size wave_size; /**< ADRENO_WAVE_SIZE_DEFAULT: the program's */
} adreno_indirect_launch;

#define ADRENO_PRIORITY_DEFAULT (-1)

/** A 64-bit timeline value in GPU memory, written by the GPU and waited for by host or queues. */
adreno_status adreno_signal_create(adreno_device device, uint64_t initial, adreno_signal* signal);
adreno_status adreno_signal_release(adreno_signal signal);
adreno_status adreno_signal_value(adreno_signal signal, uint64_t* value);
adreno_status adreno_signal_set(adreno_signal signal, uint64_t value);
adreno_status adreno_signal_gpu_address(adreno_signal signal, uint64_t* gpu_address);
/** Waits until the value reaches `target`: ADRENO_TIMEOUT when it did not in time. */
adreno_status adreno_signal_wait(adreno_signal signal, uint64_t target, uint64_t timeout_ns);

/** A queue at `priority` (0 is the highest; ADRENO_PRIORITY_DEFAULT: the middle level). */
adreno_status adreno_queue_create(adreno_device device, int32_t priority, adreno_queue* queue);
/** Waits for the queue's work (a lost queue is not an error here), then destroys it; work still
 * held on the host for a signal never set is dropped. */
adreno_status adreno_queue_release(adreno_queue queue);
/** Recording; nothing reaches the GPU before adreno_queue_submit. See adreno/queue.hpp. */
adreno_status adreno_queue_dispatch(adreno_queue queue, adreno_program program, adreno_arguments arguments,
                                    const adreno_launch* launch);
/** As adreno_queue_dispatch over the group counts the GPU reads when it gets there: three uint32
 * (x, y, z) at the start of `groups` (a buffer or view of at least 12 bytes, 4-byte aligned),
 * typically written by an earlier dispatch (put a barrier between them). A Qualcomm binary is
 * ADRENO_UNSUPPORTED; counts whose global size leaves 32 bits lose the queue at its wait. */
adreno_status adreno_queue_dispatch_indirect(adreno_queue queue, adreno_program program, adreno_arguments arguments,
                                             adreno_buffer groups, const adreno_indirect_launch* launch);
adreno_status adreno_queue_barrier(adreno_queue queue);
adreno_status adreno_queue_signal(adreno_queue queue, adreno_signal signal, uint64_t value);
adreno_status adreno_queue_wait(adreno_queue queue, adreno_signal signal, uint64_t value);
/** Writes the 64-bit GPU always-on counter at the start of `destination` (a buffer or view). */
adreno_status adreno_queue_write_timestamp(adreno_queue queue, adreno_buffer destination);
/** Writes `count` dwords at the start of `destination` from the command processor. */
adreno_status adreno_queue_write(adreno_queue queue, adreno_buffer destination, const uint32_t* values,
                                 size_t count);
/** Hands the recorded work to the kernel, except work held on the host behind a wait for a value
 * nothing submitted writes yet (see adreno/queue.hpp); `fence` (may be NULL) gets its fence,
 * 0 when empty. */
adreno_status adreno_queue_submit(adreno_queue queue, uint64_t* fence);
/** ADRENO_TIMEOUT when the fence did not signal in time; ADRENO_DEVICE_LOST when the GPU faulted. */
adreno_status adreno_queue_wait_fence(adreno_queue queue, uint64_t fence, uint64_t timeout_ns);
/** Submits what is recorded and waits for all of it. */
adreno_status adreno_queue_finish(adreno_queue queue, uint64_t timeout_ns);

/* ---- Graphs ---------------------------------------------------------------------------------- */

typedef enum adreno_access { ADRENO_ACCESS_READ = 0, ADRENO_ACCESS_WRITE = 1, ADRENO_ACCESS_READ_WRITE = 2 } adreno_access;

/** adreno_graph_build options */
enum {
  ADRENO_GRAPH_DROP_DUPLICATES = 1u << 0, /**< drop a dispatch identical to an earlier one when it adds nothing */
  ADRENO_GRAPH_ORDER_BY_LEVEL = 1u << 1   /**< record dispatches by dependency level */
};

typedef struct adreno_graph_info {
  uint64_t dispatch_count;
  uint64_t levels;
  uint64_t barriers;
  uint64_t command_dwords;
} adreno_graph_info;

/** Work recorded once and replayed many times, patching only what changed (adreno/graph.hpp). */
adreno_status adreno_graph_create(adreno_device device, adreno_graph* graph);
adreno_status adreno_graph_release(adreno_graph graph);
/** `access[i]` says how argument i is used when it is a buffer; arguments past `access_count`
 * are read-write. `dispatch` (may be NULL) gets the dispatch's number for the setters below. */
adreno_status adreno_graph_dispatch(adreno_graph graph, adreno_program program, adreno_arguments arguments,
                                    const adreno_launch* launch, const adreno_access* access, size_t access_count,
                                    uint32_t* dispatch);
/** As adreno_graph_dispatch over the group counts each replay reads from `groups` (as
 * adreno_queue_dispatch_indirect: typically written by an earlier dispatch of the graph, which
 * puts a barrier between them). The graph holds that memory; adreno_graph_set_launch refuses
 * the dispatch. */
adreno_status adreno_graph_dispatch_indirect(adreno_graph graph, adreno_program program, adreno_arguments arguments,
                                             adreno_buffer groups, const adreno_indirect_launch* launch,
                                             const adreno_access* access, size_t access_count, uint32_t* dispatch);
/** `sync` (may be NULL) gets the signal's or wait's number for adreno_graph_set_value. */
adreno_status adreno_graph_signal(adreno_graph graph, adreno_signal signal, uint64_t value, uint32_t* sync);
adreno_status adreno_graph_wait(adreno_graph graph, adreno_signal signal, uint64_t value, uint32_t* sync);
/** Lays the graph out (`options`: ADRENO_GRAPH_*); recording afterwards is refused. */
adreno_status adreno_graph_build(adreno_graph graph, uint32_t options);
adreno_status adreno_graph_get_info(adreno_graph graph, adreno_graph_info* info);
adreno_status adreno_graph_set_buffer(adreno_graph graph, uint32_t dispatch, uint32_t argument, adreno_buffer buffer);
adreno_status adreno_graph_set_bytes(adreno_graph graph, uint32_t dispatch, uint32_t argument, const void* data,
                                     size_t size);
adreno_status adreno_graph_set_texture(adreno_graph graph, uint32_t dispatch, uint32_t argument,
                                       const adreno_image_desc* image);
adreno_status adreno_graph_set_storage_image(adreno_graph graph, uint32_t dispatch, uint32_t argument,
                                             const adreno_image_desc* image);
adreno_status adreno_graph_set_value(adreno_graph graph, uint32_t sync, uint64_t value);
/** Changes the grid of `dispatch` (checked as adreno_queue_dispatch checks a launch): the next
 * replay rewrites its launch and the driver params its program reads. */
adreno_status adreno_graph_set_launch(adreno_graph graph, uint32_t dispatch, const adreno_launch* launch);
/** Records a call of the graph into `queue`, after writing what changed since the last replay. */
adreno_status adreno_graph_replay(adreno_graph graph, adreno_queue queue);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* ADRENO_ADRENO_H */
