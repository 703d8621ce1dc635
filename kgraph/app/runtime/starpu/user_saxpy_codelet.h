/* The walk-through's user kernel (user_saxpy.cl: y = a x + y) as a StarPU codelet, shared by user_codelet.c
 * (static kgraph model) and adaptive_codelet.c (adaptive model): the codelet, its OpenCL implementation, and
 * the launch function that tells kgraph which NDRange and scalar arguments a task launches. The program
 * that uses it loads user_saxpy_program (starpu_opencl_load_opencl_from_file) and initialises
 * user_saxpy_model (kgraph_starpu_model_init[_adaptive](&user_saxpy_model, "user_saxpy", user_saxpy_launch)).
 */
#ifndef KGRAPH_USER_SAXPY_CODELET_H
#define KGRAPH_USER_SAXPY_CODELET_H
#include "kgraph_starpu.h"
#include <starpu.h>
#include <starpu_opencl.h>

#define USER_SAXPY_LOCAL_SIZE 64

struct saxpy_arg {
  float a;
};

extern struct starpu_opencl_program user_saxpy_program;
extern struct starpu_perfmodel user_saxpy_model;
/* buffers: x (R), y (RW), vectors of float; cl_arg: struct saxpy_arg; OpenCL implementation only */
extern struct starpu_codelet user_saxpy_codelet;

/* The NDRange the OpenCL implementation launches for n elements: what kgraph is asked about too. */
void user_saxpy_ndrange(unsigned n, size_t *global, size_t *local);
/* Task -> the launch kgraph predicts: NDRange and the scalar arguments in parameter order (n, a). */
void user_saxpy_launch(struct starpu_task *task, kgraph_launch *launch);

#endif
