# gobtf: see README.md. Every target runs from a fresh clone; tests that need
# ../shared (real kernel files and reference BTF) skip when it is absent.
GO       ?= go
BIN      ?= bin
FUZZTIME ?= 30s
# e.g. FUZZFLAGS='-parallel 1 -fuzzminimizetime 10s' on a shared machine
FUZZFLAGS ?=
PKGS     := ./...

# make install: the binary into $(BINDIR) and the manual pages into
# $(MANDIR)/man1, under $(DESTDIR) when set (a package's staging root).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

.PHONY: all build install uninstall test test-short test-modules test-kbuild test-check-kernel test-kbuild-check bench pgo fuzz lint man clean

all: build

# CGO_ENABLED=0: cobra's flag package imports net, which would otherwise link
# the binary against libc through cgo (a dynamic binary, and a few ms more at
# every start: the dynamic loader and glibc's per-thread malloc arenas).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/gobtf ./cmd/gobtf

# With the default PREFIX, "man gobtf" finds the page afterwards
# (/usr/local/share/man is on man's default path).
install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BIN)/gobtf $(DESTDIR)$(BINDIR)/gobtf
	install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gobtf
	cd docs/man && for p in *.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$$p; done

# The whole test suite, including the tests on the real vmlinux; GOBTF_BIN
# lets TestBuiltBinaryIsStatic check the binary that build writes.
test: lint build
	GOBTF_BIN=$(abspath $(BIN)/gobtf) $(GO) test -count=1 -timeout 40m $(PKGS)

# The quick subset: skips the tests on whole kernels.
test-short:
	$(GO) test -short $(PKGS)

# Every module of Debian's 6.1 cloud kernel (1,121) as split BTF on gobtf's
# vmlinux BTF: kernel verifier, no duplicates, pahole 1.24 equality. Downloads
# linux-image-6.1.0-56-cloud-amd64-dbg (283 MB) into ~/.cache/gobtf-test once.
MODULE_JOBS ?= 2
test-modules:
	bash scripts/test-modules.sh -P $(MODULE_JOBS)

# Kernel-build tests (root, qemu and linux-source-6.1 needed: see .ci/run).
# scripts/kbuild-steps.sh replays the pahole steps of the kernel's build
# scripts (6.1, 6.7-6.18, 7.x) on copies of the shared vmlinux and modules;
# scripts/kbuild-boot.sh builds a 6.1 kernel and a module with PAHOLE, boots
# it in qemu and checks its BTF inside the guest, then relinks it twice with a
# corrupted .BTF (list_head 1 and 9 bytes short) and expects the checks that
# catch each to fail. PAHOLE=pahole runs the boot tests with pahole instead;
# with gobtf, KBUILD_PEER (default pahole; empty to skip) is booted too.
PAHOLE      ?= $(BIN)/gobtf
KBUILD_PEER ?= pahole
test-kbuild: build
	bash scripts/kbuild-steps.sh
	bash scripts/kbuild-boot.sh --pahole $(PAHOLE)
	GO=$(GO) bash scripts/kbuild-boot.sh --pahole $(PAHOLE) --corrupt 1 --expect-fail btf_load
	GO=$(GO) bash scripts/kbuild-boot.sh --pahole $(PAHOLE) --corrupt 9 --expect-fail btf_load,insmod,module_btf,dmesg
	@if [ "$(PAHOLE)" = "$(BIN)/gobtf" ] && [ -n "$(KBUILD_PEER)" ]; then \
	  echo bash scripts/kbuild-boot.sh --pahole $(KBUILD_PEER); \
	  bash scripts/kbuild-boot.sh --pahole $(KBUILD_PEER); \
	fi

# gobtf check --as load against the running kernel's BPF_BTF_LOAD on
# CHECK_MUTATIONS random mutations of real vmlinux and module BTF (root and
# ../shared needed; about 20 minutes for 10,000). make test runs 200.
CHECK_MUTATIONS ?= 10000
test-check-kernel:
	GOBTF_CHECK_MUTATIONS=$(CHECK_MUTATIONS) $(GO) test -count=1 -v -timeout 0 -run '^TestCheckMutationsKernel$$' ./internal/btfcheck

# gobtf check --kernel 6.1 --as module against a 6.1 kernel's module loader:
# the test module of make test-kbuild with CHECK_MODULES mutated .BTF
# sections, each loaded in the qemu guest (what make test-kbuild needs; the
# first run builds the kernel).
CHECK_MODULES ?= 300
test-kbuild-check:
	GO=$(GO) bash scripts/kbuild-check.sh $(CHECK_MODULES)

# Side-by-side runs against the peers (scripts/bench.sh prints medians and
# ratios), then the Go benchmarks with allocation counts, then the
# side-by-side summary table again, last, ready to paste.
bench:
	BENCH_SUMMARY=$(abspath $(BIN))/bench-summary.md bash scripts/bench.sh
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(PKGS)
	@echo; cat $(BIN)/bench-summary.md

# Remakes cmd/gobtf/default.pgo, the CPU profile "go build" optimizes gobtf
# with (profile-guided optimization), from runs on the shared vmlinux and
# modules; needs ../shared.
pgo:
	bash scripts/pgo.sh

# Runs every native fuzz target for FUZZTIME each, after comparing the
# deduplicator with libbpf on DEDUP_RANDOM generated inputs.
DEDUP_RANDOM ?= 10000
fuzz:
	GOBTF_DEDUP_RANDOM=$(DEDUP_RANDOM) $(GO) test -count=1 -run '^TestDedupRandomVsLibbpf$$' -timeout 60m ./internal/dedup
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for fz in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$fz ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$fz$$" -fuzztime $(FUZZTIME) -timeout 0 $(FUZZFLAGS) $$pkg; \
	  done; \
	done

# Rewrites the manual pages in docs/man from the command definitions
# (cmd/gobtf/man_test.go; make test fails while they are stale).
man:
	$(GO) test -count=1 -run '^TestManPage$$' ./cmd/gobtf -args -update-man

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

clean:
	rm -rf $(BIN)
