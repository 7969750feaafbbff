// Graph: recording keeps, per dispatch, the program, the launch, an image of its constants and
// descriptors and the memory its arguments bind. build() schedules the dispatches
// (graph_schedule.h), copies the images into one block of GPU memory and records the command
// buffer into the graph's own command memory with the same emitters Queue uses
// (dispatch_encoder.h, sync_commands.h). Every value that can change has a patch site — where it
// lives in GPU memory (constant file images, descriptors, signal and wait packets) and its next
// value (a buffer address in the constants: in its binding, which set_buffer finds through a table
// by dispatch and argument) — and a replay writes only the sites marked dirty since the previous one.
//
// What a replay costs must grow with the values changed, not with the graph. So the graph
// borrows the memory it binds (see "Bound memory" below), hands the queue just the list of kernel
// objects, rebuilt only when one changed, and learns whether some bound buffer was released from
// the device's count of released buffers that some graph bound: bindings are visited only when
// one went.
//
// Bound memory. A reference count per changed pointer would cost two atomic read-modify-writes
// (hundreds per replay when a model's buffers move), so a binding names its block with a plain
// pointer and the application's Buffers keep the block alive. The graph holds a reference of its
// own only where that is not enough, and that makes every block a binding names alive:
// - Recording takes the references the Arguments hold; each stays (`held`) until its binding
//   moves to another block.
// - Before the last Buffer of a block some graph bound lets go, the device asks each built graph
//   of the device (Device::Impl::note_graph_buffer_released → hold_if_bound), and one that binds
//   the block now or staged it for its next replay takes a reference (`held`, `staged_held`).
//   Only buffers of the graph's own device can be bound (set_buffer and set_image refuse
//   others), so the device that hears of the release is the graph's.
// - A replay moves a binding to its staged block only after the GPU finished every replay that
//   used the old one (wait_for_previous_replays), and only then drops the old one's reference:
//   memory a replay may still read or write is neither freed nor reused.
// - When the graph goes, its bound blocks inherit the uses of its submitted replays (the
//   allocator reuses memory only once they retired) and the queues of recorded, unsubmitted
//   ones take references until they submit; it leaves the device's list last, so a release
//   meanwhile still finds it.
// A release runs on any thread: hold_if_bound reads `block` and writes the references (and the
// flag `holds_references` a replay reads to spare itself a look at them) under mutex_, which a
// replay takes to change them; set_buffer writes `staged` with relaxed atomic
// stores (plain stores on the hardware), ordered before the release of that Buffer by whatever
// orders the application's own use of it before its release.
#include <adreno/error.hpp>
#include <adreno/graph.hpp>

#include "core/command_memory.h"
#include "core/arguments_impl.h"
#include "core/dispatch_encoder.h"
#include "kernel/flat_index.h"
#include "core/graph_schedule.h"
#include "core/queue_impl.h"
#include "core/same_device.h"
#include "core/sync_commands.h"
#include "pm4/a6xx_descriptors.h"
#include "pm4/packets.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include <fmt/format.h>

