// C entry points: a program's argument values.
#include "capi/convert.h"
#include "capi/registry.h"
#include "capi/status.h"

using namespace adreno;
using namespace adreno::capi;

namespace {

template <typename T>
adreno_status set_scalar(const char* function, adreno_arguments arguments, uint32_t index, T value) {
  return guarded(function, [&] { lookup(arguments, "arguments")->arguments.set_scalar(index, value); });
}

}  // namespace

extern "C" {

adreno_status adreno_arguments_create(adreno_program program, adreno_arguments* arguments) {
  return guarded(__func__, [&] {
    auto owner = lookup(program, "program");
    require(arguments, "arguments");
    publish(std::make_shared<ArgumentsObject>(std::move(owner)), arguments);
  });
}

adreno_status adreno_arguments_release(adreno_arguments arguments) {
  return guarded(__func__, [&] { withdraw(arguments, "arguments"); });
}

adreno_status adreno_arguments_set_buffer(adreno_arguments arguments, uint32_t index, adreno_buffer buffer) {
  return guarded(__func__, [&] {
    auto object = lookup(arguments, "arguments");
    object->arguments.set_buffer(index, lookup(buffer, "buffer")->view);
  });
}

adreno_status adreno_arguments_set_bytes(adreno_arguments arguments, uint32_t index, const void* data, size_t size) {
  return guarded(__func__, [&] { lookup(arguments, "arguments")->arguments.set_bytes(index, bytes_of(data, size)); });
}

adreno_status adreno_arguments_set_i8(adreno_arguments a, uint32_t i, int8_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_u8(adreno_arguments a, uint32_t i, uint8_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_i16(adreno_arguments a, uint32_t i, int16_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_u16(adreno_arguments a, uint32_t i, uint16_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_i32(adreno_arguments a, uint32_t i, int32_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_u32(adreno_arguments a, uint32_t i, uint32_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_i64(adreno_arguments a, uint32_t i, int64_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_u64(adreno_arguments a, uint32_t i, uint64_t v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_f32(adreno_arguments a, uint32_t i, float v) { return set_scalar(__func__, a, i, v); }
adreno_status adreno_arguments_set_f64(adreno_arguments a, uint32_t i, double v) { return set_scalar(__func__, a, i, v); }

adreno_status adreno_image_format_bytes_per_texel(adreno_image_format format, uint32_t* bytes) {
  return guarded(__func__, [&] {
    const ImageFormat known = image_format_of(format);
    require(bytes, "bytes");
    *bytes = bytes_per_texel(known);
  });
}

adreno_status adreno_arguments_set_texture(adreno_arguments arguments, uint32_t index, const adreno_image_desc* image) {
  return guarded(__func__, [&] {
    auto object = lookup(arguments, "arguments");
    object->arguments.set_texture(index, image_desc_of(image));
  });
}

adreno_status adreno_arguments_set_storage_image(adreno_arguments arguments, uint32_t index,
                                                 const adreno_image_desc* image) {
  return guarded(__func__, [&] {
    auto object = lookup(arguments, "arguments");
    object->arguments.set_storage_image(index, image_desc_of(image));
  });
}

adreno_status adreno_arguments_set_sampler(adreno_arguments arguments, uint32_t index,
                                           const adreno_sampler_desc* sampler) {
  return guarded(__func__, [&] {
    auto object = lookup(arguments, "arguments");
    object->arguments.set_sampler(index, sampler_desc_of(sampler));
  });
}

}  // extern "C"
