/* The user_saxpy codelet shared by the walk-through programs (see user_saxpy_codelet.h). */
#include "user_saxpy_codelet.h"

struct starpu_opencl_program user_saxpy_program;
struct starpu_perfmodel user_saxpy_model;

void user_saxpy_ndrange(unsigned n, size_t *global, size_t *local) {
  *local = USER_SAXPY_LOCAL_SIZE;
  *global = (n + USER_SAXPY_LOCAL_SIZE - 1) / USER_SAXPY_LOCAL_SIZE * USER_SAXPY_LOCAL_SIZE;
}

void user_saxpy_launch(struct starpu_task *task, kgraph_launch *launch) {
  const struct saxpy_arg *arg = task->cl_arg;
  unsigned n = starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, 0));
  size_t global, local;
  user_saxpy_ndrange(n, &global, &local);
  launch->dims = 1;
  launch->global[0] = (double)global;
  launch->local[0] = (double)local;
  launch->args[0] = n;
  launch->args[1] = arg->a;
  launch->n_args = 2;
}

static void saxpy_opencl(void *buffers[], void *cl_arg) {
  const struct saxpy_arg *arg = cl_arg;
  cl_int n = (cl_int)STARPU_VECTOR_GET_NX(buffers[0]), err;
  cl_mem x = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]), y = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[1]);
  cl_kernel kernel;
  cl_command_queue queue;
  size_t global, local;
  err = starpu_opencl_load_kernel(&kernel, &queue, &user_saxpy_program, "user_saxpy",
                                  starpu_worker_get_devid(starpu_worker_get_id()));
  if (err != CL_SUCCESS) STARPU_OPENCL_REPORT_ERROR(err);
  err = clSetKernelArg(kernel, 0, sizeof n, &n);
  err |= clSetKernelArg(kernel, 1, sizeof arg->a, &arg->a);
  err |= clSetKernelArg(kernel, 2, sizeof x, &x);
  err |= clSetKernelArg(kernel, 3, sizeof y, &y);
  if (err != CL_SUCCESS) STARPU_OPENCL_REPORT_ERROR(err);
  user_saxpy_ndrange((unsigned)n, &global, &local);
  err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  if (err != CL_SUCCESS) STARPU_OPENCL_REPORT_ERROR(err);
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
}

struct starpu_codelet user_saxpy_codelet = {
  .opencl_funcs = {saxpy_opencl}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .name = "user_saxpy",
  .model = &user_saxpy_model,
};
