// [pure] The GEM_SUBMIT table the MSM backend builds from IbRefs and BoUses.
#include "msm/submit_table.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>

using namespace adreno;
namespace uapi = adreno::msm::uapi;

TEST_CASE("the submit table lists every referenced object once with the union of its uses", "[pure][msm]") {
  std::mt19937 rng(20261202);
  for (int round = 0; round < 50; ++round) {
    std::vector<Bo> objects(1 + rng() % 8);
    for (std::size_t i = 0; i < objects.size(); ++i) {
      objects[i] = Bo{static_cast<std::uint32_t>(1 + i * 3 + rng() % 3), 4096 * (1 + rng() % 4), GpuAddress(0x100000000ull + i * 0x100000), {}};
    }
    std::vector<IbRef> ibs;
    std::vector<BoUse> uses;
    std::map<std::uint32_t, std::uint32_t> expected;  // handle → flags
    for (unsigned n = 1 + rng() % 4; n > 0; --n) {
      const Bo& bo = objects[rng() % objects.size()];
      const std::uint32_t dwords = 1 + rng() % 64;
      ibs.push_back(IbRef{&bo, 4 * (rng() % 16), dwords});
      expected[bo.handle] |= uapi::MSM_SUBMIT_BO_READ | uapi::MSM_SUBMIT_BO_DUMP;  // msm_drm.h: captured on a crash
    }
    for (unsigned n = rng() % 10; n > 0; --n) {
      const Bo& bo = objects[rng() % objects.size()];
      const bool write = rng() & 1;
      uses.push_back(BoUse{&bo, write});
      expected[bo.handle] |= uapi::MSM_SUBMIT_BO_READ | (write ? uapi::MSM_SUBMIT_BO_WRITE : 0u);
    }
    msm::SubmitTable table = msm::build_submit_table(ibs, uses);

    std::map<std::uint32_t, std::uint32_t> listed;
    for (const auto& entry : table.bos) {
      CHECK(entry.presumed == 0);
      CHECK(listed.emplace(entry.handle, entry.flags).second);  // no handle twice
    }
    CHECK(listed == expected);
    REQUIRE(table.cmds.size() == ibs.size());
    for (std::size_t i = 0; i < ibs.size(); ++i) {
      const auto& cmd = table.cmds[i];
      CHECK(cmd.type == uapi::MSM_SUBMIT_CMD_BUF);
      REQUIRE(cmd.submit_idx < table.bos.size());
      CHECK(table.bos[cmd.submit_idx].handle == ibs[i].bo->handle);
      CHECK(cmd.submit_offset == ibs[i].offset);
      CHECK(cmd.size == ibs[i].dwords * 4);
      CHECK(cmd.pad == 0);
      CHECK(cmd.nr_relocs == 0);
      CHECK(cmd.relocs == 0);
    }
  }
}

TEST_CASE("IBs the UAPI cannot express are refused before the kernel sees them", "[pure][msm]") {
  const Bo bo{7, 4096, GpuAddress(0x100000000ull), {}};
  const std::vector<IbRef> bad = {
      IbRef{&bo, 0, 0},      // empty
      IbRef{&bo, 2, 4},      // not dword-aligned
      IbRef{&bo, 4092, 2},   // runs past the end
      IbRef{&bo, 1ull << 33, 1},  // offset beyond 32 bits
  };
  for (const IbRef& ib : bad) {
    try {
      msm::build_submit_table(std::span(&ib, 1), {});
      FAIL("accepted IB at offset " << ib.offset << " with " << ib.dwords << " dwords");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(error.detail().find("GEM handle 7") != std::string::npos);
    }
  }
}
