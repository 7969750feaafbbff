// The test kit: run an application's GPU code in its own unit tests on a virtual Adreno, in
// process, on any Linux host. A VirtualDevice is a real adreno::Device over the virtual KGSL
// device or the virtual msm node; the test makes the kernel fail where it chooses (the Nth
// allocation out of memory, the second submission hanging, a page fault, a dma-buf import
// refused) and then inspects what reached the kernel: the live kernel objects, every kernel call
// and every submission. Nothing here depends on a test framework: calls throw adreno::Error on
// misuse and return plain values to assert on. Link adreno::testing: a component of the adreno
// package, not a library of its own — the kit is built into libadreno.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adreno::testing {

/// Which kernel driver the virtual device imitates.
enum class Driver { kgsl, msm };

/// The virtual GPU's timing-hazard check, for a shader that reads a register before the pipeline
/// delivers it (a missing (sy)/(ss) wait or delay slot). on: a shader fault, which loses the
/// dispatch's queue (Error(device_lost) at its wait); warn: each hazard is logged on stderr once
/// per queue and the dispatch runs on; off: no check — as on hardware, which silently computes
/// with stale values. exhaustive: as on, but each instruction is checked as it runs also in
/// programs the static checker proved free of hazards, which on and warn run unchecked (a
/// cross-check of that proof, slower). from_environment: what ADRENO_VIRTUAL_HAZARDS
/// (on|warn|off|exhaustive, default on) says when the device opens.
enum class HazardCheck { from_environment, on, warn, off, exhaustive };

struct VirtualDeviceOptions {
  Driver driver = Driver::kgsl;
  /// GPU model: "a630" (the default when empty), "a640", "a650", "a660", "a730".
  std::string model{};
  /// Bytes of kernel allocations that may be alive at once; an allocation past it fails with
  /// ENOMEM, as the driver's page allocation would. Imported memory is not counted.
  std::optional<std::uint64_t> memory_limit{};
  /// Queue priority levels the kernel reports. MSM: 3 per GPU ring (3: one ring, as a630; 12:
  /// four). KGSL reports no count (the library offers its fixed 15 levels): leave it unset.
  std::optional<unsigned> priority_levels{};
  /// How long the hang detector waits before it declares a submission hung.
  std::chrono::milliseconds hang_timeout{100};
  HazardCheck hazards = HazardCheck::from_environment;
  /// What the GPU's always-on counter (CP_ALWAYS_ON_COUNTER, Queue::write_timestamp's clock)
  /// reads when the device opens; it then counts on at 19.2 MHz. Unset: it counts from the
  /// host's boot, as hardware's from power-up. A start just below 2^32 puts timestamps on both
  /// sides of the carry into the high dword.
  std::optional<std::uint64_t> always_on_counter_start{};
  /// The kernel's PAGE_SIZE: 4096 (the default) or 16384, as arm64 kernels built with 16 KiB
  /// pages have it. Kernel objects are whole pages and KGSL maps object N at N pages.
  std::optional<std::uint64_t> page_size{};
};

/// A kernel operation, named the same on both drivers (the ioctl behind each is in to_string's
/// comment and in Call::name). A fault plan for an operation that stands for several ioctls
/// (MSM's query) counts and fails the calls of all of them.
enum class Operation {
  create_context,      ///< KGSL DRAWCTXT_CREATE · MSM SUBMITQUEUE_NEW
  destroy_context,     ///< KGSL DRAWCTXT_DESTROY · MSM SUBMITQUEUE_CLOSE
  alloc,               ///< KGSL GPUOBJ_ALLOC · MSM GEM_NEW
  free,                ///< KGSL GPUOBJ_FREE · MSM GEM_CLOSE
  object_info,         ///< KGSL GPUOBJ_INFO · MSM GEM_INFO
  import_dmabuf,       ///< KGSL GPUOBJ_IMPORT of a dma-buf · MSM PRIME_FD_TO_HANDLE
  import_host_memory,  ///< KGSL GPUOBJ_IMPORT of user memory · (none on MSM)
  export_dmabuf,       ///< (none on KGSL) · MSM PRIME_HANDLE_TO_FD
  sync_dmabuf,         ///< KGSL DMA_BUF_IOCTL_SYNC on an imported dma-buf's descriptor · (none on MSM)
  submit,              ///< KGSL GPU_COMMAND · MSM GEM_SUBMIT
  wait,                ///< KGSL DEVICE_WAITTIMESTAMP_CTXTID · MSM WAIT_FENCE
  reset_status,        ///< KGSL GETPROPERTY(GPU_RESET_STAT) · MSM SUBMITQUEUE_QUERY
  query,               ///< KGSL other GETPROPERTY, GET_FAULT_REPORT · MSM GET_PARAM, DRM VERSION
  sync_object,         ///< (none on KGSL) · MSM DRM SYNCOBJ_CREATE, SYNCOBJ_DESTROY (submission fences)
  map,                 ///< mmap() of a buffer object
  open,                ///< open() of the device node (logged only)
  close,               ///< close() of one of its descriptors (logged only)
  unmap,               ///< munmap() of a buffer's mapping (logged only)
};
const char* to_string(Operation operation) noexcept;

/// One call that reached the virtual kernel.
struct Call {
  Operation operation;
  std::string name;       ///< the ioctl ("IOCTL_KGSL_GPUOBJ_ALLOC") or system call ("mmap")
  std::string arguments;  ///< the ones that matter, "size=4096 flags=0x..."
  std::uint64_t object = 0;  ///< the buffer or context it made or named (id, GEM handle), 0: none
  std::uint64_t size = 0;    ///< bytes, where it has a size
  int error = 0;             ///< 0: it succeeded; else the errno the kernel returned
  bool injected = false;     ///< the failure came from the fault plan
};

