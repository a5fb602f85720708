#version 450
// Kernel 6 (seed 000): kernel 5's 4x4 tile, unrolled, so the compiler keeps every accumulator in a register.
#define TILE 4u
#include "tile_unrolled.glsl"
