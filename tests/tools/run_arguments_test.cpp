// [pure] adreno-run's command-line syntax (tools/run_arguments.h): what it accepts becomes typed
// values, and each bad value is an adreno::Error(invalid_argument) naming the option or argument,
// the field and the text — never an untyped std::invalid_argument from std::stoul.
#include "run_arguments.h"

#include <catch2/catch.hpp>

#include <bit>
#include <string>
#include <vector>

using namespace adreno_run;

namespace {

// The detail of the error `parse` throws (which must be adreno-run's invalid_argument).
template <typename Parse>
std::string refusal(Parse&& parse) {
  try {
    parse();
  } catch (const adreno::Error& error) {
    CHECK(error.code() == adreno::Errc::invalid_argument);
    CHECK(error.operation() == "adreno-run");
    return error.detail();
  }
  FAIL("accepted");
  return {};
}

}  // namespace

TEST_CASE("adreno-run's fills, scalars, --print and --save parse into typed values", "[pure][tools]") {
  const ArgumentSpec random = parse_argument("buf:16xf32:random:4294967295");
  CHECK(random.is_buffer);
  CHECK(random.count == 16);
  CHECK(random.type->type == ElementType::f32);
  CHECK(random.fill.kind == FillKind::random);
  CHECK(random.fill.seed == 4294967295u);
  CHECK(parse_argument("buf:3xu8:random").fill.seed == 1);
  CHECK(parse_argument("buf:3xu8").fill.kind == FillKind::zeros);
  const ArgumentSpec file = parse_argument("buf:2xu32:file:/tmp/a:b");
  CHECK(file.fill.kind == FillKind::file);
  CHECK(file.fill.path == "/tmp/a:b");

  CHECK(parse_argument("u32:0x10").bits == 16);
  CHECK(parse_argument("u32:4294967295").bits == 0xffffffffu);
  CHECK(parse_argument("i32:-2147483648").bits == 0x80000000u);
  CHECK(parse_argument("i32:-1").bits == 0xffffffffu);
  CHECK(parse_argument("u8:0377").bits == 255);
  CHECK(parse_argument("u16:65535").bits == 65535);
  CHECK(parse_argument("f32:1.5").bits == std::bit_cast<std::uint32_t>(1.5f));
  CHECK(parse_argument("f32:-0.25").bits == std::bit_cast<std::uint32_t>(-0.25f));

  const PrintSpec print = parse_print("2:hex");
  CHECK(print.index == 2);
  CHECK(print.format == PrintFormat::hex);
  CHECK(parse_print("0").format == PrintFormat::natural);
  CHECK(parse_print("1:int").format == PrintFormat::integer);
  CHECK(parse_print("1:float").format == PrintFormat::floating);
  const SaveSpec save = parse_save("1:/tmp/out:1.bin");
  CHECK(save.index == 1);
  CHECK(save.path == "/tmp/out:1.bin");
  CHECK(parse_size3("4294967295,2", "--groups") == std::array<std::uint32_t, 3>{4294967295u, 2, 1});
}

TEST_CASE("a bad random seed is refused naming the argument and the seed", "[pure][tools]") {
  CHECK(refusal([] { parse_argument("buf:4xu32:random:seven"); }) ==
        "'buf:4xu32:random:seven': 'seven' is not a random seed (0 to 4294967295)");
  CHECK(refusal([] { parse_argument("buf:4xu32:random:4294967296"); }) ==
        "'buf:4xu32:random:4294967296': '4294967296' is not a random seed (0 to 4294967295)");
  CHECK(refusal([] { parse_argument("buf:4xu32:random:-1"); }) ==
        "'buf:4xu32:random:-1': '-1' is not a random seed (0 to 4294967295)");
  CHECK(refusal([] { parse_argument("buf:4xu32:random:"); }) == "'buf:4xu32:random:': '' is not a random seed (0 to 4294967295)");
  CHECK(refusal([] { parse_argument("buf:4xu32:random7"); }) ==
        "'buf:4xu32:random7': unknown fill 'random7' (zeros, iota, random[:SEED], file:PATH)");
  CHECK(refusal([] { parse_argument("buf:4xf16:iota"); }) == "'buf:4xf16:iota': iota is not defined for f16 buffers; use random or a file");
  CHECK(refusal([] { parse_argument("buf:4xu32:file:"); }) == "'buf:4xu32:file:': file: needs a path");
}

TEST_CASE("bad element counts, scalars and sizes are refused naming the field", "[pure][tools]") {
  CHECK(refusal([] { parse_argument("buf: 4xu32"); }) == "'buf: 4xu32': ' 4' is not an element count");
  CHECK(refusal([] { parse_argument("buf:4kxu32"); }) == "'buf:4kxu32': '4k' is not an element count");
  CHECK(refusal([] { parse_argument("buf:-4xu32"); }) == "'buf:-4xu32': '-4' is not an element count");
  CHECK(refusal([] { parse_argument("buf:0xu32"); }) == "'buf:0xu32': a buffer needs at least one element");
  CHECK(refusal([] { parse_argument("u32:4294967296"); }) == "'u32:4294967296': '4294967296' is not a u32 value");
  CHECK(refusal([] { parse_argument("u8:256"); }) == "'u8:256': '256' is not a u8 value");
  CHECK(refusal([] { parse_argument("u32:-1"); }) == "'u32:-1': '-1' is not a u32 value");
  CHECK(refusal([] { parse_argument("i32:2147483648"); }) == "'i32:2147483648': '2147483648' is not an i32 value");
  CHECK(refusal([] { parse_argument("i32:12abc"); }) == "'i32:12abc': '12abc' is not an i32 value");
  CHECK(refusal([] { parse_argument("f32:one"); }) == "'f32:one': 'one' is not an f32 value");
  CHECK(refusal([] { parse_argument("f32:"); }) == "'f32:': '' is not an f32 value");
  CHECK(refusal([] { parse_size3("4294967296", "--groups"); }) == "--groups: '4294967296' is not a number below 2^32");
  CHECK(refusal([] { parse_size3("8,,2", "--local"); }) == "--local: '' is not a number below 2^32");
}

TEST_CASE("bad --print and --save values are refused naming the option and the field", "[pure][tools]") {
  CHECK(refusal([] { parse_print("x"); }) == "--print x: 'x' is not an argument index");
  CHECK(refusal([] { parse_print("-1:hex"); }) == "--print -1:hex: '-1' is not an argument index");
  CHECK(refusal([] { parse_print(":hex"); }) == "--print :hex: '' is not an argument index");
  CHECK(refusal([] { parse_print("0:octal"); }) == "--print 0:octal: 'octal' is not a format (hex, int, float)");
  CHECK(refusal([] { parse_save("out.bin"); }) == "--save out.bin: expected N:PATH");
  CHECK(refusal([] { parse_save("one:out.bin"); }) == "--save one:out.bin: 'one' is not an argument index");
  CHECK(refusal([] { parse_save("0:"); }) == "--save 0:: the path is empty");

  const std::vector<ArgumentSpec> specs = {parse_argument("buf:4xu32"), parse_argument("u32:7")};
  CHECK(buffer_argument(specs, 0, "--print 0").count == 4);
  CHECK(refusal([&] { buffer_argument(specs, 1, "--print 1"); }) == "--print 1: argument 1 is not a buffer");
  CHECK(refusal([&] { buffer_argument(specs, 2, "--save 2:x"); }) == "--save 2:x: there is no argument 2 (the kernel takes 2)");
}
