/* test_run.c - the warm-up runner (deadline, signals, bounded capture) and the built-in GEMM warm-up. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/bench.h"
#include "gpuaudit/run.h"
#include "gpuaudit/warmup.h"

static struct ga_ctx *ctx;

static int setup(void **state)
{
	(void)state;
	return ga_ctx_new(&ctx);
}

static int teardown(void **state)
{
	(void)state;
	ga_ctx_free(ctx);
	return 0;
}

static void run(char *const *argv, bool shell, double timeout_s, size_t head, size_t tail,
                struct ga_run_result *r)
{
	struct ga_run_opts o = { .argv = argv,
		                 .shell = shell,
		                 .timeout_s = timeout_s,
		                 .kill_grace_s = 0.3,
		                 .head_bytes = head,
		                 .tail_bytes = tail };
	assert_int_equal(ga_run(ctx, &o, r), 0);
}

static void test_exit_status(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *ok[] = { "echo", "hello", NULL };
	run(ok, false, 10, 0, 0, &r);
	assert_true(ga_run_ok(&r));
	assert_string_equal(r.out.head, "hello\n");
	assert_int_equal(r.out.total_bytes, 6);
	assert_int_equal(r.err.total_bytes, 0);
	assert_true(r.wall_s > 0 && r.wall_s < 5);
	ga_run_result_release(&r);

	/* no shell: the words are arguments, not shell syntax */
	char *literal[] = { "echo", "$HOME;", "exit", "3", NULL };
	run(literal, false, 10, 0, 0, &r);
	assert_string_equal(r.out.head, "$HOME; exit 3\n");
	ga_run_result_release(&r);

	char *fail[] = { "echo oops >&2;", "exit 3", NULL };
	run(fail, true, 10, 0, 0, &r);
	assert_false(ga_run_ok(&r));
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.err.head, "oops\n");
	char how[128];
	ga_run_describe(&r, how, sizeof(how));
	assert_string_equal(how, "exit status 3");
	ga_run_result_release(&r);

	/* stdin is /dev/null: cat ends at once */
	char *cat[] = { "cat", NULL };
	run(cat, false, 5, 0, 0, &r);
	assert_true(ga_run_ok(&r));
	assert_int_equal(r.out.total_bytes, 0);
	ga_run_result_release(&r);
}

static void test_not_found(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *argv[] = { "gpuaudit-no-such-command-xyz", NULL };
	run(argv, false, 5, 0, 0, &r);
	assert_int_equal(r.spawn_error, ENOENT);
	assert_false(ga_run_ok(&r));
	char how[128];
	ga_run_describe(&r, how, sizeof(how));
	assert_string_equal(how, "not started: command not found");
	ga_run_result_release(&r);
	struct ga_run_opts none = { 0 };
	assert_int_equal(ga_run(ctx, &none, &r), -EINVAL);
}

static void test_timeout(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *argv[] = { "sleep", "20", NULL };
	run(argv, false, 0.2, 0, 0, &r);
	assert_true(r.timed_out);
	assert_false(r.killed);
	assert_true(r.signaled);
	assert_int_equal(r.signal, SIGTERM);
	assert_true(r.wall_s >= 0.2 && r.wall_s < 3);
	ga_run_result_release(&r);

	/* SIGTERM ignored: SIGKILL after the grace period */
	char *stubborn[] = { "trap '' TERM; sleep 20", NULL };
	run(stubborn, true, 0.2, 0, 0, &r);
	assert_true(r.timed_out);
	assert_true(r.killed);
	assert_true(r.signaled);
	assert_int_equal(r.signal, SIGKILL);
	assert_true(r.wall_s >= 0.5 && r.wall_s < 3);
	ga_run_result_release(&r);
}

static void test_signal(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *argv[] = { "kill -SEGV $$", NULL };
	run(argv, true, 5, 0, 0, &r);
	assert_true(r.signaled);
	assert_int_equal(r.signal, SIGSEGV);
	assert_false(r.timed_out);
	char how[128];
	ga_run_describe(&r, how, sizeof(how));
	assert_string_equal(how, "killed by signal SIGSEGV (11)");
	ga_run_result_release(&r);
}

/* A background child that keeps the pipe open does not hold the runner. */
static void test_background_child(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *argv[] = { "sleep 20 & echo started", NULL };
	run(argv, true, 10, 0, 0, &r);
	assert_true(ga_run_ok(&r));
	assert_string_equal(r.out.head, "started\n");
	assert_true(r.wall_s < 3);
	ga_run_result_release(&r);
}

