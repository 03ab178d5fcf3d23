/* dnnl_conv.c — float32 2-d convolutions (groups 1) whose weight is a
 * constant of the runtime, on oneDNN's convolution primitive instead of
 * im2col and a GEMM (docs/GEMM.md, "Convolution primitive").
 *
 * The caller's tensors stay NCHW: each call reorders the input into the
 * layout the primitive chose (format_tag::any; blocked channels), runs the
 * primitive and reorders its output back, block by block, applying the
 * caller's epilogue (bias and activation of eir_cpu::conv2d) to each block
 * while it is in cache. The weight is reordered into the primitive's layout
 * once, at the first call for the shape, and kept with the primitives until
 * its runtime drops its constants; a bfloat16 weight (a bfloat16 program,
 * eir_dnnl_conv2d_wbf16) is converted to float32 by that same reorder.
 *
 * Blocked mode (eir_dnnl_conv2d_blk_f32, eir_cpu::conv2d_blocked): the input
 * and output are already in the chain's layout (channels last, or nChw8c /
 * nChw16c); primitives for one image and a block of output channels, each
 * block's output handed to the caller's epilogue (from the primitive's buffer
 * when the channels are last: a block's channels are not contiguous there).
 * eir_dnnl_reorder_f32 does the layout copies at a chain's borders.
 *
 * Threads: Debian's oneDNN runs on OpenMP, and its kernels' results could
 * depend on how it splits a convolution over threads. Here it always runs on
 * one thread (omp_set_num_threads(1) in every calling thread); the output
 * channels are cut into blocks of a fixed size (OC_BLOCK, independent of the
 * thread count), one primitive per block, and the blocks go to the runtime's
 * thread pool. Every output element is computed by the same primitive from
 * the same operands at any thread count, so 1 and 2 threads give the same
 * bits.
 *
 * oneDNN is loaded with dlopen (the library gemm.c loads; this path is on
 * only when eir_sgemm runs oneDNN); its header is needed to build this file,
 * and without it everything here reports "not handled". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnnl_conv.h"
#include "gemm.h"
#include "kutil.h"
#include "nngemm.h"
#include "../base/pool.h"

#if defined(__has_include)
#if __has_include(<oneapi/dnnl/dnnl.h>)
#define EIR_HAVE_DNNL_H 1
#endif
#endif

#ifndef EIR_HAVE_DNNL_H

int eir_dnnl_conv_const_add(const void *owner, const void *p, size_t nbytes, bool mapped) { return 0; }
void eir_dnnl_conv_const_drop(const void *owner) {}
bool eir_dnnl_conv_enabled(void) { return false; }
bool eir_dnnl_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C, int64_t H,
                         int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride,
                         const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi) {
    return false;
}
bool eir_dnnl_conv2d_wbf16(const float *x, const uint16_t *w, const float *bias, float *y, int64_t N, int64_t C,
                           int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                           const int64_t *stride, const int64_t *pad, const int64_t *dil) {
    return false;
}
int eir_dnnl_conv_layout(void) { return 0; }
bool eir_dnnl_conv2d_blk_f32(const float *x, int64_t xB, const float *w, float *y, int64_t yB, int64_t N, int64_t C,
                             int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                             const int64_t *stride, const int64_t *pad, const int64_t *dil, int64_t groups,
                             const eir_blk_epi *epi) {
    return false;
}
bool eir_dnnl_reorder_f32(const float *x, int64_t xB, float *y, int64_t yB, int64_t N, int64_t C, int64_t H,
                          int64_t W) {
    return false;
}
uint64_t eir_dnnl_conv_calls(void) { return 0; }
uint64_t eir_dnnl_conv_wino_calls(void) { return 0; }
uint64_t eir_dnnl_conv_wino_nn_calls(void) { return 0; }
uint64_t eir_dnnl_conv_pw_nn_calls(void) { return 0; }
uint64_t eir_dnnl_conv_dw_band_calls(void) { return 0; }
uint64_t eir_dnnl_conv_ref_prims(void) { return 0; }
size_t eir_dnnl_conv_weight_bytes(void) { return 0; }

#else

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

/* Output channels per primitive: a multiple of oneDNN's channel blocks (8 for
 * AVX2, 16 for AVX-512), small enough that ResNet-18's 64-channel layers give
 * two threads work, large enough that each block's primitive keeps its
 * kernels' register blocking (docs/GEMM.md). EIR_DNNL_CONV_OCB overrides it
 * (measurements; any value gives the same bits at every thread count). */
enum { OC_BLOCK = 32 };

/* Pixels per band of a channels-last 1 x 1 convolution (entry_build_band): a band's output of
 * a few hundred channels stays in L2 for its epilogue. EIR_DNNL_BAND overrides it (0: off). */
enum { PIX_BAND = 512 };

/* A channels-last depthwise convolution is cut into bands of output rows, one primitive run each
 * (entry_build_dw_bands), so that two threads share an image: about one band per this many
 * output values (pixels x channels), at most DW_BANDS per image, a function of the shape alone.
 * EIR_DNNL_DW_BAND overrides it (0: one primitive per image). */
enum { DW_BAND_WORK = 32768, DW_BANDS = 8 };
static int64_t dw_band_work = DW_BAND_WORK;

/* Shapes cached per weight (each with its reordered copy of the weight). */
enum { MAX_SHAPES = 8 };

/* ---- the library's entry points ---- */

#define DNNL_FNS(X)                                                                                                    \
    X(dnnl_engine_create)                                                                                              \
    X(dnnl_stream_create)                                                                                              \
    X(dnnl_stream_wait)                                                                                                \
    X(dnnl_memory_desc_init_by_tag)                                                                                    \
    X(dnnl_memory_desc_init_by_strides)                                                                                \
    X(dnnl_memory_desc_equal)                                                                                          \
    X(dnnl_memory_desc_get_size)                                                                                       \
    X(dnnl_memory_create)                                                                                              \
    X(dnnl_memory_set_data_handle)                                                                                     \
    X(dnnl_memory_destroy)                                                                                             \
    X(dnnl_dilated_convolution_forward_desc_init)                                                                      \
    X(dnnl_primitive_desc_create)                                                                                      \
    X(dnnl_primitive_desc_query_md)                                                                                    \
    X(dnnl_primitive_desc_query)                                                                                       \
    X(dnnl_primitive_desc_destroy)                                                                                     \
    X(dnnl_reorder_primitive_desc_create)                                                                              \
    X(dnnl_primitive_create)                                                                                           \
    X(dnnl_primitive_execute)                                                                                          \
    X(dnnl_primitive_destroy)                                                                                          \
    X(dnnl_primitive_attr_create)                                                                                      \
    X(dnnl_primitive_attr_set_scratchpad_mode)                                                                         \
    X(dnnl_primitive_attr_destroy)                                                                                     \
    X(dnnl_primitive_attr_set_post_ops)                                                                                \
    X(dnnl_post_ops_create)                                                                                            \
    X(dnnl_post_ops_append_eltwise)                                                                                    \
    X(dnnl_post_ops_append_binary)                                                                                     \
    X(dnnl_post_ops_destroy)

static struct {
#define DECL(f) __typeof__(&f) f;
    DNNL_FNS(DECL)
#undef DECL
    int (*omp_get_max_threads)(void);
    void (*omp_set_num_threads)(int);
} dn;

static pthread_once_t conv_once = PTHREAD_ONCE_INIT;
static bool conv_on;
static bool conv_1x1; /* EIR_DNNL_CONV=all: 1 x 1 kernels too (measured slower: they need no im2col) */
static int64_t oc_block = OC_BLOCK;
static int64_t pix_band = PIX_BAND; /* EIR_DNNL_BAND: pixels per band (0: no bands) */
static bool dw_on = true;           /* EIR_DNNL_DW=0: depthwise on eir's kernel (measurements) */
static bool post_on = true;         /* EIR_DNNL_POSTOPS=0: epilogues never taken in (measurements) */
static bool wino_on = true;         /* EIR_WINOGRAD=0: 3 x 3 convolutions on the direct primitive only */
static int chain_layout; /* eir_dnnl_conv_layout() */
static dnnl_engine_t engine;
static _Thread_local dnnl_stream_t thread_stream;

static void conv_init(void) {
    const char *e = getenv("EIR_DNNL_CONV");
    if (e && !strcmp(e, "0")) return;
    conv_1x1 = e && !strcmp(e, "all");
    if (strncmp(eir_sgemm_library(), "oneDNN", 6)) return; /* EIR_GEMM=openblas, no libdnnl, sanitizer builds */
    void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
#define LOAD(f)                                                                                                        \
    if (!(*(void **)&dn.f = dlsym(h, #f))) return;
    DNNL_FNS(LOAD)
#undef LOAD
    *(void **)&dn.omp_get_max_threads = dlsym(h, "omp_get_max_threads");
    *(void **)&dn.omp_set_num_threads = dlsym(h, "omp_set_num_threads");
    if (!dn.omp_get_max_threads || !dn.omp_set_num_threads) return; /* a build on other threads: not known to be fixed */
    if (dn.dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) return;
    const char *b = getenv("EIR_DNNL_CONV_OCB");
    if (b && atol(b) > 0) oc_block = atol(b);
    const char *po = getenv("EIR_DNNL_POSTOPS");
    post_on = !(po && !strcmp(po, "0"));
    const char *wg = getenv("EIR_WINOGRAD");
    wino_on = !(wg && !strcmp(wg, "0"));
    const char *dw = getenv("EIR_DNNL_DW");
    dw_on = !(dw && !strcmp(dw, "0"));
    const char *db = getenv("EIR_DNNL_DW_BAND");
    if (db && db[0]) dw_band_work = atol(db) > 0 ? atol(db) : 0;
    const char *pb = getenv("EIR_DNNL_BAND");
    if (pb && pb[0]) pix_band = atol(pb) > 0 ? atol(pb) : 0;
    conv_on = true;
    /* the layout of chains: what the primitive picks for a 64-channel 3 x 3 convolution */
    const char *bl = getenv("EIR_DNNL_BLOCKED");
    if (bl && !strcmp(bl, "0")) return;
    if (bl && (!strcmp(bl, "8") || !strcmp(bl, "16") || !strcmp(bl, "nhwc"))) {
        chain_layout = !strcmp(bl, "nhwc") ? EIR_DNNL_NHWC : atoi(bl);
    } else {
        dnnl_memory_desc_t smd, wmd, dmd;
        dnnl_dims_t sd = {1, 64, 28, 28}, wd = {64, 64, 3, 3}, one = {1, 1}, zero = {0, 0};
        dnnl_convolution_desc_t cd;
        dnnl_primitive_desc_t pd;
        if (dn.dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_f32, dnnl_format_tag_any) != dnnl_success ||
            dn.dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any) != dnnl_success ||
            dn.dnnl_memory_desc_init_by_tag(&dmd, 4, sd, dnnl_f32, dnnl_format_tag_any) != dnnl_success ||
            dn.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd,
                                                          &wmd, NULL, &dmd, one, zero, one, one) != dnnl_success ||
            dn.dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL) != dnnl_success)
            return;
        const dnnl_memory_desc_t *q = dn.dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        if (q && q->format_kind == dnnl_blocked) {
            const dnnl_blocking_desc_t *bk = &q->format_desc.blocking;
            if (bk->inner_nblks == 1 && bk->inner_idxs[0] == 1 && (bk->inner_blks[0] == 8 || bk->inner_blks[0] == 16))
                chain_layout = (int)bk->inner_blks[0];
            else if (bk->inner_nblks == 0 && bk->strides[1] == 1 && bk->strides[3] == 64)
                chain_layout = EIR_DNNL_NHWC;
        }
        dn.dnnl_primitive_desc_destroy(pd);
    }
    /* pieces of a blocked output start on a channel block */
    if (chain_layout > 0 && oc_block % chain_layout) oc_block += chain_layout - oc_block % chain_layout;
}