namespace adreno {
namespace {

constexpr std::uint64_t kDataAlignment = 64;  // CP_LOAD_STATE6 sources and descriptors
constexpr std::uint32_t kNoSite = ~std::uint32_t{0};

std::uint64_t align_data(std::uint64_t value) { return (value + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

[[noreturn]] void invalid(const char* operation, const std::string& detail) {
  throw Error(Errc::invalid_argument, operation, detail);
}

// Out of line: set_buffer runs once per changed pointer per replay, and building the message's
// strings inline would have it set up a stack frame each time. Not declared noreturn, so that
// set_buffer jumps to it without aligning a stack frame for a call.
[[gnu::noinline, gnu::cold]] void empty_buffer() {
  invalid("set graph buffer argument", "the buffer is empty (moved from or default)");
}

}  // namespace

class Graph::Impl final : public Device::Impl::GraphBindings {
 public:
  explicit Impl(std::shared_ptr<Device::Impl> device) : device_(std::move(device)) {}
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  GraphDispatch dispatch(const Program& program, const Arguments& arguments, const Launch& launch,
                         std::span<const Access> access);
  GraphDispatch dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                                  const IndirectLaunch& shape, std::span<const Access> access);
  GraphSync sync(const Signal& signal, std::uint64_t value, bool is_signal);
  void build(const GraphOptions& options);
  void set_buffer(GraphDispatch id, std::size_t argument, const Buffer::Impl& buffer, GpuAddress address, std::uint64_t size);
  void set_image(GraphDispatch id, std::size_t argument, const ImageDesc& image, bool storage);
  void set_bytes(GraphDispatch id, std::size_t argument, std::span<const std::byte> bytes);
  void set_value(GraphSync id, std::uint64_t value);
  void set_launch(GraphDispatch id, const Launch& launch);
  void replay(Queue::Impl& queue);
  void hold_if_bound(MemoryBlock& block) noexcept override;

  std::size_t dispatch_count() const { return built().dispatches; }
  std::size_t levels() const { return built().schedule.levels; }
  std::size_t barriers() const { return built().schedule.barriers; }
  std::size_t command_dwords() const { return built().dwords; }

 private:
  // Memory an argument binds, borrowed (see "Bound memory" at the top): what set_buffer and a
  // replay read and write for each changed pointer, with the rest kept apart in BindingDetails.
  // `staged` is what set_buffer/set_*image bound for the next replay; it equals `block` otherwise.
  // A binding of a buffer address in the constants (an address site) also holds the address the
  // next replay writes there: set_buffer on such a site touches this one entry of the graph (and
  // an index of it), not the site.
  struct BufferBinding {
    MemoryBlock* block = nullptr;  // bound now; the GPU may be running it
    MemoryBlock* staged = nullptr;  // written with atomic stores: hold_if_bound reads it from any thread
    // staged's, for the submission's object list: block's once a replay swapped staged in (replays
    // list objects only then).
    const KernelObject* object = nullptr;
    // An address site's: where its address goes in the graph's data, and its next value while
    // `pending` (listed in pending_addresses_).
    std::byte* address_at = nullptr;
    std::uint64_t next_address = 0;
    bool pending = false;
    // The graph holds a reference to block or staged (BindingDetails). Under mutex_.
    bool holds_references = false;
  };
  static_assert(sizeof(BufferBinding) == 48);
  // The rest of a binding: its references (see "Bound memory"), which the rare paths take and a
  // replay moves only when `holds_references`, and where it belongs.
  struct BindingDetails {
    // block's and (when released after it was staged) staged's own references; null while the
    // application's Buffers hold them.
    std::shared_ptr<MemoryBlock> held;
    std::shared_ptr<MemoryBlock> staged_held;
    std::uint32_t dispatch = 0;  // the GraphDispatch it belongs to
    std::uint32_t argument = 0;
    bool writes = false;
  };
  // A binding as recorded: the memory the Arguments bound, with their reference.
  struct RecordedBinding {
    std::shared_ptr<MemoryBlock> memory;
    std::uint32_t argument;
    bool writes;
  };
  struct RecordedDispatch {
    std::shared_ptr<const Program::Impl> program;
    Launch launch;
    DispatchDataLayout layout;
    std::vector<std::byte> data;  // constants and descriptors, as they go to GPU memory
    std::vector<RecordedBinding> buffers;  // moved into bindings_ and binding_details_ at build
    std::vector<ScheduleAccess> accesses;  // by block identity, as recorded
    std::uint32_t first_site = kNoSite;    // patch sites of its arguments, in argument order (after build)
    // Where build() put it (kept dispatches): its packets, and its data in both views.
    EmittedDispatch packets;
    // Its program state is carried from or to another dispatch (CarriedProgramState): the wave
    // size it was built with stays.
    bool shares_state = false;
    std::byte* data_cpu = nullptr;
    GpuAddress data_gpu;
    std::optional<Launch> next_launch;  // set_launch's, for the next replay
    // An indirect dispatch: the memory its group counts are read from, at each replay.
    std::shared_ptr<MemoryBlock> groups_block;
    GpuAddress groups;
  };
  struct RecordedSync {
    std::shared_ptr<Signal::Impl> signal;
    std::uint64_t value;
    bool is_signal;
    std::uint32_t* high = nullptr;  // in the command buffer; signals only
    std::uint32_t* low = nullptr;
    WaitSite wait{};                // in the command buffer; waits only
    bool dirty = false;
  };
  struct Node {
    bool is_dispatch;
    std::uint32_t index;  // into dispatches_ or syncs_
  };
  // An argument's bytes in the graph's GPU memory (a constant, or a 16-dword image or buffer
  // descriptor), and where its next value waits in next_values_. A storage buffer whose address
  // the program also reads has that address at `address_at`; its next value follows the descriptor's.
  // A buffer address in the constants (`is_address`) waits in its binding instead.
  struct PatchSite {
    std::byte* at = nullptr;
    std::uint32_t binding = kNoSite;  // in bindings_, when the argument binds memory
    // A constant recorded with a buffer (set at build, with `binding`): its address waits in
    // the binding (BufferBinding::next_address).
    bool is_address = false;
    bool dirty = false;  // listed in dirty_sites_ (not an address)
    ProgramArgument::Kind kind = ProgramArgument::Kind::constant;
    std::uint32_t bytes = 0;  // 0: not patchable (a sampler)
    std::uint32_t next = 0;  // in next_values_ (not an address)
    std::byte* address_at = nullptr;
  };
  // A dispatch's sites in sites_ (which build() sized for good).
  struct SiteRange {
    PatchSite* first;
    std::uint32_t count;
  };
  struct Built {
    Schedule schedule;
    std::size_t dispatches = 0;
    pm4::IbRange ib;
    std::size_t dwords = 0;  // in all chained ranges
  };
  struct OwnReference {
    std::shared_ptr<MemoryBlock> block;
    bool write;
  };
  // A queue that recorded a replay of this graph, and the queue's recording ticket then: until
  // the queue handed that ticket to the kernel (Queue::Impl::submitted_ticket), the replay is
  // not submitted — still being recorded, or held on the host.
  struct RecordedReplay {
    Queue::Impl* queue;
    std::weak_ptr<Queue::Impl> alive;
    std::uint64_t ticket;
  };

  const Built& built() const {
    if (!built_) invalid("graph", "the graph is not built yet");
    return *built_;
  }
  void check_recording(const char* operation) const {
    if (built_) invalid(operation, "the graph is already built; record into a new graph");
  }
  RecordedDispatch& kept_dispatch(GraphDispatch id, const char* operation);
  // The patch site of `argument` of dispatch `id`; throws naming what is wrong.
  PatchSite& site_of(GraphDispatch id, std::size_t argument, const char* operation);
  // set_buffer for what is not a buffer address in the constants (a descriptor) or not of the
  // graph's device, or an error.
  [[gnu::noinline]] void set_buffer_slow(GraphDispatch id, std::size_t argument, const Buffer::Impl& buffer,
                                               GpuAddress address, std::uint64_t size);
  std::byte* next_value(const PatchSite& site) { return next_values_.data() + site.next; }
  void mark_dirty(PatchSite& site) {
    if (site.dirty) return;
    site.dirty = true;
    dirty_sites_.push_back(static_cast<std::uint32_t>(&site - sites_.data()));
  }
  // The next value of an address site's binding. A binding is listed once while pending, so
  // the array sized at build holds every pending address.
  void pend_address(BufferBinding& binding, std::uint64_t value) {
    binding.next_address = value;
    if (!binding.pending) *pending_end_++ = &binding;
    binding.pending = true;
  }
  // Binds `buffer` to `binding` from the next replay on.
  void stage(BufferBinding& binding, const Buffer::Impl& buffer) {
    buffer.note_graph_binding();  // before the application can release it
    std::atomic_ref(binding.staged).store(&buffer.block(), std::memory_order_relaxed);
    // The list of kernel objects changes only if one does: sub-allocated buffers share theirs.
    if (binding.object != &buffer.object()) [[unlikely]] {
      binding.object = &buffer.object();
      objects_stale_ = true;
    }
  }
  // Binds what set_buffer staged for `binding` (or again what it binds, when nothing was staged):
  // the GPU finished every replay that bound the old memory. Under mutex_.
  void swap_in_staged(BufferBinding& binding) {
    binding.block = binding.staged;
    if (binding.holds_references) [[unlikely]] move_references(binding);
  }
  // swap_in_staged's part for a binding whose memory the graph holds a reference to.
  [[gnu::noinline]] void move_references(BufferBinding& binding);
  // Refuses a buffer of another device (same_device.h); the Buffer's own device pointer spares
  // set_buffer a visit to the block.
  void check_device(const Buffer::Impl& buffer, GraphDispatch id, std::size_t argument, const char* operation) const {
    if (&buffer.device() != device_.get()) [[unlikely]]
      foreign_buffer(buffer, id, argument, operation);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void foreign_buffer(const Buffer::Impl& buffer, GraphDispatch id, std::size_t argument,
                                                             const char* operation) const;
  void check_bindings_held();
  void submit_recorded_replays();
  void wait_for_previous_replays();
  void apply_patches();
  void list_objects();

  std::shared_ptr<Device::Impl> device_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> dispatch_nodes_;  // GraphDispatch → node
  std::vector<RecordedDispatch> dispatches_;   // indexed by GraphDispatch
  std::vector<RecordedSync> syncs_;

  std::optional<Built> built_;
  std::shared_ptr<MemoryBlock> data_;
  std::unique_ptr<CommandMemory> commands_;
  std::vector<OwnReference> own_;        // graph data, commands and scratch; program code and private memory; signals
  std::vector<BufferBinding> bindings_;  // of the kept dispatches
  std::vector<BindingDetails> binding_details_;  // by the same index
  std::vector<PatchSite> sites_;
  std::vector<std::byte> next_values_;         // of the sites
  std::vector<SiteRange> sites_of_dispatch_;  // by GraphDispatch (a dropped duplicate: the kept one's)
  std::vector<std::uint32_t> dirty_sites_;    // capacity: every site
  // set_buffer's way to an address site's binding: at GraphDispatch · address_stride_ + argument
  // (address_stride_: the most arguments a program of the graph has), null for any other
  // argument. What set_buffer reads to bound-check it is kept beside it.
  std::unique_ptr<BufferBinding*[]> address_bindings_;
  std::size_t address_slots_ = 0;
  std::size_t address_stride_ = 0;
  // Room for every address site's binding; [begin, pending_end_) are pending.
  std::unique_ptr<BufferBinding*[]> pending_addresses_;
  BufferBinding** pending_end_ = nullptr;
  std::vector<std::uint32_t> dirty_syncs_;    // capacity: every sync
  std::vector<std::uint32_t> dirty_launches_;  // RecordedDispatch indices; capacity: every dispatch
  std::vector<std::uint32_t> signal_syncs_;
  std::vector<std::uint32_t> wait_syncs_;

  // The kernel objects of bindings_, each once, as replays list them.
  std::vector<Queue::Impl::ListedObject> objects_;
  FlatIndex object_index_;
  bool objects_stale_ = true;
  // Device::Impl::graph_buffers_released() when every bound buffer was last seen held.
  std::uint64_t checked_releases_ = ~std::uint64_t{0};
  std::mutex mutex_;  // bindings_' `block`, `holds_references` and details' references: replay changes them, a release reads and adds

  std::vector<RecordedReplay> recorded_;
  std::vector<GpuUse> uses_;  // scratch for the waits
};

GraphDispatch Graph::Impl::dispatch(const Program& program, const Arguments& arguments, const Launch& launch,
                                    std::span<const Access> access) {
  check_recording("record graph dispatch");
  const Program::Impl& prog = *program.impl();
  const Arguments::Impl& args = arguments.impl();
  validate_dispatch(*device_, prog, args, launch);
  RecordedDispatch recorded;
  recorded.program = program.impl();
  recorded.launch = launch;
  recorded.layout = prog.data_layout();
  recorded.data.resize(recorded.layout.bytes);
  write_dispatch_data(CpuView(recorded.data.data(), recorded.data.size()), prog, args, launch);
  const auto& info_arguments = prog.info().arguments;
  for (std::size_t i = 0; i < args.bindings().size(); ++i) {
    const Arguments::Impl::Binding& binding = args.bindings()[i];
    if (!binding.memory) continue;
    Access how = Access::read;
    switch (info_arguments[i].kind) {
      case ProgramArgument::Kind::texture: how = Access::read; break;
      case ProgramArgument::Kind::uniform_buffer: how = Access::read; break;
      case ProgramArgument::Kind::constant:
      case ProgramArgument::Kind::storage_buffer:
      case ProgramArgument::Kind::storage_image: how = i < access.size() ? access[i] : Access::read_write; break;
      case ProgramArgument::Kind::sampler: continue;
    }
    const bool reads = how != Access::write;
    const bool writes = how != Access::read;
    binding.memory->note_graph_binding();
    recorded.buffers.push_back(RecordedBinding{binding.memory, static_cast<std::uint32_t>(i), writes});
    recorded.accesses.push_back(ScheduleAccess{binding.memory.get(), reads, writes});
  }
  const auto id = static_cast<GraphDispatch>(dispatch_nodes_.size());
  dispatch_nodes_.push_back(static_cast<std::uint32_t>(nodes_.size()));
  nodes_.push_back(Node{true, static_cast<std::uint32_t>(dispatches_.size())});
  dispatches_.push_back(std::move(recorded));
  return id;
}

GraphDispatch Graph::Impl::dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                                             const IndirectLaunch& shape, std::span<const Access> access) {
  check_recording("record graph indirect dispatch");
  require_same_device(*device_, groups, "record graph indirect dispatch", "groups");
  validate_indirect(program.impl()->info(), groups, "record graph indirect dispatch");
  const GraphDispatch id = dispatch(program, arguments, indirect_launch(shape), access);
  RecordedDispatch& recorded = dispatches_.back();
  recorded.groups_block = groups.buffer()->block_shared();
  recorded.groups = groups.gpu_address();
  // The counts are read: a dispatch that writes them comes first, with a barrier between.
  recorded.accesses.push_back(ScheduleAccess{recorded.groups_block.get(), true, false});
  return id;
}

GraphSync Graph::Impl::sync(const Signal& signal, std::uint64_t value, bool is_signal) {
  const char* const operation = is_signal ? "record graph signal" : "record graph wait";
  check_recording(operation);
  require_usable_signal(*device_, signal, operation);
  const auto id = static_cast<GraphSync>(syncs_.size());
  nodes_.push_back(Node{false, static_cast<std::uint32_t>(syncs_.size())});
  syncs_.push_back(RecordedSync{signal.impl(), value, is_signal});
  return id;
}

void Graph::Impl::build(const GraphOptions& options) {
  check_recording("build graph");
  std::vector<ScheduleNode> schedule_nodes;
  for (const Node& node : nodes_)
    schedule_nodes.push_back(node.is_dispatch ? ScheduleNode{false, dispatches_[node.index].accesses} : ScheduleNode{true, {}});
  auto same_work = [&](std::size_t a, std::size_t b) {
    const RecordedDispatch& x = dispatches_[nodes_[a].index];
    const RecordedDispatch& y = dispatches_[nodes_[b].index];
    // An indirect dispatch's grid is not known here: never taken for a duplicate.
    return x.program == y.program && !x.groups_block && !y.groups_block && std::equal(x.launch.groups, x.launch.groups + 3, y.launch.groups) &&
           std::equal(x.launch.local_size, x.launch.local_size + 3, y.launch.local_size) &&
           std::equal(x.launch.base_group, x.launch.base_group + 3, y.launch.base_group) &&
           x.launch.wave_size == y.launch.wave_size && x.data == y.data;
  };
  Built result{schedule(schedule_nodes, {options.drop_duplicates, options.order_by_level}, same_work), 0, {}, 0};

  // The constants and descriptors of every kept dispatch (the GPU only reads them).
  std::vector<std::uint64_t> data_at(dispatches_.size(), 0);
  std::uint64_t data_bytes = 0;
  for (std::size_t node : result.schedule.order) {
    if (!nodes_[node].is_dispatch) continue;
    data_at[nodes_[node].index] = data_bytes;
    data_bytes += align_data(dispatches_[nodes_[node].index].layout.bytes);
  }
  auto data = std::make_shared<MemoryBlock>(
      device_, device_->allocator().allocate(std::max(data_bytes, kDataAlignment), kDataAlignment, BoFlags{MemoryType::write_combined, true}, true));
  const Allocation& memory = data->allocation();
  // The dword the barriers' cache flushes write.
  auto scratch = std::make_shared<MemoryBlock>(device_, device_->allocator().allocate(64, 64, BoFlags{}, false));
  auto commands = std::make_unique<CommandMemory>(device_);
  std::vector<PatchSite> sites;
  std::vector<OwnReference> own{{data, false}, {scratch, true}};
  auto own_block = [&](const std::shared_ptr<MemoryBlock>& block, bool write) {
    for (OwnReference& existing : own)
      if (existing.block == block) {
        existing.write = existing.write || write;
        return;
      }
    own.push_back(OwnReference{block, write});
  };
  {
    pm4::CommandStream cs(*commands, pm4::CommandStream::Growth::chain);
    // Each replay's first dispatch writes its whole state: the queue ran other work before.
    CarriedProgramState carried;
    RecordedDispatch* state_set_by = nullptr;  // the dispatch whose state `carried` names
    const pm4::Gen gen = command_generation(device_->info());
    for (std::size_t k = 0; k < result.schedule.order.size(); ++k) {
      const Node& node = nodes_[result.schedule.order[k]];
      if (result.schedule.barrier_before[k]) emit_barrier(cs, gen, scratch->allocation().gpu);
      if (!node.is_dispatch) {
        RecordedSync& sync = syncs_[node.index];
        const GpuAddress address = sync.signal->gpu_address();
        if (sync.is_signal) {
          const SignalValueDwords dwords = emit_signal(cs, gen, address, sync.value);
          sync.high = dwords.high;
          sync.low = dwords.low;
        } else {
          sync.wait = emit_wait(cs, gen, address, sync.value);
        }
        own_block(sync.signal->memory(), sync.is_signal);
        continue;
      }
      RecordedDispatch& recorded = dispatches_[node.index];
      std::byte* const at = memory.cpu.data() + data_at[node.index];
      std::memcpy(at, recorded.data.data(), recorded.data.size());
      recorded.data_cpu = at;
      recorded.data_gpu = memory.gpu + data_at[node.index];
      if (recorded.groups_block) {
        own_block(recorded.groups_block, false);
        const IndirectCounts counts = emit_indirect_count_params(cs, gen, recorded.program->info(), recorded.groups,
                                                                 recorded.data_gpu, scratch->allocation().gpu + kIndirectParamsOffset);
        recorded.packets = emit_dispatch(cs, recorded.program, recorded.layout, recorded.data_gpu, recorded.launch, carried, &counts);
      } else {
        recorded.packets = emit_dispatch(cs, recorded.program, recorded.layout, recorded.data_gpu, recorded.launch, carried);
      }
      if (recorded.packets.state_carried) {
        recorded.shares_state = state_set_by->shares_state = true;
      } else {
        state_set_by = &recorded;
      }
      own_block(recorded.program->code(), false);
      if (recorded.program->private_memory()) own_block(recorded.program->private_memory(), true);
      recorded.first_site = static_cast<std::uint32_t>(sites.size());
      for (const ProgramArgument& argument : recorded.program->info().arguments) {
        PatchSite site;
        site.kind = argument.kind;
        const std::uint64_t descriptor = std::uint64_t{argument.slot} * pm4::a6xx_descriptors::kTextureDwords * 4;
        switch (argument.kind) {
          case ProgramArgument::Kind::constant:
            site.at = at + argument.const_byte;
            site.bytes = argument.size_bytes;
            break;
          case ProgramArgument::Kind::texture:
            site.at = at + recorded.layout.textures_at + descriptor;
            site.bytes = pm4::a6xx_descriptors::kTextureDwords * 4;
            break;
          case ProgramArgument::Kind::storage_image:
            site.at = at + recorded.layout.images_at + descriptor;
            site.bytes = pm4::a6xx_descriptors::kTextureDwords * 4;
            break;
          case ProgramArgument::Kind::storage_buffer:
            site.at = at + recorded.layout.images_at + descriptor;
            site.bytes = pm4::a6xx_descriptors::kTextureDwords * 4;
            if (argument.const_byte != kNoConstant) site.address_at = at + argument.const_byte;
            break;
          case ProgramArgument::Kind::uniform_buffer:
            site.at = at + recorded.layout.uniform_buffers_at + std::uint64_t{argument.slot} * pm4::a6xx_descriptors::kUboDwords * 4;
            site.bytes = pm4::a6xx_descriptors::kUboDwords * 4;
            if (argument.const_byte != kNoConstant) site.address_at = at + argument.const_byte;
            break;
          case ProgramArgument::Kind::sampler: break;
        }
        sites.push_back(site);
      }
      ++result.dispatches;
    }
    result.dwords = cs.dwords_written();
    for (const auto& chunk : commands->blocks()) own.push_back(OwnReference{chunk, false});
    const std::span<const pm4::IbRange> ibs = cs.finish();
    if (!ibs.empty()) result.ib = ibs.front();  // chained: calling the first runs the rest
  }

  for (const Node& node : nodes_) {
    if (node.is_dispatch) continue;
    (syncs_[node.index].is_signal ? signal_syncs_ : wait_syncs_).push_back(node.index);
  }
  for (std::size_t node : result.schedule.order) {
    if (!nodes_[node].is_dispatch) continue;
    RecordedDispatch& recorded = dispatches_[nodes_[node].index];
    for (RecordedBinding& binding : recorded.buffers) {
      sites[recorded.first_site + binding.argument].binding = static_cast<std::uint32_t>(bindings_.size());
      MemoryBlock* const block = binding.memory.get();
      bindings_.push_back(BufferBinding{.block = block, .staged = block, .object = &block->object(), .holds_references = true});
      binding_details_.push_back(BindingDetails{std::move(binding.memory), nullptr, nodes_[node].index, binding.argument, binding.writes});
    }
    recorded.buffers.clear();
  }
  std::uint32_t next_bytes = 0;
  std::size_t address_sites = 0;
  for (PatchSite& site : sites) {
    site.is_address = site.kind == ProgramArgument::Kind::constant && site.binding != kNoSite;
    if (site.is_address) {
      bindings_[site.binding].address_at = site.at;
      ++address_sites;
      continue;
    }
    site.next = next_bytes;
    next_bytes += site.bytes + (site.address_at != nullptr ? sizeof(std::uint64_t) : 0);
  }
  // A dropped duplicate's bindings are the kept one's: its own references go with the recording.
  for (RecordedDispatch& recorded : dispatches_) recorded.buffers.clear();
  dirty_sites_.reserve(sites.size());
  pending_addresses_ = std::make_unique<BufferBinding*[]>(address_sites);
  pending_end_ = pending_addresses_.get();
  dirty_syncs_.reserve(syncs_.size());
  dirty_launches_.reserve(dispatches_.size());
  uses_.reserve(8);  // one per queue that replays the graph, typically one or two
  next_values_.resize(next_bytes);
  sites_ = std::move(sites);
  for (const RecordedDispatch& recorded : dispatches_) address_stride_ = std::max(address_stride_, recorded.program->info().arguments.size());
  address_slots_ = dispatch_nodes_.size() * address_stride_;
  address_bindings_ = std::make_unique<BufferBinding*[]>(address_slots_);  // null: no address site
  for (std::size_t id = 0; id < dispatch_nodes_.size(); ++id) {
    const RecordedDispatch& kept = dispatches_[nodes_[result.schedule.kept[dispatch_nodes_[id]]].index];
    const SiteRange range{sites_.data() + kept.first_site, static_cast<std::uint32_t>(kept.program->info().arguments.size())};
    sites_of_dispatch_.push_back(range);
    for (std::uint32_t argument = 0; argument < range.count; ++argument)
      if (range.first[argument].is_address) address_bindings_[id * address_stride_ + argument] = &bindings_[range.first[argument].binding];
  }
  own_ = std::move(own);
  data_ = std::move(data);
  commands_ = std::move(commands);
  device_->add_graph(*this);  // from here on, releases of what set_buffer binds reach the graph
  built_ = std::move(result);
}

Graph::Impl::~Impl() {
  if (!built_) return;  // nothing was replayed: the recording's references just go
  // The GPU may still be running replays that use the bound memory. Submitted ones used the data
  // block too: the memory inherits its uses. Recorded but unsubmitted ones: their queue holds it.
  // Still on the device's list: every bound block is alive (held here or by a Buffer).
  data_->uses(uses_);
  for (const BufferBinding& binding : bindings_)
    for (const GpuUse& use : uses_) binding.block->record_use(use.context, use.fence);
  for (const RecordedReplay& replay : recorded_) {
    const std::shared_ptr<Queue::Impl> queue = replay.alive.lock();
    if (!queue || queue->submitted_ticket() >= replay.ticket) continue;
    for (std::size_t i = 0; i < bindings_.size(); ++i)
      queue->keep_until_submitted(replay.ticket, bindings_[i].block->shared_from_this(), binding_details_[i].writes);
  }
  device_->remove_graph(*this);  // waits for a release that is visiting it
}

void Graph::Impl::foreign_buffer(const Buffer::Impl& buffer, GraphDispatch id, std::size_t argument,
                                 const char* operation) const {
  throw_other_device(operation, fmt::format("argument {} of dispatch {}: the buffer", argument, static_cast<std::uint32_t>(id)),
                     buffer.device(), *device_);
}

void Graph::Impl::hold_if_bound(MemoryBlock& block) noexcept {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    BufferBinding& binding = bindings_[i];
    BindingDetails& details = binding_details_[i];
    if (binding.block == &block && !details.held) {
      details.held = block.shared_from_this();
      binding.holds_references = true;
    }
    if (std::atomic_ref(binding.staged).load(std::memory_order_relaxed) == &block && details.staged_held.get() != &block) {
      details.staged_held = block.shared_from_this();
      binding.holds_references = true;
    }
  }
}

Graph::Impl::RecordedDispatch& Graph::Impl::kept_dispatch(GraphDispatch id, const char* operation) {
  const Built& graph = built();
  const auto index = static_cast<std::size_t>(id);
  if (index >= dispatch_nodes_.size())
    invalid(operation, fmt::format("dispatch {} does not exist; the graph has {}", index, dispatch_nodes_.size()));
  return dispatches_[nodes_[graph.schedule.kept[dispatch_nodes_[index]]].index];
}

Graph::Impl::PatchSite& Graph::Impl::site_of(GraphDispatch id, std::size_t argument, const char* operation) {
  const auto index = static_cast<std::size_t>(id);
  if (!built_ || index >= sites_of_dispatch_.size()) kept_dispatch(id, operation);  // throws
  const SiteRange range = sites_of_dispatch_[index];
  if (argument >= range.count)
    invalid(operation, fmt::format("argument {} does not exist; dispatch {} has {}", argument, index, range.count));
  return range.first[argument];
}

void Graph::Impl::set_buffer(GraphDispatch id, std::size_t argument, const Buffer::Impl& buffer, GpuAddress address,
                             std::uint64_t size) {
  // This runs once per changed pointer per replay: the common case (an address in the constants,
  // a buffer of the graph's device) checks inline and calls nothing, the rest goes to
  // set_buffer_slow, which says what is wrong. An argument past the table's stride or a dispatch
  // past its end finds no address site there.
  const std::size_t slot = static_cast<std::size_t>(id) * address_stride_ + argument;
  if (argument < address_stride_ && slot < address_slots_) [[likely]] {
    BufferBinding* const binding = address_bindings_[slot];
    if (binding != nullptr && &buffer.device() == device_.get()) [[likely]] {
      stage(*binding, buffer);
      pend_address(*binding, address.value());
      return;
    }
  }
  set_buffer_slow(id, argument, buffer, address, size);
}

void Graph::Impl::set_buffer_slow(GraphDispatch id, std::size_t argument, const Buffer::Impl& buffer, GpuAddress address,
                                  std::uint64_t size) {
  const auto index = static_cast<std::size_t>(id);
  constexpr const char* kOperation = "set graph buffer argument";
  PatchSite& site = site_of(id, argument, kOperation);  // throws for a graph not built, a dispatch or argument that does not exist
  // set_buffer staged every address site of a buffer of the graph's device itself.
  if (site.is_address) foreign_buffer(buffer, id, argument, kOperation);
  if (site.kind == ProgramArgument::Kind::storage_buffer || site.kind == ProgramArgument::Kind::uniform_buffer) {
    check_device(buffer, id, argument, kOperation);
    std::uint32_t descriptor[pm4::a6xx_descriptors::kTextureDwords];
    const ProgramInfo& info = kept_dispatch(id, kOperation).program->info();
    if (site.kind == ProgramArgument::Kind::storage_buffer) {
      Arguments::Impl::storage_buffer_descriptor(descriptor, info, argument, address, size);
    } else {
      Arguments::Impl::uniform_buffer_descriptor(std::span<std::uint32_t, pm4::a6xx_descriptors::kUboDwords>(descriptor, 2),
                                                 info, argument, address, size);
    }
    stage(bindings_[site.binding], buffer);
    std::memcpy(next_value(site), descriptor, site.bytes);
    const std::uint64_t value = address.value();
    if (site.address_at != nullptr) std::memcpy(next_value(site) + site.bytes, &value, sizeof(value));
    mark_dirty(site);
    return;
  }
  // The argument exists but binds no buffer: say what it is instead.
  Arguments::Impl::buffer_argument(kept_dispatch(id, kOperation).program->info(), argument);  // throws unless a 64-bit address
  invalid(kOperation, fmt::format("argument {} of dispatch {} was recorded with a scalar, not a buffer", argument, index));
}

void Graph::Impl::set_image(GraphDispatch id, std::size_t argument, const ImageDesc& image, bool storage) {
  const char* operation = storage ? "set graph storage image argument" : "set graph texture argument";
  PatchSite& site = site_of(id, argument, operation);
  std::uint32_t descriptor[pm4::a6xx_descriptors::kTextureDwords];
  Arguments::Impl::image_descriptor(descriptor, kept_dispatch(id, "set graph image argument").program->info(), argument,
                                    image, storage);  // throws unless that kind of image argument
  check_device(*image.memory.buffer(), id, argument, operation);
  stage(bindings_[site.binding], *image.memory.buffer());
  std::memcpy(next_value(site), descriptor, sizeof(descriptor));
  mark_dirty(site);
}

void Graph::Impl::set_bytes(GraphDispatch id, std::size_t argument, std::span<const std::byte> bytes) {
  constexpr const char* kOperation = "set graph scalar argument";
  PatchSite& site = site_of(id, argument, kOperation);
  const ProgramArgument& arg = Arguments::Impl::scalar_argument(kept_dispatch(id, kOperation).program->info(), argument, bytes.size());
  if (site.is_address) {  // recorded with a buffer: the bytes replace its address
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data(), bytes.size());
    pend_address(bindings_[site.binding], value);
    return;
  }
  std::memset(next_value(site), 0, arg.size_bytes);
  std::memcpy(next_value(site), bytes.data(), bytes.size());
  mark_dirty(site);
}

