/* torchsave.c — tensors from torch.save archives (see torchsave.h).
 *
 * torch.save writes a ZIP with data.pkl (pickle protocol 2) and one raw
 * record data/<key> per storage. In data.pkl a storage is a persistent id
 * ('storage', torch.<T>Storage, '<key>', '<location>', numel) and tensors are
 * rebuilt by calls to a few functions of torch (torch/serialization.py,
 * torch/_utils.py, torch/_tensor.py):
 *   torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
 *   torch._utils._rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])
 *     (dtypes without a typed storage class, e.g. uint16: the storage is a
 *     torch.storage.UntypedStorage whose numel counts bytes)
 *   torch._utils._rebuild_parameter(tensor, requires_grad, hooks)       nn.Parameter
 *   torch._utils._rebuild_parameter_with_state(tensor, requires_grad, hooks, state)
 *   torch._tensor._rebuild_from_type_v2(func, type, args, state)         a tensor subclass
 *   torch._utils._rebuild_wrapper_subclass(cls, dtype, size, stride, offset, layout, device, requires_grad)
 * A wrapper subclass (TwoTensor) owns no storage: its inner tensors are in the
 * state dict given to _rebuild_from_type_v2. Nothing here is executed; each
 * call node is checked against the shape of the arguments torch writes. */
#include "serde/torchsave.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serde/archive.h"
#include "serde/pickle.h"

enum { MAX_DEPTH = 32, MAX_RANK = 64 };

typedef struct storage_copy {
    const char *key;
    const uint8_t *data;
    struct storage_copy *next;
} storage_copy;

typedef struct tsctx {
    eir_archive zip;
    eir_arena *arena;
    char *err;
    size_t errlen;
    storage_copy *copies;       /* storages copied to aligned memory, shared by key */
} tsctx;

static const struct { const char *name; eir_dtype dt; } STORAGES[] = {
    {"FloatStorage", EIR_F32}, {"DoubleStorage", EIR_F64}, {"HalfStorage", EIR_F16},
    {"BFloat16Storage", EIR_BF16}, {"LongStorage", EIR_I64}, {"IntStorage", EIR_I32},
    {"ShortStorage", EIR_I16}, {"CharStorage", EIR_I8}, {"ByteStorage", EIR_U8},
    {"BoolStorage", EIR_BOOL}, {"ComplexFloatStorage", EIR_C64}, {"ComplexDoubleStorage", EIR_C128},
};

static const struct { const char *name; eir_dtype dt; } DTYPE_NAMES[] = {
    {"float32", EIR_F32}, {"float64", EIR_F64}, {"float16", EIR_F16}, {"bfloat16", EIR_BF16},
    {"int64", EIR_I64}, {"int32", EIR_I32}, {"int16", EIR_I16}, {"int8", EIR_I8}, {"uint8", EIR_U8},
    {"bool", EIR_BOOL}, {"complex64", EIR_C64}, {"complex128", EIR_C128}, {"complex32", EIR_C32},
    {"uint16", EIR_U16}, {"uint32", EIR_U32}, {"uint64", EIR_U64}, {"float8_e4m3fn", EIR_F8E4M3FN},
    {"float8_e5m2", EIR_F8E5M2}, {"float8_e4m3fnuz", EIR_F8E4M3FNUZ}, {"float8_e5m2fnuz", EIR_F8E5M2FNUZ},
    {"float8_e8m0fnu", EIR_F8E8M0FNU},
};

/* Callables torch's serializer writes for tensors, and the data-only globals. */
static const char *const CALLABLES[][2] = {
    {"torch._utils", "_rebuild_tensor_v2"},
    {"torch._utils", "_rebuild_tensor_v3"},
    {"torch._utils", "_rebuild_parameter"},
    {"torch._utils", "_rebuild_parameter_with_state"},
    {"torch._utils", "_rebuild_wrapper_subclass"},
    {"torch._tensor", "_rebuild_from_type_v2"},
    {"collections", "OrderedDict"},
    {"torch.serialization", "_get_layout"},
    {"torch", "device"},
};