int eir_dnnl_conv_layout(void) {
    pthread_once(&conv_once, conv_init);
    return conv_on ? chain_layout : 0;
}

bool eir_dnnl_conv_enabled(void) {
    pthread_once(&conv_once, conv_init);
    return conv_on;
}

/* this thread's stream, made on first use and kept for the thread's life */
static dnnl_stream_t stream_here(void) {
    if (!thread_stream && dn.dnnl_stream_create(&thread_stream, engine, dnnl_stream_default_flags) != dnnl_success)
        thread_stream = NULL;
    return thread_stream;
}

/* oneDNN on one thread in this thread; returns the count it had */
static int omp_one(void) {
    int was = dn.omp_get_max_threads();
    if (was != 1) dn.omp_set_num_threads(1);
    return was;
}

/* ---- declared constants and the cache ---- */

typedef struct conv_range {
    const char *lo, *hi;
    const void *owner;
    bool mapped;
} conv_range;

/* A primitive with the scratchpad it needs: the caller gives it (scratchpad mode "user"), since
 * oneDNN's own is kept per creating thread and the pool's threads run what another made. */
typedef struct prim {
    dnnl_primitive_t p;
    dnnl_memory_t scratch;          /* NULL: none needed */
    size_t scratch_bytes;
    dnnl_memory_desc_t scratch_md;
} prim;

typedef struct conv_blk {
    int64_t c0, n;                  /* output channels [c0, c0 + n) */
    prim conv, rout;                /* the convolution, its output's reorder to NCHW */
    dnnl_memory_t wei, bias, dst, udst;
    dnnl_memory_t src;              /* depthwise in 8 / 16 blocks: the block's input channels */
    dnnl_memory_t res;              /* depthwise channels last, a residual taken in: each image's */
    bool direct;                    /* depthwise channels last: the output written in place */
    size_t dst_bytes;               /* the block's output in the primitive's layout */
    size_t bytes;                   /* its share of a call's buffer: output and both scratchpads */
} conv_blk;

typedef struct conv_entry {
    const void *owner;
    const float *w;
    int64_t geo[21];                /* N C H W O OH OW KH KW stride pad dil, bias (blocked: groups), xB + 1, yB,
                                     * the epilogue taken in (post_key) */
    bool ok;                        /* false: no primitive for it; the caller's path */
    pthread_mutex_t mu;             /* one call at a time: the memory objects take the call's buffers */
    prim rin;                       /* NCHW input to the primitives' layout; p NULL: they read NCHW */
    dnnl_memory_t usrc, src;
    dnnl_memory_t *srcs;            /* blocked mode: each image's input (pixel bands: each band's) */
    dnnl_memory_t *dsts;            /* pixel bands: each band's output */
    dnnl_memory_t *scrs;            /* pixel bands: each band's scratchpad (NULL entries: none) */
    dnnl_memory_t *rsds;            /* pixel bands with a residual taken in: each band's */
    dnnl_memory_t bias_m;           /* the bias taken in (fused) */
    bool fused;                     /* the epilogue taken in as post-ops (post_key): no callback */
    int64_t nsrcs, band;            /* srcs' count; pixels per band (0: blocks of output channels) */
    int64_t dw_rows, dw_nb;         /* depthwise channels last in row bands: output rows per band, bands
                                     * per image (0: one primitive per image) */
    int64_t *dw_map;                /* band r of an image runs blk[dw_map[r]] */
    int64_t dw_img;                 /* and blk[dw_img] is one primitive over a whole image (one thread) */
    size_t src_bytes, wbytes;
    int64_t nblk;
    conv_blk *blk;
    size_t *off, total;             /* a call's buffer: the blocked input, then block b's share at off[b] */
    float *wino;                    /* Winograd (entry_build_wino): the transformed weight, 16 x C x O,
                                     * each position's C x O packed for eir_nngemm_f32 when wino_nn */
    bool wino_nn;                   /* its products on eir_nngemm_f32 (else cblas_sgemm) */
    int64_t wino_pos;               /* floats from one position's weight to the next */
    int64_t wino_rows, wino_parts;  /* its blocks: this many rows of 2 x 2 output tiles, by this many
                                     * parts of the output channels */
    float *pw;                      /* pixel bands on eir_nngemm_f32 (entry_build_pw): the 1 x 1 weight
                                     * transposed (C x O) and packed */
    struct conv_entry *next;
} conv_entry;

static pthread_mutex_t conv_mu = PTHREAD_MUTEX_INITIALIZER;
static conv_range *ranges;
static uint32_t nranges, capranges;
static conv_entry *entries;
static size_t weight_bytes;
static atomic_uint_fast64_t ncalls, nwino, nwino_nn, npw_nn, nref, nbands;

uint64_t eir_dnnl_conv_calls(void) { return (uint64_t)atomic_load(&ncalls); }
uint64_t eir_dnnl_conv_wino_calls(void) { return (uint64_t)atomic_load(&nwino); }
uint64_t eir_dnnl_conv_wino_nn_calls(void) { return (uint64_t)atomic_load(&nwino_nn); }
uint64_t eir_dnnl_conv_pw_nn_calls(void) { return (uint64_t)atomic_load(&npw_nn); }
uint64_t eir_dnnl_conv_dw_band_calls(void) { return (uint64_t)atomic_load(&nbands); }
uint64_t eir_dnnl_conv_ref_prims(void) { return (uint64_t)atomic_load(&nref); }

size_t eir_dnnl_conv_weight_bytes(void) {
    pthread_mutex_lock(&conv_mu);
    size_t n = weight_bytes;
    pthread_mutex_unlock(&conv_mu);
    return n;
}

int eir_dnnl_conv_const_add(const void *owner, const void *p, size_t nbytes, bool mapped) {
    if (!eir_dnnl_conv_enabled() || !p || !nbytes) return 0;
    pthread_mutex_lock(&conv_mu);
    if (nranges == capranges) {
        uint32_t cap = capranges ? capranges * 2 : 64;
        conv_range *r = realloc(ranges, cap * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&conv_mu);
            return -1;
        }
        ranges = r;
        capranges = cap;
    }
    ranges[nranges++] = (conv_range){(const char *)p, (const char *)p + nbytes, owner, mapped};
    pthread_mutex_unlock(&conv_mu);
    return 0;
}

static void prim_free(prim *q) {
    if (q->p) dn.dnnl_primitive_destroy(q->p);
    if (q->scratch) dn.dnnl_memory_destroy(q->scratch);
    q->p = NULL;
    q->scratch = NULL;
}

/* q from op_desc (a convolution's; NULL: a reorder from *from to *to), its scratchpad the caller's */
static bool prim_make_po(prim *q, const void *op_desc, const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                         dnnl_primitive_desc_t *keep, dnnl_post_ops_t po) {
    dnnl_primitive_attr_t attr;
    if (dn.dnnl_primitive_attr_create(&attr) != dnnl_success) return false;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t rc = dn.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (rc == dnnl_success && po) rc = dn.dnnl_primitive_attr_set_post_ops(attr, po);
    if (rc == dnnl_success)
        rc = op_desc ? dn.dnnl_primitive_desc_create(&pd, op_desc, attr, engine, NULL)
                     : dn.dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, attr);
    dn.dnnl_primitive_attr_destroy(attr);
    if (rc != dnnl_success) return false;
    /* oneDNN's reference convolution (plain loops, 100-1000x slower than its kernels) is refused:
     * the caller's own path is faster. It comes when the formats do not fit together. */
    const char *impl = NULL;
    if (op_desc && dn.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
        !strncmp(impl, "ref", 3)) {
        atomic_fetch_add(&nref, 1);
        dn.dnnl_primitive_desc_destroy(pd);
        return false;
    }
    const dnnl_memory_desc_t *sm = dn.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    q->scratch_bytes = sm ? dn.dnnl_memory_desc_get_size(sm) : 0;
    if (q->scratch_bytes) {
        q->scratch_md = *sm;
        rc = dn.dnnl_memory_create(&q->scratch, sm, engine, DNNL_MEMORY_NONE);
    }
    if (rc == dnnl_success) rc = dn.dnnl_primitive_create(&q->p, pd);
    if (rc != dnnl_success) q->p = NULL;
    if (keep && rc == dnnl_success) *keep = pd;
    else dn.dnnl_primitive_desc_destroy(pd);
    return rc == dnnl_success;
}

static bool prim_make(prim *q, const void *op_desc, const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                      dnnl_primitive_desc_t *keep) {
    return prim_make_po(q, op_desc, from, to, keep, NULL);
}

/* ---- an epilogue taken in by the primitive (post-ops) ----
 * geo[18]: 0 none taken in, else 1 + the activation (EIR_BLK_*); geo[19]: 1 bias, + 2 residual;
 * geo[20]: hardtanh's bounds (their float bits). Only for channels-last outputs (no padding
 * lanes), in the modes that write the output in place (pixel bands, depthwise). */
static void post_key(int64_t *geo, const eir_blk_epi *epi) {
    geo[18] = geo[19] = geo[20] = 0;
    if (!post_on || epi->act < 0 || geo[17] != geo[4]) return;
    geo[18] = 1 + epi->act;
    geo[19] = (epi->bias != NULL) + 2 * (epi->res != NULL);
    uint32_t lo, hi;
    memcpy(&lo, &epi->lo, 4);
    memcpy(&hi, &epi->hi, 4);
    geo[20] = epi->act == EIR_BLK_CLIP ? (int64_t)(((uint64_t)lo << 32) | hi) : 0;
}

/* the post-ops of geo (post_key) for an output described by dmd: the residual (binary add),
 * then the activation; *po NULL when there are none. Returns false when oneDNN refuses. */
static bool post_ops(const int64_t *geo, const dnnl_memory_desc_t *dmd, dnnl_post_ops_t *po) {
    *po = NULL;
    if (!geo[18] || (geo[18] == 1 + EIR_BLK_NONE && !(geo[19] & 2))) return true;
    if (dn.dnnl_post_ops_create(po) != dnnl_success) return false;
    bool ok = true;
    if (geo[19] & 2) ok = dn.dnnl_post_ops_append_binary(*po, dnnl_binary_add, dmd) == dnnl_success;
    float lo, hi;
    uint32_t l = (uint32_t)((uint64_t)geo[20] >> 32), h = (uint32_t)geo[20];
    memcpy(&lo, &l, 4);
    memcpy(&hi, &h, 4);
    switch (geo[18] - 1) {
    case EIR_BLK_RELU: ok = ok && dn.dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_relu, 0.f, 0.f) == dnnl_success; break;
    case EIR_BLK_CLIP: ok = ok && dn.dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_clip, lo, hi) == dnnl_success; break;
    case EIR_BLK_HARDSWISH:
        ok = ok && dn.dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_hardswish, 0.f, 0.f) == dnnl_success;
        break;
    case EIR_BLK_SILU: ok = ok && dn.dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_swish, 1.f, 0.f) == dnnl_success; break;
    default: break;
    }
    if (!ok) {
        dn.dnnl_post_ops_destroy(*po);
        *po = NULL;
    }
    return ok;
}

/* run q with args (and its scratchpad at scratch) on stream s */
static bool prim_run(const prim *q, dnnl_stream_t s, int nargs, dnnl_exec_arg_t *args, void *scratch) {
    if (q->scratch) {
        dn.dnnl_memory_set_data_handle(q->scratch, scratch);
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, q->scratch};
    }
    return dn.dnnl_primitive_execute(q->p, s, nargs, args) == dnnl_success;
}

