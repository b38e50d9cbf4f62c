//go:build linux

package btf_test

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The running kernel's BTF verifier is the oracle for the validator. These
// helpers hand a blob to it unchanged with the BPF_BTF_LOAD command (no
// library in between that could refuse or rewrite it first) and return its
// verdict and log.

// bpfBTFLoad is the BPF_BTF_LOAD command number (include/uapi/linux/bpf.h).
const bpfBTFLoad = 18

// sysBPF is the bpf(2) system call number of this architecture (the
// syscall package does not name it everywhere), or 0 when unknown.
var sysBPF = map[string]uintptr{
	"amd64": 321, "386": 357, "arm64": 280, "riscv64": 280, "loong64": 280,
	"arm": 386, "ppc64le": 361, "ppc64": 361, "s390x": 351,
}[runtime.GOARCH]

// btfLoadAttr is the BPF_BTF_LOAD member of union bpf_attr, up to
// btf_log_true_size; the kernel takes the fields a caller leaves out as 0.
type btfLoadAttr struct {
	btf         uint64
	logBuf      uint64
	btfSize     uint32
	logSize     uint32
	logLevel    uint32
	logTrueSize uint32
}

// kernelVerdict is what BPF_BTF_LOAD said about a blob.
type kernelVerdict struct {
	accepted bool
	errno    syscall.Errno
	log      string // the verifier log (level 1), trimmed
}

// lastLine returns the last non-empty line of the log: where the kernel
// states the fault.
func (k kernelVerdict) lastLine() string {
	lines := strings.Split(strings.TrimSpace(k.log), "\n")
	return lines[len(lines)-1]
}

// kernelLoad loads data with BPF_BTF_LOAD and closes the resulting BTF
// object at once. A rejected blob is loaded a second time with a verifier
// log, to learn why: the first load has none, because a log that overflows
// its buffer makes even a valid blob fail. It skips the test when the
// command is not available (EPERM, ENOSYS).
func kernelLoad(t *testing.T, data []byte) kernelVerdict {
	t.Helper()
	if sysBPF == 0 {
		t.Skipf("skipping: bpf(2) system call number unknown on %s", runtime.GOARCH)
	}
	errno := bpfBTFLoadRaw(data, nil)
	if errno == 0 {
		return kernelVerdict{accepted: true}
	}
	if errno == syscall.EPERM || errno == syscall.ENOSYS {
		t.Skipf("skipping: BPF_BTF_LOAD is not available: %v", errno)
	}
	// The kernel keeps the tail of an overflowing level-1 log, and the
	// fault is stated at the end.
	logBuf := make([]byte, 1<<20)
	bpfBTFLoadRaw(data, logBuf)
	n := 0
	for n < len(logBuf) && logBuf[n] != 0 {
		n++
	}
	return kernelVerdict{errno: errno, log: string(logBuf[:n])}
}

// bpfBTFLoadRaw issues one BPF_BTF_LOAD, with a level-1 log into logBuf if
// it is not nil, closes the BTF object on success and returns the errno.
func bpfBTFLoadRaw(data, logBuf []byte) syscall.Errno {
	attr := btfLoadAttr{btfSize: uint32(len(data))}
	if len(data) > 0 {
		attr.btf = uint64(uintptr(unsafe.Pointer(&data[0])))
	}
	if logBuf != nil {
		attr.logBuf = uint64(uintptr(unsafe.Pointer(&logBuf[0])))
		attr.logSize = uint32(len(logBuf))
		attr.logLevel = 1
	}
	fd, _, errno := syscall.Syscall(sysBPF, bpfBTFLoad, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	runtime.KeepAlive(data)
	runtime.KeepAlive(logBuf)
	if errno == 0 {
		syscall.Close(int(fd))
	}
	return errno
}

// requireKernel skips unless the test may load BTF into the running kernel.
func requireKernel(t *testing.T) {
	t.Helper()
	testutil.RequireRoot(t)
	if testing.Short() {
		t.Skip("skipping the kernel-oracle comparison in -short mode")
	}
}

// mergeRaw turns split BTF into the standalone blob the kernel can verify,
// as btfload does: one header, the base's types then the split's, the base's
// strings then the split's. Split type IDs and string offsets already
// continue the base's, so nothing is renumbered. The split blob's header is
// read as it is, without validation (it may be a corrupted one), and must be
// in host byte order.
func mergeRaw(base, split []byte) []byte {
	sec := func(b []byte) (types, strs []byte) {
		le := binary.LittleEndian
		hl := le.Uint32(b[4:])
		to, tl, so, sl := le.Uint32(b[8:]), le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint32(b[20:])
		body := b[hl:]
		return body[to : to+tl], body[so : so+sl]
	}
	bt, bs := sec(base)
	st, ss := sec(split)
	out := make([]byte, 24, 24+len(bt)+len(st)+len(bs)+len(ss))
	le := binary.LittleEndian
	le.PutUint16(out[0:], 0xeb9f)
	out[2] = 1
	le.PutUint32(out[4:], 24)
	le.PutUint32(out[8:], 0)
	le.PutUint32(out[12:], uint32(len(bt)+len(st)))
	le.PutUint32(out[16:], uint32(len(bt)+len(st)))
	le.PutUint32(out[20:], uint32(len(bs)+len(ss)))
	out = append(out, bt...)
	out = append(out, st...)
	out = append(out, bs...)
	return append(out, ss...)
}

// btfloadVerdict runs the shared btfload tool on a blob written to a temp
// file (with --base for split BTF) and returns its exit code: 0 accepted by
// the kernel, 1 rejected by the kernel, 2 refused by libbpf's parser before
// the kernel was asked.
func btfloadVerdict(t *testing.T, tool string, data []byte, basePath string) int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blob.btf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{path}
	if basePath != "" {
		args = append(args, "--base", basePath)
	}
	err := exec.Command(tool, args...).Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running btfload: %v", err)
	return -1
}