/* Tensor subclasses whose pickled form eir reads. */
static const char *const SUBCLASSES[][2] = {
    {"torch.testing._internal.two_tensor", "TwoTensor"},
    {"torch.nn.parameter", "Parameter"},
    {"torch.nn.parameter", "Buffer"},
    {"torch", "Tensor"},
};

static bool is_global(const eir_pk *v, const char *mod, const char *name) {
    return v && v->kind == EIR_PK_GLOBAL && !strcmp(v->s, mod) && !strcmp(v->name, name);
}

static bool dtype_of_storage(const char *name, eir_dtype *dt) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(STORAGES); i++)
        if (!strcmp(STORAGES[i].name, name)) { *dt = STORAGES[i].dt; return true; }
    return false;
}

static bool dtype_of_name(const char *name, eir_dtype *dt) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(DTYPE_NAMES); i++)
        if (!strcmp(DTYPE_NAMES[i].name, name)) { *dt = DTYPE_NAMES[i].dt; return true; }
    return false;
}

bool eir_torchsave_global_ok(void *ctx, const char *module, const char *name) {
    (void)ctx;
    eir_dtype dt;
    for (size_t i = 0; i < EIR_ARRAY_LEN(CALLABLES); i++)
        if (!strcmp(CALLABLES[i][0], module) && !strcmp(CALLABLES[i][1], name)) return true;
    for (size_t i = 0; i < EIR_ARRAY_LEN(SUBCLASSES); i++)
        if (!strcmp(SUBCLASSES[i][0], module) && !strcmp(SUBCLASSES[i][1], name)) return true;
    if (!strcmp(module, "torch")) return dtype_of_storage(name, &dt) || dtype_of_name(name, &dt);
    return !strcmp(module, "torch.storage") && !strcmp(name, "UntypedStorage");
}

