// [pure] Graph scheduling: dependency levels, barrier placement and the optional passes on DAGs
// whose answers are known by hand.
#include "core/graph_schedule.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace adreno;

namespace {

// Resources are the addresses of these objects.
int A, B, C, D, E, F;

ScheduleAccess r(const int& x) { return {&x, true, false}; }
ScheduleAccess w(const int& x) { return {&x, false, true}; }
ScheduleAccess rw(const int& x) { return {&x, true, true}; }

struct Dag {
  std::vector<std::vector<ScheduleAccess>> accesses;  // one list per node; empty list + sync flag for syncs
  std::vector<bool> sync;
  std::vector<int> work;  // same_work compares these

  Dag& dispatch(std::vector<ScheduleAccess> a, int what = -1) {
    accesses.push_back(std::move(a));
    sync.push_back(false);
    work.push_back(what < 0 ? static_cast<int>(work.size()) + 1000 : what);
    return *this;
  }
  Dag& sync_point() {
    accesses.emplace_back();
    sync.push_back(true);
    work.push_back(-1);
    return *this;
  }
  Schedule run(ScheduleOptions options = {}) const {
    std::vector<ScheduleNode> nodes;
    for (std::size_t i = 0; i < accesses.size(); ++i) nodes.push_back(ScheduleNode{sync[i], accesses[i]});
    return schedule(nodes, options, [&](std::size_t a, std::size_t b) { return work[a] == work[b]; });
  }
};

std::vector<std::size_t> barrier_positions(const Schedule& s) {
  std::vector<std::size_t> at;
  for (std::size_t k = 0; k < s.order.size(); ++k)
    if (s.barrier_before[k]) at.push_back(k);
  return at;
}

}  // namespace

TEST_CASE("a chain of dependent dispatches has one level per dispatch and a barrier between each", "[pure][graph]") {
  const Schedule s = Dag().dispatch({r(A), w(B)}).dispatch({r(B), w(C)}).dispatch({r(C), w(D)}).run();
  CHECK(s.levels == 3);
  CHECK(s.level == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(s.barriers == 2);
  CHECK(barrier_positions(s) == std::vector<std::size_t>{1, 2});
}

TEST_CASE("independent dispatches share a level and run with no barrier between them", "[pure][graph]") {
  // Fan out from A into B, C, D (all read A), then one join reading all three.
  const Schedule s = Dag()
                         .dispatch({r(A), w(B)})
                         .dispatch({r(A), w(C)})
                         .dispatch({r(A), w(D)})
                         .dispatch({r(B), r(C), r(D), w(E)})
                         .run();
  CHECK(s.level == std::vector<std::uint32_t>{0, 0, 0, 1});
  CHECK(s.levels == 2);
  CHECK(s.barriers == 1);
  CHECK(barrier_positions(s) == std::vector<std::size_t>{3});
}

TEST_CASE("write-after-read and write-after-write are dependencies but read-after-read is not", "[pure][graph]") {
  const Schedule war = Dag().dispatch({r(A), w(B)}).dispatch({w(A)}).run();
  CHECK(war.level == std::vector<std::uint32_t>{0, 1});
  CHECK(war.barriers == 1);
  const Schedule waw = Dag().dispatch({w(A)}).dispatch({w(A)}).run();
  CHECK(waw.barriers == 1);
  const Schedule rar = Dag().dispatch({r(A), w(B)}).dispatch({r(A), w(C)}).run();
  CHECK(rar.barriers == 0);
  CHECK(rar.levels == 1);
  // A reader after two independent readers and a later writer sits above the writer.
  const Schedule mixed = Dag().dispatch({r(A), w(B)}).dispatch({r(A), w(C)}).dispatch({rw(A)}).dispatch({r(A), w(D)}).run();
  CHECK(mixed.level == std::vector<std::uint32_t>{0, 0, 1, 2});
}

TEST_CASE("ordering by level puts one barrier between levels instead of one per dependent pair", "[pure][graph]") {
  // Two independent chains recorded one after the other: A→B→C and D→E→F.
  Dag dag;
  dag.dispatch({r(A), w(B)}).dispatch({r(B), w(C)}).dispatch({r(D), w(E)}).dispatch({r(E), w(F)});
  const Schedule as_recorded = dag.run();
  CHECK(as_recorded.order == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(as_recorded.barriers == 2);  // before 1, and before 3 (2 is independent of 1)
  CHECK(barrier_positions(as_recorded) == std::vector<std::size_t>{1, 3});
  const Schedule by_level = dag.run({.order_by_level = true});
  CHECK(by_level.order == std::vector<std::size_t>{0, 2, 1, 3});
  CHECK(by_level.barriers == 1);
  CHECK(barrier_positions(by_level) == std::vector<std::size_t>{2});
}

TEST_CASE("ordering by level never moves a dispatch across a signal or wait", "[pure][graph]") {
  Dag dag;
  dag.dispatch({r(A), w(B)}).dispatch({r(B), w(C)}).sync_point().dispatch({r(D), w(E)});
  const Schedule s = dag.run({.order_by_level = true});
  CHECK(s.order == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(s.level[2] == Schedule::kNoLevel);
}

TEST_CASE("duplicate dispatches are dropped only when nothing they touch changed in between", "[pure][graph]") {
  SECTION("identical work with only readers in between is dropped") {
    const Schedule s = Dag().dispatch({r(A), w(B)}, 1).dispatch({r(B), w(C)}, 2).dispatch({r(A), w(B)}, 1).run({.drop_duplicates = true});
    CHECK(s.kept == std::vector<std::size_t>{0, 1, 0});
    CHECK(s.order == std::vector<std::size_t>{0, 1});
    CHECK(s.barriers == 1);
  }
  SECTION("a write to its input in between keeps it") {
    const Schedule s = Dag().dispatch({r(A), w(B)}, 1).dispatch({w(A)}, 2).dispatch({r(A), w(B)}, 1).run({.drop_duplicates = true});
    CHECK(s.kept == std::vector<std::size_t>{0, 1, 2});
  }
  SECTION("a write to its output in between keeps it") {
    const Schedule s = Dag().dispatch({r(A), w(B)}, 1).dispatch({w(B)}, 2).dispatch({r(A), w(B)}, 1).run({.drop_duplicates = true});
    CHECK(s.kept == std::vector<std::size_t>{0, 1, 2});
  }
  SECTION("a dispatch that reads what it writes is never dropped") {
    const Schedule s = Dag().dispatch({rw(A)}, 1).dispatch({rw(A)}, 1).run({.drop_duplicates = true});
    CHECK(s.kept == std::vector<std::size_t>{0, 1});
  }
  SECTION("a sync point in between keeps it") {
    const Schedule s = Dag().dispatch({r(A), w(B)}, 1).sync_point().dispatch({r(A), w(B)}, 1).run({.drop_duplicates = true});
    CHECK(s.kept == std::vector<std::size_t>{0, 1, 2});
  }
  SECTION("off by default") {
    const Schedule s = Dag().dispatch({r(A), w(B)}, 1).dispatch({r(A), w(B)}, 1).run();
    CHECK(s.kept == std::vector<std::size_t>{0, 1});
    CHECK(s.barriers == 1);
  }
}
