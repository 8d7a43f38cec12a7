package jsondiff

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("Decode(%s): %v", s, err)
	}
	return v
}

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, out string
		ok      bool
	}{
		{"0", "0", true},
		{"-0", "0", true},
		{"0.000", "0", true},
		{"1", "1", true},
		{"1.0", "1", true},
		{"1e0", "1", true},
		{"1E+2", "100", true},
		{"-12.50", "-12.5", true},
		{"0.001", "0.001", true},
		{"1e-7", "1e-7", true},
		{"0.000001", "0.000001", true},
		{"1e20", "100000000000000000000", true},
		{"1e21", "1e21", true},
		{"1e22", "1e22", true},
		{"123.456e-10", "1.23456e-8", true},
		{"9007199254740993", "9007199254740993", true},
		{"1e99999999999999999999999", "", true},
		{"", "", false},
		{"-", "", false},
		{"+1", "", false},
		{"01", "", false},
		{"1.", "", false},
		{".5", "", false},
		{"1e", "", false},
		{"0x10", "", false},
		{" 1", "", false},
		{"1 ", "", false},
		{"NaN", "", false},
		{"Infinity", "", false},
	} {
		d, ok := ParseDecimal(tc.in)
		if ok != tc.ok || (ok && tc.out != "" && d.String() != tc.out) {
			t.Errorf("ParseDecimal(%q) = %s, %v; want %s, %v", tc.in, d, ok, tc.out, tc.ok)
		}
	}
}

func TestDecimalCmp(t *testing.T) {
	t.Parallel()
	order := []string{"-1e400", "-10", "-9.99", "-1", "-0.5", "-1e-400", "0", "1e-400", "0.1", "0.12", "0.123", "0.13",
		"1", "9", "10", "9007199254740992", "9007199254740993", "1e400"}
	for i, a := range order {
		for j, b := range order {
			da, _ := ParseDecimal(a)
			db, _ := ParseDecimal(b)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := da.Cmp(db); got != want {
				t.Errorf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, pair := range [][2]string{{"1", "1.0"}, {"100", "1e2"}, {"0.5", "5e-1"}, {"-0", "0"}} {
		a, _ := ParseDecimal(pair[0])
		b, _ := ParseDecimal(pair[1])
		if a.Cmp(b) != 0 {
			t.Errorf("Cmp(%s, %s) != 0", pair[0], pair[1])
		}
	}
}

func TestDecimalAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b, sum string
		ok        bool
	}{
		{"0.1", "0.2", "0.3", true},
		{"1", "-1", "0", true},
		{"-2.5", "1", "-1.5", true},
		{"9007199254740992", "1", "9007199254740993", true},
		{"1e300", "1", "1." + strings.Repeat("0", 299) + "1e300", true},
		{"0", "7", "7", true},
		{"1e5000", "1", "", false},
	} {
		a, _ := ParseDecimal(tc.a)
		b, _ := ParseDecimal(tc.b)
		got, ok := a.Add(b)
		if ok != tc.ok || (ok && got.String() != tc.sum) {
			t.Errorf("%s + %s = %s, %v; want %s, %v", tc.a, tc.b, got, ok, tc.sum, tc.ok)
		}
	}
}

func TestNumberOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    any
		want string
		ok   bool
	}{
		{json.Number("12.0"), "12", true},
		{2.5, "2.5", true},
		{1e21, "1e21", true},
		{1e20, "100000000000000000000", true},
		{3, "3", true},
		{int64(-4), "-4", true},
		{"5", "", false},
		{nil, "", false},
	} {
		d, ok := NumberOf(tc.v)
		if ok != tc.ok || (ok && d.String() != tc.want) {
			t.Errorf("NumberOf(%#v) = %s, %v; want %s, %v", tc.v, d, ok, tc.want, tc.ok)
		}
	}
}

func TestCanonicalAndTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, canonical, typ string }{
		{`{"b":1.0,"a":[1e2,"x",null,true]}`, `{"a":[100,"x",null,true],"b":1}`, "object"},
		{`"<é>"`, `"\u003cé\u003e"`, "string"},
		{`[]`, `[]`, "array"},
		{`null`, `null`, "null"},
		{`-0.0`, `0`, "number"},
		{`false`, `false`, "boolean"},
	} {
		v := mustDecode(t, tc.in)
		if got := Canonical(v); got != tc.canonical {
			t.Errorf("Canonical(%s) = %s, want %s", tc.in, got, tc.canonical)
		}
		if got := TypeOf(v); got != tc.typ {
			t.Errorf("TypeOf(%s) = %s, want %s", tc.in, got, tc.typ)
		}
	}
	if got := Format(mustDecode(t, `{"tag":"<b>","n":12345678901234567890}`), 0); got != `{"n":12345678901234567890,"tag":"<b>"}` {
		t.Errorf("Format = %s", got)
	}
	if got := Format(strings.Repeat("é", 100), 10); got != `"éééééééé…` {
		t.Errorf("Format shortened = %s", got)
	}
	if _, err := Decode([]byte(`1 2`)); err == nil {
		t.Errorf("Decode of two values: no error")
	}
	if v, err := Decode(nil); v != nil || err != nil {
		t.Errorf("Decode(nil) = %v, %v", v, err)
	}
}

