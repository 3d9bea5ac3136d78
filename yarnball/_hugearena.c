/* Huge-page arenas for CPython's small-object allocator (pymalloc), for the process of a large simulation.
 *
 * A busy 10,000-node run keeps ~1 GB of small Python objects (nodes, containers, asks, messages) and touches them
 * all over: much of its time goes to TLB misses on 4 KiB pages. pymalloc takes its memory in 1 MiB arenas from
 * mmap; this allocator (PyObject_SetArenaAllocator, the documented hook for it:
 * https://docs.python.org/3/c-api/memory.html#customize-pymalloc-arena-allocator) carves them out of 64 MiB
 * chunks aligned to 2 MiB and marked MADV_HUGEPAGE, so that the kernel's transparent huge pages (the usual
 * "madvise" setting) back them with 2 MiB pages. Nothing else changes: the objects, their order and every output
 * are the same (launcher/_memory.py; bench/RESULTS.md has the speed-up).
 *
 * Freed arenas are kept for reuse, not unmapped (a run frees almost none: 0 of 658 at 10,000 busy nodes), and the
 * allocator stays for the life of the process. Arenas allocated before install() keep their allocator's memory:
 * a slot freed here is reused whoever allocated it (all arenas have one size), never unmapped.
 * Without MADV_HUGEPAGE (not Linux) install() changes nothing and returns False. Called with the GIL held, as
 * pymalloc always is.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <sys/mman.h>

#define CHUNK_BYTES ((size_t)64 << 20)
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

static PyObjectArenaAllocator previous;
static int installed = 0;
static size_t arena_bytes = 0; /* the size of the first arena asked for: pymalloc's ARENA_SIZE */
static char *chunk_next = NULL;
static char *chunk_end = NULL;
static void *free_slots = NULL; /* freed arenas, linked through their first word */
static Py_ssize_t arenas = 0;   /* arenas handed out from huge-page chunks */

#ifdef MADV_HUGEPAGE
static int new_chunk(void) {
    size_t span = CHUNK_BYTES + HUGE_PAGE_BYTES;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        return 0;
    }
    char *start = (char *)(((uintptr_t)raw + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1));
    char *end = start + CHUNK_BYTES;
    if (start > raw) {
        munmap(raw, (size_t)(start - raw));
    }
    if (raw + span > end) {
        munmap(end, (size_t)(raw + span - end));
    }
    madvise(start, CHUNK_BYTES, MADV_HUGEPAGE); /* advice: without THP the pages are ordinary ones */
    chunk_next = start;
    chunk_end = end;
    return 1;
}

static void *huge_alloc(void *ctx, size_t size) {
    (void)ctx;
    if (arena_bytes == 0) {
        arena_bytes = size;
    }
    if (size != arena_bytes || size > CHUNK_BYTES) {
        return previous.alloc(previous.ctx, size);
    }
    if (free_slots != NULL) {
        void *slot = free_slots;
        free_slots = *(void **)slot;
        return slot;
    }
    if ((chunk_next == NULL || (size_t)(chunk_end - chunk_next) < size) && !new_chunk()) {
        return previous.alloc(previous.ctx, size);
    }
    void *slot = chunk_next;
    chunk_next += size;
    arenas++;
    return slot;
}

static void huge_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    if (size != arena_bytes) {
        previous.free(previous.ctx, ptr, size);
        return;
    }
    *(void **)ptr = free_slots;
    free_slots = ptr;
}
#endif

static PyObject *install(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
#ifdef MADV_HUGEPAGE
    if (!installed) {
        PyObjectArenaAllocator mine = {NULL, huge_alloc, huge_free};
        PyObject_GetArenaAllocator(&previous);
        PyObject_SetArenaAllocator(&mine);
        installed = 1;
    }
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

static PyObject *is_installed(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyBool_FromLong(installed);
}

static PyObject *arena_count(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromSsize_t(arenas);
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS,
     "Take pymalloc's arenas from 2 MiB-aligned MADV_HUGEPAGE chunks from now on (once per process); True when "
     "active, False where the platform has no MADV_HUGEPAGE."},
    {"installed", is_installed, METH_NOARGS, "Whether install() is in effect."},
    {"arenas", arena_count, METH_NOARGS, "How many arenas came from huge-page chunks."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "yarnball._hugearena", "Huge-page arenas for pymalloc (see the source's comment).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__hugearena(void) { return PyModule_Create(&module_def); }
