/* test_save.c — the writer (src/serde/save.c) on every committed fixture,
 * without torch: load -> save -> load gives the same program (all three
 * printed forms and `eir info`), models/model.json and the payload configs
 * are written back byte for byte, every payload record holds the same bytes,
 * tensors that share a storage still share one record, saving the copy again
 * gives the same bytes (idempotent), records are 64-byte aligned, and write
 * failures leave nothing behind. All of it again under a decimal-comma
 * locale when one is installed (floats must still be written as Python
 * writes them; tests/unit/test_locale.c insists on the locale). */
#include <dirent.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdlib.h>

#include "check.h"
#include "eir.h"
#include "ir/program.h"

static char *print_form(eir_program *p, int form) {
    char *t = NULL;
    eir_status st = form < 3 ? eir_program_print(p, (eir_print_form)form, &t) : eir_program_info(p, form == 4, &t);
    return st == EIR_OK ? t : NULL;
}

/* The bytes of record `name` (relative to the root) of p's archive. */
static bool record_bytes(const eir_program *p, const char *name, const uint8_t **data, size_t *len) {
    int64_t i = eir_archive_find(&p->archive, name);
    if (i < 0) return false;
    bool owned;
    char err[256];
    if (!eir_archive_read(&p->archive, (uint32_t)i, UINT64_MAX / 2, data, len, &owned, err, sizeof err)) return false;
    return !owned;   /* every record eir writes is stored */
}

static bool same_record(const eir_program *a, const eir_program *b, const char *name) {
    const uint8_t *da, *db;
    size_t la, lb;
    if (!record_bytes(a, name, &da, &la) || !record_bytes(b, name, &db, &lb)) return false;
    return la == lb && (!la || !memcmp(da, db, la));
}

/* Every record's data starts at a multiple of 64 bytes. */
static bool aligned(const eir_program *p) {
    for (uint32_t i = 0; i < p->archive.num_records; i++)
        if (p->archive.records[i].offset % 64) return false;
    return true;
}

static void check_fixture(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    eir_program *a = NULL, *b = NULL, *c = NULL;
    void *buf1 = NULL, *buf2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (eir_program_load(path, &a) != EIR_OK) {
        fprintf(stderr, "%s: %s\n", path, eir_errmsg(a));
        CHECK(0);
        goto out;
    }
    eir_status st = eir_program_save_buffer(a, &buf1, &n1);
    if (st != EIR_OK) fprintf(stderr, "%s: save: %s\n", file, eir_errmsg(a));
    CHECK(st == EIR_OK);
    if (st) goto out;
    st = eir_program_load_buffer(buf1, n1, &b);
    if (st != EIR_OK) fprintf(stderr, "%s: reload: %s\n", file, eir_errmsg(b));
    CHECK(st == EIR_OK);
    if (st) goto out;

    /* the same program */
    for (int f = 0; f < 5; f++) {
        char *ta = print_form(a, f), *tb = print_form(b, f);
        bool same = ta && tb && !strcmp(ta, tb);
        if (!same) fprintf(stderr, "%s: printed form %d differs after save/load\n", file, f);
        CHECK(same);
        eir_free(ta);
        eir_free(tb);
    }
    /* torch's JSON back byte for byte */
    static const char *const json[] = {"models/model.json", "data/weights/model_weights_config.json",
                                       "data/constants/model_constants_config.json"};
    for (size_t k = 0; k < EIR_ARRAY_LEN(json); k++) {
        bool same = same_record(a, b, json[k]);
        if (!same) fprintf(stderr, "%s: %s differs from the original\n", file, json[k]);
        CHECK(same);
    }
    /* the records torch writes, in its order, with the same bytes (but the
     * informational serialization id) */
    CHECK(a->archive.num_records == b->archive.num_records);
    for (uint32_t i = 0; i < a->archive.num_records && i < b->archive.num_records; i++) {
        const char *name = a->archive.records[i].name;
        bool same_name = !strcmp(name, b->archive.records[i].name);
        if (!same_name) fprintf(stderr, "%s: record %u is '%s', expected '%s'\n", file, i, b->archive.records[i].name, name);
        CHECK(same_name);
        if (same_name && strcmp(name, ".data/serialization_id")) {
            bool same = same_record(a, b, name);
            if (!same) fprintf(stderr, "%s: record '%s' differs\n", file, name);
            CHECK(same);
        }
    }
    CHECK(!strcmp(b->archive.root, "archive"));
    CHECK(aligned(b));
    /* shared storages stay shared, distinct ones distinct */
    CHECK(a->num_tensors == b->num_tensors);
    for (uint32_t i = 0; i < a->num_tensors && i < b->num_tensors; i++)
        for (uint32_t j = i + 1; j < a->num_tensors && j < b->num_tensors; j++) {
            bool sa = a->tensors[i].record && a->tensors[j].record && !strcmp(a->tensors[i].record, a->tensors[j].record);
            bool sb = b->tensors[i].record && b->tensors[j].record && !strcmp(b->tensors[i].record, b->tensors[j].record);
            CHECK(sa == sb);
            if (sa && !a->tensors[i].use_pickle && a->tensors[i].storage_nbytes) CHECK(b->tensors[i].data == b->tensors[j].data);
        }

    /* idempotent: the copy saved again is the same archive */
    st = eir_program_save_buffer(b, &buf2, &n2);
    CHECK(st == EIR_OK);
    CHECK(n1 == n2 && buf2 && !memcmp(buf1, buf2, n1));

    /* through a file: root folder named after it, loads, same text */
    char out[1024];
    snprintf(out, sizeof out, "%s/eir_test_save_%d.pt2", P_tmpdir, (int)getpid());
    st = eir_program_save(b, out);
    CHECK(st == EIR_OK);
    if (st == EIR_OK && eir_program_load(out, &c) == EIR_OK) {
        char root[64];
        snprintf(root, sizeof root, "eir_test_save_%d", (int)getpid());
        CHECK_STR(c->archive.root, root);
        char *ta = print_form(a, 2), *tc = print_form(c, 2);
        CHECK(ta && tc && !strcmp(ta, tc));
        eir_free(ta);
        eir_free(tc);
    } else {
        CHECK(0);
    }
    unlink(out);
out:
    eir_free(buf1);
    eir_free(buf2);
    eir_program_free(a);
    eir_program_free(b);
    eir_program_free(c);
}

