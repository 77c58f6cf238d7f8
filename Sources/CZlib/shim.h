#ifndef QUIRE_CZLIB_SHIM_H
#define QUIRE_CZLIB_SHIM_H

// The system zlib (Debian's zlib1g-dev), for gzip-compressed traces and, later, deflated
// delta files.
#include <zlib.h>

#endif
