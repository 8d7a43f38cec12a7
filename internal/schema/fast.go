package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/google/jsonschema-go/jsonschema"
)

// accepts reports whether raw, which must be valid JSON, is valid against
// s, reading the bytes as they are instead of decoding them into maps and
// slices first: arguments are checked on every call, and decoding them was
// most of the check's cost. It only ever accepts: false means "not shown
// valid here" (an invalid value, or a case it leaves alone, such as a
// string with escapes under a length bound or an enum of objects), and
// Validate then decides, and words the error, as before. So the two can
// never disagree on what is valid; FuzzAcceptsOnlyWhatValidateAccepts
// holds it to that.
func accepts(s *jsonschema.Schema, raw []byte) bool {
	if s == nil {
		return true
	}
	if len(raw) == 0 {
		return false
	}
	kind := raw[0]
	if s.Type != "" {
		if !rawHasType(raw, s.Type) {
			return false
		}
	} else if len(s.Types) > 0 && !slices.ContainsFunc(s.Types, func(t string) bool { return rawHasType(raw, t) }) {
		return false
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, func(b *jsonschema.Schema) bool { return accepts(b, raw) }) {
		return false
	}
	if len(s.Enum) > 0 && !rawInEnum(s.Enum, raw) {
		return false
	}
	switch {
	case kind == '{':
		return acceptsObject(s, raw)
	case kind == '[':
		n := 0
		ok := true
		rawjson.Elements(raw, func(item []byte) bool {
			n++
			ok = accepts(s.Items, item)
			return ok
		})
		return ok && (s.MinItems == nil || n >= *s.MinItems) && (s.MaxItems == nil || n <= *s.MaxItems)
	case kind == '"':
		if s.MinLength == nil && s.MaxLength == nil {
			return true
		}
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') >= 0 {
			return false
		}
		n := utf8.RuneCount(body)
		return (s.MinLength == nil || n >= *s.MinLength) && (s.MaxLength == nil || n <= *s.MaxLength)
	case kind == '-' || (kind >= '0' && kind <= '9'):
		if s.Minimum == nil && s.Maximum == nil {
			return true
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && (s.Minimum == nil || f >= *s.Minimum) && (s.Maximum == nil || f <= *s.Maximum)
	}
	return true // true, false, null: nothing more to check
}

// numbersFit reports whether every number in raw, a valid JSON text, is
// within float64's range, as decoding it needs: 1e400 is valid JSON that
// Validate refuses, wherever it is.
func numbersFit(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			i = rawjson.SkipString(raw, i)
		case c == '-' || (c >= '0' && c <= '9'):
			end := rawjson.SkipValue(raw, i)
			tok := raw[i:end]
			if (len(tok) > 300 || bytes.ContainsAny(tok, "eE")) && !fitsFloat(tok) {
				return false
			}
			i = end - 1
		}
	}
	return true
}

func fitsFloat(tok []byte) bool {
	_, err := strconv.ParseFloat(string(tok), 64)
	return err == nil
}

// acceptsObject checks the members of an object, and its required ones.
func acceptsObject(s *jsonschema.Schema, raw []byte) bool {
	var seen [16][]byte
	keys := seen[:0]
	ok := true
	rawjson.Members(raw, func(key, value []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 || slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, key) }) {
			ok = false // escaped or repeated names: left to Validate
			return false
		}
		keys = append(keys, key)
		ps, known := s.Properties[string(key)]
		if !known {
			if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
				ok = false
				return false
			}
			ps = s.AdditionalProperties
		}
		ok = accepts(ps, value)
		return ok
	})
	if !ok {
		return false
	}
	for _, r := range s.Required {
		if !slices.ContainsFunc(keys, func(k []byte) bool { return string(k) == r }) {
			return false
		}
	}
	return true
}

// rawHasType is hasType for a raw value.
func rawHasType(raw []byte, t string) bool {
	switch k := raw[0]; t {
	case "object":
		return k == '{'
	case "array":
		return k == '['
	case "string":
		return k == '"'
	case "boolean":
		return k == 't' || k == 'f'
	case "null":
		return k == 'n'
	case "number", "integer":
		if k != '-' && (k < '0' || k > '9') {
			return false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false // out of float64's range: Validate says so
		}
		return t == "number" || (f == math.Trunc(f) && !math.IsInf(f, 0))
	}
	return false
}

// rawInEnum reports whether a string, number or boolean raw is one of
// enum's members; other values are left to Validate.
func rawInEnum(enum []any, raw []byte) bool {
	switch k := raw[0]; {
	case k == '"':
		body := raw[1 : len(raw)-1] // compared, not copied
		if bytes.IndexByte(body, '\\') >= 0 {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return false
			}
			body = []byte(s)
		}
		return slices.ContainsFunc(enum, func(e any) bool { x, ok := normalize(e).(string); return ok && x == string(body) })
	case k == 't' || k == 'f':
		b := k == 't'
		return slices.ContainsFunc(enum, func(e any) bool { x, ok := e.(bool); return ok && x == b })
	case k == '-' || (k >= '0' && k <= '9'):
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && slices.ContainsFunc(enum, func(e any) bool { x, ok := normalize(e).(float64); return ok && x == f })
	}
	return false
}
