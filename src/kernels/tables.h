/* tables.h — the kernel tables of each family; the runtime looks ops up in
 * all of them (src/runtime/optable.c). Each table ends with {NULL, NULL}. */
#ifndef EIR_KERNEL_TABLES_H
#define EIR_KERNEL_TABLES_H

#include "kernel.h"

extern const eir_kernel_entry eir_kernels_pointwise[];  /* pointwise.c: unary, binary, comparisons, casts, fills */
extern const eir_kernel_entry eir_kernels_reduce[];     /* reduce.c: reductions, softmax, normalization */
extern const eir_kernel_entry eir_kernels_nn[];         /* nn.c: matmul, conv, pooling, embedding, attention, rnn */
extern const eir_kernel_entry eir_kernels_data[];       /* data.c: cat, index, gather/scatter, pad, copies */
extern const eir_kernel_entry eir_kernels_random[];     /* random.c: rand/randn/randint/randperm, bernoulli, dropout */
extern const eir_kernel_entry eir_kernels_spatial[];    /* spatial.c: 1-d/3-d pooling, upsampling, grid_sampler, col2im/im2col */
extern const eir_kernel_entry eir_kernels_fft[];        /* fft.c: _fft_r2c/_fft_c2r/_fft_c2c and torch.fft.* */
extern const eir_kernel_entry eir_kernels_misc[];       /* misc.c: cdist/pdist, embedding_bag, masked_scatter, empty_strided, batch-norm training */

extern const eir_kernel_entry eir_kernels_linalg[];     /* linalg.c: LAPACK factorizations, solvers, det, pinv, norms, matrix_exp */

#endif
