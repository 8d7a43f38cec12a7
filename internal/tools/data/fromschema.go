package data

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	neturl "net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

const (
	// softDepth is the nesting level beyond which optional properties are
	// left out and arrays get their minimum number of items, so recursive
	// schemas end.
	softDepth = 6
	// hardDepth stops generation outright (a $ref cycle that requires
	// itself).
	hardDepth = 40
	// attempts is how many instances are generated, at most, to find one that
	// validates.
	attempts = 25
	// maxOutput bounds the JSON size of all the values of one call.
	maxOutput = 16 << 20
	// maxElems bounds the items of one array and the properties of one
	// object, and maxString the length of one string.
	maxElems  = 10000
	maxString = 100000
	// stringAttempts is how many strings are tried, at most, to satisfy a
	// pattern or format together with the length limits.
	stringAttempts = 40
)

func dataFromSchema() tool.Tool {
	type args struct {
		Schema json.RawMessage `json:"schema"`
		Count  int             `json:"count"`
		Seed   *int64          `json:"seed"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "data_from_schema",
			Description: "Generate instances of a JSON Schema (draft 2020-12 or draft-07), each checked against the schema " +
				"before it is returned. Supported: type (including lists of types), properties and required (required " +
				"and optional properties are all filled in), additionalProperties, patternProperties, min/maxProperties, " +
				"enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength, " +
				"pattern (strings are generated from the regular expression), format (email, uuid, date-time, date, time, " +
				"uri, hostname, ipv4, ipv6 and a few more), items, prefixItems, minItems, maxItems, uniqueItems, contains, " +
				"allOf, anyOf, oneOf and local $ref (#/$defs/..., #/definitions/..., anchors). Property names such as " +
				"email, firstName, city or phone get realistic values. Returns {count, seed, valid, values, warnings}: " +
				"valid is false when some value could not be made to validate (each such case is explained in warnings).",
			Phrases:  []string{"fake data matching schema", "sample payloads from schema", "sample objects from json schema", "test data from openapi schema", "example instance", "fixtures from schema", "request bodies for an api", "produce examples for a schema"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Map("schema", "The JSON Schema to generate instances of, as a JSON object. Remote $refs are not supported").Required(),
				countProp(),
				seedProp(),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			if in.Count == 0 {
				in.Count = 1
			}
			if in.Count < 1 || in.Count > maxCount {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"count\": expected 1 to %d, got %d", maxCount, in.Count)
			}
			if in.Seed != nil && (*in.Seed < 0 || *in.Seed > maxSeed) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"seed\": expected 0 to %d, got %d", int64(maxSeed), *in.Seed)
			}
			resolved, err := schema.Compile(in.Schema)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"schema\": not a valid JSON Schema: %v", err)
			}
			root := resolved.Schema()
			r, seed := newRand(in.Seed)
			g := &schemaGen{r: r, root: root, regexps: map[string]*regexp.Regexp{}, warnings: []string{}}
			values := make([]any, in.Count)
			invalid, size := 0, 0
			for i := range values {
				if ctx.Err() != nil {
					return nil, tool.Errorf(tool.CodeCancelled, "cancelled after %d values", i)
				}
				var lastErr error
				var n int
				for range attempts {
					g.steps = 0
					values[i] = g.gen(root, "", "$", 0)
					if n, lastErr = validate(resolved, values[i]); lastErr == nil {
						break
					}
				}
				if size += n; size > maxOutput {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"count\": %d values of this schema exceed %d MiB of JSON; ask for fewer", in.Count, maxOutput>>20)
				}
				if lastErr != nil {
					if invalid == 0 {
						g.warn("values[%d] does not validate even after %d attempts: %v", i, attempts, firstLine(lastErr))
					}
					invalid++
				}
			}
			if invalid > 1 {
				g.warn("%d of %d values do not validate", invalid, in.Count)
			}
			return map[string]any{"count": in.Count, "seed": seed, "valid": invalid == 0, "values": values, "warnings": g.warnings}, nil
		}),
	}
}

// validate checks v as a client would see it: after a trip through JSON.
// It returns the size of v in JSON as well.
func validate(rs *jsonschema.Resolved, v any) (int, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	back, err := schema.Instance(b)
	if err != nil {
		return len(b), err
	}
	return len(b), rs.Validate(back)
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// schemaGen generates instances of one root schema.
type schemaGen struct {
	r        *rand.Rand
	root     *jsonschema.Schema
	regexps  map[string]*regexp.Regexp
	warnings []string
	// steps counts the subschemas visited for the current instance, to stop
	// schemas whose references multiply without end.
	steps int
}

// maxSteps bounds the subschemas visited for one instance.
const maxSteps = 100000

// maxWarning bounds the length of one warning, which may quote a value.
const maxWarning = 300

// warn records a warning once.
func (g *schemaGen) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if r := []rune(w); len(r) > maxWarning {
		w = string(r[:maxWarning]) + "…"
	}
	if !slices.Contains(g.warnings, w) {
		g.warnings = append(g.warnings, w)
	}
}

func (g *schemaGen) regexp(p string) *regexp.Regexp {
	re, ok := g.regexps[p]
	if !ok {
		re, _ = regexp.Compile(p) // Resolve compiled it already
		g.regexps[p] = re
	}
	return re
}

// isFalse reports whether s is the schema false, which nothing validates.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && reflect.DeepEqual(*s, jsonschema.Schema{Not: &jsonschema.Schema{}})
}

// gen returns a value for s; name is the property the value is for (used for
// realistic strings) and path its place in the instance (for warnings).
func (g *schemaGen) gen(s *jsonschema.Schema, name, path string, depth int) any {
	if g.steps++; depth > hardDepth || g.steps > maxSteps {
		g.warn("%s: the schema nests too deeply (recursive $ref?); generation stopped there", path)
		return nil
	}
	if s == nil {
		return g.plain(0, -1)
	}
	s = g.flatten(s, path, depth)
	if isFalse(s) {
		g.warn("%s: the schema there is false, so no value is valid", path)
		return nil
	}
	if s.Const != nil {
		return *s.Const
	}
	if len(s.Enum) > 0 {
		// Prefer the values of the allowed types.
		var fit []any
		for _, e := range s.Enum {
			if t := types(s); len(t) == 0 || slices.ContainsFunc(t, func(t string) bool { return isType(e, t) }) {
				fit = append(fit, e)
			}
		}
		if len(fit) == 0 {
			fit = s.Enum
		}
		return pick(g.r, fit)
	}
	switch typ := g.chooseType(s); typ {
	case "null":
		return nil
	case "boolean":
		return g.r.IntN(2) == 1
	case "integer", "number":
		return g.number(s, typ == "integer", path)
	case "array":
		return g.array(s, path, depth)
	case "object":
		return g.object(s, path, depth)
	default:
		return g.str(s, name, path)
	}
}

// isType reports whether the decoded JSON value v is of the JSON Schema type t.
func isType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && x == math.Trunc(x)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// flatten follows $ref and folds allOf into one schema, and picks one branch
// of anyOf and oneOf.
func (g *schemaGen) flatten(s *jsonschema.Schema, path string, depth int) *jsonschema.Schema {
	if g.steps++; depth > hardDepth || g.steps > maxSteps {
		return s
	}
	for i := 0; s.Ref != ""; i++ {
		target := g.lookup(s.Ref)
		rest := *s
		rest.Ref = ""
		if target == nil || i > hardDepth {
			g.warn("%s: cannot follow $ref %q; it was ignored", path, s.Ref)
			s = &rest
			break
		}
		s = merge(target, &rest)
	}
	if s.DynamicRef != "" {
		g.warn("%s: $dynamicRef is not supported; it was ignored", path)
	}
	if len(s.AllOf) > 0 {
		m := *s
		m.AllOf = nil
		out := &m
		for _, sub := range s.AllOf {
			out = merge(out, g.flatten(sub, path, depth+1))
		}
		s = out
	}
	if len(s.AnyOf) > 0 {
		m := *s
		m.AnyOf = nil
		s = merge(&m, g.flatten(pick(g.r, s.AnyOf), path, depth+1))
	}
	if len(s.OneOf) > 0 {
		m := *s
		m.OneOf = nil
		s = merge(&m, g.flatten(pick(g.r, s.OneOf), path, depth+1))
	}
	return s
}

// lookup resolves a local reference: "#", a JSON pointer "#/...", an anchor
// "#name", or any of these after the $id of the root or of a subschema.
func (g *schemaGen) lookup(ref string) *jsonschema.Schema {
	base, frag, _ := strings.Cut(ref, "#")
	doc := g.root
	if base != "" {
		doc = nil
		walk(g.root, func(s *jsonschema.Schema) bool {
			if s.ID != "" && (s.ID == base || sameURI(g.root.ID, s.ID, base)) {
				doc = s
				return false
			}
			return true
		})
		if doc == nil {
			return nil
		}
	}
	if frag == "" {
		return doc
	}
	if !strings.HasPrefix(frag, "/") {
		var found *jsonschema.Schema
		walk(doc, func(s *jsonschema.Schema) bool {
			if s.Anchor == frag || s.DynamicAnchor == frag {
				found = s
				return false
			}
			return true
		})
		return found
	}
	cur := doc
	segs := strings.Split(frag[1:], "/")
	for i := 0; i < len(segs) && cur != nil; i++ {
		next := func() string {
			i++
			if i >= len(segs) {
				return "\x00"
			}
			seg, err := neturl.PathUnescape(segs[i])
			if err != nil {
				seg = segs[i]
			}
			return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		}
		index := func(list []*jsonschema.Schema) *jsonschema.Schema {
			n, err := strconv.Atoi(next())
			if err != nil || n < 0 || n >= len(list) {
				return nil
			}
			return list[n]
		}
		switch segs[i] {
		case "$defs":
			cur = cur.Defs[next()]
		case "definitions":
			cur = cur.Definitions[next()]
		case "properties":
			cur = cur.Properties[next()]
		case "patternProperties":
			cur = cur.PatternProperties[next()]
		case "dependentSchemas":
			cur = cur.DependentSchemas[next()]
		case "items":
			if cur.Items != nil {
				cur = cur.Items
			} else {
				cur = index(cur.ItemsArray)
			}
		case "prefixItems":
			cur = index(cur.PrefixItems)
		case "allOf":
			cur = index(cur.AllOf)
		case "anyOf":
			cur = index(cur.AnyOf)
		case "oneOf":
			cur = index(cur.OneOf)
		case "additionalProperties":
			cur = cur.AdditionalProperties
		case "additionalItems":
			cur = cur.AdditionalItems
		case "not":
			cur = cur.Not
		case "if":
			cur = cur.If
		case "then":
			cur = cur.Then
		case "else":
			cur = cur.Else
		case "contains":
			cur = cur.Contains
		case "propertyNames":
			cur = cur.PropertyNames
		default:
			return nil
		}
	}
	return cur
}

// sameURI reports whether id and ref, both resolved against rootID, are
// the same URI.
func sameURI(rootID, id, ref string) bool {
	b, err := neturl.Parse(rootID)
	if err != nil {
		return false
	}
	x, err1 := neturl.Parse(id)
	y, err2 := neturl.Parse(ref)
	return err1 == nil && err2 == nil && b.ResolveReference(x).String() == b.ResolveReference(y).String()
}

// walk calls f on s and every subschema, depth first, until f returns false.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema) bool) bool {
	if s == nil {
		return true
	}
	if !f(s) {
		return false
	}
	var kids []*jsonschema.Schema
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas} {
		for _, k := range sortedKeys(m) {
			kids = append(kids, m[k])
		}
	}
	kids = append(kids, s.Items, s.AdditionalItems, s.AdditionalProperties, s.Not, s.If, s.Then, s.Else, s.Contains, s.PropertyNames)
	kids = append(kids, s.ItemsArray...)
	kids = append(kids, s.PrefixItems...)
	kids = append(kids, s.AllOf...)
	kids = append(kids, s.AnyOf...)
	kids = append(kids, s.OneOf...)
	for _, k := range kids {
		if !walk(k, f) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// merge returns a schema that asks for what both a and b ask for, as far as
// generation is concerned: the stricter bound wins, properties and required
// names are united, and conflicting subschemas are combined with allOf. The
// final validation catches whatever this misses.
func merge(a, b *jsonschema.Schema) *jsonschema.Schema {
	c := *a
	if ta, tb := types(a), types(b); len(tb) > 0 {
		t := tb
		if len(ta) > 0 {
			t = nil
			for _, x := range ta {
				for _, y := range tb {
					switch {
					case x == y:
						t = append(t, x)
					case x == "integer" && y == "number", x == "number" && y == "integer":
						t = append(t, "integer")
					}
				}
			}
			if len(t) == 0 {
				t = tb
			}
		}
		c.Type, c.Types = "", nil
		if len(t) == 1 {
			c.Type = t[0]
		} else {
			c.Types = t
		}
	}
	switch {
	case len(a.Enum) > 0 && len(b.Enum) > 0:
		c.Enum = nil
		for _, x := range a.Enum {
			if slices.ContainsFunc(b.Enum, func(y any) bool { return reflect.DeepEqual(x, y) }) {
				c.Enum = append(c.Enum, x)
			}
		}
		if len(c.Enum) == 0 {
			c.Enum = b.Enum
		}
	case len(b.Enum) > 0:
		c.Enum = b.Enum
	}
	if b.Const != nil {
		c.Const = b.Const
	}
	c.Minimum = maxPtr(a.Minimum, b.Minimum)
	c.ExclusiveMinimum = maxPtr(a.ExclusiveMinimum, b.ExclusiveMinimum)
	c.Maximum = minPtr(a.Maximum, b.Maximum)
	c.ExclusiveMaximum = minPtr(a.ExclusiveMaximum, b.ExclusiveMaximum)
	if b.MultipleOf != nil {
		c.MultipleOf = b.MultipleOf
	}
	c.MinLength = maxPtr(a.MinLength, b.MinLength)
	c.MaxLength = minPtr(a.MaxLength, b.MaxLength)
	c.MinItems = maxPtr(a.MinItems, b.MinItems)
	c.MaxItems = minPtr(a.MaxItems, b.MaxItems)
	c.MinProperties = maxPtr(a.MinProperties, b.MinProperties)
	c.MaxProperties = minPtr(a.MaxProperties, b.MaxProperties)
	if b.Pattern != "" {
		c.Pattern = b.Pattern
	}
	if b.Format != "" {
		c.Format = b.Format
	}
	c.UniqueItems = a.UniqueItems || b.UniqueItems
	c.Items = both(a.Items, b.Items)
	c.AdditionalProperties = both(a.AdditionalProperties, b.AdditionalProperties)
	c.AdditionalItems = both(a.AdditionalItems, b.AdditionalItems)
	c.Contains = both(a.Contains, b.Contains)
	if b.PrefixItems != nil {
		c.PrefixItems = b.PrefixItems
	}
	if b.ItemsArray != nil {
		c.ItemsArray = b.ItemsArray
	}
	if len(b.Properties) > 0 {
		c.Properties = map[string]*jsonschema.Schema{}
		for k, v := range a.Properties {
			c.Properties[k] = v
		}
		for k, v := range b.Properties {
			c.Properties[k] = both(c.Properties[k], v)
		}
	}
	if len(b.PatternProperties) > 0 {
		c.PatternProperties = map[string]*jsonschema.Schema{}
		for k, v := range a.PatternProperties {
			c.PatternProperties[k] = v
		}
		for k, v := range b.PatternProperties {
			c.PatternProperties[k] = both(c.PatternProperties[k], v)
		}
	}
	c.Required = slices.Clone(a.Required)
	for _, r := range b.Required {
		if !slices.Contains(c.Required, r) {
			c.Required = append(c.Required, r)
		}
	}
	if len(b.DependentRequired) > 0 {
		c.DependentRequired = map[string][]string{}
		for k, v := range a.DependentRequired {
			c.DependentRequired[k] = v
		}
		for k, v := range b.DependentRequired {
			c.DependentRequired[k] = append(slices.Clone(c.DependentRequired[k]), v...)
		}
	}
	c.Not = both(a.Not, b.Not)
	if a.Not != nil && b.Not != nil {
		c.Not = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{a.Not, b.Not}}
	}
	if b.AnyOf != nil {
		c.AnyOf = b.AnyOf
	}
	if b.OneOf != nil {
		c.OneOf = b.OneOf
	}
	if b.AllOf != nil {
		c.AllOf = append(slices.Clone(a.AllOf), b.AllOf...)
	}
	return &c
}

// both returns a schema that asks for what a and b ask for.
func both(a, b *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case isFalse(a) || isFalse(b):
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	return &jsonschema.Schema{AllOf: []*jsonschema.Schema{a, b}}
}

func types(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func maxPtr[T int | float64](a, b *T) *T {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

func minPtr[T int | float64](a, b *T) *T {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}

// chooseType picks one of the schema's types, or infers one from the
// keywords used when it names none.
func (g *schemaGen) chooseType(s *jsonschema.Schema) string {
	if t := types(s); len(t) > 0 {
		return pick(g.r, t)
	}
	switch {
	case s.Properties != nil || s.Required != nil || s.AdditionalProperties != nil || s.PatternProperties != nil ||
		s.MinProperties != nil || s.MaxProperties != nil:
		return "object"
	case s.Items != nil || s.ItemsArray != nil || s.PrefixItems != nil || s.MinItems != nil || s.MaxItems != nil ||
		s.Contains != nil || s.UniqueItems:
		return "array"
	case s.MinLength != nil || s.MaxLength != nil || s.Pattern != "" || s.Format != "":
		return "string"
	case s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil:
		return "number"
	}
	return "string"
}

// number returns an integer (as int64) or a number within the bounds.
func (g *schemaGen) number(s *jsonschema.Schema, integer bool, path string) any {
	lo, hi := math.Inf(-1), math.Inf(1)
	loEx, hiEx := false, false
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if s.ExclusiveMinimum != nil && *s.ExclusiveMinimum >= lo {
		lo, loEx = *s.ExclusiveMinimum, true
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	if s.ExclusiveMaximum != nil && *s.ExclusiveMaximum <= hi {
		hi, hiEx = *s.ExclusiveMaximum, true
	}
	inside := func(v float64) bool {
		return (v > lo || !loEx && v == lo) && (v < hi || !hiEx && v == hi)
	}
	// Open ends get a window of 1000 next to the other bound, or [0, 1000].
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		lo, hi = 0, defaultMax
	case math.IsInf(lo, -1):
		lo = hi - defaultMax
	case math.IsInf(hi, 1):
		hi = lo + defaultMax
	}
	if integer {
		a, b := math.Ceil(lo), math.Floor(hi)
		if loEx && a == lo {
			a++
		}
		if hiEx && b == hi {
			b--
		}
		lo, hi, loEx, hiEx = a, b, false, false
	}
	if lo > hi || lo == hi && (loEx || hiEx) {
		g.warn("%s: no %s lies within the bounds", path, map[bool]string{true: "integer", false: "number"}[integer])
		return lo
	}
	out := func(v float64) any {
		if integer && math.Abs(v) < 1<<62 {
			return int64(v)
		}
		return v
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		kLo, kHi := math.Ceil(lo / *m), math.Floor(hi / *m)
		dec := decimals(*m)
		for range stringAttempts {
			if kLo > kHi {
				break
			}
			k := kLo + math.Floor(g.r.Float64()*(kHi-kLo+1))
			v := roundTo(k*(*m), dec)
			if _, f := math.Modf(v / *m); f == 0 && inside(v) && (!integer || v == math.Trunc(v)) {
				return out(v)
			}
		}
		g.warn("%s: could not find a multiple of %v within the bounds", path, *m)
	}
	if integer {
		v := math.Floor(lerp(lo, hi+1, g.r.Float64()))
		return out(math.Max(lo, math.Min(hi, v)))
	}
	for range stringAttempts {
		v := lerp(lo, hi, g.r.Float64())
		if r := stats.Round(v, 2); inside(r) {
			return r
		}
		if inside(v) {
			return v
		}
	}
	return lerp(lo, hi, 0.5)
}

// lerp is the number u of the way from lo to hi, without overflowing when
// hi-lo is beyond the largest float64.
func lerp(lo, hi, u float64) float64 { return lo*(1-u) + hi*u }

// decimals is the number of decimal places of f.
func decimals(f float64) int {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// roundTo rounds v to dec decimals, or returns it as it is where rounding
// overflows.
func roundTo(v float64, dec int) float64 {
	if r := stats.Round(v, dec); !math.IsInf(r, 0) && !math.IsNaN(r) {
		return r
	}
	return v
}

// bounds reads a size range, such as minItems and maxItems, into lo and hi
// (-1 for no maximum). A minimum above most, the most units generated, is
// lowered to it, and a maximum below the minimum raised to it, each with a
// warning.
func (g *schemaGen) bounds(path, minName string, minV *int, maxName string, maxV *int, unit string, most int) (lo, hi int) {
	lo, hi = 0, -1
	if minV != nil {
		lo = *minV
	}
	if maxV != nil {
		hi = *maxV
	}
	if lo > most {
		g.warn("%s: %s %d is more than the %d %s generated at most", path, minName, lo, most, unit)
		lo = most
	}
	if hi >= 0 && lo > hi {
		g.warn("%s: %s is greater than %s", path, minName, maxName)
		hi = lo
	}
	return lo, hi
}

func (g *schemaGen) array(s *jsonschema.Schema, path string, depth int) []any {
	lo, hi := g.bounds(path, "minItems", s.MinItems, "maxItems", s.MaxItems, "items", maxElems)
	// Arrays are kept short: 1 to 3 items unless minItems asks for more.
	if hi < 0 || hi > max(lo, 1)+2 {
		hi = max(lo, 1) + 2
	}
	prefix := s.PrefixItems
	if prefix == nil {
		prefix = s.ItemsArray
	}
	rest := s.Items
	if rest == nil && s.ItemsArray != nil {
		rest = s.AdditionalItems
	}
	n := lo
	if depth < softDepth {
		n = between(g.r, max(lo, min(1, hi)), hi)
	}
	if isFalse(rest) && n > len(prefix) {
		n = max(lo, len(prefix))
	}
	items := make([]any, 0, n)
	seen := map[string]bool{}
	for i := range n {
		sub := rest
		if i < len(prefix) {
			sub = prefix[i]
		}
		if i == n-1 && s.Contains != nil && i >= len(prefix) {
			sub = both(sub, s.Contains)
		}
		var v any
		dup := true
		for range stringAttempts {
			v = g.gen(sub, "", fmt.Sprintf("%s[%d]", path, i), depth+1)
			if !s.UniqueItems {
				dup = false
				break
			}
			b, _ := json.Marshal(v)
			if !seen[string(b)] {
				seen[string(b)], dup = true, false
				break
			}
		}
		if dup {
			if i >= lo {
				break
			}
			g.warn("%s: not enough distinct values for uniqueItems", path)
		}
		items = append(items, v)
	}
	if s.Contains != nil && len(items) == 0 && (s.MaxItems == nil || *s.MaxItems > 0) {
		items = append(items, g.gen(both(rest, s.Contains), "", path+"[0]", depth+1))
	}
	return items
}

func (g *schemaGen) object(s *jsonschema.Schema, path string, depth int) map[string]any {
	out := map[string]any{}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	add := func(k string) {
		if _, ok := out[k]; !ok {
			out[k] = g.gen(g.propSchema(s, k), k, path+"."+k, depth+1)
		}
	}
	var optional []string
	for _, k := range sortedKeys(s.Properties) {
		switch {
		case required[k]:
			add(k)
		case isFalse(s.Properties[k]) || depth >= softDepth:
		default:
			add(k)
			optional = append(optional, k)
		}
	}
	for _, k := range s.Required {
		add(k)
	}
	for _, k := range sortedKeys(s.DependentRequired) {
		if _, ok := out[k]; ok {
			for _, d := range s.DependentRequired[k] {
				add(d)
			}
		}
	}
	if s.MinProperties != nil {
		patterns := sortedKeys(s.PatternProperties)
		want := *s.MinProperties
		if want > maxElems {
			g.warn("%s: minProperties %d is more than the %d properties generated at most", path, want, maxElems)
			want = maxElems
		}
		for i := 1; len(out) < want && i < 10*want+10; i++ {
			k := fmt.Sprintf("property%d", i)
			if len(patterns) > 0 {
				if p, err := fromPattern(g.r, patterns[i%len(patterns)], 3); err == nil {
					k = p
				}
			} else if isFalse(s.AdditionalProperties) {
				g.warn("%s: minProperties needs more properties than additionalProperties false allows", path)
				break
			}
			add(k)
		}
	}
	if s.MaxProperties != nil {
		for i := len(optional) - 1; i >= 0 && len(out) > *s.MaxProperties; i-- {
			delete(out, optional[i])
		}
	}
	return out
}

// propSchema is the schema a property k of an object of schema s must
// satisfy, as far as generation goes.
func (g *schemaGen) propSchema(s *jsonschema.Schema, k string) *jsonschema.Schema {
	if p, ok := s.Properties[k]; ok {
		return p
	}
	for _, p := range sortedKeys(s.PatternProperties) {
		if re := g.regexp(p); re != nil && re.MatchString(k) {
			return s.PatternProperties[p]
		}
	}
	if isFalse(s.AdditionalProperties) {
		return nil
	}
	return s.AdditionalProperties
}

// formats generate strings of the JSON Schema formats.
var formats = map[string]func(r *rand.Rand) string{
	"email":         func(r *rand.Rand) string { return hinted["email"](r) },
	"idn-email":     func(r *rand.Rand) string { return hinted["email"](r) },
	"uuid":          uuid4,
	"date-time":     func(r *rand.Rand) string { return instant(r, 2000, 2030).Format(time.RFC3339) },
	"date":          func(r *rand.Rand) string { return instant(r, 2000, 2030).Format(time.DateOnly) },
	"time":          func(r *rand.Rand) string { return instant(r, 2000, 2000).Format("15:04:05") + "Z" },
	"uri":           url,
	"url":           url,
	"iri":           url,
	"uri-reference": url,
	"iri-reference": url,
	"uri-template":  func(r *rand.Rand) string { return "https://" + pick(r, urlDomains) + "/" + pick(r, lorem) + "/{id}" },
	"hostname":      hostname,
	"idn-hostname":  hostname,
	"ipv4":          ipv4,
	"ipv6":          ipv6,
	"duration":      func(r *rand.Rand) string { return fmt.Sprintf("P%dDT%dH%dM", r.IntN(30), r.IntN(24), r.IntN(60)) },
	"json-pointer":  func(r *rand.Rand) string { return "/" + pick(r, lorem) + "/" + strconv.Itoa(r.IntN(10)) },
	"regex":         func(r *rand.Rand) string { return "^[a-z]+$" },
	"password":      func(r *rand.Rand) string { return password(r, defaultPassword) },
}

func hostname(r *rand.Rand) string {
	return pick(r, []string{"www", "app", "api", "mail"}) + "." + pick(r, urlDomains)
}

// hinted generate realistic strings for well-known property names.
var hinted = map[string]func(r *rand.Rand) string{
	"email":     func(r *rand.Rand) string { o := en(); return email(r, pick(r, o.first), pick(r, o.last)) },
	"firstName": func(r *rand.Rand) string { return pick(r, en().first) },
	"lastName":  func(r *rand.Rand) string { return pick(r, en().last) },
	"name":      func(r *rand.Rand) string { return pick(r, en().first) + " " + pick(r, en().last) },
	"username":  func(r *rand.Rand) string { o := en(); return username(r, pick(r, o.first), pick(r, o.last)) },
	"company":   func(r *rand.Rand) string { return company(r, en()) },
	"phone":     func(r *rand.Rand) string { return en().phone(r) },
	"city":      func(r *rand.Rand) string { return pick(r, en().cities) },
	"country":   func(r *rand.Rand) string { return pick(r, countries) },
	"zipCode":   func(r *rand.Rand) string { return en().zip(r) },
	"street":    func(r *rand.Rand) string { o := en(); return o.street(r, pick(r, o.streets)) },
	"url":       url,
	"uuid":      uuid4,
	"ipv4":      ipv4,
	"color":     func(r *rand.Rand) string { return fmt.Sprintf("#%06x", r.IntN(1<<24)) },
	"password":  func(r *rand.Rand) string { return password(r, defaultPassword) },
	"sentence":  sentence,
	"date":      func(r *rand.Rand) string { return instant(r, 2000, 2030).Format(time.DateOnly) },
	"datetime":  func(r *rand.Rand) string { return instant(r, 2000, 2030).Format(time.RFC3339) },
}

func en() *locale { return locales[defaultLocale] }

// hintFor maps a property name to a realistic generator, or "".
func hintFor(name string) string {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(name))
	switch n {
	case "":
		return ""
	case "name", "fullname", "displayname", "author", "owner":
		return "name"
	case "firstname", "givenname", "forename":
		return "firstName"
	case "lastname", "surname", "familyname":
		return "lastName"
	case "username", "login", "handle", "nickname", "screenname":
		return "username"
	case "company", "companyname", "organization", "organisation", "employer":
		return "company"
	case "city", "town":
		return "city"
	case "country", "countryname":
		return "country"
	case "zip", "zipcode", "postcode", "postalcode":
		return "zipCode"
	case "street", "streetaddress", "address", "address1", "addressline1":
		return "street"
	case "id", "uuid", "guid":
		return "uuid"
	case "ip", "ipaddress", "ipv4":
		return "ipv4"
	case "color", "colour":
		return "color"
	case "password", "passwd", "secret":
		return "password"
	case "description", "bio", "comment", "message", "summary", "text", "body", "note", "notes":
		return "sentence"
	case "date", "birthdate", "dob", "dateofbirth":
		return "date"
	case "createdat", "updatedat", "deletedat", "timestamp", "datetime", "modifiedat":
		return "datetime"
	}
	switch {
	case strings.Contains(n, "email"):
		return "email"
	case strings.Contains(n, "phone") || strings.Contains(n, "mobile") || n == "tel" || n == "telephone":
		return "phone"
	case strings.Contains(n, "url") || strings.Contains(n, "website") || strings.Contains(n, "homepage") || strings.HasSuffix(n, "link"):
		return "url"
	case strings.HasSuffix(n, "uuid") || strings.HasSuffix(n, "guid") || strings.HasSuffix(n, "id") && len(n) > 2:
		return "uuid"
	}
	return ""
}

// str returns a string within the length limits that matches the pattern and
// format, when the schema has them.
func (g *schemaGen) str(s *jsonschema.Schema, name, path string) string {
	lo, hi := g.bounds(path, "minLength", s.MinLength, "maxLength", s.MaxLength, "characters", maxString)
	var re *regexp.Regexp
	if s.Pattern != "" {
		re = g.regexp(s.Pattern)
	}
	fits := func(v string) bool {
		n := utf8.RuneCountInString(v)
		return n >= lo && (hi < 0 || n <= hi) && (re == nil || re.MatchString(v))
	}
	if re != nil {
		start, end := anchored(s.Pattern)
		for i := range stringAttempts {
			v, err := fromPattern(g.r, s.Pattern, 3<<(i/8))
			if err != nil {
				g.warn("%s: cannot generate strings from pattern %q (%v); plain strings were used", path, s.Pattern, err)
				break
			}
			if fits(v) {
				return v
			}
			// The pattern is not anchored: padding keeps it matching.
			if n := utf8.RuneCountInString(v); n < lo && (!start || !end) {
				pad := g.letters(lo - n)
				if !end && fits(v+pad) {
					return v + pad
				}
				if !start && fits(pad+v) {
					return pad + v
				}
			}
		}
		g.warn("%s: no string matching pattern %q within the length limits was found", path, s.Pattern)
		return g.plain(lo, hi)
	}
	if s.Format != "" {
		if f, ok := formats[s.Format]; ok {
			for range stringAttempts {
				if v := f(g.r); fits(v) {
					return v
				}
			}
			g.warn("%s: no %s string fits the length limits; plain strings were used", path, s.Format)
		} else {
			g.warn("%s: format %q is not supported; plain strings were used", path, s.Format)
		}
	}
	if h := hintFor(name); h != "" {
		for range 5 {
			if v := hinted[h](g.r); fits(v) {
				return v
			}
		}
	}
	return g.plain(lo, hi)
}

// plain returns words of lorem ipsum cut to a length in [lo, hi]; hi < 0
// means no maximum. Strings are kept short: at most 10 characters beyond
// max(lo, 10).
func (g *schemaGen) plain(lo, hi int) string {
	if hi < 0 || hi > max(lo, 10)+10 {
		hi = max(lo, 10) + 10
	}
	n := between(g.r, max(lo, min(3, hi)), hi)
	var b []rune
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, []rune(pick(g.r, lorem))...)
	}
	b = b[:n]
	if n > 0 && b[n-1] == ' ' {
		b[n-1] = 'a'
	}
	return string(b)
}

func (g *schemaGen) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(g.r.IntN(26))
	}
	return string(b)
}
