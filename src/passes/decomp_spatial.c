/* decomp_spatial.c — to-core rules for resampling, unpooling, distances
 * and indexing helpers, each emitting the nodes torch 2.13's
 * ep.run_decompositions() writes for the operator. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"
