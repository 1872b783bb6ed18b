int cublasCreate_v2(void *);
int cudaGetDeviceCount(int *);
int t(void) { int n; cublasCreate_v2(0); return cudaGetDeviceCount(&n); }
