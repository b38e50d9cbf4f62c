package btf_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// FuzzCheckKernel feeds arbitrary bytes to CheckKernel on each path, standalone
// and split on a small base. It must never panic; every fault must carry
// the kernel's reason unless the kernel logs none; the all-faults mode must
// start with the same fault; and on the load path it must agree with
// ValidateBlob, the decode-then-check implementation of the same rules.
func FuzzCheckKernel(f *testing.F) {
	for _, tc := range ruleCases {
		_, data := ruleBlob(tc)
		f.Add(data)
	}
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	base.AddRef(btf.KindPtr, "", i)
	split := btf.NewSpec(base)
	split.AddStruct(false, "s", 16, []btf.MemberSpec{{Name: "p", Type: 2}, {Name: "i", Type: i, BitOffset: 64}})
	split.AddRef(btf.KindTypedef, "t", 3)
	f.Add(split.Marshal(binary.LittleEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range []*btf.Spec{nil, base} {
			for _, path := range []btf.KernelPath{btf.PathLoad, btf.PathModule, btf.PathVmlinux} {
				opts := btf.ValidateOptions{Path: path}
				s, faults := btf.CheckKernel(data, b, opts)
				for _, fl := range faults {
					if fl.Kernel == "" && fl.Form != btf.FormSilent {
						t.Fatalf("%s: a fault without the kernel's reason: %v", path, fl)
					}
				}
				if len(faults) == 0 && s == nil {
					t.Fatalf("%s: accepted without a Spec", path)
				}
				opts.AllFaults = true
				_, all := btf.CheckKernel(data, b, opts)
				if (len(all) == 0) != (len(faults) == 0) || len(faults) > 0 && *all[0] != *faults[0] {
					t.Fatalf("%s: all-faults mode starts with %v, the first fault is %v", path, all, faults)
				}
				if path != btf.PathLoad || b != nil {
					continue
				}
				_, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{})
				var fe *btf.FormatError
				switch {
				case len(faults) == 0 && err != nil:
					t.Fatalf("CheckKernel accepts what ValidateBlob rejects: %v", err)
				case len(faults) > 0 && err == nil:
					t.Fatalf("ValidateBlob accepts what CheckKernel rejects: %v", faults[0])
				case len(faults) > 0 && !errors.As(err, &fe):
					var ve *btf.ValidationError
					if errors.As(err, &ve) && ve.Kernel != "" && faults[0].Kernel != "" && !sameReason(ve.Kernel, faults[0].Kernel) {
						t.Fatalf("ValidateBlob says %q (%v), CheckKernel %q (%v)", ve.Kernel, ve, faults[0].Kernel, faults[0])
					}
				}
			}
		}
	})
}

// sameReason compares two kernel reasons, the formatted values aside.
func sameReason(a, b string) bool {
	cut := func(s string) string {
		for i, c := range s {
			if c == ':' || c == '#' {
				return s[:i]
			}
		}
		return s
	}
	return cut(a) == cut(b)
}