void Graph::Impl::set_value(GraphSync id, std::uint64_t value) {
  built();
  const auto index = static_cast<std::size_t>(id);
  if (index >= syncs_.size()) invalid("set graph sync value", fmt::format("sync {} does not exist; the graph has {}", index, syncs_.size()));
  RecordedSync& sync = syncs_[index];
  sync.value = value;
  if (!sync.dirty) dirty_syncs_.push_back(static_cast<std::uint32_t>(index));
  sync.dirty = true;
}

void Graph::Impl::set_launch(GraphDispatch id, const Launch& launch) {
  RecordedDispatch& recorded = kept_dispatch(id, "set graph launch");
  if (recorded.groups_block)
    invalid("set graph launch", fmt::format("dispatch {} is indirect: each replay reads its group counts from memory",
                                            static_cast<std::uint32_t>(id)));
  validate_launch(recorded.program->info(), launch);
  const ProgramInfo& info = recorded.program->info();
  if (recorded.shares_state && runs_wave128(info, launch) != runs_wave128(info, recorded.launch))
    throw Error(Errc::unsupported, "set graph launch",
                fmt::format("dispatch {} shares its program state ('{}', {}-wide waves) with other dispatches of the "
                            "graph's command buffer (written once, carried to the next): its wave size cannot change on replay",
                            static_cast<std::uint32_t>(id), info.name, runs_wave128(info, recorded.launch) ? 128 : 64));
  if (!recorded.next_launch) dirty_launches_.push_back(static_cast<std::uint32_t>(&recorded - dispatches_.data()));
  recorded.next_launch = launch;
}