static bool fail(tsctx *c, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool fail(tsctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return false;
}

static const char *call_name(const eir_pk *v) {
    return v->kind == EIR_PK_CALL ? v->items[0]->name : eir_pk_kind_name(v->kind);
}

/* A tuple or list of ints (torch.Size pickles as a tuple). */
static bool int_seq(tsctx *c, const eir_pk *v, const char *what, uint32_t *rank, int64_t **out) {
    if (v->kind != EIR_PK_TUPLE && v->kind != EIR_PK_LIST)
        return fail(c, "data.pkl: %s is a %s, expected a tuple of ints", what, eir_pk_kind_name(v->kind));
    if (v->n > MAX_RANK) return fail(c, "data.pkl: %s has %u dims (at most %d)", what, v->n, MAX_RANK);
    int64_t *a = eir_arena_array(c->arena, v->n ? v->n : 1, sizeof *a);
    if (!a) return fail(c, "out of memory");
    for (uint32_t i = 0; i < v->n; i++) {
        if (v->items[i]->kind != EIR_PK_INT)
            return fail(c, "data.pkl: %s[%u] is a %s, expected an int", what, i, eir_pk_kind_name(v->items[i]->kind));
        a[i] = v->items[i]->i;
    }
    *rank = v->n;
    *out = a;
    return true;
}

static bool want_int(tsctx *c, const eir_pk *v, const char *what, int64_t *out) {
    if (v->kind != EIR_PK_INT) return fail(c, "data.pkl: %s is a %s, expected an int", what, eir_pk_kind_name(v->kind));
    *out = v->i;
    return true;
}

static bool want_bool(tsctx *c, const eir_pk *v, const char *what, bool *out) {
    if (v->kind == EIR_PK_BOOL) { *out = v->b; return true; }
    if (v->kind == EIR_PK_INT && (v->i == 0 || v->i == 1)) { *out = v->i; return true; }
    return fail(c, "data.pkl: %s is a %s, expected a bool", what, eir_pk_kind_name(v->kind));
}

/* Backward hooks: an empty OrderedDict() (torch refuses to save hooks). */
static bool want_hooks(tsctx *c, const eir_pk *v) {
    if (v->kind == EIR_PK_DICT && v->n == 0) return true;
    return fail(c, "data.pkl: backward hooks are a %s, expected an empty OrderedDict()", call_name(v));
}

/* The storage's bytes, from its persistent id. */
static bool storage(tsctx *c, const eir_pk *v, eir_ts_tensor *t) {
    if (v->kind != EIR_PK_PERSID) return fail(c, "data.pkl: storage is a %s, expected a persistent id", call_name(v));
    const eir_pk *pid = v->items[0];
    if (pid->kind != EIR_PK_TUPLE || pid->n != 5 || pid->items[0]->kind != EIR_PK_STR ||
        strcmp(pid->items[0]->s, "storage") != 0)
        return fail(c, "data.pkl: persistent id is not ('storage', type, key, location, numel)");
    const eir_pk *ty = pid->items[1], *key = pid->items[2], *numel = pid->items[4];
    bool untyped = is_global(ty, "torch.storage", "UntypedStorage");
    if (untyped != (t->dtype != EIR_DTYPE_UNKNOWN))
        return fail(c, "data.pkl: storage type %s.%s does not go with %s", ty->kind == EIR_PK_GLOBAL ? ty->s : "?",
                    ty->kind == EIR_PK_GLOBAL ? ty->name : "?",
                    untyped ? "_rebuild_tensor_v2" : "_rebuild_tensor_v3");
    if (!untyped && (ty->kind != EIR_PK_GLOBAL || strcmp(ty->s, "torch") != 0 || !dtype_of_storage(ty->name, &t->dtype)))
        return fail(c, "data.pkl: storage type %s%s%s is not one eir reads", ty->kind == EIR_PK_GLOBAL ? ty->s : "",
                    ty->kind == EIR_PK_GLOBAL ? "." : "", ty->kind == EIR_PK_GLOBAL ? ty->name : eir_pk_kind_name(ty->kind));
    if (key->kind != EIR_PK_STR) return fail(c, "data.pkl: storage key is a %s, expected a str", eir_pk_kind_name(key->kind));
    if (strchr(key->s, '/') || !key->s[0] || !strcmp(key->s, "..") || strlen(key->s) != key->len)
        return fail(c, "data.pkl: storage key '%.40s' is not a plain record name", key->s);
    int64_t ne = 0;
    if (!want_int(c, numel, "storage numel", &ne)) return false;
    size_t es = untyped ? 1 : eir_dtype_size(t->dtype);  /* an untyped storage counts bytes */
    if (ne < 0 || (uint64_t)ne > UINT64_MAX / 2 / es)
        return fail(c, "data.pkl: storage '%s' has %lld elements", key->s, (long long)ne);
    if (key->len > 200) return fail(c, "data.pkl: storage key of %zu bytes (at most 200)", key->len);
    char rec[256];
    eir_snprintf(rec, sizeof rec, "data/%s", key->s);
    int64_t idx = eir_archive_find(&c->zip, rec);
    if (idx < 0) return fail(c, "data.pkl names storage '%s' but the archive has no record '%s'", key->s, rec);
    const uint8_t *d;
    size_t len;
    bool owned;
    char e[256];
    if (!eir_archive_read(&c->zip, (uint32_t)idx, UINT64_MAX / 2, &d, &len, &owned, e, sizeof e))
        return fail(c, "%s", e);
    /* a storage not aligned for its elements (a flat ZIP written by Python's zipfile
     * does not align records) is copied once into the arena, which aligns to 16 */
    bool misaligned = ((uintptr_t)d % 16) != 0;
    if (owned || misaligned) {
        const uint8_t *prev = NULL;
        for (storage_copy *s = c->copies; s && !prev; s = s->next)
            if (!strcmp(s->key, key->s)) prev = s->data;
        if (prev) {
            if (owned) free((void *)d);
            d = prev;
        } else {
            void *copy = eir_arena_alloc(c->arena, len ? len : 1);
            storage_copy *sc = eir_arena_alloc(c->arena, sizeof *sc);
            char *k = eir_arena_strdup(c->arena, key->s);
            if (!copy || !sc || !k) { if (owned) free((void *)d); return fail(c, "out of memory"); }
            memcpy(copy, d, len);
            if (owned) free((void *)d);
            d = copy;
            *sc = (storage_copy){k, d, c->copies};
            c->copies = sc;
        }
    }
    if ((uint64_t)len < (uint64_t)ne * es)
        return fail(c, "record '%s' has %zu bytes, but data.pkl says %lld %s elements (%llu bytes)", rec, len,
                    (long long)ne, untyped ? "byte" : eir_dtype_abbr(t->dtype), (unsigned long long)((uint64_t)ne * es));
    t->data = d;
    t->nbytes = (uint64_t)ne * es;
    t->storage_key = eir_arena_strdup(c->arena, key->s);
    return t->storage_key ? true : fail(c, "out of memory");
}

/* The view must lie inside its storage. */
static bool check_view(tsctx *c, const eir_ts_tensor *t) {
    if (t->rank > MAX_RANK) return fail(c, "data.pkl: too many dims");
    if (t->storage_offset < 0) return fail(c, "data.pkl: negative storage offset %lld", (long long)t->storage_offset);
    unsigned __int128 hi = (uint64_t)t->storage_offset;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (t->sizes[i] < 0) return fail(c, "data.pkl: negative size %lld in dim %u", (long long)t->sizes[i], i);
        if (t->strides[i] < 0) return fail(c, "data.pkl: negative stride %lld in dim %u", (long long)t->strides[i], i);
        if (t->sizes[i] == 0) return true;
    }
    if (!t->data) return true;
    for (uint32_t i = 0; i < t->rank; i++) hi += (unsigned __int128)(uint64_t)(t->sizes[i] - 1) * (uint64_t)t->strides[i];
    unsigned __int128 need = (hi + 1) * eir_dtype_size(t->dtype);
    if (need > t->nbytes)
        return fail(c, "data.pkl: a %s tensor whose sizes/strides/offset need %llu bytes does not fit its storage '%s' "
                    "of %llu bytes", eir_dtype_abbr(t->dtype), need >> 63 ? (unsigned long long)-1 : (unsigned long long)need,
                    t->storage_key, (unsigned long long)t->nbytes);
    return true;
}

