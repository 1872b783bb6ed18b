int fake_libcudart(void) { return 1; }
