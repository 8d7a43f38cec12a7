// Package jsondiff compares decoded JSON values: deep equality, strict or
// loose, and the list of paths where two values differ. It also holds the
// exact number type (Decimal) and canonical forms the comparisons rest on.
// assert_equals, object_diff and array_operations share it so that "equal"
// means the same thing in every tool.
//
// Values are what encoding/json decodes into any: nil, bool, string,
// float64 or json.Number, []any and map[string]any. Decode keeps numbers
// as json.Number so that large integers compare exactly.
package jsondiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Decode decodes one JSON value, keeping numbers as json.Number. Empty
// input decodes to nil (JSON null).
func Decode(raw []byte) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// JSON type names, as JSON Schema spells them.
const (
	TypeNull    = "null"
	TypeBoolean = "boolean"
	TypeNumber  = "number"
	TypeString  = "string"
	TypeArray   = "array"
	TypeObject  = "object"
)

// TypeOf returns the JSON type of a decoded value: null, boolean, number,
// string, array or object; for a value that is not JSON it returns its Go
// type.
func TypeOf(v any) string {
	switch v.(type) {
	case nil:
		return TypeNull
	case bool:
		return TypeBoolean
	case string:
		return TypeString
	case []any:
		return TypeArray
	case map[string]any:
		return TypeObject
	}
	if _, ok := NumberOf(v); ok {
		return TypeNumber
	}
	return fmt.Sprintf("%T", v)
}

// Format writes v as compact JSON, without HTML escaping, shortened to about
// max characters with "…" when longer (max <= 0: never shortened). It is
// for messages; results should carry the value itself.
func Format(v any, max int) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// Canonical returns a canonical JSON text of v: object keys sorted, numbers
// normalised (1, 1.0 and 1e0 all write as 1), no insignificant space. Two
// values are strictly equal exactly when their canonical texts are, so it
// serves as a map key for sets of JSON values.
func Canonical(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, x)
	default:
		if d, ok := NumberOf(v); ok {
			b.WriteString(d.String())
			return
		}
		js, err := json.Marshal(v)
		if err != nil {
			fmt.Fprintf(b, "%q", fmt.Sprint(v))
			return
		}
		b.Write(js)
	}
}

func writeString(b *strings.Builder, s string) {
	js, _ := json.Marshal(s) // a string always marshals
	b.Write(js)
}

// Truthy reports whether v is truthy as JavaScript sees it: false, 0 (and
// -0), "" and null are falsy; everything else, empty arrays and objects
// included, is truthy.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	}
	if d, ok := NumberOf(v); ok {
		return d.Sign() != 0
	}
	return true
}
