/*
 * test_atomic.c - the writer and openers of user-named files (lib/core/atomic.c,
 * issue 22 items 5, 7, 8): what is planted at the target or next to it (a
 * symlink, a hard link, a FIFO, a directory) is refused or left alone, never
 * followed, never blocked on; a replaced file leaves no temporary behind.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuaudit/atomicfile.h"

struct fx {
	char dir[64];
	struct ga_ctx *ctx;
};

static const char *at(const struct fx *f, const char *name)
{
	static char p[4][384];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", f->dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *o = fopen(path, "w");
	assert_non_null(o);
	fputs(text, o);
	assert_int_equal(fclose(o), 0);
}

static char *get(const char *path)
{
	static char b[256];
	FILE *in = fopen(path, "r");
	if (!in)
		return NULL;
	size_t n = fread(b, 1, sizeof(b) - 1, in);
	b[n] = '\0';
	fclose(in);
	return b;
}

/* Entries of the directory but "." and ".."; no temporary may survive a call. */
static int entries(const struct fx *f)
{
	DIR *d = opendir(f->dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/ga-atomic-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(ga_ctx_new(&f->ctx), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	DIR *d = opendir(f->dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			if (unlink(at(f, e->d_name)) < 0)
				rmdir(at(f, e->d_name));
	if (d)
		closedir(d);
	rmdir(f->dir);
	ga_ctx_free(f->ctx);
	free(f);
	return 0;
}

static void test_write_replace(void **state)
{
	struct fx *f = *state;
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "a"), "one\n", 4, 0600), 0);
	assert_string_equal(get(at(f, "a")), "one\n");
	struct stat st;
	assert_int_equal(stat(at(f, "a"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a hard link to the old file keeps the old content: the name is replaced, not the inode */
	assert_int_equal(link(at(f, "a"), at(f, "old")), 0);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "a"), "two\n", 4, 0), 0);
	assert_string_equal(get(at(f, "a")), "two\n");
	assert_string_equal(get(at(f, "old")), "one\n");
	assert_int_equal(entries(f), 2);
	/* empty data, and the directory form */
	int dfd = open(f->dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(ga_file_write_atomic_at(f->ctx, dfd, f->dir, "b", "", 0, 0644), 0);
	assert_int_equal(ga_file_write_atomic_at(f->ctx, dfd, f->dir, "x/y", "", 0, 0644), -EINVAL);
	assert_int_equal(ga_file_write_atomic_at(f->ctx, dfd, f->dir, "..", "", 0, 0644), -EINVAL);
	close(dfd);
	assert_string_equal(get(at(f, "b")), "");
	assert_int_equal(entries(f), 3);
}

static void test_write_refused(void **state)
{
	struct fx *f = *state;
	put(at(f, "victim"), "secret");
	assert_int_equal(symlink("victim", at(f, "lnk")), 0);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "lnk"), "x", 1, 0), -ELOOP);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "symbolic link"));
	assert_int_equal(mkfifo(at(f, "fifo"), 0644), 0);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "fifo"), "x", 1, 0), -EEXIST);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "FIFO"));
	assert_int_equal(mkdir(at(f, "d"), 0755), 0);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "d"), "x", 1, 0), -EISDIR);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "d/"), "x", 1, 0), -EISDIR);
	assert_int_equal(ga_file_write_atomic(f->ctx, at(f, "missing/x"), "x", 1, 0), -ENOENT);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "missing/x"));
	assert_int_equal(ga_file_write_atomic(NULL, at(f, "lnk"), "x", 1, 0), -ELOOP); /* no ctx */
	assert_string_equal(get(at(f, "victim")), "secret");
	assert_int_equal(entries(f), 4);
}

static void test_output(void **state)
{
	struct fx *f = *state;
	int fd = -1;
	put(at(f, "victim"), "secret");
	put(at(f, "rec"), "previous recording");
	assert_int_equal(symlink("victim", at(f, "lnk")), 0);
	assert_int_equal(ga_file_open_output(f->ctx, at(f, "lnk"), 0, &fd), -ELOOP);
	assert_int_equal(mkfifo(at(f, "fifo"), 0644), 0);
	assert_int_equal(ga_file_open_output(f->ctx, at(f, "fifo"), 0, &fd), -ENXIO); /* no reader */
	assert_int_equal(ga_file_open_output(f->ctx, at(f, "rec"), 0, &fd), 0);
	assert_int_equal(write(fd, "new", 3), 3);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_string_equal(get(at(f, "rec")), "new");
	assert_int_equal(ga_file_open_output(f->ctx, at(f, "fresh"), 0, &fd), 0);
	close(fd);
	assert_string_equal(get(at(f, "fresh")), "");
	assert_string_equal(get(at(f, "victim")), "secret");
}

static void test_input(void **state)
{
	struct fx *f = *state;
	int fd = -1;
	put(at(f, "log"), "line\n");
	assert_int_equal(ga_file_open_input(f->ctx, at(f, "log"), &fd), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_int_equal(mkfifo(at(f, "fifo"), 0644), 0);
	assert_int_equal(ga_file_open_input(f->ctx, at(f, "fifo"), &fd), -EINVAL); /* at once */
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "FIFO"));
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "standard input"));
	assert_int_equal(ga_file_open_input(f->ctx, "/dev/null", &fd), -EINVAL);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "character device"));
	assert_int_equal(ga_file_open_input(f->ctx, f->dir, &fd), -EISDIR);
	assert_int_equal(ga_file_open_input(f->ctx, at(f, "missing"), &fd), -ENOENT);
	assert_non_null(strstr(ga_ctx_errmsg(f->ctx), "missing: No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_input, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
