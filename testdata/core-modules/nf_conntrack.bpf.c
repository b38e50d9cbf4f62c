// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Reads connection tracking state as netfilter tools do: struct nf_conn
// (in the vmlinux's BTF, from vmlinux.h) and the nf_conntrack module's
// accounting and helper types, defined here, which only the module's BTF
// has: arrays of module structs, a module type's existence and an enum
// value of the vmlinux.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[8];

struct nf_conn_counter {
	atomic64_t packets;
	atomic64_t bytes;
} __attribute__((preserve_access_index));

struct nf_conn_acct {
	struct nf_conn_counter counter[2];
} __attribute__((preserve_access_index));

struct nf_conntrack_helper {
	char name[16];
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/nf_conn")
int nfct_reader(void *ctx)
{
	struct nf_conn *ct = ctx;
	struct nf_conn_acct *acct = (void *)ct->ext;
	struct nf_conntrack_helper *h = ctx + 8;

	out[0] = BPF_CORE_READ(ct, status);
	out[1] = BPF_CORE_READ(ct, mark);
	out[2] = BPF_CORE_READ(acct, counter[1].bytes.counter);
	out[3] = BPF_CORE_READ(acct, counter[0].packets.counter);
	out[4] = BPF_CORE_READ(h, name[3]);
	out[5] = bpf_core_type_exists(struct nf_conn_acct);
	out[6] = bpf_core_enum_value(enum ip_conntrack_status, IPS_CONFIRMED_BIT);
	return 0;
}
