/* [pure] / [virtual-kernel] The C API (adreno.h) from C11: every function, the errors each one
 * can reach, vector add and a graph replay on the virtual kernels with random inputs checked in
 * full, and misuse — NULL, released, made-up and wrong-type handles, wrong sizes, unset
 * arguments — answered with the right status and message, out-parameters untouched.
 *
 * Run as `test_capi CASE` (CTest registers each case of the table at the bottom; the
 * [virtual-kernel] ones once per virtual kernel through ADRENO_DEVICE) or with no argument for
 * all of them. After each case no handle may be left (adreno_live_handle_count). */
#include <adreno/adreno.h>

#include "kernels.h" /* examples/kernels/vector_add.s */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checking -------------------------------------------------------------------------------- */

static int failures;

#define EXPECT(condition)                                                          \
  do {                                                                             \
    if (!(condition)) {                                                            \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);     \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

/* The call returned `expected`; on failure the last error has that status and mentions `text`. */
static void expect_status(adreno_status status, adreno_status expected, const char* text, const char* call,
                          const char* file, int line) {
  if (status != expected) {
    fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n", file, line, call,
            adreno_status_name(status), adreno_status_name(expected), adreno_last_error_message());
    ++failures;
    return;
  }
  if (expected == ADRENO_SUCCESS) return;
  if (adreno_last_error_status() != expected) {
    fprintf(stderr, "%s:%d: %s: last error status %s\n", file, line, call, adreno_status_name(adreno_last_error_status()));
    ++failures;
  }
  if (text != NULL && strstr(adreno_last_error_message(), text) == NULL) {
    fprintf(stderr, "%s:%d: %s: message \"%s\" does not mention \"%s\"\n", file, line, call,
            adreno_last_error_message(), text);
    ++failures;
  }
}

#define OK(call) expect_status((call), ADRENO_SUCCESS, NULL, #call, __FILE__, __LINE__)
#define FAILS(call, status, text) expect_status((call), (status), (text), #call, __FILE__, __LINE__)

/* Stops the case when a call it cannot go on without fails. */
#define MUST(call)                                                                                  \
  do {                                                                                              \
    adreno_status must_status = (call);                                                             \
    if (must_status != ADRENO_SUCCESS) {                                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, adreno_last_error_message()); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

/* ---- Helpers --------------------------------------------------------------------------------- */

/* xorshift64: random inputs, the same on every run. */
static uint64_t random_state = 0x9e3779b97f4a7c15u;
static uint32_t random_u32(void) {
  random_state ^= random_state << 13;
  random_state ^= random_state >> 7;
  random_state ^= random_state << 17;
  return (uint32_t)(random_state >> 32);
}

static bool on_kgsl(void) {
  const char* spec = getenv("ADRENO_DEVICE");
  return spec != NULL && strncmp(spec, "virtual-kgsl", 12) == 0;
}

/* ADRENO_DEVICE names an a740 (virtual-kgsl:a740, virtual-msm:a740); else the default a630. */
static bool on_a740(void) {
  const char* spec = getenv("ADRENO_DEVICE");
  return spec != NULL && strstr(spec, ":a740") != NULL;
}

/* The device ADRENO_DEVICE names (CTest sets it for [virtual-kernel] cases). */
static adreno_device open_device(void) {
  adreno_device device;
  MUST(adreno_device_open(NULL, &device));
  return device;
}

static adreno_buffer allocate(adreno_device device, uint64_t size, adreno_memory_type memory, uint32_t flags) {
  const adreno_buffer_desc desc = {.size = size, .memory = memory, .flags = flags};
  adreno_buffer buffer;
  MUST(adreno_buffer_allocate(device, &desc, &buffer));
  return buffer;
}

static uint32_t* words_of(adreno_buffer buffer) {
  void* data;
  size_t size;
  MUST(adreno_buffer_cpu_view(buffer, &data, &size));
  return data;
}

static void fill_random(adreno_buffer buffer, size_t count) {
  uint32_t* words = words_of(buffer);
  for (size_t i = 0; i < count; ++i) words[i] = random_u32();
}

/* How many of `count` elements of c are not a + b (uint32, wrapping). */
static size_t wrong_sums(adreno_buffer c, adreno_buffer a, adreno_buffer b, size_t count) {
  const uint32_t *cw = words_of(c), *aw = words_of(a), *bw = words_of(b);
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) wrong += cw[i] != (uint32_t)(aw[i] + bw[i]);
  return wrong;
}

enum { kCount = 1024 }; /* the @buf size of vector_add.s, 64 per work group */
static const uint64_t kMinute = 60ull * 1000 * 1000 * 1000; /* ns: waits that should end at once */
static const adreno_launch kVectorAddLaunch = {.groups = {kCount / 64, 1, 1}, .local_size = {64, 1, 1}};
static const adreno_indirect_launch kVectorAddIndirect = {.local_size = {64, 1, 1}};

static adreno_program vector_add_program(adreno_device device) {
  adreno_program program;
  MUST(adreno_program_from_ir3_assembly(device, kernels_vector_add, strlen(kernels_vector_add), NULL, &program));
  return program;
}

/* Arguments of a vector add program: c = a + b. */
static adreno_arguments vector_add_arguments(adreno_program program, adreno_buffer c, adreno_buffer a, adreno_buffer b) {
  adreno_arguments arguments;
  MUST(adreno_arguments_create(program, &arguments));
  MUST(adreno_arguments_set_buffer(arguments, 0, c));
  MUST(adreno_arguments_set_buffer(arguments, 1, a));
  MUST(adreno_arguments_set_buffer(arguments, 2, b));
  return arguments;
}

/* How many of the first `count` elements of c are not a + b, and of the rest not zero. */
static size_t wrong_partial_sums(adreno_buffer c, adreno_buffer a, adreno_buffer b, size_t count) {
  const uint32_t* cw = words_of(c);
  size_t wrong = wrong_sums(c, a, b, count);
  for (size_t i = count; i < kCount; ++i) wrong += cw[i] != 0;
  return wrong;
}

/* vector_add.s without the (sy) its add needs, in `text` (a timing hazard unless legalized). */
static void vector_add_without_sync(char* text, size_t capacity) {
  const char* at = strstr(kernels_vector_add, "(sy)add.u");
  if (at == NULL || strlen(kernels_vector_add) >= capacity) exit(1);
  const size_t before = (size_t)(at - kernels_vector_add);
  memcpy(text, kernels_vector_add, before);
  strcpy(text + before, at + 4);
}

static void* read_file(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(file, 0, SEEK_END);
  *size = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  void* data = malloc(*size);
  if (data == NULL || fread(data, 1, *size, file) != *size) exit(1);
  fclose(file);
  return data;
}

/* ---- [pure] ---------------------------------------------------------------------------------- */

static void status_names(void) {
  /* The names adreno::to_string(Errc) gives, in Errc's order (include/adreno/error.hpp). */
  static const char* const names[] = {"success",      "invalid_argument", "not_found", "unsupported",
                                      "out_of_memory", "kernel_error",    "timeout",   "device_lost",
                                      "malformed",    "busy"};
  for (int status = ADRENO_SUCCESS; status <= ADRENO_BUSY; ++status)
    EXPECT(strcmp(adreno_status_name((adreno_status)status), names[status]) == 0);
  EXPECT(strcmp(adreno_status_name((adreno_status)(ADRENO_BUSY + 1)), "unknown") == 0);
}

static void version(void) {
  uint32_t major = 99, minor = 99, patch = 99;
  adreno_version(&major, &minor, &patch);
  char text[64];
  snprintf(text, sizeof text, "%u.%u.%u", (unsigned)major, (unsigned)minor, (unsigned)patch);
  EXPECT(strcmp(text, ADRENO_TEST_VERSION) == 0); /* CMake's PROJECT_VERSION */
  EXPECT(strcmp(adreno_version_string(), ADRENO_TEST_VERSION) == 0);
  adreno_version(NULL, NULL, NULL); /* every pointer may be NULL */
}

/* Whether every byte of an out-parameter is still the pattern the test filled it with. */
static bool every_byte_is(const void* object, size_t size, unsigned char pattern) {
  const unsigned char* bytes = (const unsigned char*)object;
  for (size_t i = 0; i < size; ++i)
    if (bytes[i] != pattern) return false;
  return true;
}

/* Every entry point refuses a NULL, a made-up and a wrong-type handle of each of its handle
 * parameters, and leaves its out-parameters as they were. */