func TestTruthy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`false`: false, `0`: false, `-0.0`: false, `""`: false, `null`: false,
		`true`: true, `1e-400`: true, `"0"`: true, `[]`: true, `{}`: true, `-1`: true,
	} {
		if got := Truthy(mustDecode(t, in)); got != want {
			t.Errorf("Truthy(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expected, actual string
		opts             Options
		want             []string
	}{
		{`{"a":{"b":[1,2]}}`, `{"a":{"b":[1,3]}}`, Options{}, []string{`$.a.b[1]: expected 2, got 3`}},
		{`{"a":1}`, `{"a":1,"$x":2,"1st":3,"":4}`, Options{}, []string{
			`$[""]: unexpected, got 4`, `$.$x: unexpected, got 2`, `$["1st"]: unexpected, got 3`}},
		{`[1,2,3]`, `[1]`, Options{}, []string{`$[1]: missing, expected 2`, `$[2]: missing, expected 3`}},
		{`{"n":1}`, `{"n":"1"}`, Options{}, []string{`$.n: expected number 1, got string "1"`}},
		{`{"n":1}`, `{"n":"1"}`, Options{Loose: true}, nil},
		{`{"n":"1e3"}`, `{"n":1000}`, Options{Loose: true}, nil},
		{`{"n":" 1"}`, `{"n":1}`, Options{Loose: true}, []string{`$.n: expected string " 1", got number 1`}},
		{`{"b":"false"}`, `{"b":false}`, Options{Loose: true}, nil},
		{`{"b":"False"}`, `{"b":false}`, Options{Loose: true}, []string{`$.b: expected string "False", got boolean false`}},
		{`{"z":null}`, `{"z":0}`, Options{Loose: true}, []string{`$.z: expected null, got number 0`}},
		{`{"a":{"x":1,"y":2},"b":[1,[2]]}`, `{"a":{"x":1,"y":3},"b":[1,[3]]}`, Options{Shallow: true}, []string{
			`$.a: expected {"x":1,"y":2}, got {"x":1,"y":3}`, `$.b: expected [1,[2]], got [1,[3]]`}},
		{`[[1],[2]]`, `[[1],[2.0]]`, Options{Shallow: true}, nil},
		{`"x"`, `"x"`, Options{}, nil},
	} {
		diffs := Diff(mustDecode(t, tc.expected), mustDecode(t, tc.actual), tc.opts)
		var got []string
		for _, d := range diffs {
			got = append(got, d.String())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Diff(%s, %s, %+v) = %q\nwant %q", tc.expected, tc.actual, tc.opts, got, tc.want)
		}
		if eq := Equal(mustDecode(t, tc.expected), mustDecode(t, tc.actual), tc.opts); eq != (len(tc.want) == 0) {
			t.Errorf("Equal(%s, %s, %+v) = %v", tc.expected, tc.actual, tc.opts, eq)
		}
	}
}

func TestDifferenceJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    Difference
		want string
	}{
		{Difference{Path: "$.a", Type: Added, Actual: nil}, `{"path":"$.a","type":"added","actual":null}`},
		{Difference{Path: "$.a", Type: Removed, Expected: 1.0}, `{"path":"$.a","type":"removed","expected":1}`},
		{Difference{Path: "$", Type: Changed, Expected: nil, Actual: json.Number("12345678901234567890")},
			`{"path":"$","type":"changed","expected":null,"actual":12345678901234567890}`},
	} {
		b, err := json.Marshal(tc.d)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.d, b, err, tc.want)
		}
	}
}

func TestDecodeArg(t *testing.T) {
	t.Parallel()
	v, err := DecodeArg("value", []byte(` {"n": 12345678901234567890} `))
	if err != nil || Canonical(v) != `{"n":12345678901234567890}` {
		t.Errorf("DecodeArg = %v, %v; want the exact number", v, err)
	}
	_, err = DecodeArg("value", []byte(`[1,`))
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs || !strings.HasPrefix(te.Message, `argument "value": `) {
		t.Errorf("DecodeArg of bad JSON = %v, want INVALID_ARGS naming \"value\"", err)
	}
}
