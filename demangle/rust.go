package demangle

import "strings"

// legacyRust demangles a Rust symbol in the legacy scheme, which is an
// Itanium nested name whose last component is a hash, "_ZN...17h<16 hex>E",
// with "$LT$"-style escapes in the identifiers. It follows libiberty's
// rust-demangle.c, which c++filt uses: the hash is printed (c++filt is
// verbose by default), "_$" loses its underscore but other leading
// underscores stay, ".." is "::", and an unknown escape ends decoding and the
// rest of the identifier is printed as is. A suffix after the final "E."
// (".llvm.<n>", ".cold") is dropped.
//
// It reports false when libiberty would not take sym for legacy Rust; the
// caller then demangles it as C++, as c++filt does.
func legacyRust(sym string) (string, bool) {
	if !strings.HasPrefix(sym, "_ZN") {
		return "", false
	}
	s := sym[3:]
	if i := strings.LastIndex(s, "E."); i >= 0 {
		s = s[:i+1]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_' || c == '$' || c == '.' || c == ':') {
			return "", false
		}
	}
	// The cheap test libiberty makes before parsing: ends with E and the
	// last component looks like "17h" + 16 characters.
	if !strings.HasSuffix(s, "E") || len(s) <= 20 || s[len(s)-20:len(s)-17] != "17h" {
		return "", false
	}
	s = s[:len(s)-1]
	var idents []string
	for len(s) > 0 {
		n, rest, ok := decimal(s)
		if !ok || n == 0 || n > len(rest) {
			return "", false
		}
		idents = append(idents, rest[:n])
		s = rest[n:]
	}
	if !isLegacyHash(idents[len(idents)-1]) {
		return "", false
	}
	var b strings.Builder
	for i, id := range idents {
		if i > 0 {
			b.WriteString("::")
		}
		writeLegacyIdent(&b, id)
	}
	return b.String(), true
}

// isLegacyHash reports whether id is "h" and 16 lowercase hex digits with at
// least 5 distinct digits, libiberty's test for the hash component.
func isLegacyHash(id string) bool {
	if len(id) != 17 || id[0] != 'h' {
		return false
	}
	var seen uint16
	for i := 1; i < len(id); i++ {
		v := hexNibble(id[i])
		if v < 0 {
			return false
		}
		seen |= 1 << v
	}
	distinct := 0
	for ; seen != 0; seen &= seen - 1 {
		distinct++
	}
	return distinct >= 5
}

func writeLegacyIdent(b *strings.Builder, id string) {
	if strings.HasPrefix(id, "_$") {
		id = id[1:]
	}
	for len(id) > 0 {
		switch {
		case id[0] == '$':
			c, n := legacyEscape(id)
			if n == 0 {
				b.WriteString(id)
				return
			}
			b.WriteByte(c)
			id = id[n:]
		case id[0] == '.':
			if strings.HasPrefix(id, "..") {
				b.WriteString("::")
				id = id[2:]
			} else {
				b.WriteByte('.')
				id = id[1:]
			}
		default:
			n := strings.IndexAny(id, "$.")
			if n < 0 {
				n = len(id)
			}
			b.WriteString(id[:n])
			id = id[n:]
		}
	}
}

// legacyEscape decodes the escape at the start of e ("$LT$", "$C$",
// "$u20$", ...) and returns the character and the escape's length, or 0
// length when e does not start with a known escape.
func legacyEscape(e string) (byte, int) {
	if len(e) < 3 || e[0] != '$' {
		return 0, 0
	}
	body := e[1:]
	var c byte
	n := 0
	switch {
	case body[0] == 'C':
		c, n = ',', 1
	case len(body) > 2:
		n = 2
		switch body[:2] {
		case "SP":
			c = '@'
		case "BP":
			c = '*'
		case "RF":
			c = '&'
		case "LT":
			c = '<'
		case "GT":
			c = '>'
		case "LP":
			c = '('
		case "RP":
			c = ')'
		default:
			if body[0] == 'u' && len(body) > 3 {
				n = 3
				hi, lo := hexNibble(body[1]), hexNibble(body[2])
				if hi < 0 || lo < 0 || hi > 7 {
					return 0, 0
				}
				c = byte(hi<<4 | lo)
				if c < 0x20 {
					return 0, 0
				}
			}
		}
	}
	if c == 0 || len(body) <= n || body[n] != '$' {
		return 0, 0
	}
	return c, n + 2
}

// decimal parses the leading decimal number of s, refusing more digits than
// any identifier length could need.
func decimal(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		if i == 9 {
			return 0, s, false
		}
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n, s[i:], i > 0
}

func hexNibble(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isLower(c) || isUpper(c) }