static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

static void entry_free(conv_entry *e) {
    for (int64_t b = 0; e->blk && b < e->nblk; b++) {
        conv_blk *k = &e->blk[b];
        prim_free(&k->conv);
        prim_free(&k->rout);
        if (k->wei) dn.dnnl_memory_destroy(k->wei);
        if (k->bias) dn.dnnl_memory_destroy(k->bias);
        if (k->dst) dn.dnnl_memory_destroy(k->dst);
        if (k->udst) dn.dnnl_memory_destroy(k->udst);
        if (k->src) dn.dnnl_memory_destroy(k->src);
        if (k->res) dn.dnnl_memory_destroy(k->res);
    }
    free(e->pw);
    if (e->bias_m) dn.dnnl_memory_destroy(e->bias_m);
    prim_free(&e->rin);
    for (int64_t n = 0; e->srcs && n < e->nsrcs; n++) {
        if (e->srcs[n]) dn.dnnl_memory_destroy(e->srcs[n]);
        if (e->dsts && e->dsts[n]) dn.dnnl_memory_destroy(e->dsts[n]);
        if (e->scrs && e->scrs[n]) dn.dnnl_memory_destroy(e->scrs[n]);
        if (e->rsds && e->rsds[n]) dn.dnnl_memory_destroy(e->rsds[n]);
    }
    free(e->dw_map);
    free(e->rsds);
    free(e->srcs);
    free(e->dsts);
    free(e->scrs);
    if (e->usrc) dn.dnnl_memory_destroy(e->usrc);
    if (e->src) dn.dnnl_memory_destroy(e->src);
    free(e->wino);
    weight_bytes -= e->wbytes;
    pthread_mutex_destroy(&e->mu);
    free(e->blk);
    free(e->off);
    free(e);
}

/* The owner of a declared range holding [lo, hi), and whether that range is mapped; NULL: none.
 * Called with conv_mu held. */
static const void *range_owner(const char *lo, const char *hi, bool *mapped) {
    for (uint32_t i = 0; i < nranges; i++)
        if (lo >= ranges[i].lo && hi <= ranges[i].hi) {
            if (mapped) *mapped = ranges[i].mapped;
            return ranges[i].owner;
        }
    return NULL;
}

/* NCHW mode (geo[17] 0): geo[18] 1 when the weight is bfloat16 (eir_dnnl_conv2d_wbf16) */
static bool entry_wbf16(const conv_entry *e) { return !e->geo[17] && e->geo[18] == 1; }

/* the end of an entry's weight: O x C x KH x KW floats (bfloat16 values) */
static const char *entry_wend(const conv_entry *e) {
    int64_t cg = e->geo[17] && e->geo[15] > 1 ? e->geo[1] / e->geo[15] : e->geo[1]; /* blocked: groups */
    return (const char *)e->w + e->geo[4] * cg * e->geo[7] * e->geo[8] * (entry_wbf16(e) ? 2 : 4);
}

/* Runtimes on one program declare the same weights and share an entry: a convolution may still
 * be running from it on another runtime's thread when the runtime that made it is freed. So an
 * entry lives while any declared range holds its weight, passing to the owner of one that does. */
void eir_dnnl_conv_const_drop(const void *owner) {
    if (!eir_dnnl_conv_enabled()) return;
    pthread_mutex_lock(&conv_mu);
    uint32_t w = 0;
    for (uint32_t i = 0; i < nranges; i++)
        if (ranges[i].owner != owner) ranges[w++] = ranges[i];
    nranges = w;
    for (conv_entry **pp = &entries; *pp;) {
        conv_entry *e = *pp;
        const void *heir = e->owner == owner ? range_owner((const char *)e->w, entry_wend(e), NULL) : e->owner;
        if (heir) {
            e->owner = heir;
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        entry_free(e);
    }
    pthread_mutex_unlock(&conv_mu);
}

/* Give back the pages wholly inside [lo, hi) of a read-only private file mapping (their bytes
 * are the file's; a later read maps them again): the reordered weight takes their place. */
static void release_pages(const char *lo, const char *hi) {
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t a = ((uintptr_t)lo + page - 1) / page * page, b = (uintptr_t)hi / page * page;
    if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

#define OK(call)                                                                                                       \
    do {                                                                                                               \
        if ((call) != dnnl_success) return false;                                                                      \
    } while (0)

/* The weight of block k, once: its OIHW rows (at w, in layout *uwmd) into the primitive's layout *qw */
static bool reorder_weight(conv_blk *k, const void *w, const dnnl_memory_desc_t *uwmd, const dnnl_memory_desc_t *qw,
                           dnnl_stream_t s) {
    dnnl_memory_t uw;
    OK(dn.dnnl_memory_create(&uw, uwmd, engine, (void *)w));
    prim rw = {0};
    bool done = prim_make(&rw, NULL, uwmd, qw, NULL);
    void *scratch = done && rw.scratch_bytes ? malloc(rw.scratch_bytes) : NULL;
    if (done && (!rw.scratch_bytes || scratch)) {
        dnnl_exec_arg_t ra[3] = {{DNNL_ARG_FROM, uw}, {DNNL_ARG_TO, k->wei}};
        done = prim_run(&rw, s, 2, ra, scratch) && dn.dnnl_stream_wait(s) == dnnl_success;
    } else done = false;
    free(scratch);
    prim_free(&rw);
    dn.dnnl_memory_destroy(uw);
    return done;
}

/* a memory descriptor of (N, C, H, W) blocked by B (0: NCHW) */
/* B: 0 for NCHW, C for channels last, else 8 or 16 lanes (nChw8c / nChw16c). A tensor with as
 * many channels as one block is both channels last and blocked in memory; lanes (a convolution's
 * block: 8, 16, or 0 for channels last) says which to call it, so that its input and output
 * share one format: oneDNN has no fast primitive for a blocked input with a channels-last
 * output, and its reference one ran MobileNetV2's 112 x 112 x 16 projection in 190 ms instead
 * of 0.2 in 16-lane chains. */
static bool blocked_md(dnnl_memory_desc_t *md, int64_t N, int64_t C, int64_t H, int64_t W, int64_t B, int64_t lanes) {
    dnnl_dims_t d = {N, C, H, W};
    dnnl_format_tag_t tag = B == 0                  ? dnnl_nchw
                            : B == C && B != lanes  ? dnnl_nhwc
                            : B == 16               ? dnnl_nChw16c
                            : B == 8                ? dnnl_nChw8c
                                                    : dnnl_format_tag_undef;
    return tag != dnnl_format_tag_undef && dn.dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, tag) == dnnl_success;
}

/* The block of a convolution from C channels in blocks of xB to O in blocks of yB: the one side
 * that is blocked and not one block wide, else the chains' */
static int64_t conv_lanes(int64_t C, int64_t xB, int64_t O, int64_t yB) {
    if (xB > 0 && xB != C) return xB;
    if (yB != O) return yB;
    return chain_layout > 0 ? chain_layout : 0;
}

/* k->conv from the convolution (src smd, weights wmd, output dmd): with the epilogue of e->geo
 * taken in (bias, residual, activation: e->fused) when the output is written in place and
 * oneDNN takes it, else bare; *pdesc kept for the caller's queries */
static bool conv_make(conv_entry *e, conv_blk *k, const dnnl_memory_desc_t *smd, const dnnl_memory_desc_t *wmd,
                      const dnnl_memory_desc_t *dmd, const dnnl_dims_t strides, const dnnl_dims_t dil,
                      const dnnl_dims_t pl, const dnnl_dims_t pr, bool in_place, dnnl_primitive_desc_t *pdesc) {
    const int64_t *g = e->geo;
    if (in_place && g[18] && (!e->nblk || k == &e->blk[0] || e->fused)) {
        dnnl_memory_desc_t bmd;
        dnnl_dims_t bd = {g[4]};
        dnnl_post_ops_t po = NULL;
        dnnl_convolution_desc_t cd;
        bool bias = g[19] & 1;
        if (dn.dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_x) == dnnl_success && post_ops(g, dmd, &po) &&
            dn.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, smd, wmd,
                                                          bias ? &bmd : NULL, dmd, strides, dil, pl,
                                                          pr) == dnnl_success &&
            prim_make_po(&k->conv, &cd, NULL, NULL, pdesc, po)) {
            if (po) dn.dnnl_post_ops_destroy(po);
            if (bias && !e->bias_m && dn.dnnl_memory_create(&e->bias_m, &bmd, engine, DNNL_MEMORY_NONE) != dnnl_success)
                return false;
            e->fused = true;
            return true;
        }
        if (po) dn.dnnl_post_ops_destroy(po);
        if (e->fused) return false; /* every piece takes it in, or none */
    }
    dnnl_convolution_desc_t cd;
    OK(dn.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, smd, wmd,
                                                     NULL, dmd, strides, dil, pl, pr));
    return prim_make(&k->conv, &cd, NULL, NULL, pdesc);
}

/* Depthwise channels last in bands of output rows: band r of an image computes output rows
 * [r R, min(OH, (r + 1) R)) from the input rows they read, the image's padding above the first
 * band and below the last one given to it as the primitive's own; bands of one geometry (rows in,
 * rows out, padding) share a primitive. Each band's output is written in place. Every output
 * value is the same sum of the same products as in one primitive over the image. */
