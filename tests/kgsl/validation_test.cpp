// [virtual-kernel] The virtual KGSL refuses malformed requests with the driver's errno. Each
// case speaks the UAPI directly through the seam and cites the check in qualcomm-linux/kgsl
// (commit 27cf0e4f402d) it mirrors.
#include "kgsl_test_support.h"

#include "kgsl/kgsl_abi.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <climits>
#include <random>

using namespace kgsl_test;
using namespace std::chrono_literals;

namespace {

constexpr unsigned kContextFlags = KGSL_CONTEXT_PREAMBLE | KGSL_CONTEXT_NO_GMEM_ALLOC;

/// One process with the KGSL node open, issuing raw ioctls.
struct RawKgsl {
  RawKgsl() : RawKgsl(std::make_shared<virt::VirtualSyscalls>()) {
    sys->add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node({}));
    fd = sys->open(virt::kVirtualKgslNode, O_RDWR);
  }
  /// A second process on the same seam (and so the same device).
  explicit RawKgsl(std::shared_ptr<virt::VirtualSyscalls> shared) : sys(std::move(shared)) {
    fd = sys->open(virt::kVirtualKgslNode, O_RDWR);
  }
  template <typename T>
  int ioctl(unsigned long request, T& param) {
    return sys->ioctl(fd, request, &param);
  }
  kgsl_gpuobj_alloc alloc(std::uint64_t size, std::uint64_t flags = 0) {
    kgsl_gpuobj_alloc param{};
    param.size = size;
    param.flags = flags;
    REQUIRE(ioctl(IOCTL_KGSL_GPUOBJ_ALLOC, param) == 0);
    return param;
  }
  int free(unsigned id) {
    kgsl_gpuobj_free param{};
    param.id = id;
    return ioctl(IOCTL_KGSL_GPUOBJ_FREE, param);
  }
  std::uint64_t gpuaddr(unsigned id) {
    kgsl_gpuobj_info info{};
    info.id = id;
    REQUIRE(ioctl(IOCTL_KGSL_GPUOBJ_INFO, info) == 0);
    return info.gpuaddr;
  }
  unsigned create_context(unsigned flags = kContextFlags) {
    kgsl_drawctxt_create param{};
    param.flags = flags;
    REQUIRE(ioctl(IOCTL_KGSL_DRAWCTXT_CREATE, param) == 0);
    return param.drawctxt_id;
  }
  int destroy_context(unsigned id) {
    kgsl_drawctxt_destroy param{};
    param.drawctxt_id = id;
    return ioctl(IOCTL_KGSL_DRAWCTXT_DESTROY, param);
  }
  int submit(unsigned ctx, std::vector<kgsl_command_object> cmds, unsigned* timestamp = nullptr) {
    kgsl_gpu_command param{};
    param.cmdlist = reinterpret_cast<std::uint64_t>(cmds.data());
    param.cmdsize = sizeof(kgsl_command_object);
    param.numcmds = static_cast<unsigned>(cmds.size());
    param.context_id = ctx;
    const int ret = ioctl(IOCTL_KGSL_GPU_COMMAND, param);
    if (timestamp != nullptr) *timestamp = param.timestamp;
    return ret;
  }
  int wait(unsigned ctx, unsigned timestamp, unsigned timeout_ms = 5000) {
    kgsl_device_waittimestamp_ctxtid param{ctx, timestamp, timeout_ms};
    return ioctl(IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, param);
  }
  /// IOCTL_KGSL_GET_FAULT_REPORT over `list` (faultnents and faultlist from it, or none).
  int fault_report(unsigned ctx, std::vector<kgsl_fault>* list, kgsl_fault_report* out = nullptr) {
    kgsl_fault_report param{};
    param.context_id = ctx;
    if (list != nullptr) {
      param.faultlist = reinterpret_cast<std::uint64_t>(list->data());
      param.faultnents = static_cast<unsigned>(list->size());
      param.faultsize = sizeof(kgsl_fault);
    }
    const int ret = ioctl(IOCTL_KGSL_GET_FAULT_REPORT, param);
    if (out != nullptr) *out = param;
    return ret;
  }
  /// Writes `dwords` into a fresh object and returns it (for IBs).
  kgsl_gpuobj_alloc commands(const std::vector<std::uint32_t>& dwords) {
    const auto obj = alloc(4096);
    auto mapped = sys->mmap(4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t{obj.id} << 12);
    REQUIRE(mapped.addr != nullptr);
    std::memcpy(mapped.addr, dwords.data(), dwords.size() * 4);
    REQUIRE(sys->munmap(mapped.addr, 4096) == 0);
    return obj;
  }
  /// Closes this process' descriptor; what the ledger still lists afterwards was leaked.
  std::vector<std::string> close_and_list_leaks() {
    sys->close(fd);
    fd = -1;
    return sys->leaks();
  }
  ~RawKgsl() {
    if (fd >= 0) sys->close(fd);
  }