void Graph::Impl::check_bindings_held() {
  // Unchanged count: no buffer anywhere lost its last handle, so every bound one (held when it
  // was bound or last checked) still has one.
  const std::uint64_t released = device_->graph_buffers_released();
  if (released == checked_releases_) return;
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    if (bindings_[i].staged->has_handles()) continue;  // staged: what the replay will bind
    const BindingDetails& binding = binding_details_[i];
    const RecordedDispatch& owner = dispatches_[binding.dispatch];
    const std::string& name = owner.program->info().arguments[binding.argument].name;
    invalid("replay graph", fmt::format("dispatch {} (program '{}') argument {}{}: its buffer was freed; bind a live one with set_buffer",
                                        binding.dispatch, owner.program->info().name, binding.argument,
                                        name.empty() ? "" : " ('" + name + "')"));
  }
  checked_releases_ = released;
}

void Graph::Impl::submit_recorded_replays() {
  // Held on the host, a replay reaches the kernel once what it waits for is set: until then its
  // command buffer cannot change.
  for (const RecordedReplay& replay : recorded_)
    if (const std::shared_ptr<Queue::Impl> queue = replay.alive.lock(); queue && queue->submitted_ticket() < replay.ticket)
      queue->wait_submitted(replay.ticket);
  recorded_.clear();
}

