package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `q"b\s`, "tab\tnl\nret\r\x00\x1f", "<html>&", "é ü 😀", "bad \xff\xfe utf8", "\u2028\u2029", strings.Repeat("ab\n", 100)} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, got, err)
		}
		if want := perByteReplacement(s); back != want {
			t.Errorf("%q round-trips to %q", s, back)
		}
	}
}

// perByteReplacement replaces each invalid byte with U+FFFD, as
// encoding/json does.
func perByteReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello \"world\"\n\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("invalid JSON %s: %v", got, err)
		}
		if s = perByteReplacement(s); back != s {
			t.Fatalf("%q round-trips to %q", s, back)
		}
	})
}

func TestMembersAndSkip(t *testing.T) {
	t.Parallel()
	var keys []string
	Members([]byte(`{ "a" : [1,{"x":"}"}] , "b\"c":"s\"]" ,"n":-1.5e3,"t":true}`), func(k, v []byte) bool {
		keys = append(keys, string(k)+"="+string(v))
		return true
	})
	want := `a=[1,{"x":"}"}] b\"c="s\"]" n=-1.5e3 t=true`
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d := Depth([]byte(`{"a":[[{"s":"[[[["}]]]}`)); d != 4 {
		t.Errorf("Depth: %d", d)
	}
}
