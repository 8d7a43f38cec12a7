package util

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func helloWorld() tool.Tool {
	type args struct {
		Name    *string `json:"name"`
		Excited bool    `json:"excited"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "hello_world",
			Description: "Smoke test: greet someone. Returns {greeting}: \"Hello, World!\" by default, \"Hello, <name>!\" with a name, " +
				"and three exclamation marks instead of one when excited (\"Hello, World!!!\").",
			Group:    ExamplesGroup,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("name", "Who to greet; blank means World").Max(200).Default("World"),
				schema.Boolean("excited", "End with \"!!!\" instead of \"!\"").Default(false),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			name := "World"
			if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
				name = strings.TrimSpace(*in.Name)
			}
			bang := "!"
			if in.Excited {
				bang = "!!!"
			}
			return map[string]any{"greeting": "Hello, " + name + bang}, nil
		}),
	}
}

// supportedDrafts are the $schema values the validator understands; empty
// means draft 2020-12.
var supportedDrafts = map[string]bool{
	"": true,
	"https://json-schema.org/draft/2020-12/schema": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema#":     true,
}

func jsonValidator() tool.Tool {
	type args struct {
		Data   json.RawMessage `json:"data"`
		Schema json.RawMessage `json:"schema"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "json_validator",
			Description: "Validate any JSON value against a JSON Schema (draft 2020-12, or draft-07 when $schema says so; local $refs only). " +
				"Returns {valid, errors}: an instance that does not match is a normal result, valid:false with the validator's message in errors " +
				"(it stops at the first failure, so errors holds at most one entry); valid:true has errors []. An invalid schema is INVALID_ARGS.",
			Group:    ExamplesGroup,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("data", "The JSON value to validate (object, array, string, number, boolean or null)").Required(),
				schema.Any("schema", "The JSON Schema, an object (or true/false)").Types("object", "boolean").Required(),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if len(in.Schema) == 0 {
				return nil, invalid("schema", "is required (an object)")
			}
			if len(in.Data) == 0 {
				return nil, invalid("data", "is required (any JSON value)")
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(in.Schema, &s); err != nil {
				return nil, invalid("schema", "not a valid JSON Schema: %v", err)
			}
			var generic any
			if err := json.Unmarshal(in.Schema, &generic); err != nil {
				return nil, invalid("schema", "not valid JSON: %v", err)
			}
			if err := checkTypes(generic, ""); err != nil {
				return nil, err
			}
			if !supportedDrafts[s.Schema] {
				return nil, invalid("schema", "$schema %q is not supported; use draft 2020-12 (\"https://json-schema.org/draft/2020-12/schema\"), draft-07 (\"http://json-schema.org/draft-07/schema#\") or omit $schema", s.Schema)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				return nil, invalid("schema", "not a valid JSON Schema: %v", err)
			}
			var data any
			d := json.NewDecoder(bytes.NewReader(in.Data))
			if err := d.Decode(&data); err != nil {
				return nil, invalid("data", "not valid JSON: %v", err)
			}
			errs := []string{}
			if err := rs.Validate(data); err != nil {
				errs = append(errs, err.Error())
			}
			return map[string]any{"valid": len(errs) == 0, "errors": errs}, nil
		}),
	}
}

// jsonTypes are the values the "type" keyword may take.
var jsonTypes = map[string]bool{
	"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true,
}

// instanceKeywords hold instance data, not subschemas; checkTypes does not
// look inside them.
var instanceKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// checkTypes reports a "type" keyword naming no JSON type anywhere in the
// schema, which the validator itself would accept and then fail every
// instance against.
func checkTypes(v any, path string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if instanceKeywords[k] {
				continue
			}
			if _, isSchema := sub.(map[string]any); k == "type" && !isSchema { // not a property named "type"
				names, ok := sub.([]any)
				if s, isString := sub.(string); isString {
					names, ok = []any{s}, true
				}
				if !ok {
					return invalid("schema", "not a valid JSON Schema: \"type\" at %s is %s; want a type name or an array of them", where(path), short(sub))
				}
				for _, n := range names {
					if s, isString := n.(string); !isString || !jsonTypes[s] {
						return invalid("schema", "not a valid JSON Schema: \"type\" at %s names %s, not a JSON type; use null, boolean, object, array, number, string or integer", where(path), short(n))
					}
				}
				continue
			}
			if err := checkTypes(sub, path+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, sub := range x {
			if err := checkTypes(sub, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// where names a JSON Pointer for a message.
func where(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// short renders a JSON value briefly for a message.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
