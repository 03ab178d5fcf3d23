/* decomp_hist.c — to-core rules for histogramdd, as torch 2.13's composite:
 *   histogramdd(self, int[] bins, range, weight, density)
 *       -> _histogramdd_bin_edges(self, bins, ...) (the edges) and
 *          _histogramdd_from_bin_cts(self, bins, ...) (the histogram)
 *   histogramdd.TensorList_bins(self, Tensor[] bins, range, weight, density)
 *       -> _histogramdd_from_bin_tensors(self, bins, weight, density); the
 *          edges are the bins tensors themselves
 * range, weight and density passed as keywords where given (torch's
 * printing). */
#include <string.h>

#include "decomp_int.h"

eir_status decomp_histogramdd(dc *c) {
    bool tensor_bins = !strcmp(c->op, "aten.histogramdd.TensorList_bins");
    if (c->src.num_outputs != 2 || c->src.outputs[0].kind != EIR_ARG_TENSOR || c->src.outputs[1].kind != EIR_ARG_TENSORS)
        return dc_refuse(c, "expected a histogram and a Tensor[] of edges as outputs");
    const eir_arg *edges = &c->src.outputs[1];
    uint32_t x = dc_tensor_of(c, "self");
    const eir_arg *bins = dc_arg_named(c, "bins"), *range = dc_arg_named(c, "range");
    if (x == EIR_NO_VALUE || !bins) return dc_refuse(c, "arguments 'self', 'bins' missing");
    if (edges->u.list.n > MAXR) return dc_refuse(c, "more than %d dimensions", MAXR);
    uint32_t w = dc_tensor_of(c, "weight");
    bool density;
    if (!dc_bool_arg(c, "density", false, &density)) return dc_refuse(c, "argument 'density': expected a bool");
    if (tensor_bins) {
        if (bins->kind != EIR_ARG_TENSORS || bins->u.list.n != edges->u.list.n)
            return dc_refuse(c, "argument 'bins': expected one tensor per output edge");
    } else if (bins->kind != EIR_ARG_INTS && bins->kind != EIR_ARG_SYM_INTS)
        return dc_refuse(c, "argument 'bins': expected ints");
    if (c->dry) return EIR_OK;
    eir_named_arg ins[5];
    uint32_t n = 0;
    eir_arg b = *bins;
    b.name = NULL;
    ins[n++] = pos_arg("self", a_tensor(x));
    ins[n++] = pos_arg("bins", b);
    if (!tensor_bins && !is_none(range)) {
        eir_arg ra = *range;
        ra.name = NULL;
        ins[n++] = kw_arg("range", ra);
    }
    if (w != EIR_NO_VALUE) ins[n++] = kw_arg("weight", a_tensor(w));
    if (density) ins[n++] = kw_arg("density", a_bool(true));
    uint32_t hist, ev[MAXR];
    uint32_t out = c->src.outputs[0].value, ne = edges->u.list.n;
    eir_status st;
    if (tensor_bins) {
        if ((st = dc_emit(c, "_histogramdd_from_bin_tensors.default", n, ins, meta_of(c, out), "_histogramdd_from_bin_tensors",
                          &hist)))
            return st;
        for (uint32_t i = 0; i < ne; i++) ev[i] = bins->u.list.items[i].value;
    } else {
        const eir_tensor_meta *ms[MAXR];
        for (uint32_t i = 0; i < ne; i++) ms[i] = meta_of(c, edges->u.list.items[i].value);
        if ((st = dc_emit_n(c, "_histogramdd_bin_edges.default", n, ins, ne, ms, "_histogramdd_bin_edges", true, ev)))
            return st;
        if ((st = dc_emit(c, "_histogramdd_from_bin_cts.default", n, ins, meta_of(c, out), "_histogramdd_from_bin_cts",
                          &hist)))
            return st;
    }
    if ((st = finish(c, out, hist))) return st;
    for (uint32_t i = 0; i < ne; i++)
        if (edges->u.list.items[i].value != EIR_NO_VALUE && (st = finish(c, edges->u.list.items[i].value, ev[i]))) return st;
    return EIR_OK;
}
