//go:build linux

package btfcheck_test

import (
	"fmt"
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

// The oracle of the load check is the running kernel: for each blob, gobtf
// check --as load --kernel running must give BPF_BTF_LOAD's verdict and,
// for a rejection, the verifier log's last line (gobtf renders the line
// the kernel writes, details included, so the whole line is compared) and
// error number.

// oracle compares gobtf's load check of a blob with the kernel's.
type oracle struct {
	t        *testing.T
	dir      string
	kernel   btfcheck.Kernel
	basePath string // the kbuild vmlinux BTF, for split blobs
	baseData []byte

	n, fails, rejected, lineEqual int
	byReason                      map[string]int
}

func newOracle(t *testing.T) *oracle {
	testutil.RequireKernel(t)
	k, err := btfcheck.ParseKernel("running")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return &oracle{t: t, dir: t.TempDir(), kernel: k,
		basePath: testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf"),
		baseData: testutil.ReadReference(t, testutil.VmlinuxName+".kbuild.btf"),
		byReason: map[string]int{}}
}

// compare checks one blob (split on the kbuild vmlinux when split) both
// ways and returns a description of any disagreement ("" when they agree).
func (o *oracle) compare(blob []byte, split bool) string {
	d := o.compare1(blob, split)
	if d != "" {
		o.fails++
	}
	return d
}

func (o *oracle) compare1(blob []byte, split bool) string {
	o.n++
	path := filepath.Join(o.dir, "blob.btf")
	if err := os.WriteFile(path, blob, 0o644); err != nil {
		o.t.Fatal(err)
	}
	opts := btfcheck.Options{As: btfcheck.AsLoad, Kernel: o.kernel, Workers: 1}
	kblob := blob
	if split {
		opts.Base = o.basePath
		kblob = testutil.MergeRaw(o.baseData, blob)
	}
	var res btfcheck.Result
	if err := btfcheck.Run([]string{path}, opts, func(r btfcheck.Result) { res = r }); err != nil {
		return fmt.Sprintf("gobtf check failed: %v", err)
	}
	if res.Err != nil {
		return fmt.Sprintf("gobtf check could not check the blob: %v", res.Err)
	}
	k := testutil.KernelLoad(o.t, kblob)
	if k.Accepted != res.Accepted {
		ours := "accepted"
		if !res.Accepted {
			ours = btfcheck.Line(res.Faults[0].ValidationError)
		}
		return fmt.Sprintf("kernel accepted=%v (%v: %s); gobtf: %s", k.Accepted, k.Errno, k.LastLine(), ours)
	}
	if k.Accepted {
		return ""
	}
	o.rejected++
	f := res.Faults[0]
	o.byReason[f.Kernel]++
	if syscall.Errno(f.Errno) != k.Errno {
		return fmt.Sprintf("kernel errno %d (%v), gobtf's %d, for %s", int(k.Errno), k.Errno, f.Errno, btfcheck.Line(f.ValidationError))
	}
	if strings.TrimSpace(k.Log) == "" {
		if f.Kernel != "" {
			return fmt.Sprintf("the kernel logs nothing, gobtf says %q", f.Kernel)
		}
		o.lineEqual++
		return ""
	}
	last := k.LastLine()
	if !strings.HasSuffix(last, f.Kernel) || f.Kernel == "" {
		return fmt.Sprintf("kernel's last line %q does not end with gobtf's reason %q (%s)", last, f.Kernel, f.Rule)
	}
	if ours := f.Log; len(ours) > 0 && ours[len(ours)-1] == last {
		o.lineEqual++
	} else {
		return fmt.Sprintf("kernel's last line %q, gobtf's %q", last, ours)
	}
	return ""
}

func (o *oracle) report() {
	o.t.Logf("%d blobs: the kernel and gobtf check --as load agree on %d (same verdict, and for the %d rejections the same reason, error number and last log line: %d)",
		o.n, o.n-o.fails, o.rejected, o.lineEqual)
	for r, n := range o.byReason {
		o.t.Logf("  %5d  %s", n, r)
	}
}

// TestCheckCorruptKernel is the oracle run over the corruption table of the
// validator's tests and the corruptions of scripts/btfcorrupt (a struct
// list_head 1 and 9 bytes short).
func TestCheckCorruptKernel(t *testing.T) {
	o := newOracle(t)
	fails := 0
	testutil.ForEachCorruption(t, func(t *testing.T, tc testutil.Corruption, data []byte, base *btf.Spec, _ []byte) {
		if d := o.compare(data, base != nil); d != "" {
			fails++
			t.Error(d)
		}
	})
	for _, by := range []uint32{1, 9} {
		t.Run(fmt.Sprintf("btfcorrupt list_head -%d", by), func(t *testing.T) {
			f := testutil.NewCorruptFixture(t, o.baseData, nil)
			id := f.FindNamed(btf.KindStruct, "list_head")
			f.Set(id, 2, f.Get(id, 2)-by)
			if d := o.compare(f.Data, false); d != "" {
				fails++
				t.Error(d)
			}
		})
	}
	o.report()
	if fails > 0 {
		t.Errorf("%d of %d disagree", fails, o.n)
	}
}

// TestCheckMutationsKernel is the oracle run over random mutations of real
// BTF: the kbuild vmlinux (its header, types, members, DATASEC entries and
// strings) and the nf_conntrack and xfs modules on it (all but the header,
// which btfload does not hand to the kernel). GOBTF_CHECK_MUTATIONS sets
// the count (make test-check-kernel runs 10,000), GOBTF_CHECK_SEED the seed.
func TestCheckMutationsKernel(t *testing.T) {
	o := newOracle(t)
	n, seed := 200, uint64(1)
	if testing.Short() {
		n = 20
	}
	if s := os.Getenv("GOBTF_CHECK_MUTATIONS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GOBTF_CHECK_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	base, err := btf.Parse(o.baseData, nil)
	if err != nil {
		t.Fatal(err)
	}
	var targets []*testutil.Mutator
	for _, tg := range []struct {
		data []byte
		base *btf.Spec
	}{{o.baseData, nil}, {testutil.ReadReference(t, "modules/nf_conntrack.btf"), base}, {testutil.ReadReference(t, "modules/xfs.btf"), base}} {
		m, err := testutil.NewMutator(tg.data, tg.base)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, m)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	fails := 0
	regions := map[string]int{}
	for i := range n {
		tg := targets[i%len(targets)]
		blob, what := tg.Mutate(rng)
		regions[strings.Fields(what)[0]]++
		if d := o.compare(blob, tg.Base != nil); d != "" {
			fails++
			if fails <= 50 {
				t.Errorf("mutation %d (%s): %s", i, what, d)
			}
		}
	}
	o.report()
	t.Logf("mutated regions: %v", regions)
	if fails > 0 {
		t.Errorf("%d of %d mutations disagree", fails, n)
	}
}
