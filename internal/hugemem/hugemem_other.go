//go:build !linux

package hugemem

const supported = false

func advise(b []byte) {}
