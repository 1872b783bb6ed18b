/*
 * fuzz_tree.h - the scratch file tree that the targets reading a root
 * (fuzz_procfs, fuzz_ib, fuzz_capture) build under /tmp and rewrite on each
 * input: make it, write a file (parents made on demand; what was there is
 * replaced, so an earlier input's link or FIFO is never opened), make a link,
 * remove it all. Setup errors abort: a target that cannot build its tree
 * tests nothing.
 */
#ifndef GA_FUZZ_TREE_H
#define GA_FUZZ_TREE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fuzz_tree_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm -rf dir (links are removed, never followed). */
static inline void fuzz_tree_remove(const char *dir)
{
	nftw(dir, fuzz_tree_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A new directory from a mkdtemp template ("/tmp/ga-fuzz-NAME-XXXXXX") into root. */
static inline void fuzz_tree_make(char *root, size_t size, const char *name)
{
	snprintf(root, size, "/tmp/ga-fuzz-%s-XXXXXX", name);
	if (!mkdtemp(root))
		abort();
}

/* mkdir -p of the directory part of rel (relative to root). */
static inline void fuzz_tree_parents(const char *root, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			abort();
		*s = '/';
	}
}

/* root/rel := data, replacing whatever was there. */
static inline void fuzz_tree_write(const char *root, const char *rel, const void *data, size_t len)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		fuzz_tree_parents(root, rel);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		abort();
	const char *c = data;
	while (len) {
		ssize_t n = write(fd, c, len);
		if (n <= 0)
			abort();
		c += n;
		len -= (size_t)n;
	}
	close(fd);
}

/* root/rel := a symbolic link to target (parents made). -1 when symlink(2) refused it. */
static inline int fuzz_tree_link(const char *root, const char *rel, const char *target)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fuzz_tree_parents(root, rel);
	return symlink(target, p);
}

#endif