static bool tensor(tsctx *c, const eir_pk *v, int depth, eir_ts_tensor *t);

static bool rebuild_v2(tsctx *c, const eir_pk *args, bool v3, eir_ts_tensor *t) {
    if (!v3 && args->n != 6 && args->n != 7)
        return fail(c, "data.pkl: _rebuild_tensor_v2 takes 6 or 7 arguments, got %u", args->n);
    if (v3) {
        if (args->n != 7 && args->n != 8)
            return fail(c, "data.pkl: _rebuild_tensor_v3 takes 7 or 8 arguments, got %u", args->n);
        const eir_pk *dt = args->items[6];
        if (dt->kind != EIR_PK_GLOBAL || strcmp(dt->s, "torch") != 0 || !dtype_of_name(dt->name, &t->dtype))
            return fail(c, "data.pkl: _rebuild_tensor_v3 dtype is not a torch dtype eir reads");
    }
    if (!storage(c, args->items[0], t) || !want_int(c, args->items[1], "storage offset", &t->storage_offset))
        return false;
    uint32_t r2;
    if (!int_seq(c, args->items[2], "size", &t->rank, &t->sizes) || !int_seq(c, args->items[3], "stride", &r2, &t->strides))
        return false;
    if (r2 != t->rank) return fail(c, "data.pkl: size has %u dims but stride has %u", t->rank, r2);
    if (!want_bool(c, args->items[4], "requires_grad", &t->requires_grad) || !want_hooks(c, args->items[5])) return false;
    return check_view(c, t);
}

