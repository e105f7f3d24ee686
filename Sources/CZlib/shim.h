#ifndef LIFTBASE_CZLIB_SHIM_H
#define LIFTBASE_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro; Swift sees functions only.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}
#endif
