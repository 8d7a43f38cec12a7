// Package tooltest runs tools in tests the way an Igor does: arguments are
// validated against the tool's schema first, then the handler runs, and the
// result goes through JSON as it would on the wire.
package tooltest

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Run calls the tool named name from tools with args (a JSON object as a
// string) and returns the result decoded as generic JSON (map[string]any,
// []any, float64, ...), or the tool error. Validation failures come back as
// INVALID_ARGS errors, as they do from the front.
func Run(t testing.TB, tools []tool.Tool, name, args string) (any, *tool.Error) {
	t.Helper()
	return RunContext(t, context.Background(), tools, name, args)
}

// RunContext is Run with a context.
func RunContext(t testing.TB, ctx context.Context, tools []tool.Tool, name, args string) (any, *tool.Error) {
	t.Helper()
	reg := tool.NewRegistry(tools...)
	tl, ok := reg.Get(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	raw := json.RawMessage(args)
	if err := schema.Validate(tl.Input, raw); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
	}
	res := tool.NewResources()
	t.Cleanup(func() { _, _ = res.CloseAll() })
	out, err := tl.Run(ctx, &tool.Call{Args: raw, Resources: res, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, tool.AsError(err)
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		t.Fatalf("%s: result is not JSON: %v", name, merr)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: result does not decode: %v", name, err)
	}
	return v, nil
}

// MustRun is Run that fails the test on a tool error.
func MustRun(t testing.TB, tools []tool.Tool, name, args string) any {
	t.Helper()
	v, err := Run(t, tools, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return v
}

// MustFail is Run that fails the test unless the tool returns an error with
// the given code; it returns the error.
func MustFail(t testing.TB, tools []tool.Tool, name, args, code string) *tool.Error {
	t.Helper()
	v, err := Run(t, tools, name, args)
	if err == nil {
		t.Fatalf("%s(%s): want error %s, got result %v", name, args, code, v)
	}
	if err.Code != code {
		t.Fatalf("%s(%s): want error %s, got %s: %s", name, args, code, err.Code, err.Message)
	}
	return err
}