static bool rebuild_wrapper(tsctx *c, const eir_pk *args, eir_ts_tensor *t) {
    if (args->n != 8) return fail(c, "data.pkl: _rebuild_wrapper_subclass takes 8 arguments, got %u", args->n);
    const eir_pk *cls = args->items[0], *dt = args->items[1], *lay = args->items[5];
    if (cls->kind != EIR_PK_GLOBAL) return fail(c, "data.pkl: wrapper subclass type is a %s", eir_pk_kind_name(cls->kind));
    if (dt->kind != EIR_PK_GLOBAL || strcmp(dt->s, "torch") != 0 || !dtype_of_name(dt->name, &t->dtype))
        return fail(c, "data.pkl: wrapper subclass dtype is not a torch dtype eir reads");
    uint32_t r2;
    if (!int_seq(c, args->items[2], "size", &t->rank, &t->sizes) || !int_seq(c, args->items[3], "stride", &r2, &t->strides))
        return false;
    if (r2 != t->rank) return fail(c, "data.pkl: size has %u dims but stride has %u", t->rank, r2);
    if (!want_int(c, args->items[4], "storage offset", &t->storage_offset)) return false;
    if (!(lay->kind == EIR_PK_CALL && is_global(lay->items[0], "torch.serialization", "_get_layout") &&
          lay->items[1]->n == 1 && lay->items[1]->items[0]->kind == EIR_PK_STR &&
          !strcmp(lay->items[1]->items[0]->s, "torch.strided")))
        return fail(c, "data.pkl: wrapper subclass layout is not torch.strided");
    if (!want_bool(c, args->items[7], "requires_grad", &t->requires_grad)) return false;
    size_t n = strlen(cls->s) + strlen(cls->name) + 2;
    char *name = eir_arena_alloc(c->arena, n);
    if (!name) return fail(c, "out of memory");
    snprintf(name, n, "%s.%s", cls->s, cls->name);
    t->subclass = name;
    return check_view(c, t);
}

/* State of _rebuild_from_type_v2 (the subclass's __dict__): tensors become inner
 * tensors, '_is_param' marks a parameter; other plain values are ignored. */
static bool subclass_state(tsctx *c, const eir_pk *st, int depth, eir_ts_tensor *t) {
    if (st->kind == EIR_PK_NONE) return true;
    if (st->kind != EIR_PK_DICT) return fail(c, "data.pkl: subclass state is a %s, expected a dict", call_name(st));
    uint32_t ntens = 0;
    for (uint32_t i = 0; i + 1 < st->n; i += 2)
        if (st->items[i + 1]->kind == EIR_PK_CALL) ntens++;
    if (ntens) {
        t->inner = eir_arena_array(c->arena, ntens, sizeof *t->inner);
        t->inner_names = eir_arena_array(c->arena, ntens, sizeof *t->inner_names);
        if (!t->inner || !t->inner_names) return fail(c, "out of memory");
    }
    for (uint32_t i = 0; i + 1 < st->n; i += 2) {
        const eir_pk *k = st->items[i], *v = st->items[i + 1];
        if (k->kind != EIR_PK_STR) return fail(c, "data.pkl: subclass state key is a %s", eir_pk_kind_name(k->kind));
        if (v->kind == EIR_PK_CALL) {
            eir_ts_tensor *in = &t->inner[t->num_inner];
            if (!tensor(c, v, depth + 1, in)) return false;
            if (!in->data || in->num_inner)
                return fail(c, "data.pkl: inner tensor '%.40s' of %s is itself a wrapper subclass", k->s, t->subclass);
            t->inner_names[t->num_inner++] = k->s;
        } else if (!strcmp(k->s, "_is_param")) {
            bool b = false;
            if (!want_bool(c, v, "_is_param", &b)) return false;
            t->is_param |= b;
        } else if (v->kind > EIR_PK_BYTES) {
            return fail(c, "data.pkl: subclass state '%.40s' is a %s, which eir does not read", k->s, call_name(v));
        }
    }
    return true;
}