/// One indirect buffer of a submission.
struct Ib {
  std::uint64_t object;  ///< its buffer's id / GEM handle
  std::uint64_t gpu_address;
  std::uint32_t dwords;
};

/// One entry of a submission's buffer table: what the kernel was told the GPU uses. MSM lists
/// every buffer object (the driver pins and fences those); KGSL's table (its object list) is
/// empty, since KGSL maps every buffer of the process for its whole life.
struct TableEntry {
  std::uint64_t object;
  bool write;
};

/// A buffer as the kernel knows it.
struct KernelObjectRef {
  std::uint64_t object;  ///< KGSL mem entry id / MSM GEM handle
  std::uint64_t gpu_address;
  std::uint64_t size;
};
/// The kernel object that holds `buffer` (small buffers share one).
KernelObjectRef kernel_object_of(const Buffer& buffer);

struct Submission {
  std::uint64_t context;  ///< KGSL draw context / MSM submitqueue id
  std::uint64_t fence;    ///< KGSL timestamp / MSM fence; 0 when it failed
  int error = 0;          ///< 0, or the errno the submission failed with
  std::vector<Ib> ibs;
  std::vector<TableEntry> table;

  /// Whether `buffer`'s kernel object is in the table.
  bool lists(const Buffer& buffer) const;
};

/// A live kernel object of the ledger.
struct KernelObject {
  enum class Kind { buffer, mapping, context, descriptor, sync_object };
  Kind kind;
  std::uint64_t id;       ///< buffer id / GEM handle, context or submitqueue id, fd, MSM syncobj handle
  std::uint64_t size;     ///< buffers, mappings
  std::uint64_t flags;    ///< buffers: the driver's flags; contexts: flags (KGSL) or priority (MSM)
  std::uint64_t address;  ///< buffers: GPU address; mappings: CPU address
  std::string description;
};

/// A GPU fault the virtual device's rings reported.
struct GpuFault {
  enum class Kind { page_fault, cp_error, hang, shader_error };
  Kind kind;
  std::string timeline;     ///< "context 1" (KGSL) / "submitqueue 1" (MSM)
  std::uint64_t submission;  ///< its sequence number on that timeline (1, 2, ...)
  std::uint64_t address;     ///< the faulting GPU address (page fault) or offending packet's
  std::string message;
};

class VirtualDevice {
 public:
  /// Opens a virtual device; throws adreno::Error(invalid_argument / unsupported) for options it
  /// cannot honour.
  explicit VirtualDevice(const VirtualDeviceOptions& options = {});
  VirtualDevice(VirtualDevice&&) noexcept;
  VirtualDevice& operator=(VirtualDevice&&) noexcept;
  ~VirtualDevice();

  /// The device to hand to the code under test. Throws after close().
  Device& device();

  // --- the fault plan: set and cleared at run time; counts start when a fault is planned ---

  /// The `nth` (1-based) call of `operation` from now fails with `error`.
  void fail_call(Operation operation, int error, unsigned nth = 1);
  /// Every call of `operation` fails with `error` until clear_faults(). Not EINTR or EAGAIN:
  /// interrupted calls are asked again (as libdrm's drmIoctl does), so the call would never end.
  void fail_every_call(Operation operation, int error);
  /// Each call of `operation` fails with probability `fraction`, drawn from a generator seeded
  /// with `seed` (the same calls fail on every run).
  void fail_random_calls(Operation operation, double fraction, std::uint64_t seed, int error);
  /// The `nth` submission the kernel accepts from now on hangs: the hang detector fires after
  /// hang_timeout, the context is reset and reported guilty.
  void hang_submission(unsigned nth = 1);
  /// The `nth` submission the kernel accepts from now on keeps its ring busy, without the hang
  /// detector firing (as a long dispatch would), until end_stalls(); then it runs. For tests that
  /// need work in flight: a wait for a signal the host sets holds the work on the host instead.
  void stall_submission(unsigned nth = 1);
  /// Lets every stalled submission run; later stall_submission() calls stall again.
  void end_stalls();
  /// The `nth` submission the kernel accepts from now on page-faults at `gpu_address` (a read),
  /// then runs. What follows is the drivers' default page-fault behaviour: the fault is logged
  /// (faults()), the submission retires normally and the context stays usable — the
  /// application sees nothing, as on hardware.
  void page_fault_submission(std::uint64_t gpu_address, unsigned nth = 1);
  /// Cancels every planned failure and fault that has not happened yet.
  void clear_faults();

  // --- inspection ---

  /// The kernel objects alive now: buffers, CPU mappings, contexts, open descriptors.
  std::vector<KernelObject> ledger() const;
  /// Every call on the device node, and every DMA_BUF_IOCTL_SYNC, since open (or clear_log()),
  /// in order.
  std::vector<Call> calls() const;
  std::vector<Call> calls(Operation operation) const;
  /// Every submission (accepted or refused) since open (or clear_log()), in order.
  std::vector<Submission> submissions() const;
  /// Every GPU fault since open (not cleared by clear_log()).
  std::vector<GpuFault> faults() const;
  void clear_log();

  /// Closes the device — the code under test must have dropped every object made from it —
  /// and returns what the kernel still held: empty when nothing leaked.
  std::vector<std::string> close();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adreno::testing
