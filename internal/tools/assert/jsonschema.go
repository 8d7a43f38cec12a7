package assert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// schemaVersions are the $schema values the validator supports.
var schemaVersions = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

// jsonTypes are the type names a JSON Schema may use.
var jsonTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

func assertJSONSchema() tool.Tool {
	type args struct {
		Data   json.RawMessage `json:"data"`
		Schema json.RawMessage `json:"schema"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_json_schema",
			Description: "Assert that a JSON value is valid against a JSON Schema (draft 2020-12 by default, or " +
				"draft-07 via $schema; $ref within the schema is followed, remote references are not). " +
				"Data that does not match is a result, not an error; a schema that is itself invalid is an " +
				"INVALID_ARGS error. Returns {passed, message, error}: error (present when passed is false) " +
				"names the schema location and keyword that failed, such as " +
				"\"validating /properties/age: minimum: ...\".",
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("data", "The value to validate: any JSON value").Required(),
				schema.Map("schema", "The JSON Schema, as an object (or true/false)").Types("object", "boolean").Required(),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			rs, err := resolveSchema(in.Schema)
			if err != nil {
				return nil, err
			}
			// The validator wants float64 numbers, as encoding/json decodes them.
			var data any
			if len(in.Data) > 0 {
				if err := json.Unmarshal(in.Data, &data); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"data\": %v", err)
				}
			}
			if err := rs.Validate(data); err != nil {
				reason := strings.TrimPrefix(err.Error(), "validating root: ")
				if string(bytes.TrimSpace(in.Schema)) == "false" {
					reason = "the schema is false, which no value matches"
				}
				return map[string]any{
					"passed":  false,
					"message": "data does not match the schema: " + reason,
					"error":   reason,
				}, nil
			}
			return map[string]any{"passed": true, "message": "data matches the schema"}, nil
		}),
	}
}

// resolveSchema parses and resolves the schema argument; any problem is an
// INVALID_ARGS error saying what is wrong with it.
func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	bad := func(format string, a ...any) error {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"schema\" is not a valid JSON Schema: "+format, a...)
	}
	generic, err := jsondiff.Decode(raw)
	if err != nil {
		return nil, bad("%v", err)
	}
	if err := checkTypes(generic, ""); err != nil {
		return nil, bad("%v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			keyword := te.Field[strings.LastIndex(te.Field, ".")+1:]
			return nil, bad("keyword %q must be %s, got JSON %s", keyword, jsonTypeOf(te.Type), te.Value)
		}
		return nil, bad("%v", err)
	}
	if s.Schema != "" && !slices.Contains(schemaVersions, s.Schema) {
		return nil, bad("$schema %q is not supported; use one of %s (or leave $schema out for 2020-12)",
			s.Schema, strings.Join(schemaVersions, ", "))
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, bad("%v", err)
	}
	return rs, nil
}

// dataKeywords hold instance data, not schemas: checkTypes does not look
// inside them.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkTypes reports the first "type" keyword, at JSON Pointer path, that
// names no JSON type. The validator accepts such a schema and then rejects
// every value, which would read as a data error.
func checkTypes(v any, path string) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub := x[k]
			p := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if dataKeywords[k] {
				continue
			}
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

// jsonTypeOf names the JSON type a Go type decodes from, for messages.
func jsonTypeOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	}
	return t.String()
}
