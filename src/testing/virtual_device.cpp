#include <adreno/error.hpp>
#include <adreno/testing.hpp>

#include "core/device_impl.h"
#include "testing/call_log.h"
#include "testing/kernel_calls.h"
#include "virt/kernels/fault_injection.h"
#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/memory_limit.h"
#include "virt/kernels/msm_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace adreno::testing {
namespace {

const detail::DriverCalls& driver_calls(Driver driver) {
  return driver == Driver::kgsl ? detail::kgsl_calls() : detail::msm_calls();
}

const char* driver_name(Driver driver) { return driver == Driver::kgsl ? "KGSL" : "MSM"; }

std::unique_ptr<virt::VirtualSyscalls> make_system(const VirtualDeviceOptions& options, const virt::VirtualGpuConfig& config) {
  auto system = std::make_unique<virt::VirtualSyscalls>(config.page_size);
  if (options.driver == Driver::kgsl) {
    if (options.priority_levels) {
      throw Error(Errc::unsupported, "open test device",
                  fmt::format("priority_levels {}: KGSL reports no priority count (the library's KGSL levels are fixed)",
                              *options.priority_levels));
    }
    system->add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node(config));
  } else {
    virt::MsmNodeOptions node;
    if (options.priority_levels) {
      const unsigned levels = *options.priority_levels;
      if (levels == 0 || levels % virt::kMsmPrioritiesPerRing != 0) {
        throw Error(Errc::invalid_argument, "open test device",
                    fmt::format("priority_levels {}: MSM reports 3 per GPU ring (3, 6, 9, 12)", levels));
      }
      node.rings = levels / virt::kMsmPrioritiesPerRing;
    }
    system->add_node(virt::kVirtualMsmNode, virt::make_virtual_msm_node(config, node));
  }
  return system;
}

GpuFault::Kind fault_kind(virt::FaultKind kind) {
  switch (kind) {
    case virt::FaultKind::page_fault: return GpuFault::Kind::page_fault;
    case virt::FaultKind::cp_error: return GpuFault::Kind::cp_error;
    case virt::FaultKind::hang: return GpuFault::Kind::hang;
    case virt::FaultKind::shader_error: return GpuFault::Kind::shader_error;
  }
  return GpuFault::Kind::cp_error;
}

/// The virtual GPU's mode for `check`; nullopt: the environment's, which the config holds.
std::optional<virt::HazardMode> hazard_mode(HazardCheck check) {
  switch (check) {
    case HazardCheck::from_environment: return std::nullopt;
    case HazardCheck::on: return virt::HazardMode::on;
    case HazardCheck::warn: return virt::HazardMode::warn;
    case HazardCheck::off: return virt::HazardMode::off;
    case HazardCheck::exhaustive: return virt::HazardMode::exhaustive;
  }
  throw Error(Errc::invalid_argument, "open test device",
              fmt::format("hazards: {} is no HazardCheck", static_cast<int>(check)));
}

KernelObject::Kind object_kind(virt::LiveObject::Kind kind) {
  switch (kind) {
    case virt::LiveObject::Kind::buffer: return KernelObject::Kind::buffer;
    case virt::LiveObject::Kind::mapping: return KernelObject::Kind::mapping;
    case virt::LiveObject::Kind::context: return KernelObject::Kind::context;
    case virt::LiveObject::Kind::descriptor: return KernelObject::Kind::descriptor;
    case virt::LiveObject::Kind::sync_object: return KernelObject::Kind::sync_object;
  }
  return KernelObject::Kind::buffer;
}

}  // namespace

class VirtualDevice::Impl {
 public:
  explicit Impl(const VirtualDeviceOptions& options) : driver_(options.driver) {
    virt::VirtualGpuConfig config = Device::Impl::virtual_gpu_config(options.model);
    if (auto mode = hazard_mode(options.hazards)) config.execution.hazards = *mode;
    config.hang_timeout = options.hang_timeout;
    if (options.always_on_counter_start) {
      config.execution.always_on = std::make_shared<virt::AlwaysOnCounter>(*options.always_on_counter_start);
    }
    if (options.page_size) {
      if (*options.page_size != 4096 && *options.page_size != 16384)
        throw Error(Errc::unsupported, "open test device",
                    fmt::format("page_size {}: the virtual kernels have 4096- or 16384-byte pages", *options.page_size));
      config.page_size = *options.page_size;
    }
    if (options.memory_limit) config.memory_limit = std::make_shared<virt::MemoryLimit>(*options.memory_limit);
    config.fault_injection = faults_;
    auto system = make_system(options, config);
    log_ = std::make_shared<detail::CallLog>(driver_calls(driver_), *system);
    system->set_observer([log = log_](const virt::VirtualSyscalls::Call& call) { log->record(call); });
    device_.emplace(Device::Impl::open_virtual(std::move(system),
                                               driver_ == Driver::kgsl ? KernelKind::kgsl : KernelKind::msm));
    system_shared_ = device_->impl().virtual_system();
  }

  Device& device() {
    if (!device_) throw Error(Errc::invalid_argument, "test device", "the device was closed");
    return *device_;
  }

