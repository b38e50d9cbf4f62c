//go:build !linux

package hugemem

const supported = false

func useHuge() bool { return false }

func advise(b []byte) {}

func populate(b []byte) bool { return false }

func release(p, n uintptr) {}

func discard(b []byte) {}
