package data

import (
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestDefinitions(t *testing.T) {
	t.Parallel()
	tooltest.CheckFamily(t, Tools(), tooltest.Group(Group), "data_generate", "data_edge_cases", "data_from_schema")
}

func TestDataGenerateExamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"type":"uuid","count":2,"seed":42}`, `{"count":2,"locale":"en_US","seed":42,"type":"uuid","values":["32d73b71-da8f-4b3f-9e0d-40042372ba49","a23c8309-af7a-4496-a168-5945012e085e"]}`},
		{`{"type":"email","count":3,"seed":42}`, `{"count":3,"locale":"en_US","seed":42,"type":"email","values":["michael.moore70@example.com","patricia_moore18@example.org","linda_davis@example.com"]}`},
		{`{"type":"integer","count":5,"seed":7,"min":1,"max":6}`, `{"count":5,"locale":"en_US","seed":7,"type":"integer","values":[3,1,4,2,5]}`},
		{`{"type":"float","count":3,"seed":7,"min":-1,"max":1}`, `{"count":3,"locale":"en_US","seed":7,"type":"float","values":[0.09,0.19,-0.24]}`},
		{`{"type":"name","count":2,"seed":1,"locale":"de_DE"}`, `{"count":2,"locale":"de_DE","seed":1,"type":"name","values":["Käthe Klein","Käthe Neumann"]}`},
		{`{"type":"phone","count":2,"seed":1,"locale":"en_GB"}`, `{"count":2,"locale":"en_GB","seed":1,"type":"phone","values":["+44 7700 900930","+44 7700 900729"]}`},
		{`{"type":"zipCode","count":2,"seed":1,"locale":"en_GB"}`, `{"count":2,"locale":"en_GB","seed":1,"type":"zipCode","values":["BN15 9XT","G20 6WJ"]}`},
		{`{"type":"creditCard","seed":3}`, `{"count":1,"locale":"en_US","seed":3,"type":"creditCard","values":[{"brand":"discover","cvv":"033","expiry":"09/36","number":"6011111111111117"}]}`},
		{`{"type":"password","seed":3,"length":8}`, `{"count":1,"locale":"en_US","seed":3,"type":"password","values":["a5s+-2TE"]}`},
		{`{"type":"user","seed":7,"locale":"fr_FR"}`, `{"count":1,"locale":"fr_FR","seed":7,"type":"user","values":[{"address":{"city":"Nantes","country":"France","street":"140 rue de la République","zipCode":"94451"},"birthDate":"2005-07-31","email":"emmamartin22@example.org","firstName":"Emma","id":"1eed87f2-8cd2-4f0c-a481-6aeaa7c7e54e","lastName":"Martin","phone":"+33 1 99 00 36 35","username":"emmamartin132"}]}`},
		{`{"type":"date","seed":5,"count":2}`, `{"count":2,"locale":"en_US","seed":5,"type":"date","values":["2020-09-29","2018-12-07"]}`},
		{`{"type":"sentence","seed":5}`, `{"count":1,"locale":"en_US","seed":5,"type":"sentence","values":["In proident ex cupidatat quis reprehenderit fugiat irure reprehenderit reprehenderit."]}`},
		{`{"type":"integer","count":3,"seed":1,"min":5,"max":5}`, `{"count":3,"locale":"en_US","seed":1,"type":"integer","values":[5,5,5]}`},
		{`{"type":"integer","count":2,"seed":1,"min":1.5,"max":2.5}`, `{"count":2,"locale":"en_US","seed":1,"type":"integer","values":[2,2]}`},
	} {
		got := tooltest.MustRun(t, Tools(), "data_generate", tc.args)
		if !tooltest.SameJSON(t, got, tc.want) {
			t.Errorf("data_generate(%s)\n got %s\nwant %s", tc.args, tooltest.Marshal(got), tc.want)
		}
	}
}

var (
	uuidV4Re   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	emailRe    = regexp.MustCompile(`^[a-z0-9._]+@example\.(com|org)$`)
	colorRe    = regexp.MustCompile(`^#[0-9a-f]{6}$`)
	usernameRe = regexp.MustCompile(`^[a-z0-9._]+$`)
	phoneRe    = map[string]*regexp.Regexp{
		"en_US": regexp.MustCompile(`^\+1 \([2-9]\d\d\) 555-01\d\d$`),
		"en_GB": regexp.MustCompile(`^\+44 7700 900\d{3}$`),
		"de_DE": regexp.MustCompile(`^\+49 30 23125 \d{3}$`),
		"fr_FR": regexp.MustCompile(`^\+33 1 99 00 \d\d \d\d$`),
	}
	zipRe = map[string]*regexp.Regexp{
		"en_US": regexp.MustCompile(`^\d{5}$`),
		"en_GB": regexp.MustCompile(`^[A-Z]{1,2}\d{1,2} \d[A-Z]{2}$`),
		"de_DE": regexp.MustCompile(`^\d{5}$`),
		"fr_FR": regexp.MustCompile(`^\d{5}$`),
	}
)

