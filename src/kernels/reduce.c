/* reduce.c — kernel family (placeholder until its kernels land). */
#include "tables.h"

const eir_kernel_entry eir_kernels_reduce[] = {{NULL, NULL}};
