/*
 * test_fs.c - the root-relative reader on a hostile tree: FIFOs, loops,
 * directories, oversized files, symlinks that try to leave the root,
 * device files and unreadable files; plus listing, links and normalisation.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/fs.h"

struct fx {
	char root[64];
	struct ga_ctx *ctx;
};

static void put_file(const struct fx *f, const char *rel, const char *text, mode_t mode)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	size_t n = strlen(text);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	assert_int_equal(chmod(p, mode), 0);
}

static void put_dir(const struct fx *f, const char *rel)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void put_link(const struct fx *f, const char *rel, const char *target)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->root, sizeof(f->root), "/tmp/ga-test-fs-XXXXXX");
	assert_non_null(mkdtemp(f->root));
	assert_int_equal(chmod(f->root, 0755), 0);
	put_file(f, "normal", "hello\nworld\n", 0644);
	put_file(f, "nonl", "no newline", 0644);
	put_file(f, "empty", "", 0644);
	put_file(f, "attr", " \t 0x10de \n\n", 0644);
	put_file(f, "secret", "top secret\n", 0600);
	char big[5000];
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put_file(f, "big", big, 0644);
	char p[256];
	snprintf(p, sizeof(p), "%s/fifo", f->root);
	assert_int_equal(mkfifo(p, 0644), 0);
	put_link(f, "loop_a", "loop_b");
	put_link(f, "loop_b", "loop_a");
	put_dir(f, "dir");
	put_file(f, "dir/z", "", 0644);
	put_file(f, "dir/a", "", 0644);
	put_file(f, "dir/m", "", 0644);
	put_dir(f, "dir/sub");
	put_dir(f, "etc");
	put_file(f, "etc/target", "inside the root\n", 0644);
	put_link(f, "abs", "/etc/target");
	put_link(f, "escape", "../../../../../../etc/target");
	put_link(f, "dangling", "nowhere");
	/* sysfs style: a device link into the devices tree */
	put_dir(f, "sys");
	put_dir(f, "sys/devices");
	put_dir(f, "sys/devices/pci0000:00");
	put_dir(f, "sys/devices/pci0000:00/0000:00:01.0");
	put_dir(f, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	put_dir(f, "sys/bus");
	put_dir(f, "sys/bus/pci");
	put_dir(f, "sys/bus/pci/devices");
	put_link(f, "sys/bus/pci/devices/0000:01:00.0",
	         "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	put_link(f, "hop1", "sys/bus/pci/devices/0000:01:00.0");
	put_link(f, "hopabs", "/hop1");
	assert_int_equal(ga_ctx_new(&f->ctx), 0);
	assert_int_equal(ga_ctx_set_root(f->ctx, f->root), 0);
	*state = f;
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	ga_ctx_free(f->ctx);
	nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Read path; return the error and, on success, the text in *ret (caller frees). */
static int rd(struct fx *f, const char *path, size_t max, char **ret)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(f->ctx, path, max, &b);
	if (r == 0) {
		assert_non_null(b.data);
		assert_int_equal(strlen(b.data), b.len);
		*ret = ga_buf_detach(&b, NULL);
	} else {
		/* a failed read leaves the buffer as it was */
		assert_int_equal(b.len, 0);
		ga_buf_release(&b);
	}
	return r;
}

/* openat2(RESOLVE_IN_ROOT) is what keeps absolute and ".." links inside the root. */
static bool have_in_root(struct fx *f)
{
	char *s = NULL;
	int r = rd(f, "abs", 0, &s);
	ga_free(s);
	return r == 0;
}

static void test_regular(void **state)
{
	struct fx *f = *state;
	char *s = NULL;
	assert_int_equal(rd(f, "normal", 0, &s), 0);
	assert_string_equal(s, "hello\nworld\n");
	ga_free(s);
	assert_int_equal(rd(f, "/nonl", 0, &s), 0); /* leading '/' is relative to the root */
	assert_string_equal(s, "no newline");
	ga_free(s);
	assert_int_equal(rd(f, "empty", 0, &s), 0);
	assert_string_equal(s, "");
	ga_free(s);
	/* appends to what the buffer holds */
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_buf_adds(&b, ">"), 0);
	assert_int_equal(ga_fs_read(f->ctx, "nonl", 0, &b), 0);
	assert_string_equal(b.data, ">no newline");
	/* and a failure keeps it */
	assert_int_equal(ga_fs_read(f->ctx, "big", 10, &b), -EFBIG);
	assert_string_equal(b.data, ">no newline");
	ga_buf_release(&b);
}

