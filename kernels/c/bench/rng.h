// The benchmarks' random numbers (bench.c, gemm.c): splitmix64, fixed seed,
// so every run times the same data.
#pragma once
#include <stdint.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { // splitmix64
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rndf(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }
