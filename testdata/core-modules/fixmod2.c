// build: gcc -g -O2 -c $SRC -o $OUT
// A second module of the tests' own (its BTF made as fixmod.c's is): its
// struct file_system_type is neither the vmlinux's nor fixmod's, so a
// merge of both modules keeps one of each.
struct file_system_type {
	int other;
};

struct file_system_type fixmod2_fs;

int fixmod2_get(void)
{
	return fixmod2_fs.other;
}
