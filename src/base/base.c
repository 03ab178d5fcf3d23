/* base.c — the library version, arena, string buffer, Python-compatible
 * number/string repr, string hash map and file mapping. */
#include "eir.h"
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *eir_version(void) { return EIR_VERSION_STRING; }

/* ---- arena ---- */

struct eir_arena_chunk {
    eir_arena_chunk *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

void eir_arena_init(eir_arena *a) { memset(a, 0, sizeof *a); }

void eir_arena_release(eir_arena *a) {
    eir_arena_chunk *c = a->head;
    while (c) {
        eir_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    memset(a, 0, sizeof *a);
}

/* Allocations of at least this many bytes get a chunk of their own from calloc, behind the chunk
 * the small ones come from: a large calloc is fresh zero pages from the kernel, so they are not
 * cleared twice (a folded weight or a tensor added to a program is written right after). */
enum { ARENA_OWN_CHUNK = 256 * 1024 };

void *eir_arena_alloc(eir_arena *a, size_t size) {
    if (size > SIZE_MAX / 2) return NULL;
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    if (size >= ARENA_OWN_CHUNK) {
        eir_arena_chunk *c = calloc(1, sizeof *c + size);
        if (!c) return NULL;
        c->cap = size;
        if (a->head) {             /* the head keeps serving small allocations */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            a->head = c;
            a->used = a->cap = size;
        }
        a->total += size;
        return c->data;
    }
    if (!a->head || a->cap - a->used < size) {
        size_t cap = a->head ? a->head->cap * 2 : 64 * 1024;
        if (cap > 16u << 20) cap = 16u << 20;
        if (cap < size) cap = size;
        eir_arena_chunk *c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->next = a->head;
        c->cap = cap;
        a->head = c;
        a->used = 0;
        a->cap = cap;
    }
    void *p = a->head->data + a->used;
    a->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

void *eir_arena_array(eir_arena *a, size_t n, size_t elem) {
    if (elem && n > SIZE_MAX / 4 / elem) return NULL;
    return eir_arena_alloc(a, n * elem);
}

char *eir_arena_strndup(eir_arena *a, const char *s, size_t n) {
    char *d = eir_arena_alloc(a, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *eir_arena_strdup(eir_arena *a, const char *s) { return eir_arena_strndup(a, s, strlen(s)); }

/* ---- numbers in the C locale ----
 * Parsing uses strtod_l with a C locale object made once (pthread_once).
 * Formatting switches the calling thread, and only it, to that locale with
 * uselocale() around vsnprintf and switches back to whatever the thread had
 * (a locale of its own or the global one), so other threads and the host's
 * setlocale() are untouched. glibc has no snprintf_l; rewriting the locale's
 * decimal point in the output afterwards was the alternative, but it is not
 * correct in general: the decimal point may be several bytes, a locale may
 * have other digits or signs for %g, and the text around the number (%s
 * arguments) may itself contain a comma. uselocale is POSIX 2008 and
 * thread-safe; it costs two thread-local writes per call.
 * newlocale(LC_ALL_MASK, "C", 0) does not allocate in glibc (it returns the
 * built-in C locale object), so it does not fail there; if a libc ever lets
 * it fail, the plain functions remain (correct while the host stays in the C
 * locale). */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void c_locale_make(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }
static locale_t eir_c_locale(void) {
    pthread_once(&c_locale_once, c_locale_make);
    return c_locale;
}

double eir_strtod(const char *s, char **end) {
    locale_t c = eir_c_locale();
    return c ? strtod_l(s, end, c) : strtod(s, end);
}

int eir_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) {
    locale_t c = eir_c_locale();
    locale_t prev = c ? uselocale(c) : (locale_t)0;
    int r = vsnprintf(buf, n, fmt, ap);
    if (c && prev) uselocale(prev);
    return r;
}

int eir_snprintf(char *buf, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = eir_vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

/* ---- buffer ---- */

void eir_buf_init(eir_buf *b) { memset(b, 0, sizeof *b); }
void eir_buf_free(eir_buf *b) { free(b->data); memset(b, 0, sizeof *b); }

static bool buf_reserve(eir_buf *b, size_t extra) {
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) { b->oom = true; return false; }
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) { b->oom = true; return false; }
    b->data = d;
    b->cap = cap;
    return true;
}

void eir_buf_putn(eir_buf *b, const char *s, size_t n) {
    if (!buf_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}
void eir_buf_puts(eir_buf *b, const char *s) { eir_buf_putn(b, s, strlen(s)); }
void eir_buf_putc(eir_buf *b, char c) { eir_buf_putn(b, &c, 1); }

void eir_buf_vprintf(eir_buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = eir_vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !buf_reserve(b, (size_t)n)) return;
    eir_vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void eir_buf_printf(eir_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *eir_buf_take(eir_buf *b) {
    if (b->oom) { eir_buf_free(b); return NULL; }
    if (!b->data && !buf_reserve(b, 0)) return NULL;
    char *d = b->data;
    memset(b, 0, sizeof *b);
    return d;
}

void eir_buf_put_pyfloat(eir_buf *b, double v) {
    if (isnan(v)) { eir_buf_puts(b, "nan"); return; }
    if (isinf(v)) { eir_buf_puts(b, v < 0 ? "-inf" : "inf"); return; }
    /* Shortest digit string that round-trips, then Python's repr layout:
     * scientific when exponent < -4 or >= 16, else positional with ".0". */
    char digits[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        eir_snprintf(digits, sizeof digits, "%.*e", prec - 1, v);
        if (eir_strtod(digits, NULL) == v) break;
    }
    /* digits looks like "-d.ddde+XX" */
    char mant[32];
    int mlen = 0;
    const char *p = digits;
    bool neg = false;
    if (*p == '-') { neg = true; p++; }
    for (; *p && *p != 'e'; p++)
        if (*p != '.') mant[mlen++] = *p;
    mant[mlen] = 0;
    int exp10 = atoi(p + 1);
    while (mlen > 1 && mant[mlen - 1] == '0') mant[--mlen] = 0;
    if (neg) eir_buf_putc(b, '-');
    if (exp10 < -4 || exp10 >= 16) {
        eir_buf_putc(b, mant[0]);
        if (mlen > 1) { eir_buf_putc(b, '.'); eir_buf_puts(b, mant + 1); }
        eir_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 < 0) {
        eir_buf_puts(b, "0.");
        for (int i = 0; i < -exp10 - 1; i++) eir_buf_putc(b, '0');
        eir_buf_puts(b, mant);
    } else {
        int intdigits = exp10 + 1;
        for (int i = 0; i < intdigits; i++) eir_buf_putc(b, i < mlen ? mant[i] : '0');
        eir_buf_putc(b, '.');
        if (mlen > intdigits) eir_buf_puts(b, mant + intdigits);
        else eir_buf_putc(b, '0');
    }
}

void eir_buf_put_pyrepr_str(eir_buf *b, const char *s) {
    char q = '\'';
    if (strchr(s, '\'') && !strchr(s, '"')) q = '"';
    eir_buf_putc(b, q);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == (unsigned char)q || c == '\\') { eir_buf_putc(b, '\\'); eir_buf_putc(b, (char)c); }
        else if (c == '\n') eir_buf_puts(b, "\\n");
        else if (c == '\r') eir_buf_puts(b, "\\r");
        else if (c == '\t') eir_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f) eir_buf_printf(b, "\\x%02x", c);
        else eir_buf_putc(b, (char)c);
    }
    eir_buf_putc(b, q);
}

/* ---- string map ---- */

static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void eir_strmap_init(eir_strmap *m) { memset(m, 0, sizeof *m); }
void eir_strmap_free(eir_strmap *m) { free(m->keys); free(m->vals); memset(m, 0, sizeof *m); }

static bool strmap_grow(eir_strmap *m) {
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    if (cap < m->cap) return false;
    const char **keys = calloc(cap, sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) { free(keys); free(vals); return false; }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        uint32_t j = (uint32_t)str_hash(m->keys[i]) & (cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return true;
}

bool eir_strmap_put(eir_strmap *m, const char *key, uint32_t val) {
    if ((m->count + 1) * 4 > m->cap * 3 && !strmap_grow(m)) return false;
    uint32_t j = (uint32_t)str_hash(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (strcmp(m->keys[j], key) == 0) { m->vals[j] = val; return true; }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = key;
    m->vals[j] = val;
    m->count++;
    return true;
}

bool eir_strmap_get(const eir_strmap *m, const char *key, uint32_t *val) {
    if (!m->cap) return false;
    uint32_t j = (uint32_t)str_hash(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (strcmp(m->keys[j], key) == 0) { if (val) *val = m->vals[j]; return true; }
        j = (j + 1) & (m->cap - 1);
    }
    return false;
}

/* ---- files ---- */

bool eir_map_file(const char *path, eir_mapped *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return false;
    }
    if (st.st_size == 0) {
        close(fd);
        m->data = (const uint8_t *)"";
        m->size = 0;
        return true;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        return false;
    }
    m->data = p;
    m->size = (size_t)st.st_size;
    m->is_mmap = true;
    return true;
}

void eir_unmap_file(eir_mapped *m) {
    if (m->is_mmap && m->data) munmap((void *)m->data, m->size);
    memset(m, 0, sizeof *m);
}

/* ---- progress: one callback per thread ---------------------------------- */
static _Thread_local eir_progress_fn progress_fn;
static _Thread_local void *progress_user;

void eir_set_progress(eir_progress_fn fn, void *user) {
    progress_fn = fn;
    progress_user = user;
}

bool eir_progress_wanted(void) { return progress_fn != NULL; }

void eir_progress(const char *what, uint64_t done, uint64_t total) {
    if (progress_fn) progress_fn(progress_user, what, done > total ? total : done, total);
}
