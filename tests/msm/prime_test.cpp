// [virtual-kernel] dma-buf import/export through PRIME, and the refusal of user memory.
#include "virtual_msm.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>

using namespace adreno;
using namespace msm_test;
namespace uapi = adreno::msm::uapi;
using std::chrono::seconds;

namespace {

/// A memfd standing in for a dma-buf from another device, with its host mapping.
struct ForeignBuffer {
  explicit ForeignBuffer(std::size_t bytes) : size(bytes), fd(::memfd_create("foreign-dmabuf", MFD_CLOEXEC)) {
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
    host = static_cast<std::uint32_t*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    REQUIRE(host != MAP_FAILED);
  }
  ~ForeignBuffer() {
    ::munmap(host, size);
    ::close(fd);
  }
  std::size_t size;
  int fd;
  std::uint32_t* host;
};

/// Writes a seeded word through the Bo's mapping and checks that the dma-buf's pages hold it: the
/// handle is open and still names this dma-buf's object.
void check_writes_reach(Kernel& kernel, const Bo& bo, const ForeignBuffer& foreign, std::uint32_t seed) {
  CpuView view = kernel.map(bo);
  const std::uint32_t value = std::mt19937(seed)();
  std::memcpy(view.data() + 4096 + 8, &value, 4);
  CHECK(foreign.host[(4096 + 8) / 4] == value);
  kernel.unmap(bo, view);
}

/// The scheduler state of one of this process's threads, from /proc/self/task/<tid>/stat (the
/// field after the parenthesised command name): 'R' running, 'S' asleep (e.g. waiting for a lock),
/// '?' when it cannot be read.
char thread_state(pid_t tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return '?';
  char text[512];
  const ssize_t length = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (length <= 0) return '?';
  const std::string stat(text, static_cast<std::size_t>(length));
  const std::size_t end = stat.rfind(')');
  return end == std::string::npos || end + 2 >= stat.size() ? '?' : stat[end + 2];
}

/// Plays "another thread" for a race: runs `work` on a thread of its own and returns once that
/// thread has finished it or stopped running (asleep, blocked on a lock the caller holds; any
/// other state, or none readable, also ends the wait, so that it can never hang). No timing is
/// involved: where the caller holds no lock `work` needs, it has run to the end on return.
class OtherThread {
 public:
  explicit OtherThread(std::function<void()> work)
      : thread_([this, work = std::move(work)] {
          tid_ = static_cast<pid_t>(::syscall(SYS_gettid));
          work();
          done_ = true;
        }) {
    while (tid_ == 0) std::this_thread::yield();
    while (!done_ && thread_state(tid_) == 'R') std::this_thread::yield();
  }

 private:
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> done_{false};
  std::jthread thread_;  // joined on destruction
};

}  // namespace

