/* archive.h — read access to a PT2 ZIP archive (torch.export.save output).
 * Records are listed from the central directory (minizip); stored records
 * are handed out as pointers into the caller's mapping, never copied. */
#ifndef EIR_ARCHIVE_H
#define EIR_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eir_record {
    const char *name;          /* path relative to the archive root */
    uint64_t offset;           /* of the record's data in the archive */
    uint64_t csize, usize;     /* compressed / uncompressed size */
    int method;                /* 0 stored, 8 deflate */
} eir_record;

typedef struct eir_archive {
    const uint8_t *data;
    size_t size;
    char *root;                /* "model" for records named "model/..."; "" when flat */
    bool flat;                 /* records have no root folder (the first name has no '/') */
    eir_record *records;
    uint32_t num_records;
} eir_archive;

/* Lists the records of the ZIP in data[0..size). data is borrowed.
 * On failure returns false with a message in err. */
bool eir_archive_open(eir_archive *a, const uint8_t *data, size_t size, char *err, size_t errlen);
void eir_archive_close(eir_archive *a);

/* Index of the record with this relative name, or -1. */
int64_t eir_archive_find(const eir_archive *a, const char *name);

/* The record's bytes. Stored records point into the archive (*owned false);
 * deflated ones are inflated into a malloc'd buffer (*owned true, caller
 * frees). Refuses records larger than max_size. */
bool eir_archive_read(const eir_archive *a, uint32_t idx, uint64_t max_size, const uint8_t **out,
                      size_t *len, bool *owned, char *err, size_t errlen);

#endif