static void test_refused(void **state)
{
	struct fx *f = *state;
	char *s = NULL;
	time_t t0 = time(NULL);
	assert_int_equal(rd(f, "fifo", 0, &s), -EINVAL);
	assert_true(time(NULL) - t0 < 3); /* did not block on the FIFO */
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "fifo"));
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "not a regular file"));
	assert_int_equal(rd(f, "loop_a", 0, &s), -ELOOP);
	assert_string_equal(ga_fs_reason(-ELOOP), "symlink loop");
	assert_int_equal(rd(f, "dir", 0, &s), -EISDIR);
	assert_int_equal(rd(f, "missing", 0, &s), -ENOENT);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "missing"));
	assert_int_equal(rd(f, "dangling", 0, &s), -ENOENT);
	assert_int_equal(rd(f, "normal/x", 0, &s), -ENOTDIR);
	/* size caps: the given max, then the context's */
	assert_int_equal(rd(f, "big", 4998, &s), -EFBIG);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "larger than 4998"));
	assert_int_equal(rd(f, "big", 4999, &s), 0);
	assert_int_equal(strlen(s), 4999);
	ga_free(s);
	ga_ctx_set_max_file(f->ctx, 100);
	assert_int_equal(ga_ctx_max_file(f->ctx), 100);
	assert_int_equal(rd(f, "big", 0, &s), -EFBIG);
	ga_ctx_set_max_file(f->ctx, 16u << 20);
}

static void test_stays_in_root(void **state)
{
	struct fx *f = *state;
	if (!have_in_root(f)) {
		print_message(
		        "no openat2(RESOLVE_IN_ROOT) here: absolute links are not confined; skipping\n");
		skip(); /* old kernel or seccomp without openat2: absolute links are not confined */
		return;
	}
	char *s = NULL;
	assert_int_equal(rd(f, "abs", 0, &s), 0);
	assert_string_equal(s, "inside the root\n");
	ga_free(s);
	assert_int_equal(rd(f, "escape", 0, &s), 0);
	assert_string_equal(s, "inside the root\n");
	ga_free(s);
	assert_int_equal(rd(f, "../../../../etc/target", 0, &s), 0);
	assert_string_equal(s, "inside the root\n");
	ga_free(s);
}

static void test_device_file(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	assert_string_equal(ga_ctx_root(ctx), "/");
	struct ga_buf b;
	ga_buf_init(&b, 0);
	assert_int_equal(ga_fs_read(ctx, "dev/null", 0, &b), -EINVAL);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "not a regular file"));
	assert_int_equal(ga_fs_read(ctx, "/dev/zero", 0, &b), -EINVAL);
	assert_null(b.data);
	/* set_root: errors leave the old root in place */
	assert_int_equal(ga_ctx_set_root(ctx, ""), -EINVAL);
	assert_int_equal(ga_ctx_set_root(ctx, "/nonexistent-ga-root"), -ENOENT);
	assert_string_equal(ga_ctx_root(ctx), "/");
	ga_ctx_free(ctx);
	ga_ctx_free(NULL);
}

