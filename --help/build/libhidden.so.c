int cudaGetDeviceCount(int *);
int hidden_count(void) { int n = 0; cudaGetDeviceCount(&n); return n; }
