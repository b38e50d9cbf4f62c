/*
 * btfload-guest: runs inside the test kernel's initramfs (scripts/kbuild-boot.sh).
 * Reads a BTF file (by default /sys/kernel/btf/vmlinux) and hands its bytes to
 * the running kernel with the bpf() BPF_BTF_LOAD command, so that the kernel's
 * BTF verifier checks the very BTF the kernel carries. Prints one line,
 * "PASS btf_load ..." or "FAIL btf_load ...", with the tail of the verifier
 * log (newlines as '|') on failure; exits 0 on PASS, 1 on FAIL.
 *
 * Built on the host with: gcc -static -O2 -o btfload-guest btfload-guest.c
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char log_buf[16 << 20];

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/sys/kernel/btf/vmlinux";
	size_t cap = 1 << 20, len = 0;
	char *data = malloc(cap);
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !data) {
		printf("FAIL btf_load: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			data = realloc(data, cap);
			if (!data) {
				printf("FAIL btf_load: out of memory reading %s\n", path);
				return 1;
			}
		}
		n = read(fd, data + len, cap - len);
		if (n < 0) {
			printf("FAIL btf_load: read %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);

	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.btf = (unsigned long)data;
	attr.btf_size = len;
	int btf_fd = syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
	if (btf_fd < 0) {
		int err = errno;
		size_t l;
		const char *tail;

		/* Load again with the verifier log on, to show why. */
		attr.btf_log_buf = (unsigned long)log_buf;
		attr.btf_log_size = sizeof(log_buf);
		attr.btf_log_level = 1;
		syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
		l = strlen(log_buf);
		while (l > 0 && (log_buf[l - 1] == '\n' || log_buf[l - 1] == ' '))
			log_buf[--l] = '\0';
		tail = l > 300 ? log_buf + l - 300 : log_buf;
		for (char *p = (char *)tail; *p; p++) /* one line for the host's parser */
			if (*p == '\n' || *p == '\t')
				*p = *p == '\n' ? '|' : ' ';
		printf("FAIL btf_load: BPF_BTF_LOAD of %s (%zu bytes): %s; verifier log tail: %s\n",
		       path, len, strerror(err), tail);
		return 1;
	}
	printf("PASS btf_load: BPF_BTF_LOAD of %s (%zu bytes) gave fd %d\n", path, len, btf_fd);
	close(btf_fd);
	return 0;
}
