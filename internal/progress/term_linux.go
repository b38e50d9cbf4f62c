package progress

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth reports whether f is a terminal (the TCGETS ioctl
// succeeds on it) and its width in columns (0 when unknown).
func terminalWidth(f *os.File) (int, bool) {
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return 0, false
	}
	var ws struct{ row, col, x, y uint16 }
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		return 0, true
	}
	return int(ws.col), true
}
