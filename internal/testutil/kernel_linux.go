//go:build linux

package testutil

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
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

// KernelVerdict is what BPF_BTF_LOAD said about a blob.
type KernelVerdict struct {
	Accepted bool
	Errno    syscall.Errno
	Log      string // the verifier log (level 1), trimmed
}

// LastLine returns the last non-empty line of the log: where the kernel
// states the fault.
func (k KernelVerdict) LastLine() string {
	lines := strings.Split(strings.TrimSpace(k.Log), "\n")
	return lines[len(lines)-1]
}

// KernelLoad loads data with BPF_BTF_LOAD and closes the resulting BTF
// object at once. A rejected blob is loaded a second time with a verifier
// log, to learn why: the first load has none, because a log that overflows
// its buffer makes even a valid blob fail. It skips the test when the
// command is not available (EPERM, ENOSYS).
func KernelLoad(t *testing.T, data []byte) KernelVerdict {
	t.Helper()
	if sysBPF == 0 {
		t.Skipf("skipping: bpf(2) system call number unknown on %s", runtime.GOARCH)
	}
	errno := bpfBTFLoadRaw(data, nil)
	if errno == 0 {
		return KernelVerdict{Accepted: true}
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
	return KernelVerdict{Errno: errno, Log: string(logBuf[:n])}
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

// RequireKernel skips unless the test may load BTF into the running kernel.
func RequireKernel(t *testing.T) {
	t.Helper()
	RequireRoot(t)
	if testing.Short() {
		t.Skip("skipping the kernel-oracle comparison in -short mode")
	}
}

// MergeRaw turns split BTF into the standalone blob the kernel can verify,
// as btfload does: one header, the base's types then the split's, the base's
// strings then the split's. Split type IDs and string offsets already
// continue the base's, so nothing is renumbered. The split blob's header is
// read as it is, without validation (it may be a corrupted one), and must be
// in host byte order.
func MergeRaw(base, split []byte) []byte {
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

// BtfloadVerdict runs the shared btfload tool on a blob written to a temp
// file (with --base for split BTF) and returns its exit code: 0 accepted by
// the kernel, 1 rejected by the kernel, 2 refused by libbpf's parser before
// the kernel was asked.
func BtfloadVerdict(t *testing.T, tool string, data []byte, basePath string) int {
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