void Graph::Impl::wait_for_previous_replays() {
  // A replay still in a queue's open recording reaches the GPU only at that queue's submit.
  submit_recorded_replays();
  // Every submission that called the command buffer also listed the data block.
  data_->uses(uses_);
  for (const GpuUse& use : uses_) {
    if (device_->contexts().retired(use)) continue;
    try {
      device_->kernel().wait(use.context, use.fence, std::chrono::nanoseconds::max());
    } catch (const Error& error) {
      // A context the GPU reset runs nothing more: the replay is over. That queue learns it at
      // its own next wait; this graph goes on with its other queues. A context destroyed since
      // (its queue drained first) is over too.
      if (error.code() != Errc::device_lost && !device_->contexts().retired(use)) throw;
    }
    device_->contexts().note_retired(use.context, use.fence);
  }
}

void Graph::Impl::move_references(BufferBinding& binding) {
  // The old block's reference goes (the GPU is done with it); a reference taken to what was
  // staged last moves along, one to an earlier staged block goes. A binding that stays on its
  // block (nothing staged: only set_bytes wrote its address) keeps the block's reference.
  BindingDetails& details = binding_details_[static_cast<std::size_t>(&binding - bindings_.data())];
  if (details.staged_held.get() == binding.block) {
    details.held = std::move(details.staged_held);
  } else if (details.held.get() != binding.block) {
    details.held.reset();
  }
  details.staged_held.reset();
  binding.holds_references = details.held != nullptr;
}

