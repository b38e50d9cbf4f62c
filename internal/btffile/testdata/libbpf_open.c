/*
 * The libbpf oracle of btffile's libbpf tests: opens FILE as pahole opens BTF,
 * with btf__parse_split(FILE, BASE) (BASE read with btf__parse), and
 * prints, one a line, every message libbpf logs ("LEVEL text", LEVEL being
 * enum libbpf_print_level), then "base ERRNO" when BASE is refused, else
 * "file ERRNO" when FILE is, else "types N" (btf__type_cnt).
 *
 * Built by btffile's libbpf tests against the libbpf vendored in ../shared/tools
 * (testutil.Tool "libbpf-build"):
 *   cc -o libbpf_open libbpf_open.c -I INC LIBBPF.a -lelf -lz
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int print(enum libbpf_print_level level, const char *format, va_list args)
{
	printf("%d ", level);
	return vprintf(format, args);
}

int main(int argc, char *argv[])
{
	struct btf *base = NULL, *btf;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: libbpf_open FILE [BASE]\n");
		return 2;
	}
	libbpf_set_print(print);
	if (argc == 3) {
		base = btf__parse(argv[2], NULL);
		if (!base) {
			printf("base %d\n", errno);
			return 0;
		}
	}
	btf = btf__parse_split(argv[1], base);
	if (!btf) {
		printf("file %d\n", errno);
		return 0;
	}
	printf("types %u\n", btf__type_cnt(btf));
	return 0;
}
