/* backend-cuda.h - what backend-nccl.c needs from the CUDA backend's state (lib/bench/backend-cuda.c). */
#ifndef GA_BENCH_BACKEND_CUDA_H
#define GA_BENCH_BACKEND_CUDA_H

#include "../dl/cuda_types.h"
#include "gpuaudit/core.h"

struct cuda;
size_t ga_cuda_devices(struct cuda *c);
/* Make device dev's primary context current. 0 or -EIO. */
int ga_cuda_use(struct cuda *c, size_t dev);
int ga_cuda_alloc(struct cuda *c, size_t dev, size_t bytes, ga_CUdeviceptr *ret);
void ga_cuda_free(struct cuda *c, size_t dev, ga_CUdeviceptr p);
int ga_cuda_upload(struct cuda *c, size_t dev, ga_CUdeviceptr dst, const void *src, size_t bytes);
int ga_cuda_download(struct cuda *c, size_t dev, void *dst, ga_CUdeviceptr src, size_t bytes);
int ga_cuda_sync(struct cuda *c, size_t dev);
/* The stream kernels' PTX (for the ptxas check in the tests). */
extern const char ga_cuda_stream_ptx[];

#endif
