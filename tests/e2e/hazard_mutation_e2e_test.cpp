// [virtual-gpu] Mutation tests of the timing-hazard check, end to end on both virtual kernels and
// both wave sizes: every Mesa-compiled fixture kernel and every example kernel, with one (sy),
// one (ss) or some delay slots removed, either still computes the right answer and the static
// checker finds nothing (the wait was not needed), or the dispatch is lost as a shader fault whose
// logged message is, word for word, the checker's first hazard (it names the instruction, the
// register, the rule and the fix). A silently right or wrong result is never accepted.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/virtual_device.h"
#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/legalize.h"
#include "ir3/text.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>

using namespace adreno;

namespace {

const std::filesystem::path kFixtures = ADRENO_IR3_FIXTURES_DIR;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::uint64_t> read_words(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::uint64_t> words(bytes.size() / 8);
  std::memcpy(words.data(), bytes.data(), words.size() * 8);
  return words;
}

// What the virtual kernels write to their stand-in for the kernel log while `run` runs.
std::string captured_log(const std::function<void()>& run) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(::fileno(file), 2);
  try {
    run();
  } catch (...) {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::fclose(file);
    throw;
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text.push_back(static_cast<char>(c));
  std::fclose(file);
  return text;
}

// One mutant: its words, what the static checker says about them, and how to run it.
struct Mutant {
  std::string what;
  std::vector<std::uint64_t> words;
};

std::vector<ir3::Instruction> decode_through_end(const std::vector<std::uint64_t>& words) {
  std::vector<ir3::Instruction> code;
  for (std::uint64_t word : words) {
    code.push_back(ir3::decode(word));
    if (code.back().opcode == ir3::Opcode::end) break;
  }
  return code;
}

// Every single removal of a wait: each (sy), each (ss), each (nopN) down by one and to zero,
// each (rptN)nop down by one, each nop deleted (a nop goes after `end` instead, keeping the
// size). The kernels here are straight-line, so deleting a word moves no branch.
std::vector<Mutant> mutants_of(const std::vector<std::uint64_t>& words) {
  const std::vector<ir3::Instruction> code = decode_through_end(words);
  std::vector<Mutant> out;
  auto with = [&](std::size_t at, const std::string& what, auto change) {
    ir3::Instruction in = code[at];
    change(in);
    Mutant m{"instruction " + std::to_string(at) + " `" + ir3::to_text(code[at]) + "` " + what, words};
    m.words[at] = ir3::encode(in);
    out.push_back(std::move(m));
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    const ir3::Instruction& in = code[i];
    const bool straight = ir3::info(in.opcode).category != 0 || in.opcode == ir3::Opcode::nop || in.opcode == ir3::Opcode::end;
    REQUIRE(straight);
    if (in.sy) with(i, "without (sy)", [](ir3::Instruction& x) { x.sy = false; });
    if (in.ss) with(i, "without (ss)", [](ir3::Instruction& x) { x.ss = false; });
    if (in.nop) {
      with(i, "without (nop)", [](ir3::Instruction& x) { x.nop = 0; });
      if (in.nop > 1) with(i, "with one (nop) less", [](ir3::Instruction& x) { --x.nop; });
    }
    if (in.opcode == ir3::Opcode::nop) {
      if (in.repeat) with(i, "with one (rpt) less", [](ir3::Instruction& x) { --x.repeat; });
      Mutant m{"instruction " + std::to_string(i) + " `" + ir3::to_text(in) + "` deleted", words};
      m.words.erase(m.words.begin() + static_cast<std::ptrdiff_t>(i));
      m.words.insert(m.words.begin() + static_cast<std::ptrdiff_t>(code.size()) - 1, ir3::encode(ir3::Instruction{}));
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Runs `dispatch` for a mutant on a fresh device of `backend` and checks the verdict.
void judge(const std::string& backend, const Mutant& mutant, ir3::RegisterFile file,
           const std::function<void(Device&, const std::vector<std::uint64_t>&)>& dispatch) {
  INFO(backend << ": " << mutant.what);
  const std::vector<ir3::Hazard> hazards = ir3::check(decode_through_end(mutant.words), file);
  VirtualDevice device(backend);
  bool lost = false;
  const std::string log = captured_log([&] {
    try {
      dispatch(*device, mutant.words);
    } catch (const Error& error) {
      INFO(error.what());
      REQUIRE(error.code() == Errc::device_lost);
      lost = true;
    }
  });
  if (hazards.empty()) {
    CHECK_FALSE(lost);  // results were checked inside dispatch
  } else {
    REQUIRE(lost);
    const std::vector<ir3::Instruction> code = decode_through_end(mutant.words);
    const std::string first = ir3::describe(hazards.front(), code[hazards.front().pc], code[hazards.front().producer_pc]);
    INFO(log);
    CHECK(log.find("timing hazard") != std::string::npos);
    CHECK(log.find(first) != std::string::npos);
  }
  device.close_and_check_ledger();
}

std::vector<std::uint32_t> dwords(const std::vector<std::uint64_t>& words) {
  std::vector<std::uint32_t> out(words.size() * 2);
  std::memcpy(out.data(), words.data(), words.size() * 8);
  return out;
}

Buffer upload(Device& device, const std::vector<std::uint32_t>& words) {
  Buffer buffer = device.allocate({.size = words.size() * 4});
  std::memcpy(buffer.cpu_view().data(), words.data(), words.size() * 4);
  return buffer;
}

// Runs example kernel `name` over two work groups of random inputs and checks every output.
void run_example(Device& device, const Program& program, const std::string& name, WaveSize wave, std::mt19937& rng) {
  const bool reverse = name == "reverse";
  const std::uint32_t local = reverse ? 128 : 64, groups = 2, count = local * groups;
  std::vector<std::uint32_t> a(count), b(count);
  for (std::uint32_t i = 0; i < count; ++i) a[i] = rng() & 0xffffff, b[i] = rng();
  // Every buffer as large as the largest @buf of the examples.
  auto padded = [](std::vector<std::uint32_t> v) { return v.resize(16384), v; };
  Buffer out = upload(device, padded({})), in_a = upload(device, padded(a)), in_b = upload(device, padded(b));
  Arguments arguments(program);
  arguments.set_buffer(0, out).set_buffer(1, in_a);
  if (!reverse) arguments.set_buffer(2, in_b);
  Queue queue(device);
  queue.dispatch(program, arguments, Launch{.groups = {groups, 1, 1}, .local_size = {local, 1, 1}, .wave_size = wave});
  queue.finish(std::chrono::seconds(60));
  const auto c = out.cpu_view().as<std::uint32_t>();
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t want = name == "vector_add" ? a[i] + b[i]
                               : name == "mul_add"  ? a[i] * 3 + b[i]
                                                    : a[i / 128 * 128 + 127 - i % 128];
    REQUIRE(c[i] == want);
  }
}

}  // namespace

TEST_CASE("removing any wait from a Mesa fixture kernel faults naming the rule or changes nothing", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  const std::string name = GENERATE(as<std::string>{}, "vector32", "vector128", "multigroup", "scalar");
  const Ir3Metadata metadata = load_ir3_metadata_json(kFixtures / (name + ".json"));
  const std::vector<std::uint64_t> words = read_words(kFixtures / (name + ".code.bin"));
  const auto file = metadata.merged_regs ? ir3::RegisterFile::merged : ir3::RegisterFile::split;
  REQUIRE(ir3::check(decode_through_end(words), file).empty());  // Mesa's own schedule is clean
  const std::vector<Mutant> mutants = mutants_of(words);
  REQUIRE(!mutants.empty());
  std::mt19937 rng(static_cast<unsigned>(name.size()));
  for (const Mutant& mutant : mutants) {
    for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      judge(backend, mutant, file, [&](Device& device, const std::vector<std::uint64_t>& code) {
        Program program = Program::from_ir3(device, dwords(code), metadata);
        // 2 work groups of 32 (one element each for the scalar kernel): c = a + b.
        const bool scalar = name == "scalar";
        const std::size_t count = scalar ? 1 : 64;
        std::vector<std::uint32_t> a(count), b(count);
        for (std::size_t i = 0; i < count; ++i) a[i] = rng(), b[i] = rng();
        Buffer in_a = upload(device, a), in_b = upload(device, b);
        Buffer out = upload(device, std::vector<std::uint32_t>(count, 0xaaaaaaaau));
        Arguments arguments(program);
        arguments.set_buffer(0, out).set_buffer(1, in_a).set_buffer(2, in_b);
        Queue queue(device);
        Launch launch;
        if (!scalar) launch = Launch{.groups = {2, 1, 1}, .local_size = {32, 1, 1}, .wave_size = wave};
        else launch.wave_size = wave;
        queue.dispatch(program, arguments, launch);
        queue.finish(std::chrono::seconds(60));
        const auto c = out.cpu_view().as<std::uint32_t>();
        for (std::size_t i = 0; i < count; ++i) REQUIRE(c[i] == a[i] + b[i]);
      });
    }
  }
}

TEST_CASE("removing any wait from an example kernel faults naming the rule or changes nothing", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  const std::string name = GENERATE(as<std::string>{}, "vector_add", "mul_add", "reverse");
  const std::string source = read_text(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / (name + ".s"));
  const ir3::Program assembled = ir3::assemble(source);
  REQUIRE(ir3::check(decode_through_end(assembled.words)).empty());
  // The directives come from the source; the mutated words replace its instructions (`raw`).
  std::string directives;
  for (std::size_t begin = 0; begin < source.size();) {
    const std::size_t end = std::min(source.find('\n', begin), source.size());
    const std::string line = source.substr(begin, end - begin);
    if (line.find('@') != std::string::npos) directives += line + "\n";
    begin = end + 1;
  }
  std::mt19937 rng(static_cast<unsigned>(name.size()));
  for (const Mutant& mutant : mutants_of(assembled.words)) {
    for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      judge(backend, mutant, ir3::RegisterFile::split, [&](Device& device, const std::vector<std::uint64_t>& code) {
        std::string text = directives;
        char raw[40];
        for (std::uint64_t word : code) {
          std::snprintf(raw, sizeof raw, "raw 0x%016llx\n", static_cast<unsigned long long>(word));
          text += raw;
        }
        Program program = Program::from_ir3_assembly(device, text);
        run_example(device, program, name, wave, rng);
      });
    }
  }
}

