package btf_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// readRef reads a file under shared/reference.
func readRef(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(testutil.Reference(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// kbuildName is the reference vmlinux BTF the modules are split on.
const kbuildName = testutil.VmlinuxName + ".kbuild.btf"

// TestValidateReference checks that the reference files pahole produced,
// which the kernel's verifier accepts (shared/reference/README.md), pass
// Validate: both vmlinux files standalone and every module on its base.
func TestValidateReference(t *testing.T) {
	var base *btf.Spec
	for _, name := range []string{kbuildName, testutil.VmlinuxName + ".default.btf"} {
		s, err := btf.ValidateBlob(readRef(t, name), nil, btf.ValidateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == kbuildName {
			base = s
		}
	}
	for _, m := range testutil.ModuleNames {
		name := "modules/" + m + ".btf"
		if _, err := btf.ValidateBlob(readRef(t, name), base, btf.ValidateOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestValidateUndeduplicated validates the 3.4 M-type vmlinux BTF before
// deduplication: it breaks the kernel's type limit, which Validate reports,
// and passes every other rule with the limits lifted. It also bounds the
// time that takes.
func TestValidateUndeduplicated(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 3.4 M-type file in -short mode")
	}
	s, err := btf.Parse(readRef(t, testutil.VmlinuxName+".undeduped.btf.xz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate()
	var ve *btf.ValidationError
	// The kernel checks types in ID order, and the first type past its
	// limit is preceded by one that refers beyond it.
	if !errors.As(err, &ve) || !strings.Contains(ve.Rule, "kernel's type ID limit") {
		t.Fatalf("Validate of %d types = %v, want an error naming the kernel's type ID limit", s.NumTypes(), err)
	}
	start := time.Now()
	if err := s.ValidateWith(btf.ValidateOptions{IgnoreLimits: true}); err != nil {
		t.Fatalf("ValidateWith(IgnoreLimits): %v", err)
	}
	// Speed is measured by make bench, not here: a loaded machine makes
	// any bound flaky.
	t.Logf("validated %d types in %v", s.NumTypes(), time.Since(start))
}

// TestValidationErrorFormat pins the error text format.
func TestValidationErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		err  btf.ValidationError
		want string
	}{
		{btf.ValidationError{ID: 123, Kind: btf.KindStruct, Name: "foo", Rule: "member 'bar' bit offset 70 beyond struct size 8"},
			"btf: type [123] STRUCT 'foo': member 'bar' bit offset 70 beyond struct size 8"},
		{btf.ValidationError{ID: 7, Kind: btf.KindPtr, Rule: "x"}, "btf: type [7] PTR (anon): x"},
		{btf.ValidationError{Rule: "string section is empty"}, "btf: string section is empty"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// BenchmarkValidateVmlinux validates the deduplicated reference vmlinux.
func BenchmarkValidateVmlinux(b *testing.B) {
	s, err := btf.Parse(readRef(b, kbuildName), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateUndeduplicated validates the 3.4 M-type vmlinux BTF with
// the kernel's limits lifted.
func BenchmarkValidateUndeduplicated(b *testing.B) {
	s, err := btf.Parse(readRef(b, testutil.VmlinuxName+".undeduped.btf.xz"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.ValidateWith(btf.ValidateOptions{IgnoreLimits: true}); err != nil {
			b.Fatal(err)
		}
	}
}