/* A failed write leaves nothing: not the output, not a temporary file, and
 * an existing output stays as it was. */
static void check_failures(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/mlp.pt2", dir);
    eir_program *p = NULL;
    if (eir_program_load(path, &p) != EIR_OK) {
        CHECK(0);
        eir_program_free(p);
        return;
    }
    CHECK(eir_program_save(p, "/nonexistent-dir/x.pt2") == EIR_ERR_IO);
    CHECK(strstr(eir_errmsg(p), "/nonexistent-dir/x.pt2") != NULL);
    CHECK(eir_program_save(p, NULL) == EIR_ERR_ARG);
    CHECK(eir_program_save(p, "") == EIR_ERR_ARG);
    CHECK(eir_program_save_buffer(p, NULL, NULL) == EIR_ERR_ARG);
    CHECK(eir_program_save(NULL, "x.pt2") == EIR_ERR_ARG);

    /* a directory in the way of the rename: the temporary file is removed */
    char tdir[256], target[300];
    snprintf(tdir, sizeof tdir, "%s/eir_test_save_dir_%d", P_tmpdir, (int)getpid());
    CHECK(mkdir(tdir, 0700) == 0);
    snprintf(target, sizeof target, "%s/out.pt2", tdir);
    CHECK(mkdir(target, 0700) == 0);
    CHECK(eir_program_save(p, target) == EIR_ERR_IO);
    DIR *d = opendir(tdir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') entries++;
    if (d) closedir(d);
    CHECK(entries == 1);   /* only out.pt2/, no temporary file */
    rmdir(target);
    rmdir(tdir);
    eir_program_free(p);
}

int main(void) {
    const char *dir = getenv("EIR_FIXTURES") ? getenv("EIR_FIXTURES") : "tests/e2e/fixtures";
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        return 1;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".pt2")) {
            check_fixture(dir, e->d_name);
            if (setlocale(LC_ALL, "de_DE.UTF-8")) {
                check_fixture(dir, e->d_name);
                setlocale(LC_ALL, "C");
            }
            n++;
        }
    }
    closedir(d);
    CHECK(n > 0);
    check_failures(dir);
    return check_summary("test_save");
}
