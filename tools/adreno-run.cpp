// adreno-run: dispatches one kernel on the chosen device with buffers made from the command line,
// prints or saves what it wrote, and reports the GPU time per dispatch from GPU timestamps.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "ir3/assembler.h"
#include "run_arguments.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace adreno_run;

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::not_found, "adreno-run", "cannot open '" + path + "'");
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());  // an empty file has no data
  return bytes;
}

void fill_buffer(const ArgumentSpec& spec, adreno::CpuView view) {
  std::byte* data = view.data();
  const std::size_t count = spec.count;
  switch (spec.fill.kind) {
    case FillKind::zeros: std::memset(data, 0, view.size()); break;
    case FillKind::iota:
      for (std::size_t i = 0; i < count; ++i) {
        if (spec.type->type == ElementType::f32) {
          const float v = static_cast<float>(i);
          std::memcpy(data + 4 * i, &v, 4);
        } else {
          const std::uint32_t v = static_cast<std::uint32_t>(i);
          std::memcpy(data + spec.type->bytes * i, &v, spec.type->bytes);  // little-endian truncation
        }
      }
      break;
    case FillKind::random: {
      std::mt19937 rng(spec.fill.seed);
      for (std::size_t i = 0; i < view.size(); i += 4) {
        const std::uint32_t v = spec.type->type == ElementType::f32
                                    ? std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(-1, 1)(rng))
                                    : rng();
        std::memcpy(data + i, &v, std::min<std::size_t>(4, view.size() - i));
      }
      break;
    }
    case FillKind::initial:
      // computerator (main.cc) copies a @buf's listed values to the start of the buffer; the rest
      // stays zero. A @buf that lists no values is all zeros (no copy: an empty list has no data).
      std::memset(data, 0, view.size());
      if (!spec.initial.empty())
        std::memcpy(data, spec.initial.data(), std::min(view.size(), spec.initial.size() * 4));
      break;
    case FillKind::file: {
      const auto bytes = read_file(spec.fill.path);
      if (bytes.size() != view.size()) {
        usage_error("'" + spec.fill.path + "' has " + std::to_string(bytes.size()) + " bytes; the buffer has " +
                    std::to_string(view.size()));
      }
      std::memcpy(data, bytes.data(), bytes.size());
      break;
    }
  }
}

std::string format_element(const std::byte* at, const ElementInfo& type, PrintFormat format) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, at, type.bytes);
  char text[32];
  if (format == PrintFormat::hex) {
    std::snprintf(text, sizeof text, "0x%0*x", static_cast<int>(type.bytes * 2), bits);
  } else if (format == PrintFormat::floating || (format == PrintFormat::natural && type.type == ElementType::f32)) {
    float f;
    std::memcpy(&f, &bits, 4);
    std::snprintf(text, sizeof text, "%g", static_cast<double>(f));
  } else if (type.type == ElementType::i32) {
    std::snprintf(text, sizeof text, "%d", static_cast<std::int32_t>(bits));
  } else {
    std::snprintf(text, sizeof text, "%u", bits);
  }
  return text;
}

/// A loaded kernel and the local size it must be launched with (zeros: any).
struct LoadedKernel {
  adreno::Program program;
  std::array<std::uint32_t, 3> fixed_local_size{0, 0, 0};
};

