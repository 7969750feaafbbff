// [virtual-gpu] Mutation tests of the timing-hazard check, end to end on both virtual kernels and
// both wave sizes: every Mesa-compiled fixture kernel and every example kernel (SGEMM's loop and
// barriers included), with one (sy), one (ss) or some delay slots removed, either still computes
// the right answer and the static checker finds nothing (the wait was not needed), or the
// dispatch is lost as a shader fault whose logged message is, word for word, one of the
// checker's hazards (it names the instruction, the register, the rule and the fix); adreno-asm
// --check says the same and exits 1. A silently right or wrong result is never accepted. Kernels
// stripped of every wait, examples and fixtures, run correctly once legalized. Mutants whose
// verdict is written down here, not taken from the checker, cover the barrier, shared-register
// and relative-write rules, so that a rule both the checker and the virtual GPU lacked would
// still fail a test.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/fixture_listing.h"
#include "../core/virtual_device.h"
#include "gemm.h"
#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/legalize.h"
#include "ir3/text.h"
#include "../ir3/mutants.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>
#include <utility>

#include <sys/wait.h>

using namespace adreno;
using ir3_mutants::decode_through_end;
using ir3_mutants::Mutant;
using ir3_mutants::mutants_of;

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

// The checker's verdict on a program, and the words the virtual GPU's fault must contain.
struct Verdict {
  std::vector<ir3::Hazard> hazards;
  std::vector<std::string> messages;  // describe() of each
  bool only_possible = false;         // every hazard is through a relative operand: a0.x decides
};
Verdict verdict_of(const std::vector<std::uint64_t>& words, ir3::RegisterFile file,
                   ir3::Generation gen = ir3::Generation::a6xx) {
  Verdict v;
  const std::vector<ir3::Instruction> code = decode_through_end(words, gen);
  v.hazards = ir3::check(code, file, gen);
  v.only_possible = !v.hazards.empty();
  for (const ir3::Hazard& h : v.hazards) {
    v.messages.push_back(ir3::describe(h, code[h.pc], code[h.producer_pc], gen));
    v.only_possible = v.only_possible && h.possible;
  }
  return v;
}

// Runs `dispatch` for a mutant on a fresh device of `backend` and checks the verdict: no hazard,
// the right results (checked inside dispatch); a hazard, a lost dispatch whose logged message is
// word for word one of the checker's (around loops the virtual GPU meets the hazards in execution
// order, not program order).
void judge(const std::string& backend, const Mutant& mutant, ir3::RegisterFile file,
           const std::function<void(Device&, const std::vector<std::uint64_t>&)>& dispatch) {
  INFO(backend << ": " << mutant.what);
  const Verdict verdict = verdict_of(mutant.words, file, instruction_set_of(backend));
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
  INFO(log);
  if (verdict.hazards.empty()) {
    CHECK_FALSE(lost);
  } else if (verdict.only_possible) {
    // A relative operand: the checker cannot know a0.x; the virtual GPU decides for each fiber.
    if (lost) CHECK(log.find("timing hazard") != std::string::npos);
  } else {
    REQUIRE(lost);
    CHECK(log.find("timing hazard") != std::string::npos);
    const bool named = std::any_of(verdict.messages.begin(), verdict.messages.end(),
                                   [&](const std::string& m) { return log.find(m) != std::string::npos; });
    for (const std::string& m : verdict.messages) UNSCOPED_INFO("checker: " << m);
    CHECK(named);
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

// The lines of `source` that are directives.
std::string directives_of(const std::string& source) {
  std::string directives;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);)
    if (line.find('@') != std::string::npos && line.find(';') == std::string::npos) directives += line + "\n";
  return directives;
}

// Assembly source for `words` as they are: the directives, then one `raw` line per word.
std::string raw_source(const std::string& directives, const std::vector<std::uint64_t>& words) {
  std::string text = directives;
  char raw[40];
  for (std::uint64_t word : words) {
    std::snprintf(raw, sizeof raw, "raw 0x%016llx\n", static_cast<unsigned long long>(word));
    text += raw;
  }
  return text;
}

// The example kernels, SGEMM with its sizes prepended (gemm::program's constants) for a 32×16
// result over K = 32: four work groups, two trips round its loop.
constexpr gemm::Shape kSgemmShape{32, 16, 32};
std::string example_source(const std::string& name) {
  const std::string source = read_text(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / (name + ".s"));
  if (name != "sgemm") return source;
  return "@const(c2.x) " + std::to_string(kSgemmShape[1]) + ", " + std::to_string(kSgemmShape[2]) + ", " +
         std::to_string(kSgemmShape[2] / 16) + ", 0\n" + source;
}

