// SPDX-License-Identifier: MIT
// The corpus replay: runs a fuzz target's LLVMFuzzerTestOneInput over every
// file of the directories (or files) given, with any compiler, so that the
// committed corpus is a test of every build (fuzz_corpus_pairwise,
// fuzz_corpus_world). Inputs known.h lists as crashing today are skipped.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "known.h"

static int skipped(const char *name)
{
	static const fz_known files[] = FZ_KNOWN_FILES;
	for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k)
		if (files[k].name && strcmp(files[k].name, name) == 0)
			return files[k].defect;
	return 0;
}

static int run_file(const char *path, const char *name)
{
	int defect = skipped(name);
	const char *strict = getenv("IMPACT_FUZZ_STRICT");
	if (defect && !(strict && strcmp(strict, "0") != 0)) {
		printf("skipped %s (issue 20, defect %d)\n", name, defect);
		return 0;
	}
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap) {
			unsigned char *grown = realloc(buf, cap *= 2);
			if (!grown)
				free(buf);
			buf = grown;
		}
	}
	fclose(fp);
	if (!buf) {
		fprintf(stderr, "replay: out of memory reading %s\n", path);
		return 1;
	}
	fz_input_name = name;
	LLVMFuzzerTestOneInput(buf, n);
	fz_input_name = NULL;
	free(buf);
	return 0;
}

static int compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int failed = 0, inputs = 0;
	for (int i = 1; i < argc; ++i) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: no such file or directory %s\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(sb.st_mode)) {
			const char *slash = strrchr(argv[i], '/');
			failed |= run_file(argv[i], slash ? slash + 1 : argv[i]);
			++inputs;
			continue;
		}
		DIR *dir = opendir(argv[i]);
		if (!dir) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 1;
		}
		// In name order, so that runs compare.
		char **names = NULL;
		size_t count = 0, cap = 0;
		struct dirent *e;
		while ((e = readdir(dir)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			if (count == cap) {
				cap = cap ? 2 * cap : 64;
				char **grown = realloc(names, cap * sizeof *names);
				if (!grown)
					abort();
				names = grown;
			}
			names[count] = malloc(strlen(e->d_name) + 1);
			if (!names[count])
				abort();
			strcpy(names[count++], e->d_name);
		}
		closedir(dir);
		qsort(names, count, sizeof *names, compare);
		for (size_t k = 0; k < count; ++k) {
			size_t len = strlen(argv[i]) + strlen(names[k]) + 2;
			char *path = malloc(len);
			if (!path)
				abort();
			snprintf(path, len, "%s/%s", argv[i], names[k]);
			failed |= run_file(path, names[k]);
			++inputs;
			free(path);
			free(names[k]);
		}
		free(names);
	}
	printf("%d inputs replayed, %ld known findings (known.h)\n", inputs, fz_known_count);
	if (inputs == 0) {
		fprintf(stderr, "replay: no input\n");
		return 1;
	}
	return failed;
}