static bool entry_build_dw_bands(conv_entry *e, const float *w, dnnl_stream_t s, int64_t nb) {
    const int64_t *g = e->geo;
    int64_t N = g[0], C = g[1], H = g[2], W = g[3], O = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int64_t *st = &g[9], *pd = &g[11], *dl = &g[13];
    int64_t R = (OH + nb - 1) / nb, keff = (KH - 1) * dl[0] + 1;
    nb = (OH + R - 1) / R;
    int64_t prw = (OW - 1) * st[1] + (KW - 1) * dl[1] + 1 - W - pd[1];
    int64_t (*geo)[4] = calloc((size_t)nb + 1, sizeof *geo);
    if (!(e->dw_map = calloc((size_t)nb, sizeof *e->dw_map)) || !geo) {
        free(geo);
        return false;
    }
    e->nblk = 0;
    for (int64_t r = 0; r < nb; r++) { /* rows in, padding above, below, rows out */
        int64_t r0 = r * R, r1 = r0 + R < OH ? r0 + R : OH;
        int64_t i0 = r0 * st[0] - pd[0], i1 = (r1 - 1) * st[0] - pd[0] + keff;
        int64_t top = i0 < 0 ? -i0 : 0, bot = i1 > H ? i1 - H : 0;
        int64_t gr[4] = {(i1 < H ? i1 : H) - (i0 > 0 ? i0 : 0), top, bot, r1 - r0};
        if (gr[0] < 1 || top > pd[0] || bot > pd[0] + st[0]) {
            free(geo);
            return false;
        }
        int64_t k = 0;
        while (k < e->nblk && memcmp(geo[k], gr, sizeof gr)) k++;
        if (k == e->nblk) memcpy(geo[e->nblk++], gr, sizeof gr);
        e->dw_map[r] = k;
    }
    e->dw_rows = R;
    e->dw_nb = nb;
    e->nsrcs = N * nb;
    e->dw_img = e->nblk++;
    if (!(e->blk = calloc((size_t)e->nblk, sizeof *e->blk)) || !(e->srcs = calloc((size_t)e->nsrcs, sizeof *e->srcs)) ||
        !(e->dsts = calloc((size_t)e->nsrcs, sizeof *e->dsts)) || !(e->scrs = calloc((size_t)e->nsrcs, sizeof *e->scrs)) ||
        !(e->rsds = calloc((size_t)e->nsrcs, sizeof *e->rsds)) || !(e->off = calloc((size_t)e->nblk, sizeof *e->off))) {
        free(geo);
        return false;
    }
    int64_t ln = conv_lanes(C, C, O, O);
    bool ok = true;
    e->total = 0;
    for (int64_t k = 0; ok && k < e->nblk; k++) {
        conv_blk *q = &e->blk[k];
        q->c0 = 0;
        q->n = O;
        q->direct = true;
        bool img = k == e->dw_img;
        int64_t prh = (OH - 1) * st[0] + keff - H - pd[0];
        dnnl_memory_desc_t smd, wmd, dmd, uwmd;
        dnnl_dims_t wd = {O, 1, 1, KH, KW}, strides = {st[0], st[1]}, dil = {dl[0] - 1, dl[1] - 1},
                    pl = {img ? pd[0] : geo[k][1], pd[1]}, pr = {img ? prh : geo[k][2], prw};
        ok = blocked_md(&smd, 1, C, img ? H : geo[k][0], W, C, ln) &&
             blocked_md(&dmd, 1, O, img ? OH : geo[k][3], OW, O, ln) &&
             dn.dnnl_memory_desc_init_by_tag(&wmd, 5, wd, dnnl_f32, dnnl_format_tag_any) == dnnl_success &&
             dn.dnnl_memory_desc_init_by_tag(&uwmd, 5, wd, dnnl_f32, dnnl_goihw) == dnnl_success;
        dnnl_primitive_desc_t pdesc;
        ok = ok && conv_make(e, q, &smd, &wmd, &dmd, strides, dil, pl, pr, true, &pdesc);
        if (!ok) break;
        dnnl_memory_desc_t qw = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_weights_md, 0);
        dn.dnnl_primitive_desc_destroy(pdesc);
        ok = dn.dnnl_memory_create(&q->wei, &qw, engine, DNNL_MEMORY_ALLOCATE) == dnnl_success &&
             reorder_weight(q, w, &uwmd, &qw, s);
        if (!ok) break;
        e->wbytes += dn.dnnl_memory_desc_get_size(&qw);
        q->bytes = round64(q->conv.scratch_bytes);
        if (q->bytes > e->total) e->total = q->bytes;
        if (img) {
            ok = dn.dnnl_memory_create(&q->src, &smd, engine, DNNL_MEMORY_NONE) == dnnl_success &&
                 dn.dnnl_memory_create(&q->dst, &dmd, engine, DNNL_MEMORY_NONE) == dnnl_success &&
                 (!(e->fused && (g[19] & 2)) ||
                  dn.dnnl_memory_create(&q->res, &dmd, engine, DNNL_MEMORY_NONE) == dnnl_success);
            continue;
        }
        /* the memory objects of every band of this geometry, each image's */
        for (int64_t b = 0; ok && b < e->nsrcs; b++) {
            if (e->dw_map[b % nb] != k) continue;
            ok = dn.dnnl_memory_create(&e->srcs[b], &smd, engine, DNNL_MEMORY_NONE) == dnnl_success &&
                 dn.dnnl_memory_create(&e->dsts[b], &dmd, engine, DNNL_MEMORY_NONE) == dnnl_success &&
                 (!q->conv.scratch || dn.dnnl_memory_create(&e->scrs[b], &q->conv.scratch_md, engine,
                                                           DNNL_MEMORY_NONE) == dnnl_success) &&
                 (!(e->fused && (g[19] & 2)) ||
                  dn.dnnl_memory_create(&e->rsds[b], &dmd, engine, DNNL_MEMORY_NONE) == dnnl_success);
        }
    }
    free(geo);
    return ok;
}

/* Depthwise (groups == C == O; the input in the output's layout): channels last, one primitive
 * over all channels of an image, its output written straight into the result (the epilogue then
 * in place); blocks of 8 or 16, one primitive per block of oc_block channels, its input those
 * channels' blocks (contiguous in that layout). */
static bool entry_build_dw(conv_entry *e, const float *w, dnnl_stream_t s) {
    const int64_t *g = e->geo;
    int64_t N = g[0], C = g[1], H = g[2], W = g[3], O = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int64_t *st = &g[9], *pd = &g[11], *dl = &g[13];
    int64_t xB = g[16] - 1, yB = g[17];
    if (g[15] != C || C != O || xB != yB || (yB != O && oc_block % yB)) return false;
    int64_t ln = conv_lanes(C, xB, O, yB);
    dnnl_dims_t strides = {st[0], st[1]}, dil = {dl[0] - 1, dl[1] - 1}, pl = {pd[0], pd[1]}, pr;
    for (int i = 0; i < 2; i++) {
        int64_t in = i ? W : H, out = i ? OW : OH, k = i ? KW : KH;
        pr[i] = (out - 1) * st[i] + (k - 1) * dl[i] + 1 - in - pd[i];
        if (pr[i] > pd[i] + st[i]) return false;
    }
    bool last = yB == O;
    if (last && dw_band_work > 0) {
        int64_t nb = OH * OW * O / dw_band_work;
        if (nb > DW_BANDS) nb = DW_BANDS;
        if (nb > OH) nb = OH;
        if (nb >= 2) {
            return entry_build_dw_bands(e, w, s, nb);
        }
    }
    int64_t cb = last ? O : oc_block;
    e->nblk = (O + cb - 1) / cb;
    if (!(e->blk = calloc((size_t)e->nblk, sizeof *e->blk))) return false;
    dnnl_memory_desc_t src_md;
    if (last) {
        if (!blocked_md(&src_md, 1, C, H, W, xB, ln)) return false;
        if (!(e->srcs = calloc((size_t)N, sizeof *e->srcs))) return false;
        e->nsrcs = N;
        for (int64_t n = 0; n < N; n++) OK(dn.dnnl_memory_create(&e->srcs[n], &src_md, engine, DNNL_MEMORY_NONE));
    }
    if (!(e->off = malloc((size_t)e->nblk * sizeof *e->off))) return false;
    e->total = 0;
    for (int64_t b = 0; b < e->nblk; b++) {
        conv_blk *k = &e->blk[b];
        k->c0 = b * cb;
        k->n = O - k->c0 < cb ? O - k->c0 : cb;
        k->direct = last;
        dnnl_memory_desc_t wmd, dmd, uwmd, smd;
        dnnl_dims_t wd = {k->n, 1, 1, KH, KW};
        OK(dn.dnnl_memory_desc_init_by_tag(&wmd, 5, wd, dnnl_f32, dnnl_format_tag_any));
        OK(dn.dnnl_memory_desc_init_by_tag(&uwmd, 5, wd, dnnl_f32, dnnl_goihw));
        if (!blocked_md(&dmd, 1, k->n, OH, OW, last ? k->n : yB, ln)) return false;
        if (last) smd = src_md;
        else {
            if (!blocked_md(&smd, 1, k->n, H, W, xB, ln)) return false;
            OK(dn.dnnl_memory_create(&k->src, &smd, engine, DNNL_MEMORY_NONE));
        }
        dnnl_primitive_desc_t pdesc;
        if (!conv_make(e, k, &smd, &wmd, &dmd, strides, dil, pl, pr, last, &pdesc)) return false;
        dnnl_memory_desc_t qw = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_weights_md, 0);
        dn.dnnl_primitive_desc_destroy(pdesc);
        OK(dn.dnnl_memory_create(&k->wei, &qw, engine, DNNL_MEMORY_ALLOCATE));
        OK(dn.dnnl_memory_create(&k->dst, &dmd, engine, DNNL_MEMORY_NONE));
        if (e->fused && (e->geo[19] & 2)) OK(dn.dnnl_memory_create(&k->res, &dmd, engine, DNNL_MEMORY_NONE));
        k->bytes = round64(k->conv.scratch_bytes);
        e->off[b] = 0;
        if (k->bytes > e->total) e->total = k->bytes;
        if (!reorder_weight(k, w + k->c0 * KH * KW, &uwmd, &qw, s)) return false;
        e->wbytes += dn.dnnl_memory_desc_get_size(&qw);
    }
    return true;
}

/* Pixel bands: a 1 x 1 convolution, stride 1, no padding, channels last in and out, is a
 * product of the (pixels x C) input and the weight; the N x H x W pixels are cut into bands of
 * pix_band (fewer pixels than two bands: two halves; fewer than 32: one band), a function of
 * the shape alone, whatever the thread count; each band one primitive run (one primitive for
 * the full bands, one for the last) writing all O channels straight into the output, the
 * epilogue taken in as post-ops or run in place while the band is in cache. */
static bool entry_build_band(conv_entry *e, const float *w, dnnl_stream_t s) {
    const int64_t *g = e->geo;
    int64_t N = g[0], C = g[1], O = g[4], P = N * g[5] * g[6];
    /* at least two bands (two threads' work) when there are pixels enough: a function of the
     * shape alone, so the same bits at any thread count */
    int64_t band = P < 2 * pix_band ? (P + 1) / 2 : pix_band;
    if (band < 16) band = P;
    int64_t nb = (P + band - 1) / band, tail = P - (nb - 1) * band;
    e->band = band;
    e->nblk = tail == band ? 1 : 2;
    if (!(e->blk = calloc((size_t)e->nblk, sizeof *e->blk))) return false;
    if (!(e->srcs = calloc((size_t)nb, sizeof *e->srcs)) || !(e->dsts = calloc((size_t)nb, sizeof *e->dsts)) ||
        !(e->scrs = calloc((size_t)nb, sizeof *e->scrs)) || !(e->rsds = calloc((size_t)nb, sizeof *e->rsds)))
        return false;
    e->nsrcs = nb;
    dnnl_dims_t one = {1, 1}, zero = {0, 0};
    int64_t ln = conv_lanes(C, C, O, O);
    e->total = 0;
    for (int64_t b = 0; b < e->nblk; b++) {
        conv_blk *k = &e->blk[b];
        int64_t np = b ? tail : band;
        k->c0 = 0;
        k->n = O;
        dnnl_memory_desc_t smd, wmd, dmd, uwmd;
        dnnl_dims_t wd = {O, C, 1, 1};
        if (!blocked_md(&smd, 1, C, 1, np, C, ln) || !blocked_md(&dmd, 1, O, 1, np, O, ln)) return false;
        OK(dn.dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any));
        OK(dn.dnnl_memory_desc_init_by_tag(&uwmd, 4, wd, dnnl_f32, dnnl_oihw));
        dnnl_primitive_desc_t pdesc;
        if (!conv_make(e, k, &smd, &wmd, &dmd, one, zero, zero, zero, true, &pdesc)) return false;
        dnnl_memory_desc_t qw = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_weights_md, 0);
        dn.dnnl_primitive_desc_destroy(pdesc);
        OK(dn.dnnl_memory_create(&k->wei, &qw, engine, DNNL_MEMORY_ALLOCATE));
        k->bytes = round64(k->conv.scratch_bytes);
        if (k->bytes > e->total) e->total = k->bytes;
        if (!reorder_weight(k, w, &uwmd, &qw, s)) return false;
        e->wbytes += dn.dnnl_memory_desc_get_size(&qw);
        for (int64_t i = b ? nb - 1 : 0; i < (b ? nb : nb - (e->nblk == 2)); i++) {
            OK(dn.dnnl_memory_create(&e->srcs[i], &smd, engine, DNNL_MEMORY_NONE));
            OK(dn.dnnl_memory_create(&e->dsts[i], &dmd, engine, DNNL_MEMORY_NONE));
            /* bands run at once on the pool's threads: each its own scratchpad object (the
             * primitive's one would take one thread's buffer while another runs) */
            if (k->conv.scratch) OK(dn.dnnl_memory_create(&e->scrs[i], &k->conv.scratch_md, engine, DNNL_MEMORY_NONE));
            if (e->fused && (e->geo[19] & 2)) OK(dn.dnnl_memory_create(&e->rsds[i], &dmd, engine, DNNL_MEMORY_NONE));
        }
    }
    return true;
}

