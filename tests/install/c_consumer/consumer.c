/* A C program outside the tree that uses only the installed adreno.h and libadreno: it opens
 * the virtual device and writes random words into a buffer from the GPU's command processor. */
#include <adreno/adreno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  adreno_device device;
  adreno_buffer buffer;
  adreno_queue queue;
  if (adreno_device_open("virtual-kgsl:a630", &device) != ADRENO_SUCCESS) {
    fprintf(stderr, "%s\n", adreno_last_error_message());
    return 1;
  }
  const adreno_buffer_desc desc = {.size = 4096};
  uint32_t values[64];
  srand(2026);
  for (int i = 0; i < 64; ++i) values[i] = (uint32_t)rand();
  void* data;
  size_t size;
  adreno_device_info info;
  if (adreno_buffer_allocate(device, &desc, &buffer) != ADRENO_SUCCESS ||
      adreno_queue_create(device, ADRENO_PRIORITY_DEFAULT, &queue) != ADRENO_SUCCESS ||
      adreno_queue_write(queue, buffer, values, 64) != ADRENO_SUCCESS ||
      adreno_queue_finish(queue, ADRENO_WAIT_FOREVER) != ADRENO_SUCCESS ||
      adreno_buffer_cpu_view(buffer, &data, &size) != ADRENO_SUCCESS ||
      adreno_device_get_info(device, &info) != ADRENO_SUCCESS) {
    fprintf(stderr, "%s\n", adreno_last_error_message());
    return 1;
  }
  const int same = memcmp(data, values, sizeof values) == 0;
  printf("adreno %s (C): %s via %s, GPU write %s\n", adreno_version_string(), info.name, info.backend,
         same ? "seen" : "wrong");
  adreno_queue_release(queue);
  adreno_buffer_release(buffer);
  adreno_device_release(device);
  return same && info.gpu_id == 630 ? 0 : 1;
}
