// C entry points: graphs.
#include "capi/convert.h"
#include "capi/registry.h"
#include "capi/status.h"

using namespace adreno;
using namespace adreno::capi;

namespace {

using SyncRecorder = GraphSync (Graph::*)(const Signal&, std::uint64_t);

adreno_status record_sync(const char* function, adreno_graph graph, adreno_signal signal, uint64_t value,
                          uint32_t* sync, SyncRecorder record) {
  return guarded(function, [&] {
    auto g = lookup(graph, "graph");
    const GraphSync recorded = (g->graph.*record)(lookup(signal, "signal")->signal, value);
    if (sync != nullptr) *sync = static_cast<uint32_t>(recorded);
  });
}

}  // namespace

extern "C" {

adreno_status adreno_graph_create(adreno_device device, adreno_graph* graph) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(graph, "graph");
    publish(std::make_shared<GraphObject>(owner->device), graph);
  });
}

adreno_status adreno_graph_release(adreno_graph graph) {
  return guarded(__func__, [&] { withdraw(graph, "graph"); });
}

adreno_status adreno_graph_dispatch(adreno_graph graph, adreno_program program, adreno_arguments arguments,
                                    const adreno_launch* launch, const adreno_access* access, size_t access_count,
                                    uint32_t* dispatch) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    auto p = lookup(program, "program");
    auto a = lookup(arguments, "arguments");
    const std::vector<Access> accesses = access_of(access, access_count);
    const GraphDispatch recorded = g->graph.dispatch(p->program, a->arguments, launch_of(launch), accesses);
    if (dispatch != nullptr) *dispatch = static_cast<uint32_t>(recorded);
  });
}

adreno_status adreno_graph_dispatch_indirect(adreno_graph graph, adreno_program program, adreno_arguments arguments,
                                             adreno_buffer groups, const adreno_indirect_launch* launch,
                                             const adreno_access* access, size_t access_count, uint32_t* dispatch) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    auto p = lookup(program, "program");
    auto a = lookup(arguments, "arguments");
    auto counts = lookup(groups, "groups");
    const std::vector<Access> accesses = access_of(access, access_count);
    const GraphDispatch recorded =
        g->graph.dispatch_indirect(p->program, a->arguments, counts->view, indirect_launch_of(launch), accesses);
    if (dispatch != nullptr) *dispatch = static_cast<uint32_t>(recorded);
  });
}

adreno_status adreno_graph_signal(adreno_graph graph, adreno_signal signal, uint64_t value, uint32_t* sync) {
  return record_sync(__func__, graph, signal, value, sync, &Graph::signal);
}

adreno_status adreno_graph_wait(adreno_graph graph, adreno_signal signal, uint64_t value, uint32_t* sync) {
  return record_sync(__func__, graph, signal, value, sync, &Graph::wait);
}

adreno_status adreno_graph_build(adreno_graph graph, uint32_t options) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    constexpr std::uint32_t kKnown = ADRENO_GRAPH_DROP_DUPLICATES | ADRENO_GRAPH_ORDER_BY_LEVEL;
    if ((options & ~kKnown) != 0) {
      throw Error(Errc::invalid_argument, "build graph",
                  "options " + std::to_string(options) + " has bits adreno.h does not define");
    }
    g->graph.build({.drop_duplicates = (options & ADRENO_GRAPH_DROP_DUPLICATES) != 0,
                    .order_by_level = (options & ADRENO_GRAPH_ORDER_BY_LEVEL) != 0});
  });
}

adreno_status adreno_graph_get_info(adreno_graph graph, adreno_graph_info* info) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    require(info, "info");
    *info = adreno_graph_info{.dispatch_count = g->graph.dispatch_count(),
                              .levels = g->graph.levels(),
                              .barriers = g->graph.barriers(),
                              .command_dwords = g->graph.command_dwords()};
  });
}

adreno_status adreno_graph_set_buffer(adreno_graph graph, uint32_t dispatch, uint32_t argument, adreno_buffer buffer) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    g->graph.set_buffer(GraphDispatch{dispatch}, argument, lookup(buffer, "buffer")->view);
  });
}

adreno_status adreno_graph_set_bytes(adreno_graph graph, uint32_t dispatch, uint32_t argument, const void* data,
                                     size_t size) {
  return guarded(__func__, [&] {
    lookup(graph, "graph")->graph.set_bytes(GraphDispatch{dispatch}, argument, bytes_of(data, size));
  });
}

adreno_status adreno_graph_set_texture(adreno_graph graph, uint32_t dispatch, uint32_t argument,
                                       const adreno_image_desc* image) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    g->graph.set_texture(GraphDispatch{dispatch}, argument, image_desc_of(image));
  });
}

adreno_status adreno_graph_set_storage_image(adreno_graph graph, uint32_t dispatch, uint32_t argument,
                                             const adreno_image_desc* image) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    g->graph.set_storage_image(GraphDispatch{dispatch}, argument, image_desc_of(image));
  });
}

adreno_status adreno_graph_set_value(adreno_graph graph, uint32_t sync, uint64_t value) {
  return guarded(__func__, [&] { lookup(graph, "graph")->graph.set_value(GraphSync{sync}, value); });
}

adreno_status adreno_graph_set_launch(adreno_graph graph, uint32_t dispatch, const adreno_launch* launch) {
  return guarded(__func__, [&] { lookup(graph, "graph")->graph.set_launch(GraphDispatch{dispatch}, launch_of(launch)); });
}

adreno_status adreno_graph_replay(adreno_graph graph, adreno_queue queue) {
  return guarded(__func__, [&] {
    auto g = lookup(graph, "graph");
    g->graph.replay(lookup(queue, "queue")->queue);
  });
}

}  // extern "C"
