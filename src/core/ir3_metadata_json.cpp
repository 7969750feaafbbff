// The fixture metadata format `ir3-a630-fixture/1` (../shared/fixtures/ir3-a630/README.md). It
// is read inside the library because it is the project's exchange format for ir3 programs with
// compiler metadata (tools, examples and tests load it alike); nlohmann-json is header-only and
// used only in this file, so it adds no run-time dependency and nothing to the public headers.
#include <adreno/error.hpp>
#include <adreno/program.hpp>

#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace adreno {
namespace {

constexpr const char* kOperation = "load ir3 metadata JSON";
constexpr std::string_view kFormat = "ir3-a630-fixture/1";

[[noreturn]] void malformed(const std::string& detail) { throw Error(Errc::malformed, kOperation, detail); }

// The value at a dotted path ("registers.max_reg"), which must exist.
const nlohmann::json& at(const nlohmann::json& root, std::string_view path) {
  const nlohmann::json* node = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string key(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (!node->is_object() || !node->contains(key)) malformed(fmt::format("'{}' is missing", path));
    node = &(*node)[key];
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return *node;
}

template <typename T>
T integer(const nlohmann::json& node, std::string_view what) {
  if (!node.is_number_integer()) malformed(fmt::format("'{}' is not an integer", what));
  const auto value = node.get<std::int64_t>();
  if (value < std::numeric_limits<T>::min() || value > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
    malformed(fmt::format("'{}' = {} is out of range", what, value));
  return static_cast<T>(value);
}
template <typename T>
T integer_at(const nlohmann::json& root, std::string_view path) {
  return integer<T>(at(root, path), path);
}
bool boolean_at(const nlohmann::json& root, std::string_view path) {
  const nlohmann::json& node = at(root, path);
  if (!node.is_boolean()) malformed(fmt::format("'{}' is not a boolean", path));
  return node.get<bool>();
}
std::string string_at(const nlohmann::json& root, std::string_view path) {
  const nlohmann::json& node = at(root, path);
  if (!node.is_string()) malformed(fmt::format("'{}' is not a string", path));
  return node.get<std::string>();
}

}  // namespace

Ir3Metadata load_ir3_metadata_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(Errc::not_found, kOperation, "cannot read " + path.string());
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    malformed(fmt::format("{}: {}", path.string(), e.what()));
  }
  if (const std::string format = string_at(root, "format"); format != kFormat)
    malformed(fmt::format("'format' is '{}', expected '{}'", format, kFormat));

  Ir3Metadata m;
  m.name = string_at(root, "name");
  m.instrlen = integer_at<std::uint32_t>(root, "code.instrlen.value");
  m.constlen_vec4 = integer_at<std::uint32_t>(root, "constants.constlen_vec4");
  m.max_reg = integer_at<std::int32_t>(root, "registers.max_reg");
  m.max_half_reg = integer_at<std::int32_t>(root, "registers.max_half_reg");
  m.merged_regs = boolean_at(root, "registers.mergedregs");
  const std::string threadsize = string_at(root, "registers.threadsize");
  if (threadsize == "THREAD64") {
    m.wave_size = WaveSize::thread64;
  } else if (threadsize == "THREAD128") {
    m.wave_size = WaveSize::thread128;
  } else {
    malformed(fmt::format("'registers.threadsize' is '{}', not THREAD64 or THREAD128", threadsize));
  }
  m.branch_stack = integer_at<std::uint32_t>(root, "control.branchstack");
  m.local_id_regid = integer_at<std::uint8_t>(root, "system_values.local_invocation_id_regid");
  m.work_group_id_regid = integer_at<std::uint8_t>(root, "system_values.work_group_id_regid");
  if (const nlohmann::json& local_size = at(root, "system_values.local_size_const_id"); !local_size.is_null())
    m.local_size_const_dword = integer<std::uint32_t>(local_size, "system_values.local_size_const_id");

  // Optional (absent in the a630 fixtures, which read none): Mesa's driver-param block, as
  // const_state->allocs.consts[IR3_CONST_ALLOC_DRIVER_PARAMS].offset_vec4 and num_driver_params.
  if (const nlohmann::json& constants = at(root, "constants"); constants.contains("driver_params")) {
    const auto offset_vec4 = integer_at<std::uint32_t>(root, "constants.driver_params.offset_vec4");
    if (offset_vec4 > std::numeric_limits<std::uint32_t>::max() / 4)
      malformed(fmt::format("'constants.driver_params.offset_vec4' = {} is out of range", offset_vec4));
    m.driver_params = Ir3Metadata::DriverParams{offset_vec4 * 4, integer_at<std::uint32_t>(root, "constants.driver_params.num_driver_params")};
  }

  const nlohmann::json& arguments = at(root, "kernel.arguments");
  if (!arguments.is_array()) malformed("'kernel.arguments' is not an array");
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string where = fmt::format("kernel.arguments[{}]", i);
    Ir3Metadata::BufferPointer buffer{string_at(arguments[i], "name"), integer_at<std::uint32_t>(arguments[i], "const_dword_lo")};
    if (integer_at<std::uint32_t>(arguments[i], "const_dword_hi") != buffer.const_dword + 1)
      malformed(fmt::format("'{}.const_dword_hi' does not follow const_dword_lo", where));
    m.buffers.push_back(std::move(buffer));
  }
  const nlohmann::json& immediates = at(root, "constants.immediates");
  if (!immediates.is_array()) malformed("'constants.immediates' is not an array");
  for (const nlohmann::json& immediate : immediates)
    m.immediates.push_back({integer_at<std::uint32_t>(immediate, "const_dword"), integer_at<std::uint32_t>(immediate, "value")});

  m.private_bytes_per_fiber = integer_at<std::uint32_t>(root, "memory.pvtmem_bytes_per_fiber");
  m.private_per_wave = boolean_at(root, "memory.pvtmem_per_wave");
  m.shared_bytes = integer_at<std::uint32_t>(root, "memory.shared_bytes");
  // The format holds Mesa's output for one GPU, named by the ir3_compiler's fd_dev_id.
  m.compiled_for_gpu_id = integer_at<std::uint32_t>(root, "compiler.fd_dev_id.gpu_id");
  return m;
}

}  // namespace adreno
