// What both backends do with a dma-buf descriptor that is not the driver's business.
#pragma once

#include "sys/syscalls.h"

#include <cstdint>
#include <string>

namespace adreno {

/// The size of dma-buf `fd`, learnt with lseek(SEEK_END) and the offset put back, as Mesa does
/// (freedreno_bo.c fd_bo_from_dmabuf, Turnip tu_knl_drm_msm.cc msm_bo_init_dmabuf): the dma-buf
/// core answers that on every kernel (dma-buf.c dma_buf_llseek), while fstat reports the size
/// only since Linux 5.3 (dma_buf_getfile). Throws Error naming `operation` and the descriptor.
std::uint64_t dmabuf_size(sys::Syscalls& sys, int fd, const std::string& operation);

}  // namespace adreno
