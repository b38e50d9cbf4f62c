package core

import "github.com/gobtf/gobtf/internal/btf"

// namesMatch is libbpf's bpf_core_names_match: an anonymous target matches
// only an anonymous local; otherwise the essential names are equal.
func namesMatch(lt *Types, loff uint32, tt *Types, toff uint32) bool {
	ln, _ := lt.name(loff)
	tn, _ := tt.name(toff)
	if tn == "" {
		return ln == ""
	}
	return essentialName(ln) == essentialName(tn)
}

// enumsMatch: the same size, and every local enumerator has a target one
// of the same essential name (values are not compared).
func enumsMatch(lt *Types, l btf.Type, tt *Types, t btf.Type) bool {
	if l.Size() != t.Size() || l.Vlen() > t.Vlen() {
		return false
	}
	for i := range l.Vlen() {
		found := false
		for j := range t.Vlen() {
			if namesMatch(lt, enumNameOff(l, i), tt, enumNameOff(t, j)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// compositesMatch: every local member has a target member of the same
// essential name whose type matches.
func compositesMatch(lt *Types, l btf.Type, tt *Types, t btf.Type, behindPtr bool, level int) (bool, error) {
	if l.Vlen() > t.Vlen() {
		return false, nil
	}
	for i := range l.Vlen() {
		lm := l.Member(i)
		found := false
		for j := range t.Vlen() {
			tm := t.Member(j)
			if !namesMatch(lt, lm.NameOff, tt, tm.NameOff) {
				continue
			}
			ok, err := typesMatch(lt, lm.Type, tt, tm.Type, behindPtr, level-1)
			if err != nil {
				return false, err
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

// typesMatch is libbpf's __bpf_core_types_match, the test of TYPE_MATCHES
// candidates: after modifiers and typedefs (type tags among them) the
// names match and the kinds agree; INTs by size and signedness; enums of
// either width by size and enumerator names; structs and unions member by
// member, except behind a pointer, where the kind alone (or a FWD of the
// same kind) suffices; arrays by length and element; pointers by target;
// function prototypes parameter by parameter and by return type.
func typesMatch(lt *Types, lid btf.TypeID, tt *Types, tid btf.TypeID, behindPtr bool, level int) (bool, error) {
	if level <= 0 {
		return false, errInvalid
	}
	for depth := 32; ; {
		depth--
		if depth < 0 {
			return false, errInvalid
		}
		l, lid2, ok1 := lt.skipModsAndTypedefs(lid)
		t, tid2, ok2 := tt.skipModsAndTypedefs(tid)
		if !ok1 || !ok2 {
			return false, errInvalid
		}
		lid, tid = lid2, tid2
		if !namesMatch(lt, nameOff(l), tt, nameOff(t)) {
			return false, nil
		}
		lk, tk := l.Kind(), t.Kind()
		switch lk {
		case btf.KindUnknown:
			return lk == tk, nil
		case btf.KindFwd:
			lunion := l.KindFlag()
			if lk == tk {
				return lunion == t.KindFlag(), nil
			}
			if behindPtr {
				return tk == btf.KindStruct && !lunion || tk == btf.KindUnion && lunion, nil
			}
			return false, nil
		case btf.KindEnum, btf.KindEnum64:
			if !isAnyEnum(tk) {
				return false, nil
			}
			return enumsMatch(lt, l, tt, t), nil
		case btf.KindStruct, btf.KindUnion:
			if behindPtr {
				if lk == tk {
					return true, nil
				}
				return tk == btf.KindFwd && (lk == btf.KindUnion) == t.KindFlag(), nil
			}
			if lk != tk {
				return false, nil
			}
			return compositesMatch(lt, l, tt, t, behindPtr, level)
		case btf.KindInt:
			if lk != tk {
				return false, nil
			}
			return l.Size() == t.Size() && intSigned(l) == intSigned(t), nil
		case btf.KindPtr:
			if lk != tk {
				return false, nil
			}
			behindPtr = true
			lid, tid = l.Ref(), t.Ref()
		case btf.KindArray:
			if lk != tk {
				return false, nil
			}
			le, _, ln := l.Array()
			te, _, tn := t.Array()
			if ln != tn {
				return false, nil
			}
			lid, tid = le, te
		case btf.KindFuncProto:
			if lk != tk || l.Vlen() != t.Vlen() {
				return false, nil
			}
			for i := range l.Vlen() {
				_, lp := l.Param(i)
				_, tp := t.Param(i)
				if ok, err := typesMatch(lt, lp, tt, tp, behindPtr, level-1); !ok || err != nil {
					return ok, err
				}
			}
			lid, tid = l.Ref(), t.Ref()
		default:
			return false, nil // libbpf: "unexpected kind relocated"
		}
	}
}
