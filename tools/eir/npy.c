/* npy.c — minimal, strict NumPy .npy reader/writer (format versions 1-3). */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/kernels/kutil.h"

static const struct { const char *descr; eir_dtype dt; } DESCRS[] = {
    {"<f4", EIR_F32}, {"<f8", EIR_F64}, {"<f2", EIR_F16}, {"<i8", EIR_I64}, {"<i4", EIR_I32}, {"<i2", EIR_I16},
    {"|i1", EIR_I8}, {"|u1", EIR_U8}, {"<u2", EIR_U16}, {"<u4", EIR_U32}, {"<u8", EIR_U64}, {"|b1", EIR_BOOL},
    {"<c8", EIR_C64}, {"<c16", EIR_C128}, {"<V2", EIR_DTYPE_UNKNOWN},
};

static const char *descr_of(eir_dtype d) {
    for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
        if (DESCRS[i].dt == d && DESCRS[i].dt != EIR_DTYPE_UNKNOWN) return DESCRS[i].descr;
    return NULL;
}

bool npy_read(const char *path, npy_array *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return false; }
    unsigned char magic[10];
    char *hdr = NULL;
    bool ok = false;
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
        snprintf(err, errlen, "%s: not a .npy file (bad magic)", path);
        goto out;
    }
    uint32_t hlen;
    if (magic[6] == 1) {
        unsigned char b[2];
        if (fread(b, 1, 2, f) != 2) goto trunc;
        hlen = b[0] | (uint32_t)b[1] << 8;
    } else if (magic[6] == 2 || magic[6] == 3) {
        unsigned char b[4];
        if (fread(b, 1, 4, f) != 4) goto trunc;
        hlen = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    } else {
        snprintf(err, errlen, "%s: unsupported .npy version %d", path, magic[6]);
        goto out;
    }
    if (hlen > 1 << 20) { snprintf(err, errlen, "%s: header too large", path); goto out; }
    hdr = malloc(hlen + 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) goto trunc;
    hdr[hlen] = 0;
    const char *d = strstr(hdr, "'descr':");
    const char *fo = strstr(hdr, "'fortran_order':");
    const char *sh = strstr(hdr, "'shape':");
    if (!d || !fo || !sh) { snprintf(err, errlen, "%s: header lacks descr/fortran_order/shape", path); goto out; }
    d = strchr(d + 8, '\'');
    if (!d) { snprintf(err, errlen, "%s: bad descr", path); goto out; }
    d++;
    const char *de = strchr(d, '\'');
    if (!de || de - d > 8) { snprintf(err, errlen, "%s: bad descr", path); goto out; }
    char descr[12];
    memcpy(descr, d, (size_t)(de - d));
    descr[de - d] = 0;
    bool found = false;
    for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
        if (!strcmp(descr, DESCRS[i].descr)) { a->dtype = DESCRS[i].dt; found = true; }
    if (!found) { snprintf(err, errlen, "%s: unsupported dtype '%s' (little-endian numeric dtypes only)", path, descr); goto out; }
    a->raw16 = !strcmp(descr, "<V2") || !strcmp(descr, "<u2");
    bool fortran = strncmp(fo + 16, " True", 5) == 0 || strncmp(fo + 16, "True", 4) == 0;
    const char *p = strchr(sh, '(');
    if (!p) { snprintf(err, errlen, "%s: bad shape", path); goto out; }
    p++;
    while (*p && *p != ')') {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0) { snprintf(err, errlen, "%s: bad shape", path); goto out; }
        if (a->rank == 8) { snprintf(err, errlen, "%s: rank above 8", path); goto out; }
        a->sizes[a->rank++] = v;
        p = end;
    }
    size_t es = a->dtype == EIR_DTYPE_UNKNOWN ? 2 : eir_dtype_size(a->dtype);
    uint64_t n = 1;
    for (uint32_t i = 0; i < a->rank; i++) {
        if (a->sizes[i] && n > (UINT64_MAX / 16) / (uint64_t)a->sizes[i]) { snprintf(err, errlen, "%s: shape too large", path); goto out; }
        n *= (uint64_t)a->sizes[i];
    }
    int64_t st = 1;
    for (uint32_t k = 0; k < a->rank; k++) {
        uint32_t i = fortran ? k : a->rank - 1 - k;
        a->strides[i] = st;
        st *= a->sizes[i];
    }
    size_t bytes = (size_t)n * es;
    a->data = malloc(bytes > 0 ? bytes : 1);
    if (!a->data) { snprintf(err, errlen, "%s: out of memory", path); goto out; }
    if (fread(a->data, 1, n * es, f) != n * es) goto trunc;
    ok = true;
    goto out;
trunc:
    snprintf(err, errlen, "%s: file is truncated", path);
out:
    if (!ok) { free(a->data); a->data = NULL; }
    free(hdr);
    fclose(f);
    return ok;
}

bool npy_write(const char *path, const eir_tensor_view *v, char *err, size_t errlen) {
    /* NumPy has no bfloat16 or complex32: they are written widened (exactly) to float32 / complex64 */
    eir_dtype out_dt = v->dtype == EIR_BF16 ? EIR_F32 : v->dtype == EIR_C32 ? EIR_C64 : v->dtype;
    const char *descr = descr_of(out_dt);
    if (!descr) { snprintf(err, errlen, "%s: dtype %s cannot be written to .npy", path, eir_dtype_name(v->dtype)); return false; }
    char shape[256] = "(";
    size_t sl = 1;
    for (uint32_t i = 0; i < v->rank; i++)
        sl += (size_t)snprintf(shape + sl, sizeof shape - sl, "%lld%s", (long long)v->sizes[i],
                               v->rank == 1 ? "," : i + 1 < v->rank ? ", " : "");
    snprintf(shape + sl, sizeof shape - sl, ")");
    char hdr[512];
    int hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    int total = 10 + hl + 1;
    int pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) { snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno)); return false; }
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    pre[8] = (unsigned char)((hl + pad + 1) & 0xff);
    pre[9] = (unsigned char)((hl + pad + 1) >> 8);
    fwrite(pre, 1, 10, f);
    fwrite(hdr, 1, (size_t)hl, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    /* elements in C order, converted when needed */
    int64_t n = 1;
    for (uint32_t i = 0; i < v->rank; i++) n *= v->sizes[i];
    int64_t idx[8] = {0};
    size_t es = eir_dtype_size(v->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < v->rank; d++) {
            int64_t st = 1;
            if (v->strides) st = v->strides[d];
            else for (uint32_t q = d + 1; q < v->rank; q++) st *= v->sizes[q];
            off += idx[d] * st;
        }
        const char *src = (const char *)v->data + off * (int64_t)es;
        if (v->dtype == EIR_BF16) {
            float x = eir_bf16_to_f32(*(const uint16_t *)src);
            fwrite(&x, 4, 1, f);
        } else if (v->dtype == EIR_C32) {
            float x[2] = {eir_f16_to_f32(((const uint16_t *)src)[0]), eir_f16_to_f32(((const uint16_t *)src)[1])};
            fwrite(x, 4, 2, f);
        } else {
            fwrite(src, es, 1, f);
        }
        for (int32_t d = (int32_t)v->rank - 1; d >= 0; d--) { if (++idx[d] < v->sizes[d]) break; idx[d] = 0; }
    }
    if (fclose(f) != 0) { snprintf(err, errlen, "%s: write failed", path); return false; }
    return true;
}
