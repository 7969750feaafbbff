// [virtual-kernel] Memory and signals of another device are refused wherever they can be used —
// Arguments' buffers, uniform buffers, textures and storage images, the queue's writes,
// timestamps, signals, waits and indirect group counts, a dispatch of another device's program,
// a dma-buf export — with Error(invalid_argument) naming the operation and the argument, and
// nothing changed: the arguments keep their binding, the queue records nothing, the other
// device's memory is untouched. Two opens of one virtual kernel, on each kernel: their GPU
// address spaces overlap (both start at the same base), so another device's address names some
// memory of this one, as it does on hardware. Afterwards the first device still computes
// right, checked in full over seeded random input.
#include <adreno/adreno.hpp>
#include <adreno/testing.hpp>

#include "../testing/kit_support.h"
#include "core/arguments_impl.h"
#include "program_fixtures.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace adreno;
using namespace std::chrono_literals;

namespace {

/// `f` throws Error(invalid_argument) from `operation` with a detail starting `detail_start`.
template <typename F>
void require_refused(F&& f, const std::string& operation, const std::string& detail_start) {
  try {
    f();
    FAIL("no error; expected " << operation << " to refuse: " << detail_start);
  } catch (const Error& error) {
    INFO(error.what());
    CHECK(error.code() == Errc::invalid_argument);
    CHECK(error.operation() == operation);
    CHECK(error.detail().starts_with(detail_start));
  }
}

template <typename F>
void require_other_device(F&& f, const std::string& operation, const std::string& what) {
  require_refused(std::forward<F>(f), operation, what + " belongs to another device");
}

/// The second open of `driver`'s virtual kernel.
Device open_other(testing::Driver driver) { return Device::open("virtual-" + driver_name(driver)); }

/// examples/kernels/mul_add.s: out[i] = 3·a[i] + b[i] for i < groups·64 (a 24-bit multiply), over
/// three 16384-word storage buffers (arguments out, a, b).
class MulAdd {
 public:
  static constexpr std::size_t kWords = 16384;

  MulAdd(Device& device, std::uint32_t seed)
      : program_(Program::from_ir3_assembly(device, source())),
        out_(device.allocate({.size = kWords * 4})),
        a_(device.allocate({.size = kWords * 4})),
        b_(device.allocate({.size = kWords * 4})) {
    std::mt19937 rng(seed);
    for (auto* words : {&a_words_, &b_words_}) {
      words->resize(kWords);
      for (auto& w : *words) w = rng() & 0xffffff;
    }
    std::memcpy(a_.cpu_view().data(), a_words_.data(), kWords * 4);
    std::memcpy(b_.cpu_view().data(), b_words_.data(), kWords * 4);
    std::memset(out_.cpu_view().data(), 0, kWords * 4);
  }