LoadedKernel load_program(adreno::Device& device, const std::string& path, std::vector<ArgumentSpec>& defaults,
                          bool legalize) {
  if (path.size() > 5 && path.ends_with(".json")) {
    const adreno::Ir3Metadata metadata = adreno::load_ir3_metadata_json(path);
    LoadedKernel loaded{adreno::Program::from_ir3_fixture(device, path)};
    std::copy(std::begin(metadata.fixed_local_size), std::end(metadata.fixed_local_size), loaded.fixed_local_size.begin());
    return loaded;
  }
  const auto bytes = read_file(path);
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const bool is_text = std::none_of(text.begin(), text.end(), [](char c) { return c == '\0'; });
  if (!is_text) return LoadedKernel{adreno::Program::from_qualcomm_binary(device, bytes)};
  // ir3 assembly: its @buf lines say what buffers it wants when the command line does not, with
  // their initial values, as computerator allocates and fills them; @localsize is the size it
  // must be launched with.
  const adreno::ir3::Program assembled = adreno::ir3::assemble(text);
  LoadedKernel loaded{adreno::Program::from_ir3_assembly(device, text, legalize), assembled.launch.local_size};
  // Each @buf / @ubo line is the argument named buf<i> (its position among those lines); the
  // program lists the @buf lines before the @ubo lines.
  defaults.resize(assembled.launch.buffers.size());
  for (std::size_t i = 0; i < assembled.launch.buffers.size(); ++i) {
    const auto& slot = assembled.launch.buffers[i];
    ArgumentSpec& spec = defaults.at(loaded.program.argument_index("buf" + std::to_string(i)).value());
    spec.is_buffer = true;
    spec.count = std::max<std::size_t>(slot.size_dwords, slot.initial.size());
    spec.type = &kElements[0];
    spec.fill.kind = FillKind::initial;
    spec.initial = slot.initial;
  }
  return loaded;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Runs one compute kernel and shows what it wrote.\n\n"
      "KERNEL is ir3 assembly (Mesa's disassembler syntax with computerator's directives: @localsize,\n"
      "@buf, @ubo, @const, @invocationid, @wgid, @numwg, @branchstack, @localmem, @pvtmem, @earlypreamble, ...), a Qualcomm OpenCL compiled binary, or an ir3 fixture JSON\n"
      "(ir3-a630-fixture/1, next to its .code.bin).\n\n"
      "Arguments are bound in kernel order, one --arg each:\n"
      "  buf:COUNTxTYPE[:FILL]   a buffer of COUNT elements (TYPE u32 i32 f32 u16 f16 u8), filled with\n"
      "                          zeros (default), iota, random[:SEED] or file:PATH\n"
      "  TYPE:VALUE              a scalar\n"
      "Without --arg, an assembly kernel gets u32 buffers of its @buf and @ubo sizes holding their values\n"
      "(zeros after them), and its @const values are preloaded, as computerator does.\n\n"
      "Example: adreno-run --virtual add.s -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:random:7 \\\n"
      "           --groups 8 --local 128 --print 0"};
  std::string kernel_path, device_spec, groups_text = "1", local_text, trace_path;
  std::vector<std::string> argument_texts, prints, saves;
  bool use_virtual = false, legalize = false;
  unsigned repeat = 1, thread_size = 0, print_count = 16;
  app.add_option("kernel", kernel_path, "the kernel to run")->required();
  app.add_option("-d,--device", device_spec, "device, in the ADRENO_DEVICE syntax");
  app.add_flag("--virtual", use_virtual, "run on the virtual Adreno even if hardware is present");
  app.add_flag("--legalize", legalize,
               "assembly only: add the (sy)/(ss) waits and delay slots the code lacks before running it");
  app.add_option("-a,--arg", argument_texts, "a kernel argument (see above), in kernel order");
  app.add_option("-g,--groups", groups_text, "work-groups X[,Y[,Z]] (default 1)");
  app.add_option("-l,--local", local_text, "local size X[,Y[,Z]] (default: the kernel's own, else 1)");
  app.add_option("--threadsize", thread_size, "wave size 64 or 128 (default: the compiler's choice)")
      ->check(CLI::IsMember({64u, 128u}));
  app.add_option("-r,--repeat", repeat, "dispatch this many times (default 1)")->check(CLI::Range(1u, 1000000u));
  app.add_option("-p,--print", prints, "print argument N as N[:hex|int|float]")->expected(0, -1);
  app.add_option("-n,--count", print_count, "elements to print per buffer (default 16)");
  app.add_option("-o,--save", saves, "save argument N's contents: N:PATH");
  app.add_option("--trace", trace_path, "write the run's timeline to FILE (Chrome trace-event JSON, as ADRENO_TRACE does)");
  CLI11_PARSE(app, argc, argv);

  // The device reads ADRENO_TRACE when it opens and writes the file when it closes.
  if (!trace_path.empty()) ::setenv("ADRENO_TRACE", trace_path.c_str(), 1);
  const char* step = "open the device";
  try {
    std::optional<adreno::Device> device;
    if (!device_spec.empty()) {
      device.emplace(adreno::Device::open(device_spec));
    } else if (use_virtual) {
      device.emplace(adreno::Device::open("virtual-kgsl"));
    } else {
      try {
        device.emplace(adreno::Device::open());
      } catch (const Error& error) {
        if (error.code() != Errc::not_found) throw;
        std::fprintf(stderr, "adreno-run: no Adreno hardware found; running on the virtual Adreno\n");
        device.emplace(adreno::Device::open("virtual-kgsl"));
      }
    }

    step = "load the kernel";
    std::vector<ArgumentSpec> specs;
    auto [program, fixed_local_size] = load_program(*device, kernel_path, specs, legalize);
    if (!argument_texts.empty()) {
      specs.clear();
      for (const auto& text : argument_texts) specs.push_back(parse_argument(text));
    }
    // The output options are checked before anything runs.
    std::vector<PrintSpec> print_specs;
    std::vector<SaveSpec> save_specs;
    for (const auto& text : prints) buffer_argument(specs, print_specs.emplace_back(parse_print(text)).index, "--print " + text);
    for (const auto& text : saves) buffer_argument(specs, save_specs.emplace_back(parse_save(text)).index, "--save " + text);
    if (specs.size() != program.argument_count()) {
      usage_error("the kernel takes " + std::to_string(program.argument_count()) + " arguments; " +
                  std::to_string(specs.size()) + " given");
    }

    step = "bind the arguments";
    adreno::Arguments arguments(program);
    std::vector<adreno::Buffer> buffers(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const ArgumentSpec& spec = specs[i];
      if (spec.is_buffer) {
        buffers[i] = device->allocate({.size = spec.count * spec.type->bytes});
        fill_buffer(spec, buffers[i].cpu_view());
        arguments.set_buffer(i, buffers[i]);
      } else {
        arguments.set_bytes(i, std::as_bytes(std::span(&spec.bits, 1)).first(spec.type->bytes));
      }
    }

    step = "dispatch";
    adreno::Launch launch;
    const auto groups = parse_size3(groups_text, "--groups");
    std::copy(groups.begin(), groups.end(), launch.groups);
    if (!local_text.empty()) {
      const auto local = parse_size3(local_text, "--local");
      std::copy(local.begin(), local.end(), launch.local_size);
    } else if (fixed_local_size[0] != 0) {
      std::copy(fixed_local_size.begin(), fixed_local_size.end(), launch.local_size);
    }
    if (thread_size != 0) launch.wave_size = thread_size == 128 ? adreno::WaveSize::thread128 : adreno::WaveSize::thread64;

    adreno::Queue queue(*device);
    adreno::Buffer stamps = device->allocate({.size = 16ull * repeat});
    const bool show_progress = repeat >= 100 && ::isatty(STDERR_FILENO);
    auto last_progress = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < repeat; ++i) {
      queue.write_timestamp(stamps.view(16ull * i, 8));
      queue.dispatch(program, arguments, launch);
      queue.write_timestamp(stamps.view(16ull * i + 8, 8));
      if ((i + 1) % 64 == 0 || i + 1 == repeat) {
        queue.finish();
        if (show_progress && std::chrono::steady_clock::now() - last_progress > std::chrono::milliseconds(250)) {
          std::fprintf(stderr, "\r%u/%u dispatches", i + 1, repeat);
          last_progress = std::chrono::steady_clock::now();
        }
      }
    }
    if (show_progress) std::fprintf(stderr, "\r%u/%u dispatches\n", repeat, repeat);

    auto ticks = stamps.cpu_view().as<std::uint64_t>();
    double total = 0, best = 1e300;
    for (unsigned i = 0; i < repeat; ++i) {
      const double us = static_cast<double>(ticks[2 * i + 1] - ticks[2 * i]) / 19.2;  // 19.2 MHz always-on counter
      total += us;
      best = std::min(best, us);
    }
    std::printf("%s on %s%s: %u dispatch%s of %ux%ux%u groups x %ux%ux%u; GPU time %.2f us average, %.2f us best\n",
                program.name().c_str(), device->info().name.c_str(), device->info().is_virtual ? " (virtual)" : "",
                repeat, repeat == 1 ? "" : "es", launch.groups[0], launch.groups[1], launch.groups[2],
                launch.local_size[0], launch.local_size[1], launch.local_size[2], total / repeat, best);

    step = "show the results";
    for (const PrintSpec& print : print_specs) {
      const ArgumentSpec& spec = specs[print.index];
      std::printf("arg %zu (%zu x %s):", print.index, spec.count, spec.type->name);
      const auto view = buffers[print.index].cpu_view();
      for (std::size_t e = 0; e < std::min<std::size_t>(spec.count, print_count); ++e)
        std::printf(" %s", format_element(view.data() + e * spec.type->bytes, *spec.type, print.format).c_str());
      std::printf(spec.count > print_count ? " ...\n" : "\n");
    }
    for (const SaveSpec& save : save_specs) {
      std::ofstream out(save.path, std::ios::binary);
      const auto view = buffers[save.index].cpu_view();
      out.write(reinterpret_cast<const char*>(view.data()), static_cast<std::streamsize>(view.size()));
      if (!out) throw Error(Errc::kernel_error, "adreno-run", "cannot write '" + save.path + "'");
    }
  } catch (const Error& error) {
    std::fprintf(stderr, "adreno-run: %s failed: %s\n", step, error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "adreno-run: %s failed: %s\n", step, error.what());
    return 1;
  }
  return 0;
}