void Graph::Impl::apply_patches() {
  // Bounds in locals: the stores into the graph's data could alias the members.
  for (BufferBinding **pending = pending_addresses_.get(), **end = pending_end_; pending != end; ++pending) {
    BufferBinding& binding = **pending;
    std::memcpy(binding.address_at, &binding.next_address, sizeof(binding.next_address));
    binding.pending = false;
    swap_in_staged(binding);
  }
  pending_end_ = pending_addresses_.get();
  for (const std::uint32_t index : dirty_sites_) {
    PatchSite& site = sites_[index];
    std::memcpy(site.at, next_value(site), site.bytes);
    if (site.address_at != nullptr) std::memcpy(site.address_at, next_value(site) + site.bytes, sizeof(std::uint64_t));
    site.dirty = false;
    if (site.binding != kNoSite) swap_in_staged(bindings_[site.binding]);  // set_buffer or set_*image staged memory
  }
  dirty_sites_.clear();
  for (const std::uint32_t index : dirty_syncs_) {
    RecordedSync& sync = syncs_[index];
    if (sync.is_signal) {
      *sync.high = static_cast<std::uint32_t>(sync.value >> 32);
      *sync.low = static_cast<std::uint32_t>(sync.value);
    } else {
      patch_wait(sync.wait, sync.value);
    }
    sync.dirty = false;
  }
  dirty_syncs_.clear();
  for (const std::uint32_t index : dirty_launches_) {
    RecordedDispatch& recorded = dispatches_[index];
    recorded.launch = *recorded.next_launch;
    recorded.next_launch.reset();
    rewrite_dispatch(recorded.packets, *recorded.program, recorded.layout, recorded.data_gpu, recorded.launch);
    write_driver_params(recorded.data_cpu, recorded.program->info(), recorded.launch);
  }
  dirty_launches_.clear();
}

