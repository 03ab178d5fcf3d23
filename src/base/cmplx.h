/* cmplx.h — <complex.h> plus CMPLX / CMPLXF where the C library leaves them
 * out: glibc 2.36 defines them for gcc only, and Debian 12's clang 14 has
 * __builtin_complex, which builds the value without the arithmetic that
 * x + y*I would do (so infinities and NaNs stay where they are). */
#ifndef EIR_CMPLX_H
#define EIR_CMPLX_H

#include <complex.h>

#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif

#endif
