#ifndef QUIRE_CLMDB_SHIM_H
#define QUIRE_CLMDB_SHIM_H

// The system LMDB, exactly as Debian's liblmdb-dev ships it (0.9.24).
// Nothing else belongs here: all Swift calls into LMDB go through
// Sources/LMDB/Internals/LMDBCalls.swift.
#include <lmdb.h>

#endif
