/*
 * The glibc oracle of argp's tests: reads its arguments with getopt_long
 * against the option table of argp_test.go's table (Options only, help
 * without its short -?), as argp_parse does (permuting, unless
 * POSIXLY_CORRECT is set), and prints each option as "NAME" or
 * "NAME=VALUE", then "-- OPERAND" for each operand; getopt prints its own
 * messages on stderr, and a refused command line ends with "error".
 *
 * Built by argp's tests: cc -o getopt getopt.c
 */
#include <getopt.h>
#include <stdio.h>

static const struct option longopts[] = {
	{"class_name", required_argument, NULL, 'C'},
	{"expand_types", no_argument, NULL, 'E'},
	{"hex", no_argument, NULL, 256},
	{"header_type", required_argument, NULL, 257},
	{"jobs", optional_argument, NULL, 'j'},
	{"prefix_filter", required_argument, NULL, 'y'},
	{"prettify", required_argument, NULL, 258},
	{"sizes", no_argument, NULL, 's'},
	{"structs", no_argument, NULL, 259},
	{"help", no_argument, NULL, 260},
	{NULL, 0, NULL, 0},
};

int main(int argc, char *argv[])
{
	int c, i;

	while ((c = getopt_long(argc, argv, "C:Ej::y:s", longopts, &i)) != -1) {
		const char *name = NULL;

		switch (c) {
		case 'C': name = "class_name"; break;
		case 'E': name = "expand_types"; break;
		case 'j': name = "jobs"; break;
		case 'y': name = "prefix_filter"; break;
		case 's': name = "sizes"; break;
		case 256: name = "hex"; break;
		case 257: name = "header_type"; break;
		case 258: name = "prettify"; break;
		case 259: name = "structs"; break;
		case 260: name = "help"; break;
		default: printf("error\n"); return 0;
		}
		if (optarg)
			printf("%s=%s\n", name, optarg);
		else
			printf("%s\n", name);
	}
	for (i = optind; i < argc; i++)
		printf("-- %s\n", argv[i]);
	return 0;
}