// TestValidateReferenceKernel confirms that the running kernel accepts the
// unmodified reference files, the baseline of the corruption tests.
func TestValidateReferenceKernel(t *testing.T) {
	requireKernel(t)
	base := readRef(t, kbuildName)
	if v := kernelLoad(t, base); !v.accepted {
		t.Fatalf("kernel rejects %s: %v\n%s", kbuildName, v.errno, v.lastLine())
	}
	for _, m := range testutil.ModuleNames {
		if v := kernelLoad(t, mergeRaw(base, readRef(t, "modules/"+m+".btf"))); !v.accepted {
			t.Errorf("kernel rejects module %s on its base: %v\n%s", m, v.errno, v.lastLine())
		}
	}
}

// TestValidateCorruptKernel is the oracle check of the corruption table:
// the running kernel must reject every corrupted blob, and its verifier log
// must state the fault the validator reports (the table's kernel phrase
// and the ValidationError's Kernel phrase), for the type the validator
// names. When the shared btfload tool can be built it must reject each blob
// too (exit 1 when the kernel refused it, 2 when libbpf's parser refused it
// before the kernel was asked).
func TestValidateCorruptKernel(t *testing.T) {
	requireKernel(t)
	tool := ""
	if _, err := os.Stat(filepath.Join(testutil.SharedDir(t), "tools")); err == nil {
		tool = testutil.Tool(t, "btfload")
	}
	basePath := testutil.Reference(t, kbuildName)
	var kernelRejects, libbpfRejects int
	forEachCorruption(t, func(t *testing.T, tc corruption, data []byte, base *btf.Spec, baseData []byte) {
		blob := data
		if base != nil {
			blob = mergeRaw(baseData, data)
		}
		k := kernelLoad(t, blob)
		if k.accepted {
			t.Fatalf("the kernel accepts the blob the validator rejects")
		}
		tail := k.log
		if i := strings.LastIndex(strings.TrimRight(tail, "\n"), "\n["); i >= 0 {
			tail = tail[i+1:]
		}
		if !strings.Contains(tail, tc.kernel) {
			t.Errorf("kernel log does not say %q:\n%s", tc.kernel, tail)
		}
		_, err := btf.ValidateBlob(data, base, btf.ValidateOptions{})
		t.Logf("validator: %v\nkernel:    %s", err, strings.ReplaceAll(strings.TrimSpace(tail), "\n", " | "))
		if err == nil {
			t.Errorf("the validator accepts the blob the kernel rejects")
		}
		var ve *btf.ValidationError
		if errors.As(err, &ve) {
			if !strings.Contains(tail, ve.Kernel) {
				t.Errorf("validator's kernel phrase %q is not in the kernel log:\n%s", ve.Kernel, tail)
			}
			if ve.ID != 0 && !strings.Contains(tail, "["+strconv.Itoa(int(ve.ID))+"]") {
				t.Errorf("validator blames type [%d], the kernel log does not:\n%s", ve.ID, tail)
			}
		}
		if tool == "" {
			return
		}
		path := ""
		if base != nil {
			path = basePath
		}
		switch code := btfloadVerdict(t, tool, data, path); code {
		case 1:
			kernelRejects++
		case 2:
			libbpfRejects++
		default:
			t.Errorf("btfload exit code %d, want 1 (kernel rejects) or 2 (libbpf rejects)", code)
		}
	})
	t.Logf("%d corruptions: btfload got a kernel rejection for %d, libbpf refused %d before loading", len(corruptions), kernelRejects, libbpfRejects)
}

