/*
 * replay.c - run a libFuzzer target over files without libFuzzer, so CI can
 * replay the seed corpora (and any crashers added to them) with gcc under
 * ctest. Each argument is a file or a directory; a directory contributes
 * every regular file in it, in sorted order. A missing or empty directory is
 * an error, so a corpus lost in a move cannot pass as "replayed 0 inputs".
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return -1;
	}
	uint8_t *data = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			uint8_t *nd = realloc(data, nc);
			if (!nd) {
				free(data);
				fclose(f);
				return -1;
			}
			data = nd;
			cap = nc;
		}
		size_t got = fread(data + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(data);
		return -1;
	}
	/* an exact-size copy, so ASan sees reads past the input */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		free(data);
		return -1;
	}
	if (len)
		memcpy(copy, data, len);
	free(data);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: %s: cannot open directory\n", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **nn = realloc(names, nc * sizeof(*nn));
			if (!nn) {
				r = -1;
				break;
			}
			names = nn;
			cap = nc;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(len);
		if (path) {
			snprintf(path, len, "%s/%s", dir, names[i]);
			struct stat st;
			if (r == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (replay_file(path) < 0)
					r = -1;
				else
					(*count)++;
			}
			free(path);
		} else {
			r = -1;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 1;
	}
	size_t count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: missing\n", argv[i]);
			return 1;
		}
		int r;
		if (S_ISDIR(st.st_mode)) {
			size_t before = count;
			r = replay_dir(argv[i], &count);
			if (r == 0 && count == before) {
				fprintf(stderr, "replay: %s: no inputs (an empty corpus replays nothing)\n",
				        argv[i]);
				return 1;
			}
		} else {
			r = replay_file(argv[i]);
			if (r == 0)
				count++;
		}
		if (r < 0)
			return 1;
	}
	printf("replayed %zu inputs\n", count);
	return 0;
}
