// Graphs: work recorded once, replayed many times.
//
// A Graph records a sequence of dispatches, signals and waits, then build() lays it out once —
// the command buffer and every dispatch's constants and descriptors — in the graph's own GPU
// memory. replay() calls that command buffer from a queue. Between replays, set_buffer(),
// set_bytes(), set_launch() and set_value() change a dispatch's buffer addresses, scalars and
// grid, or a signal's or wait's value; the next replay writes just those dwords in place, so its cost grows with the
// number of values changed, not with the size of the graph.
//
// Dependencies come from how each dispatch accesses its buffer arguments (Access; read_write
// unless told otherwise). A barrier goes only before a dispatch that depends on one since the
// previous barrier: independent dispatches of one dependency level run back to back.
//
// Contracts:
//  * The graph holds its programs, signals and the memory of its bound buffers, so none of it is
//    reused while the GPU may still run a replay. A replay with a bound buffer the application
//    released (no Buffer or BufferView of that memory left) is refused (Error(invalid_argument)
//    naming the dispatch and argument) before anything changes; once another buffer is bound
//    there, the next replay lets the released memory go. A replay lists every bound buffer, the
//    graph's memory and the programs' code for the kernel.
//  * Destroying a graph whose replay is recorded but not submitted, or held on the host, hands
//    its memory to that queue, which must not be in use on another thread then.
//  * Patched buffers must alias as the recorded ones did (the barriers were placed for those).
//  * One instance: a replay that has values to patch first waits until the GPU finished the
//    previous replay of this graph — submitting the queue that holds it if it was not submitted
//    yet, and, when that replay is held on the host for a signal nothing submitted writes (see
//    Queue::wait), until another thread sets it or submits its writer. To overlap host and GPU,
//    build two graphs and alternate between them.
//  * A graph is used by one thread at a time.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>
#include <adreno/program.hpp>
#include <adreno/queue.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>

namespace adreno {

/// How a dispatch uses a buffer argument.
enum class Access { read, write, read_write };

/// A dispatch recorded in a graph (numbered in recording order).
enum class GraphDispatch : std::uint32_t {};
/// A signal or wait recorded in a graph (numbered in recording order).
enum class GraphSync : std::uint32_t {};

struct GraphOptions {
  /// Drop a dispatch identical to an earlier one (same program, launch and argument values)
  /// when it adds nothing: none of its buffers is both read and written by it, and neither a
  /// signal, a wait nor a dispatch writing one of its buffers came between. Its GraphDispatch
  /// then names the one kept (patching either patches that one).
  bool drop_duplicates = false;
  /// Record dispatches by dependency level (within each stretch between signals and waits), so
  /// each level is one run of independent dispatches and one barrier separates levels.
  bool order_by_level = false;
};

class Graph {
 public:
  explicit Graph(Device& device);
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  /// The graph's memory goes back only after every submitted replay finished.
  ~Graph();

  // Recording, before build(). Arguments are copied now, as Queue::dispatch does.

  /// `access[i]` says how the program uses argument i when it is a buffer (ignored for other
  /// kinds); arguments past the end of `access` are read_write. Textures are read; storage
  /// images read_write. Throws as Queue::dispatch does.
  GraphDispatch dispatch(const Program& program, const Arguments& arguments, const Launch& launch,
                         std::span<const Access> access = {});
  GraphDispatch dispatch(const Program& program, const Arguments& arguments, const Launch& launch,
                         std::initializer_list<Access> access) {
    return dispatch(program, arguments, launch, std::span<const Access>(access.begin(), access.size()));
  }
  /// As Queue::dispatch_indirect: each replay runs the grid whose group counts the GPU reads
  /// from `groups` when it gets there (typically written by an earlier dispatch of the graph,
  /// which then writes the view's buffer: the graph puts a barrier between them). The graph
  /// holds that memory. set_launch refuses such a dispatch; change what writes the counts.
  GraphDispatch dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                                  const IndirectLaunch& launch, std::span<const Access> access = {});
  GraphDispatch dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                                  const IndirectLaunch& launch, std::initializer_list<Access> access) {
    return dispatch_indirect(program, arguments, groups, launch, std::span<const Access>(access.begin(), access.size()));
  }
  /// As Queue::signal / Queue::wait: each replay decides a wait anew — held by the kernel when
  /// another queue's submitted work writes the value (the replay's submission waits for it),
  /// else polled by the GPU.
  GraphSync signal(const Signal& signal, std::uint64_t value);
  GraphSync wait(const Signal& signal, std::uint64_t value);

  /// Lays the graph out in GPU memory. Recording afterwards throws Error(invalid_argument).
  void build(const GraphOptions& options = {});

  // After build().

  /// Dispatches recorded into the command buffer (duplicates dropped).
  std::size_t dispatch_count() const;
  /// Dependency levels: the longest chain of dependent dispatches.
  std::size_t levels() const;
  std::size_t barriers() const;
  /// Size of the command buffer.
  std::size_t command_dwords() const;

  /// Binds another buffer to a buffer argument of `dispatch` (checked as Arguments::set_buffer).
  void set_buffer(GraphDispatch dispatch, std::size_t argument, const BufferView& buffer);
  /// The whole buffer (saves making a view: this runs once per changed pointer per replay).
  void set_buffer(GraphDispatch dispatch, std::size_t argument, const Buffer& buffer);
  /// Binds another image to a texture or storage image argument of `dispatch` (checked as
  /// Arguments::set_texture / set_storage_image): the next replay rewrites its descriptor.
  void set_texture(GraphDispatch dispatch, std::size_t argument, const ImageDesc& image);
  void set_storage_image(GraphDispatch dispatch, std::size_t argument, const ImageDesc& image);
  /// Changes a scalar argument of `dispatch` (checked as Arguments::set_bytes).
  void set_bytes(GraphDispatch dispatch, std::size_t argument, std::span<const std::byte> bytes);
  template <typename T>
  void set_scalar(GraphDispatch dispatch, std::size_t argument, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    set_bytes(dispatch, argument, std::as_bytes(std::span<const T, 1>(&value, 1)));
  }
  /// Changes the value a signal writes or a wait waits for.
  void set_value(GraphSync sync, std::uint64_t value);
  /// Changes the grid of `dispatch` (checked as Queue::dispatch checks a launch): the next replay
  /// rewrites its grid and launch packets and the driver params its program reads (work-group
  /// counts, local size, base group, subgroup size), so a program reading them sees the new grid.
  /// A dispatch dropped as a duplicate shares the kept one's launch. A dispatch whose program
  /// state the command buffer writes once for it and the next dispatches of the same program
  /// (back-to-back dispatches of one program carry it) keeps its wave size: changing it is
  /// Error(unsupported).
  void set_launch(GraphDispatch dispatch, const Launch& launch);

  /// Records a call of the graph into `queue` (submitted with the queue's other work), after
  /// writing the values changed since the last replay. Throws Error(invalid_argument) when the
  /// graph is not built, belongs to another device, or a bound buffer was freed.
  void replay(Queue& queue);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace adreno