  std::shared_ptr<virt::VirtualSyscalls> sys;
  int fd;
};

kgsl_command_object ib_at(std::uint64_t gpuaddr, std::uint64_t size) {
  kgsl_command_object cmd{};
  cmd.gpuaddr = gpuaddr;
  cmd.size = size;
  cmd.flags = KGSL_CMDLIST_IB;
  return cmd;
}

}  // namespace

TEST_CASE("GPUOBJ_ALLOC refuses size 0 and sizes above 4 GiB with EINVAL, secure memory with EOPNOTSUPP",
          "[virtual-kernel][kgsl]") {
  {
    RawKgsl p;
    for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{UINT_MAX} + 1}) {
      kgsl_gpuobj_alloc param{};
      param.size = size;
      CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_ALLOC, param) == -EINVAL);  // gpumem_alloc_entry
    }
    kgsl_gpuobj_alloc secure{};
    secure.size = 4096;
    secure.flags = KGSL_MEMFLAGS_SECURE;
    CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_ALLOC, secure) == -EOPNOTSUPP);  // check_and_warn_secured
    CHECK(p.close_and_list_leaks().empty());
  }
}

TEST_CASE("GPUOBJ_ALLOC rounds to pages, drops unknown flags, reports write-through as write-back",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  std::mt19937 rng(29);
  const std::uint64_t size = 1 + rng() % 100000;
  const std::uint64_t unknown = std::uint64_t{1} << 40;
  const auto obj = p.alloc(size, unknown | KGSL_MEMFLAGS_GPUREADONLY |
                                     (std::uint64_t{KGSL_CACHEMODE_WRITETHROUGH} << KGSL_CACHEMODE_SHIFT));
  CHECK(obj.size == (size + 4095) / 4096 * 4096);
  CHECK(obj.mmapsize == obj.size);
  CHECK(obj.id == 1);
  // Unknown bits are masked off; kgsl_filter_cachemode turns WRITETHROUGH into WRITEBACK; the
  // alignment field reports the page (2^12) that kgsl_memdesc_init enforces.
  CHECK(obj.flags == (KGSL_MEMFLAGS_GPUREADONLY | (std::uint64_t{KGSL_CACHEMODE_WRITEBACK} << KGSL_CACHEMODE_SHIFT) |
                      (std::uint64_t{12} << KGSL_MEMALIGN_SHIFT)));
  kgsl_gpuobj_info info{};
  info.id = obj.id;
  REQUIRE(p.ioctl(IOCTL_KGSL_GPUOBJ_INFO, info) == 0);
  CHECK(info.size == obj.size);
  CHECK(info.flags == obj.flags);
  CHECK(info.va_len == obj.size);
  CHECK(info.va_addr == 0);
  CHECK(p.free(obj.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("GPUOBJ_FREE and GPUOBJ_INFO refuse unknown ids and double frees with EINVAL", "[virtual-kernel][kgsl]") {
  RawKgsl p;
  const auto obj = p.alloc(4096);
  CHECK(p.free(obj.id + 1) == -EINVAL);  // kgsl_ioctl_gpuobj_free: kgsl_sharedmem_find_id failed
  kgsl_gpuobj_info zero{};
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_INFO, zero) == -EINVAL);  // kgsl_ioctl_gpuobj_info: id 0
  CHECK(p.free(obj.id) == 0);
  CHECK(p.free(obj.id) == -EINVAL);
  kgsl_gpuobj_info gone{};
  gone.id = obj.id;
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_INFO, gone) == -EINVAL);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("mmap takes the object id as offset and only the object's size: EINVAL, ERANGE otherwise",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  const auto obj = p.alloc(8192);
  // get_mmap_entry: no entry at that offset is -EINVAL, a length other than the size -ERANGE.
  CHECK(p.sys->mmap(8192, PROT_READ, MAP_SHARED, p.fd, off_t{obj.id + 1} << 12).error == EINVAL);
  CHECK(p.sys->mmap(4096, PROT_READ, MAP_SHARED, p.fd, off_t{obj.id} << 12).error == ERANGE);
  auto mapped = p.sys->mmap(8192, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, off_t{obj.id} << 12);
  REQUIRE(mapped.addr != nullptr);
  // The mapping keeps the entry (and its GPU mapping) alive after GPUOBJ_FREE, as the VMA's
  // reference does in the driver; the ledger shows it until it is unmapped.
  CHECK(p.free(obj.id) == 0);
  const auto leaks = p.sys->leaks();
  CHECK(std::count_if(leaks.begin(), leaks.end(),
                      [](const std::string& line) { return line.find("CPU mapping of mem entry 1") != std::string::npos; }) == 1);
  CHECK(p.sys->munmap(mapped.addr, 8192) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("DRAWCTXT_CREATE needs PREAMBLE and NO_GMEM_ALLOC (EINVAL) and gives an unset priority the medium level",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  for (unsigned flags : {0u, unsigned{KGSL_CONTEXT_PREAMBLE}, unsigned{KGSL_CONTEXT_NO_GMEM_ALLOC}}) {
    kgsl_drawctxt_create param{};
    param.flags = flags;
    CHECK(p.ioctl(IOCTL_KGSL_DRAWCTXT_CREATE, param) == -EINVAL);  // "legacy context switch not supported"
  }
  kgsl_drawctxt_create secure{};
  secure.flags = kContextFlags | KGSL_CONTEXT_SECURE;
  CHECK(p.ioctl(IOCTL_KGSL_DRAWCTXT_CREATE, secure) == -EOPNOTSUPP);
  kgsl_drawctxt_create param{};
  param.flags = kContextFlags;
  REQUIRE(p.ioctl(IOCTL_KGSL_DRAWCTXT_CREATE, param) == 0);
  CHECK(param.drawctxt_id == 1);
  // KGSL_CONTEXT_PRIORITY_MED is 8; per-context timestamps are always on.
  CHECK(param.flags == (kContextFlags | (8u << KGSL_CONTEXT_PRIORITY_SHIFT) | KGSL_CONTEXT_PER_CONTEXT_TS));
  CHECK(p.destroy_context(param.drawctxt_id) == 0);
  CHECK(p.destroy_context(param.drawctxt_id) == -EINVAL);  // kgsl_ioctl_drawctxt_destroy
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("context ids are global to the device, object ids are per process, and neither crosses processes",
          "[virtual-kernel][kgsl]") {
  RawKgsl first;
  RawKgsl second(first.sys);
  const unsigned a = first.create_context();
  const unsigned b = second.create_context();
  CHECK(a == 1);
  CHECK(b == 2);
  const auto obj_a = first.alloc(4096);
  const auto obj_b = second.alloc(4096);
  CHECK(obj_a.id == 1);
  CHECK(obj_b.id == 1);
  // kgsl_context_get_owner: another process' context does not exist for this one.
  CHECK(second.destroy_context(a) == -EINVAL);
  CHECK(second.wait(a, 0) == -EINVAL);
  CHECK(first.destroy_context(a) == 0);
  CHECK(second.destroy_context(b) == 0);
  CHECK(first.free(obj_a.id) == 0);
  CHECK(second.free(obj_b.id) == 0);
  second.close_and_list_leaks();
  CHECK(first.close_and_list_leaks().empty());
}

TEST_CASE("GPU_COMMAND validates its context, its list and each IB's size, alignment and VA range (EINVAL)",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  const unsigned ctx = p.create_context();
  const auto obj = p.alloc(4096);
  const std::uint64_t va = p.gpuaddr(obj.id);
  CHECK(p.submit(ctx + 1, {ib_at(va, 16)}) == -EINVAL);     // kgsl_context_get_owner
  CHECK(p.submit(ctx, {ib_at(va, 0)}) == -EINVAL);          // _verify_ib: size 0
  CHECK(p.submit(ctx, {ib_at(va, 0x400000)}) == -EINVAL);   // _verify_ib: over 0xFFFFF dwords
  CHECK(p.submit(ctx, {ib_at(va + 2, 16)}) == -EINVAL);     // _verify_ib: not dword aligned
  CHECK(p.submit(ctx, {ib_at(0x1000, 16)}) == -EINVAL);     // _verify_ib: outside the pagetable
  kgsl_command_object unflagged = ib_at(va, 16);
  unflagged.flags = KGSL_OBJLIST_MEMOBJ;
  CHECK(p.submit(ctx, {unflagged}) == -EINVAL);             // kgsl_drawobj_cmd_add_cmdlist: flags
  kgsl_gpu_command half{};                                  // _verify_input_list: count without list
  half.numcmds = 1;
  half.context_id = ctx;
  CHECK(p.ioctl(IOCTL_KGSL_GPU_COMMAND, half) == -EINVAL);
  kgsl_gpu_command too_many{};                              // _process_command_input: > KGSL_MAX_NUMIBS
  too_many.numcmds = 2001;
  too_many.context_id = ctx;
  CHECK(p.ioctl(IOCTL_KGSL_GPU_COMMAND, too_many) == -EINVAL);
  CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.free(obj.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("an IB in a hole of the pagetable is accepted, page-faults, reads as an illegal packet and invalidates the context",
          "[virtual-kernel][kgsl]") {
  // The driver checks the VA range only, not the mem entries (adreno.c _verify_ib). The CP then
  // fetches the IB through the IOMMU: a page fault, which the default policy only logs; what the
  // CP receives instead of packets is no packet, a CP error that recovery ends by invalidating
  // the context. (What the CP really reads from a faulting fetch is not documented; any non-PM4
  // there is an opcode error.)
  RawKgsl p;
  const unsigned ctx = p.create_context(kContextFlags | KGSL_CONTEXT_FAULT_INFO);
  const auto obj = p.alloc(4096);
  const std::uint64_t hole = p.gpuaddr(obj.id) + (1ull << 30);  // 1 GiB past the object
  unsigned timestamp = 0;
  REQUIRE(p.submit(ctx, {ib_at(hole, 16)}, &timestamp) == 0);
  CHECK(timestamp == 1);
  CHECK(p.wait(ctx, timestamp) == -EDEADLK);                // adreno_waittimestamp
  CHECK(p.submit(ctx, {ib_at(p.gpuaddr(obj.id), 4)}) == -EDEADLK);  // kgsl_check_context_state
  std::uint32_t status = ctx;
  kgsl_device_getproperty prop{KGSL_PROP_GPU_RESET_STAT, &status, sizeof status};
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, prop) == 0);
  CHECK(status == KGSL_CTX_STAT_GUILTY_CONTEXT_RESET_EXT);
  status = ctx;
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, prop) == 0);
  CHECK(status == KGSL_CTX_STAT_NO_ERROR);                  // kgsl_prop_gpu_reset_stat clears it
  // The fetch's page fault is in the context's report: one READ TRANSLATION fault at the IB.
  std::vector<kgsl_fault> types(KGSL_FAULT_TYPE_MAX);
  REQUIRE(p.fault_report(ctx, &types) == 0);
  REQUIRE(types[0].type == KGSL_FAULT_TYPE_PAGEFAULT);
  REQUIRE(types[0].count == 1);
  kgsl_pagefault_report report{};
  types[0].fault = reinterpret_cast<std::uint64_t>(&report);
  types[0].size = sizeof report;
  REQUIRE(p.fault_report(ctx, &types) == 0);
  CHECK(report.fault_addr == hole);
  CHECK(report.fault_type == (KGSL_PAGEFAULT_TYPE_TRANSLATION | KGSL_PAGEFAULT_TYPE_READ));
  CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.free(obj.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("a page fault alone retires its timestamp, resets nothing and leaves no report to give",
          "[virtual-kernel][kgsl]") {
  // kgsl_iommu_fault_handler without KGSL_FT_PAGEFAULT_GPUHALT_ENABLE logs, keeps the fault for a
  // FAULT_INFO context and returns 0: no recovery. GET_FAULT_REPORT is only for invalidated
  // contexts (kgsl_ioctl_get_fault_report).
  RawKgsl p;
  const unsigned ctx = p.create_context(kContextFlags | KGSL_CONTEXT_FAULT_INFO);
  const auto data = p.alloc(4096);
  const GpuAddress hole(p.gpuaddr(data.id) + (1ull << 30));
  const auto cmds = p.commands(concat({mem_write(hole, {1}), mem_write(GpuAddress(p.gpuaddr(data.id)), {2})}));
  unsigned timestamp = 0;
  REQUIRE(p.submit(ctx, {ib_at(p.gpuaddr(cmds.id), 4 * 8)}, &timestamp) == 0);
  CHECK(p.wait(ctx, timestamp) == 0);
  std::uint32_t status = ctx;
  kgsl_device_getproperty prop{KGSL_PROP_GPU_RESET_STAT, &status, sizeof status};
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, prop) == 0);
  CHECK(status == KGSL_CTX_STAT_NO_ERROR);
  CHECK(p.fault_report(ctx, nullptr) == -EINVAL);
  // The context still runs work.
  REQUIRE(p.submit(ctx, {ib_at(p.gpuaddr(cmds.id), 4 * 8)}, &timestamp) == 0);
  CHECK(timestamp == 2);
  CHECK(p.wait(ctx, timestamp) == 0);
  CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.free(cmds.id) == 0);
  CHECK(p.free(data.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("GET_FAULT_REPORT follows the driver's protocol and refuses contexts without FAULT_INFO",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  const unsigned with = p.create_context(kContextFlags | KGSL_CONTEXT_FAULT_INFO);
  const unsigned without = p.create_context();
  const auto data = p.alloc(4096);
  // Three page faults on three pages, then a CP error, on both contexts.
  const std::uint64_t hole = p.gpuaddr(data.id) + (1ull << 30);
  const auto cmds = p.commands(concat({mem_write(GpuAddress(hole + 0x2010), {1}), mem_write(GpuAddress(hole + 4), {2}),
                                       mem_write(GpuAddress(hole + 0x1000), {3}), illegal_packet()}));
  for (unsigned ctx : {with, without}) {
    unsigned timestamp = 0;
    REQUIRE(p.submit(ctx, {ib_at(p.gpuaddr(cmds.id), 4 * 13)}, &timestamp) == 0);
    CHECK(p.wait(ctx, timestamp) == -EDEADLK);
  }
  std::vector<kgsl_fault> types;
  CHECK(p.fault_report(without, &types) == -EINVAL);
  CHECK(p.fault_report(12345, &types) == -EINVAL);
  // No list: how many fault types there are.
  kgsl_fault_report answer{};
  REQUIRE(p.fault_report(with, nullptr, &answer) == 0);
  CHECK(answer.faultnents == KGSL_FAULT_TYPE_MAX);
  // A zeroed list: the count per type.
  types.assign(answer.faultnents, kgsl_fault{});
  REQUIRE(p.fault_report(with, &types) == 0);
  CHECK(types[0].type == KGSL_FAULT_TYPE_PAGEFAULT);
  CHECK(types[0].count == 3);
  CHECK(types[1].count == 0);
  // Room for two reports: the first two, one per page by address (a submission reports each
  // faulting page once).
  std::vector<kgsl_pagefault_report> reports(2);
  types[0].fault = reinterpret_cast<std::uint64_t>(reports.data());
  types[0].count = 2;
  types[0].size = sizeof(kgsl_pagefault_report);
  REQUIRE(p.fault_report(with, &types) == 0);
  CHECK(reports[0].fault_addr == hole + 4);
  CHECK(reports[0].fault_type == (KGSL_PAGEFAULT_TYPE_TRANSLATION | KGSL_PAGEFAULT_TYPE_WRITE));
  CHECK(reports[1].fault_addr == hole + 0x1000);
  // An entry naming an unknown type is refused.
  types[1].type = KGSL_FAULT_TYPE_MAX;
  types[1].fault = 1;
  CHECK(p.fault_report(with, &types) == -EINVAL);
  for (unsigned ctx : {with, without}) CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.free(cmds.id) == 0);
  CHECK(p.free(data.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("WAITTIMESTAMP refuses a timestamp never issued (EINVAL) and times out with ETIMEDOUT",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  const unsigned ctx = p.create_context();
  const auto obj = p.alloc(4096);
  CHECK(p.wait(ctx, 1) == -EINVAL);  // kgsl_add_event: beyond the queued timestamp
  const std::uint64_t va = p.gpuaddr(obj.id);
  auto mapped = p.sys->mmap(4096, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, off_t{obj.id} << 12);
  REQUIRE(mapped.addr != nullptr);
  const auto ib = wait_memory_equal(GpuAddress(va + 2048), 7);
  std::memcpy(mapped.addr, ib.data(), ib.size() * 4);
  unsigned timestamp = 0;
  REQUIRE(p.submit(ctx, {ib_at(va, ib.size() * 4)}, &timestamp) == 0);
  CHECK(p.wait(ctx, timestamp, 10) == -ETIMEDOUT);
  CHECK(p.wait(ctx, timestamp + 1) == -EINVAL);
  const std::uint32_t seven = 7;
  std::memcpy(static_cast<std::byte*>(mapped.addr) + 2048, &seven, 4);
  CHECK(p.wait(ctx, timestamp) == 0);
  CHECK(p.wait(ctx, timestamp) == 0);  // a retired timestamp stays retired
  CHECK(p.sys->munmap(mapped.addr, 4096) == 0);
  CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.free(obj.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("GETPROPERTY: DEVICE_INFO copies what fits, GPU_RESET_STAT wants a u32 (EINVAL), unknown is ENODEV",
          "[virtual-kernel][kgsl]") {
  RawKgsl p;
  kgsl_devinfo info{};
  kgsl_device_getproperty prop{KGSL_PROP_DEVICE_INFO, &info, sizeof info};
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, prop) == 0);
  CHECK(info.device_id == 1);
  CHECK(info.chip_id == 0x06030001);
  CHECK(info.mmu_enabled == 1);
  CHECK(info.gpu_id == 0);  // adreno_prop_device_info leaves it unset
  CHECK(info.gmem_sizebytes == 1024 * 1024);
  // copy_prop copies min(sizebytes, sizeof): a short buffer gets a prefix, nothing more.
  std::uint32_t prefix[3] = {0, 0, 0xabcdef01};
  kgsl_device_getproperty short_prop{KGSL_PROP_DEVICE_INFO, prefix, 8};
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, short_prop) == 0);
  CHECK(prefix[0] == 1);
  CHECK(prefix[1] == 0x06030001);
  CHECK(prefix[2] == 0xabcdef01);
  // Found by fuzz/kernel_ioctls: no buffer and size 0 copies nothing and succeeds (copy_prop
  // checks nothing else); the virtual node passed the null pointer to memcpy, which UBSan
  // (the sanitizer build of this suite) reports.
  kgsl_device_getproperty empty_prop{KGSL_PROP_DEVICE_INFO, nullptr, 0};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, empty_prop) == 0);

  const unsigned ctx = p.create_context();
  std::uint64_t wide = ctx;
  kgsl_device_getproperty reset{KGSL_PROP_GPU_RESET_STAT, &wide, sizeof wide};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, reset) == -EINVAL);
  std::uint32_t other = ctx + 1;
  kgsl_device_getproperty unknown_ctx{KGSL_PROP_GPU_RESET_STAT, &other, sizeof other};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, unknown_ctx) == -EINVAL);
  std::uint32_t value = 0;
  kgsl_device_getproperty unknown{0x7f, &value, sizeof value};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, unknown) == -ENODEV);  // adreno_getproperty
  CHECK(p.destroy_context(ctx) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("the node is a character device and unknown ioctls are ENOTTY", "[virtual-kernel][kgsl]") {
  RawKgsl p;
  struct stat st {};
  REQUIRE(p.sys->fstat(p.fd, &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(minor(st.st_rdev) == 0);
  int dummy = 0;
  CHECK(p.sys->ioctl(p.fd, _IOWR(KGSL_IOC_TYPE, 0x7e, int), &dummy) == -ENOTTY);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("a process that closes with live contexts and objects shows each in the ledger",
          "[virtual-kernel][kgsl]") {
  auto sys = std::make_shared<virt::VirtualSyscalls>();
  sys->add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node({}));
  void* addr = nullptr;
  {
    RawKgsl p(sys);
    p.create_context();
    const auto obj = p.alloc(4096);
    addr = p.sys->mmap(4096, PROT_READ, MAP_SHARED, p.fd, off_t{obj.id} << 12).addr;
    REQUIRE(addr != nullptr);
  }
  // The mapping keeps the file alive after its descriptor closed, as a VMA keeps a struct file.
  char mapping[64];
  std::snprintf(mapping, sizeof mapping, "CPU mapping at %p (4096 bytes)", addr);
  CHECK(sys->leaks() == std::vector<std::string>{mapping});
  // Once unmapped, the file is released holding a context and an object: both are leaks.
  CHECK(sys->munmap(addr, 4096) == 0);
  auto leaks = sys->leaks();
  std::sort(leaks.begin(), leaks.end());
  REQUIRE(leaks.size() == 2);
  CHECK(leaks[0] == "(unmapped) (closed): draw context 1");
  CHECK(leaks[1].rfind("(unmapped) (closed): mem entry 1 (4096 bytes at GPU 0x", 0) == 0);
}

TEST_CASE("a process holds at most 201 draw contexts, the next is ENOSPC", "[virtual-kernel][kgsl]") {
  // kgsl_context_init refuses once the process' count exceeds KGSL_MAX_CONTEXTS_PER_PROC (200);
  // the check runs before the count goes up, so the 201st context is still granted.
  RawKgsl p;
  std::vector<unsigned> ids;
  for (int i = 0; i < 201; ++i) ids.push_back(p.create_context());
  kgsl_drawctxt_create param{};
  param.flags = kContextFlags;
  CHECK(p.ioctl(IOCTL_KGSL_DRAWCTXT_CREATE, param) == -ENOSPC);
  // Another process is not limited by this one's contexts.
  RawKgsl other(p.sys);
  const unsigned theirs = other.create_context();
  CHECK(std::find(ids.begin(), ids.end(), theirs) == ids.end());
  CHECK(other.destroy_context(theirs) == 0);
  for (unsigned id : ids) CHECK(p.destroy_context(id) == 0);
  other.close_and_list_leaks();
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("null user pointers are EFAULT, as is a longer user struct with bytes past the kernel's", "[virtual-kernel][kgsl]") {
  RawKgsl p;
  // kgsl_ioctl.c kgsl_ioctl_copy_in: copy_from_user of the ioctl argument fails → -EFAULT.
  CHECK(p.sys->ioctl(p.fd, IOCTL_KGSL_GPUOBJ_ALLOC, nullptr) == -EFAULT);
  CHECK(p.sys->ioctl(p.fd, IOCTL_KGSL_DRAWCTXT_CREATE, nullptr) == -EFAULT);
  CHECK(p.sys->ioctl(p.fd, IOCTL_KGSL_GPU_COMMAND, nullptr) == -EFAULT);

  // Properties with a NULL value: adreno.c copy_prop (DEVICE_INFO) and kgsl.c
  // kgsl_get_gpu_va64_size fail their copy_to_user, kgsl.c kgsl_prop_gpu_reset_stat its
  // copy_from_user → -EFAULT.
  kgsl_device_getproperty property{KGSL_PROP_DEVICE_INFO, nullptr, sizeof(kgsl_devinfo)};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, property) == -EFAULT);
  property = {KGSL_PROP_GPU_RESET_STAT, nullptr, 4};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, property) == -EFAULT);
  property = {KGSL_PROP_GPU_VA64_SIZE, nullptr, 8};
  CHECK(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, property) == -EFAULT);

  // kgsl.c _gpuobj_map_dma_buf: copy_struct_from_user of the dma-buf description fails → -EFAULT,
  // for a NULL priv and for a priv_len longer than the struct with a nonzero byte past it
  // (copy_struct_from_user's -E2BIG, which the driver reports as -EFAULT). Zero bytes past it are
  // accepted: the fd -1 is then what is refused (buf.fd < 0 → -EINVAL).
  kgsl_gpuobj_import import{0, sizeof(kgsl_gpuobj_import_dma_buf), 0, KGSL_USER_MEM_TYPE_DMABUF, 0};
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_IMPORT, import) == -EFAULT);
  struct {
    kgsl_gpuobj_import_dma_buf buf;
    std::uint32_t tail;
  } longer{{-1}, 1};
  import.priv = reinterpret_cast<std::uint64_t>(&longer);
  import.priv_len = sizeof longer;
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_IMPORT, import) == -EFAULT);
  longer.tail = 0;
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_IMPORT, import) == -EINVAL);

  // GPU_COMMAND's lists: kgsl_drawobj.c kgsl_drawobj_cmd_add_cmdlist copies each command object
  // with copy_struct_from_user → -EFAULT for bytes past the kernel's struct;
  // kgsl_drawobj_sync_add_synclist → drawobj_add_sync_timestamp_from_user (its
  // copy_struct_from_user of the sync point's priv) → -EFAULT for a NULL priv.
  const unsigned context = p.create_context();
  const kgsl_gpuobj_alloc ib = p.alloc(4096);
  struct {
    kgsl_command_object object;
    std::uint32_t tail;
  } long_object{{0, p.gpuaddr(ib.id), 8, KGSL_CMDLIST_IB, ib.id}, 7};
  kgsl_gpu_command command{};
  command.cmdlist = reinterpret_cast<std::uint64_t>(&long_object);
  command.cmdsize = sizeof long_object;
  command.numcmds = 1;
  command.context_id = context;
  CHECK(p.ioctl(IOCTL_KGSL_GPU_COMMAND, command) == -EFAULT);
  kgsl_command_syncpoint sync{0, sizeof(kgsl_cmd_syncpoint_timestamp), KGSL_CMD_SYNCPOINT_TYPE_TIMESTAMP};
  command = kgsl_gpu_command{};
  command.flags = KGSL_CMDBATCH_SYNC;
  command.synclist = reinterpret_cast<std::uint64_t>(&sync);
  command.syncsize = sizeof sync;
  command.numsyncs = 1;
  command.context_id = context;
  CHECK(p.ioctl(IOCTL_KGSL_GPU_COMMAND, command) == -EFAULT);

  CHECK(p.destroy_context(context) == 0);
  CHECK(p.free(ib.id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}

TEST_CASE("a process that used up its GPU address range gets ENOMEM, and room again once it frees", "[virtual-kernel][kgsl]") {
  // The 64-bit range is KGSL_IOMMU_VA_BASE64..KGSL_IOMMU_VA_END64, 256 GiB (KGSL_PROP_GPU_VA64_SIZE);
  // allocations of at most 4 GiB each (kgsl.c gpumem_alloc_entry: "only allow allocations up to
  // 4G") fill it,
  // then kgsl_iommu.c get_gpuaddr finds no unmapped area → -ENOMEM. The pages are sparse
  // memory: nothing is touched.
  RawKgsl p;
  std::uint64_t va_size = 0;
  kgsl_device_getproperty property{KGSL_PROP_GPU_VA64_SIZE, &va_size, sizeof va_size};
  REQUIRE(p.ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, property) == 0);
  CHECK(va_size == 256ull << 30);
  constexpr std::uint64_t kFourGiB = 4ull << 30;
  std::vector<unsigned> ids;
  kgsl_gpuobj_alloc param{};
  int ret = 0;
  while (ids.size() <= va_size / kFourGiB) {
    param = kgsl_gpuobj_alloc{};
    param.size = kFourGiB - 4096;
    ret = p.ioctl(IOCTL_KGSL_GPUOBJ_ALLOC, param);
    if (ret != 0) break;
    ids.push_back(param.id);
  }
  CHECK(ret == -ENOMEM);
  CHECK(ids.size() >= va_size / kFourGiB - 1);  // the range fits 64 of them, less what it already holds
  CHECK(ids.size() <= va_size / kFourGiB);
  REQUIRE(!ids.empty());
  CHECK(p.free(ids.back()) == 0);
  ids.pop_back();
  param = kgsl_gpuobj_alloc{};
  param.size = kFourGiB - 4096;
  CHECK(p.ioctl(IOCTL_KGSL_GPUOBJ_ALLOC, param) == 0);
  ids.push_back(param.id);
  for (unsigned id : ids) CHECK(p.free(id) == 0);
  CHECK(p.close_and_list_leaks().empty());
}
