//go:build !linux

package progress

import "os"

// terminalWidth reports no terminal: bars are drawn on Linux only.
func terminalWidth(*os.File) (int, bool) { return 0, false }
