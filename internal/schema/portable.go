package schema

import (
	"maps"

	"github.com/google/jsonschema-go/jsonschema"
)

// Portable returns s with every type array in it written as anyOf, one
// branch of a single type each: {"type":["object","null"]} becomes
// {"anyOf":[{"type":"object"},{"type":"null"}]}. The two say the same in
// JSON Schema, but a client that maps tool schemas onto a dialect of one
// type per schema (the OpenAPI subset of Gemini's function declarations)
// rejects the tool or drops the constraint on a type array, and the MCP
// Inspector's strict check (--strict) warns of it. The keywords of one
// type (items and minItems for an array, minLength for a string, minimum
// for a number, properties for an object) move into that type's branch;
// description, default, enum and the others stay where they were.
//
// s itself is left alone, as schemas are shared between tools: what
// changes is copied. A schema with no type array is returned as it is.
// Object applies it to every property, so tools built with this package
// need not call it.
func Portable(s *jsonschema.Schema) *jsonschema.Schema {
	if !hasTypeArray(s) {
		return s
	}
	c := *s
	c.Items = Portable(c.Items)
	c.AdditionalProperties = Portable(c.AdditionalProperties)
	c.Not = Portable(c.Not)
	c.Properties = portableMap(c.Properties)
	c.PatternProperties = portableMap(c.PatternProperties)
	c.Defs = portableMap(c.Defs)
	c.PrefixItems = portableList(c.PrefixItems)
	c.AllOf = portableList(c.AllOf)
	c.AnyOf = portableList(c.AnyOf)
	c.OneOf = portableList(c.OneOf)
	switch {
	case len(c.Types) == 1:
		c.Type, c.Types = c.Types[0], nil
	case len(c.Types) > 1:
		if len(c.AnyOf) > 0 {
			panic("schema: a schema with both a type array and anyOf")
		}
		for _, t := range c.Types {
			c.AnyOf = append(c.AnyOf, branch(&c, t))
		}
		c.Types = nil
		clearTyped(&c)
	}
	return &c
}

// branch is the anyOf branch of union c for JSON type t: that type, and
// the keywords of c that apply to it.
func branch(c *jsonschema.Schema, t string) *jsonschema.Schema {
	b := &jsonschema.Schema{Type: t}
	switch t {
	case "array":
		b.Items, b.PrefixItems, b.MinItems, b.MaxItems, b.UniqueItems = c.Items, c.PrefixItems, c.MinItems, c.MaxItems, c.UniqueItems
		b.Contains, b.MinContains, b.MaxContains = c.Contains, c.MinContains, c.MaxContains
	case "string":
		b.MinLength, b.MaxLength, b.Pattern, b.Format = c.MinLength, c.MaxLength, c.Pattern, c.Format
	case "number", "integer":
		b.Minimum, b.Maximum, b.ExclusiveMinimum, b.ExclusiveMaximum, b.MultipleOf = c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum, c.MultipleOf
	case "object":
		b.Properties, b.PropertyOrder, b.Required, b.AdditionalProperties = c.Properties, c.PropertyOrder, c.Required, c.AdditionalProperties
		b.PatternProperties, b.PropertyNames, b.MinProperties, b.MaxProperties = c.PatternProperties, c.PropertyNames, c.MinProperties, c.MaxProperties
	}
	return b
}

// clearTyped removes from c the keywords branch moves into the branches.
func clearTyped(c *jsonschema.Schema) {
	c.Items, c.PrefixItems, c.MinItems, c.MaxItems, c.UniqueItems = nil, nil, nil, nil, false
	c.Contains, c.MinContains, c.MaxContains = nil, nil, nil
	c.MinLength, c.MaxLength, c.Pattern, c.Format = nil, nil, "", ""
	c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum, c.MultipleOf = nil, nil, nil, nil, nil
	c.Properties, c.PropertyOrder, c.Required, c.AdditionalProperties = nil, nil, nil, nil
	c.PatternProperties, c.PropertyNames, c.MinProperties, c.MaxProperties = nil, nil, nil, nil
}

// hasTypeArray reports whether s or a schema in it has a type array.
func hasTypeArray(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if len(s.Types) > 0 || hasTypeArray(s.Items) || hasTypeArray(s.AdditionalProperties) || hasTypeArray(s.Not) {
		return true
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.PatternProperties, s.Defs} {
		for _, sub := range m {
			if hasTypeArray(sub) {
				return true
			}
		}
	}
	for _, l := range [][]*jsonschema.Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range l {
			if hasTypeArray(sub) {
				return true
			}
		}
	}
	return false
}

func portableMap(m map[string]*jsonschema.Schema) map[string]*jsonschema.Schema {
	if m == nil {
		return nil
	}
	m = maps.Clone(m)
	for k, sub := range m {
		m[k] = Portable(sub)
	}
	return m
}

func portableList(l []*jsonschema.Schema) []*jsonschema.Schema {
	if l == nil {
		return nil
	}
	out := make([]*jsonschema.Schema, len(l))
	for i, sub := range l {
		out[i] = Portable(sub)
	}
	return out
}
