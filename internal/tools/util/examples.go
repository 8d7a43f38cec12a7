package util

import (
	"context"
	"encoding/json"
	"strings"

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
			Phrases:  []string{"ping barrhawk", "sanity check connection", "try a tool call", "hello example", "verify setup works", "first tool call", "say hi to someone", "greet by name", "is the toolbox alive"},
			Group:    ExamplesGroup,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("name", "Who to greet; blank means World").Max(200).Default("World"),
				schema.Boolean("excited", "End with \"!!!\" instead of \"!\"").Default(false),
			),
			RequiresWorker: true,
			Quick:          true,
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
			Phrases:  []string{"is my payload valid", "validate config against schema", "ajv", "schema validation errors", "json schema lint", "conforms to schema", "does data match schema"},
			Group:    ExamplesGroup,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("data", "The value to validate: any JSON value").Required(),
				schema.Any("schema", "The JSON Schema, an object (or true/false)").Types("object", "boolean").Required(),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if len(in.Schema) == 0 {
				return nil, invalid("schema", "is required (an object)")
			}
			if len(in.Data) == 0 {
				return nil, invalid("data", "is required (any JSON value)")
			}
			rs, err := schema.Compile(in.Schema)
			if err != nil {
				return nil, invalid("schema", "not a valid JSON Schema: %v", err)
			}
			data, err := schema.Instance(in.Data)
			if err != nil {
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
