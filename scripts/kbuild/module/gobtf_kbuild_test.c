// SPDX-License-Identifier: GPL-2.0
/*
 * A small out-of-tree module for scripts/kbuild-boot.sh: it has types of its
 * own (so its split BTF holds more than references into vmlinux) and uses
 * vmlinux types (list_head, so the split BTF refers to the base).
 */
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>

struct gobtf_kbuild_item {
	struct list_head node;
	unsigned long value;
	unsigned int flags : 3;
	unsigned int kind : 5;
	const char *label;
};

union gobtf_kbuild_word {
	unsigned long whole;
	unsigned char bytes[sizeof(unsigned long)];
};

static LIST_HEAD(gobtf_kbuild_items);
static struct gobtf_kbuild_item gobtf_kbuild_first = { .value = 42, .label = "first" };

noinline unsigned long gobtf_kbuild_sum(struct list_head *head, union gobtf_kbuild_word *w)
{
	struct gobtf_kbuild_item *it;
	unsigned long sum = w->whole;

	list_for_each_entry(it, head, node)
		sum += it->value + it->kind;
	return sum;
}

static int __init gobtf_kbuild_init(void)
{
	union gobtf_kbuild_word w = { .whole = 1 };

	list_add(&gobtf_kbuild_first.node, &gobtf_kbuild_items);
	pr_info("gobtf_kbuild_test: loaded, sum %lu\n", gobtf_kbuild_sum(&gobtf_kbuild_items, &w));
	return 0;
}

static void __exit gobtf_kbuild_exit(void)
{
	list_del(&gobtf_kbuild_first.node);
}

module_init(gobtf_kbuild_init);
module_exit(gobtf_kbuild_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gobtf kernel-build test module");
