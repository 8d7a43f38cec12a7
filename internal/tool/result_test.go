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
	t.Run("no limits", func(t *testing.T) {
		big := strings.Repeat("z", 5000)
		raw, err := ResultLimits{}.Encode(big)
		if err != nil || decode(raw).(string) != big {
			t.Errorf("unbounded: %v", err)
		}
	})
}