void Graph::Impl::list_objects() {
  // Sub-allocations share kernel objects: each once, writable if any binding writes.
  objects_.clear();
  object_index_.clear();
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    add_once(object_index_, objects_, reinterpret_cast<std::uintptr_t>(bindings_[i].object),
             Queue::Impl::ListedObject{bindings_[i].object, binding_details_[i].writes},
             [](Queue::Impl::ListedObject& existing, const Queue::Impl::ListedObject& added) {
               existing.write = existing.write || added.write;
             });
  }
  objects_stale_ = false;
}

void Graph::Impl::replay(Queue::Impl& queue) {
  const Built& graph = built();
  queue.check_not_lost();
  if (&queue.device() != device_.get()) invalid("replay graph", "the queue belongs to another device");
  check_bindings_held();  // before anything changes

  if (pending_end_ != pending_addresses_.get() || !dirty_sites_.empty() || !dirty_syncs_.empty() || !dirty_launches_.empty()) {
    wait_for_previous_replays();
    std::lock_guard lock(mutex_);
    apply_patches();
  }
  if (objects_stale_) list_objects();

  // Each wait's CP wait is in the command buffer; one for a value that another queue's submitted
  // work writes is met before the replay starts, as the kernel holds the submission until that
  // work retired — the CP wait alone would hold this priority band, the writer too when it is
  // queued behind (Queue::Impl::hold_recorded_wait).
  for (const std::uint32_t index : wait_syncs_) queue.hold_recorded_wait(syncs_[index].signal, syncs_[index].value);
  for (const OwnReference& own : own_) queue.reference(own.block, own.write);
  queue.list_objects(objects_);
  if (graph.ib.dwords != 0) {
    pm4::CommandStream& cs = queue.stream();
    const bool traced = queue.trace() != nullptr;
    if (traced) [[unlikely]] queue.begin_gpu_span(cs);
    pm4::indirect_buffer(cs, graph.ib.gpu, graph.ib.dwords);
    queue.carried_program_state().forget();  // the graph's dispatches set their own state
    if (traced) [[unlikely]] queue.end_gpu_span(cs, fmt::format("graph replay ({} dispatches)", graph.dispatches));
  }
  for (const std::uint32_t index : signal_syncs_) queue.note_signal(syncs_[index].signal, syncs_[index].value);

  const std::uint64_t ticket = queue.recording_ticket();
  for (RecordedReplay& recorded : recorded_) {
    if (recorded.queue != &queue) continue;
    if (recorded.alive.expired()) recorded.alive = queue.weak_from_this();  // another queue at the same address
    recorded.ticket = ticket;
    return;
  }
  recorded_.push_back(RecordedReplay{&queue, queue.weak_from_this(), ticket});
}

