int fake_libcuda(void) { return 1; }
