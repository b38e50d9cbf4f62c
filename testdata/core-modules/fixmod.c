// build: gcc -g -O2 -c $SRC -o $OUT
// A kernel module of the tests' own (its BTF: "gobtf -J --btf_base
// VMLINUX --btf_encode_detached=fixmod.btf fixmod.o", split on the shared
// vmlinux BTF): it defines a struct file_system_type of its own, named
// like the vmlinux's but with other members, and a struct fixmod_dev,
// which only it has, that embeds it. A running kernel's candidate search
// never looks at the module's file_system_type for a local type named
// file_system_type (the vmlinux has one), but a standalone BTF holding a
// copy of it would offer it as a candidate.
struct file_system_type {
	long fix_a;
	long fix_b;
};

struct fixmod_dev {
	int id;
	struct file_system_type fs;
};

struct fixmod_dev fixmod_devs[4];

int fixmod_get(int i)
{
	return fixmod_devs[i].id + (int)fixmod_devs[i].fs.fix_b;
}