static void bad_handles(void) {
  /* A handle value the library never gave out, for each type. */
  adreno_device no_device = (adreno_device)(uintptr_t)0x7ffff00du;
  adreno_buffer no_buffer = (adreno_buffer)(uintptr_t)0x7ffff00du;
  adreno_program no_program = (adreno_program)(uintptr_t)0x7ffff00du;
  adreno_arguments no_arguments = (adreno_arguments)(uintptr_t)0x7ffff00du;
  adreno_queue no_queue = (adreno_queue)(uintptr_t)0x7ffff00du;
  adreno_signal no_signal = (adreno_signal)(uintptr_t)0x7ffff00du;
  adreno_graph no_graph = (adreno_graph)(uintptr_t)0x7ffff00du;
  const adreno_buffer_desc desc = {.size = 64};
  const adreno_image_desc image = {.memory = NULL, .width = 1, .height = 1, .pitch_bytes = 64};
  const adreno_sampler_desc sampler = {0};
  const adreno_ir3_metadata metadata = {.name = "x"};
  const uint32_t code[2] = {0, 0};
  uint32_t u32 = 77;
  uint64_t u64 = 77;
  int fd = 77;
  void* data = &u32;
  size_t size = 77;
  adreno_device_info device_info;
  memset(&device_info, 0x5a, sizeof device_info);
  adreno_buffer_info buffer_info;
  memset(&buffer_info, 0x5a, sizeof buffer_info);
  adreno_program_info program_info;
  memset(&program_info, 0x5a, sizeof program_info);
  adreno_graph_info graph_info;
  memset(&graph_info, 0x5a, sizeof graph_info);
  adreno_buffer buffer_out = no_buffer;
  adreno_program program_out = no_program;
  adreno_arguments arguments_out = no_arguments;
  adreno_queue queue_out = no_queue;
  adreno_signal signal_out = no_signal;
  adreno_graph graph_out = no_graph;

  for (int round = 0; round < 2; ++round) {
    /* Round 0: NULL handles; round 1: made-up ones. */
    const char* why = round == 0 ? "is NULL" : "is not a live handle";
    adreno_device d = round == 0 ? NULL : no_device;
    adreno_buffer b = round == 0 ? NULL : no_buffer;
    adreno_program p = round == 0 ? NULL : no_program;
    adreno_arguments a = round == 0 ? NULL : no_arguments;
    adreno_queue q = round == 0 ? NULL : no_queue;
    adreno_signal s = round == 0 ? NULL : no_signal;
    adreno_graph g = round == 0 ? NULL : no_graph;
    adreno_image_desc bad_image = image;
    bad_image.memory = b;

    FAILS(adreno_device_release(d), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_device_get_info(d, &device_info), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_allocate(d, &desc, &buffer_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_import_dmabuf(d, 0, 0, 0, &buffer_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_import_host_memory(d, &u32, 4, &buffer_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_export_dmabuf(b, &fd), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_view(b, 0, 4, &buffer_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_release(b), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_get_info(b, &buffer_info), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_cpu_view(b, &data, &size), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_flush_for_gpu(b, 0, 4), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_buffer_invalidate_for_cpu(b, 0, 4), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_from_ir3_assembly(d, "end\n", 4, NULL, &program_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_from_ir3(d, code, 2, &metadata, &program_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_from_ir3_json(d, code, 2, "x.json", &program_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_from_ir3_fixture(d, "x.json", &program_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_from_qualcomm_binary(d, code, 8, &program_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_release(p), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_get_info(p, &program_info), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_program_argument_index(p, "buf0", &u32), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_create(p, &arguments_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_release(a), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_buffer(a, 0, b), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_bytes(a, 0, &u32, 4), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_i8(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_u8(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_i16(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_u16(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_i32(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_u32(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_i64(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_u64(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_f32(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_f64(a, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_texture(a, 0, &image), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_storage_image(a, 0, &image), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_arguments_set_sampler(a, 0, &sampler), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_create(d, 0, &signal_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_release(s), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_value(s, &u64), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_set(s, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_gpu_address(s, &u64), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_signal_wait(s, 1, 0), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_create(d, ADRENO_PRIORITY_DEFAULT, &queue_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_release(q), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_dispatch(q, p, a, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_dispatch_indirect(q, p, a, b, &kVectorAddIndirect), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_barrier(q), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_signal(q, s, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_wait(q, s, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_write_timestamp(q, b), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_write(q, b, &u32, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_submit(q, &u64), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_wait_fence(q, 1, 0), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_queue_finish(q, 0), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_create(d, &graph_out), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_release(g), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_dispatch(g, p, a, &kVectorAddLaunch, NULL, 0, &u32), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_signal(g, s, 1, &u32), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_wait(g, s, 1, &u32), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_build(g, 0), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_get_info(g, &graph_info), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_buffer(g, 0, 0, b), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_bytes(g, 0, 0, &u32, 4), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_texture(g, 0, 0, &bad_image), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_storage_image(g, 0, 0, &bad_image), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_value(g, 0, 1), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_set_launch(g, 0, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, why);
    FAILS(adreno_graph_replay(g, q), ADRENO_INVALID_ARGUMENT, why);
  }
  /* The out-parameters are as they were. */
  EXPECT(u32 == 77 && u64 == 77 && fd == 77 && size == 77 && data == &u32);
  EXPECT(buffer_out == no_buffer && program_out == no_program && arguments_out == no_arguments);
  EXPECT(queue_out == no_queue && signal_out == no_signal && graph_out == no_graph);
  EXPECT(every_byte_is(&device_info, sizeof device_info, 0x5a));
  EXPECT(every_byte_is(&buffer_info, sizeof buffer_info, 0x5a));
  EXPECT(every_byte_is(&program_info, sizeof program_info, 0x5a));
  EXPECT(every_byte_is(&graph_info, sizeof graph_info, 0x5a));
}

static void* fail_on_another_thread(void* unused) {
  (void)unused;
  adreno_signal signal = NULL;
  FAILS(adreno_signal_set(signal, 1), ADRENO_INVALID_ARGUMENT, "signal is NULL");
  return NULL;
}

static void last_error_per_thread(void) {
  FAILS(adreno_device_open("no-such-kernel", NULL), ADRENO_INVALID_ARGUMENT, "device is NULL");
  const char* before = adreno_last_error_message();
  char copy[512];
  snprintf(copy, sizeof copy, "%s", before);
  EXPECT(strstr(copy, "adreno_device_open") != NULL); /* names the C function */
  pthread_t thread;
  EXPECT(pthread_create(&thread, NULL, fail_on_another_thread, NULL) == 0);
  EXPECT(pthread_join(thread, NULL) == 0);
  EXPECT(strcmp(adreno_last_error_message(), copy) == 0);
  EXPECT(adreno_last_error_status() == ADRENO_INVALID_ARGUMENT);
  EXPECT(adreno_last_error_errno() == 0);
  /* Its parts, as adreno::Error's operation() and detail() (the other thread failed with
   * "signal is NULL", which is not ours). */
  EXPECT(strcmp(adreno_last_error_operation(), "check arguments") == 0);
  EXPECT(strcmp(adreno_last_error_detail(), "device is NULL") == 0);
  /* A successful call leaves the last error as it was. */
  uint32_t major;
  adreno_version(&major, NULL, NULL);
  EXPECT(strcmp(adreno_last_error_message(), copy) == 0);
  EXPECT(strcmp(adreno_last_error_detail(), "device is NULL") == 0);
}

/* The full message is the C function, then the operation and the detail the parts give. */
static bool message_is_made_of_its_parts(void) {
  char parts[1024];
  snprintf(parts, sizeof parts, ": %s: %s", adreno_last_error_operation(), adreno_last_error_detail());
  return adreno_last_error_operation()[0] != '\0' && strstr(adreno_last_error_message(), parts) != NULL;
}

static void device_specs(void) {
  adreno_device device = (adreno_device)(uintptr_t)1234;
  FAILS(adreno_device_open("no-such-kernel", &device), ADRENO_INVALID_ARGUMENT, "no-such-kernel");
  FAILS(adreno_device_open("virtual-kgsl:a999", &device), ADRENO_INVALID_ARGUMENT, "unknown GPU model 'a999'");
  EXPECT(device == (adreno_device)(uintptr_t)1234);
  /* Models by spec: gpu ids and chip ids as Mesa's freedreno_devices.py lists them. */
  static const struct { const char* spec; uint32_t gpu_id; uint32_t chip_id; const char* backend; } models[] = {
      {"virtual-kgsl:a630", 630, 0x06030001, "kgsl"}, {"virtual-msm:a630", 630, 0x06030001, "msm"},
      {"virtual-kgsl:a640", 640, 0x06040001, "kgsl"}, {"virtual-msm:a650", 650, 0x06050002, "msm"}};
  for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
    MUST(adreno_device_open(models[i].spec, &device));
    adreno_device_info info;
    OK(adreno_device_get_info(device, &info));
    EXPECT(info.gpu_id == models[i].gpu_id);
    EXPECT(info.chip_id == models[i].chip_id);
    EXPECT(strcmp(info.backend, models[i].backend) == 0);
    EXPECT(info.is_virtual);
    OK(adreno_device_release(device));
  }
}

/* ---- [virtual-kernel] ------------------------------------------------------------------------ */

static void device_info(void) {
  adreno_device device = open_device();
  adreno_device_info info;
  OK(adreno_device_get_info(device, &info));
  EXPECT(strcmp(info.backend, on_kgsl() ? "kgsl" : "msm") == 0);
  EXPECT(info.is_virtual);
  /* freedreno_devices.py: FD630 chip id 0x06030001, gmem_size 1M; FD740 0x43050a01, 3M. */
  if (on_a740()) {
    EXPECT(strcmp(info.name, "Adreno 740") == 0);
    EXPECT(info.gpu_id == 740 && info.chip_id == 0x43050a01);
    EXPECT(info.gmem_size == 3 * 1024 * 1024);
  } else {
    EXPECT(strcmp(info.name, "Adreno 630") == 0);
    EXPECT(info.gpu_id == 630 && info.chip_id == 0x06030001);
    EXPECT(info.gmem_size == 1024 * 1024);
  }
  EXPECT(info.priority_levels >= 1);
  EXPECT(strlen(info.node) > 0);
  if (info.has_va_range) EXPECT(info.va_size > 0);
  FAILS(adreno_device_get_info(device, NULL), ADRENO_INVALID_ARGUMENT, "info is NULL");
  OK(adreno_device_release(device));
  FAILS(adreno_device_release(device), ADRENO_INVALID_ARGUMENT, "not a live handle");
}

static void buffers_and_views(void) {
  adreno_device device = open_device();
  static const adreno_memory_type types[] = {ADRENO_MEMORY_WRITE_COMBINED, ADRENO_MEMORY_CACHED,
                                             ADRENO_MEMORY_UNCACHED};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    const uint64_t size = 4096 + 64 * (random_u32() % 64);
    adreno_buffer buffer = allocate(device, size, types[t], 0);
    adreno_buffer_info info;
    OK(adreno_buffer_get_info(buffer, &info));
    EXPECT(info.size == size && info.offset == 0 && !info.is_view && info.flags == 0);
    EXPECT(info.memory == types[t]);
    EXPECT(info.gpu_address != 0 && info.gpu_address % 64 == 0);
    void* data;
    size_t mapped;
    OK(adreno_buffer_cpu_view(buffer, &data, &mapped));
    EXPECT(mapped == size);
    EXPECT((uint64_t)(uintptr_t)data != info.gpu_address); /* the virtual kernels keep them apart */

    /* A view and a view of the view: GPU address and CPU pointer move by the offsets. */
    const uint64_t offset = 64 * (random_u32() % 16), inner = 4 * (random_u32() % 16);
    adreno_buffer view, view2;
    OK(adreno_buffer_view(buffer, offset, 1024, &view));
    OK(adreno_buffer_view(view, inner, 256, &view2));
    adreno_buffer_info vinfo;
    OK(adreno_buffer_get_info(view2, &vinfo));
    EXPECT(vinfo.is_view && vinfo.offset == offset + inner && vinfo.size == 256);
    EXPECT(vinfo.gpu_address == info.gpu_address + offset + inner);
    EXPECT(vinfo.memory == types[t]);
    void* vdata;
    OK(adreno_buffer_cpu_view(view2, &vdata, &mapped));
    EXPECT((char*)vdata == (char*)data + offset + inner && mapped == 256);
    adreno_buffer untouched = (adreno_buffer)(uintptr_t)99;
    FAILS(adreno_buffer_view(view, 1000, 25, &untouched), ADRENO_INVALID_ARGUMENT, "exceeds");
    FAILS(adreno_buffer_view(buffer, size, 1, &untouched), ADRENO_INVALID_ARGUMENT, "exceeds");
    EXPECT(untouched == (adreno_buffer)(uintptr_t)99);

    /* Cache maintenance over buffers and views; the size is clamped, the offset is not. */
    OK(adreno_buffer_flush_for_gpu(buffer, 0, UINT64_MAX));
    OK(adreno_buffer_invalidate_for_cpu(buffer, 64, 128));
    OK(adreno_buffer_flush_for_gpu(view2, 0, UINT64_MAX));
    OK(adreno_buffer_invalidate_for_cpu(view2, 256, 0));
    FAILS(adreno_buffer_flush_for_gpu(view2, 257, 1), ADRENO_INVALID_ARGUMENT, "past the end");
    FAILS(adreno_buffer_invalidate_for_cpu(buffer, size + 1, 1), ADRENO_INVALID_ARGUMENT, "past the end");

    /* The buffer handle goes first; the views keep the memory. */
    OK(adreno_buffer_release(buffer));
    OK(adreno_buffer_cpu_view(view2, &vdata, &mapped));
    OK(adreno_buffer_release(view));
    OK(adreno_buffer_release(view2));
  }

  /* Flags: read-only and no CPU view show in the info; the latter refuses a CPU view. */
  adreno_buffer hidden = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED,
                                  ADRENO_BUFFER_NO_CPU_VIEW | ADRENO_BUFFER_GPU_READ_ONLY);
  adreno_buffer_info info;
  OK(adreno_buffer_get_info(hidden, &info));
  EXPECT(info.flags == (ADRENO_BUFFER_NO_CPU_VIEW | ADRENO_BUFFER_GPU_READ_ONLY));
  void* data = &info;
  size_t mapped = 5;
  FAILS(adreno_buffer_cpu_view(hidden, &data, &mapped), ADRENO_UNSUPPORTED, NULL);
  EXPECT(data == &info && mapped == 5);
  OK(adreno_buffer_release(hidden));

  /* Descriptions the library refuses. */
  adreno_buffer buffer = (adreno_buffer)(uintptr_t)99;
  adreno_buffer_desc desc = {.size = 4096};
  memcpy(&desc.memory, &(int){9}, sizeof(int));
  FAILS(adreno_buffer_allocate(device, &desc, &buffer), ADRENO_INVALID_ARGUMENT, "memory type 9");
  desc.memory = ADRENO_MEMORY_WRITE_COMBINED;
  desc.flags = 1u << 7;
  FAILS(adreno_buffer_allocate(device, &desc, &buffer), ADRENO_INVALID_ARGUMENT, "buffer flags 128");
  desc.flags = 0;
  desc.size = 0;
  FAILS(adreno_buffer_allocate(device, &desc, &buffer), ADRENO_INVALID_ARGUMENT, NULL);
  desc.size = 4096;
  desc.alignment = 48;
  FAILS(adreno_buffer_allocate(device, &desc, &buffer), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_buffer_allocate(device, NULL, &buffer), ADRENO_INVALID_ARGUMENT, "desc is NULL");
  FAILS(adreno_buffer_allocate(device, &desc, NULL), ADRENO_INVALID_ARGUMENT, "buffer is NULL");
  EXPECT(buffer == (adreno_buffer)(uintptr_t)99);
  OK(adreno_device_release(device));
}

static void dmabuf_and_host_memory(void) {
  adreno_device device = open_device();
  adreno_buffer buffer = allocate(device, 8192, ADRENO_MEMORY_WRITE_COMBINED, ADRENO_BUFFER_EXPORTABLE);
  adreno_buffer shared = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer view;
  OK(adreno_buffer_view(buffer, 64, 64, &view));
  int fd = -7;
  FAILS(adreno_buffer_export_dmabuf(shared, &fd), ADRENO_INVALID_ARGUMENT, "exportable");
  FAILS(adreno_buffer_export_dmabuf(view, &fd), ADRENO_INVALID_ARGUMENT, "view");
  FAILS(adreno_buffer_export_dmabuf(buffer, NULL), ADRENO_INVALID_ARGUMENT, "fd is NULL");
  EXPECT(fd == -7);
  adreno_buffer imported = (adreno_buffer)(uintptr_t)99;
  if (on_kgsl()) {
    /* KGSL exports only dma-heap memory. */
    FAILS(adreno_buffer_export_dmabuf(buffer, &fd), ADRENO_UNSUPPORTED, NULL);
    EXPECT(fd == -7);
  } else {
    /* MSM: the exported dma-buf imports as the same memory. */
    OK(adreno_buffer_export_dmabuf(buffer, &fd));
    EXPECT(fd >= 0);
    OK(adreno_buffer_import_dmabuf(device, fd, 4096, 0, &imported));
    adreno_buffer_info info;
    OK(adreno_buffer_get_info(imported, &info));
    EXPECT(info.size == 4096);
    uint32_t* original = words_of(buffer);
    const uint32_t value = random_u32();
    original[1024 + 3] = value;
    EXPECT(words_of(imported)[3] == value);
    OK(adreno_buffer_release(imported));
  }
  imported = (adreno_buffer)(uintptr_t)99;
  FAILS(adreno_buffer_import_dmabuf(device, -1, 0, 0, &imported), ADRENO_INVALID_ARGUMENT, "fd -1");
  EXPECT(adreno_last_error_errno() == EBADF);

  /* Host memory: KGSL maps it for the GPU, which writes into it; MSM refuses. */
  uint32_t* host = aligned_alloc(4096, 8192);
  memset(host, 0, 8192);
  if (on_kgsl()) {
    OK(adreno_buffer_import_host_memory(device, host, 8192, &imported));
    adreno_queue queue;
    MUST(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
    uint32_t values[4];
    for (int i = 0; i < 4; ++i) values[i] = random_u32();
    adreno_buffer window;
    OK(adreno_buffer_view(imported, 4096, 16, &window));
    OK(adreno_queue_write(queue, window, values, 4));
    OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
    EXPECT(memcmp(host + 1024, values, sizeof values) == 0);
    OK(adreno_queue_release(queue));
    OK(adreno_buffer_release(window));
    OK(adreno_buffer_release(imported));
  } else {
    FAILS(adreno_buffer_import_host_memory(device, host, 8192, &imported), ADRENO_UNSUPPORTED, NULL);
  }
  imported = (adreno_buffer)(uintptr_t)99;
  FAILS(adreno_buffer_import_host_memory(device, NULL, 8192, &imported), ADRENO_INVALID_ARGUMENT, "null pointer");
  EXPECT(imported == (adreno_buffer)(uintptr_t)99);
  OK(adreno_buffer_release(view));
  OK(adreno_buffer_release(buffer));
  OK(adreno_buffer_release(shared));
  OK(adreno_device_release(device));
  free(host);
}

/* The done criterion: the add kernel from assembly over random inputs, every result checked. */
static void vector_add(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_program_info info;
  OK(adreno_program_get_info(program, &info));
  EXPECT(info.argument_count == 3 && info.wave_size == ADRENO_WAVE_SIZE_64 && info.code_address != 0);
  uint32_t index = 77;
  OK(adreno_program_argument_index(program, "buf2", &index));
  EXPECT(index == 2);
  FAILS(adreno_program_argument_index(program, "c", &index), ADRENO_NOT_FOUND, "no argument named 'c'");
  EXPECT(index == 2);

  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_CACHED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  fill_random(a, kCount);
  fill_random(b, kCount);
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_buffer_flush_for_gpu(a, 0, UINT64_MAX));
  adreno_arguments arguments = vector_add_arguments(program, c, a, b);
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  OK(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch));
  uint64_t fence = 0;
  OK(adreno_queue_submit(queue, &fence));
  EXPECT(fence != 0);
  OK(adreno_queue_wait_fence(queue, fence, ADRENO_WAIT_FOREVER));
  OK(adreno_buffer_invalidate_for_cpu(c, 0, UINT64_MAX));
  EXPECT(wrong_sums(c, a, b, kCount) == 0);

  /* Again through views of other buffers, in 128-wide waves. */
  adreno_buffer big = allocate(device, 3 * kCount * 4 + 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer vc, va, vb;
  OK(adreno_buffer_view(big, 4096, kCount * 4, &vc));
  OK(adreno_buffer_view(big, 4096 + kCount * 4, kCount * 4, &va));
  OK(adreno_buffer_view(big, 4096 + 2 * kCount * 4, kCount * 4, &vb));
  fill_random(va, kCount);
  fill_random(vb, kCount);
  OK(adreno_arguments_set_buffer(arguments, 0, vc));
  OK(adreno_arguments_set_buffer(arguments, 1, va));
  OK(adreno_arguments_set_buffer(arguments, 2, vb));
  adreno_launch wide = kVectorAddLaunch;
  wide.wave_size = ADRENO_WAVE_SIZE_128;
  OK(adreno_queue_dispatch(queue, program, arguments, &wide));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_sums(vc, va, vb, kCount) == 0);

  adreno_buffer handles[] = {vc, va, vb, big, a, b, c};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_queue_release(queue));
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

static void dispatch_misuse(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_program other = vector_add_program(device);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer small = allocate(device, 64, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments arguments;
  OK(adreno_arguments_create(program, &arguments));
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));

  /* Unset arguments. */
  OK(adreno_arguments_set_buffer(arguments, 0, c));
  FAILS(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT,
        "argument 1 ('buf1') of program 'assembly' is not set");
  OK(adreno_arguments_set_buffer(arguments, 1, c));
  OK(adreno_arguments_set_buffer(arguments, 2, c));
  /* Arguments of another program, bad launches. */
  FAILS(adreno_queue_dispatch(queue, other, arguments, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, NULL);
  adreno_launch launch = kVectorAddLaunch;
  launch.local_size[0] = 0;
  FAILS(adreno_queue_dispatch(queue, program, arguments, &launch), ADRENO_INVALID_ARGUMENT, "local_size.x is 0");
  launch = kVectorAddLaunch;
  memcpy(&launch.wave_size, &(int){96}, sizeof(int));
  FAILS(adreno_queue_dispatch(queue, program, arguments, &launch), ADRENO_INVALID_ARGUMENT, "wave size 96");
  FAILS(adreno_queue_dispatch(queue, program, arguments, NULL), ADRENO_INVALID_ARGUMENT, "launch is NULL");
  /* Wrong handle types in the dispatch. */
  FAILS(adreno_queue_dispatch(queue, (adreno_program)arguments, arguments, &kVectorAddLaunch),
        ADRENO_INVALID_ARGUMENT, "is an adreno_arguments handle, not an adreno_program");
  FAILS(adreno_queue_dispatch((adreno_queue)c, program, arguments, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT,
        "is an adreno_buffer handle, not an adreno_queue");
  /* Arguments of the wrong kind, index or size. */
  FAILS(adreno_arguments_set_buffer(arguments, 3, c), ADRENO_INVALID_ARGUMENT, "3");
  uint64_t raw = 0;
  FAILS(adreno_arguments_set_bytes(arguments, 0, &raw, 0), ADRENO_INVALID_ARGUMENT, "holds 8 bytes; got 0");
  FAILS(adreno_arguments_set_bytes(arguments, 0, NULL, 4), ADRENO_INVALID_ARGUMENT, "data is NULL");
  FAILS(adreno_arguments_set_buffer(arguments, 0, NULL), ADRENO_INVALID_ARGUMENT, "buffer is NULL");
  /* Writes that do not fit their destination are refused before anything is recorded. */
  uint32_t values[17] = {0};
  FAILS(adreno_queue_write(queue, small, values, 17), ADRENO_INVALID_ARGUMENT, "17 dwords do not fit in 64 bytes");
  adreno_buffer four;
  OK(adreno_buffer_view(small, 0, 4, &four));
  FAILS(adreno_queue_write_timestamp(queue, four), ADRENO_INVALID_ARGUMENT, "smaller than 8 bytes");
  FAILS(adreno_queue_write(queue, small, NULL, 1), ADRENO_INVALID_ARGUMENT, "values is NULL");
  OK(adreno_buffer_release(four));
  adreno_arguments untouched = (adreno_arguments)(uintptr_t)99;
  FAILS(adreno_arguments_create(program, NULL), ADRENO_INVALID_ARGUMENT, "arguments is NULL");
  FAILS(adreno_arguments_create((adreno_program)c, &untouched), ADRENO_INVALID_ARGUMENT, "not an adreno_program");
  EXPECT(untouched == (adreno_arguments)(uintptr_t)99);
  /* Nothing valid was recorded: submitting gives fence 0. */
  uint64_t fence = 5;
  OK(adreno_queue_submit(queue, &fence));
  EXPECT(fence == 0);
  OK(adreno_queue_submit(queue, NULL));

  OK(adreno_queue_release(queue));
  OK(adreno_arguments_release(arguments));
  OK(adreno_buffer_release(c));
  OK(adreno_buffer_release(small));
  OK(adreno_program_release(other));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

/* Memory of another device — a second open of the ADRENO_DEVICE kernel, whose GPU addresses mean
 * nothing in the first one's address space — is ADRENO_INVALID_ARGUMENT naming the argument, and
 * the first device goes on: its arguments keep their binding, its queue recorded nothing. */
static void other_device_memory(void) {
  adreno_device device = open_device(), other = open_device();
  adreno_program program = vector_add_program(device);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer foreign = allocate(other, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_signal foreign_signal;
  OK(adreno_signal_create(other, 0, &foreign_signal));
  fill_random(a, kCount);
  fill_random(b, kCount);
  memset(words_of(c), 0, kCount * 4);
  memset(words_of(foreign), 0, kCount * 4);
  adreno_arguments arguments = vector_add_arguments(program, c, a, b);
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));

  FAILS(adreno_arguments_set_buffer(arguments, 0, foreign), ADRENO_INVALID_ARGUMENT,
        "argument 0 ('buf0') belongs to another device");
  const uint32_t values[4] = {1, 2, 3, 4};
  FAILS(adreno_queue_write(queue, foreign, values, 4), ADRENO_INVALID_ARGUMENT, "destination belongs to another device");
  FAILS(adreno_queue_write_timestamp(queue, foreign), ADRENO_INVALID_ARGUMENT, "destination belongs to another device");
  FAILS(adreno_queue_signal(queue, foreign_signal, 1), ADRENO_INVALID_ARGUMENT, "signal belongs to another device");
  FAILS(adreno_queue_wait(queue, foreign_signal, 1), ADRENO_INVALID_ARGUMENT, "signal belongs to another device");
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, foreign, &kVectorAddIndirect), ADRENO_INVALID_ARGUMENT,
        "groups belongs to another device");
  uint64_t fence = 5;
  OK(adreno_queue_submit(queue, &fence));
  EXPECT(fence == 0); /* nothing was recorded */

  OK(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_sums(c, a, b, kCount) == 0);
  size_t touched = 0;
  for (size_t i = 0; i < kCount; ++i) touched += words_of(foreign)[i] != 0;
  EXPECT(touched == 0);

  OK(adreno_queue_release(queue));
  OK(adreno_arguments_release(arguments));
  adreno_buffer handles[] = {foreign, a, b, c};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_signal_release(foreign_signal));
  OK(adreno_program_release(program));
  OK(adreno_device_release(other));
  OK(adreno_device_release(device));
}

/* scalar.code.bin (c[0] = a[0] + b[0]) with the metadata Mesa reported for it
 * (../shared/fixtures/ir3-a630/scalar.json: instrlen 1, constlen 4 vec4, max_reg 1, THREAD64,
 * c at c0.xy, a at c0.zw, b at c1.xy), except that b's address is declared as scalars — so
 * the kernel reads b through whatever the scalar setters put there. */
static adreno_ir3_metadata scalar_fixture_metadata(const adreno_ir3_scalar* scalars, size_t scalar_count) {
  static const adreno_ir3_buffer_pointer buffers[] = {{"c", 0}, {"a", 2}};
  const adreno_ir3_metadata metadata = {.name = "scalar",
                                        .instrlen = 1,
                                        .constlen_vec4 = 4,
                                        .max_reg = 1,
                                        .max_half_reg = -1,
                                        .wave_size = ADRENO_WAVE_SIZE_64,
                                        .work_group_id_regid = ADRENO_UNUSED_REGID,
                                        .local_id_regid = ADRENO_UNUSED_REGID,
                                        .buffers = buffers,
                                        .buffer_count = 2,
                                        .scalars = scalars,
                                        .scalar_count = scalar_count,
                                        .private_per_wave = true};
  return metadata;
}

/* Runs `program` (c[0] = a[0] + b[0]) with `arguments`, whose c and a this binds, and checks c[0]. */
static void run_scalar_kernel(adreno_device device, adreno_program program, adreno_arguments arguments,
                              adreno_buffer c, adreno_buffer a, adreno_buffer b) {
  words_of(c)[0] = 0;
  words_of(a)[0] = random_u32();
  words_of(b)[0] = random_u32();
  OK(adreno_arguments_set_buffer(arguments, 0, c));
  OK(adreno_arguments_set_buffer(arguments, 1, a));
  adreno_queue queue;
  MUST(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  const adreno_launch one = {.groups = {1, 1, 1}, .local_size = {1, 1, 1}};
  OK(adreno_queue_dispatch(queue, program, arguments, &one));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(words_of(c)[0] == (uint32_t)(words_of(a)[0] + words_of(b)[0]));
  OK(adreno_queue_release(queue));
}

static void ir3_programs_and_scalars(void) {
  adreno_device device = open_device();
  size_t code_size;
  uint32_t* code = read_file(ADRENO_IR3_FIXTURES_DIR "scalar.code.bin", &code_size);
  if (on_a740()) {
    /* Mesa's a630 code: an a7xx refuses it, from the fixture and from code + JSON alike. */
    adreno_program refused = (adreno_program)(uintptr_t)99;
    FAILS(adreno_program_from_ir3_fixture(device, ADRENO_IR3_FIXTURES_DIR "scalar.json", &refused), ADRENO_UNSUPPORTED,
          "compiled for Adreno 630 (a6xx), but the device is an Adreno 740 (a7xx)");
    FAILS(adreno_program_from_ir3_json(device, code, code_size / 4, ADRENO_IR3_FIXTURES_DIR "scalar.json", &refused),
          ADRENO_UNSUPPORTED, "compiled for Adreno 630");
    EXPECT(refused == (adreno_program)(uintptr_t)99);
    free(code);
    OK(adreno_device_release(device));
    return;
  }
  adreno_buffer c = allocate(device, 64, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer a = allocate(device, 64, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, 64, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer_info binfo;
  OK(adreno_buffer_get_info(b, &binfo));
  const uint64_t address = binfo.gpu_address;

  /* The fixture as it is: from its JSON, and code + JSON. */
  adreno_program fixture, from_json;
  OK(adreno_program_from_ir3_fixture(device, ADRENO_IR3_FIXTURES_DIR "scalar.json", &fixture));
  OK(adreno_program_from_ir3_json(device, code, code_size / 4, ADRENO_IR3_FIXTURES_DIR "scalar.json", &from_json));
  adreno_program plain[] = {fixture, from_json};
  for (size_t i = 0; i < 2; ++i) {
    adreno_program_info info;
    OK(adreno_program_get_info(plain[i], &info));
    EXPECT(strcmp(info.name, "scalar") == 0 && info.argument_count == 3);
    uint32_t index;
    OK(adreno_program_argument_index(plain[i], "b", &index));
    EXPECT(index == 2);
    adreno_arguments arguments;
    OK(adreno_arguments_create(plain[i], &arguments));
    OK(adreno_arguments_set_buffer(arguments, 2, b));
    run_scalar_kernel(device, plain[i], arguments, c, a, b);
    OK(adreno_arguments_release(arguments));
    OK(adreno_program_release(plain[i]));
  }

  /* b's address as one 8-byte scalar, set as u64, i64 and f64 (the same bits). */
  const adreno_ir3_scalar whole[] = {{"b", 4, 8}};
  adreno_ir3_metadata metadata = scalar_fixture_metadata(whole, 1);
  adreno_program program;
  OK(adreno_program_from_ir3(device, code, code_size / 4, &metadata, &program));
  adreno_arguments arguments;
  OK(adreno_arguments_create(program, &arguments));
  OK(adreno_arguments_set_u64(arguments, 2, address));
  run_scalar_kernel(device, program, arguments, c, a, b);
  OK(adreno_arguments_set_i64(arguments, 2, (int64_t)address));
  run_scalar_kernel(device, program, arguments, c, a, b);
  double as_double;
  memcpy(&as_double, &address, 8);
  OK(adreno_arguments_set_f64(arguments, 2, as_double));
  run_scalar_kernel(device, program, arguments, c, a, b);
  OK(adreno_arguments_set_bytes(arguments, 2, &address, 8));
  run_scalar_kernel(device, program, arguments, c, a, b);
  FAILS(adreno_arguments_set_bytes(arguments, 2, &address, 9), ADRENO_INVALID_ARGUMENT, "holds 8 bytes; got 9");
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));

  /* b's address as two 4-byte scalars (u32, i32, f32), and 1- and 2-byte scalars beside them. */
  const adreno_ir3_scalar halves[] = {{"b_lo", 4, 4}, {"b_hi", 5, 4}, {"s16", 6, 2}, {"s8", 7, 1}};
  metadata = scalar_fixture_metadata(halves, 4);
  OK(adreno_program_from_ir3(device, code, code_size / 4, &metadata, &program));
  OK(adreno_arguments_create(program, &arguments));
  OK(adreno_arguments_set_u32(arguments, 2, (uint32_t)address));
  OK(adreno_arguments_set_i32(arguments, 3, (int32_t)(uint32_t)(address >> 32)));
  OK(adreno_arguments_set_u16(arguments, 4, 0xbeef));
  OK(adreno_arguments_set_u8(arguments, 5, 0x9c));
  run_scalar_kernel(device, program, arguments, c, a, b);
  float lo, hi;
  const uint32_t lo_bits = (uint32_t)address, hi_bits = (uint32_t)(address >> 32);
  memcpy(&lo, &lo_bits, 4);
  memcpy(&hi, &hi_bits, 4);
  OK(adreno_arguments_set_f32(arguments, 2, lo));
  OK(adreno_arguments_set_f32(arguments, 3, hi));
  OK(adreno_arguments_set_i16(arguments, 4, -2));
  OK(adreno_arguments_set_i8(arguments, 5, -3));
  run_scalar_kernel(device, program, arguments, c, a, b);
  FAILS(adreno_arguments_set_u64(arguments, 2, 1), ADRENO_INVALID_ARGUMENT, NULL);  /* 8 bytes into 4 */
  FAILS(adreno_arguments_set_u32(arguments, 4, 1), ADRENO_INVALID_ARGUMENT, NULL);  /* 4 into 2 */
  FAILS(adreno_arguments_set_u16(arguments, 5, 1), ADRENO_INVALID_ARGUMENT, NULL);  /* 2 into 1 */
  FAILS(adreno_arguments_set_f64(arguments, 3, 1.0), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_arguments_set_i64(arguments, 9, 1), ADRENO_INVALID_ARGUMENT, "argument 9 does not exist");
  FAILS(adreno_arguments_set_buffer(arguments, 2, b), ADRENO_INVALID_ARGUMENT, "4-byte scalar, not a 64-bit buffer address");
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));

  /* Metadata and files the library refuses, naming what is wrong. */
  adreno_program untouched = (adreno_program)(uintptr_t)99;
  metadata = scalar_fixture_metadata(whole, 1);
  memcpy(&metadata.wave_size, &(int){0}, sizeof(int));
  FAILS(adreno_program_from_ir3(device, code, code_size / 4, &metadata, &untouched), ADRENO_INVALID_ARGUMENT,
        "metadata wave size 0");
  metadata = scalar_fixture_metadata(NULL, 1);
  FAILS(adreno_program_from_ir3(device, code, code_size / 4, &metadata, &untouched), ADRENO_INVALID_ARGUMENT,
        "metadata scalars is NULL");
  metadata = scalar_fixture_metadata(whole, 1);
  metadata.instrlen = 3; /* more code than there is */
  FAILS(adreno_program_from_ir3(device, code, code_size / 4, &metadata, &untouched), ADRENO_MALFORMED, "instrlen 3");
  FAILS(adreno_program_from_ir3_json(device, code, code_size / 4, ADRENO_IR3_FIXTURES_DIR "scalar.disasm.txt",
                                     &untouched),
        ADRENO_MALFORMED, "scalar.disasm.txt");
  FAILS(adreno_program_from_ir3_fixture(device, ADRENO_IR3_FIXTURES_DIR "missing.json", &untouched), ADRENO_NOT_FOUND,
        "missing.json");
  FAILS(adreno_program_from_ir3_assembly(device, "  bogus.op r0.x\n", 16, NULL, &untouched), ADRENO_MALFORMED, "1:");
  FAILS(adreno_program_from_ir3_assembly(device, NULL, 0, NULL, &untouched), ADRENO_INVALID_ARGUMENT, "source is NULL");
  EXPECT(untouched == (adreno_program)(uintptr_t)99);

  free(code);
  OK(adreno_buffer_release(a));
  OK(adreno_buffer_release(b));
  OK(adreno_buffer_release(c));
  OK(adreno_device_release(device));
}

/* A Qualcomm binary with a sampler (0), a buffer (1), a texture (2), a storage image (3) and a
 * scalar (4) — tests/dispatch/program_fixtures.h image_kernel_binary. */
static adreno_program image_program(adreno_device device) {
  size_t size;
  void* binary = read_file(ADRENO_IMAGE_KERNEL_BINARY, &size);
  adreno_program program;
  MUST(adreno_program_from_qualcomm_binary(device, binary, size, &program));
  free(binary);
  return program;
}

static void qualcomm_binary_and_images(void) {
  adreno_device device = open_device();
  adreno_program program = image_program(device);
  adreno_program_info info;
  OK(adreno_program_get_info(program, &info));
  EXPECT(strcmp(info.name, "image_kernel") == 0 && info.argument_count == 5);

  adreno_buffer memory = allocate(device, 256 * 1024, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments arguments;
  OK(adreno_arguments_create(program, &arguments));
  const adreno_sampler_desc sampler = {ADRENO_FILTER_LINEAR, ADRENO_ADDRESS_REPEAT, true};
  const adreno_image_desc image = {memory, ADRENO_IMAGE_RGBA32_FLOAT, 64, 64, 64 * 16};
  OK(adreno_arguments_set_sampler(arguments, 0, &sampler));
  OK(adreno_arguments_set_buffer(arguments, 1, memory));
  OK(adreno_arguments_set_texture(arguments, 2, &image));
  OK(adreno_arguments_set_storage_image(arguments, 3, &image));
  OK(adreno_arguments_set_u32(arguments, 4, random_u32()));

  /* Texel sizes: 4 bytes for one 32-bit or four 8-bit channels, 8 for four halves, 16 for four words. */
  static const uint32_t texel_bytes[] = {4, 4, 4, 8, 16, 16};
  for (int format = ADRENO_IMAGE_R32_UINT; format <= ADRENO_IMAGE_RGBA32_UINT; ++format) {
    uint32_t bytes = 0;
    OK(adreno_image_format_bytes_per_texel((adreno_image_format)format, &bytes));
    EXPECT(bytes == texel_bytes[format]);
  }
  uint32_t bytes = 77;
  FAILS(adreno_image_format_bytes_per_texel(ADRENO_IMAGE_R32_FLOAT, NULL), ADRENO_INVALID_ARGUMENT, "bytes is NULL");
  EXPECT(bytes == 77);

  /* Images and samplers the library refuses. */
  adreno_image_desc bad = image;
  bad.width = 16385;
  bad.pitch_bytes = 16385 * 16 + 48;
  FAILS(adreno_arguments_set_texture(arguments, 2, &bad), ADRENO_INVALID_ARGUMENT, NULL);
  bad = image;
  bad.height = 100000; /* past the end of its buffer */
  FAILS(adreno_arguments_set_storage_image(arguments, 3, &bad), ADRENO_INVALID_ARGUMENT, NULL);
  bad = image;
  memcpy(&bad.format, &(int){6}, sizeof(int));
  FAILS(adreno_arguments_set_texture(arguments, 2, &bad), ADRENO_INVALID_ARGUMENT, "image format 6");
  bad = image;
  bad.memory = NULL;
  FAILS(adreno_arguments_set_texture(arguments, 2, &bad), ADRENO_INVALID_ARGUMENT, "image memory is NULL");
  FAILS(adreno_arguments_set_texture(arguments, 1, &image), ADRENO_INVALID_ARGUMENT, NULL); /* a buffer slot */
  FAILS(adreno_arguments_set_storage_image(arguments, 2, NULL), ADRENO_INVALID_ARGUMENT, "image is NULL");
  adreno_sampler_desc bad_sampler = sampler;
  memcpy(&bad_sampler.address, &(int){4}, sizeof(int));
  FAILS(adreno_arguments_set_sampler(arguments, 0, &bad_sampler), ADRENO_INVALID_ARGUMENT, "sampler address mode 4");
  bad_sampler = sampler;
  memcpy(&bad_sampler.filter, &(int){2}, sizeof(int));
  FAILS(adreno_arguments_set_sampler(arguments, 0, &bad_sampler), ADRENO_INVALID_ARGUMENT, "sampler filter 2");
  FAILS(adreno_arguments_set_sampler(arguments, 1, &sampler), ADRENO_INVALID_ARGUMENT, NULL);

  /* Graph patches of images: accepted on image arguments, refused elsewhere. */
  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));
  const adreno_launch launch = {.groups = {1, 1, 1}, .local_size = {16, 1, 1}};
  uint32_t dispatch = 99;
  OK(adreno_graph_dispatch(graph, program, arguments, &launch, NULL, 0, &dispatch));
  EXPECT(dispatch == 0);
  OK(adreno_graph_build(graph, 0));
  adreno_buffer other;
  OK(adreno_buffer_view(memory, 128 * 1024, 64 * 64 * 16, &other));
  const adreno_image_desc moved = {other, ADRENO_IMAGE_R32_UINT, 128, 32, 128 * 4};
  OK(adreno_graph_set_texture(graph, dispatch, 2, &moved));
  OK(adreno_graph_set_storage_image(graph, dispatch, 3, &moved));
  FAILS(adreno_graph_set_texture(graph, dispatch, 3, &moved), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_graph_set_storage_image(graph, dispatch, 1, &moved), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_graph_set_texture(graph, dispatch, 2, NULL), ADRENO_INVALID_ARGUMENT, "image is NULL");
  const uint32_t scalar = random_u32();
  OK(adreno_graph_set_bytes(graph, dispatch, 4, &scalar, 4));

  /* Malformed binaries: every truncation of a valid one is refused naming a field. */
  size_t size;
  unsigned char* binary = read_file(ADRENO_IMAGE_KERNEL_BINARY, &size);
  adreno_program untouched = (adreno_program)(uintptr_t)99;
  for (size_t cut = 0; cut < size; cut += 1 + random_u32() % 97)
    FAILS(adreno_program_from_qualcomm_binary(device, binary, cut, &untouched), ADRENO_MALFORMED, NULL);
  FAILS(adreno_program_from_qualcomm_binary(device, NULL, size, &untouched), ADRENO_INVALID_ARGUMENT, "binary is NULL");
  EXPECT(untouched == (adreno_program)(uintptr_t)99);
  free(binary);

  OK(adreno_graph_release(graph));
  OK(adreno_buffer_release(other));
  OK(adreno_arguments_release(arguments));
  OK(adreno_buffer_release(memory));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

static void queues_and_signals(void) {
  adreno_device device = open_device();
  adreno_device_info info;
  OK(adreno_device_get_info(device, &info));
  adreno_queue high, low, untouched = (adreno_queue)(uintptr_t)99;
  OK(adreno_queue_create(device, 0, &high));
  OK(adreno_queue_create(device, (int32_t)info.priority_levels - 1, &low));
  FAILS(adreno_queue_create(device, (int32_t)info.priority_levels, &untouched), ADRENO_INVALID_ARGUMENT, "priority");
  FAILS(adreno_queue_create(device, -2, &untouched), ADRENO_INVALID_ARGUMENT, "priority -2");
  FAILS(adreno_queue_create(device, 0, NULL), ADRENO_INVALID_ARGUMENT, "queue is NULL");
  EXPECT(untouched == (adreno_queue)(uintptr_t)99);

  /* Signals from the host. */
  const uint64_t initial = random_u32();
  adreno_signal signal, done;
  OK(adreno_signal_create(device, initial, &signal));
  OK(adreno_signal_create(device, 0, &done));
  uint64_t value = 0, address = 0;
  OK(adreno_signal_value(signal, &value));
  EXPECT(value == initial);
  OK(adreno_signal_set(signal, initial + 5));
  OK(adreno_signal_value(signal, &value));
  EXPECT(value == initial + 5);
  OK(adreno_signal_gpu_address(signal, &address));
  EXPECT(address != 0 && address % 8 == 0);
  OK(adreno_signal_wait(signal, initial + 5, 0));
  FAILS(adreno_signal_wait(signal, initial + 6, 1000), ADRENO_TIMEOUT, "did not reach");
  FAILS(adreno_signal_value(signal, NULL), ADRENO_INVALID_ARGUMENT, "value is NULL");
  FAILS(adreno_signal_gpu_address(signal, NULL), ADRENO_INVALID_ARGUMENT, "gpu_address is NULL");

  /* The low queue waits on the GPU for the signal, then writes, timestamps and signals. */
  adreno_buffer data = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer stamps, tail;
  OK(adreno_buffer_view(data, 1024, 16, &stamps));
  OK(adreno_buffer_view(data, 2048, 64, &tail));
  memset(words_of(data), 0, 4096);
  uint32_t values[16];
  for (int i = 0; i < 16; ++i) values[i] = random_u32();
  OK(adreno_queue_wait(low, signal, initial + 10));
  OK(adreno_queue_write(low, data, values, 16));
  OK(adreno_queue_barrier(low));
  OK(adreno_queue_write_timestamp(low, stamps));
  OK(adreno_queue_signal(low, done, 1));
  FAILS(adreno_queue_write(low, tail, values, 17), ADRENO_INVALID_ARGUMENT, NULL); /* 68 bytes into 64 */
  FAILS(adreno_queue_write(low, tail, NULL, 1), ADRENO_INVALID_ARGUMENT, "values is NULL");
  uint64_t fence = 0;
  OK(adreno_queue_submit(low, &fence));
  EXPECT(fence != 0);
  FAILS(adreno_queue_wait_fence(low, fence, 1000 * 1000), ADRENO_TIMEOUT, "did not signal");
  FAILS(adreno_signal_wait(done, 1, 1000 * 1000), ADRENO_TIMEOUT, "did not reach");
  EXPECT(words_of(data)[0] == 0); /* still waiting */

  /* The host releases it: a GPU signal from the high queue would queue behind the wait on an MSM
     a6xx, whose one ring every queue shares, and the hang detector would end the wait. */
  OK(adreno_signal_set(signal, initial + 10));
  OK(adreno_signal_wait(done, 1, kMinute));
  OK(adreno_queue_wait_fence(low, fence, ADRENO_WAIT_FOREVER));
  OK(adreno_queue_signal(high, signal, initial + 11));
  OK(adreno_queue_finish(high, ADRENO_WAIT_FOREVER));
  EXPECT(memcmp(words_of(data), values, sizeof values) == 0);
  const uint32_t* stamp = words_of(stamps);
  EXPECT(stamp[0] != 0 || stamp[1] != 0); /* the always-on counter has run since boot */
  OK(adreno_signal_value(done, &value));
  EXPECT(value == 1);

  OK(adreno_buffer_release(stamps));
  OK(adreno_buffer_release(tail));
  OK(adreno_buffer_release(data));
  OK(adreno_queue_release(low));
  OK(adreno_queue_release(high));
  OK(adreno_signal_release(done));
  OK(adreno_signal_release(signal));
  OK(adreno_device_release(device));
}

/* A GPU write to read-only memory is a page fault: the drivers log it and the GPU goes on, so the
 * write is dropped and the queue keeps working. */
static void read_only_write(void) {
  adreno_device device = open_device();
  adreno_buffer readonly = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, ADRENO_BUFFER_GPU_READ_ONLY);
  adreno_buffer writable = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  const uint32_t value = random_u32() | 1;
  OK(adreno_queue_write(queue, readonly, &value, 1));
  OK(adreno_queue_write(queue, writable, &value, 1));
  OK(adreno_queue_finish(queue, kMinute));
  EXPECT(words_of(readonly)[0] == 0);
  EXPECT(words_of(writable)[0] == value);
  OK(adreno_queue_release(queue));
  OK(adreno_buffer_release(writable));
  OK(adreno_buffer_release(readonly));
  OK(adreno_device_release(device));
}

/* A shader fault loses the queue: ADRENO_DEVICE_LOST, and it stays lost; other queues go on.
 * The fault is a timing hazard (vector add without its (sy)), which the virtual GPU faults on
 * (ADRENO_VIRTUAL_HAZARDS unset: on) where hardware would add stale registers. */
static void device_lost(void) {
  adreno_device device = open_device();
  char unsynced[4096];
  vector_add_without_sync(unsynced, sizeof unsynced);
  adreno_program program;
  OK(adreno_program_from_ir3_assembly(device, unsynced, strlen(unsynced), NULL, &program));
  adreno_buffer buffer = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments arguments = vector_add_arguments(program, buffer, buffer, buffer);
  adreno_queue queue, other;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  OK(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch));
  FAILS(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER), ADRENO_DEVICE_LOST, "lost");
  FAILS(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER), ADRENO_DEVICE_LOST, "lost");
  FAILS(adreno_queue_submit(queue, NULL), ADRENO_DEVICE_LOST, "lost");
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &other));
  const uint32_t value = random_u32();
  OK(adreno_queue_write(other, buffer, &value, 1));
  OK(adreno_queue_finish(other, ADRENO_WAIT_FOREVER));
  EXPECT(words_of(buffer)[0] == value);
  OK(adreno_queue_release(queue)); /* a lost queue is not an error here */
  OK(adreno_queue_release(other));
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));
  OK(adreno_buffer_release(buffer));
  OK(adreno_device_release(device));
}

/* Allocates objects of `size` bytes (no CPU view) until the kernel refuses one; returns the
 * status of the refusal, and releases everything again. */
static adreno_status allocate_until_refused(adreno_device device, uint64_t size, size_t* made) {
  enum { kMost = 1024 };
  static adreno_buffer buffers[kMost];
  const adreno_buffer_desc desc = {.size = size, .flags = ADRENO_BUFFER_NO_CPU_VIEW};
  adreno_status status = ADRENO_SUCCESS;
  *made = 0;
  while (*made < kMost && (status = adreno_buffer_allocate(device, &desc, &buffers[*made])) == ADRENO_SUCCESS) ++*made;
  for (size_t i = 0; i < *made; ++i) OK(adreno_buffer_release(buffers[i]));
  return status;
}

/* ADRENO_OUT_OF_MEMORY and ADRENO_KERNEL_ERROR are the kernel's refusals as the drivers make them,
 * with the errno kept; after them the device goes on. (ADRENO_BUSY is what an EBUSY from the
 * kernel becomes; nothing the library asks of the drivers answers it.) */
static void kernel_refusals(void) {
  adreno_device device = open_device();
  /* Objects past what the GPU address space holds: KGSL's kgsl_mmu_get_gpuaddr finds no room
   * (ENOMEM: out of memory); MSM's drm_mm, asked for the object's iova
   * (msm_gem_get_and_pin_iova), has no space left (ENOSPC: the kernel's refusal). */
  size_t made = 0;
  const adreno_status full = allocate_until_refused(device, 1ull << 31, &made);
  EXPECT(made >= 1);
  if (on_kgsl()) {
    EXPECT(full == ADRENO_OUT_OF_MEMORY);
    EXPECT(adreno_last_error_errno() == ENOMEM);
    EXPECT(strstr(adreno_last_error_message(), "IOCTL_KGSL_GPUOBJ_ALLOC") != NULL);
  } else {
    EXPECT(full == ADRENO_KERNEL_ERROR);
    EXPECT(adreno_last_error_errno() == ENOSPC);
    EXPECT(strstr(adreno_last_error_message(), "MSM_INFO_GET_IOVA") != NULL);
  }
  EXPECT(adreno_last_error_status() == full);
  EXPECT(message_is_made_of_its_parts());
  /* Everything went back: the same objects fit again. */
  size_t again = 0;
  EXPECT(allocate_until_refused(device, 1ull << 31, &again) == full);
  EXPECT(again == made);

  if (on_kgsl()) {
    /* More contexts than KGSL gives a process (kgsl_context_init: KGSL_MAX_CONTEXTS_PER_PROC,
     * ENOSPC): the kernel's refusal. */
    enum { kMost = 400 };
    static adreno_queue queues[kMost];
    size_t count = 0;
    adreno_status status = ADRENO_SUCCESS;
    while (count < kMost && (status = adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queues[count])) == ADRENO_SUCCESS)
      ++count;
    EXPECT(status == ADRENO_KERNEL_ERROR);
    EXPECT(adreno_last_error_errno() == ENOSPC);
    EXPECT(strstr(adreno_last_error_message(), "IOCTL_KGSL_DRAWCTXT_CREATE") != NULL);
    EXPECT(count == 201);
    for (size_t i = 0; i < count; ++i) OK(adreno_queue_release(queues[i]));
  } else {
    /* An object larger than memory can back: GEM_NEW's shmem allocation fails (ENOMEM). */
    adreno_buffer untouched = (adreno_buffer)(uintptr_t)99;
    const adreno_buffer_desc huge = {.size = 1ull << 48, .flags = ADRENO_BUFFER_NO_CPU_VIEW};
    FAILS(adreno_buffer_allocate(device, &huge, &untouched), ADRENO_OUT_OF_MEMORY, "DRM_IOCTL_MSM_GEM_NEW");
    EXPECT(adreno_last_error_errno() == ENOMEM);
    EXPECT(untouched == (adreno_buffer)(uintptr_t)99);
  }
  /* The device goes on. */
  adreno_queue queue;
  adreno_buffer buffer = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  const uint32_t value = random_u32();
  OK(adreno_queue_write(queue, buffer, &value, 1));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(words_of(buffer)[0] == value);
  OK(adreno_queue_release(queue));
  OK(adreno_buffer_release(buffer));
  OK(adreno_device_release(device));
}

/* The count of live handles, which the suite checks is 0 after every case, follows every
 * creation and release, views and released-twice handles included. */
static void live_handles(void) {
  EXPECT(adreno_live_handle_count() == 0);
  adreno_device device = open_device();
  EXPECT(adreno_live_handle_count() == 1);
  adreno_buffer buffer = allocate(device, 4096, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer view;
  OK(adreno_buffer_view(buffer, 0, 64, &view));
  adreno_signal signal;
  OK(adreno_signal_create(device, 0, &signal));
  EXPECT(adreno_live_handle_count() == 4);
  OK(adreno_device_release(device)); /* the buffer keeps what it needs, but the handle is gone */
  FAILS(adreno_device_release(device), ADRENO_INVALID_ARGUMENT, "not a live handle");
  EXPECT(adreno_live_handle_count() == 3);
  OK(adreno_buffer_release(buffer));
  OK(adreno_signal_release(signal));
  EXPECT(adreno_live_handle_count() == 1);
  OK(adreno_buffer_release(view));
  EXPECT(adreno_live_handle_count() == 0);
}

/* The done criterion: a graph of two dependent vector adds (e = (a + b) + b) replayed with new
 * buffers and new inputs, every element checked each time. */
static void graph_replay(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer e = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments first = vector_add_arguments(program, c, a, b);
  adreno_arguments second = vector_add_arguments(program, e, c, b);
  adreno_signal done;
  OK(adreno_signal_create(device, 0, &done));

  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));
  const adreno_access access[] = {ADRENO_ACCESS_WRITE, ADRENO_ACCESS_READ, ADRENO_ACCESS_READ};
  uint32_t d0 = 99, d1 = 99, sync = 99;
  OK(adreno_graph_dispatch(graph, program, first, &kVectorAddLaunch, access, 3, &d0));
  OK(adreno_graph_dispatch(graph, program, second, &kVectorAddLaunch, access, 3, &d1));
  OK(adreno_graph_signal(graph, done, 1, &sync));
  EXPECT(d0 == 0 && d1 == 1 && sync == 0);
  FAILS(adreno_graph_set_buffer(graph, d0, 0, c), ADRENO_INVALID_ARGUMENT, NULL); /* not built yet */
  OK(adreno_graph_build(graph, 0));
  adreno_graph_info info;
  OK(adreno_graph_get_info(graph, &info));
  /* Hand-worked: the second reads what the first writes — two levels, one barrier between. */
  EXPECT(info.dispatch_count == 2 && info.levels == 2 && info.barriers == 1 && info.command_dwords > 0);

  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  for (int replay = 1; replay <= 3; ++replay) {
    if (replay > 1) {
      /* New buffers for a and e, new inputs, a new signal value. */
      adreno_buffer a2 = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
      adreno_buffer e2 = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
      OK(adreno_graph_set_buffer(graph, d0, 1, a2));
      OK(adreno_graph_set_buffer(graph, d1, 0, e2));
      OK(adreno_buffer_release(a));
      OK(adreno_buffer_release(e));
      a = a2;
      e = e2;
      OK(adreno_graph_set_value(graph, sync, (uint64_t)replay));
    }
    fill_random(a, kCount);
    fill_random(b, kCount);
    memset(words_of(e), 0, kCount * 4);
    OK(adreno_graph_replay(graph, queue));
    OK(adreno_queue_submit(queue, NULL));
    OK(adreno_signal_wait(done, (uint64_t)replay, kMinute)); /* a failure fails, never hangs */
    OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
    EXPECT(wrong_sums(c, a, b, kCount) == 0);
    EXPECT(wrong_sums(e, c, b, kCount) == 0);
    uint64_t value;
    OK(adreno_signal_value(done, &value));
    EXPECT(value == (uint64_t)replay);
  }

  /* Misuse after build. */
  adreno_graph_info untouched;
  memset(&untouched, 0x5a, sizeof untouched);
  uint32_t id = 99;
  FAILS(adreno_graph_dispatch(graph, program, first, &kVectorAddLaunch, NULL, 0, &id), ADRENO_INVALID_ARGUMENT, NULL);
  EXPECT(id == 99);
  FAILS(adreno_graph_set_buffer(graph, 7, 0, c), ADRENO_INVALID_ARGUMENT, NULL);
  const uint64_t wide[2] = {0, 0};
  FAILS(adreno_graph_set_bytes(graph, d0, 0, wide, 9), ADRENO_INVALID_ARGUMENT, "got 9");
  FAILS(adreno_graph_set_bytes(graph, d0, 0, NULL, 4), ADRENO_INVALID_ARGUMENT, "data is NULL");
  FAILS(adreno_graph_set_value(graph, 5, 1), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_graph_build(graph, 0), ADRENO_INVALID_ARGUMENT, NULL);
  FAILS(adreno_graph_get_info(graph, NULL), ADRENO_INVALID_ARGUMENT, "info is NULL");
  FAILS(adreno_graph_replay(graph, (adreno_queue)graph), ADRENO_INVALID_ARGUMENT, "is an adreno_graph handle, not an adreno_queue");

  /* A replay whose bound buffer the application released is refused. */
  adreno_buffer gone = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  OK(adreno_graph_set_buffer(graph, d1, 0, gone));
  OK(adreno_buffer_release(gone));
  FAILS(adreno_graph_replay(graph, queue), ADRENO_INVALID_ARGUMENT, NULL);
  OK(adreno_graph_set_buffer(graph, d1, 0, e));
  OK(adreno_graph_replay(graph, queue));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));

  OK(adreno_graph_release(graph));
  OK(adreno_queue_release(queue));
  OK(adreno_signal_release(done));
  OK(adreno_arguments_release(first));
  OK(adreno_arguments_release(second));
  adreno_buffer handles[] = {a, b, c, e};
  for (size_t i = 0; i < 4; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

/* Indirect dispatch (the GPU reads the group counts), a graph's new launch, the base group, and
 * the assembler's legalize and register-mode options, from C. */
static void launches(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer counts = allocate(device, 64, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments arguments = vector_add_arguments(program, c, a, b);
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));

  /* Indirect: 5 of the 16 work groups, the count read from memory. */
  fill_random(a, kCount);
  fill_random(b, kCount);
  memset(words_of(c), 0, kCount * 4);
  uint32_t* groups = words_of(counts);
  groups[0] = 5, groups[1] = 1, groups[2] = 1;
  OK(adreno_queue_dispatch_indirect(queue, program, arguments, counts, &kVectorAddIndirect));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_partial_sums(c, a, b, 5 * 64) == 0);
  /* The counts may come from a window; one smaller than three counts, or misaligned, is refused. */
  adreno_buffer window;
  OK(adreno_buffer_view(counts, 16, 12, &window));
  groups[4] = 11, groups[5] = 1, groups[6] = 1;
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_queue_dispatch_indirect(queue, program, arguments, window, &kVectorAddIndirect));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_partial_sums(c, a, b, 11 * 64) == 0);
  adreno_buffer short_window, odd_window;
  OK(adreno_buffer_view(counts, 0, 8, &short_window));
  OK(adreno_buffer_view(counts, 2, 12, &odd_window));
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, short_window, &kVectorAddIndirect),
        ADRENO_INVALID_ARGUMENT, "groups");
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, odd_window, &kVectorAddIndirect),
        ADRENO_INVALID_ARGUMENT, "groups");
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, counts, NULL), ADRENO_INVALID_ARGUMENT,
        "launch is NULL");
  adreno_indirect_launch bad_indirect = kVectorAddIndirect;
  bad_indirect.local_size[0] = 0;
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, counts, &bad_indirect), ADRENO_INVALID_ARGUMENT,
        "local_size.x is 0");
  memcpy(&bad_indirect, &kVectorAddIndirect, sizeof bad_indirect);
  memcpy(&bad_indirect.wave_size, &(int){32}, sizeof(int));
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, counts, &bad_indirect), ADRENO_INVALID_ARGUMENT,
        "wave size 32");
  FAILS(adreno_queue_dispatch_indirect(queue, program, arguments, (adreno_buffer)queue, &kVectorAddIndirect),
        ADRENO_INVALID_ARGUMENT, "is an adreno_queue handle, not an adreno_buffer");

  /* The base group reaches the launch checks: base + groups past 32 bits is refused by axis. */
  adreno_launch based = kVectorAddLaunch;
  based.base_group[1] = UINT32_MAX - 1;
  based.groups[1] = 2;
  FAILS(adreno_queue_dispatch(queue, program, arguments, &based), ADRENO_INVALID_ARGUMENT, "base_group.y");

  /* A graph's launch changes between replays: 3 groups, then all 16. */
  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));
  adreno_launch three = kVectorAddLaunch;
  three.groups[0] = 3;
  uint32_t dispatch = 99;
  OK(adreno_graph_dispatch(graph, program, arguments, &three, NULL, 0, &dispatch));
  FAILS(adreno_graph_set_launch(graph, dispatch, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, NULL); /* not built */
  OK(adreno_graph_build(graph, 0));
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_graph_replay(graph, queue));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_partial_sums(c, a, b, 3 * 64) == 0);
  OK(adreno_graph_set_launch(graph, dispatch, &kVectorAddLaunch));
  fill_random(a, kCount);
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_graph_replay(graph, queue));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_sums(c, a, b, kCount) == 0);
  adreno_launch zero = kVectorAddLaunch;
  zero.local_size[0] = 0;
  FAILS(adreno_graph_set_launch(graph, dispatch, &zero), ADRENO_INVALID_ARGUMENT, "local_size.x is 0");
  FAILS(adreno_graph_set_launch(graph, dispatch, NULL), ADRENO_INVALID_ARGUMENT, "launch is NULL");
  FAILS(adreno_graph_set_launch(graph, dispatch + 1, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, NULL);

  /* A graph's indirect dispatch reads the counts at each replay: 6 groups, then 13. */
  adreno_graph indirect_graph;
  OK(adreno_graph_create(device, &indirect_graph));
  FAILS(adreno_graph_dispatch_indirect(indirect_graph, program, arguments, short_window, &kVectorAddIndirect, NULL, 0, NULL),
        ADRENO_INVALID_ARGUMENT, "groups");
  uint32_t indirect = 99;
  OK(adreno_graph_dispatch_indirect(indirect_graph, program, arguments, counts, &kVectorAddIndirect, NULL, 0, &indirect));
  EXPECT(indirect == 0);
  OK(adreno_graph_build(indirect_graph, 0));
  FAILS(adreno_graph_set_launch(indirect_graph, indirect, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT, "is indirect");
  const uint32_t replay_groups[] = {6, 13};
  for (size_t i = 0; i < 2; ++i) {
    groups[0] = replay_groups[i], groups[1] = 1, groups[2] = 1;
    memset(words_of(c), 0, kCount * 4);
    OK(adreno_graph_replay(indirect_graph, queue));
    OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
    EXPECT(wrong_partial_sums(c, a, b, replay_groups[i] * 64) == 0);
  }
  OK(adreno_graph_release(indirect_graph));

  /* Assembly options: the kernel without its (sy) is a timing hazard — a shader fault on the
   * virtual GPU — unless legalized; split registers assemble it too. */
  char unsynced[4096];
  vector_add_without_sync(unsynced, sizeof unsynced);
  const adreno_assembly_options legalized = {.legalize = true, .registers = ADRENO_REGISTERS_MERGED};
  const adreno_assembly_options split = {.legalize = false, .registers = ADRENO_REGISTERS_SPLIT};
  adreno_program programs[2];
  OK(adreno_program_from_ir3_assembly(device, unsynced, strlen(unsynced), &legalized, &programs[0]));
  OK(adreno_program_from_ir3_assembly(device, kernels_vector_add, strlen(kernels_vector_add), &split, &programs[1]));
  for (size_t i = 0; i < 2; ++i) {
    adreno_arguments bound = vector_add_arguments(programs[i], c, a, b);
    fill_random(b, kCount);
    memset(words_of(c), 0, kCount * 4);
    OK(adreno_queue_dispatch(queue, programs[i], bound, &kVectorAddLaunch));
    OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
    EXPECT(wrong_sums(c, a, b, kCount) == 0);
    OK(adreno_arguments_release(bound));
    OK(adreno_program_release(programs[i]));
  }
  adreno_program untouched = (adreno_program)(uintptr_t)99;
  adreno_assembly_options unknown = split;
  memcpy(&unknown.registers, &(int){7}, sizeof(int));
  FAILS(adreno_program_from_ir3_assembly(device, kernels_vector_add, strlen(kernels_vector_add), &unknown, &untouched),
        ADRENO_INVALID_ARGUMENT, "register mode 7");
  EXPECT(untouched == (adreno_program)(uintptr_t)99);

  OK(adreno_graph_release(graph));
  OK(adreno_queue_release(queue));
  OK(adreno_arguments_release(arguments));
  adreno_buffer handles[] = {short_window, odd_window, window, counts, a, b, c};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

/* Machine code adreno-asm made at build time, padded with zero words (nops) to whole groups of
 * 16 instructions, as the compiler pads; `dwords` gets its length. */
static uint32_t* assembled_code(const char* name, size_t* dwords) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s.code.bin", ADRENO_ASSEMBLED_DIR, name);
  size_t size;
  uint32_t* code = read_file(path, &size);
  const size_t padded = (size + 127) / 128 * 128;
  code = realloc(code, padded);
  if (code == NULL) exit(1);
  memset((char*)code + size, 0, padded - size);
  *dwords = padded / 4;
  return code;
}

/* Metadata written from C for code assembled from ir3 source, read off its directives:
 * storage buffers (@buf lines) and Mesa's driver params, which carry the launch's base group. */
static void ir3_metadata_from_c(void) {
  adreno_device device = open_device();
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));

  /* vector_add.s: three @buf slots with their addresses at c0.xy, c0.zw, c1.xy; @localsize 64;
   * @invocationid(r0.x), @wgid(r48.x); r0..r3 used. */
  size_t dwords;
  uint32_t* code = assembled_code("vector_add", &dwords);
  const adreno_ir3_storage_buffer slots[] = {{"c", 0, true, 0}, {"a", 1, true, 2}, {"b", 2, true, 4}};
  adreno_ir3_metadata metadata = {.name = "vector_add",
                                  .instrlen = 1,
                                  .constlen_vec4 = 2,
                                  .max_reg = 3,
                                  .max_half_reg = -1,
                                  .merged_regs = true,
                                  .wave_size = ADRENO_WAVE_SIZE_64,
                                  .work_group_id_regid = 48 * 4,
                                  .local_id_regid = 0,
                                  .private_per_wave = true,
                                  .fixed_local_size = {64, 1, 1},
                                  .storage_buffers = slots,
                                  .storage_buffer_count = 3};
  adreno_program program;
  OK(adreno_program_from_ir3(device, code, dwords, &metadata, &program));
  uint32_t index = 99;
  OK(adreno_program_argument_index(program, "b", &index));
  EXPECT(index == 2);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  fill_random(a, kCount);
  fill_random(b, kCount);
  adreno_arguments arguments = vector_add_arguments(program, c, a, b);
  OK(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  EXPECT(wrong_sums(c, a, b, kCount) == 0);
  adreno_program untouched = (adreno_program)(uintptr_t)99;
  metadata.storage_buffers = NULL;
  FAILS(adreno_program_from_ir3(device, code, dwords, &metadata, &untouched), ADRENO_INVALID_ARGUMENT,
        "metadata storage buffers is NULL");
  EXPECT(untouched == (adreno_program)(uintptr_t)99);
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));
  free(code);

  /* base_group.s: out (c0.xy) [wgid] = c2.x + wgid, with the driver params declared at c1.x for
   * 8 dwords, so base_group.x (dword 4 of struct ir3_driver_params_cs) is c2.x. */
  code = assembled_code("base_group", &dwords);
  const adreno_ir3_buffer_pointer out[] = {{"out", 0}};
  const adreno_ir3_metadata ids = {.name = "base_group",
                                   .instrlen = 1,
                                   .constlen_vec4 = 3,
                                   .max_reg = 1,
                                   .max_half_reg = -1,
                                   .merged_regs = true,
                                   .wave_size = ADRENO_WAVE_SIZE_64,
                                   .work_group_id_regid = 48 * 4,
                                   .local_id_regid = ADRENO_UNUSED_REGID,
                                   .buffers = out,
                                   .buffer_count = 1,
                                   .private_per_wave = true,
                                   .fixed_local_size = {1, 1, 1},
                                   .driver_params_const_dword = 4,
                                   .driver_params_count = 8};
  OK(adreno_program_from_ir3(device, code, dwords, &ids, &program));
  OK(adreno_arguments_create(program, &arguments));
  OK(adreno_arguments_set_buffer(arguments, 0, c));
  const uint32_t base = random_u32() % 100000;
  adreno_launch launch = {.groups = {16, 1, 1}, .local_size = {1, 1, 1}, .base_group = {base, 0, 0}};
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_queue_dispatch(queue, program, arguments, &launch));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  size_t wrong = 0;
  for (uint32_t i = 0; i < 16; ++i) wrong += words_of(c)[i] != base + i;
  EXPECT(wrong == 0);
  /* A graph's new launch brings a new base group. */
  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));
  uint32_t dispatch;
  OK(adreno_graph_dispatch(graph, program, arguments, &launch, NULL, 0, &dispatch));
  OK(adreno_graph_build(graph, 0));
  launch.base_group[0] = base + 1000;
  launch.groups[0] = 8;
  OK(adreno_graph_set_launch(graph, dispatch, &launch));
  memset(words_of(c), 0, kCount * 4);
  OK(adreno_graph_replay(graph, queue));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  wrong = 0;
  for (uint32_t i = 0; i < 16; ++i) wrong += words_of(c)[i] != (i < 8 ? base + 1000 + i : 0);
  EXPECT(wrong == 0);
  OK(adreno_graph_release(graph));
  OK(adreno_arguments_release(arguments));
  OK(adreno_program_release(program));
  free(code);

  adreno_buffer handles[] = {a, b, c};
  for (size_t i = 0; i < 3; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_queue_release(queue));
  OK(adreno_device_release(device));
}

