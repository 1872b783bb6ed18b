int fake_libcublas(void) { return 1; }