// --- Graph ---

Graph::Graph(Device& device) : impl_(std::make_unique<Impl>(device.shared_impl())) {}
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
Graph::~Graph() = default;

GraphDispatch Graph::dispatch(const Program& program, const Arguments& arguments, const Launch& launch,
                              std::span<const Access> access) {
  return impl_->dispatch(program, arguments, launch, access);
}
GraphDispatch Graph::dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                                       const IndirectLaunch& launch, std::span<const Access> access) {
  return impl_->dispatch_indirect(program, arguments, groups, launch, access);
}
GraphSync Graph::signal(const Signal& signal, std::uint64_t value) { return impl_->sync(signal, value, true); }
GraphSync Graph::wait(const Signal& signal, std::uint64_t value) { return impl_->sync(signal, value, false); }
void Graph::build(const GraphOptions& options) { impl_->build(options); }
std::size_t Graph::dispatch_count() const { return impl_->dispatch_count(); }
std::size_t Graph::levels() const { return impl_->levels(); }
std::size_t Graph::barriers() const { return impl_->barriers(); }
std::size_t Graph::command_dwords() const { return impl_->command_dwords(); }
void Graph::set_buffer(GraphDispatch dispatch, std::size_t argument, const BufferView& buffer) {
  if (!buffer.buffer()) invalid("set graph buffer argument", "the view has no buffer (empty or moved from)");
  impl_->set_buffer(dispatch, argument, *buffer.buffer(), buffer.gpu_address(), buffer.size());
}
void Graph::set_buffer(GraphDispatch dispatch, std::size_t argument, const Buffer& buffer) {
  const Buffer::Impl* const impl = buffer.impl().get();
  if (impl == nullptr) [[unlikely]] return empty_buffer();
  impl_->set_buffer(dispatch, argument, *impl, impl->gpu_address(), impl->size());
}
void Graph::set_texture(GraphDispatch dispatch, std::size_t argument, const ImageDesc& image) {
  impl_->set_image(dispatch, argument, image, false);
}
void Graph::set_storage_image(GraphDispatch dispatch, std::size_t argument, const ImageDesc& image) {
  impl_->set_image(dispatch, argument, image, true);
}
void Graph::set_bytes(GraphDispatch dispatch, std::size_t argument, std::span<const std::byte> bytes) {
  impl_->set_bytes(dispatch, argument, bytes);
}
void Graph::set_value(GraphSync sync, std::uint64_t value) { impl_->set_value(sync, value); }
void Graph::set_launch(GraphDispatch dispatch, const Launch& launch) { impl_->set_launch(dispatch, launch); }
void Graph::replay(Queue& queue) { impl_->replay(queue.impl()); }

}  // namespace adreno
