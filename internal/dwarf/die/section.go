package die

// Section names a section holding units.
type Section uint8

// The sections DIEs live in.
const (
	SecInfo  Section = iota // .debug_info
	SecTypes                // .debug_types (DWARF 4 type units)
)

func (s Section) String() string {
	if s == SecTypes {
		return ".debug_types"
	}
	return ".debug_info"
}