// Runs example kernel `name` on random inputs and checks every output: the element-wise kernels
// and reverse over two work groups, SGEMM over kSgemmShape against the host loop.
void run_example(Device& device, const Program& program, const std::string& name, WaveSize wave, std::mt19937& rng) {
  Queue queue(device);
  if (name == "sgemm") {
    const auto [m, n, k] = kSgemmShape;
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> a(std::size_t{m} * k), b(std::size_t{k} * n);
    for (float& x : a) x = value(rng);
    for (float& x : b) x = value(rng);
    Buffer buffer_a = device.allocate({.size = a.size() * 4}), buffer_b = device.allocate({.size = b.size() * 4});
    Buffer buffer_c = upload(device, std::vector<std::uint32_t>(std::size_t{m} * n, 0xaaaaaaaau));
    std::memcpy(buffer_a.cpu_view().data(), a.data(), a.size() * 4);
    std::memcpy(buffer_b.cpu_view().data(), b.data(), b.size() * 4);
    Arguments arguments(program);
    arguments.set_buffer(0, buffer_c).set_buffer(1, buffer_a).set_buffer(2, buffer_b);
    queue.dispatch(program, arguments, Launch{.groups = {n / 8, m / 16, 1}, .local_size = {8, 16, 1}, .wave_size = wave});
    queue.finish(std::chrono::seconds(60));
    const std::vector<float> want = gemm::reference(a, b, kSgemmShape);
    const auto got = buffer_c.cpu_view().as<float>();
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(std::memcmp(&got[i], &want[i], 4) == 0);
    return;
  }
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

// A Mesa fixture, loaded through Program::from_ir3 with its metadata (instrlen following the
// words, which the legalizer may have lengthened), run as 2 work groups of 32 (one element for
// the scalar kernel): c = a + b.
void run_fixture(Device& device, const std::string& name, Ir3Metadata metadata, std::vector<std::uint64_t> words,
                 WaveSize wave, std::mt19937& rng) {
  metadata.instrlen = static_cast<std::uint32_t>((words.size() + 15) / 16);
  words.resize(std::size_t{metadata.instrlen} * 16, 0);  // nops up to the next 128 bytes
  Program program = Program::from_ir3(device, dwords(words), metadata);
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
}

// `source` without any (sy), (ss) or (nopN), and without its nop lines.
std::string without_waits(const std::string& source) {
  static const std::regex flags(R"(\((sy|ss|nop\d)\)\s*)"), nop_line(R"(^\s*(\([a-z0-9]+\))*nop\s*(;.*)?$)");
  std::string bare;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);)
    if (!std::regex_match(line, nop_line)) bare += std::regex_replace(line, flags, "") + "\n";
  return bare;
}

// Runs adreno-asm on `source` with `arguments`: its exit status and what it wrote to stderr.
std::pair<int, std::string> run_adreno_asm(const std::string& source, const std::string& arguments) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("adreno-hazard-" + std::to_string(::getpid()) + ".s");
  {
    std::ofstream out(file);
    out << source;
  }
  const std::string command = std::string(ADRENO_ASM_TOOL) + " " + arguments + " " + file.string() + " 2>&1 >/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::string text;
  for (int c; (c = std::fgetc(pipe)) != EOF;) text.push_back(static_cast<char>(c));
  const int status = ::pclose(pipe);
  std::filesystem::remove(file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

}  // namespace

// The a630 only: the mutants are of Mesa's a6xx words, which the a740 refuses to load
// (tests/dispatch/fixture_test.cpp); the next tests but one run the listings assembled for each.
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
        run_fixture(device, name, metadata, code, wave, rng);
      });
    }
  }
}

