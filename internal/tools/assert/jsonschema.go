package assert

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

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
			Phrases:  []string{"api contract test", "assert response shape", "expect matches schema", "openapi response check", "schema assertion", "fail on schema mismatch", "assert valid against schema"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("data", "The value to validate: any JSON value").Required(),
				schema.Map("schema", "The JSON Schema, as an object (or true/false)").Types("object", "boolean").Required(),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			rs, err := schema.Compile(in.Schema)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"schema\": not a valid JSON Schema: %v", err)
			}
			data, err := schema.Instance(in.Data)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"data\": not valid JSON: %v", err)
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
