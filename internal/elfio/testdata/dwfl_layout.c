// Oracle for OfflineLayout and DWARFSectionsAt: opens FILE the way pahole
// does (libdwfl, dwfl_report_offline with the offline section-address
// callback), lets libdwfl lay out and relocate it, then prints each
// section's address ("addr INDEX ADDRESS", in hex) and writes the relocated
// contents of the uncompressed .debug_* sections to OUTDIR/NAME.
//
// Build: cc -O1 -o dwfl_layout dwfl_layout.c -ldw -lelf
// Run:   dwfl_layout FILE OUTDIR
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "dwfl_layout: %s: %s\n", what, dwfl_errmsg(-1));
	return 1;
}

int main(int argc, char **argv)
{
	static const Dwfl_Callbacks cb = {
		.section_address = dwfl_offline_section_address,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.find_elf = dwfl_build_id_find_elf,
	};
	if (argc != 3) {
		fprintf(stderr, "usage: dwfl_layout FILE OUTDIR\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, argv[1], argv[1], fd);
	if (!mod)
		return fail("dwfl_report_offline");
	dwfl_report_end(dwfl, NULL, NULL);

	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw)
		return fail("dwfl_module_getdwarf");
	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return fail("dwfl_module_getelf");
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return fail("elf_getshdrstrndx");

	// Section headers as libdwfl left them: laid out in place.
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return fail("gelf_getshdr");
		printf("addr %zx %llx\n", elf_ndxscn(scn), (unsigned long long)sh.sh_addr);
	}

	// The debug sections as libdw reads them: relocated in memory.
	Elf *delf = dwarf_getelf(dw);
	size_t dstrndx;
	if (!delf || elf_getshdrstrndx(delf, &dstrndx) < 0)
		return fail("dwarf_getelf");
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(delf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return fail("gelf_getshdr");
		const char *name = elf_strptr(delf, dstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7) || (sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			return fail("elf_getdata");
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", argv[2], name);
		FILE *out = fopen(path, "wb");
		if (!out || (d->d_size && fwrite(d->d_buf, d->d_size, 1, out) != 1) || fclose(out)) {
			perror(path);
			return 1;
		}
	}
	dwfl_end(dwfl);
	return 0;
}
