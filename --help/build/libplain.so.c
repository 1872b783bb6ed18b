int plain(void) { return 42; }