/* The same pixel bands on eir_nngemm_f32 where it runs (nngemm.h: AVX-512F, EIR_NNGEMM not 0):
 * each band the product of its pixels (np x C, channels last) and the weight transposed to C x O
 * and packed once, here; then the epilogue in place while the band is in cache. No primitive,
 * so nothing generated at the first run. The epilogue is taken into the kernel's stores where it
 * computes it (bias, residual, relu / clip / hardswish), else (silu, a callback alone) run in
 * place after each band. On the Intel Xeon of docs/GEMM.md ("1 x 1 convolutions") the
 * MobileNets ran 1.02-1.05x faster than on oneDNN's primitive, and started 1.05-1.07x sooner. */
static bool entry_build_pw(conv_entry *e, const float *w) {
    const int64_t *g = e->geo;
    int64_t C = g[1], O = g[4], P = g[0] * g[5] * g[6];
    int64_t band = P < 2 * pix_band ? (P + 1) / 2 : pix_band; /* as entry_build_band cuts them */
    if (band < 16) band = P;
    float *t = malloc((size_t)(C * O) * sizeof *t);
    if (!t || !(e->pw = aligned_alloc(64, (size_t)eir_nngemm_packed_floats(C, O) * sizeof(float)))) {
        free(t);
        return false;
    }
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < C; c++) t[c * O + o] = w[o * C + c];
    eir_nngemm_pack(C, O, t, O, e->pw);
    free(t);
    e->band = band;
    e->nsrcs = (P + band - 1) / band;
    e->wbytes = (size_t)eir_nngemm_packed_floats(C, O) * sizeof(float);
    return true;
}

/* ---- Winograd F(2 x 2, 3 x 3) ----
 * A 3 x 3 convolution with stride 1, padding 1 and no dilation, channels last in and out (the
 * chains' layout here), as 16 products instead of 36 multiplies per 2 x 2 output tile: each 4 x 4
 * input tile d becomes V = B^T d B, the weight g of each (output, input) channel pair U = G g G^T
 * (once, kept with the entry), then M_k = V_k U_k for each of the 16 positions k (tiles x C
 * times C x O), and the tile's output A^T M A:
 *     B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
 *     A^T = [1 1 1 0; 0 1 -1 -1].
 * 2.25x fewer multiplies; measured on this machine (one thread, eir's profiler, against the
 * direct primitive, brgconv, at 105-117 GFLOP/s): ResNet-18's four 56 x 56 x 64 layers 8.7 ->
 * 5.1 ms, its three 28 x 28 x 128 ones 6.2 -> 4.2 ms, its three 14 x 14 x 256 ones 6.0 -> 4.9
 * ms; a standalone 7 x 7 x 512 layer (16 tiles, the products too thin) 2.2 -> 2.5-3.8 ms, so
 * it takes 40 tiles or more. The products run on eir_nngemm_f32 (nngemm.h) where the CPU has
 * AVX-512F, each position's transformed weight packed for it once, else on OpenBLAS (one thread
 * each). On the Intel Xeon of docs/GEMM.md ("The Winograd convolution's products") the kernel ran
 * the 28 and 14-pixel layers' products 1.3-1.4x faster than OpenBLAS, which packed the weight at
 * every call, and ResNet-18 1.16x faster at one thread. oneDNN's dnnl_sgemm was 1.2-1.5x faster
 * than OpenBLAS on those products on the AMD EPYC, but its first call generates its kernels (40
 * ms there, in the process's first run), which the direct primitive's convolutions never needed:
 * ResNet-18 per run 27.0 ms with dnnl_sgemm, 28.5 with OpenBLAS (34.6 without Winograd); process
 * start to first result 168 / 132 / 141 ms (9 alternating fresh processes). The sums differ from
 * the direct convolution's in the last bits (about 1e-6 of the values' size on those layers, the
 * transforms' additions); the work is cut into blocks of whole tile rows (a function of the
 * shape), each block's products one call on one thread, so the bits are the same at any thread
 * count. EIR_WINOGRAD=0: the direct primitive. */

enum { WINO_MIN_TILES = 40, WINO_BLOCK = 16384 /* tiles x input channels per block: V within L2 */ };

static bool wino_fits(const int64_t *g) {
    int64_t C = g[1], H = g[2], W = g[3], O = g[4], OH = g[5], OW = g[6];
    return wino_on && g[7] == 3 && g[8] == 3 && g[9] == 1 && g[10] == 1 && g[11] == 1 && g[12] == 1 && g[13] == 1 &&
           g[14] == 1 && g[15] <= 1 && g[16] == C + 1 && g[17] == O && C % 16 == 0 && O % 16 == 0 && OH == H &&
           OW == W && ((OH + 1) / 2) * ((OW + 1) / 2) >= WINO_MIN_TILES;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define WINO_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WINO_CLONES
#endif

/* U = G g G^T of one (output, input) channel pair's 3 x 3 weight g: t = G g (4 x 3), then each
 * row (a, b, c) of t gives (a, (a + b + c) / 2, (a - b + c) / 2, c); v[4 i + j] = U[i][j]. */
static inline void wino_weight(const float *g, float *v) {
    for (int j = 0; j < 3; j++) {
        float g0 = g[j], g1 = g[3 + j], g2 = g[6 + j];
        float t[4] = {g0, 0.5f * (g0 + g1 + g2), 0.5f * (g0 - g1 + g2), g2};
        for (int i = 0; i < 4; i++) v[4 * i + j] = t[i]; /* column j of t, for now */
    }
    for (int i = 0; i < 4; i++) {
        float a = v[4 * i], b = v[4 * i + 1], cc = v[4 * i + 2];
        v[4 * i + 1] = 0.5f * (a + b + cc), v[4 * i + 2] = 0.5f * (a - b + cc), v[4 * i + 3] = cc;
    }
}

static bool entry_build_wino(conv_entry *e, const float *w) {
    int64_t C = e->geo[1], O = e->geo[4], TW = (e->geo[6] + 1) / 2;
    /* each position's C x O packed for eir_nngemm_f32 where it runs, written in place (first
     * transformed into C x O matrices and then packed, this took 28 ms of ResNet-18's 95 ms
     * start-up), else C x O as cblas_sgemm reads it */
    e->wino_nn = eir_nngemm_enabled();
    e->wino_pos = e->wino_nn ? eir_nngemm_packed_floats(C, O) : C * O;
    if (!(e->wino = aligned_alloc(64, (size_t)(16 * e->wino_pos) * sizeof(float)))) return false;
    float v[16];
    if (e->wino_nn) {
        /* 16 output channels at a time: 16 rows of the weight read side by side, and for each
         * input channel one run of 16 floats into each position's strip (one value at a time, the
         * 16 positions' stores, 256 KiB apart for C = O = 256, fell in one cache set: 3.5 ms a
         * layer) */
        int64_t Op = (O + 63) / 64 * 64; /* the last strip's columns past O: zeros */
        for (int64_t o0 = 0; o0 < Op; o0 += 16)
            for (int64_t c = 0; c < C; c++) {
                float blk[16][16]; /* [position][output channel - o0] */
                for (int64_t o = o0; o < o0 + 16; o++) {
                    if (o < O) wino_weight(w + (o * C + c) * 9, v);
                    for (int k = 0; k < 16; k++) blk[k][o - o0] = o < O ? v[k] : 0.f;
                }
                float *d = e->wino + o0 / 64 * 64 * C + c * 64 + o0 % 64;
                for (int k = 0; k < 16; k++) memcpy(d + k * e->wino_pos, blk[k], sizeof blk[k]);
            }
    } else
        /* output channels in blocks of 64, so that the 16 rows written for one input channel are
         * runs of 64 floats */
        for (int64_t o0 = 0; o0 < O; o0 += 64)
            for (int64_t c = 0; c < C; c++)
                for (int64_t o = o0; o < O && o < o0 + 64; o++) {
                    wino_weight(w + (o * C + c) * 9, v);
                    for (int k = 0; k < 16; k++) e->wino[(k * C + c) * O + o] = v[k];
                }
    /* blocks of at most WINO_BLOCK tiles x channels, the tile rows shared out evenly; an image
     * that is one block is cut into two halves of the output channels instead (each half reads
     * half of the transformed weight: work for two threads without reading all of it twice) */
    int64_t TH = (e->geo[5] + 1) / 2, most = WINO_BLOCK / (TW * C) > 1 ? WINO_BLOCK / (TW * C) : 1;
    int64_t nb = (TH + most - 1) / most;
    e->wino_rows = (TH + nb - 1) / nb;
    e->wino_parts = nb == 1 && O % (e->wino_nn ? 128 : 32) == 0 ? 2 : 1; /* eir_nngemm_f32: halves of whole strips */
    e->wbytes = (size_t)(16 * e->wino_pos) * sizeof(float);
    return true;
}

typedef float wino_v16 __attribute__((vector_size(64), aligned(4)));

/* V[k][t][c] = (B^T d B)[k] for the tiles of rows [tr0, tr1) of image x (H x W x C), T tiles */
WINO_CLONES static void wino_in(float *V, const float *x, int64_t H, int64_t W, int64_t C, int64_t tr0, int64_t tr1,
                                int64_t T) {
    int64_t TW = (W + 1) / 2;
    for (int64_t tr = tr0; tr < tr1; tr++)
        for (int64_t tc = 0; tc < TW; tc++) {
            int64_t t = (tr - tr0) * TW + tc;
            for (int64_t c0 = 0; c0 < C; c0 += 16) {
                wino_v16 d[4][4], e[4][4];
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++) {
                        int64_t ih = tr * 2 - 1 + i, iw = tc * 2 - 1 + j;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) d[i][j] = (wino_v16){0};
                        else memcpy(&d[i][j], x + (ih * W + iw) * C + c0, sizeof d[i][j]);
                    }
                for (int j = 0; j < 4; j++) {
                    e[0][j] = d[0][j] - d[2][j], e[1][j] = d[1][j] + d[2][j];
                    e[2][j] = d[2][j] - d[1][j], e[3][j] = d[1][j] - d[3][j];
                }
                for (int i = 0; i < 4; i++) {
                    wino_v16 r[4] = {e[i][0] - e[i][2], e[i][1] + e[i][2], e[i][2] - e[i][1], e[i][1] - e[i][3]};
                    for (int j = 0; j < 4; j++) memcpy(V + ((i * 4 + j) * T + t) * C + c0, &r[j], sizeof r[j]);
                }
            }
        }
}

/* rows [2 tr0, 2 tr1), channels [oc0, oc0 + no) of y (OH x OW x O) = (A^T M A) of the block's
 * tiles, M (16 x T x no) */
