package die

// Fixed-size reads; the caller has checked that n bytes are available.

func u16(b []byte, p int, le bool) uint64 {
	if le {
		return uint64(b[p]) | uint64(b[p+1])<<8
	}
	return uint64(b[p+1]) | uint64(b[p])<<8
}

func u24(b []byte, p int, le bool) uint64 {
	if le {
		return uint64(b[p]) | uint64(b[p+1])<<8 | uint64(b[p+2])<<16
	}
	return uint64(b[p+2]) | uint64(b[p+1])<<8 | uint64(b[p])<<16
}

func u32(b []byte, p int, le bool) uint64 {
	b = b[p : p+4]
	if le {
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
	}
	return uint64(b[3]) | uint64(b[2])<<8 | uint64(b[1])<<16 | uint64(b[0])<<24
}

func u64(b []byte, p int, le bool) uint64 {
	b = b[p : p+8]
	if le {
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
		uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
}

// uN reads an n-byte (1, 2, 4 or 8) unsigned value.
func uN(b []byte, p, n int, le bool) uint64 {
	switch n {
	case 1:
		return uint64(b[p])
	case 2:
		return u16(b, p, le)
	case 4:
		return u32(b, p, le)
	}
	return u64(b, p, le)
}
