package linkmap

import "bytes"

// lld and mold write one table, a row per output section, input section
// and symbol, told apart by the indentation of the last column:
//
//	lld:   VMA LMA Size Align Out In Symbol    (hex, hex, hex, decimal)
//	lld<7: Address Size Align Out In Symbol    (hex, hex, decimal)
//	mold:  VMA Size Align Out In Symbol        (0x hex, decimal, decimal)
//
// An input section row names "FILE:(SECTION)"; lld may follow the table
// with a cross reference table (-Wl,--cref).

type tableLayout struct {
	cols    int  // numeric columns before the name
	hexSize bool // the size column is hex (lld) rather than decimal (mold)
	symSize bool // symbol rows carry the symbol's size (lld; mold prints 0)
}

var (
	lldHeader    = []string{"VMA", "LMA", "Size", "Align", "Out", "In", "Symbol"}
	lldOldHeader = []string{"Address", "Size", "Align", "Out", "In", "Symbol"}
	moldHeader   = []string{"VMA", "Size", "Align", "Out", "In", "Symbol"}
)

// tableHeader recognises the header line of an lld or mold map.
func tableHeader(l []byte) (tableLayout, Format) {
	switch {
	case fieldsAre(l, lldHeader):
		return tableLayout{cols: 4, hexSize: true, symSize: true}, FormatLLD
	case fieldsAre(l, lldOldHeader):
		return tableLayout{cols: 3, hexSize: true, symSize: true}, FormatLLD
	case fieldsAre(l, moldHeader):
		return tableLayout{cols: 3}, FormatMold
	}
	return tableLayout{}, FormatUnknown
}

func fieldsAre(l []byte, want []string) bool {
	rest := l
	for _, w := range want {
		var f []byte
		f, rest = field(rest)
		if string(f) != w {
			return false
		}
	}
	return len(trim(rest)) == 0
}

func (p *parser) parseTable(t tableLayout) {
	var (
		curFile  string // the file of the last input section row
		lastFile string // the last file interned
		rows     bool
		cref     bool
	)
	for {
		l, ok := p.lr.next()
		if !ok {
			break
		}
		n := p.lr.n
		if cref {
			p.crefLine(l, n, "")
			continue
		}
		if len(trim(l)) == 0 {
			continue
		}
		if l[0] != ' ' && string(trimRight(l)) == "Cross Reference Table" {
			cref = true
			p.m.CrossReference = true
			continue
		}
		addr, size, name, level, ok := t.row(l)
		if !ok {
			p.failf(n, "not a %s map row (%d numbers, then a name): %s", p.m.Format, t.cols, quote(l))
			return
		}
		rows = true
		switch level {
		case 0:
			curFile = ""
			if bytes.IndexByte(name, '=') >= 0 {
				continue // a linker script assignment
			}
			if p.m.Format == FormatMold {
				switch string(name) {
				case "EHDR", "PHDR", "SHDR": // headers, not sections
					continue
				}
			}
			if !p.opt.NoSymbols {
				p.outSecs.add(OutputSection{Name: p.intern(name), Addr: addr, Size: size, Line: n})
			}
		case 1:
			curFile = ""
			file, ok := sectionFile(name)
			if !ok || isPseudo(file) {
				continue // a script command, or a linker-made section
			}
			if string(file) == lastFile {
				curFile = lastFile // sections of one file in a row
				continue
			}
			curFile = p.intern(file)
			lastFile = curFile
			p.addMention(curFile, n)
			p.addExtracted(curFile, n)
			if p.err != nil {
				return // past MaxKept
			}
		default:
			if isMappingSymbol(name) {
				continue
			}
			s := Symbol{Addr: addr, File: curFile, Line: n}
			if t.symSize {
				s.Size = size
			}
			p.addSymbol(name, s)
		}
	}
	if p.lr.err == nil && p.err == nil && !rows {
		p.failf(p.lr.n, "truncated: the %s map has a header and no rows", p.m.Format)
	}
}

// row parses a table row: its address, its size, the name column and its
// level (0 output section, 1 input section, 2 symbol).
func (t tableLayout) row(l []byte) (addr, size uint64, name []byte, level int, ok bool) {
	rest := l
	for i := 0; i < t.cols; i++ {
		var f []byte
		f, rest = field(rest)
		var v uint64
		switch {
		case i == 0 || (i == 1 && t.cols == 4): // VMA, LMA
			v, ok = parseHex(f)
		case i == t.cols-2: // Size
			if t.hexSize {
				v, ok = parseHex(f)
			} else {
				v, ok = parseDec(f)
			}
			size = v
		default: // Align
			v, ok = parseDec(f)
		}
		if !ok {
			return 0, 0, nil, 0, false
		}
		if i == 0 {
			addr = v
		}
	}
	// One space separates the numbers from the name column; the
	// indentation after it gives the level (0, 8 or 16 spaces).
	if len(rest) < 2 || rest[0] != ' ' {
		return 0, 0, nil, 0, false
	}
	rest = rest[1:]
	in := indent(rest)
	name = trimRight(rest[in:])
	if len(name) == 0 {
		return 0, 0, nil, 0, false
	}
	switch {
	case in < 4:
		level = 0
	case in < 12:
		level = 1
	default:
		level = 2
	}
	return addr, size, name, level, true
}

// sectionFile returns FILE from "FILE:(SECTION)".
func sectionFile(s []byte) ([]byte, bool) {
	if len(s) < 4 || s[len(s)-1] != ')' {
		return nil, false
	}
	i := bytes.LastIndex(s, []byte(":("))
	if i <= 0 {
		return nil, false
	}
	return s[:i], true
}