WINO_CLONES static void wino_out(float *y, const float *M, int64_t OH, int64_t OW, int64_t O, int64_t tr0, int64_t tr1,
                                 int64_t T, int64_t oc0, int64_t no) {
    int64_t TW = (OW + 1) / 2;
    for (int64_t tr = tr0; tr < tr1; tr++)
        for (int64_t tc = 0; tc < TW; tc++) {
            int64_t t = (tr - tr0) * TW + tc;
            for (int64_t o0 = oc0; o0 < oc0 + no; o0 += 16) {
                wino_v16 m[4][4], a[2][4];
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++)
                        memcpy(&m[i][j], M + ((i * 4 + j) * T + t) * no + (o0 - oc0), sizeof m[i][j]);
                for (int j = 0; j < 4; j++) a[0][j] = m[0][j] + m[1][j] + m[2][j], a[1][j] = m[1][j] - m[2][j] - m[3][j];
                for (int i = 0; i < 2; i++) {
                    int64_t oh = tr * 2 + i, ow = tc * 2;
                    if (oh >= OH) continue;
                    wino_v16 r0 = a[i][0] + a[i][1] + a[i][2], r1 = a[i][1] - a[i][2] - a[i][3];
                    memcpy(y + (oh * OW + ow) * O + o0, &r0, sizeof r0);
                    if (ow + 1 < OW) memcpy(y + (oh * OW + ow + 1) * O + o0, &r1, sizeof r1);
                }
            }
        }
}

/* Blocked mode (geo[16] the input's block + 1, 1 for NCHW; geo[17] the output's): primitives for
 * one image, one per block of output channels; the input read where the caller has it, one
 * memory object per image; each block's output into the call's buffer (channels last: its
 * channels are not contiguous in the output) or straight into the output (8 or 16). */
static bool entry_build_blk(conv_entry *e, const float *w, dnnl_stream_t s) {
    const int64_t *g = e->geo;
    int64_t N = g[0], C = g[1], H = g[2], W = g[3], O = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int64_t *st = &g[9], *pd = &g[11], *dl = &g[13];
    int64_t xB = g[16] - 1, yB = g[17];
    if (yB != O && oc_block % yB) return false;
    dnnl_dims_t strides = {st[0], st[1]}, dil = {dl[0] - 1, dl[1] - 1}, pl = {pd[0], pd[1]}, pr;
    for (int i = 0; i < 2; i++) {
        int64_t in = i ? W : H, out = i ? OW : OH, k = i ? KW : KH;
        pr[i] = (out - 1) * st[i] + (k - 1) * dl[i] + 1 - in - pd[i];
        if (pr[i] > pd[i] + st[i]) return false;
    }
    if (g[15] > 1) return entry_build_dw(e, w, s);
    if (wino_fits(g)) return entry_build_wino(e, w);
    if (pix_band > 0 && KH == 1 && KW == 1 && st[0] == 1 && st[1] == 1 && !pd[0] && !pd[1] && xB == C && yB == O)
        return eir_nngemm_enabled() ? entry_build_pw(e, w) : entry_build_band(e, w, s);
    int64_t ln = conv_lanes(C, xB, O, yB);
    dnnl_memory_desc_t src_md;
    if (!blocked_md(&src_md, 1, C, H, W, xB, ln)) return false;
    e->nblk = (O + oc_block - 1) / oc_block;
    if (!(e->blk = calloc((size_t)e->nblk, sizeof *e->blk))) return false;
    if (!(e->srcs = calloc((size_t)N, sizeof *e->srcs))) return false;
    e->nsrcs = N;
    for (int64_t n = 0; n < N; n++) OK(dn.dnnl_memory_create(&e->srcs[n], &src_md, engine, DNNL_MEMORY_NONE));
    if (!(e->off = malloc((size_t)e->nblk * sizeof *e->off))) return false;
    e->total = 0;
    for (int64_t b = 0; b < e->nblk; b++) {
        conv_blk *k = &e->blk[b];
        k->c0 = b * oc_block;
        k->n = O - k->c0 < oc_block ? O - k->c0 : oc_block;
        dnnl_memory_desc_t wmd, dmd, uwmd;
        dnnl_dims_t wd = {k->n, C, KH, KW};
        OK(dn.dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any));
        OK(dn.dnnl_memory_desc_init_by_tag(&uwmd, 4, wd, dnnl_f32, dnnl_oihw));
        if (!blocked_md(&dmd, 1, k->n, OH, OW, yB == O ? k->n : yB, ln)) return false;
        dnnl_convolution_desc_t cd;
        OK(dn.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &src_md,
                                                         &wmd, NULL, &dmd, strides, dil, pl, pr));
        dnnl_primitive_desc_t pdesc;
        if (!prim_make(&k->conv, &cd, NULL, NULL, &pdesc)) return false;
        dnnl_memory_desc_t qw = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_weights_md, 0);
        dn.dnnl_primitive_desc_destroy(pdesc);
        OK(dn.dnnl_memory_create(&k->wei, &qw, engine, DNNL_MEMORY_ALLOCATE));
        OK(dn.dnnl_memory_create(&k->dst, &dmd, engine, DNNL_MEMORY_NONE));
        k->dst_bytes = yB == O ? dn.dnnl_memory_desc_get_size(&dmd) : 0;
        k->bytes = round64(k->dst_bytes) + round64(k->conv.scratch_bytes);
        e->off[b] = 0;          /* one buffer per thread, reused block after block */
        if (k->bytes > e->total) e->total = k->bytes;
        if (!reorder_weight(k, w + k->c0 * C * KH * KW, &uwmd, &qw, s)) return false;
        e->wbytes += dn.dnnl_memory_desc_get_size(&qw);
    }
    return true;
}

/* The primitives of e (geometry in e->geo) and its weights reordered from w; false: oneDNN has none */
static bool entry_build(conv_entry *e, const float *w, dnnl_stream_t s) {
    if (e->geo[17]) return entry_build_blk(e, w, s);
    const int64_t *g = e->geo;
    int64_t N = g[0], C = g[1], H = g[2], W = g[3], O = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int64_t *st = &g[9], *pd = &g[11], *dl = &g[13];
    bool has_bias = g[15] != 0;
    dnnl_dims_t strides = {st[0], st[1]}, dil = {dl[0] - 1, dl[1] - 1}, pl = {pd[0], pd[1]}, pr;
    for (int i = 0; i < 2; i++) {
        int64_t in = i ? W : H, out = i ? OW : OH, k = i ? KW : KH;
        pr[i] = (out - 1) * st[i] + (k - 1) * dl[i] + 1 - in - pd[i];
        if (pr[i] > pd[i] + st[i]) return false; /* negative: the last rows the stride skips */
    }
    dnnl_memory_desc_t any_src, usrc_md;
    dnnl_dims_t sd = {N, C, H, W};
    OK(dn.dnnl_memory_desc_init_by_tag(&any_src, 4, sd, dnnl_f32, dnnl_format_tag_any));
    OK(dn.dnnl_memory_desc_init_by_tag(&usrc_md, 4, sd, dnnl_f32, dnnl_nchw));
    e->nblk = (O + oc_block - 1) / oc_block;
    if (!(e->blk = calloc((size_t)e->nblk, sizeof *e->blk))) return false;
    /* a bfloat16 weight is converted to float32 by its one reorder: the primitives are float32 */
    bool wbf = entry_wbf16(e);
    dnnl_data_type_t wdt = wbf ? dnnl_bf16 : dnnl_f32;
    size_t wes = wbf ? 2 : 4;
    dnnl_memory_desc_t src_md; /* the layout the first block's primitive chose; every block reads it */
    for (int64_t b = 0; b < e->nblk; b++) {
        conv_blk *k = &e->blk[b];
        k->c0 = b * oc_block;
        k->n = O - k->c0 < oc_block ? O - k->c0 : oc_block;
        dnnl_memory_desc_t wmd, bmd, dmd, uwmd, udmd;
        dnnl_dims_t wd = {k->n, C, KH, KW}, bd = {k->n}, dd = {N, k->n, OH, OW}, uds = {O * OH * OW, OH * OW, OW, 1};
        OK(dn.dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any));
        OK(dn.dnnl_memory_desc_init_by_tag(&uwmd, 4, wd, wdt, dnnl_oihw));
        OK(dn.dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_x));
        OK(dn.dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_f32, dnnl_format_tag_any));
        OK(dn.dnnl_memory_desc_init_by_strides(&udmd, 4, dd, dnnl_f32, uds));
        dnnl_convolution_desc_t cd;
        OK(dn.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                                         b ? &src_md : &any_src, &wmd, has_bias ? &bmd : NULL, &dmd,
                                                         strides, dil, pl, pr));
        dnnl_primitive_desc_t pdesc;
        if (!prim_make(&k->conv, &cd, NULL, NULL, &pdesc)) return false;
        if (!b) src_md = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_src_md, 0);
        dnnl_memory_desc_t qw = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_weights_md, 0);
        dnnl_memory_desc_t qd = *dn.dnnl_primitive_desc_query_md(pdesc, dnnl_query_dst_md, 0);
        dn.dnnl_primitive_desc_destroy(pdesc);
        OK(dn.dnnl_memory_create(&k->wei, &qw, engine, DNNL_MEMORY_ALLOCATE));
        if (has_bias) OK(dn.dnnl_memory_create(&k->bias, &bmd, engine, DNNL_MEMORY_NONE));
        OK(dn.dnnl_memory_create(&k->dst, &qd, engine, DNNL_MEMORY_NONE));
        OK(dn.dnnl_memory_create(&k->udst, &udmd, engine, DNNL_MEMORY_NONE));
        k->dst_bytes = dn.dnnl_memory_desc_get_size(&qd);
        if (!prim_make(&k->rout, NULL, &qd, &udmd, NULL)) return false;
        k->bytes = round64(k->dst_bytes) + round64(k->conv.scratch_bytes) + round64(k->rout.scratch_bytes);
        if (!reorder_weight(k, (const char *)w + (size_t)(k->c0 * C * KH * KW) * wes, &uwmd, &qw, s)) return false;
        e->wbytes += dn.dnnl_memory_desc_get_size(&qw);
    }
    OK(dn.dnnl_memory_create(&e->usrc, &usrc_md, engine, DNNL_MEMORY_NONE));
    if (!dn.dnnl_memory_desc_equal(&src_md, &usrc_md)) {
        OK(dn.dnnl_memory_create(&e->src, &src_md, engine, DNNL_MEMORY_NONE));
        e->src_bytes = dn.dnnl_memory_desc_get_size(&src_md);
        if (!prim_make(&e->rin, NULL, &usrc_md, &src_md, NULL)) return false;
    }
    /* one buffer per call: the blocked input and its reorder's scratchpad, then each block's share */
    if (!(e->off = malloc((size_t)e->nblk * sizeof *e->off))) return false;
    e->total = round64(e->src_bytes) + round64(e->rin.scratch_bytes);
    for (int64_t b = 0; b < e->nblk; b++) {
        e->off[b] = e->total;
        e->total += e->blk[b].bytes;
    }
    return true;
}

/* The entry for this convolution, made on first use when w lies in a declared constant; NULL:
 * not constant. Called with conv_mu held. */
static conv_entry *entry_find(const float *w, const int64_t *geo, size_t wbytes, dnnl_stream_t s) {
    const char *lo = (const char *)w, *hi = lo + wbytes;
    bool mapped = false;
    const void *owner = range_owner(lo, hi, &mapped);
    if (!owner) return NULL;
    int shapes = 0;
    for (conv_entry *e = entries; e; e = e->next)
        if (e->w == w) {
            if (!memcmp(e->geo, geo, sizeof e->geo)) return e;
            shapes++;
        }
    /* each shape holds its own reordered weight: a weight met in many shapes (dynamic sizes)
     * stops adding copies and takes the caller's path for the shapes after these */
    if (shapes >= MAX_SHAPES) return NULL;
    conv_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->owner = owner;
    e->w = w;
    memcpy(e->geo, geo, sizeof e->geo);
    pthread_mutex_init(&e->mu, NULL);
    e->ok = entry_build(e, w, s);
    if (!e->ok) { /* keep the entry (so as not to retry), without its objects */
        entry_free(e);
        if (!(e = calloc(1, sizeof *e))) return NULL;
        e->owner = owner;
        e->w = w;
        memcpy(e->geo, geo, sizeof e->geo);
        pthread_mutex_init(&e->mu, NULL);
    } else {
        weight_bytes += e->wbytes;
        if (mapped) release_pages(lo, hi);
    }
    e->next = entries;
    entries = e;
    return e;
}

