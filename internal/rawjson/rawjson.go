// Package rawjson reads and writes JSON text without reflection, for the
// hot paths that must not pay encoding/json's price per message: walking
// the top-level members of an object, skipping a value, measuring nesting,
// quoting a string. Input is JSON already known to be valid (or a prefix of
// it); nothing here validates.
package rawjson

import (
	"bytes"
	"unicode/utf8"
)

// Depth returns how deeply b nests, reading past strings. It does not
// check syntax.
func Depth(b []byte) int {
	d, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
		case '{', '[':
			d++
			deepest = max(deepest, d)
		case '}', ']':
			d--
		}
	}
	return deepest
}

// SkipString returns the index of the closing quote of the string that
// opens at b[i] (len(b) if it does not close).
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// SkipValue returns the index just past the JSON value starting at b[i]
// (len(b) if it is cut short). b is known to be valid JSON, or a prefix of
// it.
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i) + 1
	case '{', '[':
		d := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
			case '{', '[':
				d++
			case '}', ']':
				d--
				if d == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return len(b)
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// Members calls fn with each top-level member of the object in b, raw key
// (without quotes) and raw value, until fn returns false. It stops quietly
// at the end of a cut-short prefix. b must start with '{'.
func Members(b []byte, fn func(key, value []byte) bool) {
	i := SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		end := SkipString(b, i)
		if end >= len(b) {
			return
		}
		key := b[i+1 : end]
		i = SkipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = SkipSpace(b, i+1)
		if i >= len(b) {
			return
		}
		vend := SkipValue(b, i)
		if vend >= len(b) && (b[i] == '{' || b[i] == '[' || b[i] == '"') {
			return // cut short inside this value
		}
		if !fn(key, b[i:vend]) {
			return
		}
		i = SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
}

// Elements calls fn with each element of the array in b, raw, until fn
// returns false. It stops quietly at the end of a cut-short prefix. b must
// start with '['.
func Elements(b []byte, fn func(value []byte) bool) {
	i := SkipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		vend := SkipValue(b, i)
		if vend >= len(b) {
			return // cut short inside this value
		}
		if !fn(b[i:vend]) {
			return
		}
		i = SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
}

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, U+2028 and U+2029 escaped as encoding/json does,
// invalid UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Kind names the JSON type of a raw value from its first byte, for error
// messages: "an object", "an array", "a string", "a boolean", "null", "a
// number", or "nothing" when v is empty.
func Kind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
