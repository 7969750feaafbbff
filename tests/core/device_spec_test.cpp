// [pure] The ADRENO_DEVICE grammar.
#include "core/device_spec.h"

#include <adreno/error.hpp>
#include <catch2/catch.hpp>

using adreno::DeviceSpec;
using adreno::parse_device_spec;

TEST_CASE("every documented device form parses to its kind and argument", "[pure][device]") {
  struct Case {
    const char* text;
    DeviceSpec::Kind kind;
    const char* argument;
  };
  const Case cases[] = {
      {"kgsl", DeviceSpec::Kind::kgsl, ""},
      {"kgsl:/dev/kgsl-3d1", DeviceSpec::Kind::kgsl, "/dev/kgsl-3d1"},
      {"msm", DeviceSpec::Kind::msm, ""},
      {"msm:/dev/dri/renderD129", DeviceSpec::Kind::msm, "/dev/dri/renderD129"},
      {"virtual-kgsl", DeviceSpec::Kind::virtual_kgsl, ""},
      {"virtual-kgsl:a630", DeviceSpec::Kind::virtual_kgsl, "a630"},
      {"virtual-msm:a660", DeviceSpec::Kind::virtual_msm, "a660"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    DeviceSpec spec = parse_device_spec(c.text);
    CHECK(spec.kind == c.kind);
    CHECK(spec.argument == c.argument);
  }
}

TEST_CASE("malformed device names are refused with the accepted forms", "[pure][device]") {
  for (const char* text : {"", "kgsl:", "cuda", "virtual", "virtual-kgsl:", "KGSL"}) {
    INFO(text);
    try {
      parse_device_spec(text);
      FAIL("accepted");
    } catch (const adreno::Error& error) {
      CHECK(error.code() == adreno::Errc::invalid_argument);
      CHECK(std::string(error.what()).find("virtual-msm[:model]") != std::string::npos);
    }
  }
}
