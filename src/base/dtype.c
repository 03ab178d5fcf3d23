/* dtype.c — the dtype table: torch's short names (dtype_abbrs), torch dtype
 * names and element sizes, keyed by the export schema's ScalarType codes. */
#include "eir.h"
#include "base.h"

static const struct { eir_dtype dt; const char *abbr, *name; size_t size; } DTYPES[] = {
    {EIR_U8, "u8", "uint8", 1}, {EIR_I8, "i8", "int8", 1}, {EIR_I16, "i16", "int16", 2},
    {EIR_I32, "i32", "int32", 4}, {EIR_I64, "i64", "int64", 8}, {EIR_F16, "f16", "float16", 2},
    {EIR_F32, "f32", "float32", 4}, {EIR_F64, "f64", "float64", 8}, {EIR_C32, "c32", "complex32", 4},
    {EIR_C64, "c64", "complex64", 8}, {EIR_C128, "c128", "complex128", 16}, {EIR_BOOL, "b8", "bool", 1},
    {EIR_BF16, "bf16", "bfloat16", 2}, {EIR_U16, "u16", "uint16", 2},
    {EIR_F8E4M3FN, "f8e4m3fn", "float8_e4m3fn", 1}, {EIR_F8E5M2, "f8e5m2", "float8_e5m2", 1},
    {EIR_F8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", 1}, {EIR_F8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", 1},
    {EIR_F8E8M0FNU, "f8e8m0fnu", "float8_e8m0fnu", 1}, {EIR_U32, "u32", "uint32", 4},
    {EIR_U64, "u64", "uint64", 8},
};

const char *eir_dtype_abbr(eir_dtype dt) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(DTYPES); i++)
        if (DTYPES[i].dt == dt) return DTYPES[i].abbr;
    return NULL;
}
const char *eir_dtype_name(eir_dtype dt) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(DTYPES); i++)
        if (DTYPES[i].dt == dt) return DTYPES[i].name;
    return NULL;
}
size_t eir_dtype_size(eir_dtype dt) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(DTYPES); i++)
        if (DTYPES[i].dt == dt) return DTYPES[i].size;
    return 0;
}