/* Levels, barriers and the build options, against hand-worked counts. */
static void graph_options(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_buffer x = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer y = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer z = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments writes_x, writes_y;
  OK(adreno_arguments_create(program, &writes_x));
  OK(adreno_arguments_create(program, &writes_y));
  OK(adreno_arguments_set_buffer(writes_x, 0, x));
  OK(adreno_arguments_set_buffer(writes_x, 1, z));
  OK(adreno_arguments_set_buffer(writes_x, 2, z));
  OK(adreno_arguments_set_buffer(writes_y, 0, y));
  OK(adreno_arguments_set_buffer(writes_y, 1, z));
  OK(adreno_arguments_set_buffer(writes_y, 2, z));
  const adreno_access access[] = {ADRENO_ACCESS_WRITE, ADRENO_ACCESS_READ, ADRENO_ACCESS_READ};

  /* x, y, x again: independent — one level, no barrier; duplicates dropped on request. */
  for (int drop = 0; drop < 2; ++drop) {
    adreno_graph graph;
    OK(adreno_graph_create(device, &graph));
    uint32_t ids[3];
    OK(adreno_graph_dispatch(graph, program, writes_x, &kVectorAddLaunch, access, 3, &ids[0]));
    OK(adreno_graph_dispatch(graph, program, writes_y, &kVectorAddLaunch, access, 3, &ids[1]));
    OK(adreno_graph_dispatch(graph, program, writes_x, &kVectorAddLaunch, access, 3, &ids[2]));
    OK(adreno_graph_build(graph, drop ? ADRENO_GRAPH_DROP_DUPLICATES | ADRENO_GRAPH_ORDER_BY_LEVEL : 0));
    adreno_graph_info info;
    OK(adreno_graph_get_info(graph, &info));
    EXPECT(info.dispatch_count == (drop ? 2u : 3u));
    EXPECT(info.levels == (drop ? 1u : 2u)); /* without dropping, the second x write follows the first */
    OK(adreno_graph_release(graph));
  }
  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));
  FAILS(adreno_graph_build(graph, 1u << 5), ADRENO_INVALID_ARGUMENT, "options 32");
  adreno_access bad[] = {ADRENO_ACCESS_WRITE};
  memcpy(&bad[0], &(int){3}, sizeof(int));
  FAILS(adreno_graph_dispatch(graph, program, writes_x, &kVectorAddLaunch, bad, 1, NULL), ADRENO_INVALID_ARGUMENT,
        "access 3");
  FAILS(adreno_graph_dispatch(graph, program, writes_x, &kVectorAddLaunch, NULL, 2, NULL), ADRENO_INVALID_ARGUMENT,
        "access is NULL");
  FAILS(adreno_graph_replay(graph, NULL), ADRENO_INVALID_ARGUMENT, "queue is NULL");
  adreno_signal signal;
  OK(adreno_signal_create(device, 0, &signal));
  OK(adreno_graph_wait(graph, signal, 1, NULL));
  OK(adreno_graph_signal(graph, signal, 2, NULL));
  adreno_graph untouched = (adreno_graph)(uintptr_t)99;
  FAILS(adreno_graph_create(device, NULL), ADRENO_INVALID_ARGUMENT, "graph is NULL");
  FAILS(adreno_graph_create((adreno_device)signal, &untouched), ADRENO_INVALID_ARGUMENT, "is an adreno_signal handle");
  EXPECT(untouched == (adreno_graph)(uintptr_t)99);
  OK(adreno_graph_release(graph));
  OK(adreno_signal_release(signal));
  OK(adreno_arguments_release(writes_x));
  OK(adreno_arguments_release(writes_y));
  adreno_buffer handles[] = {x, y, z};
  for (size_t i = 0; i < 3; ++i) OK(adreno_buffer_release(handles[i]));
  OK(adreno_program_release(program));
  OK(adreno_device_release(device));
}

