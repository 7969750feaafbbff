/* The C twin of vector_add.cpp: c[i] = a[i] + b[i] for 1024 integers, written in ir3 assembly,
 * dispatched on whatever device ADRENO_DEVICE names (the virtual Adreno when none is set) through
 * the C API, and checked on the host. */
#include <adreno/adreno.h>

#include "kernels.h" /* examples/kernels/vector_add.s */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCount = 1024 }; /* the @buf size of vector_add.s */

/* Stops the program with the library's message when a call fails. */
static void check(adreno_status status, const char* what) {
  if (status == ADRENO_SUCCESS) return;
  fprintf(stderr, "vector_add: %s: %s\n", what, adreno_last_error_message());
  exit(1);
}

/* A small xorshift generator, so that the inputs are random but the same on every run. */
static uint32_t next_random(uint32_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

int main(void) {
  const char* spec = getenv("ADRENO_DEVICE");
  adreno_device device;
  check(adreno_device_open(spec != NULL && *spec != '\0' ? spec : "virtual-kgsl", &device), "open device");

  const adreno_buffer_desc desc = {.size = kCount * sizeof(uint32_t)};
  adreno_buffer c, a, b;
  check(adreno_buffer_allocate(device, &desc, &c), "allocate c");
  check(adreno_buffer_allocate(device, &desc, &a), "allocate a");
  check(adreno_buffer_allocate(device, &desc, &b), "allocate b");
  uint32_t *cv, *av, *bv;
  size_t size;
  check(adreno_buffer_cpu_view(c, (void**)&cv, &size), "map c");
  check(adreno_buffer_cpu_view(a, (void**)&av, &size), "map a");
  check(adreno_buffer_cpu_view(b, (void**)&bv, &size), "map b");
  uint32_t state = 2026;
  for (size_t i = 0; i < kCount; ++i) {
    av[i] = next_random(&state);
    bv[i] = next_random(&state);
  }

  adreno_program program;
  check(adreno_program_from_ir3_assembly(device, kernels_vector_add, strlen(kernels_vector_add), NULL, &program),
        "assemble vector_add.s");
  adreno_arguments arguments;
  check(adreno_arguments_create(program, &arguments), "create arguments");
  check(adreno_arguments_set_buffer(arguments, 0, c), "bind c");
  check(adreno_arguments_set_buffer(arguments, 1, a), "bind a");
  check(adreno_arguments_set_buffer(arguments, 2, b), "bind b");
  adreno_queue queue;
  check(adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue), "create queue");
  const adreno_launch launch = {.groups = {kCount / 64, 1, 1}, .local_size = {64, 1, 1}};
  check(adreno_queue_dispatch(queue, program, arguments, &launch), "dispatch");
  check(adreno_queue_finish(queue, ADRENO_WAIT_FOREVER), "finish");

  size_t wrong = 0;
  for (size_t i = 0; i < kCount; ++i) wrong += cv[i] != av[i] + bv[i];
  adreno_device_info info;
  check(adreno_device_get_info(device, &info), "device info");
  printf("vector_add (C) on %s: %zu of %d sums wrong\n", info.name, wrong, kCount);

  /* Any order: each object keeps what it needs. */
  check(adreno_device_release(device), "release device");
  check(adreno_queue_release(queue), "release queue");
  check(adreno_arguments_release(arguments), "release arguments");
  check(adreno_program_release(program), "release program");
  check(adreno_buffer_release(a), "release a");
  check(adreno_buffer_release(b), "release b");
  check(adreno_buffer_release(c), "release c");
  return wrong == 0 ? 0 : 1;
}
