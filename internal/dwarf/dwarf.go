// Package dwarf is gobtf's DWARF vocabulary: the typed names of the tags,
// attributes, forms, base type encodings, expression operations,
// languages, calling conventions, unit types and location list entries
// the decoder (internal/dwarf/die), the converter and the layout view read.
// Tags and attributes are those of the standard library's debug/dwarf, whose
// types they share, with the vendor extensions gobtf reads beside them;
// debug/dwarf has no exported names for the rest. LEB128 numbers are read
// by internal/dwarf/leb128, location expressions and lists by
// internal/dwarf/loc.
//
// Values are from the DWARF 5 standard (section 7) and, for the GNU and
// LLVM extensions, from the producers that write them.
package dwarf

import std "debug/dwarf"

// Tag is a DIE's tag (DW_TAG_*), debug/dwarf's type.
type Tag = std.Tag

// The tags gobtf reads.
const (
	TagArrayType             = std.TagArrayType
	TagClassType             = std.TagClassType
	TagEnumerationType       = std.TagEnumerationType
	TagFormalParameter       = std.TagFormalParameter
	TagLexicalBlock          = std.TagLexDwarfBlock
	TagMember                = std.TagMember
	TagPointerType           = std.TagPointerType
	TagReferenceType         = std.TagReferenceType
	TagCompileUnit           = std.TagCompileUnit
	TagStringType            = std.TagStringType
	TagStructType            = std.TagStructType
	TagSubroutineType        = std.TagSubroutineType
	TagTypedef               = std.TagTypedef
	TagUnionType             = std.TagUnionType
	TagUnspecifiedParameters = std.TagUnspecifiedParameters
	TagInheritance           = std.TagInheritance
	TagInlinedSubroutine     = std.TagInlinedSubroutine
	TagPtrToMemberType       = std.TagPtrToMemberType
	TagSubrangeType          = std.TagSubrangeType
	TagBaseType              = std.TagBaseType
	TagConstType             = std.TagConstType
	TagEnumerator            = std.TagEnumerator
	TagSubprogram            = std.TagSubprogram
	TagVariable              = std.TagVariable
	TagVolatileType          = std.TagVolatileType
	TagRestrictType          = std.TagRestrictType
	TagNamespace             = std.TagNamespace
	TagUnspecifiedType       = std.TagUnspecifiedType
	TagPartialUnit           = std.TagPartialUnit
	TagTypeUnit              = std.TagTypeUnit
	TagRvalueReferenceType   = std.TagRvalueReferenceType
	TagAtomicType            = std.TagAtomicType
	TagSkeletonUnit          = std.TagSkeletonUnit

	// TagLLVMAnnotation is clang's btf_type_tag and btf_decl_tag
	// annotation, a child of what it annotates.
	TagLLVMAnnotation Tag = 0x6000
	// TagGNUAnnotation is gcc's (16 and later), an entry of its own that
	// AttrGNUAnnotation chains from what it annotates.
	TagGNUAnnotation Tag = 0x6001
)

// Attr is an attribute's name (DW_AT_*), debug/dwarf's type.
type Attr = std.Attr

// The attributes gobtf reads, or steps over by name.
const (
	AttrSibling           = std.AttrSibling
	AttrLocation          = std.AttrLocation
	AttrName              = std.AttrName
	AttrByteSize          = std.AttrByteSize
	AttrBitOffset         = std.AttrBitOffset
	AttrBitSize           = std.AttrBitSize
	AttrStmtList          = std.AttrStmtList
	AttrLowpc             = std.AttrLowpc
	AttrHighpc            = std.AttrHighpc
	AttrLanguage          = std.AttrLanguage
	AttrCompDir           = std.AttrCompDir
	AttrConstValue        = std.AttrConstValue
	AttrInline            = std.AttrInline
	AttrProducer          = std.AttrProducer
	AttrPrototyped        = std.AttrPrototyped
	AttrUpperBound        = std.AttrUpperBound
	AttrAbstractOrigin    = std.AttrAbstractOrigin
	AttrAccessibility     = std.AttrAccessibility
	AttrArtificial        = std.AttrArtificial
	AttrCallingConvention = std.AttrCalling
	AttrCount             = std.AttrCount
	AttrDataMemberLoc     = std.AttrDataMemberLoc
	AttrDeclColumn        = std.AttrDeclColumn
	AttrDeclFile          = std.AttrDeclFile
	AttrDeclLine          = std.AttrDeclLine
	AttrDeclaration       = std.AttrDeclaration
	AttrEncoding          = std.AttrEncoding
	AttrExternal          = std.AttrExternal
	AttrSpecification     = std.AttrSpecification
	AttrType              = std.AttrType
	AttrCallColumn        = std.AttrCallColumn
	AttrCallFile          = std.AttrCallFile
	AttrCallLine          = std.AttrCallLine
	AttrSignature         = std.AttrSignature
	AttrDataBitOffset     = std.AttrDataBitOffset
	AttrStrOffsetsBase    = std.AttrStrOffsetsBase
	AttrAddrBase          = std.AttrAddrBase
	AttrRnglistsBase      = std.AttrRnglistsBase
	AttrCallAllCalls      = std.AttrCallAllCalls
	AttrCallAllTailCalls  = std.AttrCallAllTailCalls
	AttrNoreturn          = std.AttrNoreturn
	AttrAlignment         = std.AttrAlignment
	AttrLoclistsBase      = std.AttrLoclistsBase
)

// GNU extensions of the attributes.
const (
	AttrGNUVector           Attr = 0x2107 // an array type that is a GNU vector
	AttrGNUAllTailCallSites Attr = 0x2116
	AttrGNUAllCallSites     Attr = 0x2117
	AttrGNUDWOID            Attr = 0x2131 // split DWARF before DWARF 5: the unit's DWO id
	AttrGNURangesBase       Attr = 0x2132
	AttrGNUAddrBase         Attr = 0x2133
	AttrGNULocviews         Attr = 0x2137
	AttrGNUEntryView        Attr = 0x2138
	AttrGNUAnnotation       Attr = 0x2139 // gcc: the first TagGNUAnnotation entry of what it annotates
)