/* Handles go in any order: the device first, then work still runs; released handles and
 * handles of the wrong type are refused. */
static void release_in_any_order(void) {
  adreno_device device = open_device();
  adreno_program program = vector_add_program(device);
  adreno_buffer a = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer b = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_buffer c = allocate(device, kCount * 4, ADRENO_MEMORY_WRITE_COMBINED, 0);
  adreno_arguments arguments;
  OK(adreno_arguments_create(program, &arguments));
  adreno_queue queue;
  OK(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue));
  adreno_signal signal;
  OK(adreno_signal_create(device, 0, &signal));
  adreno_graph graph;
  OK(adreno_graph_create(device, &graph));

  OK(adreno_device_release(device));
  FAILS(adreno_device_get_info(device, &(adreno_device_info){0}), ADRENO_INVALID_ARGUMENT, "not a live handle");
  OK(adreno_program_release(program)); /* the arguments keep it */
  fill_random(a, kCount);
  fill_random(b, kCount);
  OK(adreno_arguments_set_buffer(arguments, 0, c));
  OK(adreno_arguments_set_buffer(arguments, 1, a));
  OK(adreno_arguments_set_buffer(arguments, 2, b));
  FAILS(adreno_queue_dispatch(queue, program, arguments, &kVectorAddLaunch), ADRENO_INVALID_ARGUMENT,
        "program is not a live handle");
  OK(adreno_buffer_release(a)); /* the arguments hold what they bind */
  adreno_program again;
  FAILS(adreno_program_from_ir3_assembly(device, kernels_vector_add, strlen(kernels_vector_add), NULL, &again),
        ADRENO_INVALID_ARGUMENT, "device is not a live handle");
  OK(adreno_queue_signal(queue, signal, 3));
  OK(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER));
  OK(adreno_signal_wait(signal, 3, 0));

  /* Wrong types everywhere a handle goes. */
  FAILS(adreno_buffer_release((adreno_buffer)queue), ADRENO_INVALID_ARGUMENT, "is an adreno_queue handle, not an adreno_buffer");
  FAILS(adreno_queue_release((adreno_queue)signal), ADRENO_INVALID_ARGUMENT, "is an adreno_signal handle, not an adreno_queue");
  FAILS(adreno_signal_release((adreno_signal)graph), ADRENO_INVALID_ARGUMENT, "is an adreno_graph handle, not an adreno_signal");
  FAILS(adreno_graph_release((adreno_graph)arguments), ADRENO_INVALID_ARGUMENT, "is an adreno_arguments handle, not an adreno_graph");
  FAILS(adreno_arguments_release((adreno_arguments)b), ADRENO_INVALID_ARGUMENT, "is an adreno_buffer handle, not an adreno_arguments");

  OK(adreno_buffer_release(c));
  OK(adreno_signal_release(signal));
  OK(adreno_queue_release(queue));
  OK(adreno_graph_release(graph));
  OK(adreno_buffer_release(b));
  OK(adreno_arguments_release(arguments));
  FAILS(adreno_arguments_release(arguments), ADRENO_INVALID_ARGUMENT, "not a live handle");
  FAILS(adreno_queue_release(queue), ADRENO_INVALID_ARGUMENT, "not a live handle");
}

