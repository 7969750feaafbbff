// C entry points: timeline signals.
#include "capi/registry.h"
#include "capi/status.h"

#include <string>

using namespace adreno;
using namespace adreno::capi;

extern "C" {

adreno_status adreno_signal_create(adreno_device device, uint64_t initial, adreno_signal* signal) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(signal, "signal");
    publish(std::make_shared<SignalObject>(owner->device, initial), signal);
  });
}

adreno_status adreno_signal_release(adreno_signal signal) {
  return guarded(__func__, [&] { withdraw(signal, "signal"); });
}

adreno_status adreno_signal_value(adreno_signal signal, uint64_t* value) {
  return guarded(__func__, [&] {
    auto object = lookup(signal, "signal");
    require(value, "value");
    *value = object->signal.value();
  });
}

adreno_status adreno_signal_set(adreno_signal signal, uint64_t value) {
  return guarded(__func__, [&] { lookup(signal, "signal")->signal.set(value); });
}

adreno_status adreno_signal_gpu_address(adreno_signal signal, uint64_t* gpu_address) {
  return guarded(__func__, [&] {
    auto object = lookup(signal, "signal");
    require(gpu_address, "gpu_address");
    *gpu_address = object->signal.gpu_address().value();
  });
}

adreno_status adreno_signal_wait(adreno_signal signal, uint64_t target, uint64_t timeout_ns) {
  return guarded(__func__, [&] {
    auto object = lookup(signal, "signal");
    if (!object->signal.wait(target, timeout_of(timeout_ns))) {
      throw Error(Errc::timeout, "wait for signal",
                  "value " + std::to_string(object->signal.value()) + " did not reach " + std::to_string(target) +
                      " within " + std::to_string(timeout_ns) + " ns");
    }
  });
}

}  // extern "C"
