/* base.h — arena allocator, growable string buffer, string->id hash map,
 * memory-mapped files. The lowest layer: depends on libc only. */
#ifndef EIR_BASE_H
#define EIR_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EIR_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define EIR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EIR_PRINTF(f, a)
#endif

/* ---- arena: bump allocation in chunks, one free releases everything ---- */
typedef struct eir_arena_chunk eir_arena_chunk;
typedef struct eir_arena {
    eir_arena_chunk *head;
    size_t used, cap;          /* of head */
    size_t total;              /* bytes handed out, for reporting */
} eir_arena;

void eir_arena_init(eir_arena *a);
void eir_arena_release(eir_arena *a);
/* Zeroed, 16-byte aligned; NULL on overflow or out of memory. */
void *eir_arena_alloc(eir_arena *a, size_t size);
void *eir_arena_array(eir_arena *a, size_t n, size_t elem);
char *eir_arena_strndup(eir_arena *a, const char *s, size_t n);
char *eir_arena_strdup(eir_arena *a, const char *s);

/* ---- string buffer ---- */
typedef struct eir_buf {
    char *data;
    size_t len, cap;
    bool oom;                  /* sticky: set when a grow failed */
} eir_buf;

void eir_buf_init(eir_buf *b);
void eir_buf_free(eir_buf *b);
void eir_buf_putn(eir_buf *b, const char *s, size_t n);
void eir_buf_puts(eir_buf *b, const char *s);
void eir_buf_putc(eir_buf *b, char c);
void eir_buf_printf(eir_buf *b, const char *fmt, ...) EIR_PRINTF(2, 3);
void eir_buf_vprintf(eir_buf *b, const char *fmt, va_list ap);
/* Detach the NUL-terminated contents (caller frees); NULL if oom. */
char *eir_buf_take(eir_buf *b);

/* ---- numbers, whatever the process locale ----
 * A host program may call setlocale(LC_ALL, "de_DE.UTF-8"); libc's strtod and
 * printf then read and write "0,9". Every number eir parses or formats goes
 * through these instead (or through eir_buf_printf, which uses them), so a
 * program reads, prints and runs the same in any locale. Thread-safe. */
/* strtod in the C locale (strtod_l): '.' is the decimal point, never ','. */
double eir_strtod(const char *s, char **end);
/* vsnprintf / snprintf in the C locale, same contract as libc's. */
int eir_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int eir_snprintf(char *buf, size_t n, const char *fmt, ...) EIR_PRINTF(3, 4);

/* Report progress to the calling thread's eir_set_progress callback, if any. */
void eir_progress(const char *what, uint64_t done, uint64_t total);
bool eir_progress_wanted(void);
/* ASCII character classes for parsers (<ctype.h>'s follow LC_CTYPE: in a
 * single-byte locale isalpha(0xE4) is true). */
static inline bool eir_isdigit(int c) { return c >= '0' && c <= '9'; }
static inline bool eir_isalpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool eir_isalnum(int c) { return eir_isdigit(c) || eir_isalpha(c); }
static inline bool eir_isspace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Python repr() of a float: shortest round-trip digits, 'inf', 'nan', '1e-05'. */
void eir_buf_put_pyfloat(eir_buf *b, double v);
/* Python repr() of a str (quotes chosen as Python does). */
void eir_buf_put_pyrepr_str(eir_buf *b, const char *s);

/* ---- hash map from string to uint32 (open addressing) ---- */
typedef struct eir_strmap {
    const char **keys;
    uint32_t *vals;
    uint32_t cap, count;
} eir_strmap;

void eir_strmap_init(eir_strmap *m);
void eir_strmap_free(eir_strmap *m);
/* The key is borrowed (must outlive the map). false on out of memory. */
bool eir_strmap_put(eir_strmap *m, const char *key, uint32_t val);
/* true and *val if present. */
bool eir_strmap_get(const eir_strmap *m, const char *key, uint32_t *val);

/* ---- files ---- */
typedef struct eir_mapped {
    const uint8_t *data;
    size_t size;
    bool is_mmap;
} eir_mapped;

/* Map a whole file read-only. On failure returns false and writes a message. */
bool eir_map_file(const char *path, eir_mapped *m, char *err, size_t errlen);
void eir_unmap_file(eir_mapped *m);

#endif /* EIR_BASE_H */
