#version 450
// Kernel 7 (seed 000): the unrolled tile grown to 8x8 per thread (the seed's 1 TFLOP/s step on an M2 Pro).
#define TILE 8u
#include "tile_unrolled.glsl"