static void test_read_attr(void **state)
{
	struct fx *f = *state;
	char *s = NULL;
	assert_int_equal(ga_fs_read_attr(f->ctx, "attr", &s), 0);
	assert_string_equal(s, "0x10de");
	ga_free(s);
	assert_int_equal(ga_fs_read_attr(f->ctx, "empty", &s), 0);
	assert_string_equal(s, "");
	ga_free(s);
	s = NULL;
	assert_int_equal(ga_fs_read_attr(f->ctx, "missing", &s), -ENOENT);
	assert_null(s);
	assert_int_equal(ga_fs_read_attr(f->ctx, "fifo", &s), -EINVAL);
	assert_null(s);
}

static void test_list(void **state)
{
	struct fx *f = *state;
	char **v = NULL;
	size_t n = 0;
	assert_int_equal(ga_fs_list(f->ctx, "dir", &v, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "m");
	assert_string_equal(v[2], "sub");
	assert_string_equal(v[3], "z");
	assert_null(v[4]);
	ga_strv_free(v);
	assert_int_equal(ga_fs_list(f->ctx, "dir/sub", &v, NULL), 0);
	assert_null(v[0]);
	ga_strv_free(v);
	assert_int_equal(ga_fs_list(f->ctx, "missing", &v, &n), -ENOENT);
	assert_int_equal(ga_fs_list(f->ctx, "normal", &v, &n), -ENOTDIR);
	/* the root itself, through "" and "/" */
	assert_int_equal(ga_fs_list(f->ctx, "/", &v, &n), 0);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(v[i], ".");
		assert_string_not_equal(v[i], "..");
		if (i)
			assert_true(strcmp(v[i - 1], v[i]) < 0);
	}
	ga_strv_free(v);
	ga_strv_free(NULL);
}

