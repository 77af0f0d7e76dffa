#include "memory_probe.h"
#include <malloc.h>

// Defined by the `wells` executable's CAllocationCounter; absent (null) anywhere else.
extern unsigned long wk_allocation_count(void) __attribute__((weak));
extern void wk_allocation_counting(int enabled) __attribute__((weak));

size_t wk_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

long wk_allocations_counted(void) { return wk_allocation_count ? (long)wk_allocation_count() : -1; }

void wk_count_allocations(int enabled) {
    if (wk_allocation_counting) wk_allocation_counting(enabled);
}