TEST_CASE("removing any wait from an example kernel faults naming the rule or changes nothing", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  const std::string name = GENERATE(as<std::string>{}, "vector_add", "mul_add", "reverse", "sgemm");
  const std::string source = example_source(name);
  // SGEMM is written without waits: its mutants are those of the legalized program, loop and all.
  const auto scheduling = name == "sgemm" ? ir3::Scheduling::legalize : ir3::Scheduling::as_written;
  const ir3::Generation gen = instruction_set_of(backend);
  const ir3::Program assembled = ir3::assemble(source, ir3::RegisterFile::split, scheduling, gen);
  REQUIRE(ir3::check(decode_through_end(assembled.words, gen), ir3::RegisterFile::split, gen).empty());
  const std::vector<Mutant> mutants = mutants_of(assembled.words, gen);
  if (name == "sgemm") CHECK(mutants.size() > 40);
  // The directives come from the source; the mutated words replace its instructions (`raw`).
  // The virtual GPU runs them with split registers, the mode the checker judged them in.
  const std::string directives = directives_of(source);
  std::mt19937 rng(static_cast<unsigned>(name.size()));
  for (const Mutant& mutant : mutants) {
    for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      judge(backend, mutant, ir3::RegisterFile::split, [&](Device& device, const std::vector<std::uint64_t>& code) {
        Program program =
            Program::from_ir3_assembly(device, raw_source(directives, code), /*legalize=*/false, RegisterMode::split);
        run_example(device, program, name, wave, rng);
      });
    }
  }
}

TEST_CASE("adreno-asm --check exits 1 naming the hazard of every mutant that has one, and 0 for the others", "[virtual-gpu][e2e][hazards][tools]") {
  // Every example kernel and every Mesa fixture; each is checked in its register mode, by the
  // test and by the tool (the fixtures' metadata says split: --split-registers).
  const std::string name = GENERATE(as<std::string>{}, "vector_add", "mul_add", "reverse", "sgemm", "vector32",
                                    "vector128", "multigroup", "scalar");
  const bool fixture = std::filesystem::exists(kFixtures / (name + ".json"));
  std::vector<std::uint64_t> words;
  std::string directives;
  auto file = ir3::RegisterFile::split;
  if (fixture) {
    file = load_ir3_metadata_json(kFixtures / (name + ".json")).merged_regs ? ir3::RegisterFile::merged
                                                                              : ir3::RegisterFile::split;
    words = read_words(kFixtures / (name + ".code.bin"));
  } else {
    const std::string source = example_source(name);
    const auto scheduling = name == "sgemm" ? ir3::Scheduling::legalize : ir3::Scheduling::as_written;
    words = ir3::assemble(source, file, scheduling).words;
    directives = directives_of(source);
  }
  const std::string mode = file == ir3::RegisterFile::split ? "--check --split-registers" : "--check";
  REQUIRE(verdict_of(words, file).hazards.empty());
  std::size_t hazardous = 0;
  for (const Mutant& mutant : mutants_of(words)) {
    INFO(mutant.what);
    const Verdict verdict = verdict_of(mutant.words, file);
    const auto [status, output] = run_adreno_asm(raw_source(directives, mutant.words), mode);
    INFO(output);
    if (verdict.hazards.empty()) {
      CHECK(status == 0);
      CHECK(output.empty());
      continue;
    }
    ++hazardous;
    CHECK(status == 1);
    CHECK(output.find("timing hazard: " + verdict.messages.front()) != std::string::npos);
  }
  CHECK(hazardous > 0);
}

TEST_CASE("example kernels stripped of every wait fault as written and run correctly once legalized", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  const std::string name = GENERATE(as<std::string>{}, "vector_add", "mul_add", "reverse", "sgemm");
  const std::string bare = without_waits(example_source(name));
  INFO(bare);
  // Split registers throughout: the checker here and the programs the virtual GPU runs.
  const auto file = ir3::RegisterFile::split;
  const ir3::Generation gen = instruction_set_of(backend);
  CHECK_FALSE(ir3::check(decode_through_end(ir3::assemble(bare, file, ir3::Scheduling::as_written, gen).words, gen), file, gen).empty());
  const ir3::Program legalized = ir3::assemble(bare, file, ir3::Scheduling::legalize, gen);
  CHECK(ir3::check(decode_through_end(legalized.words, gen), file, gen).empty());
  std::mt19937 rng(7);
  VirtualDevice device(backend);
  {
    for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      Program program = Program::from_ir3_assembly(*device, bare, /*legalize=*/true, RegisterMode::split);
      run_example(*device, program, name, wave, rng);
    }
    Program as_written = Program::from_ir3_assembly(*device, bare, /*legalize=*/false, RegisterMode::split);
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

TEST_CASE("Mesa fixtures stripped of every wait run correctly once legalized, in both wave sizes", "[virtual-gpu][e2e][hazards]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  const std::string name = GENERATE(as<std::string>{}, "vector32", "vector128", "multigroup", "scalar");
  const Ir3Metadata metadata = load_ir3_metadata_json(kFixtures / (name + ".json"));
  const auto file = metadata.merged_regs ? ir3::RegisterFile::merged : ir3::RegisterFile::split;
  const std::string bare = without_waits(fixture_listing_source(kFixtures / (name + ".disasm.txt")));
  INFO(bare);
  VirtualDevice device(backend);
  // Mesa's listing assembled for the device's instruction set: the words are ours, not Mesa's a630 code.
  const ir3::Generation gen = instruction_set_of(*device);
  Ir3Metadata assembled_metadata = metadata;
  assembled_metadata.compiled_for_gpu_id.reset();
  const ir3::Program as_written = ir3::assemble(bare, file, ir3::Scheduling::as_written, gen);
  REQUIRE_FALSE(ir3::check(decode_through_end(as_written.words, gen), file, gen).empty());
  const ir3::Program legalized = ir3::assemble(bare, file, ir3::Scheduling::legalize, gen);
  REQUIRE(ir3::check(decode_through_end(legalized.words, gen), file, gen).empty());
  std::mt19937 rng(static_cast<unsigned>(name.size()) + 40);
  for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128})
    run_fixture(*device, name, assembled_metadata, legalized.words, wave, rng);
  try {
    run_fixture(*device, name, assembled_metadata, as_written.words, WaveSize::thread64, rng);
    FAIL("the fixture without waits retired");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
  }
  device.close_and_check_ledger();
}