TEST_CASE("example kernels stripped of every wait fault as written and run correctly once legalized", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  const std::string name = GENERATE(as<std::string>{}, "vector_add", "mul_add", "reverse");
  const std::string source = read_text(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / (name + ".s"));
  static const std::regex flags(R"(\((sy|ss|nop\d)\)\s*)"), nop_line(R"(^\s*(\([a-z0-9]+\))*nop\s*$)");
  std::string bare;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);)
    if (!std::regex_match(line, nop_line)) bare += std::regex_replace(line, flags, "") + "\n";
  INFO(bare);
  CHECK_FALSE(ir3::check(decode_through_end(ir3::assemble(bare).words)).empty());
  const ir3::Program legalized = ir3::assemble(bare, ir3::RegisterFile::split, ir3::Scheduling::legalize);
  CHECK(ir3::check(decode_through_end(legalized.words)).empty());
  std::mt19937 rng(7);
  VirtualDevice device(backend);
  {
    for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      Program program = Program::from_ir3_assembly(*device, bare, /*legalize=*/true);
      run_example(*device, program, name, wave, rng);
    }
    Program as_written = Program::from_ir3_assembly(*device, bare);
    try {
      run_example(*device, as_written, name, WaveSize::thread64, rng);
      FAIL("the kernel without waits retired");
    } catch (const Error& error) {
      UNSCOPED_INFO(error.what());
      CHECK(error.code() == Errc::device_lost);
      CHECK_THAT(error.what(), Catch::Contains("guilty"));  // the kernel's reset status: this context caused it
    }
  }
  device.close_and_check_ledger();
}
