#ifndef QUIRE_CZLIB_SHIM_H
#define QUIRE_CZLIB_SHIM_H

// The system zlib (Debian's zlib1g-dev), for gzip-compressed traces (QuireTool) and deflated
// delta-file payloads (Quire, Sources/Quire/Delta/RawDeflate.swift).
#include <zlib.h>

#endif
