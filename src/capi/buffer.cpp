// C entry points: buffers and views.
#include "capi/convert.h"
#include "capi/registry.h"
#include "capi/status.h"

#include <algorithm>
#include <string>

using namespace adreno;
using namespace adreno::capi;

namespace {

void publish_buffer(std::shared_ptr<DeviceObject> device, Buffer buffer, adreno_buffer* out) {
  publish(std::make_shared<BufferObject>(std::move(device), std::move(buffer)), out);
}

/// Runs cache maintenance `operation` over [offset, offset+size) of a buffer or view, the size
/// clamped to its end.
template <typename Operation>
void maintain(adreno_buffer handle, std::uint64_t offset, std::uint64_t size, Operation operation) {
  auto object = lookup(handle, "buffer");
  const BufferView& view = object->view;
  if (offset > view.size()) {
    throw Error(Errc::invalid_argument, "cache maintenance",
                "offset " + std::to_string(offset) + " is past the end of the " + std::to_string(view.size()) +
                    "-byte buffer");
  }
  operation(object->whole(), view.offset() + offset, std::min(size, view.size() - offset));
}

/// Whether the memory has a CPU mapping (the C++ API says so only by refusing cpu_view()).
bool has_cpu_view(const BufferView& view) {
  try {
    view.cpu_view();
    return true;
  } catch (const Error& error) {
    if (error.code() != Errc::unsupported) throw;
    return false;
  }
}

}  // namespace

extern "C" {

adreno_status adreno_buffer_allocate(adreno_device device, const adreno_buffer_desc* desc, adreno_buffer* buffer) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(desc, "desc");
    require(buffer, "buffer");
    Buffer allocated = owner->device.allocate(buffer_desc_of(*desc));
    publish_buffer(std::move(owner), std::move(allocated), buffer);
  });
}

adreno_status adreno_buffer_import_dmabuf(adreno_device device, int fd, uint64_t offset, uint64_t size,
                                          adreno_buffer* buffer) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(buffer, "buffer");
    Buffer imported = owner->device.import_dmabuf(fd, offset, size);
    publish_buffer(std::move(owner), std::move(imported), buffer);
  });
}

adreno_status adreno_buffer_export_dmabuf(adreno_buffer buffer, int* fd) {
  return guarded(__func__, [&] {
    auto object = lookup(buffer, "buffer");
    require(fd, "fd");
    if (object->is_view())
      throw Error(Errc::invalid_argument, "export dma-buf", "the handle is a view; export the buffer it lies in");
    *fd = object->device->device.export_dmabuf(*object->buffer);
  });
}

adreno_status adreno_buffer_import_host_memory(adreno_device device, void* pointer, uint64_t size,
                                               adreno_buffer* buffer) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(buffer, "buffer");
    Buffer imported = owner->device.import_host_memory(pointer, size);
    publish_buffer(std::move(owner), std::move(imported), buffer);
  });
}

adreno_status adreno_buffer_view(adreno_buffer buffer, uint64_t offset, uint64_t size, adreno_buffer* view) {
  return guarded(__func__, [&] {
    auto object = lookup(buffer, "buffer");
    require(view, "view");
    BufferView window = object->view.view(offset, size);
    auto whole = object->is_view() ? object->owner : std::shared_ptr<const BufferObject>(object);
    publish(std::make_shared<BufferObject>(std::move(whole), std::move(window)), view);
  });
}

adreno_status adreno_buffer_release(adreno_buffer buffer) {
  return guarded(__func__, [&] { withdraw(buffer, "buffer"); });
}

adreno_status adreno_buffer_get_info(adreno_buffer buffer, adreno_buffer_info* info) {
  return guarded(__func__, [&] {
    auto object = lookup(buffer, "buffer");
    require(info, "info");
    const Buffer& whole = object->whole();
    std::uint32_t flags = 0;
    if (whole.gpu_read_only()) flags |= ADRENO_BUFFER_GPU_READ_ONLY;
    if (!has_cpu_view(object->view)) flags |= ADRENO_BUFFER_NO_CPU_VIEW;
    *info = adreno_buffer_info{
        .offset = object->view.offset(),
        .size = object->view.size(),
        .gpu_address = object->view.gpu_address().value(),
        .memory = memory_type_to_c(whole.memory_type()),
        .flags = flags,
        .is_view = object->is_view()};
  });
}

adreno_status adreno_buffer_cpu_view(adreno_buffer buffer, void** data, size_t* size) {
  return guarded(__func__, [&] {
    auto object = lookup(buffer, "buffer");
    require(data, "data");
    require(size, "size");
    const CpuView view = object->view.cpu_view();
    *data = view.data();
    *size = view.size();
  });
}

adreno_status adreno_buffer_flush_for_gpu(adreno_buffer buffer, uint64_t offset, uint64_t size) {
  return guarded(__func__, [&] {
    maintain(buffer, offset, size, [](const Buffer& whole, std::uint64_t o, std::uint64_t s) { whole.flush_for_gpu(o, s); });
  });
}

adreno_status adreno_buffer_invalidate_for_cpu(adreno_buffer buffer, uint64_t offset, uint64_t size) {
  return guarded(__func__, [&] {
    maintain(buffer, offset, size,
             [](const Buffer& whole, std::uint64_t o, std::uint64_t s) { whole.invalidate_for_cpu(o, s); });
  });
}

}  // extern "C"
