// The adreno public API in one include.
#pragma once

#include <adreno/address.hpp>
#include <adreno/device.hpp>
#include <adreno/error.hpp>