/* One thread releases signals while another reads them through the same handles: every call
 * either works or is refused as released, none crashes (the registry hands out shared
 * ownership, so an object released mid-call lives until the call returns). */
enum { kRaceSignals = 256 };
static adreno_signal race_signals[kRaceSignals];

static void* release_signals(void* unused) {
  (void)unused;
  for (int i = 0; i < kRaceSignals; ++i) OK(adreno_signal_release(race_signals[i]));
  return NULL;
}

static void concurrent_release(void) {
  adreno_device device = open_device();
  for (int i = 0; i < kRaceSignals; ++i) MUST(adreno_signal_create(device, (uint64_t)i, &race_signals[i]));
  pthread_t releaser;
  EXPECT(pthread_create(&releaser, NULL, release_signals, NULL) == 0);
  size_t read = 0, refused = 0;
  for (int round = 0; round < 64; ++round) {
    for (int i = 0; i < kRaceSignals; ++i) {
      uint64_t value = UINT64_MAX;
      const adreno_status status = adreno_signal_value(race_signals[i], &value);
      if (status == ADRENO_SUCCESS) {
        EXPECT(value == (uint64_t)i);
        ++read;
      } else {
        EXPECT(status == ADRENO_INVALID_ARGUMENT && value == UINT64_MAX);
        ++refused;
      }
    }
  }
  EXPECT(pthread_join(releaser, NULL) == 0);
  EXPECT(read + refused == 64u * kRaceSignals);
  for (int i = 0; i < kRaceSignals; ++i)
    FAILS(adreno_signal_set(race_signals[i], 1), ADRENO_INVALID_ARGUMENT, "signal is not a live handle");
  OK(adreno_device_release(device));
}