namespace {

// A kernel for the rule-by-rule mutants: out[i] (c0.xy) for 64 fibers from in (c0.zw).
struct RuleKernel {
  const char* rule;
  std::string source;
  std::function<std::uint32_t(std::uint32_t id, const std::vector<std::uint32_t>& in)> expected;
  // Each mutant: the text it replaces, what with, and words the fault must contain.
  struct Mutation {
    std::string from, to;
    std::vector<std::string> fault;
  };
  std::vector<Mutation> mutations;
};

std::vector<RuleKernel> rule_kernels() {
  const std::string header = R"(@localsize 64, 1, 1
@buf 64 (c0.x)
@buf 64 (c0.z)
@invocationid(r0.x)
    mov.u32u32 r2.x, c0.z
    mov.u32u32 r2.y, c0.w
    mov.u32u32 r3.x, c0.x
    mov.u32u32 r3.y, c0.y
    (rpt5)nop
)";
  const std::string store = R"(
    (rpt5)nop
    stg.a.u32 g[r3.x+(r0.x<<2)], r1.x, 1
    end
)";
  return {
      // ir3_legalize.c sync_update: is_barrier forces (ss)(sy) on the next instruction.
      {"barrier",
       "@localmem 256\n" + header + R"(    ldg.a.u32 r1.y, g[r2.x+(r0.x<<2)], 1
    (sy)shl.b r0.y, r0.x, 2
    (rpt5)nop
    stl.u32 l[r0.y], r1.y, 1
    bar
    (ss)(sy)nop
    xor.b r0.z, r0.y, 4
    (rpt5)nop
    ldl.u32 r1.x, l[r0.z], 1
    (ss)nop)" + store,
       [](std::uint32_t id, const std::vector<std::uint32_t>& in) { return in[id ^ 1]; },
       {{"(ss)(sy)nop\n    xor", "(sy)nop\n    xor", {"`xor.b r0.z, r0.y, 4` (instruction 11) is the first instruction after `bar`", "fix: add (ss)"}},
        {"(ss)(sy)nop\n    xor", "(ss)nop\n    xor", {"is the first instruction after `bar` (instruction 9)", "fix: add (sy)"}},
        {"(ss)(sy)nop\n    xor", "xor", {"`xor.b r0.z, r0.y, 4` (instruction 10) is the first instruction after `bar`", "fix: add (ss)(sy)"}}}},
      // ir3_legalize.c sync_update: a shared destination needs (ss), a load (sy), both here.
      {"shared-register load",
       header + R"(    ldg.u32 r48.y, g[r2.x], 1
    (ss)(sy)add.u r1.x, r48.y, r0.x)" + store,
       [](std::uint32_t id, const std::vector<std::uint32_t>& in) { return in[0] + id; },
       {{"(ss)(sy)add", "(sy)add",
         {"`(sy)add.u r1.x, r48.y, r0.x` (instruction 6) reads r48.y before a load from memory into a shared register", "fix: add (ss)"}},
        {"(ss)(sy)add", "(ss)add", {"reads r48.y before a load from memory into a shared register", "fix: add (sy)"}}}},
      // ir3_legalize.c delay_update: a relative destination is an ALU write like any other;
      // each fiber writes r4.x or r4.y as its a0.x says.
      {"relative write",
       header + R"(    ldg.a.u32 r4.y, g[r2.x+(r0.x<<2)], 1
    mov.u32u32 r4.x, 10
    and.b r0.y, r0.x, 1
    (rpt2)nop
    cov.u32s16 hr10.x, r0.y
    (rpt2)nop
    mova a0.x, hr10.x
    (rpt5)nop
    (sy)mov.u32u32 r<a0.x + 16>, r0.x
    (rpt2)nop
    add.u r1.x, r4.x, r4.y)" + store,
       [](std::uint32_t id, const std::vector<std::uint32_t>& in) { return id % 2 ? 10 + id : id + in[id]; },
       {{"(sy)mov.u32u32 r<a0.x + 16>", "mov.u32u32 r<a0.x + 16>",
         {"`mov.u32u32 r<a0.x + 16>, r0.x` (instruction 13) overwrites r4.y (through its relative operand) while a load from memory", "fix: add (sy)"}},
        {"(rpt2)nop\n    add.u r1.x", "(rpt1)nop\n    add.u r1.x",
         {"`add.u r1.x, r4.x, r4.y` (instruction 15) reads r4.", "before an ALU result from `(sy)mov.u32u32 r<a0.x + 16>, r0.x`", "fix: needs 1 more delay slot"}}}},
  };
}

