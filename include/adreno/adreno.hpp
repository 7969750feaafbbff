// The adreno public API in one include.
#pragma once

#include <adreno/address.hpp>
#include <adreno/buffer.hpp>
#include <adreno/device.hpp>
#include <adreno/error.hpp>
#include <adreno/graph.hpp>
#include <adreno/memory_type.hpp>
#include <adreno/program.hpp>
#include <adreno/queue.hpp>
