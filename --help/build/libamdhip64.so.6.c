int fake_libamdhip64(void) { return 1; }