void run_rule_kernel(Device& device, const RuleKernel& kernel, const std::string& source, WaveSize wave, std::mt19937& rng) {
  Program program = Program::from_ir3_assembly(device, source);
  std::vector<std::uint32_t> in(64);
  for (std::uint32_t& x : in) x = rng();
  Buffer out = upload(device, std::vector<std::uint32_t>(64, 0xaaaaaaaau)), input = upload(device, in);
  Arguments arguments(program);
  arguments.set_buffer(0, out).set_buffer(1, input);
  Queue queue(device);
  queue.dispatch(program, arguments, Launch{.groups = {1, 1, 1}, .local_size = {64, 1, 1}, .wave_size = wave});
  queue.finish(std::chrono::seconds(60));
  const auto c = out.cpu_view().as<std::uint32_t>();
  for (std::uint32_t i = 0; i < 64; ++i) REQUIRE(c[i] == kernel.expected(i, in));
}

}  // namespace

// The a630 only: the kernels address memory with a6xx's shifted-index ldg.a/stg.a form, which
// a7xx does not have (Mesa isaspec, ir3-cat6.xml: the a7xx form has no shift), and adreno-asm
// --check reads them as a6xx.
TEST_CASE("dropping a barrier's waits, a shared-register load's (ss) or a relative write's wait faults as the rules say, and adreno-asm --check finds it", "[virtual-gpu][e2e][hazards][tools]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  std::mt19937 rng(15);
  for (const RuleKernel& kernel : rule_kernels()) {
    INFO(kernel.rule << ":\n" << kernel.source);
    {
      // As written it is legal and right.
      CHECK(run_adreno_asm(kernel.source, "--check").first == 0);
      VirtualDevice device(backend);
      for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) run_rule_kernel(*device, kernel, kernel.source, wave, rng);
      device.close_and_check_ledger();
    }
    for (const RuleKernel::Mutation& mutation : kernel.mutations) {
      std::string source = kernel.source;
      const std::size_t at = source.find(mutation.from);
      REQUIRE(at != std::string::npos);
      source.replace(at, mutation.from.size(), mutation.to);
      INFO("mutant: `" << mutation.from << "` -> `" << mutation.to << "`");
      const auto [status, output] = run_adreno_asm(source, "--check");
      INFO(output);
      CHECK(status == 1);
      for (const WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
        VirtualDevice device(backend);
        std::string fault;
        const std::string log = captured_log([&] {
          try {
            run_rule_kernel(*device, kernel, source, wave, rng);
          } catch (const Error& error) {
            CHECK(error.code() == Errc::device_lost);
            fault = error.what();
          }
        });
        INFO(log);
        REQUIRE_FALSE(fault.empty());
        for (const std::string& words : mutation.fault) {
          CHECK(log.find(words) != std::string::npos);
          // What the checker says about the barrier and the shared load is the same sentence.
          if (kernel.rule != std::string("relative write")) CHECK(output.find(words) != std::string::npos);
        }
        device.close_and_check_ledger();
      }
    }
  }
}