static void test_capture_bounds(void **state)
{
	(void)state;
	struct ga_run_result r;
	char *small[] = { "printf", "0123456789abcdefghijklmnopqrstuvwxyz", NULL };
	run(small, false, 5, 10, 10, &r);
	assert_string_equal(r.out.head, "0123456789");
	assert_string_equal(r.out.tail, "qrstuvwxyz");
	assert_int_equal(r.out.total_bytes, 36);
	assert_int_equal(r.out.omitted_bytes, 16);
	ga_run_result_release(&r);

	/* fits in head + tail: nothing omitted, tail is the rest */
	char *fits[] = { "printf", "0123456789abc", NULL };
	run(fits, false, 5, 10, 10, &r);
	assert_string_equal(r.out.head, "0123456789");
	assert_string_equal(r.out.tail, "abc");
	assert_int_equal(r.out.omitted_bytes, 0);
	ga_run_result_release(&r);

	/* megabytes through the default buffers: counted, ends kept */
	char *big[] = { "seq", "1", "1000000", NULL };
	run(big, false, 30, 0, 0, &r);
	assert_true(ga_run_ok(&r));
	assert_int_equal(r.out.total_bytes, 6888896);
	assert_int_equal(r.out.head_len, GA_RUN_HEAD_BYTES);
	assert_int_equal(r.out.tail_len, GA_RUN_TAIL_BYTES);
	assert_memory_equal(r.out.head, "1\n2\n3\n", 6);
	assert_string_equal(r.out.tail + r.out.tail_len - 15, "999999\n1000000\n");
	assert_int_equal(r.out.omitted_bytes, 6888896 - GA_RUN_HEAD_BYTES - GA_RUN_TAIL_BYTES);
	ga_run_result_release(&r);
}

static void test_gemm(void **state)
{
	(void)state;
	struct ga_warmup_result w;
	assert_int_equal(ga_warmup_gemm("cpu", 64, 3, 7, &w), 0);
	assert_true(w.ran);
	assert_true(w.passed);
	assert_string_equal(w.backend, "cpu");
	assert_int_equal(w.n, 64);
	assert_int_equal(w.n_warm, 3);
	assert_true(w.max_rel_err > 0 && w.max_rel_err < w.tolerance);
	assert_int_equal(ga_warmup_gemm("cpu", 64, 17, 7, &w), -EINVAL);

	/* the plain C backend agrees with a hand-computed product */
	float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, c[4];
	char why[64];
	assert_int_equal(ga_gemm_once(&ga_gemm_cpu, 2, a, b, c, why, sizeof(why)), 0);
	assert_true(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50);
	assert_int_equal(ga_warmup_gemm("nosuch", 64, 0, 7, &w), -EINVAL);

	/* a bench backend keeps its session open across warm runs, and the last warm product is checked */
	assert_int_equal(ga_warmup_gemm("cblas", 64, 4, 7, &w), 0);
	if (w.ran) {
		assert_string_equal(w.backend, "cblas");
		assert_true(w.passed);
		assert_int_equal(w.n_warm, 4);
		assert_true(w.max_rel_err < w.tolerance);
	} else {
		/* no CPU BLAS on this machine: the reason is given, nothing ran */
		assert_non_null(strstr(w.skipped, "cblas"));
	}
}

/* The warm-up asks the one backend registry; its capability bits match the ops each backend fills. */
static void test_registry(void **state)
{
	(void)state;
	size_t n = 0;
	for (const struct ga_bench_entry *e = ga_bench_registry; e->backend; e++, n++) {
		const struct ga_bench_backend *b = e->backend;
		assert_ptr_equal(ga_bench_entry_of(b), e);
		assert_int_equal(!!(e->caps & GA_BENCH_CAP_GEMM), b->gemm_setup != NULL);
		assert_int_equal(!!(e->caps & GA_BENCH_CAP_STREAM), b->stream_setup != NULL);
		assert_int_equal(!!(e->caps & GA_BENCH_CAP_TRANSFER), b->xfer_setup != NULL);
		assert_int_equal(!!(e->caps & GA_BENCH_CAP_PEER), b->peer_setup != NULL);
		/* the warm-up is a GEMM */
		if (e->caps & GA_BENCH_CAP_WARMUP)
			assert_true(e->caps & GA_BENCH_CAP_GEMM);
		assert_int_equal(ga_warmup_backend_known(b->name), !!(e->caps & GA_BENCH_CAP_WARMUP));
	}
	assert_int_equal(n, 5);
	assert_null(ga_bench_entry_of(NULL));
	assert_true(ga_warmup_backend_known("auto"));
	assert_true(ga_warmup_backend_known("cpu"));
	assert_false(ga_warmup_backend_known("clblast"));
	assert_false(ga_warmup_backend_known("nosuch"));
	/* the warm-up order is the registry's: cuda, hip, opencl, cblas (then cpu) */
	const char *want[] = { "cuda", "hip", "opencl", "cblas" };
	size_t k = 0;
	for (const struct ga_bench_entry *e = ga_bench_registry; e->backend; e++)
		if (e->caps & GA_BENCH_CAP_WARMUP)
			assert_string_equal(e->backend->name, want[k++]);
	assert_int_equal(k, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_background_child),
		cmocka_unit_test(test_capture_bounds),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_registry),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
