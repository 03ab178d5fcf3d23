/* archive.c — PT2 ZIP container over minizip (zlib's contrib unzip).
 *
 * minizip parses the central directory (zip64 aware) and checks each local
 * header; unzGetCurrentFileZStreamPos64 gives the data offset of a record,
 * which is what lets weights be used in place from the mapping. minizip only
 * sees our memory through the small I/O table below. */
#include "archive.h"

#include <minizip/unzip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memfile {
    const uint8_t *data;
    uint64_t size, pos;
} memfile;

static voidpf ZCALLBACK mem_open(voidpf opaque, const void *filename, int mode) {
    (void)opaque;
    (void)mode;
    memfile *m = (memfile *)filename;
    m->pos = 0;
    return m;
}
static uLong ZCALLBACK mem_read(voidpf opaque, voidpf stream, void *buf, uLong size) {
    (void)opaque;
    memfile *m = stream;
    uint64_t n = size;
    if (m->pos >= m->size) return 0;
    if (n > m->size - m->pos) n = m->size - m->pos;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += n;
    return (uLong)n;
}
static uLong ZCALLBACK mem_write(voidpf opaque, voidpf stream, const void *buf, uLong size) {
    (void)opaque; (void)stream; (void)buf; (void)size;
    return 0;
}
static ZPOS64_T ZCALLBACK mem_tell(voidpf opaque, voidpf stream) {
    (void)opaque;
    return ((memfile *)stream)->pos;
}
static long ZCALLBACK mem_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin) {
    (void)opaque;
    memfile *m = stream;
    uint64_t base;
    switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET: base = 0; break;
    case ZLIB_FILEFUNC_SEEK_CUR: base = m->pos; break;
    case ZLIB_FILEFUNC_SEEK_END: base = m->size; break;
    default: return -1;
    }
    if (offset > m->size || base > m->size - offset) return -1;
    m->pos = base + offset;
    return 0;
}
static int ZCALLBACK mem_close(voidpf opaque, voidpf stream) { (void)opaque; (void)stream; return 0; }
static int ZCALLBACK mem_error(voidpf opaque, voidpf stream) { (void)opaque; (void)stream; return 0; }

static unzFile open_unz(memfile *mf) {
    zlib_filefunc64_def io = {0};
    io.zopen64_file = mem_open;
    io.zread_file = mem_read;
    io.zwrite_file = mem_write;
    io.ztell64_file = mem_tell;
    io.zseek64_file = mem_seek;
    io.zclose_file = mem_close;
    io.zerror_file = mem_error;
    io.opaque = NULL;
    return unzOpen2_64(mf, &io);
}

void eir_archive_close(eir_archive *a) {
    if (a->records)
        for (uint32_t i = 0; i < a->num_records; i++) free((char *)a->records[i].name);
    free(a->records);
    free(a->root);
    memset(a, 0, sizeof *a);
}

