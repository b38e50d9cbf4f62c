package btf

// TypeOffsets returns the index in Words() of the first word of each own type
// (type FirstID()+i starts at TypeOffsets()[i] and ends where the next one
// starts, or at len(Words()) for the last). It aliases the Spec: callers
// must not modify it.
func (s *Spec) TypeOffsets() []uint32 { return s.offs[:len(s.offs):len(s.offs)] }
