/* tables.h — the kernel tables of each family; the runtime looks ops up in
 * all of them (src/runtime/optable.c). Each table ends with {NULL, NULL}. */
#ifndef EIR_KERNEL_TABLES_H
#define EIR_KERNEL_TABLES_H

#include "kernel.h"

extern const eir_kernel_entry eir_kernels_pointwise[];  /* pointwise.c: unary, binary, comparisons, casts, fills */
extern const eir_kernel_entry eir_kernels_reduce[];     /* reduce.c: reductions, softmax, normalization */
extern const eir_kernel_entry eir_kernels_nn[];         /* nn.c: matmul, conv, pooling, embedding, attention, rnn/lstm/gru layers and cells */
extern const eir_kernel_entry eir_kernels_data[];       /* data.c: cat, index, gather/scatter, pad, copies */
extern const eir_kernel_entry eir_kernels_random[];     /* random.c: rand/randn/randint/randperm, bernoulli, dropout */
extern const eir_kernel_entry eir_kernels_spatial[];    /* spatial.c: 1-d/3-d pooling, upsampling, grid_sampler, col2im/im2col */
extern const eir_kernel_entry eir_kernels_fft[];        /* fft.c: _fft_r2c/_fft_c2r/_fft_c2c and torch.fft.* */
extern const eir_kernel_entry eir_kernels_misc[];       /* misc.c: cdist/pdist, embedding_bag, masked_scatter, empty_strided, batch-norm training */
extern const eir_kernel_entry eir_kernels_compose[];    /* compose.c: non-core ops of exported programs: einsum, kron, pad, take, linspace, aliases... */
extern const eir_kernel_entry eir_kernels_loss[];       /* loss.c: mse/l1/huber/bce/kl/nll/cross_entropy and the other losses */
extern const eir_kernel_entry eir_kernels_stats[];      /* stats.c: median/quantile/mode, cummax, histograms, searchsorted/isin, rms/instance norm */

/* compose.c: the sizes of output k of an op whose output size the program
 * leaves to the data (unique_consecutive, combinations, nonzero_numpy,
 * one_hot with num_classes=-1), from its decoded
 * arguments. 1: sizes[0..*rank) written; 0: not such an op; -1: an error in ctx. */
int eir_compose_presize(const char *op, const eir_karg *args, uint32_t nargs, uint32_t k, int64_t *sizes, int32_t *rank, eir_kctx *ctx);

extern const eir_kernel_entry eir_kernels_special[];    /* special.c: gamma, erf and Bessel families, zeta, orthogonal polynomials */

extern const eir_kernel_entry eir_kernels_linalg[];

extern const eir_kernel_entry eir_kernels_fused[];      /* fused.c: the Backend dialect's eir_cpu::conv2d, linear and attention */     /* linalg.c: LAPACK factorizations, solvers, det, pinv, norms, matrix_exp */

#endif
