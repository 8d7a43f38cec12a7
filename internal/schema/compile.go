package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Drafts are the $schema values Compile accepts. A schema without $schema
// is draft 2020-12.
var Drafts = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

// jsonTypes are the names the "type" keyword may use.
var jsonTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// Compile parses raw, a JSON Schema given by a user (an object, or true or
// false), and resolves it for validation with jsonschema.Resolved.Validate.
// Tools that take a schema as an argument (assert_json_schema,
// json_validator, data_from_schema) all compile it here, so that they accept
// and reject the same schemas.
//
// The error, if any, says what is wrong with the schema, for a message such
// as `argument "schema": not a valid JSON Schema: <error>`: a "type" naming
// no JSON type (given with its JSON Pointer, which the validator itself would
// accept and then fail every value against), a keyword whose value has the
// wrong JSON type, a $schema other than Drafts, a $ref that does not resolve
// (remote references are not loaded) or a pattern that does not compile.
func Compile(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	if err := checkTypes(generic, ""); err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			keyword := te.Field[strings.LastIndex(te.Field, ".")+1:]
			return nil, fmt.Errorf("keyword %q must be %s, got JSON %s", keyword, jsonTypeOf(te.Type), te.Value)
		}
		return nil, err
	}
	if s.Schema != "" && !slices.Contains(Drafts, s.Schema) {
		return nil, fmt.Errorf("$schema %q is not supported; use one of %s (or leave $schema out for 2020-12)",
			s.Schema, strings.Join(Drafts, ", "))
	}
	return s.Resolve(nil)
}

// Instance decodes raw, one JSON value, into the form
// jsonschema.Resolved.Validate expects: numbers as float64, as encoding/json
// decodes them into any. Empty raw is null.
func Instance(raw []byte) (any, error) {
	var v any
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// dataKeywords hold instance data, not schemas: checkTypes does not look
// inside them.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkTypes reports the first "type" keyword, at JSON Pointer path, that
// names no JSON type.
func checkTypes(v any, path string) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if dataKeywords[k] {
				continue
			}
			sub := x[k]
			p := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if k == "type" {
				if err := checkTypeValue(sub, p); err != nil {
					return err
				}
			}
			if err := checkTypes(sub, p); err != nil {
				return err
			}
		}
	case []any:
		for i, sub := range x {
			if err := checkTypes(sub, fmt.Sprintf("%s/%d", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTypeValue checks the value of a "type" keyword at path.
func checkTypeValue(v any, path string) error {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, n := range names {
		s, ok := n.(string)
		if !ok {
			// An object here is a property named "type"; anything else the
			// schema decoder reports.
			continue
		}
		if !slices.Contains(jsonTypes, s) {
			return fmt.Errorf("%s: %q is not a JSON type; use one of %s", path, s, strings.Join(jsonTypes, ", "))
		}
	}
	return nil
}

// jsonTypeOf names, with its article, the JSON type a Go type decodes from.
func jsonTypeOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return article("boolean")
	case reflect.String:
		return article("string")
	case reflect.Slice, reflect.Array:
		return article("array")
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return article("object")
	case reflect.Float32, reflect.Float64:
		return article("number")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return article("integer")
	}
	return t.String()
}
