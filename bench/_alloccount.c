/* Counts the blocks CPython's allocators hand out, and where in the Python code each was asked for.

   bench/count_objects.py builds this file into a throwaway extension (gcc, CPython 3.11's headers) and runs it
   around the measured period of a simulation. start() wraps the object allocator (PyObject_Malloc and friends:
   objects, strings, dict keys) and the memory allocator (PyMem_Malloc: list and set buffers) with counting
   functions; each malloc or calloc call adds one to its domain's count and, when sites are wanted, one to the site
   of the Python frame running then (the innermost DEPTH frames' code objects and instruction offsets, read as
   tracemalloc reads them: without materialising frame objects, so the count is not disturbed). stop() puts the
   allocators back and returns the counts. Objects taken from CPython's free lists (small tuples, lists, dicts,
   floats) call no allocator and are not counted: they cost no allocation. */

#define PY_SSIZE_T_CLEAN
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4

typedef struct {
    PyCodeObject *code[MAX_DEPTH];
    int lasti[MAX_DEPTH];
    int domain; /* 0: object, 1: memory */
    unsigned long long count;
} Site;

static PyMemAllocatorEx saved_obj, saved_mem;
static int installed = 0;
static int depth = 0; /* 0: no sites */
static unsigned long long obj_allocs = 0, mem_allocs = 0, reallocs = 0, unattributed = 0;
static Site *sites = NULL;
static size_t sites_cap = 0, sites_len = 0;

static size_t site_hash(PyCodeObject **code, int *lasti, int domain) {
    size_t h = 1469598103934665603ULL ^ (size_t)domain;
    for (int i = 0; i < depth; i++) {
        h = (h ^ (size_t)code[i]) * 1099511628211ULL;
        h = (h ^ (size_t)(unsigned int)lasti[i]) * 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static Site *site_slot(Site *table, size_t cap, PyCodeObject **code, int *lasti, int domain) {
    size_t i = site_hash(code, lasti, domain) & (cap - 1);
    for (;;) {
        Site *s = &table[i];
        if (s->count == 0) return s;
        if (s->domain == domain && memcmp(s->code, code, sizeof(s->code)) == 0 &&
            memcmp(s->lasti, lasti, sizeof(s->lasti)) == 0)
            return s;
        i = (i + 1) & (cap - 1);
    }
}

static int sites_grow(void) {
    size_t cap = sites_cap ? sites_cap * 2 : 1 << 14;
    Site *table = calloc(cap, sizeof(Site)); /* libc's: never the allocators being counted */
    if (table == NULL) return -1;
    for (size_t i = 0; i < sites_cap; i++) {
        if (sites[i].count) *site_slot(table, cap, sites[i].code, sites[i].lasti, sites[i].domain) = sites[i];
    }
    free(sites);
    sites = table;
    sites_cap = cap;
    return 0;
}

static void record_site(int domain) {
    PyThreadState *tstate = PyGILState_GetThisThreadState();
    _PyInterpreterFrame *frame = (tstate && tstate->cframe) ? tstate->cframe->current_frame : NULL;
    PyCodeObject *code[MAX_DEPTH] = {0};
    int lasti[MAX_DEPTH] = {0};
    int n = 0;
    /* A frame not started yet (tracemalloc skips it) is charged too: its cells (MAKE_CELL, before RESUME) are
       the call's own allocations, not its caller's line's. stop() gives it line 0. */
    while (frame != NULL && n < depth) {
        code[n] = frame->f_code;
        lasti[n] = _PyFrame_IsIncomplete(frame) ? -1 : _PyInterpreterFrame_LASTI(frame);
        n++;
        frame = frame->previous;
    }
    if (n == 0) {
        unattributed++;
        return;
    }
    if ((sites_len + 1) * 2 > sites_cap && sites_grow() < 0) {
        unattributed++;
        return;
    }
    Site *s = site_slot(sites, sites_cap, code, lasti, domain);
    if (s->count == 0) {
        s->domain = domain;
        memcpy(s->code, code, sizeof(code));
        memcpy(s->lasti, lasti, sizeof(lasti));
        for (int i = 0; i < n; i++) Py_INCREF(code[i]); /* kept alive until stop() has read them */
        sites_len++;
    }
    s->count++;
}

static void *obj_malloc(void *ctx, size_t size) {
    obj_allocs++;
    if (depth) record_site(0);
    return saved_obj.malloc(saved_obj.ctx, size);
}

static void *obj_calloc(void *ctx, size_t nelem, size_t elsize) {
    obj_allocs++;
    if (depth) record_site(0);
    return saved_obj.calloc(saved_obj.ctx, nelem, elsize);
}

static void *obj_realloc(void *ctx, void *ptr, size_t size) {
    reallocs++;
    return saved_obj.realloc(saved_obj.ctx, ptr, size);
}

static void obj_free(void *ctx, void *ptr) { saved_obj.free(saved_obj.ctx, ptr); }

static void *mem_malloc(void *ctx, size_t size) {
    mem_allocs++;
    if (depth) record_site(1);
    return saved_mem.malloc(saved_mem.ctx, size);
}

static void *mem_calloc(void *ctx, size_t nelem, size_t elsize) {
    mem_allocs++;
    if (depth) record_site(1);
    return saved_mem.calloc(saved_mem.ctx, nelem, elsize);
}

static void *mem_realloc(void *ctx, void *ptr, size_t size) {
    reallocs++;
    return saved_mem.realloc(saved_mem.ctx, ptr, size);
}

static void mem_free(void *ctx, void *ptr) { saved_mem.free(saved_mem.ctx, ptr); }

static PyObject *start(PyObject *self, PyObject *args) {
    int d = 0;
    if (!PyArg_ParseTuple(args, "|i", &d)) return NULL;
    if (installed) {
        PyErr_SetString(PyExc_RuntimeError, "already counting");
        return NULL;
    }
    if (d < 0 || d > MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "depth must be 0 to %d, not %d", MAX_DEPTH, d);
        return NULL;
    }
    depth = d;
    obj_allocs = mem_allocs = reallocs = unattributed = 0;
    if (depth && sites == NULL && sites_grow() < 0) return PyErr_NoMemory();
    PyMemAllocatorEx obj = {NULL, obj_malloc, obj_calloc, obj_realloc, obj_free};
    PyMemAllocatorEx mem = {NULL, mem_malloc, mem_calloc, mem_realloc, mem_free};
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &saved_obj);
    PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &saved_mem);
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &obj);
    PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &mem);
    installed = 1;
    Py_RETURN_NONE;
}

