// What each C handle stands for: the C++ object, and the objects it must keep alive so that C
// handles can be released in any order.
#pragma once

#include <adreno/adreno.h>
#include <adreno/adreno.hpp>

#include <memory>
#include <optional>

namespace adreno::capi {

struct DeviceObject {
  static constexpr const char* kName = "adreno_device";
  explicit DeviceObject(Device d) : device(std::move(d)) {}
  Device device;
};

/// A whole buffer (`owner` empty) or a window into one (`owner` is the whole buffer's object).
struct BufferObject {
  static constexpr const char* kName = "adreno_buffer";
  BufferObject(std::shared_ptr<DeviceObject> d, Buffer b)
      : device(std::move(d)), buffer(std::move(b)), view(*buffer) {}
  BufferObject(std::shared_ptr<const BufferObject> whole, BufferView window)
      : device(whole->device), owner(std::move(whole)), view(std::move(window)) {}

  bool is_view() const noexcept { return owner != nullptr; }
  /// The buffer this handle is, or the one its window lies in.
  const Buffer& whole() const noexcept { return owner ? *owner->buffer : *buffer; }

  std::shared_ptr<DeviceObject> device;
  std::shared_ptr<const BufferObject> owner;
  std::optional<Buffer> buffer;
  BufferView view;
};

struct ProgramObject {
  static constexpr const char* kName = "adreno_program";
  explicit ProgramObject(Program p) : program(std::move(p)) {}
  Program program;
};

struct ArgumentsObject {
  static constexpr const char* kName = "adreno_arguments";
  explicit ArgumentsObject(std::shared_ptr<const ProgramObject> p) : program(std::move(p)), arguments(program->program) {}
  std::shared_ptr<const ProgramObject> program;
  Arguments arguments;
};

struct QueueObject {
  static constexpr const char* kName = "adreno_queue";
  QueueObject(Device& device, const QueueDesc& desc) : queue(device, desc) {}
  Queue queue;
};

struct SignalObject {
  static constexpr const char* kName = "adreno_signal";
  SignalObject(Device& device, std::uint64_t initial) : signal(device, initial) {}
  Signal signal;
};

struct GraphObject {
  static constexpr const char* kName = "adreno_graph";
  explicit GraphObject(Device& device) : graph(device) {}
  Graph graph;
};

// Which C handle type names which object.
template <typename Handle> struct ObjectOf;
template <> struct ObjectOf<adreno_device> { using type = DeviceObject; };
template <> struct ObjectOf<adreno_buffer> { using type = BufferObject; };
template <> struct ObjectOf<adreno_program> { using type = ProgramObject; };
template <> struct ObjectOf<adreno_arguments> { using type = ArgumentsObject; };
template <> struct ObjectOf<adreno_queue> { using type = QueueObject; };
template <> struct ObjectOf<adreno_signal> { using type = SignalObject; };
template <> struct ObjectOf<adreno_graph> { using type = GraphObject; };

}  // namespace adreno::capi