  const Program& program() const { return program_; }
  Arguments arguments() const {
    Arguments arguments(program_);
    arguments.set_buffer(0, out_).set_buffer(1, a_).set_buffer(2, b_);
    return arguments;
  }
  static Launch launch(std::uint32_t groups) { return Launch{.groups = {groups, 1, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt}; }

  /// Every word of out: 3·a + b for the first groups·64, zero after them.
  void check(std::uint32_t groups) const {
    const auto result = out_.cpu_view().as<std::uint32_t>();
    for (std::size_t i = 0; i < kWords; ++i) {
      INFO("element " << i);
      REQUIRE(result[i] == (i < std::size_t{groups} * 64 ? a_words_[i] * 3 + b_words_[i] : 0u));
    }
  }

 private:
  static std::string source() {
    std::ifstream in(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / "mul_add.s");
    REQUIRE(in);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  Program program_;
  Buffer out_, a_, b_;
  std::vector<std::uint32_t> a_words_, b_words_;
};

constexpr IndirectLaunch kIndirect{.local_size = {64, 1, 1}, .wave_size = std::nullopt};

/// The first device computes right: a dispatch of mul_add over seeded random input, in full.
void check_still_computes(Device& device, std::uint32_t seed) {
  MulAdd mul_add(device, seed);
  Queue queue(device);
  queue.dispatch(mul_add.program(), mul_add.arguments(), MulAdd::launch(7));
  queue.finish(60s);
  mul_add.check(7);
}

/// `buffer`'s words, seeded random: what refused operations must leave as they are.
std::vector<std::uint32_t> fill_random(const Buffer& buffer, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto words = buffer.cpu_view().as<std::uint32_t>();
  for (auto& w : words) w = rng();
  return {words.begin(), words.end()};
}

std::vector<std::uint32_t> words_of(const Buffer& buffer) {
  auto words = buffer.cpu_view().as<std::uint32_t>();
  return {words.begin(), words.end()};
}

/// Memory of the other device that refused operations must leave as it was: a buffer of seeded
/// random words and a signal at 3.
struct ForeignMemory {
  ForeignMemory(Device& other, std::uint32_t seed)
      : buffer(other.allocate({.size = 4096})), words(fill_random(buffer, seed)), signal(other, 3) {}
  void check_untouched() const {
    CHECK(words_of(buffer) == words);
    CHECK(signal.value() == 3);
  }
  Buffer buffer;
  std::vector<std::uint32_t> words;
  Signal signal;
};

/// This device's group counts {x, 1, 1} for an indirect dispatch, in the first 12 bytes.
BufferView group_counts(Device& device, std::uint32_t x) {
  Buffer groups = device.allocate({.size = 64});
  const std::uint32_t counts[] = {x, 1, 1};
  std::memcpy(groups.cpu_view().data(), counts, sizeof counts);
  return groups.view(0, 12);
}

/// What an Arguments object would put into GPU memory at a dispatch.
struct ArgumentImages {
  std::vector<std::uint32_t> constants, textures, storage_images, uniform_buffers;
  explicit ArgumentImages(const Arguments& arguments)
      : constants(arguments.impl().constants().begin(), arguments.impl().constants().end()),
        textures(arguments.impl().textures().begin(), arguments.impl().textures().end()),
        storage_images(arguments.impl().storage_images().begin(), arguments.impl().storage_images().end()),
        uniform_buffers(arguments.impl().uniform_buffers().begin(), arguments.impl().uniform_buffers().end()) {}
  bool operator==(const ArgumentImages&) const = default;
};

}  // namespace

// Kills: Arguments taking another device's buffer or image — its GPU address, meaningless in this
// device's address space, written into the constants and descriptors, the binding replaced.
TEST_CASE("arguments refuse buffers and images of another device, naming the argument, and keep their binding",
          "[virtual-kernel][arguments][other-device]") {
  const testing::Driver driver = EACH_DRIVER();
  testing::VirtualDevice kit({.driver = driver});
  {
    Device& device = kit.device();
    Device other = open_other(driver);
    Buffer foreign = other.allocate({.size = 256 * 1024});
    const std::vector<std::uint32_t> foreign_words = fill_random(foreign, 11);

    // Storage buffers with their address in the constants (mul_add's @buf lines).
    MulAdd mul_add(device, 12);
    Arguments arguments = mul_add.arguments();
    const ArgumentImages before(arguments);
    for (std::size_t i = 0; i < 3; ++i) {
      require_other_device([&] { arguments.set_buffer(i, foreign); }, "set buffer argument",
                           "argument " + std::to_string(i) + " ('buf" + std::to_string(i) + "')");
    }
    require_other_device([&] { arguments.set_buffer("buf1", foreign.view(4096, 4096)); }, "set buffer argument",
                         "argument 1 ('buf1')");
    CHECK(ArgumentImages(arguments) == before);

    // A buffer address only (Mesa-compiled metadata), a uniform buffer (@ubo), a texture and a
    // storage image (a Qualcomm binary).
    Program pointers = Program::from_ir3(device, placeholder_code(), three_buffer_metadata());
    Arguments pointer_arguments(pointers);
    Buffer own = device.allocate({.size = 64 * 1024});
    pointer_arguments.set_buffer(0, own);
    const ArgumentImages pointers_before(pointer_arguments);
    require_other_device([&] { pointer_arguments.set_buffer(0, foreign); }, "set buffer argument", "argument 0 ('c')");
    require_other_device([&] { pointer_arguments.set_buffer("b", foreign.view(64, 64)); }, "set buffer argument",
                         "argument 2 ('b')");
    CHECK(ArgumentImages(pointer_arguments) == pointers_before);
    CHECK(pointer_arguments.impl().first_unset() == std::size_t{1});  // b stayed unset

    Program uniform = Program::from_ir3_assembly(device, "@buf 4\n@ubo 4\nend\n");
    Arguments uniform_arguments(uniform);
    uniform_arguments.set_buffer(1, own.view(0, 64));
    const ArgumentImages uniform_before(uniform_arguments);
    require_other_device([&] { uniform_arguments.set_buffer(1, foreign.view(0, 64)); }, "set buffer argument",
                         "argument 1 ('buf1')");
    CHECK(ArgumentImages(uniform_arguments) == uniform_before);

    Program images = Program::from_qualcomm_binary(device, image_kernel_binary().build());
    Arguments image_arguments(images);
    const auto image_in = [](const Buffer& memory) {
      return ImageDesc{memory.view(0, 64 * 64 * 16), ImageFormat::rgba32_float, 64, 64, 64 * 16};
    };
    image_arguments.set_texture(2, image_in(own)).set_storage_image(3, image_in(own));
    const ArgumentImages images_before(image_arguments);
    require_other_device([&] { image_arguments.set_texture(2, image_in(foreign)); }, "set texture argument", "argument 2");
    require_other_device([&] { image_arguments.set_storage_image(3, image_in(foreign)); }, "set storage image argument",
                         "argument 3");
    // An image in a view of no buffer has no address to describe (it used to dereference nothing).
    const ImageDesc nowhere{BufferView(std::shared_ptr<Buffer::Impl>(), 0, 64 * 64 * 16), ImageFormat::rgba32_float, 64, 64, 64 * 16};
    require_refused([&] { image_arguments.set_texture(2, nowhere); }, "set texture argument", "argument 2");
    CHECK(ArgumentImages(image_arguments) == images_before);

    // The kept binding is the one a dispatch uses: mul_add still computes into its own buffers.
    Queue queue(device);
    queue.dispatch(mul_add.program(), arguments, MulAdd::launch(5));
    queue.finish(60s);
    mul_add.check(5);
    CHECK(words_of(foreign) == foreign_words);
    check_still_computes(device, 13);
  }
  close_without_leaks(kit);
}

// Kills: queue operations recording another device's GPU addresses — a write, a timestamp or a
// signal landing in whatever this device has there, a wait polling it or handing the kernel
// another file's context and fence, indirect counts read from it — and a dispatch of another
// device's program.
TEST_CASE("queue operations refuse memory, signals and programs of another device and record nothing",
          "[virtual-kernel][queue][other-device]") {
  const testing::Driver driver = EACH_DRIVER();
  testing::VirtualDevice kit({.driver = driver});
  {
    Device& device = kit.device();
    Device other = open_other(driver);
    const ForeignMemory foreign(other, 21);
    MulAdd mul_add(device, 22);
    const Arguments arguments = mul_add.arguments();
    MulAdd foreign_mul_add(other, 23);

    Queue queue(device);
    const std::uint32_t values[] = {1, 2, 3};
    require_other_device([&] { queue.write(foreign.buffer, values); }, "write values", "destination");
    require_other_device([&] { queue.write(foreign.buffer.view(8, 16), values); }, "write values", "destination");
    require_other_device([&] { queue.write_timestamp(foreign.buffer); }, "write timestamp", "destination");
    require_other_device([&] { queue.signal(foreign.signal, 4); }, "queue signal", "signal");
    require_other_device([&] { queue.wait(foreign.signal, 5); }, "queue wait", "signal");
    require_other_device(
        [&] { queue.dispatch_indirect(mul_add.program(), arguments, foreign.buffer.view(0, 12), kIndirect); },
        "dispatch indirect", "groups");
    // validate_dispatch: the program's device against the queue's (and its arguments, set on
    // the program's device, with it).
    require_refused([&] { queue.dispatch(foreign_mul_add.program(), foreign_mul_add.arguments(), MulAdd::launch(1)); },
                    "dispatch", "program '" + foreign_mul_add.program().name() + "' was loaded on another device");
    // Nothing was recorded, so nothing reaches the kernel.
    CHECK(queue.submit() == 0);
    CHECK(kit.submissions().empty());
    foreign.check_untouched();

    // The queue goes on: an indirect dispatch whose counts are this device's memory.
    Signal done(device);
    queue.dispatch_indirect(mul_add.program(), arguments, group_counts(device, 6), kIndirect);
    queue.signal(done, 1);
    queue.finish(60s);
    CHECK(done.value() == 1);
    mul_add.check(6);
    check_still_computes(device, 24);
  }
  close_without_leaks(kit);
}

// Kills: exporting another device's buffer by its id or handle, which names another object of
// this device's file (or none) — on MSM the export of whatever this file has at that handle.
TEST_CASE("a device refuses to export another device's buffer", "[virtual-kernel][memory][other-device]") {
  const testing::Driver driver = EACH_DRIVER();
  testing::VirtualDevice kit({.driver = driver});
  {
    Device& device = kit.device();
    Device other = open_other(driver);
    Buffer own = own_object(device, 4096);
    Buffer foreign = own_object(other, 4096);
    require_other_device([&] { static_cast<void>(device.export_dmabuf(foreign)); }, "export dma-buf", "the buffer");
    CHECK(kit.calls(testing::Operation::export_dmabuf).empty());
    check_still_computes(device, 31);
  }
  close_without_leaks(kit);
}

// Kills: an import taken for the memory it shares — the same pages have another GPU address and
// another handle in each device that imported them, so only this device's import is usable here.
TEST_CASE("an imported dma-buf belongs to the device that imported it, though both share its pages",
          "[virtual-kernel][memory][other-device]") {
  const testing::Driver driver = EACH_DRIVER();
  testing::VirtualDevice kit({.driver = driver});
  // A memfd stands in for a dma-buf from an exporter outside both devices.
  const int fd = ::memfd_create("other-device-dmabuf", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, 8192) == 0);
  {
    Device& device = kit.device();
    Device other = open_other(driver);
    Buffer foreign = other.import_dmabuf(fd);
    Buffer here = device.import_dmabuf(fd);
    std::mt19937 rng(41);
    std::vector<std::uint32_t> values(64);
    for (auto& v : values) v = rng();

    Queue queue(device);
    require_other_device([&] { queue.write(foreign.view(4096, 256), values); }, "write values", "destination");
    MulAdd mul_add(device, 42);
    Arguments arguments = mul_add.arguments();
    require_other_device([&] { arguments.set_buffer(0, foreign); }, "set buffer argument", "argument 0 ('buf0')");
    CHECK(queue.submit() == 0);

    queue.write(here.view(4096, 256), values);
    queue.finish(60s);
    // The pages are shared: the write shows through both imports and the caller's fd.
    const auto seen_here = here.cpu_view().as<std::uint32_t>();
    const auto seen_there = foreign.cpu_view().as<std::uint32_t>();
    std::vector<std::uint32_t> through_fd(2048);
    REQUIRE(::pread(fd, through_fd.data(), 8192, 0) == 8192);
    for (std::size_t i = 0; i < 2048; ++i) {
      const std::uint32_t expected = i >= 1024 && i < 1024 + values.size() ? values[i - 1024] : 0u;
      INFO("word " << i);
      REQUIRE(seen_here[i] == expected);
      REQUIRE(seen_there[i] == expected);
      REQUIRE(through_fd[i] == expected);
    }
    check_still_computes(device, 43);
  }
  ::close(fd);
  close_without_leaks(kit);
}

// Kills: a graph recording another device's indirect counts or signal — read or written at each
// replay in this device's address space — and a graph or queue taking a view of no buffer or a
// moved-from signal, which used to dereference nothing.
TEST_CASE("graphs refuse indirect counts and signals of another device, and empty views and signals anywhere",
          "[virtual-kernel][graph][other-device]") {
  const testing::Driver driver = EACH_DRIVER();
  testing::VirtualDevice kit({.driver = driver});
  {
    Device& device = kit.device();
    Device other = open_other(driver);
    const ForeignMemory foreign(other, 51);
    MulAdd mul_add(device, 52);
    const Arguments arguments = mul_add.arguments();

    Graph graph(device);
    require_other_device(
        [&] { graph.dispatch_indirect(mul_add.program(), arguments, foreign.buffer.view(0, 12), kIndirect); },
        "record graph indirect dispatch", "groups");
    require_other_device([&] { graph.signal(foreign.signal, 4); }, "record graph signal", "signal");
    require_other_device([&] { graph.wait(foreign.signal, 5); }, "record graph wait", "signal");

    Signal moved(device);
    const Signal taken = std::move(moved);
    Queue queue(device);
    const BufferView no_buffer(std::shared_ptr<Buffer::Impl>(), 0, 12);  // BufferView(Buffer()) throws already
    const std::string empty_signal = "the signal is empty", empty_groups = "groups is a view of no buffer";
    require_refused([&] { graph.signal(moved, 1); }, "record graph signal", empty_signal);  // NOLINT(bugprone-use-after-move)
    require_refused([&] { graph.dispatch_indirect(mul_add.program(), arguments, no_buffer, kIndirect); },
                    "record graph indirect dispatch", empty_groups);
    require_refused([&] { queue.signal(moved, 1); }, "queue signal", empty_signal);  // NOLINT(bugprone-use-after-move)
    require_refused([&] { queue.wait(moved, 1); }, "queue wait", empty_signal);      // NOLINT(bugprone-use-after-move)
    require_refused([&] { queue.dispatch_indirect(mul_add.program(), arguments, no_buffer, kIndirect); },
                    "dispatch indirect", empty_groups);
    CHECK(queue.submit() == 0);

    // The graph records and replays what is this device's: an indirect dispatch and a signal.
    const GraphDispatch dispatch = graph.dispatch_indirect(mul_add.program(), arguments, group_counts(device, 5), kIndirect,
                                                           {Access::write, Access::read, Access::read});
    graph.signal(taken, 1);
    graph.build();
    require_refused([&] { graph.set_buffer(dispatch, 0, no_buffer); }, "set graph buffer argument", "the view has no buffer");
    graph.replay(queue);
    queue.finish(60s);
    CHECK(taken.value() == 1);
    mul_add.check(5);
    foreign.check_untouched();
  }
  close_without_leaks(kit);
}