// luhn reports whether the digits pass the Luhn check.
func luhn(number string) bool {
	sum, double := 0, false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(number) > 0 && sum%10 == 0
}

func TestLuhn(t *testing.T) {
	t.Parallel()
	if !luhn("79927398713") || luhn("79927398710") || luhn("") {
		t.Fatal("luhn helper is wrong")
	}
	for _, c := range testCards {
		if !luhn(c.number) {
			t.Errorf("test card %s %s fails the Luhn check", c.brand, c.number)
		}
	}
}

func checkAddress(t *testing.T, loc string, v any) {
	t.Helper()
	a, ok := v.(map[string]any)
	if !ok || len(a) != 4 || a["street"] == "" || a["city"] == "" || a["country"] != locales[loc].country {
		t.Errorf("%s address %v", loc, v)
		return
	}
	if z, _ := a["zipCode"].(string); !zipRe[loc].MatchString(z) {
		t.Errorf("%s zip code %q", loc, z)
	}
}

// check verifies one generated value of a type.
func check(t *testing.T, typ, loc string, v any) {
	t.Helper()
	s, _ := v.(string)
	bad := func() { t.Errorf("%s (%s): bad value %v", typ, loc, tooltest.Marshal(v)) }
	switch typ {
	case "name":
		if f, l, ok := strings.Cut(s, " "); !ok || f == "" || l == "" {
			bad()
		}
	case "firstName", "lastName", "city", "company", "country":
		if s == "" {
			bad()
		}
	case "email":
		if !emailRe.MatchString(s) {
			bad()
		}
	case "uuid":
		if !uuidV4Re.MatchString(s) {
			bad()
		}
	case "phone":
		if !phoneRe[loc].MatchString(s) {
			bad()
		}
	case "zipCode":
		if !zipRe[loc].MatchString(s) {
			bad()
		}
	case "address":
		checkAddress(t, loc, v)
	case "url":
		if !regexp.MustCompile(`^https://([a-z]+\.)?example\.(com|org|net)/[a-z]+`).MatchString(s) {
			bad()
		}
	case "ipv4":
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() || !(netip.MustParsePrefix("192.0.2.0/24").Contains(a) ||
			netip.MustParsePrefix("198.51.100.0/24").Contains(a) || netip.MustParsePrefix("203.0.113.0/24").Contains(a)) {
			bad()
		}
	case "ipv6":
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || !netip.MustParsePrefix("2001:db8::/32").Contains(a) {
			bad()
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			bad()
		}
	case "datetime":
		if d, err := time.Parse(time.RFC3339, s); err != nil || !strings.HasSuffix(s, "Z") || d.Year() < 2000 || d.Year() > 2030 {
			bad()
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != math.Trunc(f) || f < 0 || f > 1000 {
			bad()
		}
	case "float":
		if f, ok := v.(float64); !ok || f < 0 || f > 1000 {
			bad()
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad()
		}
	case "password":
		if len(s) != defaultPassword || !strings.ContainsFunc(s, unicode.IsUpper) || !strings.ContainsFunc(s, unicode.IsLower) ||
			!strings.ContainsFunc(s, unicode.IsDigit) || !strings.ContainsAny(s, "!@#$%^&*-_=+?") {
			bad()
		}
	case "username":
		if !usernameRe.MatchString(s) {
			bad()
		}
	case "sentence":
		if !unicode.IsUpper([]rune(s)[0]) || !strings.HasSuffix(s, ".") || len(strings.Fields(s)) < 6 || len(strings.Fields(s)) > 12 {
			bad()
		}
	case "paragraph":
		if n := strings.Count(s, "."); n < 3 || n > 6 {
			bad()
		}
	case "color":
		if !colorRe.MatchString(s) {
			bad()
		}
	case "creditCard":
		c, _ := v.(map[string]any)
		num, _ := c["number"].(string)
		cvv, _ := c["cvv"].(string)
		exp, _ := c["expiry"].(string)
		if !luhn(num) || !regexp.MustCompile(`^(0[1-9]|1[0-2])/3\d$`).MatchString(exp) ||
			len(cvv) != map[bool]int{true: 4, false: 3}[c["brand"] == "amex"] {
			bad()
		}
	case "user":
		u, _ := v.(map[string]any)
		keys := []string{"id", "firstName", "lastName", "username", "email", "phone", "birthDate", "address"}
		if len(u) != len(keys) {
			bad()
		}
		check(t, "uuid", loc, u["id"])
		check(t, "email", loc, u["email"])
		check(t, "phone", loc, u["phone"])
		check(t, "username", loc, u["username"])
		check(t, "date", loc, u["birthDate"])
		checkAddress(t, loc, u["address"])
		if slug(u["lastName"].(string)) == "" || !strings.Contains(u["email"].(string), slug(u["lastName"].(string))) {
			t.Errorf("user e-mail %v does not use the last name %v", u["email"], u["lastName"])
		}
	default:
		t.Fatalf("no check for type %s", typ)
	}
}

func TestDataGenerateEveryType(t *testing.T) {
	t.Parallel()
	for _, loc := range localeNames {
		for _, typ := range typeNames {
			args := fmt.Sprintf(`{"type":%q,"count":40,"seed":11,"locale":%q}`, typ, loc)
			got := tooltest.MustRunObject(t, Tools(), "data_generate", args)
			values := got["values"].([]any)
			if len(values) != 40 || got["count"] != 40.0 || got["type"] != typ || got["locale"] != loc || got["seed"] != 11.0 {
				t.Fatalf("%s: header %v, %d values", args, got, len(values))
			}
			distinct := map[string]bool{}
			for _, v := range values {
				check(t, typ, loc, v)
				distinct[tooltest.Marshal(v)] = true
			}
			if typ != "boolean" && len(distinct) < 3 {
				t.Errorf("%s: only %d distinct values", args, len(distinct))
			}
		}
	}
}

func TestDataGenerateSeed(t *testing.T) {
	t.Parallel()
	a := tooltest.MustRun(t, Tools(), "data_generate", `{"type":"user","count":5,"seed":123}`)
	b := tooltest.MustRun(t, Tools(), "data_generate", `{"type":"user","count":5,"seed":123}`)
	c := tooltest.MustRun(t, Tools(), "data_generate", `{"type":"user","count":5,"seed":124}`)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different values")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds gave the same values")
	}
	// Without a seed one is chosen, returned, and reproduces the values.
	r := tooltest.MustRunObject(t, Tools(), "data_generate", `{"type":"uuid","count":3}`)
	seed, ok := r["seed"].(float64)
	if !ok || seed < 0 || seed > maxSeed || seed != math.Trunc(seed) {
		t.Fatalf("random seed %v", r["seed"])
	}
	again := tooltest.MustRun(t, Tools(), "data_generate", fmt.Sprintf(`{"type":"uuid","count":3,"seed":%d}`, int64(seed)))
	if !reflect.DeepEqual(r, again) {
		t.Errorf("returned seed does not reproduce: %v vs %v", r, again)
	}
	// count defaults to 1.
	one := tooltest.MustRunObject(t, Tools(), "data_generate", `{"type":"boolean","seed":0}`)
	if len(one["values"].([]any)) != 1 || one["count"] != 1.0 {
		t.Errorf("default count: %v", one)
	}
	// The largest count works.
	big := tooltest.MustRunObject(t, Tools(), "data_generate", `{"type":"integer","count":1000,"seed":1,"min":-3,"max":3}`)
	seen := map[float64]bool{}
	for _, v := range big["values"].([]any) {
		f := v.(float64)
		if f < -3 || f > 3 {
			t.Fatalf("integer %v outside [-3, 3]", f)
		}
		seen[f] = true
	}
	if len(seen) != 7 {
		t.Errorf("1000 integers in [-3, 3] hit %d distinct values, want 7", len(seen))
	}
}

func TestDataGenerateBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{}`, `"type"`},
		{`{"type":5}`, "expected string"},
		{`{"type":"ssn"}`, "creditCard"},
		{`{"type":"email","count":0}`, `"count"`},
		{`{"type":"email","count":1001}`, `"count"`},
		{`{"type":"email","count":"3"}`, `"count"`},
		{`{"type":"email","seed":-1}`, `"seed"`},
		{`{"type":"email","seed":1.5}`, `"seed"`},
		{`{"type":"email","locale":"xx_XX"}`, "en_US"},
		{`{"type":"integer","min":10,"max":1}`, `"min"`},
		{`{"type":"integer","min":1.2,"max":1.8}`, "no integer"},
		{`{"type":"password","length":3}`, `"length"`},
	} {
		tooltest.MustFailWith(t, Tools(), "data_generate", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

func TestDataEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		category string
		want     []any
	}{
		{"sql_injection", []any{`' OR '1'='1`, `'; DROP TABLE users; --`, `' UNION SELECT NULL, NULL --`}},
		{"xss", []any{`<script>alert(1)</script>`, `<img src=x onerror=alert(1)>`, `javascript:alert(1)`}},
		{"boundary_numbers", []any{2147483647.0, -2147483648.0, 9007199254740991.0, "NaN", "Infinity", "-Infinity"}},
		{"unicode", []any{"\u200d", "\u200b", "\ufeff", "\u202egnp.exe", "👨‍👩‍👧‍👦"}},
		{"empty_values", []any{"", " ", nil, "null", []any{}, map[string]any{}}},
		{"special_chars", []any{"'", "\"", "\\", "\x00", "foo\r\nSet-Cookie: injected=1"}},
		{"path_traversal", []any{"../../../etc/passwd", "..\\..\\..\\windows\\win.ini", "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd"}},
		{"command_injection", []any{"; id", "| id", "$(id)", "`id`"}},
		{"format_strings", []any{"%s%s%s%s%s", "%n", "{{7*7}}", "${jndi:ldap://example.com/a}"}},
		{"dates", []any{"1970-01-01T00:00:00Z", "2038-01-19T03:14:07Z", "2024-02-29", "2023-02-29", "2016-12-31T23:59:60Z"}},
	} {
		got := tooltest.MustRunObject(t, Tools(), "data_edge_cases", fmt.Sprintf(`{"category":%q}`, tc.category))
		values := got["values"].([]any)
		if got["category"] != tc.category || got["count"] != float64(len(values)) || len(values) < 10 {
			t.Errorf("%s: category %v count %v with %d values", tc.category, got["category"], got["count"], len(values))
		}
		seen := map[string]bool{}
		for _, v := range values {
			item := v.(map[string]any)
			if d, _ := item["description"].(string); d == "" {
				t.Errorf("%s: %v has no description", tc.category, item)
			}
			if _, ok := item["value"]; !ok {
				t.Errorf("%s: item without value: %v", tc.category, item)
			}
			k := tooltest.Marshal(item["value"])
			if seen[k] {
				t.Errorf("%s: duplicate value %s", tc.category, k)
			}
			seen[k] = true
		}
		for _, w := range tc.want {
			if !seen[tooltest.Marshal(w)] {
				t.Errorf("%s: missing %s", tc.category, tooltest.Marshal(w))
			}
		}
	}
}

func TestDataEdgeCasesSpecials(t *testing.T) {
	t.Parallel()
	nums := tooltest.MustRunObject(t, Tools(), "data_edge_cases", `{"category":"boundary_numbers"}`)["values"].([]any)
	negZero := false
	for _, v := range nums {
		if f, ok := v.(map[string]any)["value"].(float64); ok && f == 0 && math.Signbit(f) {
			negZero = true
		}
	}
	if !negZero {
		t.Error("boundary_numbers lacks -0")
	}

	long := tooltest.MustRunObject(t, Tools(), "data_edge_cases", `{"category":"long_strings"}`)["values"].([]any)
	lengths := map[int]bool{}
	for _, v := range long {
		item := v.(map[string]any)
		s := item["value"].(string)
		n := utf8.RuneCountInString(s)
		if float64(n) != item["length"] {
			t.Errorf("long string of %d characters says length %v", n, item["length"])
		}
		lengths[n] = true
	}
	for _, n := range []int{255, 256, 1024, 65536} {
		if !lengths[n] {
			t.Errorf("long_strings lacks a string of %d characters", n)
		}
	}

	two := tooltest.MustRunObject(t, Tools(), "data_edge_cases", `{"category":"xss","limit":2}`)
	if !tooltest.SameJSON(t, two, `{"category":"xss","count":2,"values":[
		{"value":"<script>alert(1)</script>","description":"basic script injection"},
		{"value":"<img src=x onerror=alert(1)>","description":"event handler on a broken image"}]}`) {
		t.Errorf("xss limit 2: %s", tooltest.Marshal(two))
	}

	all := tooltest.MustRunObject(t, Tools(), "data_edge_cases", `{"category":"all","limit":3}`)
	groups := all["groups"].(map[string]any)
	if all["category"] != "all" || len(groups) != len(edgeCategories) || all["count"] != float64(3*len(edgeCategories)) {
		t.Errorf("all with limit 3: category %v count %v, %d groups", all["category"], all["count"], len(groups))
	}
	for _, c := range edgeCategories {
		if g, _ := groups[c].([]any); len(g) != 3 {
			t.Errorf("all: group %s has %d values, want 3", c, len(g))
		}
	}
	full := tooltest.MustRunObject(t, Tools(), "data_edge_cases", `{"category":"all"}`)
	total := 0
	for _, c := range edgeCategories {
		total += len(edgeCases[c])
	}
	if full["count"] != float64(total) {
		t.Errorf("all: count %v, want %d", full["count"], total)
	}
}

func TestDataEdgeCasesBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{}`, `"category"`},
		{`{"category":"sqli"}`, "sql_injection"},
		{`{"category":["xss"]}`, "expected string"},
		{`{"category":"xss","limit":0}`, `"limit"`},
		{`{"category":"xss","limit":"2"}`, `"limit"`},
	} {
		tooltest.MustFailWith(t, Tools(), "data_edge_cases", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

// validateWith checks v against the schema the way the brief requires:
// github.com/google/jsonschema-go, unmarshal, Resolve(nil), Validate.
func validateWith(t *testing.T, schemaJSON string, v any) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatalf("schema %s: %v", schemaJSON, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema %s: %v", schemaJSON, err)
	}
	return rs.Validate(v)
}

// fromSchemaCases are schemas whose every generated instance must validate
// with no warning.
var fromSchemaCases = []string{
	`{"type":"string"}`,
	`{"type":"integer"}`,
	`{"type":"number"}`,
	`{"type":"boolean"}`,
	`{"type":"null"}`,
	`{}`,
	`{"type":["string","integer","null"]}`,
	`{"enum":["red","green",3,null,{"a":1}]}`,
	`{"type":"integer","enum":["1",1,2.5,true,2]}`,
	`{"const":{"kind":"user","n":[1,2]}}`,
	`{"type":"integer","minimum":-5,"maximum":5}`,
	`{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":3}`,
	`{"type":"integer","minimum":7,"maximum":100,"multipleOf":7}`,
	`{"type":"integer","minimum":9007199254740000}`,
	`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`,
	`{"type":"number","minimum":0.5,"maximum":0.5}`,
	`{"type":"number","minimum":0,"maximum":10,"multipleOf":0.25}`,
	`{"type":"number","maximum":-1000000}`,
	`{"type":"number","minimum":-1.7e308,"maximum":1.7e308}`,
	`{"type":"integer","minimum":-9e18,"maximum":9e18}`,
	`{"type":"array","maxItems":1000000}`,
	`{"type":"string","maxLength":1000000}`,
	`{"type":"string","minLength":5,"maxLength":5}`,
	`{"type":"string","maxLength":0}`,
	`{"type":"string","minLength":40}`,
	`{"type":"string","pattern":"^[A-Z]{2}-\\d{3,5}$"}`,
	`{"type":"string","pattern":"^(foo|bar)+$","maxLength":9}`,
	`{"type":"string","pattern":"^\\w+@\\w+\\.com$"}`,
	`{"type":"string","pattern":"\\d","minLength":8,"maxLength":10}`,
	`{"type":"string","pattern":"^[^\\s@]{3,8}$"}`,
	`{"type":"string","pattern":"^\\p{Greek}+$"}`,
	`{"type":"string","pattern":"^[a-z]+$","minLength":20}`,
	`{"type":"string","format":"email"}`,
	`{"type":"string","format":"uuid","maxLength":36}`,
	`{"type":"string","format":"date-time"}`,
	`{"type":"array","items":{"type":"integer","minimum":1,"maximum":4},"minItems":2,"maxItems":4,"uniqueItems":true}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"items":false,"minItems":2}`,
	`{"type":"array","items":{"type":"integer"},"contains":{"const":42},"maxItems":3}`,
	`{"type":"array","items":{"type":"array","items":{"type":"string","enum":["x","y"]},"minItems":1}}`,
	`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
	`{"type":"object","required":["x","y"]}`,
	`{"type":"object","additionalProperties":{"type":"integer"},"minProperties":3}`,
	`{"type":"object","patternProperties":{"^k_[a-z]{2}$":{"type":"boolean"}},"additionalProperties":false,"minProperties":2}`,
	`{"type":"object","properties":{"card":{"type":"string"}},"dependentRequired":{"card":["billing"]}}`,
	`{"type":"object","properties":{"big":{"type":"integer"}},"maxProperties":0}`,
	`{"$defs":{"pos":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/$defs/pos"},"m":{"$ref":"#/$defs/pos","maximum":3}},"required":["n","m"]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string","minLength":2}},"type":"array","items":{"$ref":"#/definitions/s"},"minItems":1}`,
	`{"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["value"]}},"$ref":"#/$defs/node"}`,
	`{"type":"object","properties":{"value":{"type":"string"},"next":{"$ref":"#"}},"required":["value"]}`,
	`{"$defs":{"a":{"$anchor":"thing","type":"string","enum":["t"]}},"items":{"$ref":"#thing"},"type":"array"}`,
	`{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"a":{"minimum":10,"maximum":12},"b":{"type":"string"}},"required":["b"]}]}`,
	`{"anyOf":[{"type":"string","maxLength":3},{"type":"integer","minimum":100}]}`,
	`{"oneOf":[{"type":"string"},{"type":"boolean"},{"type":"null"}]}`,
	`{"type":"object","properties":{"email":{"type":"string"},"firstName":{"type":"string"},"city":{"type":"string","maxLength":3},"userId":{"type":"string"},"website":{"type":"string"}}}`,
	`{"type":"object","properties":{"when":{"type":"string","format":"date"},"at":{"type":"string","format":"time"},"site":{"type":"string","format":"uri"},"ip":{"type":"string","format":"ipv4"},"ip6":{"type":"string","format":"ipv6"},"host":{"type":"string","format":"hostname"}}}`,
	`{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":100},"age":{"type":"integer","minimum":0,"maximum":150},"email":{"type":"string","format":"email"},"address":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string","pattern":"^\\d{5}$"}},"required":["zip"]},"tags":{"type":"array","items":{"type":"string"},"maxItems":5,"uniqueItems":true}},"required":["name","email","address"]}`,
}

func TestDataFromSchemaValidates(t *testing.T) {
	t.Parallel()
	for _, sc := range fromSchemaCases {
		for seed := range 3 {
			args := fmt.Sprintf(`{"schema":%s,"count":25,"seed":%d}`, sc, seed)
			got := tooltest.MustRunObject(t, Tools(), "data_from_schema", args)
			values := got["values"].([]any)
			if len(values) != 25 || got["count"] != 25.0 || got["seed"] != float64(seed) {
				t.Fatalf("%s: count %v seed %v with %d values", args, got["count"], got["seed"], len(values))
			}
			if got["valid"] != true || len(got["warnings"].([]any)) != 0 {
				t.Errorf("%s: valid %v, warnings %v", sc, got["valid"], got["warnings"])
			}
			for i, v := range values {
				if err := validateWith(t, sc, v); err != nil {
					t.Errorf("schema %s seed %d: values[%d] = %s does not validate: %v", sc, seed, i, tooltest.Marshal(v), err)
				}
			}
		}
	}
}

func TestDataFromSchemaFormatsAndHints(t *testing.T) {
	t.Parallel()
	sc := `{"type":"object","properties":{
		"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uuid"},
		"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},
		"uri":{"type":"string","format":"uri"},"ip":{"type":"string","format":"ipv4"},"ip6":{"type":"string","format":"ipv6"},
		"email":{"type":"string"},"id":{"type":"string"},"phone":{"type":"string"}},
		"required":["e","u","dt","d","uri","ip","ip6","email","id","phone"]}`
	got := tooltest.MustRunObject(t, Tools(), "data_from_schema", `{"schema":`+sc+`,"count":30,"seed":5}`)
	for _, v := range got["values"].([]any) {
		o := v.(map[string]any)
		check(t, "email", "en_US", o["e"])
		check(t, "email", "en_US", o["email"])
		check(t, "uuid", "en_US", o["u"])
		check(t, "uuid", "en_US", o["id"])
		check(t, "datetime", "en_US", o["dt"])
		check(t, "date", "en_US", o["d"])
		check(t, "url", "en_US", o["uri"])
		check(t, "ipv4", "en_US", o["ip"])
		check(t, "ipv6", "en_US", o["ip6"])
		check(t, "phone", "en_US", o["phone"])
		if err := validateWith(t, sc, v); err != nil {
			t.Error(err)
		}
	}
}

func TestDataFromSchemaExamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"schema":{"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":100},"email":{"type":"string","format":"email"},"role":{"enum":["admin","user"]},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]{3}$"},"maxItems":2}},"required":["id","email"]},"count":2,"seed":9}`,
			`{"count":2,"seed":9,"valid":true,"values":[{"email":"jessica.williams45@example.org","id":56,"role":"admin","tags":["zsd"]},{"email":"michael_johnson40@example.com","id":65,"role":"user","tags":["ywy"]}],"warnings":[]}`},
		{`{"schema":{"type":"string","pattern":"^[A-Z]{2}-\\d{3}$"},"count":3,"seed":4}`,
			`{"count":3,"seed":4,"valid":true,"values":["IT-007","BO-708","RT-345"],"warnings":[]}`},
		{`{"schema":{"const":"x"},"count":2,"seed":0}`, `{"count":2,"seed":0,"valid":true,"values":["x","x"],"warnings":[]}`},
		{`{"schema":{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":3}},"required":["n"]}}`,
			`{"count":1,"seed":"any","valid":true,"values":[{"n":3}],"warnings":[]}`},
	} {
		got := tooltest.MustRunObject(t, Tools(), "data_from_schema", tc.args)
		if strings.Contains(tc.want, `"seed":"any"`) {
			if _, ok := got["seed"].(float64); !ok {
				t.Errorf("data_from_schema(%s): no seed in %v", tc.args, got)
			}
			got["seed"] = "any"
		}
		if !tooltest.SameJSON(t, got, tc.want) {
			t.Errorf("data_from_schema(%s)\n got %s\nwant %s", tc.args, tooltest.Marshal(got), tc.want)
		}
	}
	a := tooltest.MustRun(t, Tools(), "data_from_schema", `{"schema":{"type":"array","items":{"type":"number"}},"count":10,"seed":77}`)
	b := tooltest.MustRun(t, Tools(), "data_from_schema", `{"schema":{"type":"array","items":{"type":"number"}},"count":10,"seed":77}`)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different instances")
	}
}

func TestDataFromSchemaWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema  string
		valid   bool
		mention string
	}{
		{`{"type":"string","pattern":"^a$","minLength":3}`, false, "pattern"},
		{`{"type":"string","format":"isbn"}`, true, `isbn`},
		{`{"type":"integer","minimum":5,"maximum":4}`, false, "no integer"},
		{`{"type":"string","minLength":4,"maxLength":2}`, false, "minLength"},
		{`false`, false, "false"},
	} {
		args := fmt.Sprintf(`{"schema":{"properties":{"v":%s},"required":["v"]},"count":3,"seed":1}`, tc.schema)
		got := tooltest.MustRunObject(t, Tools(), "data_from_schema", args)
		warnings := tooltest.Marshal(got["warnings"])
		if got["valid"] != tc.valid || !strings.Contains(warnings, tc.mention) || !strings.Contains(warnings, "$.v") {
			t.Errorf("%s: valid %v, warnings %s; want valid %v and a warning about %s at $.v", tc.schema, got["valid"], warnings, tc.valid, tc.mention)
		}
		if len(got["values"].([]any)) != 3 {
			t.Errorf("%s: %d values, want 3 even when invalid", tc.schema, len(got["values"].([]any)))
		}
	}
}

func TestDataFromSchemaBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{}`, `"schema"`},
		{`{"schema":"string"}`, `"schema"`},
		{`{"schema":["a"]}`, `"schema"`},
		{`{"schema":{"type":"string","pattern":"(["}}`, `"schema"`},
		{`{"schema":{"$ref":"https://example.com/other.json"}}`, `"schema"`},
		{`{"schema":{"type":"strin"}}`, `"schema"`},
		{`{"schema":{"type":"string"},"count":0}`, `"count"`},
		{`{"schema":{"type":"string"},"count":5000}`, `"count"`},
		{`{"schema":{"type":"string"},"seed":"x"}`, `"seed"`},
		{`{"schema":{"type":"string","minLength":100000},"count":1000}`, `"count"`},
	} {
		tooltest.MustFailWith(t, Tools(), "data_from_schema", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

func TestFromPattern(t *testing.T) {
	t.Parallel()
	r, _ := newRand(new(int64))
	for _, p := range []string{`^[a-f0-9]{8}$`, `^(ab|cd)*x?$`, `^\d{3}-\d{4}$`, `colou?r`, `^[^a-z]+$`, `^.{2,4}$`, `^\p{Han}{2}$`, `a|b|c`} {
		re := regexp.MustCompile(p)
		for range 50 {
			s, err := fromPattern(r, p, 3)
			if err != nil || !re.MatchString(s) || !utf8.ValidString(s) {
				t.Fatalf("fromPattern(%q) = %q, %v", p, s, err)
			}
		}
	}
	if _, err := fromPattern(r, `[^\x00-\x{10FFFF}]`, 3); err == nil {
		t.Error("a pattern that matches nothing gave a string")
	}
}

// TestGeneratorFirstTry checks the generator itself, without the retries of
// data_from_schema that would hide a value it gets wrong now and then.
func TestGeneratorFirstTry(t *testing.T) {
	t.Parallel()
	for _, sc := range fromSchemaCases {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(sc), &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		seed := int64(3)
		r, _ := newRand(&seed)
		g := &schemaGen{r: r, root: &s, regexps: map[string]*regexp.Regexp{}}
		for i := range 200 {
			g.steps = 0
			v := g.gen(&s, "", "$", 0)
			if _, err := validate(rs, v); err != nil {
				t.Errorf("schema %s: instance %d = %s: %v", sc, i, tooltest.Marshal(v), err)
				break
			}
		}
		if len(g.warnings) > 0 {
			t.Errorf("schema %s: warnings %v", sc, g.warnings)
		}
	}
}