TEST_CASE("a dma-buf imported twice is one GEM object, and the GPU writes its pages", "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(12);
  ForeignBuffer foreign(8192);
  for (std::size_t i = 0; i < foreign.size / 4; ++i) foreign.host[i] = static_cast<std::uint32_t>(rng());
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo first = kernel->import_dmabuf(foreign.fd);
    Bo second = kernel->import_dmabuf(foreign.fd);
    CHECK(first.handle == second.handle);  // drm_prime: one handle per dma-buf per file
    CHECK(first.gpu == second.gpu);
    CHECK(first.size == 8192);

    Bo ib = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib);
    std::vector<std::uint32_t> values(32);
    for (auto& value : values) value = static_cast<std::uint32_t>(rng());
    const std::uint32_t before = foreign.host[100];
    const IbRef ref = Pm4{}.mem_write(first.gpu + 4096, values).place(ib, ib_view, 0);
    const BoUse use{&second, true};
    REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1)), seconds(5)));
    for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(foreign.host[1024 + i] == values[i]);
    CHECK(foreign.host[100] == before);
    // A shared object keeps implicit sync (other processes' fences on it are honoured); the
    // library's own objects opt out one by one (msm_gem_submit.c submit_fence_sync skips
    // MSM_SUBMIT_BO_NO_IMPLICIT entries).
    const auto submissions = v.recorder.submissions();
    REQUIRE(!submissions.empty());
    const auto& s = submissions.back();
    CHECK((s.args.flags & uapi::MSM_SUBMIT_NO_IMPLICIT) == 0);
    for (const auto& entry : s.bos) {
      CHECK(((entry.flags & uapi::MSM_SUBMIT_BO_NO_IMPLICIT) != 0) == (entry.handle != first.handle));
    }

    const unsigned closes = v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE);
    kernel->free(first);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes);  // `second` still uses the handle
    kernel->free(second);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes + 1);
    kernel->unmap(ib, ib_view);
    kernel->free(ib);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a dma-buf whose fstat reports no size (kernels before 5.3) is sized with lseek and left at offset 0",
          "[virtual-kernel][msm]") {
  // dma-buf.c gives the dma-buf inode its size only since Linux 5.3 (dma_buf_getfile), while
  // dma_buf_llseek answers SEEK_END on every kernel; Mesa sizes imports that way
  // (freedreno_bo.c fd_bo_from_dmabuf, tu_knl_drm_msm.cc msm_bo_init_dmabuf).
  VirtualMsm v;
  v.sys.set_dmabuf_size_in_fstat(false);
  ForeignBuffer foreign(5 * 4096);
  std::mt19937 rng(13);
  for (std::size_t i = 0; i < foreign.size / 4; ++i) foreign.host[i] = static_cast<std::uint32_t>(rng());
  {
    auto kernel = v.open();
    Bo imported = kernel->import_dmabuf(foreign.fd);
    CHECK(imported.size == 5 * 4096);
    CHECK(::lseek(foreign.fd, 0, SEEK_CUR) == 0);  // put back where it was
    // The whole buffer is the object's: its last word reads through the object's mapping.
    CpuView view = kernel->map(imported);
    std::uint32_t last;
    std::memcpy(&last, view.data() + foreign.size - 4, 4);
    CHECK(last == foreign.host[foreign.size / 4 - 1]);
    kernel->unmap(imported, view);
    kernel->free(imported);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("an exported object is the same memory, and importing it back yields its own handle",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(13);
  {
    auto kernel = v.open();
    Bo bo = kernel->alloc(3 * 4096, {});
    CpuView view = kernel->map(bo);
    for (auto& word : view.as<std::uint32_t>()) word = static_cast<std::uint32_t>(rng());
    const int fd = kernel->export_dmabuf(bo);
    REQUIRE(fd >= 0);
    auto* host = static_cast<std::uint32_t*>(::mmap(nullptr, view.size(), PROT_READ, MAP_SHARED, fd, 0));
    REQUIRE(host != MAP_FAILED);
    CHECK(std::memcmp(host, view.data(), view.size()) == 0);
    ::munmap(host, view.size());

    Bo again = kernel->import_dmabuf(fd);
    CHECK(again.handle == bo.handle);
    CHECK(again.gpu == bo.gpu);
    ::close(fd);

    // A second process-like file sees the same pages through its own handle and address space.
    auto other = v.open();
    const int fd2 = kernel->export_dmabuf(bo);
    Bo foreign = other->import_dmabuf(fd2);
    ::close(fd2);
    CpuView foreign_view = other->map(foreign);
    CHECK(std::memcmp(foreign_view.data(), view.data(), view.size()) == 0);
    other->unmap(foreign, foreign_view);
    other->free(foreign);

    kernel->free(again);
    kernel->unmap(bo, view);
    kernel->free(bo);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("user memory import is refused as unsupported, pointing to dma-buf, without a kernel call",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    auto kernel = v.open();
    std::vector<std::uint32_t> memory(1024);
    const unsigned calls = v.sys.ioctl_count(0);
    try {
      kernel->import_user_memory(memory.data(), memory.size() * 4);
      FAIL("user memory was imported");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::unsupported);
      CHECK(error.detail().find("dma-buf") != std::string::npos);
      CHECK(error.operation() == "MSM import_user_memory");
    }
    CHECK(v.sys.ioctl_count(0) == calls);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("PRIME requests the driver refuses", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    const int fd = v.sys.open(virt::kVirtualMsmNode, 0);
    drm_prime_handle args{77, DRM_CLOEXEC, -1};
    CHECK(v.sys.ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args) == -ENOENT);  // unknown handle
    uapi::drm_msm_gem_new created{4096, uapi::MSM_BO_WC, 0};
    REQUIRE(v.sys.ioctl(fd, uapi::DRM_IOCTL_MSM_GEM_NEW, &created) == 0);
    args = {created.handle, 0x4, -1};
    CHECK(v.sys.ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args) == -EINVAL);  // unknown flag
    args = {0, 0, 1000000};
    CHECK(v.sys.ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args) == -EBADF);  // no such descriptor
    ForeignBuffer foreign(4096);
    args = {0, 0, foreign.fd};
    REQUIRE(v.sys.ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args) == 0);
    CHECK(args.handle == created.handle + 1);
    uapi::drm_msm_gem_info flags{args.handle, uapi::MSM_INFO_GET_FLAGS, 0, 0, 0};
    CHECK(v.sys.ioctl(fd, uapi::DRM_IOCTL_MSM_GEM_INFO, &flags) == -EINVAL);  // imported: no flags to tell
    drm_gem_close close_imported{args.handle, 0};
    CHECK(v.sys.ioctl(fd, DRM_IOCTL_GEM_CLOSE, &close_imported) == 0);
    drm_gem_close close_args{created.handle, 0};
    CHECK(v.sys.ioctl(fd, DRM_IOCTL_GEM_CLOSE, &close_args) == 0);
    v.sys.close(fd);
  }
  CHECK(v.sys.leaks().empty());
}

