package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/closest"
	"github.com/google/jsonschema-go/jsonschema"
)

// ValidationError says which argument was wrong and what was expected.
type ValidationError struct {
	// Field is the path of the offending value, such as "data.items[2]";
	// empty for the arguments object itself.
	Field string
	// Message says what was wrong and what would be right.
	Message string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return fmt.Sprintf("argument %q: %s", e.Field, e.Message)
}

// Validate checks raw JSON arguments against s. Empty or null arguments are
// treated as an empty object. It returns the first problem found, as a
// *ValidationError.
func Validate(s *jsonschema.Schema, raw json.RawMessage) error {
	var v any
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if json.Valid(raw) && numbersFit(raw) && accepts(s, raw) {
		return nil // the usual case: valid, shown so without decoding
	}
	if string(raw) == "{}" {
		v = map[string]any{}
	} else {
		// json.Unmarshal, not a Decoder: it refuses trailing data, and a
		// Decoder's buffers were a fifth of the front's allocations per call.
		if err := json.Unmarshal(raw, &v); err != nil {
			return &ValidationError{Message: "arguments are not valid JSON: " + err.Error()}
		}
	}
	return ValidateValue(s, v)
}

// ValidateValue checks a decoded JSON value (numbers as float64 or
// json.Number) against s.
func ValidateValue(s *jsonschema.Schema, v any) error {
	if _, ok := v.(map[string]any); !ok && s.Type == "object" {
		return &ValidationError{Message: fmt.Sprintf("arguments must be a JSON object, got %s", typeName(v))}
	}
	return check(s, v, "")
}

func check(s *jsonschema.Schema, v any, path string) error {
	if s == nil {
		return nil
	}
	fail := func(format string, a ...any) error {
		return &ValidationError{Field: path, Message: fmt.Sprintf(format, a...)}
	}
	if types := ownTypes(s); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		return fail("expected %s, got %s", strings.Join(types, " or "), typeName(v))
	}
	if len(s.AnyOf) > 0 {
		if err := checkAnyOf(s, v, path); err != nil {
			return err
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, v) }) {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			b, _ := json.Marshal(e)
			vals[i] = string(b)
		}
		return fail("expected one of %s, got %s", strings.Join(vals, ", "), short(v))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				want := "a value"
				if p := s.Properties[r]; p != nil {
					if ts := typesOf(p); len(ts) > 0 {
						for i, t := range ts {
							ts[i] = article(t)
						}
						want = strings.Join(ts, " or ")
					}
				}
				return &ValidationError{Field: join(path, r), Message: fmt.Sprintf("is required (%s)", want)}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, known := s.Properties[k]
			if !known {
				if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
					return unknownArgument(s, k, path)
				}
				ps = s.AdditionalProperties
			}
			if err := check(ps, x[k], join(path, k)); err != nil {
				return err
			}
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			return fail("expected at least %d items, got %d", *s.MinItems, len(x))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			return fail("expected at most %d items, got %d", *s.MaxItems, len(x))
		}
		for i, item := range x {
			if err := check(s.Items, item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			return fail("expected a string of at least %d characters, got %d", *s.MinLength, n)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fail("expected a string of at most %d characters, got %d", *s.MaxLength, n)
		}
	default:
		if f, ok := number(v); ok {
			if s.Minimum != nil && f < *s.Minimum {
				return fail("expected a number >= %v, got %v", *s.Minimum, f)
			}
			if s.Maximum != nil && f > *s.Maximum {
				return fail("expected a number <= %v, got %v", *s.Maximum, f)
			}
		}
	}
	return nil
}

// checkAnyOf checks v against the branches of s.AnyOf: valid if one takes
// it. Otherwise the error is that of the first branch of v's type (the
// one meant: "items[2]: expected string", not "expected array or string"),
// or, when none is of v's type, the types the branches take.
func checkAnyOf(s *jsonschema.Schema, v any, path string) error {
	var meant error
	for _, b := range s.AnyOf {
		err := check(b, v, path)
		if err == nil {
			return nil
		}
		if types := ownTypes(b); meant == nil && (len(types) == 0 || slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) })) {
			meant = err
		}
	}
	if meant != nil {
		return meant
	}
	return &ValidationError{Field: path, Message: fmt.Sprintf("expected %s, got %s", strings.Join(typesOf(s), " or "), typeName(v))}
}

// ownTypes are the JSON types s's type keyword names; none for any.
func ownTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// typesOf are the JSON types s takes, by its type keyword or else by the
// branches of its anyOf (in their order, once each); none when that does
// not say.
func typesOf(s *jsonschema.Schema) []string {
	if types := ownTypes(s); len(types) > 0 {
		return slices.Clone(types)
	}
	var types []string
	for _, b := range s.AnyOf {
		bt := ownTypes(b)
		if len(bt) == 0 {
			return nil // a branch of any type
		}
		for _, t := range bt {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return types
}

// unknownArgument is the error for an argument k that s does not have:
// the one probably meant, and the known ones.
func unknownArgument(s *jsonschema.Schema, k, path string) error {
	known := s.PropertyOrder
	if len(known) == 0 {
		known = slices.Sorted(maps.Keys(s.Properties))
	}
	msg := "is not a known argument"
	if len(known) == 0 {
		msg += "; this takes no arguments"
	} else {
		if near := closest.Names(k, known, 1); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %q?)", near[0])
		}
		msg += "; known: " + strings.Join(known, ", ")
	}
	return &ValidationError{Field: join(path, k), Message: msg}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func jsonEqual(a, b any) bool {
	switch x := normalize(a).(type) { // the usual enum members, without encoding
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := number(b)
		return ok && x == y
	}
	x, _ := json.Marshal(normalize(a))
	y, _ := json.Marshal(normalize(b))
	return bytes.Equal(x, y)
}

func normalize(v any) any {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return v
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("schema: default value %v is not JSON: %v", v, err))
	}
	return b
}