static void test_links(void **state)
{
	struct fx *f = *state;
	char *s = NULL;
	assert_int_equal(ga_fs_readlink(f->ctx, "abs", &s), 0);
	assert_string_equal(s, "/etc/target");
	ga_free(s);
	assert_int_equal(ga_fs_readlink(f->ctx, "sys/bus/pci/devices/0000:01:00.0", &s), 0);
	assert_string_equal(s, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	ga_free(s);
	assert_int_equal(ga_fs_readlink(f->ctx, "normal", &s), -EINVAL);
	assert_int_equal(ga_fs_readlink(f->ctx, "missing", &s), -ENOENT);

	assert_int_equal(ga_fs_resolve_link(f->ctx, "sys/bus/pci/devices/0000:01:00.0", &s), 0);
	assert_string_equal(s, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	ga_free(s);
	/* a chain: relative, then absolute (inside the root), then relative */
	assert_int_equal(ga_fs_resolve_link(f->ctx, "/hopabs", &s), 0);
	assert_string_equal(s, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	ga_free(s);
	/* not a link: the normalised path itself */
	assert_int_equal(ga_fs_resolve_link(f->ctx, "dir/./sub/", &s), 0);
	assert_string_equal(s, "dir/sub");
	ga_free(s);
	assert_int_equal(ga_fs_resolve_link(f->ctx, "escape", &s), 0);
	assert_string_equal(s, "etc/target");
	ga_free(s);
	s = NULL;
	assert_int_equal(ga_fs_resolve_link(f->ctx, "loop_a", &s), -ELOOP);
	assert_int_equal(ga_fs_resolve_link(f->ctx, "missing", &s), -ENOENT);
	assert_null(s);

	assert_true(ga_fs_exists(f->ctx, "dangling")); /* the link itself exists */
	assert_true(ga_fs_exists(f->ctx, "fifo"));
	assert_false(ga_fs_exists(f->ctx, "missing"));
	assert_true(ga_fs_is_dir(f->ctx, "dir"));
	assert_true(ga_fs_is_dir(f->ctx, "sys/bus/pci/devices/0000:01:00.0"));
	assert_false(ga_fs_is_dir(f->ctx, "normal"));
	assert_false(ga_fs_is_dir(f->ctx, "loop_a"));
}

static void test_normalize(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "a/./b/../c", "a/c" },
		{ "../x", "x" },
		{ "a//b/", "a/b" },
		{ "/abs/path", "abs/path" },
		{ "", "" },
		{ ".", "" },
		{ "..", "" },
		{ "a/..", "" },
		{ "a/../..", "" },
		{ "a/b/../../..", "" },
		{ "../../a/b", "a/b" },
		{ "...", "..." },
		{ "a/..b/.c", "a/..b/.c" },
		{ "x/y/z/../../w", "x/w" },
		{ "//", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = ga_path_normalize(cases[i][0]);
		assert_non_null(s);
		if (strcmp(s, cases[i][1]) != 0)
			fail_msg("normalize(\"%s\") = \"%s\", want \"%s\"", cases[i][0], s, cases[i][1]);
		ga_free(s);
	}
	ga_alloc_fail_after(0);
	char *s = ga_path_normalize("a/b");
	ga_alloc_fail_after(-1);
	assert_null(s);
}

static void test_reasons(void **state)
{
	(void)state;
	assert_string_equal(ga_fs_reason(-ENOENT), "missing");
	assert_string_equal(ga_fs_reason(-EACCES), "permission denied");
	assert_string_equal(ga_fs_reason(-EPERM), "permission denied");
	assert_string_equal(ga_fs_reason(-EINVAL), "not a regular file");
	assert_string_equal(ga_fs_reason(-EFBIG), "too large");
	assert_string_equal(ga_fs_reason(-EISDIR), "is a directory");
	assert_string_equal(ga_fs_reason(-EIO), "read error");
}

/* Child with dropped privileges: exit 0 when the read was refused as expected. */
static int child_read_secret(struct fx *f)
{
	if (setgroups(0, NULL) < 0 && geteuid() == 0)
		return 10;
	if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		return 10;
	struct ga_buf b;
	ga_buf_init(&b, 0);
	int r = ga_fs_read(f->ctx, "secret", 0, &b);
	if (r != -EACCES)
		return 1;
	if (strcmp(ga_fs_reason(r), "permission denied") != 0)
		return 2;
	if (!strstr(ga_ctx_errmsg(f->ctx), "secret") || !strstr(ga_ctx_errmsg(f->ctx), "permission"))
		return 3;
	if (b.len != 0)
		return 4;
	char *s = NULL;
	if (ga_fs_read_attr(f->ctx, "secret", &s) != -EACCES)
		return 5;
	/* what is readable still is */
	if (ga_fs_read(f->ctx, "normal", 0, &b) != 0 || strcmp(b.data, "hello\nworld\n") != 0)
		return 6;
	ga_buf_release(&b);
	return 0;
}

static void test_permission_denied(void **state)
{
	struct fx *f = *state;
	if (geteuid() != 0) {
		/* unprivileged already: the 0600 file of ours is readable, so use mode 0 */
		char p[256];
		snprintf(p, sizeof(p), "%s/secret", f->root);
		assert_int_equal(chmod(p, 0), 0);
		struct ga_buf b;
		ga_buf_init(&b, 0);
		assert_int_equal(ga_fs_read(f->ctx, "secret", 0, &b), -EACCES);
		ga_buf_release(&b);
		return;
	}
	char p[256];
	snprintf(p, sizeof(p), "%s/secret", f->root);
	assert_int_equal(chmod(p, 0600), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_read_secret(f));
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 10) {
		print_message("cannot drop privileges to 65534 here; skipping\n");
		skip();
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),       cmocka_unit_test(test_refused),
		cmocka_unit_test(test_stays_in_root), cmocka_unit_test(test_device_file),
		cmocka_unit_test(test_read_attr),     cmocka_unit_test(test_list),
		cmocka_unit_test(test_links),         cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_reasons),       cmocka_unit_test(test_permission_denied),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
