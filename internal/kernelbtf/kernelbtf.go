// Package kernelbtf finds the running kernel's type information where
// pahole looks for it: its BTF ($PAHOLE_VMLINUX_BTF_FILENAME, else
// /sys/kernel/btf/vmlinux), the base of a module's BTF under
// /sys/kernel/btf, and the vmlinux whose GNU build ID is the one in
// /sys/kernel/notes, searched in pahole's order of candidate files.
//
// Every path goes through a System, whose Root a test points at a
// directory of its own to stand for the machine's /sys, /boot, /lib and
// /usr.
package kernelbtf

import (
	"encoding/binary"
	"os"
	"strings"
	"syscall"
)

// System is the machine a search looks at.
type System struct {
	// Root is prefixed to every absolute path looked at; "" for the
	// machine's own files.
	Root string
	// Release is the running kernel's release (uname -r).
	Release string
	// Home is $HOME, and HasHome whether it is set: pahole looks in the
	// debuginfod client's cache under it.
	Home    string
	HasHome bool
	// BTFEnv is $PAHOLE_VMLINUX_BTF_FILENAME, and HasBTFEnv whether it
	// is set.
	BTFEnv    string
	HasBTFEnv bool
}

// Host returns the System of this machine: its files, its kernel's
// release and this process's environment.
func Host() System {
	s := System{}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		s.Release = cString(u.Release[:])
	}
	s.Home, s.HasHome = os.LookupEnv("HOME")
	s.BTFEnv, s.HasBTFEnv = os.LookupEnv("PAHOLE_VMLINUX_BTF_FILENAME")
	return s
}

func cString(b []int8) string {
	var out []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// sysfsBTF is the directory where the kernel publishes its BTF: vmlinux,
// and one split file per loaded module.
const sysfsBTF = "/sys/kernel/btf/"

// SysfsDir returns the kernel's BTF directory, with its trailing slash.
func (s System) SysfsDir() string { return s.Root + sysfsBTF }

// SysfsVmlinux returns the kernel's own BTF file under SysfsDir, the base
// bpftool reads a module's file there on.
func (s System) SysfsVmlinux() string { return s.SysfsDir() + "vmlinux" }

// VmlinuxBTF returns the BTF pahole reads for the running kernel, and
// loads a module's BTF under /sys/kernel/btf on: the file
// $PAHOLE_VMLINUX_BTF_FILENAME names when it is set, else SysfsVmlinux.
func (s System) VmlinuxBTF() string {
	if s.HasBTFEnv {
		return s.BTFEnv
	}
	return s.SysfsVmlinux()
}

// IsSysfsModule reports whether path names a module's BTF under
// /sys/kernel/btf as pahole tells one: it starts with that directory and
// has no "/vmlinux" after it.
func (s System) IsSysfsModule(path string) bool {
	rest, ok := strings.CutPrefix(path, s.SysfsDir())
	return ok && !strings.Contains("/"+rest, "/vmlinux")
}

// Candidates returns the files pahole's search for the running kernel's
// vmlinux reads the build ID of, in its order: vmlinux in the current
// directory, /boot/vmlinux, then the places distributions install a
// kernel's debug image for its release, then the debuginfod client's
// cache under $HOME (when $HOME is set and the running kernel's build ID
// is known).
func (s System) Candidates() []string {
	out := []string{"vmlinux", s.Root + "/boot/vmlinux"}
	for _, f := range []string{
		"/boot/vmlinux-%s",
		"/usr/lib/debug/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/usr/lib/debug/boot/vmlinux-%s.debug",
	} {
		out = append(out, s.Root+strings.Replace(f, "%s", s.Release, 1))
	}
	if id, ok := s.RunningBuildID(); ok && s.HasHome {
		out = append(out, s.Home+"/.cache/debuginfod_client/"+id+"/debuginfo")
	}
	return out
}

// RunningBuildID returns the running kernel's GNU build ID, in hex, from
// /sys/kernel/notes.
func (s System) RunningBuildID() (string, bool) {
	data, err := os.ReadFile(s.Root + "/sys/kernel/notes")
	if err != nil {
		return "", false
	}
	return notesBuildID(data, binary.NativeEndian, true)
}

// FindVmlinux returns the first of Candidates whose build ID is the
// running kernel's, as pahole --running_kernel_vmlinux prints it.
func (s System) FindVmlinux() (string, bool) {
	want, ok := s.RunningBuildID()
	if !ok {
		return "", false
	}
	for _, c := range s.Candidates() {
		if id, ok := FileBuildID(c); ok && id == want {
			return c, true
		}
	}
	return "", false
}