// TestValidateRulesKernel checks the hand-built edge cases against the
// running kernel: same verdict, and for rejections the same reason.
func TestValidateRulesKernel(t *testing.T) {
	requireKernel(t)
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			s, data := ruleBlob(tc)
			err := s.Validate()
			k := kernelLoad(t, data)
			t.Logf("validator: %v\nkernel:    %v %s", err, k.errno, k.lastLine())
			if k.accepted != (err == nil) {
				t.Fatalf("kernel accepted=%v, validator: %v\n%s", k.accepted, err, k.log)
			}
			if k.accepted {
				return
			}
			if !strings.Contains(k.log, tc.kernel) {
				t.Errorf("kernel log does not say %q:\n%s", tc.kernel, k.log)
			}
			var ve *btf.ValidationError
			if errors.As(err, &ve) && !strings.Contains(k.log, ve.Kernel) {
				t.Errorf("validator's kernel phrase %q is not in the kernel log:\n%s", ve.Kernel, k.log)
			}
		})
	}
}

// TestValidateRandomKernel is a differential test: it applies random
// single-word mutations to the type section of real BTF (alternately the
// nf_conntrack module, loaded merged with its base, and the kbuild vmlinux)
// and requires the validator and the kernel to agree on every verdict, and
// on the reason for every rejection. The seed is fixed so that a
// disagreement reproduces; GOBTF_RANDOM_MUTATIONS sets the count
// and GOBTF_RANDOM_SEED the seed.
func TestValidateRandomKernel(t *testing.T) {
	requireKernel(t)
	n, seed := 150, uint64(1)
	if s := os.Getenv("GOBTF_RANDOM_MUTATIONS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GOBTF_RANDOM_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	baseData := readRef(t, kbuildName)
	base, err := btf.Parse(baseData, nil)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		f     *corruptFixture
		base  *btf.Spec // nil for the standalone vmlinux
		orig  []byte
		total btf.TypeID
		strs  uint32
	}
	var targets []target
	for _, f := range []*corruptFixture{
		newFixture(t, readRef(t, "modules/nf_conntrack.btf"), base),
		newFixture(t, baseData, nil),
	} {
		b := f.spec.Base()
		targets = append(targets, target{f, b, append([]byte(nil), f.data...), f.spec.TypeCount(), f.spec.Strings().Len()})
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	var rejected int
	for i := range n {
		tg := targets[i%len(targets)]
		f := tg.f
		copy(f.data, tg.orig)
		id := f.spec.FirstID() + btf.TypeID(rng.IntN(f.spec.NumTypes()))
		w := rng.IntN(len(f.spec.Type(id)))
		old := f.get(id, w)
		var val uint32
		switch rng.IntN(8) {
		case 0:
			val = old ^ 1<<rng.IntN(32)
		case 1:
			val = rng.Uint32N(tg.total + 3)
		case 2:
			val = f.spec.FirstID() + rng.Uint32N(uint32(f.spec.NumTypes()))
		case 3:
			val = rng.Uint32N(tg.strs + 3)
		case 4:
			val = old + rng.Uint32N(9) - 4
		case 5:
			val = rng.Uint32N(300)
		case 6:
			val = old ^ 1<<(24+rng.IntN(8))
		default:
			val = rng.Uint32()
		}
		f.set(id, w, val)
		_, ours := btf.ValidateBlob(f.data, tg.base, btf.ValidateOptions{})
		blob := f.data
		if tg.base != nil {
			blob = mergeRaw(baseData, f.data)
		}
		k := kernelLoad(t, blob)
		if k.accepted != (ours == nil) {
			t.Errorf("mutation %d: type [%d] %s word %d %#x -> %#x: kernel accepted=%v, validator: %v\nkernel: %s",
				i, id, f.spec.Type(id).Kind(), w, old, val, k.accepted, ours, k.lastLine())
		}
		var ve *btf.ValidationError
		if !k.accepted && errors.As(ours, &ve) && !strings.Contains(k.log, ve.Kernel) {
			t.Errorf("mutation %d: type [%d] %s word %d %#x -> %#x: validator: %v (kernel phrase %q); kernel says: %s",
				i, id, f.spec.Type(id).Kind(), w, old, val, ours, ve.Kernel, k.lastLine())
		}
		if ours != nil {
			rejected++
		}
	}
	t.Logf("%d random mutations, %d rejected by both, %d accepted by both (unless reported)", n, rejected, n-rejected)
}

// TestValidateLayoutKernel hands pahole's blob with a kind layout section to
// the running kernel: one without the section refuses its header, as ValidateBlob's
// default rules do; one that takes it must be matched by the LayoutSection
// rules.
func TestValidateLayoutKernel(t *testing.T) {
	requireKernel(t)
	data := paholeLayoutBlob(t)
	v := kernelLoad(t, data)
	if v.accepted {
		if _, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{LayoutSection: true}); err != nil {
			t.Errorf("the kernel accepts the layout section; ValidateBlob with LayoutSection: %v", err)
		}
		return
	}
	_, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{})
	var ve *btf.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(v.log, ve.Kernel) {
		t.Errorf("the kernel refuses the blob (%v: %s); ValidateBlob: %v", v.errno, v.lastLine(), err)
	}
}
