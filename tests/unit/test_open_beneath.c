/*
 * test_open_beneath.c - ga_open_beneath and the temporary-file API of
 * lib/core/atomic.c (issue 29): a symlink planted at any component of the
 * path, or "..", is refused whether openat2 does the resolution or the
 * O_NOFOLLOW walk does; a record-style temporary is renamed over its target
 * only at commit, refuses a hard-linked target, and the sweep removes only
 * abandoned temporaries of the same target.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/atomicfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ga-beneath-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void age(int dfd, const char *name)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	assert_int_equal(utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static void beneath(unsigned how)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(mkdirat(dfd, "a", 0700), 0);
	assert_int_equal(mkdirat(dfd, "a/b", 0700), 0);
	assert_int_equal(mkdirat(dfd, "victim", 0700), 0);
	/* the ordinary case: a new file two levels down */
	int fd = ga_open_beneath(dfd, "a/b/f", O_WRONLY | O_CREAT | O_EXCL, 0644, how);
	assert_true(fd >= 0);
	close(fd);
	fd = ga_open_beneath(dfd, "a/b", O_RDONLY | O_DIRECTORY, 0, how);
	assert_true(fd >= 0);
	close(fd);
	/* a symlink at a first-level and at a second-level component: refused, nothing made there */
	assert_int_equal(symlinkat("victim", dfd, "l1"), 0);
	assert_int_equal(symlinkat("../victim", dfd, "a/l2"), 0);
	int r = ga_open_beneath(dfd, "l1/f", O_WRONLY | O_CREAT | O_EXCL, 0644, how);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	r = ga_open_beneath(dfd, "a/l2/f", O_WRONLY | O_CREAT | O_EXCL, 0644, how);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	r = ga_open_beneath(dfd, "l1", O_RDONLY | O_DIRECTORY, 0, how);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	struct stat st;
	assert_int_equal(fstatat(dfd, "victim/f", &st, 0), -1);
	/* "..", an absolute path, an empty one */
	assert_int_equal(ga_open_beneath(dfd, "a/../a/b/g", O_WRONLY | O_CREAT, 0644, how), -EXDEV);
	assert_int_equal(ga_open_beneath(dfd, "/etc/passwd", O_RDONLY, 0, how), -EINVAL);
	assert_int_equal(ga_open_beneath(dfd, "", O_RDONLY, 0, how), -EINVAL);
	close(dfd);
}

static void test_beneath_openat2(void **state)
{
	(void)state;
	beneath(0);
}

static void test_beneath_walk(void **state)
{
	(void)state;
	beneath(GA_BENEATH_NO_OPENAT2);
}

static void test_tmp_commit(void **state)
{
	(void)state;
	char path[128], text[64];
	snprintf(path, sizeof(path), "%s/rec", dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	put(dfd, "rec", "previous\n");
	struct ga_file_tmp t;
	assert_int_equal(ga_file_tmp_open(NULL, path, 0644, GA_FILE_TMP_ONE_LINK, &t), 0);
	assert_int_equal(write(t.fd, "new\n", 4), 4);
	/* until the commit the target is the previous file */
	int fd = openat(dfd, "rec", O_RDONLY);
	assert_int_equal(read(fd, text, sizeof(text)), 9);
	close(fd);
	assert_int_equal(ga_file_tmp_commit(NULL, &t), 0);
	fd = openat(dfd, "rec", O_RDONLY);
	assert_int_equal(read(fd, text, sizeof(text)), 4);
	close(fd);
	/* abort leaves the target alone and no temporary */
	assert_int_equal(ga_file_tmp_open(NULL, path, 0644, 0, &t), 0);
	ga_file_tmp_abort(&t);
	struct stat st;
	assert_int_equal(fstatat(dfd, "rec", &st, 0), 0);
	assert_int_equal(st.st_size, 4);
	/* a hard-linked target is refused with GA_FILE_TMP_ONE_LINK */
	assert_int_equal(linkat(dfd, "rec", dfd, "other", 0), 0);
	assert_int_equal(ga_file_tmp_open(NULL, path, 0644, GA_FILE_TMP_ONE_LINK, &t), -EMLINK);
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 2); /* rec, other: no temporary */
	close(dfd);
}

static void test_sweep(void **state)
{
	(void)state;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	put(dfd, ".st.tmp.aaaaaa", "old");
	age(dfd, ".st.tmp.aaaaaa");
	put(dfd, ".st.tmp.bbbbbb", "young");
	put(dfd, ".st.tmp.cccccc", "locked");
	age(dfd, ".st.tmp.cccccc");
	int lfd = openat(dfd, ".st.tmp.cccccc", O_RDONLY);
	assert_int_equal(flock(lfd, LOCK_EX), 0);
	put(dfd, ".st.tmp.toolong7", "not ours");
	age(dfd, ".st.tmp.toolong7");
	put(dfd, ".stx.tmp.dddddd", "another target");
	age(dfd, ".stx.tmp.dddddd");
	assert_int_equal(symlinkat("x", dfd, ".st.tmp.eeeeee"), 0);
	/* flock is per open file description: another open of it must not take the lock */
	assert_int_equal(ga_file_tmp_sweep(dfd, "st"), 1);
	struct stat st;
	assert_int_equal(fstatat(dfd, ".st.tmp.aaaaaa", &st, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(fstatat(dfd, ".st.tmp.bbbbbb", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(dfd, ".st.tmp.cccccc", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(dfd, ".st.tmp.toolong7", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(dfd, ".stx.tmp.dddddd", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(dfd, ".st.tmp.eeeeee", &st, AT_SYMLINK_NOFOLLOW), 0);
	/* once its writer is gone, the locked one goes too */
	close(lfd);
	assert_int_equal(ga_file_tmp_sweep(dfd, "st"), 1);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_beneath_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_beneath_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmp_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