bool eir_archive_open(eir_archive *a, const uint8_t *data, size_t size, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    a->data = data;
    a->size = size;
    if (size < 22 || memcmp(data, "PK", 2) != 0) {
        snprintf(err, errlen, "not a ZIP archive (a .pt2 file starts with 'PK'; %zu bytes)", size);
        return false;
    }
    memfile mf = {data, size, 0};
    unzFile uf = open_unz(&mf);
    if (!uf) {
        snprintf(err, errlen, "ZIP central directory is missing or corrupt (truncated file?)");
        return false;
    }
    unz_global_info64 gi;
    if (unzGetGlobalInfo64(uf, &gi) != UNZ_OK) {
        snprintf(err, errlen, "ZIP central directory is unreadable");
        goto fail;
    }
    if (gi.number_entry == 0) {
        snprintf(err, errlen, "ZIP archive has no records");
        goto fail;
    }
    if (gi.number_entry > 1000000 || gi.number_entry > size / 46) {
        snprintf(err, errlen, "ZIP central directory claims %llu records in a %zu-byte file",
                 (unsigned long long)gi.number_entry, size);
        goto fail;
    }
    a->records = calloc((size_t)gi.number_entry, sizeof *a->records);
    if (!a->records) { snprintf(err, errlen, "out of memory"); goto fail; }
    int rc = unzGoToFirstFile(uf);
    for (uint64_t i = 0; i < gi.number_entry; i++) {
        if (rc != UNZ_OK) {
            snprintf(err, errlen, "ZIP central directory entry %llu is corrupt (truncated or damaged file?)", (unsigned long long)i);
            goto fail;
        }
        unz_file_info64 fi;
        char name[4096];
        if (unzGetCurrentFileInfo64(uf, &fi, name, sizeof name, NULL, 0, NULL, 0) != UNZ_OK ||
            fi.size_filename >= sizeof name) {
            snprintf(err, errlen, "ZIP central directory entry %llu is corrupt or its name is too long",
                     (unsigned long long)i);
            goto fail;
        }
        name[fi.size_filename] = 0;
        if (strlen(name) != fi.size_filename) {
            snprintf(err, errlen, "ZIP record %llu has a NUL byte in its name", (unsigned long long)i);
            goto fail;
        }
        const char *slash = strchr(name, '/');
        if (i == 0) {
            if (slash == name) {
                snprintf(err, errlen, "ZIP record '%s' has an absolute path", name);
                goto fail;
            }
            /* no folder in the first name: a flat ZIP (torch <= 2.7 wrote one with Python's zipfile) */
            a->flat = !slash;
            a->root = slash ? strndup(name, (size_t)(slash - name)) : strdup("");
            if (!a->root) { snprintf(err, errlen, "out of memory"); goto fail; }
        }
        size_t rl = strlen(a->root);
        if (a->flat) {
            if (name[0] == '/') {
                snprintf(err, errlen, "ZIP record '%s' has an absolute path", name);
                goto fail;
            }
        } else if (strncmp(name, a->root, rl) != 0 || name[rl] != '/') {
            snprintf(err, errlen, "ZIP record '%s' is outside the archive root '%s/'", name, a->root);
            goto fail;
        }
        if (strstr(name, "/../") || strstr(name, "/./") || (strlen(name) >= 3 && !strcmp(name + strlen(name) - 3, "/..")) ||
            (a->flat && (!strncmp(name, "../", 3) || !strncmp(name, "./", 2) || !strcmp(name, "..")))) {
            snprintf(err, errlen, "ZIP record '%s' has a '.' or '..' path segment", name);
            goto fail;
        }
        if (fi.compression_method != 0 && fi.compression_method != Z_DEFLATED) {
            snprintf(err, errlen, "record '%s': unsupported compression method %lu", name,
                     (unsigned long)fi.compression_method);
            goto fail;
        }
        if (unzOpenCurrentFile(uf) != UNZ_OK) {
            snprintf(err, errlen, "record '%s': local header is corrupt or outside the file", name);
            goto fail;
        }
        uint64_t off = unzGetCurrentFileZStreamPos64(uf);
        unzCloseCurrentFile(uf);
        if (off > size || fi.compressed_size > size - off) {
            snprintf(err, errlen, "record '%s': data (%llu bytes at offset %llu) runs past the end of "
                     "the %zu-byte file (truncated?)", name, (unsigned long long)fi.compressed_size,
                     (unsigned long long)off, size);
            goto fail;
        }
        if (fi.compression_method == 0 && fi.compressed_size != fi.uncompressed_size) {
            snprintf(err, errlen, "record '%s': stored record has compressed size %llu but size %llu",
                     name, (unsigned long long)fi.compressed_size, (unsigned long long)fi.uncompressed_size);
            goto fail;
        }
        eir_record *r = &a->records[a->num_records];
        r->name = strdup(a->flat ? name : name + rl + 1);
        if (!r->name) { snprintf(err, errlen, "out of memory"); goto fail; }
        a->num_records++;
        r->offset = off;
        r->csize = fi.compressed_size;
        r->usize = fi.uncompressed_size;
        r->method = (int)fi.compression_method;
        rc = unzGoToNextFile(uf);
    }
    unzClose(uf);
    return true;
fail:
    /* record names come from the file: keep the message printable ASCII */
    for (char *c = err; errlen && *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) *c = '?';
    unzClose(uf);
    eir_archive_close(a);
    return false;
}

int64_t eir_archive_find(const eir_archive *a, const char *name) {
    for (uint32_t i = 0; i < a->num_records; i++)
        if (strcmp(a->records[i].name, name) == 0) return i;
    return -1;
}

bool eir_archive_read(const eir_archive *a, uint32_t idx, uint64_t max_size, const uint8_t **out,
                      size_t *len, bool *owned, char *err, size_t errlen) {
    const eir_record *r = &a->records[idx];
    *owned = false;
    if (r->usize > max_size) {
        snprintf(err, errlen, "record '%s' is %llu bytes, over the %llu-byte limit for this record",
                 r->name, (unsigned long long)r->usize, (unsigned long long)max_size);
        return false;
    }
    if (r->method == 0) {
        *out = a->data + r->offset;
        *len = (size_t)r->usize;
        return true;
    }
    uint8_t *buf = malloc((size_t)r->usize + 1);
    if (!buf) { snprintf(err, errlen, "record '%s': out of memory", r->name); return false; }
    z_stream zs = {0};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        free(buf);
        snprintf(err, errlen, "record '%s': cannot start inflate", r->name);
        return false;
    }
    zs.next_in = (Bytef *)(a->data + r->offset);
    zs.avail_in = (uInt)r->csize;
    zs.next_out = buf;
    zs.avail_out = (uInt)r->usize;
    int zr = inflate(&zs, Z_FINISH);
    size_t got = zs.total_out;
    inflateEnd(&zs);
    if (zr != Z_STREAM_END || got != r->usize) {
        free(buf);
        snprintf(err, errlen, "record '%s': compressed data is corrupt", r->name);
        return false;
    }
    buf[got] = 0;
    *out = buf;
    *len = got;
    *owned = true;
    return true;
}
