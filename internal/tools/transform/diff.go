package transform

import (
	"context"
	"encoding/json"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func objectDiff() tool.Tool {
	type args struct {
		Expected json.RawMessage `json:"expected"`
		Actual   json.RawMessage `json:"actual"`
		Deep     *bool           `json:"deep"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "object_diff",
			Description: "Compare two JSON values (usually objects) and list every difference, reading from expected " +
				"to actual. Keys compare in any order, arrays index by index, numbers exactly by value (1 equals 1.0) " +
				"and values strictly by JSON type (1 differs from \"1\"). deep=false compares only top-level keys, " +
				"reporting a key once when anything inside it differs. Returns {equal, differences: [{path, type: " +
				"added|removed|changed, expected, actual}], counts: {added, removed, changed, total}}; paths look " +
				"like $.user.name and $.items[2].",
			Phrases:  []string{"json diff", "compare objects", "what fields changed", "deep diff", "compare api responses", "changed keys", "expected vs actual json", "two payloads differ"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("expected", "The reference value (the \"before\"): any JSON value").Required(),
				schema.Any("actual", "The value compared with it (the \"after\"): any JSON value").Required(),
				schema.Boolean("deep", "Descend into nested objects and arrays; false compares top-level keys only").Default(true),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			expected, err := jsondiff.DecodeArg("expected", in.Expected)
			if err != nil {
				return nil, err
			}
			actual, err := jsondiff.DecodeArg("actual", in.Actual)
			if err != nil {
				return nil, err
			}
			deep := in.Deep == nil || *in.Deep
			diffs := jsondiff.Diff(expected, actual, jsondiff.Options{Shallow: !deep})
			counts := map[jsondiff.Kind]int{}
			for _, d := range diffs {
				counts[d.Type]++
			}
			if diffs == nil {
				diffs = []jsondiff.Difference{}
			}
			return map[string]any{
				"equal":       len(diffs) == 0,
				"differences": diffs,
				"counts": map[string]int{
					"added":   counts[jsondiff.Added],
					"removed": counts[jsondiff.Removed],
					"changed": counts[jsondiff.Changed],
					"total":   len(diffs),
				},
			}, nil
		}),
	}
}
