// Counts heap allocations for `wells bench`, by replacing malloc in the `wells` executable.
//
// glibc supports replacing malloc by defining these functions in the executable
// (https://www.gnu.org/software/libc/manual/html_node/Replacing-malloc.html); each one here
// forwards to glibc's own allocator through its exported __libc_* entry points, so blocks,
// alignment and mallinfo2() stay exactly glibc's. Counting is off unless the benchmark turns
// it on, and then costs one relaxed atomic add per allocation.
#include "allocation_counter.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int counting;
static unsigned long allocations;

void wk_allocation_counting(int enabled) { __atomic_store_n(&counting, enabled, __ATOMIC_RELAXED); }
unsigned long wk_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

static inline void count(void) {
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED)) __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { if (!p) count(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p && size) return ENOMEM;
    *out = p;
    return 0;
}
