/* What the native kernels' files share: the headers, the processor clones' target, bit casts, the
 * buffer checks and each file's table of functions (module.c makes them one module, _native). */
#ifndef GRADCALC_NATIVE_H
#define GRADCALC_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FMA_TARGET __attribute__((target("avx2,fma")))
#define HAS_FMA_CLONE 1
#else
#define FMA_TARGET
#define HAS_FMA_CLONE 0
#endif

#if HAS_FMA_CLONE
/* Whether this processor runs the clones compiled for FMA_TARGET (both of its instruction sets). */
static inline int fma_clone_runs(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
/* CLONE(...) where this processor runs it, else GENERIC(...) (void functions of one signature). */
#define CALL_CLONED(CLONE, GENERIC, ...) (fma_clone_runs() ? CLONE(__VA_ARGS__) : GENERIC(__VA_ARGS__))
#else
#define CALL_CLONED(CLONE, GENERIC, ...) GENERIC(__VA_ARGS__)
#endif

static inline float bits_to_float(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
static inline uint32_t float_to_bits(float f) { uint32_t bits; memcpy(&bits, &f, 4); return bits; }

/* A buffer of `format` ("f" or "d"), C-contiguous; writable when asked. */
int get_buffer(PyObject *object, Py_buffer *view, const char *format, int writable);
/* An input and an output buffer of one format (the output writable); -1, nothing held, on error. */
int get_in_out(PyObject *source, PyObject *target, const char *format, Py_buffer *in, Py_buffer *out);
/* `count` float32 buffers, the last one writable (the output); -1, nothing held, on error. */
int get_float32_buffers(PyObject *const *objects, Py_buffer *views, int count);
/* A C-contiguous int64 buffer of `count` values (any count when negative); -1, nothing held, on error. */
int get_int64s(PyObject *object, Py_buffer *view, Py_ssize_t count);
/* A C-contiguous buffer of `format` (read only) holding at least `count` values (a class weight
 * for each class); -1, nothing held, on error. */
int get_at_least(PyObject *object, Py_buffer *view, const char *format, Py_ssize_t count);
/* 0 for a register's lanes (a power of two up to 16), else -1 with a ValueError set. */
int check_width(Py_ssize_t width);
/* Releases `count` buffers; then None, or NULL with the error set. */
PyObject *finish(Py_buffer *views, int count);

extern PyMethodDef sleef_methods[], sums_methods[], cascade_methods[], arithmetic_methods[], storage_methods[],
    heap_methods[], indexing_methods[], convolution_methods[], graph_methods[], engine_methods[],
    dispatch_methods[], operators_methods[], random_methods[], guard_methods[];
/* at::vec's reduce_all over each of `rows` rows of `size` values, `width` lanes (sums.c). */
void lane_sum_float32(const float *values, float *out, Py_ssize_t rows, Py_ssize_t size, Py_ssize_t width);
void lane_sum_float64(const double *values, double *out, Py_ssize_t rows, Py_ssize_t size, Py_ssize_t width);
/* heap.c's interned name; -1 with an error set when it cannot be made. */
int heap_init(void);
/* dispatch.c's type _Call added to the module; -1 with an error set. */
int dispatch_init(PyObject *module);
/* The ready queue's push (0, -1 with an error set) and pop (the node, NULL with an error set). */
int heap_push_node(PyObject *heap, PyObject *node);
PyObject *heap_pop_node(PyObject *heap);

#endif
