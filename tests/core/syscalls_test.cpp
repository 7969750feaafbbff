// The syscall seam: its retry policy ([pure]) and what the virtual seam models of the dma-buf
// core and the kernel's clock and pages ([virtual-kernel]).
#include "kgsl/kgsl_abi.h"
#include "sys/syscalls.h"
#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/virtual_syscalls.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

using namespace adreno;
using namespace std::chrono_literals;

TEST_CASE("retry_transient asks again after EINTR and EAGAIN and returns the first other answer", "[pure][sys]") {
  std::vector<int> answers = {-EINTR, -EAGAIN, -EINTR, 7};
  std::size_t asked = 0;
  CHECK(sys::retry_transient([&] { return answers[asked++]; }) == 7);
  CHECK(asked == 4);

  // Any other errno is the answer: asked once.
  for (const int error : {-EBUSY, -ETIMEDOUT, -ENOMEM, -EINVAL}) {
    answers = {error, 0};
    asked = 0;
    CHECK(sys::retry_transient([&] { return answers[asked++]; }) == error);
    CHECK(asked == 1);
  }
}

TEST_CASE("the virtual seam's ioctl asks an injected EINTR again, ioctl_once hands it over", "[virtual-kernel][sys]") {
  virt::VirtualSyscalls sys;
  sys.add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node({}));
  const int fd = sys.open(virt::kVirtualKgslNode, O_RDWR);
  REQUIRE(fd >= 0);
  kgsl_devinfo info{};
  kgsl_device_getproperty param{};
  param.type = KGSL_PROP_DEVICE_INFO;
  param.value = &info;
  param.sizebytes = sizeof info;
  // The first call fails with EINTR; the next one meets the second plan: EAGAIN.
  sys.fail_ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, 1, EINTR);
  sys.fail_ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, 1, EAGAIN);
  CHECK(sys.ioctl(fd, IOCTL_KGSL_DEVICE_GETPROPERTY, &param) == 0);
  CHECK(sys.ioctl_count(IOCTL_KGSL_DEVICE_GETPROPERTY) == 3);
  CHECK(info.chip_id != 0);
  sys.fail_ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, 1, EINTR);
  CHECK(sys.ioctl_once(fd, IOCTL_KGSL_DEVICE_GETPROPERTY, &param) == -EINTR);
  CHECK(sys.ioctl_count(IOCTL_KGSL_DEVICE_GETPROPERTY) == 4);
  CHECK(sys.close(fd) == 0);
  CHECK(sys.leaks().empty());
}

TEST_CASE("the virtual seam answers DMA_BUF_IOCTL_SYNC as the dma-buf core does: flags checked, dma-bufs only",
          "[virtual-kernel][sys]") {
  virt::VirtualSyscalls sys;
  const int dmabuf = ::memfd_create("seam-dmabuf", MFD_CLOEXEC);  // the virtual kernels' dma-buf
  REQUIRE(::ftruncate(dmabuf, 4096) == 0);
  std::vector<int> seen;  // results the observer was told of
  sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
    const bool sync = call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && call.request == DMA_BUF_IOCTL_SYNC;
    if (sync && call.fd == dmabuf) seen.push_back(call.result);
  });
  // drivers/dma-buf/dma-buf.c dma_buf_ioctl.
  dma_buf_sync sync{DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW};
  CHECK(sys.ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) == 0);
  sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
  CHECK(sys.ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) == 0);
  sync.flags = DMA_BUF_SYNC_START;  // neither READ nor WRITE
  CHECK(sys.ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) == -EINVAL);
  sync.flags = DMA_BUF_SYNC_RW | 0x10;  // outside DMA_BUF_SYNC_VALID_FLAGS_MASK
  CHECK(sys.ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) == -EINVAL);
  CHECK(seen == std::vector<int>{0, 0, -EINVAL, -EINVAL});
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
  CHECK(sys.ioctl(pipe_fds[0], DMA_BUF_IOCTL_SYNC, &sync) == -ENOTTY);  // no dma-buf
  for (int fd : {pipe_fds[0], pipe_fds[1], dmabuf}) ::close(fd);
}

TEST_CASE("the virtual seam sizes dma-bufs with lseek as dma_buf_llseek does, and can hide the size from fstat",
          "[virtual-kernel][sys]") {
  virt::VirtualSyscalls sys;
  const int dmabuf = ::memfd_create("seam-dmabuf", MFD_CLOEXEC);
  REQUIRE(::ftruncate(dmabuf, 3 * 4096) == 0);
  struct stat st {};
  REQUIRE(sys.fstat(dmabuf, &st) == 0);
  CHECK(st.st_size == 3 * 4096);
  sys.set_dmabuf_size_in_fstat(false);  // a kernel before 5.3 (dma-buf.c dma_buf_getfile)
  REQUIRE(sys.fstat(dmabuf, &st) == 0);
  CHECK(st.st_size == 0);
  CHECK(sys.lseek(dmabuf, 0, SEEK_END) == 3 * 4096);
  CHECK(sys.lseek(dmabuf, 0, SEEK_SET) == 0);
  // dma-buf.c dma_buf_llseek: only offset 0, only SEEK_END and SEEK_SET.
  CHECK(sys.lseek(dmabuf, 4096, SEEK_SET) == -EINVAL);
  CHECK(sys.lseek(dmabuf, 0, SEEK_CUR) == -EINVAL);
  ::close(dmabuf);
}

TEST_CASE("the virtual seam reports the kernel page size it was made with and a clock a test moves on",
          "[virtual-kernel][sys]") {
  CHECK(virt::VirtualSyscalls().page_size() == 4096);
  virt::VirtualSyscalls sys(16384);
  CHECK(sys.page_size() == 16384);
  const auto before = sys.now();
  sys.advance_clock(1h);
  CHECK(sys.now() - before >= 1h);
}