/* stop() -> (object allocations, memory allocations, reallocations, unattributed,
              [(count, domain, ((code, line, instruction), ...)), ...]) with domain 0 for objects, 1 for buffers */
static PyObject *stop(PyObject *self, PyObject *unused) {
    if (!installed) {
        PyErr_SetString(PyExc_RuntimeError, "not counting");
        return NULL;
    }
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &saved_obj);
    PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &saved_mem);
    installed = 0;
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    for (size_t i = 0; i < sites_cap; i++) {
        Site *s = &sites[i];
        if (s->count == 0) continue;
        int n = 0;
        while (n < MAX_DEPTH && s->code[n] != NULL) n++;
        PyObject *frames = PyTuple_New(n);
        for (int j = 0; j < n && frames != NULL; j++) {
            int line = s->lasti[j] < 0 ? 0 : PyCode_Addr2Line(s->code[j], s->lasti[j] * (int)sizeof(_Py_CODEUNIT));
            PyObject *frame = Py_BuildValue("(Oii)", (PyObject *)s->code[j], line, s->lasti[j]);
            if (frame == NULL) {
                Py_CLEAR(frames);
                break;
            }
            PyTuple_SET_ITEM(frames, j, frame);
        }
        PyObject *item = frames ? Py_BuildValue("(KiN)", s->count, s->domain, frames) : NULL;
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    for (size_t i = 0; i < sites_cap; i++) {
        for (int j = 0; j < MAX_DEPTH; j++) Py_XDECREF(sites[i].code[j]);
    }
    free(sites);
    sites = NULL;
    sites_cap = sites_len = 0;
    return Py_BuildValue("(KKKKN)", obj_allocs, mem_allocs, reallocs, unattributed, list);
}

static PyMethodDef methods[] = {
    {"start", start, METH_VARARGS, "start([depth]): count allocations (and their sites, depth frames deep)"},
    {"stop", stop, METH_NOARGS, "stop(): put the allocators back and return the counts"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_alloccount", NULL, -1, methods};

PyMODINIT_FUNC PyInit__alloccount(void) { return PyModule_Create(&module); }