static bool tensor(tsctx *c, const eir_pk *v, int depth, eir_ts_tensor *t) {
    memset(t, 0, sizeof *t);
    if (depth > MAX_DEPTH) return fail(c, "data.pkl: tensor nested deeper than %d calls", MAX_DEPTH);
    if (v->kind != EIR_PK_CALL) return fail(c, "data.pkl: value is a %s, expected a tensor", eir_pk_kind_name(v->kind));
    const eir_pk *fn = v->items[0], *args = v->items[1];
    if (v->n > 2 && v->items[2]->kind != EIR_PK_NONE)
        return fail(c, "data.pkl: %s.%s result has a BUILD state, which torch does not write", fn->s, fn->name);
    if (is_global(fn, "torch._utils", "_rebuild_tensor_v2")) return rebuild_v2(c, args, false, t);
    if (is_global(fn, "torch._utils", "_rebuild_tensor_v3")) return rebuild_v2(c, args, true, t);
    if (is_global(fn, "torch._utils", "_rebuild_wrapper_subclass")) return rebuild_wrapper(c, args, t);
    if (is_global(fn, "torch._utils", "_rebuild_parameter") ||
        is_global(fn, "torch._utils", "_rebuild_parameter_with_state")) {
        bool ws = !strcmp(fn->name, "_rebuild_parameter_with_state");
        if (args->n != (ws ? 4u : 3u)) return fail(c, "data.pkl: %s takes %d arguments, got %u", fn->name, ws ? 4 : 3, args->n);
        if (!tensor(c, args->items[0], depth + 1, t)) return false;
        if (!want_bool(c, args->items[1], "requires_grad", &t->requires_grad) || !want_hooks(c, args->items[2])) return false;
        if (ws && !subclass_state(c, args->items[3], depth, t)) return false;
        t->is_param = true;
        return true;
    }
    if (is_global(fn, "torch._tensor", "_rebuild_from_type_v2")) {
        if (args->n != 4) return fail(c, "data.pkl: _rebuild_from_type_v2 takes 4 arguments, got %u", args->n);
        const eir_pk *f = args->items[0], *ty = args->items[1], *a = args->items[2];
        if (ty->kind != EIR_PK_GLOBAL) return fail(c, "data.pkl: subclass type is a %s", eir_pk_kind_name(ty->kind));
        if (f->kind != EIR_PK_GLOBAL || a->kind != EIR_PK_TUPLE)
            return fail(c, "data.pkl: _rebuild_from_type_v2 needs a function and an argument tuple");
        eir_pk inner = {.kind = EIR_PK_CALL, .items = (eir_pk *[]){(eir_pk *)f, (eir_pk *)a}, .n = 2};
        if (!tensor(c, &inner, depth + 1, t)) return false;
        bool plain = is_global(ty, "torch", "Tensor") || is_global(ty, "torch.nn.parameter", "Parameter") ||
                     is_global(ty, "torch.nn.parameter", "Buffer");
        if (is_global(ty, "torch.nn.parameter", "Parameter")) t->is_param = true;
        if (!plain && !t->subclass) {
            size_t n = strlen(ty->s) + strlen(ty->name) + 2;
            char *name = eir_arena_alloc(c->arena, n);
            if (!name) return fail(c, "out of memory");
            snprintf(name, n, "%s.%s", ty->s, ty->name);
            t->subclass = name;
        }
        return subclass_state(c, args->items[3], depth, t);
    }
    if (fn->kind == EIR_PK_GLOBAL) return fail(c, "data.pkl: a call of %s.%s where a tensor was expected", fn->s, fn->name);
    return fail(c, "data.pkl: value is not a tensor");
}