typedef struct conv_job {
    conv_entry *e;
    char *buf;          /* block b's output in the primitive's layout and scratchpads at buf + off[b] */
    const size_t *off;
    const float *bias;
    float *y;
    const eir_conv_epi *epi;
    _Atomic int failed;
} conv_job;

static void conv_blocks(void *ctx, int64_t b0, int64_t b1) {
    conv_job *j = ctx;
    conv_entry *e = j->e;
    dnnl_stream_t s = stream_here();
    if (!s) {
        atomic_store(&j->failed, 1);
        return;
    }
    (void)omp_one();
    int64_t N = e->geo[0], O = e->geo[4], P = e->geo[5] * e->geo[6];
    for (int64_t b = b0; b < b1; b++) {
        conv_blk *k = &e->blk[b];
        char *dst = j->buf + j->off[b], *cs = dst + round64(k->dst_bytes), *rs = cs + round64(k->conv.scratch_bytes);
        dn.dnnl_memory_set_data_handle(k->dst, dst);
        dn.dnnl_memory_set_data_handle(k->udst, j->y + k->c0 * P);
        if (k->bias) dn.dnnl_memory_set_data_handle(k->bias, (void *)(j->bias + k->c0));
        dnnl_exec_arg_t a[5] = {{DNNL_ARG_SRC, e->src ? e->src : e->usrc}, {DNNL_ARG_WEIGHTS, k->wei},
                                {DNNL_ARG_DST, k->dst}, {DNNL_ARG_BIAS, k->bias}};
        dnnl_exec_arg_t r[3] = {{DNNL_ARG_FROM, k->dst}, {DNNL_ARG_TO, k->udst}};
        if (!prim_run(&k->conv, s, k->bias ? 4 : 3, a, cs) || !prim_run(&k->rout, s, 2, r, rs) ||
            dn.dnnl_stream_wait(s) != dnnl_success) {
            atomic_store(&j->failed, 1);
            return;
        }
        if (j->epi)
            for (int64_t n = 0; n < N; n++)
                for (int64_t c = k->c0; c < k->c0 + k->n; c++) j->epi->fn(j->epi->ctx, c, j->y + (n * O + c) * P, P);
    }
}

static bool conv2d_nchw(const float *x, const void *w, bool wbf16, const float *bias, float *y, int64_t N, int64_t C,
                        int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                        const int64_t *stride, const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi) {
    if (!eir_dnnl_conv_enabled() || N <= 0 || C <= 0 || O <= 0 || OH <= 0 || OW <= 0) return false;
    if (KH * KW == 1 && !conv_1x1) return false;
    pthread_mutex_lock(&conv_mu);
    if (!nranges) {
        pthread_mutex_unlock(&conv_mu);
        return false;
    }
    dnnl_stream_t s = stream_here();
    int was = omp_one();
    int64_t geo[21] = {N, C, H, W, O, OH, OW, KH, KW, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], bias != NULL,
                       0, 0, wbf16};
    conv_entry *e = s ? entry_find(w, geo, (size_t)(O * C * KH * KW) * (wbf16 ? 2 : 4), s) : NULL;
    if (e) pthread_mutex_lock(&e->mu);
    pthread_mutex_unlock(&conv_mu);
    bool done = false;
    if (!e || !e->ok) goto out;
    char *buf = eir_kalloc(e->total);
    if (!buf) goto free_bufs;
    dn.dnnl_memory_set_data_handle(e->usrc, (void *)x);
    if (e->rin.p) {
        dn.dnnl_memory_set_data_handle(e->src, buf);
        dnnl_exec_arg_t r[3] = {{DNNL_ARG_FROM, e->usrc}, {DNNL_ARG_TO, e->src}};
        if (!prim_run(&e->rin, s, 2, r, buf + round64(e->src_bytes)) || dn.dnnl_stream_wait(s) != dnnl_success)
            goto free_bufs;
    }
    conv_job j = {e, buf, e->off, bias, y, epi, 0};
    eir_parallel_for(eir_pool_current(), e->nblk, 1, conv_blocks, &j);
    done = !atomic_load(&j.failed);
    if (done) atomic_fetch_add(&ncalls, 1);
free_bufs:
    eir_kfree(buf);
out:
    if (e) pthread_mutex_unlock(&e->mu);
    if (was != 1) dn.omp_set_num_threads(was);
    return done;
}

bool eir_dnnl_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C, int64_t H,
                         int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride,
                         const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi) {
    return conv2d_nchw(x, w, false, bias, y, N, C, H, W, O, OH, OW, KH, KW, stride, pad, dil, epi);
}

bool eir_dnnl_conv2d_wbf16(const float *x, const uint16_t *w, const float *bias, float *y, int64_t N, int64_t C,
                           int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                           const int64_t *stride, const int64_t *pad, const int64_t *dil) {
    return conv2d_nchw(x, w, true, bias, y, N, C, H, W, O, OH, OW, KH, KW, stride, pad, dil, NULL);
}

/* blocked mode: blocks [b0, b1) of output channels, each over every image */
typedef struct blk_job {
    conv_entry *e;
    const float *x;
    int64_t xper;                   /* floats per image of x */
    float *y;
    const eir_blk_epi *epi;
    _Atomic int failed;
} blk_job;

static void conv_blocks_blk(void *ctx, int64_t b0, int64_t b1) {
    blk_job *j = ctx;
    conv_entry *e = j->e;
    dnnl_stream_t s = stream_here();
    if (!s) {
        atomic_store(&j->failed, 1);
        return;
    }
    (void)omp_one();
    int64_t N = e->geo[0], O = e->geo[4], P = e->geo[5] * e->geo[6], yB = e->geo[17];
    int64_t img = (O + yB - 1) / yB * yB * P; /* one image's blocked output */
    /* this thread's buffer: a block's output (channels last) and its scratchpad (kept by
     * eir_kfree's per-thread cache from call to call) */
    char *buf = eir_kalloc(e->total ? e->total : 64);
    if (!buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t b = b0; b < b1; b++) {
        conv_blk *k = &e->blk[b];
        char *tmp = buf, *cs = tmp + round64(k->dst_bytes);
        for (int64_t n = 0; n < N; n++) {
            float *y = j->y + n * img;
            dn.dnnl_memory_set_data_handle(k->dst, yB == O && !k->direct ? (void *)tmp : (void *)(y + k->c0 * P));
            if (k->src) /* depthwise in blocks: this block's input channels */
                dn.dnnl_memory_set_data_handle(k->src, (void *)(j->x + n * j->xper + k->c0 * e->geo[2] * e->geo[3]));
            dnnl_exec_arg_t a[6] = {{DNNL_ARG_SRC, k->src ? k->src : e->srcs[n]}, {DNNL_ARG_WEIGHTS, k->wei},
                                    {DNNL_ARG_DST, k->dst}};
            int na = 3;
            if (e->fused && e->bias_m) a[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, e->bias_m};
            if (e->fused && k->res) {
                dn.dnnl_memory_set_data_handle(k->res, (void *)(j->epi->res + n * img));
                a[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, k->res};
            }
            if (!prim_run(&k->conv, s, na, a, cs) || dn.dnnl_stream_wait(s) != dnnl_success) {
                atomic_store(&j->failed, 1);
                eir_kfree(buf);
                return;
            }
            if (e->fused) continue;
            if (k->direct) {
                j->epi->fn(j->epi->ctx, n, 0, O, O, P, y, O, 1, y, O);
            } else if (yB == O) {
                j->epi->fn(j->epi->ctx, n, k->c0, k->n, k->n, P, (const float *)tmp, k->n, 1, y + k->c0, O);
            } else {
                for (int64_t c = k->c0; c < k->c0 + k->n; c += yB) {
                    float *yb = y + c * P;
                    int64_t nl = O - c < yB ? O - c : yB;
                    j->epi->fn(j->epi->ctx, n, c, nl, yB, P, yb, yB, 1, yb, yB);
                }
            }
        }
    }
    eir_kfree(buf);
}

/* A thread's start on bands: its stream, oneDNN on one thread, and its buffer for the
 * scratchpads (NULL, the job marked failed, when it has none) */
static char *band_begin(blk_job *j, dnnl_stream_t *s) {
    *s = stream_here();
    char *buf = *s ? eir_kalloc(j->e->total ? j->e->total : 64) : NULL;
    if (!buf) {
        atomic_store(&j->failed, 1);
        return NULL;
    }
    (void)omp_one();
    return buf;
}

/* One band's primitive run, its output written in place at y (and the residual taken in, at the
 * same offset of the epilogue's): src and dst already pointed at the band; scr (NULL: none) gets
 * buf as its scratchpad. Returns false when oneDNN fails. */
static bool band_exec(const blk_job *j, const conv_blk *k, dnnl_stream_t s, dnnl_memory_t src, dnnl_memory_t dst,
                      dnnl_memory_t scr, dnnl_memory_t res, const float *y, void *buf) {
    const conv_entry *e = j->e;
    dnnl_exec_arg_t a[6] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, k->wei}, {DNNL_ARG_DST, dst}};
    int na = 3;
    if (scr) {
        dn.dnnl_memory_set_data_handle(scr, buf);
        a[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, scr};
    }
    if (e->fused && e->bias_m) a[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, e->bias_m};
    if (res) {
        dn.dnnl_memory_set_data_handle(res, (void *)(j->epi->res + (y - j->y)));
        a[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, res};
    }
    return dn.dnnl_primitive_execute(k->conv.p, s, na, a) == dnnl_success && dn.dnnl_stream_wait(s) == dnnl_success;
}

/* depthwise row bands [b0, b1) (entry_build_dw_bands): item b is band b % dw_nb of image b / dw_nb */
static void conv_dw_bands(void *ctx, int64_t b0, int64_t b1) {
    blk_job *j = ctx;
    conv_entry *e = j->e;
    dnnl_stream_t s;
    char *buf = band_begin(j, &s);
    if (!buf) return;
    const int64_t *g = e->geo;
    int64_t W = g[3], O = g[4], OH = g[5], OW = g[6], C = g[1], st = g[9], pd = g[11], R = e->dw_rows;
    for (int64_t b = b0; b < b1; b++) {
        /* b < 0: image N + b whole, on blk[dw_img] */
        bool img = b < 0;
        int64_t n = img ? g[0] + b : b / e->dw_nb, r = img ? 0 : b % e->dw_nb;
        int64_t r0 = r * R, r1 = img ? OH : r0 + R < OH ? r0 + R : OH;
        int64_t i0 = r0 * st - pd > 0 ? r0 * st - pd : 0;
        conv_blk *k = &e->blk[img ? e->dw_img : e->dw_map[r]];
        dnnl_memory_t src = img ? k->src : e->srcs[b], dst = img ? k->dst : e->dsts[b];
        dnnl_memory_t scr = img ? k->conv.scratch : e->scrs[b], res = img ? k->res : e->rsds[b];
        float *y = j->y + n * O * OH * OW + r0 * OW * O;
        dn.dnnl_memory_set_data_handle(src, (void *)(j->x + n * j->xper + i0 * W * C));
        dn.dnnl_memory_set_data_handle(dst, y);
        if (!band_exec(j, k, s, src, dst, scr, res, y, buf)) {
            atomic_store(&j->failed, 1);
            break;
        }
        if (!e->fused) j->epi->fn(j->epi->ctx, n, 0, O, O, (r1 - r0) * OW, y, O, 1, y, O);
    }
    eir_kfree(buf);
}

