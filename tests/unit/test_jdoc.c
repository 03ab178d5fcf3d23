/* test_jdoc.c — the JSON reader accepts exactly what Python's json.loads
 * accepts (expectations taken from CPython 3.11; bare NaN/Infinity, which
 * Python also allows, are refused on purpose: torch writes them as strings),
 * and reads values back correctly. */
#include <math.h>

#include "base/jdoc.h"
#include "check.h"

static const struct { const char *text; bool ok; } CASES[] = {
    {"{}", true}, {"[]", true}, {"{\"a\": 1}", true}, {"{\"a\": [1, 2, {\"b\": null}]}", true},
    {" {\"a\" : true , \"b\":false} ", true}, {"[1,2,3]", true}, {"\"x\"", true}, {"0", true}, {"-0.5e+10", true},
    {"{\"a\": \"\\u00e9\\n\\\"q\\\"\\\\\"}", true}, {"[1e5, 1E-5, -0, 0.0]", true}, {"{\"k\": \"\\ud83d\\ude00\"}", true},
    {"[1 2]", false}, {"[1,,2]", false}, {"[1,]", false}, {"{\"a\":1,}", false}, {"{\"a\" 1}", false},
    {"{\"a\":1 \"b\":2}", false}, {"{\"a\"}", false}, {"{1: 2}", false}, {"[01]", false}, {"[1.]", false},
    {"[.5]", false}, {"[+1]", false}, {"[-]", false}, {"[tru]", false}, {"[nul]", false}, {"[true false]", false},
    {"{\"a\":1}}", false}, {"{\"a\":1} x", false}, {"[", false}, {"{\"a\":", false}, {"\"unterminated", false},
    {"[\"a\\x\"]", false}, {"[\"\\u12\"]", false}, {"[\"tab\there\"]", false}, {"[1e]", false}, {"[1e+]", false},
    {"{\"a\":[}", false}, {"[]]", false}, {"", false}, {"   ", false}, {"{\"a\":{\"b\":{\"c\":[[[]]]}}}", true},
    {"[1.5e308]", true}, {"[NaN]", false}, {"[\"\\xff\"]", false}, {"[\"\xc3\xa9\"]", true}, {"[\"\xff\"]", false},
    {"[\"\xe2\x82\"]", false},
};

int main(void) {
    char err[256];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        jdoc d;
        bool ok = jdoc_parse(&d, CASES[i].text, strlen(CASES[i].text), 64, err, sizeof err);
        CHECK(ok == CASES[i].ok);
        if (ok != CASES[i].ok) fprintf(stderr, "  case %zu '%s': %s\n", i, CASES[i].text, ok ? "accepted" : err);
        if (ok) jdoc_free(&d);
    }

    /* values and structure */
    const char *text = "{\"name\": \"a\\\"b\\u00e9\\n\", \"n\": -9223372036854775808, \"big\": 9223372036854775808,"
                       " \"f\": 1.5e-3, \"list\": [10, [20, 21], {\"k\": null}], \"t\": true, \"n\": 7}";
    jdoc d;
    CHECK(jdoc_parse(&d, text, strlen(text), 64, err, sizeof err));
    eir_arena a;
    eir_arena_init(&a);
    CHECK(jdoc_type(&d, 0) == JT_OBJECT && jdoc_size(&d, 0) == 7);
    size_t len;
    bool nul;
    CHECK_STR(jdoc_str(&d, jdoc_get(&d, 0, "name"), &a, &len, &nul), "a\"b\xc3\xa9\n");
    CHECK(len == 6 && !nul);
    int64_t v = 0;
    CHECK(jdoc_int(&d, jdoc_val(&d, 0, 1), &v) && v == INT64_MIN);
    CHECK(jdoc_int(&d, jdoc_get(&d, 0, "n"), &v) && v == 7); /* duplicate key: the last one wins, as in Python */
    CHECK(!jdoc_int(&d, jdoc_get(&d, 0, "big"), &v));
    CHECK(jdoc_type(&d, jdoc_get(&d, 0, "f")) == JT_REAL && fabs(jdoc_num(&d, jdoc_get(&d, 0, "f")) - 1.5e-3) < 1e-18);
    jv list = jdoc_get(&d, 0, "list");
    CHECK(jdoc_size(&d, list) == 3);
    CHECK(jdoc_size(&d, jdoc_at(&d, list, 1)) == 2);
    CHECK(jdoc_int(&d, jdoc_at(&d, jdoc_at(&d, list, 1), 1), &v) && v == 21);
    CHECK(jdoc_type(&d, jdoc_get(&d, jdoc_at(&d, list, 2), "k")) == JT_NULL);
    CHECK(jdoc_at(&d, list, 3) == JV_NONE && jdoc_get(&d, 0, "missing") == JV_NONE);
    CHECK(jdoc_type(&d, JV_NONE) == JT_NONE && jdoc_type(&d, jdoc_get(&d, 0, "t")) == JT_TRUE);
    jdoc_free(&d);
    const char *z = "[\"a\\u0000b\"]";
    CHECK(jdoc_parse(&d, z, strlen(z), 64, err, sizeof err));
    jdoc_str(&d, jdoc_at(&d, 0, 0), &a, &len, &nul);
    CHECK(nul && len == 3);
    jdoc_free(&d);
    /* depth limit and error positions */
    CHECK(!jdoc_parse(&d, "[[[[[[1]]]]]]", 13, 4, err, sizeof err) && strstr(err, "nesting too deep"));
    CHECK(!jdoc_parse(&d, "{\n  \"a\": x}", 11, 64, err, sizeof err) && strstr(err, "line 2, column 8"));
    eir_arena_release(&a);
    return check_summary("test_jdoc");
}
