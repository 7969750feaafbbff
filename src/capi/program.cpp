// C entry points: programs.
#include "capi/convert.h"
#include "capi/registry.h"
#include "capi/status.h"

#include <string>

using namespace adreno;
using namespace adreno::capi;

namespace {

void publish_program(Program program, adreno_program* out) {
  publish(std::make_shared<ProgramObject>(std::move(program)), out);
}

}  // namespace

extern "C" {

adreno_status adreno_program_from_ir3_assembly(adreno_device device, const char* source, size_t length,
                                               const adreno_assembly_options* options, adreno_program* program) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(source, "source");
    require(program, "program");
    const bool legalize = options != nullptr && options->legalize;
    const RegisterMode registers = options != nullptr ? register_mode_of(options->registers) : RegisterMode::merged;
    publish_program(Program::from_ir3_assembly(owner->device, std::string_view(source, length), legalize, registers),
                    program);
  });
}

adreno_status adreno_program_from_ir3(adreno_device device, const uint32_t* code, size_t dwords,
                                      const adreno_ir3_metadata* metadata, adreno_program* program) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(code, "code");
    require(metadata, "metadata");
    require(program, "program");
    publish_program(Program::from_ir3(owner->device, std::span(code, dwords), ir3_metadata_of(*metadata)), program);
  });
}

adreno_status adreno_program_from_ir3_json(adreno_device device, const uint32_t* code, size_t dwords,
                                           const char* metadata_json_path, adreno_program* program) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(code, "code");
    require(metadata_json_path, "metadata_json_path");
    require(program, "program");
    const Ir3Metadata metadata = load_ir3_metadata_json(metadata_json_path);
    publish_program(Program::from_ir3(owner->device, std::span(code, dwords), metadata), program);
  });
}

adreno_status adreno_program_from_ir3_fixture(adreno_device device, const char* json_path, adreno_program* program) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(json_path, "json_path");
    require(program, "program");
    publish_program(Program::from_ir3_fixture(owner->device, json_path), program);
  });
}

adreno_status adreno_program_from_qualcomm_binary(adreno_device device, const void* binary, size_t size,
                                                  adreno_program* program) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(binary, "binary");
    require(program, "program");
    publish_program(Program::from_qualcomm_binary(owner->device, bytes_of(binary, size)), program);
  });
}

adreno_status adreno_program_release(adreno_program program) {
  return guarded(__func__, [&] { withdraw(program, "program"); });
}

adreno_status adreno_program_get_info(adreno_program program, adreno_program_info* info) {
  return guarded(__func__, [&] {
    auto object = lookup(program, "program");
    require(info, "info");
    const Program& p = object->program;
    *info = adreno_program_info{.name = p.name().c_str(),
                                .wave_size = wave_size_to_c(p.wave_size()),
                                .code_address = p.code_address().value(),
                                .argument_count = static_cast<uint32_t>(p.argument_count())};
  });
}

adreno_status adreno_program_argument_index(adreno_program program, const char* name, uint32_t* index) {
  return guarded(__func__, [&] {
    auto object = lookup(program, "program");
    require(name, "name");
    require(index, "index");
    const auto found = object->program.argument_index(name);
    if (!found) {
      throw Error(Errc::not_found, "find argument",
                  "program '" + object->program.name() + "' has no argument named '" + name + "'");
    }
    *index = static_cast<uint32_t>(*found);
  });
}

}  // extern "C"
