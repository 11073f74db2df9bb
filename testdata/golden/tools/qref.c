// qref TYPE NPERROW < f32 input > quantized output, using libggml-base's ggml_quantize_chunk
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ggml.h"
int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: qref q8_0|q6_K|q4_K nperrow\n"); return 2; }
    enum ggml_type t = !strcmp(argv[1], "q8_0") ? GGML_TYPE_Q8_0 : !strcmp(argv[1], "q6_K") ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
    long n_per_row = atol(argv[2]);
    size_t cap = 1<<20, n = 0; float *x = malloc(cap*4);
    size_t r;
    while ((r = fread(x + n, 4, cap - n, stdin)) > 0) { n += r; if (n == cap) { cap *= 2; x = realloc(x, cap*4); } }
    long nrows = n / n_per_row;
    size_t sz = ggml_row_size(t, n_per_row) * nrows;
    void *y = malloc(sz);
    size_t got = ggml_quantize_chunk(t, x, y, 0, nrows, n_per_row, NULL);
    if (got != sz) { fprintf(stderr, "size %zu != %zu\n", got, sz); return 1; }
    fwrite(y, 1, sz, stdout);
    return 0;
}