  void fail(Operation operation, virt::VirtualSyscalls::Failure failure) {
    if (failure.error <= 0) {
      throw Error(Errc::invalid_argument, "test device fault plan", fmt::format("errno {} is no errno", failure.error));
    }
    if (operation == Operation::map) {
      failure.call = virt::VirtualSyscalls::Call::Kind::mmap;
      system_shared_->fail(std::move(failure));
      return;
    }
    // An operation may be several ioctls (MSM's query: GET_PARAM and DRM VERSION): the plan
    // counts and fails the calls of all of them, as the call log names them.
    const detail::DriverCalls& calls = driver_calls(driver_);
    if (std::none_of(calls.ioctls.begin(), calls.ioctls.end(),
                     [&](const detail::IoctlEntry& entry) { return entry.operation == operation; })) {
      throw Error(Errc::unsupported, "test device fault plan",
                  fmt::format("{} has no ioctl for operation {} to fail", driver_name(driver_), to_string(operation)));
    }
    failure.matches = [&calls, operation](unsigned long request, const void* arg) {
      const detail::IoctlEntry* entry = detail::find_entry(calls, request, arg);
      return entry != nullptr && entry->operation == operation;
    };
    system_shared_->fail(std::move(failure));
  }

  void fault_submission(unsigned nth, virt::InjectedFault fault) {
    if (nth == 0) throw Error(Errc::invalid_argument, "test device fault plan", "submissions count from 1");
    faults_->fault_submission(nth, fault);
  }

  void clear_faults() {
    system_shared_->clear_ioctl_failures();
    faults_->clear();
  }

  std::shared_ptr<const virt::Stall> stall() const { return stall_; }
  void end_stalls() {
    stall_->end();
    stall_ = std::make_shared<virt::Stall>();
  }

  std::vector<KernelObject> ledger() const {
    std::vector<KernelObject> objects;
    for (const auto& object : system_shared_->ledger()) {
      objects.push_back(KernelObject{object_kind(object.kind), object.id, object.size, object.flags, object.address,
                                     object.description});
    }
    return objects;
  }

  std::vector<GpuFault> faults() const {
    std::vector<GpuFault> reported;
    for (const auto& fault : faults_->faults()) {
      reported.push_back(GpuFault{fault_kind(fault.record.kind), fault.timeline, fault.record.seqno,
                                  fault.record.address, fault.record.message});
    }
    return reported;
  }

  detail::CallLog& log() { return *log_; }

  std::vector<std::string> close() {
    device_.reset();
    return system_shared_->leaks();
  }

 private:
  Driver driver_;
  std::shared_ptr<virt::FaultInjection> faults_ = std::make_shared<virt::FaultInjection>();
  std::shared_ptr<virt::Stall> stall_ = std::make_shared<virt::Stall>();
  std::shared_ptr<virt::VirtualSyscalls> system_shared_;
  std::shared_ptr<detail::CallLog> log_;
  std::optional<Device> device_;
};

VirtualDevice::VirtualDevice(const VirtualDeviceOptions& options) : impl_(std::make_unique<Impl>(options)) {}
VirtualDevice::VirtualDevice(VirtualDevice&&) noexcept = default;
VirtualDevice& VirtualDevice::operator=(VirtualDevice&&) noexcept = default;
VirtualDevice::~VirtualDevice() = default;

Device& VirtualDevice::device() { return impl_->device(); }

void VirtualDevice::fail_call(Operation operation, int error, unsigned nth) {
  if (nth == 0) throw Error(Errc::invalid_argument, "test device fault plan", "calls count from 1");
  virt::VirtualSyscalls::Failure failure;
  failure.nth = nth;
  failure.error = error;
  impl_->fail(operation, std::move(failure));
}

void VirtualDevice::fail_every_call(Operation operation, int error) {
  if (error == EINTR || error == EAGAIN) {
    throw Error(Errc::invalid_argument, "test device fault plan",
                fmt::format("{} on every call of {}: the seam asks an interrupted call again, as libdrm does, so "
                            "it would never return",
                            ::strerrorname_np(error), to_string(operation)));
  }
  virt::VirtualSyscalls::Failure failure;
  failure.schedule = virt::VirtualSyscalls::Failure::Schedule::every;
  failure.error = error;
  impl_->fail(operation, std::move(failure));
}

void VirtualDevice::fail_random_calls(Operation operation, double fraction, std::uint64_t seed, int error) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw Error(Errc::invalid_argument, "test device fault plan", fmt::format("fraction {} is outside [0, 1]", fraction));
  }
  virt::VirtualSyscalls::Failure failure;
  failure.schedule = virt::VirtualSyscalls::Failure::Schedule::fraction;
  failure.fraction = fraction;
  failure.seed = seed;
  failure.error = error;
  impl_->fail(operation, std::move(failure));
}

void VirtualDevice::hang_submission(unsigned nth) { impl_->fault_submission(nth, {virt::FaultKind::hang, 0}); }

void VirtualDevice::stall_submission(unsigned nth) {
  impl_->fault_submission(nth, {virt::FaultKind::hang, 0, impl_->stall()});
}

void VirtualDevice::end_stalls() { impl_->end_stalls(); }

void VirtualDevice::page_fault_submission(std::uint64_t gpu_address, unsigned nth) {
  impl_->fault_submission(nth, {virt::FaultKind::page_fault, gpu_address});
}

void VirtualDevice::clear_faults() { impl_->clear_faults(); }

std::vector<KernelObject> VirtualDevice::ledger() const { return impl_->ledger(); }
std::vector<Call> VirtualDevice::calls() const { return impl_->log().calls(); }

std::vector<Call> VirtualDevice::calls(Operation operation) const {
  std::vector<Call> matching;
  for (Call& call : impl_->log().calls()) {
    if (call.operation == operation) matching.push_back(std::move(call));
  }
  return matching;
}

std::vector<Submission> VirtualDevice::submissions() const { return impl_->log().submissions(); }
std::vector<GpuFault> VirtualDevice::faults() const { return impl_->faults(); }
void VirtualDevice::clear_log() { impl_->log().clear(); }
std::vector<std::string> VirtualDevice::close() { return impl_->close(); }

}  // namespace adreno::testing