/* ---- The cases ------------------------------------------------------------------------------- */

struct test_case {
  const char* function;
  void (*run)(void);
};

#define TEST_ENTRY(function, name) {#function, function}
static const struct test_case cases[] = {
  TEST_ENTRY(status_names, "status names are adreno::to_string's in Errc order [pure]"),
  TEST_ENTRY(version, "the version is the project's [pure]"),
  TEST_ENTRY(bad_handles, "NULL and made-up handles are refused by every function, out-parameters untouched [pure]"),
  TEST_ENTRY(last_error_per_thread, "the last error is per thread, names the C function and survives successes [pure]"),
  TEST_ENTRY(device_specs, "devices open by spec with their models, bad specs are refused [virtual-kernel]"),
  TEST_ENTRY(device_info, "device info describes the virtual GPU ADRENO_DEVICE names [virtual-kernel]"),
  TEST_ENTRY(buffers_and_views, "buffers and views report size, addresses, CPU views and flags, and refuse bad windows [virtual-kernel]"),
  TEST_ENTRY(dmabuf_and_host_memory, "dma-bufs export and import, host memory imports, as each kernel allows [virtual-kernel]"),
  TEST_ENTRY(vector_add, "vector add from assembly over random inputs is right in every element [virtual-kernel]"),
  TEST_ENTRY(dispatch_misuse, "unset arguments, bad launches, wrong handles and writes that do not fit are refused [virtual-kernel]"),
  TEST_ENTRY(other_device_memory, "buffers and signals of another device are refused naming the argument, and the device goes on [virtual-kernel]"),
  TEST_ENTRY(ir3_programs_and_scalars, "ir3 programs load from fixture, JSON and metadata, scalars of each width reach the kernel; an a740 refuses the a630 fixture [virtual-kernel]"),
  TEST_ENTRY(qualcomm_binary_and_images, "a Qualcomm binary takes samplers, textures and storage images, truncations are malformed [virtual-kernel]"),
  TEST_ENTRY(queues_and_signals, "queues wait for signals, write, timestamp, signal, and time out [virtual-kernel]"),
  TEST_ENTRY(read_only_write, "a GPU write to read-only memory is dropped and the queue goes on [virtual-kernel]"),
  TEST_ENTRY(device_lost, "a shader fault loses the queue for good and other queues go on [virtual-kernel]"),
  TEST_ENTRY(kernel_refusals, "an exhausted GPU address space, memory or context table is the kernel's status and errno, and the device goes on [virtual-kernel]"),
  TEST_ENTRY(live_handles, "the count of live handles follows every creation and release [virtual-kernel]"),
  TEST_ENTRY(graph_replay, "a graph replays with new buffers and inputs, right in every element [virtual-kernel]"),
  TEST_ENTRY(launches, "indirect dispatch, a graph's new launch, the base group and assembly options work from C [virtual-kernel]"),
  TEST_ENTRY(ir3_metadata_from_c, "storage buffers and driver params in C metadata: vector add right, the base group reaches the program [virtual-kernel]"),
  TEST_ENTRY(graph_options, "graph levels, barriers and build options match hand-worked counts [virtual-kernel]"),
  TEST_ENTRY(concurrent_release, "handles released on one thread while used on another are refused, never crash [virtual-kernel]"),
  TEST_ENTRY(release_in_any_order, "handles release in any order, released and wrong-type handles are refused [virtual-kernel]"),
};

int main(int argc, char** argv) {
  const size_t count = sizeof cases / sizeof cases[0];
  bool found = argc < 2;
  for (size_t i = 0; i < count; ++i) {
    if (argc >= 2 && strcmp(argv[1], cases[i].function) != 0) continue;
    found = true;
    printf("== %s\n", cases[i].function);
    cases[i].run();
    /* Every case releases what it made: a handle left is a leak (its objects, GPU memory and
     * device would stay until exit). */
    const size_t live = adreno_live_handle_count();
    if (live != 0) {
      fprintf(stderr, "%s: %zu handle(s) never released\n", cases[i].function, live);
      ++failures;
    }
  }
  if (!found) {
    fprintf(stderr, "no case named %s\n", argv[1]);
    return 2;
  }
  printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
