package tooltest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	panic(r)
}

// withRecorder runs f with a recorder and returns it.
func withRecorder(t *testing.T, f func(r *recorder)) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		f(r)
	}()
	return r
}

// echo is a tool returning its "value" argument; a value of "fail" makes
// it fail with INVALID_ARGS.
func echo() tool.Tool {
	type args struct {
		Value any `json:"value"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name:        "echo",
			Description: "Return the value",
			Group:       "Test",
			Category:    tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("value", "The value to return").Required(),
				schema.Of("nested", "A nested object", schema.Object(schema.String("inner", "A nested argument"))),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Value == "fail" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"value\": must not be fail")
			}
			return in.Value, nil
		}),
	}
}

func TestMustRunObject(t *testing.T) {
	t.Parallel()
	tools := []tool.Tool{echo()}
	if got := MustRunObject(t, tools, "echo", `{"value":{"a":1}}`); got["a"] != 1.0 {
		t.Errorf("MustRunObject = %v", got)
	}
	if r := withRecorder(t, func(r *recorder) { MustRunObject(r, tools, "echo", `{"value":[1]}`) }); !r.fatal {
		t.Errorf("MustRunObject of an array did not fail: %v", r.errors)
	}
	if r := withRecorder(t, func(r *recorder) { Object(r, "x") }); !r.fatal {
		t.Errorf("Object of a string did not fail: %v", r.errors)
	}
}

func TestMustFailWith(t *testing.T) {
	t.Parallel()
	tools := []tool.Tool{echo()}
	err := MustFailWith(t, tools, "echo", `{"value":"fail"}`, tool.CodeInvalidArgs, `"value"`, "must not")
	if err.Code != tool.CodeInvalidArgs {
		t.Errorf("MustFailWith returned %v", err)
	}
	// Schema validation failures are INVALID_ARGS too.
	MustFailWith(t, tools, "echo", `{}`, tool.CodeInvalidArgs, `"value"`, "required")
	r := withRecorder(t, func(r *recorder) {
		MustFailWith(r, tools, "echo", `{"value":"fail"}`, tool.CodeInvalidArgs, "must not", "elephant", "giraffe")
	})
	if r.fatal || len(r.errors) != 2 || !strings.Contains(r.errors[0], "elephant") || !strings.Contains(r.errors[1], "giraffe") {
		t.Errorf("missing mentions reported as %v (fatal %v)", r.errors, r.fatal)
	}
	if r := withRecorder(t, func(r *recorder) { MustFailWith(r, tools, "echo", `{"value":1}`, tool.CodeInvalidArgs) }); !r.fatal {
		t.Errorf("a success did not fail MustFailWith: %v", r.errors)
	}
}

func TestJSONHelpers(t *testing.T) {
	t.Parallel()
	if !SameJSON(t, JSON(t, `{"b":[1,2],"a":null}`), `{"a":null,"b":[1,2.0]}`) {
		t.Error("SameJSON of equal values is false")
	}
	if SameJSON(t, JSON(t, `[1,2]`), `[2,1]`) {
		t.Error("SameJSON of different values is true")
	}
	WantJSON(t, "same", JSON(t, `{"x":"y"}`), `{"x":"y"}`)
	if r := withRecorder(t, func(r *recorder) { WantJSON(r, "label", JSON(t, `1`), `2`) }); len(r.errors) != 1 || !strings.HasPrefix(r.errors[0], "label:") {
		t.Errorf("WantJSON of different values reported %v", r.errors)
	}
	if r := withRecorder(t, func(r *recorder) { JSON(r, `{`) }); !r.fatal {
		t.Error("JSON of bad text did not fail")
	}
	if got := Marshal(map[string]any{"b": 1, "a": []int{2}}); got != `{"a":[2],"b":1}` {
		t.Errorf("Marshal = %s", got)
	}
}

func TestCheckFamily(t *testing.T) {
	t.Parallel()
	CheckFamily(t, []tool.Tool{echo()}, Group("Test"), "echo")
	r := withRecorder(t, func(r *recorder) {
		e := echo()
		e.RequiresWorker = false
		e.Input.Properties["nested"].Properties["inner"].Description = ""
		CheckFamily(r, []tool.Tool{e}, Group("Other"), "echo", "missing")
	})
	want := []string{`echo: group "Test"`, `echo.nested.inner has no description`, "tools = [echo], want [echo missing]"}
	if len(r.errors) != len(want) {
		t.Fatalf("CheckFamily reported %q, want %d problems", r.errors, len(want))
	}
	for i, w := range want {
		if !strings.Contains(r.errors[i], w) {
			t.Errorf("problem %d = %q, want it to mention %s", i, r.errors[i], w)
		}
	}
}
