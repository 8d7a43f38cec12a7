package jsondiff

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
)

// Kind is what happened at a path, reading from expected to actual.
type Kind string

// The kinds of difference.
const (
	// Added: the path exists in actual only.
	Added Kind = "added"
	// Removed: the path exists in expected only.
	Removed Kind = "removed"
	// Changed: the path exists in both with different values.
	Changed Kind = "changed"
)

// Difference is one path where expected and actual differ.
type Difference struct {
	// Path is a JSONPath-like location: $ for the root, $.user.name for a
	// key, $.items[2] for an index, $["a b"] for a key that is not an
	// identifier.
	Path string
	// Type is added, removed or changed.
	Type Kind
	// Expected is the value in expected; unset for Added.
	Expected any
	// Actual is the value in actual; unset for Removed.
	Actual any
}

// MarshalJSON writes {path, type, expected, actual}, leaving out expected
// for an added path and actual for a removed one (a null that is there is
// written as null).
func (d Difference) MarshalJSON() ([]byte, error) {
	switch d.Type {
	case Added:
		return json.Marshal(struct {
			Path   string `json:"path"`
			Type   Kind   `json:"type"`
			Actual any    `json:"actual"`
		}{d.Path, d.Type, d.Actual})
	case Removed:
		return json.Marshal(struct {
			Path     string `json:"path"`
			Type     Kind   `json:"type"`
			Expected any    `json:"expected"`
		}{d.Path, d.Type, d.Expected})
	}
	return json.Marshal(struct {
		Path     string `json:"path"`
		Type     Kind   `json:"type"`
		Expected any    `json:"expected"`
		Actual   any    `json:"actual"`
	}{d.Path, d.Type, d.Expected, d.Actual})
}

// messageWidth is how much of a value a message shows.
const messageWidth = 80

// String says what differs, such as `$.user.name: expected "bob", got
// "alice"`; when the JSON types differ the values are prefixed with their
// types, as in `$.id: expected number 1, got string "1"`.
func (d Difference) String() string {
	switch d.Type {
	case Added:
		return fmt.Sprintf("%s: unexpected, got %s", d.Path, Format(d.Actual, messageWidth))
	case Removed:
		return fmt.Sprintf("%s: missing, expected %s", d.Path, Format(d.Expected, messageWidth))
	}
	e, a := Format(d.Expected, messageWidth), Format(d.Actual, messageWidth)
	if te, ta := TypeOf(d.Expected), TypeOf(d.Actual); te != ta {
		// null names itself; other values get their type.
		if te != TypeNull {
			e = te + " " + e
		}
		if ta != TypeNull {
			a = ta + " " + a
		}
	}
	return fmt.Sprintf("%s: expected %s, got %s", d.Path, e, a)
}

// Options tune a comparison.
type Options struct {
	// Loose lets scalars of different types be equal when they mean the
	// same: a number and a string holding that number as JSON ("1", "1.0",
	// "1e0" equal 1), and a boolean and the string "true" or "false".
	// Otherwise values must have the same JSON type.
	Loose bool
	// Shallow compares only the top level: each key of two objects (each
	// index of two arrays) is reported once as changed when its values
	// differ anywhere inside, instead of descending into them.
	Shallow bool
}

// Diff returns every path where actual differs from expected, objects
// key by key (keys in sorted order; key order never matters) and arrays
// index by index. Numbers compare exactly by value, so 1 equals 1.0. It
// returns nil when the values are equal.
func Diff(expected, actual any, opts Options) []Difference {
	var out []Difference
	w := walker{opts: opts, emit: func(d Difference) bool { out = append(out, d); return true }}
	w.walk("$", expected, actual, 0)
	return out
}

// Equal reports whether expected and actual are equal under opts; it stops
// at the first difference.
func Equal(expected, actual any, opts Options) bool {
	equal := true
	w := walker{opts: opts, emit: func(Difference) bool { equal = false; return false }}
	w.walk("$", expected, actual, 0)
	return equal
}

type walker struct {
	opts Options
	// emit records a difference and returns false to stop the walk.
	emit func(Difference) bool
}

// walk compares e and a at path and returns false when the walk must stop.
func (w *walker) walk(path string, e, a any, depth int) bool {
	if w.opts.Shallow && depth > 0 {
		// A top-level key or index: one difference for the whole value.
		if Equal(e, a, Options{Loose: w.opts.Loose}) {
			return true
		}
		return w.emit(Difference{Path: path, Type: Changed, Expected: e, Actual: a})
	}
	switch ex := e.(type) {
	case map[string]any:
		if ax, ok := a.(map[string]any); ok {
			return w.objects(path, ex, ax, depth)
		}
	case []any:
		if ax, ok := a.([]any); ok {
			return w.arrays(path, ex, ax, depth)
		}
	default:
		if scalarEqual(e, a, w.opts.Loose) {
			return true
		}
	}
	return w.emit(Difference{Path: path, Type: Changed, Expected: e, Actual: a})
}

func (w *walker) objects(path string, e, a map[string]any, depth int) bool {
	keys := make([]string, 0, len(e)+len(a))
	for k := range e {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := e[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + keyPath(k)
		ev, inE := e[k]
		av, inA := a[k]
		var more bool
		switch {
		case !inA:
			more = w.emit(Difference{Path: p, Type: Removed, Expected: ev})
		case !inE:
			more = w.emit(Difference{Path: p, Type: Added, Actual: av})
		default:
			more = w.walk(p, ev, av, depth+1)
		}
		if !more {
			return false
		}
	}
	return true
}

func (w *walker) arrays(path string, e, a []any, depth int) bool {
	for i := range max(len(e), len(a)) {
		p := path + "[" + strconv.Itoa(i) + "]"
		var more bool
		switch {
		case i >= len(a):
			more = w.emit(Difference{Path: p, Type: Removed, Expected: e[i]})
		case i >= len(e):
			more = w.emit(Difference{Path: p, Type: Added, Actual: a[i]})
		default:
			more = w.walk(p, e[i], a[i], depth+1)
		}
		if !more {
			return false
		}
	}
	return true
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// keyPath is the path step of an object key: .name, or ["a b"] for a key
// that is not an identifier.
func keyPath(k string) string {
	if identifier.MatchString(k) {
		return "." + k
	}
	js, _ := json.Marshal(k)
	return "[" + string(js) + "]"
}

// scalarEqual compares two values of which at least one is not a container.
func scalarEqual(e, a any, loose bool) bool {
	if de, ok := NumberOf(e); ok {
		if da, ok := NumberOf(a); ok {
			return de.Cmp(da) == 0
		}
	}
	switch ex := e.(type) {
	case nil:
		return a == nil
	case bool:
		if ax, ok := a.(bool); ok {
			return ex == ax
		}
	case string:
		if ax, ok := a.(string); ok {
			return ex == ax
		}
	}
	if !loose {
		return false
	}
	if s, ok := a.(string); ok {
		return looseScalar(e, s)
	}
	if s, ok := e.(string); ok {
		return looseScalar(a, s)
	}
	return false
}

// looseScalar reports whether the string s means the number or boolean v.
func looseScalar(v any, s string) bool {
	if b, ok := v.(bool); ok {
		return s == strconv.FormatBool(b)
	}
	if d, ok := NumberOf(v); ok {
		ds, ok := ParseDecimal(s)
		return ok && d.Cmp(ds) == 0
	}
	return false
}