bool eir_torchsave_read(const uint8_t *data, size_t len, eir_arena *arena, eir_ts_entry **out, uint32_t *n,
                        char *err, size_t errlen) {
    tsctx c = {.arena = arena, .err = err, .errlen = errlen};
    *out = NULL;
    *n = 0;
    char e[512];
    if (!eir_archive_open(&c.zip, data, len, e, sizeof e)) return fail(&c, "not a torch.save archive: %s", e);
    bool ok = false;
    eir_pk_reader *r = NULL;
    const uint8_t *pk = NULL;
    size_t pklen = 0;
    bool owned = false;
    int64_t idx = eir_archive_find(&c.zip, "data.pkl");
    int64_t bo = eir_archive_find(&c.zip, "byteorder");
    if (idx < 0) { fail(&c, "torch.save archive has no record 'data.pkl'"); goto done; }
    if (bo >= 0) {
        const uint8_t *b;
        size_t bl;
        bool bown;
        if (!eir_archive_read(&c.zip, (uint32_t)bo, 64, &b, &bl, &bown, e, sizeof e)) { fail(&c, "%s", e); goto done; }
        bool little = bl == 6 && !memcmp(b, "little", 6);
        if (bown) free((void *)b);
        if (!little) { fail(&c, "torch.save archive: byteorder is not 'little'"); goto done; }
    }
    if (!eir_archive_read(&c.zip, (uint32_t)idx, 1u << 30, &pk, &pklen, &owned, e, sizeof e)) {
        fail(&c, "%s", e);
        goto done;
    }
    eir_pk *top;
    if (!eir_pk_read(pk, pklen, eir_torchsave_global_ok, NULL, &r, &top, e, sizeof e)) {
        fail(&c, "data.pkl: %s", e);
        goto done;
    }
    if (top->kind == EIR_PK_CALL) {
        eir_ts_entry *en = eir_arena_alloc(arena, sizeof *en);
        if (!en) { fail(&c, "out of memory"); goto done; }
        if (!tensor(&c, top, 0, &en->t)) goto done;
        *out = en;
        *n = 1;
        ok = true;
        goto done;
    }
    const eir_pk *d = top;
    if (d->kind != EIR_PK_DICT) {
        fail(&c, "data.pkl: top-level value is a %s, expected a tensor or a dict of tensors", eir_pk_kind_name(d->kind));
        goto done;
    }
    eir_ts_entry *en = eir_arena_array(arena, d->n / 2 ? d->n / 2 : 1, sizeof *en);
    if (!en) { fail(&c, "out of memory"); goto done; }
    for (uint32_t i = 0; i + 1 < d->n; i += 2) {
        const eir_pk *k = d->items[i];
        if (k->kind != EIR_PK_STR) { fail(&c, "data.pkl: dict key is a %s, expected a str", eir_pk_kind_name(k->kind)); goto done; }
        en[i / 2].key = k->s;
        char sub[400];
        c.err = sub;
        c.errlen = sizeof sub;
        bool tok = tensor(&c, d->items[i + 1], 0, &en[i / 2].t);
        c.err = err;
        c.errlen = errlen;
        if (!tok) { fail(&c, "'%.80s': %s", k->s, sub); goto done; }
        /* keys live in the reader's arena: copy them out */
        en[i / 2].key = eir_arena_strdup(arena, k->s);
        if (!en[i / 2].key) { fail(&c, "out of memory"); goto done; }
    }
    *out = en;
    *n = d->n / 2;
    ok = true;
done:
    if (ok) {
        /* names of inner tensors and subclass strings must outlive the reader */
        for (uint32_t i = 0; i < *n && ok; i++) {
            eir_ts_tensor *t = &(*out)[i].t;
            for (uint32_t j = 0; j < t->num_inner; j++) {
                t->inner_names[j] = eir_arena_strdup(arena, t->inner_names[j]);
                if (!t->inner_names[j]) ok = fail(&c, "out of memory");
            }
        }
    }
    if (!ok)  /* keys and names come from the file: keep the message printable ASCII */
        for (char *ch = err; errlen && *ch; ch++)
            if ((unsigned char)*ch < 0x20 || (unsigned char)*ch >= 0x7f) *ch = '?';
    eir_pk_reader_free(r);
    if (owned) free((void *)pk);
    eir_archive_close(&c.zip);
    return ok;
}
