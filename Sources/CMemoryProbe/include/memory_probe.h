#ifndef WELLKIT_MEMORY_PROBE_H
#define WELLKIT_MEMORY_PROBE_H
#include <stddef.h>

/// Bytes of heap in use: glibc's mallinfo2() uordblks (small blocks) plus hblkhd (mmapped blocks).
size_t wk_heap_bytes_in_use(void);
/// Allocations counted so far, or -1 when the executable does not count them (see CAllocationCounter).
long wk_allocations_counted(void);
/// Turns allocation counting on or off, when the executable counts them.
void wk_count_allocations(int enabled);

#endif