/* pixel bands [b0, b1) (entry_build_band) */
static void conv_bands(void *ctx, int64_t b0, int64_t b1) {
    blk_job *j = ctx;
    conv_entry *e = j->e;
    dnnl_stream_t s;
    char *buf = band_begin(j, &s);
    if (!buf) return;
    int64_t O = e->geo[4], P = e->geo[0] * e->geo[5] * e->geo[6], HW = e->geo[5] * e->geo[6];
    for (int64_t b = b0; b < b1; b++) {
        conv_blk *k = &e->blk[b == e->nsrcs - 1 ? e->nblk - 1 : 0];
        int64_t p0 = b * e->band, np = P - p0 < e->band ? P - p0 : e->band;
        float *y = j->y + p0 * O;
        dn.dnnl_memory_set_data_handle(e->dsts[b], y);
        if (!band_exec(j, k, s, e->srcs[b], e->dsts[b], e->scrs[b], e->rsds[b], y, buf)) {
            atomic_store(&j->failed, 1);
            break;
        }
        if (e->fused) continue;
        /* the epilogue image by image (a band may cross images: pixels are flat over N) */
        for (int64_t q = p0; q < p0 + np;) {
            int64_t n = q / HW, q1 = (n + 1) * HW < p0 + np ? (n + 1) * HW : p0 + np;
            float *yq = j->y + q * O;
            j->epi->fn(j->epi->ctx, n, 0, O, O, q1 - q, yq, O, 1, yq, O);
            q = q1;
        }
    }
    eir_kfree(buf);
}

/* bands [b0, b1) of a 1 x 1 convolution on eir_nngemm_f32 (entry_build_pw) */
static void conv_pw_bands(void *ctx, int64_t b0, int64_t b1) {
    blk_job *j = ctx;
    conv_entry *e = j->e;
    int64_t C = e->geo[1], O = e->geo[4], HW = e->geo[5] * e->geo[6], P = e->geo[0] * HW;
    /* the epilogue in the kernel's stores where it computes it (silu, or a callback alone: after) */
    const eir_blk_epi *be = j->epi;
    int act = be->act == EIR_BLK_NONE ? EIR_NNGEMM_NONE : be->act == EIR_BLK_RELU ? EIR_NNGEMM_RELU
            : be->act == EIR_BLK_CLIP ? EIR_NNGEMM_CLIP : be->act == EIR_BLK_HARDSWISH ? EIR_NNGEMM_HARDSWISH : -1;
    for (int64_t b = b0; b < b1; b++) {
        int64_t p0 = b * e->band, np = P - p0 < e->band ? P - p0 : e->band;
        float *y = j->y + p0 * O;
        eir_nngemm_epi ep = {be->bias, be->res ? be->res + p0 * O : NULL, O, act, be->lo, be->hi};
        if (eir_nngemm_f32(np, O, C, j->x + p0 * C, C, e->pw, y, O, act >= 0 ? &ep : NULL)) {
            atomic_store(&j->failed, 1);
            break;
        }
        if (act >= 0) continue;
        /* the epilogue image by image (a band may cross images: pixels are flat over N) */
        for (int64_t q = p0; q < p0 + np;) {
            int64_t n = q / HW, q1 = (n + 1) * HW < p0 + np ? (n + 1) * HW : p0 + np;
            float *yq = j->y + q * O;
            j->epi->fn(j->epi->ctx, n, 0, O, O, q1 - q, yq, O, 1, yq, O);
            q = q1;
        }
    }
}

/* blocks [b0, b1): block b is image b / (per x parts), tile rows [r0, r0 + wino_rows) of it,
 * output channel part b % parts */
static void conv_wino(void *ctx, int64_t b0, int64_t b1) {
    blk_job *j = ctx;
    conv_entry *e = j->e;
    int64_t C = e->geo[1], H = e->geo[2], W = e->geo[3], O = e->geo[4], TH = (H + 1) / 2, TW = (W + 1) / 2;
    int64_t R = e->wino_rows, parts = e->wino_parts, per = (TH + R - 1) / R, Tmax = R * TW, no = O / parts;
    float *V = eir_kalloc((size_t)(16 * Tmax * (C + no)) * sizeof(float));
    if (!V) {
        atomic_store(&j->failed, 1);
        return;
    }
    float *M = V + 16 * Tmax * C;
    for (int64_t b = b0; b < b1; b++) {
        int64_t n = b / (per * parts), rb = b / parts % per, oc0 = b % parts * no;
        int64_t tr0 = rb * R, tr1 = tr0 + R < TH ? tr0 + R : TH, T = (tr1 - tr0) * TW;
        const float *x = j->x + n * j->xper;
        float *y = j->y + n * O * H * W;
        wino_in(V, x, H, W, C, tr0, tr1, T);
        for (int k = 0; k < 16; k++)
            if (e->wino_nn)
                eir_nngemm_f32(T, no, C, V + k * T * C, C, e->wino + k * e->wino_pos + oc0 * C, M + k * T * no, no,
                               NULL);
            else
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)no, (int)C, 1.f, V + k * T * C,
                            (int)C, e->wino + k * e->wino_pos + oc0, (int)O, 0.f, M + k * T * no, (int)no);
        wino_out(y, M, H, W, O, tr0, tr1, T, oc0, no);
        int64_t oh0 = 2 * tr0, oh1 = 2 * tr1 < H ? 2 * tr1 : H;
        float *yr = y + oh0 * W * O + oc0;
        j->epi->fn(j->epi->ctx, n, oc0, no, no, (oh1 - oh0) * W, yr, O, 1, yr, O);
    }
    eir_kfree(V);
}

bool eir_dnnl_conv2d_blk_f32(const float *x, int64_t xB, const float *w, float *y, int64_t yB, int64_t N, int64_t C,
                             int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                             const int64_t *stride, const int64_t *pad, const int64_t *dil, int64_t groups,
                             const eir_blk_epi *epi) {
    if (!eir_dnnl_conv_enabled() || !epi || N <= 0 || C <= 0 || O <= 0 || OH <= 0 || OW <= 0) return false;
    if ((xB && xB != C && xB != 8 && xB != 16) || (yB != O && yB != 8 && yB != 16)) return false;
    if (groups != 1 && (groups != C || groups != O || !dw_on)) return false;
    pthread_mutex_lock(&conv_mu);
    if (!nranges) {
        pthread_mutex_unlock(&conv_mu);
        return false;
    }
    dnnl_stream_t s = stream_here();
    int was = omp_one();
    int64_t geo[21] = {N,         C,         H,      W,      O,      OH,     OW,     KH, KW,
                       stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], groups, xB + 1, yB};
    post_key(geo, epi);
    conv_entry *e = s ? entry_find(w, geo, (size_t)(O * (C / groups) * KH * KW) * sizeof(float), s) : NULL;
    if (e) pthread_mutex_lock(&e->mu);
    pthread_mutex_unlock(&conv_mu);
    bool done = false;
    if (!e || !e->ok) goto out;
    int64_t xper = (xB ? (C + xB - 1) / xB * xB : C) * H * W;
    blk_job j = {e, x, xper, y, epi, 0};
    if (e->bias_m) dn.dnnl_memory_set_data_handle(e->bias_m, (void *)epi->bias);
    if (e->wino) {
        int64_t TH = (H + 1) / 2;
        eir_parallel_for(eir_pool_current(), N * ((TH + e->wino_rows - 1) / e->wino_rows) * e->wino_parts, 1,
                         conv_wino, &j);
        atomic_fetch_add(&nwino, 1);
        if (e->wino_nn) atomic_fetch_add(&nwino_nn, 1);
    } else if (e->dw_nb) {
        eir_pool *pool = eir_pool_current();
        if (eir_pool_threads(pool) > 1) {
            eir_parallel_for(pool, e->nsrcs, 1, conv_dw_bands, &j);
            atomic_fetch_add(&nbands, 1);
        } else {
            conv_dw_bands(&j, -N, 0); /* one thread: each image in one primitive run, the same bits */
        }
    } else if (e->pw) {
        eir_parallel_for(eir_pool_current(), e->nsrcs, 1, conv_pw_bands, &j);
        atomic_fetch_add(&npw_nn, 1);
    } else if (e->band) {
        for (int64_t b = 0; b < e->nsrcs; b++)
            dn.dnnl_memory_set_data_handle(e->srcs[b], (void *)(x + b * e->band * C));
        eir_parallel_for(eir_pool_current(), e->nsrcs, 1, conv_bands, &j);
    } else {
        for (int64_t n = 0; e->srcs && n < N; n++) dn.dnnl_memory_set_data_handle(e->srcs[n], (void *)(x + n * xper));
        eir_parallel_for(eir_pool_current(), e->nblk, 1, conv_blocks_blk, &j);
    }
    done = !atomic_load(&j.failed);
    if (done) atomic_fetch_add(&ncalls, 1);
out:
    if (e) pthread_mutex_unlock(&e->mu);
    if (was != 1) dn.omp_set_num_threads(was);
    return done;
}

/* ---- layout copies ---- */

enum { MAX_REORDERS = 64 };

static struct reorder_entry {
    int64_t key[6];                 /* N C H W xB yB */
    prim r;                         /* p NULL: none for it */
    dnnl_memory_desc_t from, to;
} reorders[MAX_REORDERS];
static int nreorders;
static pthread_mutex_t reorder_mu = PTHREAD_MUTEX_INITIALIZER;

bool eir_dnnl_reorder_f32(const float *x, int64_t xB, float *y, int64_t yB, int64_t N, int64_t C, int64_t H,
                          int64_t W) {
    if (!eir_dnnl_conv_enabled() || N <= 0 || C <= 0 || H <= 0 || W <= 0) return false;
    if ((xB && C % xB) || (yB && C % yB)) return false;
    int64_t key[6] = {N, C, H, W, xB, yB};
    int64_t ln = conv_lanes(C, xB, C, yB);
    int was = omp_one(); /* oneDNN on one thread here, making the primitive as running it */
    pthread_mutex_lock(&reorder_mu);
    struct reorder_entry *e = NULL;
    for (int i = 0; i < nreorders && !e; i++)
        if (!memcmp(reorders[i].key, key, sizeof key)) e = &reorders[i];
    if (!e && nreorders < MAX_REORDERS) {
        e = &reorders[nreorders++];
        memcpy(e->key, key, sizeof key);
        if (!blocked_md(&e->from, N, C, H, W, xB, ln) || !blocked_md(&e->to, N, C, H, W, yB, ln) ||
            !prim_make(&e->r, NULL, &e->from, &e->to, NULL))
            e->r.p = NULL;
        if (e->r.p && e->r.scratch_bytes) prim_free(&e->r); /* kept simple: reorders without a scratchpad */
    }
    pthread_mutex_unlock(&reorder_mu);
    dnnl_stream_t s = e && e->r.p ? stream_here() : NULL;
    dnnl_memory_t mf = NULL, mt = NULL;
    bool done = s && dn.dnnl_memory_create(&mf, &e->from, engine, (void *)x) == dnnl_success &&
                dn.dnnl_memory_create(&mt, &e->to, engine, y) == dnnl_success;
    if (done) {
        dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, mf}, {DNNL_ARG_TO, mt}};
        done = dn.dnnl_primitive_execute(e->r.p, s, 2, a) == dnnl_success && dn.dnnl_stream_wait(s) == dnnl_success;
    }
    if (mf) dn.dnnl_memory_destroy(mf);
    if (mt) dn.dnnl_memory_destroy(mt);
    if (was != 1) dn.omp_set_num_threads(was);
    return done;
}

#endif
