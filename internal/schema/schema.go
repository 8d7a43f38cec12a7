// Package schema builds the JSON Schemas of tool inputs and validates call
// arguments against them.
//
// Tool definitions describe their input with the small builder below; the
// result is a *jsonschema.Schema (github.com/google/jsonschema-go), the type
// the MCP SDK serialises into tools/list. Validate checks arguments against
// the subset of JSON Schema the builder produces (type, properties, required,
// enum, minimum/maximum, minLength/maxLength, items, minItems/maxItems,
// additionalProperties, anyOf) and names the offending field and the
// expected type. The schemas it builds are portable (Portable): no type
// arrays, which some clients' dialects reject, though Validate takes them.
package schema

import (
	"github.com/google/jsonschema-go/jsonschema"
)

// Prop is one named property of an object schema.
type Prop struct {
	Name     string
	Schema   *jsonschema.Schema
	required bool
}

// Object returns an object schema with the given properties, in order, and
// no others (additionalProperties: false): a misspelt argument is refused,
// naming the one meant, rather than ignored. Each property's schema is
// made portable on the way in (Portable: no type arrays).
func Object(props ...Prop) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range props {
		s.Properties[p.Name] = Portable(p.Schema)
		s.PropertyOrder = append(s.PropertyOrder, p.Name)
		if p.required {
			s.Required = append(s.Required, p.Name)
		}
	}
	return s
}

func prop(name, typ, desc string) Prop {
	return Prop{Name: name, Schema: &jsonschema.Schema{Type: typ, Description: desc}}
}

// String is a string property.
func String(name, desc string) Prop { return prop(name, "string", desc) }

// Number is a number property.
func Number(name, desc string) Prop { return prop(name, "number", desc) }

// Integer is an integer property.
func Integer(name, desc string) Prop { return prop(name, "integer", desc) }

// Boolean is a boolean property.
func Boolean(name, desc string) Prop { return prop(name, "boolean", desc) }

// Map is a free-form object property.
func Map(name, desc string) Prop { return prop(name, "object", desc) }

// Array is an array property; items may be nil for an array of anything.
func Array(name, desc string, items *jsonschema.Schema) Prop {
	p := prop(name, "array", desc)
	p.Schema.Items = items
	return p
}

// Any is a property that accepts any JSON value: a schema with no keyword
// at all, which is what "any JSON value" is in JSON Schema. Its description
// says so in those words ("any JSON value"), for the client and the model
// reading it: a schema that constrains nothing is otherwise taken for one
// left unfinished (TestToolSchemasArePortable holds every tool to that).
// With Types, it is a value of one of those types instead.
func Any(name, desc string) Prop {
	return Prop{Name: name, Schema: &jsonschema.Schema{Description: desc}}
}

// Of is a property with a schema built elsewhere (a nested object, say).
func Of(name, desc string, s *jsonschema.Schema) Prop {
	c := *s
	c.Description = desc
	return Prop{Name: name, Schema: &c}
}

// Required marks the property as required.
func (p Prop) Required() Prop { p.required = true; return p }

// Enum restricts the property to the given values.
func (p Prop) Enum(values ...any) Prop { p.Schema.Enum = values; return p }

// EnumStrings restricts the property to the given strings.
func (p Prop) EnumStrings(values ...string) Prop {
	p.Schema.Enum = make([]any, len(values))
	for i, v := range values {
		p.Schema.Enum[i] = v
	}
	return p
}

// Default records the value the tool uses when the property is absent.
func (p Prop) Default(v any) Prop { p.Schema.Default = mustJSON(v); return p }

// Min sets the minimum of a number, the minimum length of a string or the
// minimum item count of an array.
func (p Prop) Min(v float64) Prop {
	switch p.Schema.Type {
	case "string":
		n := int(v)
		p.Schema.MinLength = &n
	case "array":
		n := int(v)
		p.Schema.MinItems = &n
	default:
		p.Schema.Minimum = &v
	}
	return p
}

// Max sets the maximum of a number, the maximum length of a string or the
// maximum item count of an array.
func (p Prop) Max(v float64) Prop {
	switch p.Schema.Type {
	case "string":
		n := int(v)
		p.Schema.MaxLength = &n
	case "array":
		n := int(v)
		p.Schema.MaxItems = &n
	default:
		p.Schema.Maximum = &v
	}
	return p
}

// Types lets the property take any of several JSON types. The schema
// says so with anyOf, one branch of a single type each, once Object takes
// the property in (Portable). Keywords of one type, such as items, may be
// set on the property's schema before or after Types; Min and Max, which
// pick theirs by the property's type, before.
func (p Prop) Types(types ...string) Prop {
	p.Schema.Type = ""
	p.Schema.Types = types
	return p
}

// Item schemas for Array.

// StringItems is the item schema of an array of strings.
func StringItems() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }

// NumberItems is the item schema of an array of numbers.
func NumberItems() *jsonschema.Schema { return &jsonschema.Schema{Type: "number"} }

// ObjectItems is the item schema of an array of objects with the given
// properties and no others; with none given, of any objects (rows, records).
func ObjectItems(props ...Prop) *jsonschema.Schema {
	if len(props) == 0 {
		return &jsonschema.Schema{Type: "object"}
	}
	return Object(props...)
}
