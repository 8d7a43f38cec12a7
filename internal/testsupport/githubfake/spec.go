package githubfake

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// specFile is the OpenAPI description inside the GitHubAPI directory.
const specFile = "@octokit/openapi/generated/api.github.com.json"

// spec is GitHub's OpenAPI 3.0 description of api.github.com, read once
// per process. Operations and schemas are decoded lazily, when first used.
type spec struct {
	paths      []*pathItem
	schemas    map[string]json.RawMessage
	examples   map[string]json.RawMessage
	parameters map[string]json.RawMessage
	responses  map[string]json.RawMessage

	mu       sync.Mutex
	ops      map[string]*operation           // "GET /repos/{owner}/{repo}"
	compiled map[string]*jsonschema.Resolved // by the place the schema sits
	decoded  map[string]any                  // examples, decoded once
}

// pathItem is one path template of the description with its operations.
type pathItem struct {
	template string
	segs     []string
	raw      map[string]json.RawMessage // method (lower case) → operation
}

// operation is what the description says about one method on one path.
type operation struct {
	ID       string
	Method   string
	Template string
	DocURL   string
	Params   []parameter
	Body     any // the requestBody's application/json schema, or nil
	BodyReq  bool
	Response map[string]any // status → application/json schema (nil when none)
}

// parameter is a path or query parameter of an operation.
type parameter struct {
	Name     string
	In       string
	Required bool
	Schema   any
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

// loadSpec reads the description at file the first time it is called in
// the process and returns that same one ever after.
func loadSpec(file string) (*spec, error) {
	specOnce.Do(func() { specVal, specErr = readSpec(file) })
	return specVal, specErr
}

func readSpec(file string) (*spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read the OpenAPI description: %w", err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas    map[string]json.RawMessage `json:"schemas"`
			Examples   map[string]json.RawMessage `json:"examples"`
			Parameters map[string]json.RawMessage `json:"parameters"`
			Responses  map[string]json.RawMessage `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode the OpenAPI description %s: %w", file, err)
	}
	sp := &spec{
		schemas:    doc.Components.Schemas,
		examples:   doc.Components.Examples,
		parameters: doc.Components.Parameters,
		responses:  doc.Components.Responses,
		ops:        map[string]*operation{},
		compiled:   map[string]*jsonschema.Resolved{},
		decoded:    map[string]any{},
	}
	for tmpl, raw := range doc.Paths {
		sp.paths = append(sp.paths, &pathItem{template: tmpl, segs: strings.Split(strings.TrimPrefix(tmpl, "/"), "/"), raw: raw})
	}
	sort.Slice(sp.paths, func(i, j int) bool { return sp.paths[i].template < sp.paths[j].template })
	return sp, nil
}

// greedy names the path parameters that may hold slashes when they end a
// template: a file path, a git ref, a base...head pair of branch names.
var greedy = map[string]bool{"path": true, "ref": true, "basehead": true}

// find is the operation for method on path (escaped, without query) and
// the values of its path parameters, or nil when the description has none.
// Among templates that match, the one with most literal segments wins.
func (sp *spec) find(method, path string) (*operation, map[string]string) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *pathItem
	var bestVals map[string]string
	bestScore := -1
	for _, p := range sp.paths {
		if _, ok := p.raw[strings.ToLower(method)]; !ok {
			continue
		}
		vals, score, ok := matchTemplate(p.segs, segs)
		if ok && score > bestScore {
			best, bestVals, bestScore = p, vals, score
		}
	}
	if best == nil {
		return nil, nil
	}
	op, err := sp.operation(method, best)
	if err != nil {
		return nil, nil
	}
	return op, bestVals
}

// matchTemplate matches the segments of a request path against those of a
// template; score counts literal segments, twice, less one for a greedy
// match, so that an exact match wins over a greedy one.
func matchTemplate(tmpl, segs []string) (map[string]string, int, bool) {
	vals := map[string]string{}
	score := 0
	for i, t := range tmpl {
		name, isParam := strings.CutPrefix(t, "{")
		name = strings.TrimSuffix(name, "}")
		last := i == len(tmpl)-1
		if i >= len(segs) {
			return nil, 0, false
		}
		if !isParam {
			if t != segs[i] {
				return nil, 0, false
			}
			score += 2
			continue
		}
		if last && greedy[name] && len(segs) > len(tmpl) {
			parts := make([]string, 0, len(segs)-i)
			for _, s := range segs[i:] {
				parts = append(parts, unescape(s))
			}
			vals[name] = strings.Join(parts, "/")
			return vals, score - 1, true
		}
		if segs[i] == "" && !(last && greedy[name]) {
			return nil, 0, false
		}
		vals[name] = unescape(segs[i])
	}
	if len(segs) != len(tmpl) {
		return nil, 0, false
	}
	return vals, score, true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// operation decodes the operation for method on p, once.
func (sp *spec) operation(method string, p *pathItem) (*operation, error) {
	key := strings.ToUpper(method) + " " + p.template
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if op, ok := sp.ops[key]; ok {
		return op, nil
	}
	var raw struct {
		OperationID  string `json:"operationId"`
		ExternalDocs struct {
			URL string `json:"url"`
		} `json:"externalDocs"`
		Parameters  []map[string]any `json:"parameters"`
		RequestBody map[string]any   `json:"requestBody"`
		Responses   map[string]any   `json:"responses"`
	}
	if err := json.Unmarshal(p.raw[strings.ToLower(method)], &raw); err != nil {
		return nil, fmt.Errorf("decode operation %s: %w", key, err)
	}
	op := &operation{ID: raw.OperationID, Method: strings.ToUpper(method), Template: p.template, DocURL: raw.ExternalDocs.URL, Response: map[string]any{}}
	var shared []map[string]any
	if rp, ok := p.raw["parameters"]; ok {
		_ = json.Unmarshal(rp, &shared) // path-level parameters; absent in practice
	}
	for _, prm := range append(shared, raw.Parameters...) {
		prm = sp.deref(prm, sp.parameters)
		name, _ := prm["name"].(string)
		in, _ := prm["in"].(string)
		req, _ := prm["required"].(bool)
		op.Params = append(op.Params, parameter{Name: name, In: in, Required: req, Schema: prm["schema"]})
	}
	if rb := sp.deref(raw.RequestBody, nil); rb != nil {
		op.BodyReq, _ = rb["required"].(bool)
		op.Body = jsonSchemaOf(rb)
	}
	for status, r := range raw.Responses {
		m, _ := r.(map[string]any)
		op.Response[status] = jsonSchemaOf(sp.deref(m, sp.responses))
	}
	sp.ops[key] = op
	return op, nil
}

// deref follows a "$ref" into table (by its last segment); m itself when
// it has none.
func (sp *spec) deref(m map[string]any, table map[string]json.RawMessage) map[string]any {
	ref, ok := m["$ref"].(string)
	if !ok || table == nil {
		return m
	}
	var out map[string]any
	if err := json.Unmarshal(table[ref[strings.LastIndex(ref, "/")+1:]], &out); err != nil {
		return nil
	}
	return out
}

// jsonSchemaOf is the application/json schema of a request body or a
// response, nil when there is none.
func jsonSchemaOf(m map[string]any) any {
	content, _ := m["content"].(map[string]any)
	for ct, c := range content {
		if ct == "application/json" || strings.HasSuffix(ct, "+json") {
			if cm, ok := c.(map[string]any); ok {
				return cm["schema"]
			}
		}
	}
	return nil
}

// example is a fresh copy of the value of components/examples/name.
func (sp *spec) example(name string) any {
	sp.mu.Lock()
	v, ok := sp.decoded[name]
	if !ok {
		var e struct {
			Value any `json:"value"`
		}
		if err := json.Unmarshal(sp.examples[name], &e); err != nil {
			panic(fmt.Sprintf("githubfake: no example %q in the OpenAPI description: %v", name, err))
		}
		v = e.Value
		sp.decoded[name] = v
	}
	sp.mu.Unlock()
	return deepCopy(v)
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = deepCopy(x)
		}
		return s
	default:
		return v
	}
}

// validate checks instance against the OpenAPI schema s, compiled once
// under key.
func (sp *spec) validate(key string, s any, instance any) error {
	rs, err := sp.compile(key, s)
	if err != nil {
		return err
	}
	return rs.Validate(instance)
}

// compile turns an OpenAPI 3.0 schema into a resolved JSON Schema
// (2020-12): component references become $defs, "nullable" becomes a
// union with null, and oneOf becomes anyOf (GitHub's description uses
// oneOf where several branches may hold, as for a string-or-integer id).
func (sp *spec) compile(key string, s any) (*jsonschema.Resolved, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if rs, ok := sp.compiled[key]; ok {
		return rs, nil
	}
	c := &converter{sp: sp, defs: map[string]any{}}
	root, _ := c.convert(s).(map[string]any)
	if root == nil {
		root = map[string]any{}
	}
	root["$defs"] = c.defs
	data, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("encode schema %s: %w", key, err)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		return nil, fmt.Errorf("decode schema %s: %w", key, err)
	}
	rs, err := js.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema %s: %w", key, err)
	}
	sp.compiled[key] = rs
	return rs, nil
}

type converter struct {
	sp   *spec
	defs map[string]any
}

// dropped are OpenAPI keywords with no JSON Schema meaning, or a
// different one.
var dropped = map[string]bool{"nullable": true, "example": true, "examples": true, "discriminator": true, "xml": true, "externalDocs": true}

func (c *converter) convert(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if ref, ok := m["$ref"].(string); ok {
		name := ref[strings.LastIndex(ref, "/")+1:]
		if _, done := c.defs[name]; !done {
			c.defs[name] = true // placeholder against cycles
			var raw any
			if err := json.Unmarshal(c.sp.schemas[name], &raw); err != nil {
				raw = map[string]any{}
			}
			c.defs[name] = c.convert(raw)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	out := map[string]any{}
	for k, x := range m {
		switch {
		case dropped[k] || strings.HasPrefix(k, "x-"):
		case k == "properties" || k == "patternProperties":
			props := map[string]any{}
			for pk, pv := range x.(map[string]any) {
				props[pk] = c.convert(pv)
			}
			out[k] = props
		case k == "items" || k == "additionalProperties" || k == "not":
			out[k] = c.convert(x)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			var list []any
			for _, e := range x.([]any) {
				list = append(list, c.convert(e))
			}
			if k == "oneOf" {
				k = "anyOf"
			}
			out[k] = list
		default:
			out[k] = x
		}
	}
	if n, _ := m["nullable"].(bool); n {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
			if e, ok := out["enum"].([]any); ok {
				out["enum"] = append(e, nil)
			}
		} else {
			return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
		}
	}
	return out
}

// paramValue turns the text of a path or query parameter into the JSON
// value its schema describes, or says why it cannot be one.
func paramValue(schema any, text string) (any, error) {
	m, _ := schema.(map[string]any)
	switch m["type"] {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return float64(n), nil
	case "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
		return b, nil
	case "array":
		var out []any
		for _, part := range strings.Split(text, ",") {
			v, err := paramValue(m["items"], part)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return text, nil
}
