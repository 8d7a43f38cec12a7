package tool

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestResultLimits(t *testing.T) {
	t.Parallel()
	l := ResultLimits{Cut: 100, Hard: 3000}
	decode := func(raw json.RawMessage) any {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("not JSON: %s", raw)
		}
		return v
	}
	t.Run("small values pass unchanged", func(t *testing.T) {
		for _, v := range []any{map[string]any{"a": 1.0}, "short", json.RawMessage(`[1,2]`), nil} {
			raw, err := l.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(v)
			if string(raw) != string(want) {
				t.Errorf("%v: got %s want %s", v, raw, want)
			}
		}
	})
	t.Run("a long string is cut to its first bytes with a note", func(t *testing.T) {
		raw, err := l.Encode(strings.Repeat("é", 1000)) // 2000 bytes, 2 a rune
		if err != nil {
			t.Fatal(err)
		}
		s := decode(raw).(string)
		text, note, ok := strings.Cut(s, "\n\n[BarrHawk cut this result")
		if !ok || text != strings.Repeat("é", 50) || !utf8.ValidString(text) {
			t.Fatalf("got %q", s)
		}
		if !strings.Contains(note, "the first 100 of 2000 bytes") || !strings.Contains(note, "tools.maxResultBytes") || !strings.Contains(note, "offset") {
			t.Errorf("note: %q", note)
		}
	})
	t.Run("an object over the cut becomes a prefix of its JSON with a note", func(t *testing.T) {
		obj := map[string]any{"items": strings.Split(strings.Repeat("x,", 500), ",")}
		raw, err := l.Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		s := decode(raw).(string)
		if !strings.HasPrefix(s, `{"items":["x","x"`) || !strings.Contains(s, "bytes of JSON are shown") {
			t.Errorf("got %q", s)
		}
	})
	t.Run("an encoded string over the cut is cut as text", func(t *testing.T) {
		raw, err := l.Encode(json.RawMessage(`"` + strings.Repeat("a", 1500) + `"`))
		if err != nil {
			t.Fatal(err)
		}
		if s := decode(raw).(string); !strings.HasPrefix(s, strings.Repeat("a", 100)+"\n\n[") {
			t.Errorf("got %q", s)
		}
	})
	t.Run("over the hard bound answers RESULT_TOO_LARGE", func(t *testing.T) {
		for _, v := range []any{strings.Repeat("a", 4000), json.RawMessage(`"` + strings.Repeat("a", 4000) + `"`), []string{strings.Repeat("b", 3500)}} {
			_, err := l.Encode(v)
			var te *Error
			if !errors.As(err, &te) || te.Code != CodeResultTooLarge || !strings.Contains(te.Message, "tools.maxResultHardBytes") {
				t.Errorf("want RESULT_TOO_LARGE naming the key, got %v", err)
			}
		}
	})
	t.Run("a string whose JSON escapes are over the hard bound answers RESULT_TOO_LARGE", func(t *testing.T) {
		l := ResultLimits{Cut: 5000, Hard: 6000}
		_, err := l.Encode(strings.Repeat("\x01", 5500)) // within the cut, but \u0001 in JSON
		var te *Error
		if !errors.As(err, &te) || te.Code != CodeResultTooLarge || !strings.Contains(te.Message, "33002 bytes of JSON") {
			t.Errorf("want RESULT_TOO_LARGE, got %v", err)
		}
	})
	t.Run("no limits", func(t *testing.T) {
		big := strings.Repeat("z", 5000)
		raw, err := ResultLimits{}.Encode(big)
		if err != nil || decode(raw).(string) != big {
			t.Errorf("unbounded: %v", err)
		}
	})
	t.Run("a long error message is cut with a note", func(t *testing.T) {
		e := &Error{Code: CodeToolError, Message: strings.Repeat("m", 20_000), Stack: strings.Repeat("s", 20_000)}
		b := l.BoundError(e)
		if b.Code != CodeToolError || !strings.HasPrefix(b.Message, strings.Repeat("m", 100)+"\n\n[BarrHawk cut this error message: the first 100 of 20000 bytes") {
			t.Errorf("message: %.300q", b.Message)
		}
		if len(b.Stack) > 200 {
			t.Errorf("stack not cut: %d bytes", len(b.Stack))
		}
		if len(e.Message) != 20_000 {
			t.Error("BoundError changed its argument")
		}
		short := &Error{Code: CodeToolError, Message: "short"}
		if l.BoundError(short) != short || (ResultLimits{}).BoundError(e) != e {
			t.Error("an error within the bound, or without limits, should be returned as it is")
		}
	})
}

func TestCutTextKeepsUTF8Valid(t *testing.T) {
	t.Parallel()
	s := "aé€😀"
	for n := range len(s) + 2 {
		got := CutText(s, n)
		if !utf8.ValidString(got) || len(got) > n || !strings.HasPrefix(s, got) {
			t.Errorf("CutText(%q, %d) = %q", s, n, got)
		}
	}
	if got := CutText(s, 6); got != "aé€" {
		t.Errorf("CutText(%q, 6) = %q, want the whole runes that fit", s, got)
	}
}
