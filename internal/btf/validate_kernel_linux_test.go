//go:build linux

package btf_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfcheck"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestValidateReferenceKernel confirms that the running kernel accepts the
// unmodified reference files, the baseline of the corruption tests.
func TestValidateReferenceKernel(t *testing.T) {
	testutil.RequireKernel(t)
	base := testutil.ReadReference(t, kbuildName)
	if v := testutil.KernelLoad(t, base); !v.Accepted {
		t.Fatalf("kernel rejects %s: %v\n%s", kbuildName, v.Errno, v.LastLine())
	}
	for _, m := range testutil.ModuleNames {
		if v := testutil.KernelLoad(t, testutil.MergeRaw(base, testutil.ReadReference(t, "modules/"+m+".btf"))); !v.Accepted {
			t.Errorf("kernel rejects module %s on its base: %v\n%s", m, v.Errno, v.LastLine())
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
	testutil.RequireKernel(t)
	tool := ""
	if _, err := os.Stat(filepath.Join(testutil.SharedDir(t), "tools")); err == nil {
		tool = testutil.Tool(t, "btfload")
	}
	basePath := testutil.Reference(t, kbuildName)
	var kernelRejects, libbpfRejects int
	testutil.ForEachCorruption(t, func(t *testing.T, tc testutil.Corruption, data []byte, base *btf.Spec, baseData []byte) {
		blob := data
		if base != nil {
			blob = testutil.MergeRaw(baseData, data)
		}
		k := testutil.KernelLoad(t, blob)
		if k.Accepted {
			t.Fatalf("the kernel accepts the blob the validator rejects")
		}
		tail := k.Log
		if i := strings.LastIndex(strings.TrimRight(tail, "\n"), "\n["); i >= 0 {
			tail = tail[i+1:]
		}
		if !strings.Contains(tail, tc.Kernel) {
			t.Errorf("kernel log does not say %q:\n%s", tc.Kernel, tail)
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
		switch code := testutil.BtfloadVerdict(t, tool, data, path); code {
		case 1:
			kernelRejects++
		case 2:
			libbpfRejects++
		default:
			t.Errorf("btfload exit code %d, want 1 (kernel rejects) or 2 (libbpf rejects)", code)
		}
	})
	t.Logf("%d corruptions: btfload got a kernel rejection for %d, libbpf refused %d before loading", len(testutil.Corruptions), kernelRejects, libbpfRejects)
}

// TestValidateRulesKernel checks the hand-built edge cases against the
// running kernel: same verdict, and for rejections the same reason.
func TestValidateRulesKernel(t *testing.T) {
	testutil.RequireKernel(t)
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			s, data := ruleBlob(tc)
			err := s.Validate()
			k := testutil.KernelLoad(t, data)
			t.Logf("validator: %v\nkernel:    %v %s", err, k.Errno, k.LastLine())
			if k.Accepted != (err == nil) {
				t.Fatalf("kernel accepted=%v, validator: %v\n%s", k.Accepted, err, k.Log)
			}
			if k.Accepted {
				return
			}
			if !strings.Contains(k.Log, tc.kernel) {
				t.Errorf("kernel log does not say %q:\n%s", tc.kernel, k.Log)
			}
			var ve *btf.ValidationError
			if errors.As(err, &ve) && !strings.Contains(k.Log, ve.Kernel) {
				t.Errorf("validator's kernel phrase %q is not in the kernel log:\n%s", ve.Kernel, k.Log)
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
	testutil.RequireKernel(t)
	n, seed := 150, uint64(1)
	if s := os.Getenv("GOBTF_RANDOM_MUTATIONS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GOBTF_RANDOM_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	baseData := testutil.ReadReference(t, kbuildName)
	base, err := btf.Parse(baseData, nil)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		f     *testutil.CorruptFixture
		base  *btf.Spec // nil for the standalone vmlinux
		orig  []byte
		total btf.TypeID
		strs  uint32
	}
	var targets []target
	for _, f := range []*testutil.CorruptFixture{
		testutil.NewCorruptFixture(t, testutil.ReadReference(t, "modules/nf_conntrack.btf"), base),
		testutil.NewCorruptFixture(t, baseData, nil),
	} {
		b := f.Spec.Base()
		targets = append(targets, target{f, b, append([]byte(nil), f.Data...), f.Spec.TypeCount(), f.Spec.Strings().Len()})
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	var rejected int
	for i := range n {
		tg := targets[i%len(targets)]
		f := tg.f
		copy(f.Data, tg.orig)
		id := f.Spec.FirstID() + btf.TypeID(rng.IntN(f.Spec.NumTypes()))
		w := rng.IntN(len(f.Spec.Type(id)))
		old := f.Get(id, w)
		var val uint32
		switch rng.IntN(8) {
		case 0:
			val = old ^ 1<<rng.IntN(32)
		case 1:
			val = rng.Uint32N(tg.total + 3)
		case 2:
			val = f.Spec.FirstID() + rng.Uint32N(uint32(f.Spec.NumTypes()))
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
		f.Set(id, w, val)
		_, ours := btf.ValidateBlob(f.Data, tg.base, btf.ValidateOptions{})
		blob := f.Data
		if tg.base != nil {
			blob = testutil.MergeRaw(baseData, f.Data)
		}
		k := testutil.KernelLoad(t, blob)
		if k.Accepted != (ours == nil) {
			t.Errorf("mutation %d: type [%d] %s word %d %#x -> %#x: kernel accepted=%v, validator: %v\nkernel: %s",
				i, id, f.Spec.Type(id).Kind(), w, old, val, k.Accepted, ours, k.LastLine())
		}
		var ve *btf.ValidationError
		if !k.Accepted && errors.As(ours, &ve) && !strings.Contains(k.Log, ve.Kernel) {
			t.Errorf("mutation %d: type [%d] %s word %d %#x -> %#x: validator: %v (kernel phrase %q); kernel says: %s",
				i, id, f.Spec.Type(id).Kind(), w, old, val, ours, ve.Kernel, k.LastLine())
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
	testutil.RequireKernel(t)
	data := paholeLayoutBlob(t)
	v := testutil.KernelLoad(t, data)
	if v.Accepted {
		if _, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{LayoutSection: true}); err != nil {
			t.Errorf("the kernel accepts the layout section; ValidateBlob with LayoutSection: %v", err)
		}
		return
	}
	_, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{})
	var ve *btf.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(v.Log, ve.Kernel) {
		t.Errorf("the kernel refuses the blob (%v: %s); ValidateBlob: %v", v.Errno, v.LastLine(), err)
	}
}

// TestCheckRulesKernel checks CheckKernel's load check on the hand-built
// edge cases against the running kernel: the same verdict and, for each
// rejection, the error number and the verifier log's last line, as gobtf
// check renders it.
func TestCheckRulesKernel(t *testing.T) {
	testutil.RequireKernel(t)
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			_, data := ruleBlob(tc)
			s, faults := btf.CheckKernel(data, nil, btf.ValidateOptions{})
			k := testutil.KernelLoad(t, data)
			if k.Accepted != (len(faults) == 0) {
				t.Fatalf("kernel accepted=%v (%s), CheckKernel: %v", k.Accepted, k.LastLine(), faults)
			}
			if k.Accepted {
				return
			}
			f := faults[0]
			if syscall.Errno(f.Errno) != k.Errno {
				t.Errorf("errno %d, the kernel's %d", f.Errno, k.Errno)
			}
			lines := btfcheck.VerifierLog(f, s)
			if len(lines) == 0 || lines[len(lines)-1] != k.LastLine() {
				t.Errorf("last log line %q, the kernel's %q", lines, k.LastLine())
			}
		})
	}
}
