package record

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// A test is named by what it checks, without what it observed; a call that
// names it (testName) is recorded under that name.
func TestTestName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args, want string }{
		{`{"selector":"h1","expected":"Welcome","timeout":500}`, `assert_text expected="Welcome" selector="h1"`},
		{`{"selector":"h1","expected":"Welcome","testName":"  home page greets  "}`, `home page greets`},
		{`{"selector":"h1","expected":"Welcome","testName":""}`, `assert_text expected="Welcome" selector="h1"`},
		{`{"selector":"h1","testName":5}`, `assert_text selector="h1"`},
		{`{}`, `assert_text`},
	} {
		if got := TestName("assert_text", json.RawMessage(c.args)); got != c.want {
			t.Errorf("TestName(%s) = %q, want %q", c.args, got, c.want)
		}
	}
	if got := TestName("assert_text", json.RawMessage(`{"testName":"`+strings.Repeat("x", 300)+`"}`)); len([]rune(got)) > 201 {
		t.Errorf("a long name is kept whole: %d runes", len([]rune(got)))
	}
}

// WithTestName gives the tools whose calls are tests the argument, and no
// other tool; the original schema is left as it was.
func TestWithTestName(t *testing.T) {
	t.Parallel()
	assertion := tool.Tool{Def: tool.Def{Name: "assert_equals", Group: AssertionGroup, Input: schema.Object(schema.Any("actual", "a"))}}
	other := tool.Tool{Def: tool.Def{Name: "hash_text", Group: "Utilities", Input: schema.Object(schema.String("text", "t"))}}
	before := assertion.Input
	out := WithTestName([]tool.Tool{assertion, other})
	if out[0].Input.Properties[TestNameArg] == nil || out[1].Input.Properties[TestNameArg] != nil || before.Properties[TestNameArg] != nil {
		t.Fatalf("testName on the assertion %v, on the other %v, on the original %v",
			out[0].Input.Properties[TestNameArg] != nil, out[1].Input.Properties[TestNameArg] != nil, before.Properties[TestNameArg] != nil)
	}
	if err := schema.Validate(out[0].Input, json.RawMessage(`{"actual":1,"testName":"one is one"}`)); err != nil {
		t.Errorf("the assertion refuses testName: %v", err)
	}
	if err := schema.Validate(out[1].Input, json.RawMessage(`{"text":"a","testName":"x"}`)); err == nil {
		t.Error("a tool that is not a test takes testName")
	}
}