// drm_prime.c drm_gem_prime_fd_to_handle answers a dma-buf the file already has a handle for with
// that same handle and takes no reference for it: one GEM_CLOSE closes it under every Bo that
// shares it. The backend counts the Bos per handle, and the import's count has to be in, in the
// same critical section as PRIME_FD_TO_HANDLE, before another thread's free of the other Bo can
// count down and close (Mesa freedreno_bo.c fd_bo_from_dmabuf holds table_lock across both).

TEST_CASE("a dma-buf imported again while another thread frees the Bo sharing its handle keeps the handle open: "
          "free after the import's PRIME_FD_TO_HANDLE",
          "[virtual-kernel][msm]") {
  // The other thread frees `first` right after the driver answered the second import's
  // PRIME_FD_TO_HANDLE with first's handle: before the import has counted it.
  VirtualMsm v;
  ForeignBuffer foreign(2 * 4096);
  std::optional<OtherThread> other;
  {
    auto kernel = v.open();
    const Bo first = kernel->import_dmabuf(foreign.fd);
    const unsigned closes = v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE);
    v.sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
      if (call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && call.request == DRM_IOCTL_PRIME_FD_TO_HANDLE &&
          call.result == 0 && !other) {
        other.emplace([&] { kernel->free(first); });
      }
    });
    std::optional<Bo> second;
    try {
      second = kernel->import_dmabuf(foreign.fd);
    } catch (const Error& error) {
      FAIL_CHECK("the import failed: " << error.what());  // the handle was closed under it
    }
    other.reset();  // the free is over
    v.sys.set_observer({});
    REQUIRE(second);
    CHECK(second->handle == first.handle);
    CHECK(second->gpu == first.gpu);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes);  // `second` still uses the handle
    check_writes_reach(*kernel, *second, foreign, 15);
    kernel->free(*second);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes + 1);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a dma-buf imported again while another thread frees the Bo sharing its handle keeps the handle open: "
          "free after the import's GET_IOVA",
          "[virtual-kernel][msm]") {
  // The other thread frees `first` after the driver answered the second import's GET_IOVA,
  // between the driver calls of the import; nothing of the backend's is locked there, so the
  // seam's observer plays that thread on the import's own.
  VirtualMsm v;
  ForeignBuffer foreign(2 * 4096);
  bool freed = false;
  {
    auto kernel = v.open();
    const Bo first = kernel->import_dmabuf(foreign.fd);
    const unsigned closes = v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE);
    v.sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
      if (call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && call.request == uapi::DRM_IOCTL_MSM_GEM_INFO &&
          call.result == 0 && !freed) {
        freed = true;
        kernel->free(first);
      }
    });
    const Bo second = kernel->import_dmabuf(foreign.fd);
    v.sys.set_observer({});
    REQUIRE(freed);
    CHECK(second.handle == first.handle);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes);  // `second` still uses the handle
    check_writes_reach(*kernel, second, foreign, 16);
    kernel->free(second);
    CHECK(v.sys.ioctl_count(DRM_IOCTL_GEM_CLOSE) == closes + 1);
  }
  CHECK(v.sys.leaks().empty());
}
