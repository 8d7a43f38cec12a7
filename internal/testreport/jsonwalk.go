package testreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonWalk reads a JSON report token by token, decoding only its small
// parts (a spec, an assertion) whole, so that a report of any size costs
// the memory of its largest such part. Its errors are ParseErrors at the
// byte offset of the fault, which Parse turns into a line.
type jsonWalk struct {
	p   *parser
	dec *json.Decoder
}

func newJSONWalk(p *parser, r io.Reader) *jsonWalk {
	return &jsonWalk{p: p, dec: json.NewDecoder(r)}
}

// fail is a ParseError at byte offset off.
func (w *jsonWalk) fail(off int64, format string, a ...any) error {
	return &ParseError{File: w.p.rep.Name, Format: w.p.rep.Format, Msg: fmt.Sprintf(format, a...), offset: max(off, 1)}
}

// wrap turns a decoder error into a ParseError; base is the offset the
// value being decoded started at (the decoder counts from there).
func (w *jsonWalk) wrap(err error, base int64, what string) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
		le *LimitError
	)
	switch {
	case errors.As(err, &le), isCtx(err):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return w.fail(w.dec.InputOffset(), "the JSON ends inside %s (a truncated file?)", what)
	case errors.As(err, &se):
		off := se.Offset
		if base >= 0 {
			off += base
		}
		return w.fail(off, "%s; expected %s", se.Error(), what)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "a value"
		}
		return w.fail(base+te.Offset, "%s is JSON %s, not the %s expected in %s", field, te.Value, te.Type, what)
	}
	return w.fail(w.dec.InputOffset(), "%v; expected %s", err, what)
}

// token reads the next token.
func (w *jsonWalk) token(what string) (json.Token, error) {
	t, err := w.dec.Token()
	if err != nil {
		return nil, w.wrap(err, -1, what)
	}
	return t, nil
}

// open reads the delimiter that opens an object or an array.
func (w *jsonWalk) open(d json.Delim, what string) error {
	off := w.dec.InputOffset()
	t, err := w.token(what)
	if err != nil {
		return err
	}
	if t != d {
		return w.fail(off+1, "found %s; expected %s (%s)", describeToken(t), what, string(d))
	}
	return nil
}

// close reads the delimiter that closes an object or an array.
func (w *jsonWalk) close(what string) error {
	_, err := w.token(what)
	return err
}

// key reads an object's next key.
func (w *jsonWalk) key(what string) (string, error) {
	t, err := w.token(what)
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", w.fail(w.dec.InputOffset(), "found %s; expected a key of %s", describeToken(t), what)
	}
	return k, nil
}

// decode decodes the next value whole.
func (w *jsonWalk) decode(v any, what string) error {
	base := w.dec.InputOffset()
	if err := w.dec.Decode(v); err != nil {
		return w.wrap(err, base, what)
	}
	return nil
}

// skip passes over the next value, token by token.
func (w *jsonWalk) skip(what string) error {
	depth := 0
	for {
		t, err := w.token(what)
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// array calls each for every element of an array, or of nothing when the
// value is null.
func (w *jsonWalk) array(what string, each func() error) error {
	off := w.dec.InputOffset()
	t, err := w.token(what)
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return w.fail(off+1, "found %s; expected %s, an array", describeToken(t), what)
	}
	for w.dec.More() {
		if err := each(); err != nil {
			return err
		}
	}
	return w.close(what)
}

// object calls each with every key of an object (each must read its
// value).
func (w *jsonWalk) object(what string, each func(key string) error) error {
	if err := w.open('{', what); err != nil {
		return err
	}
	for w.dec.More() {
		k, err := w.key(what)
		if err != nil {
			return err
		}
		if err := each(k); err != nil {
			return err
		}
	}
	return w.close(what)
}

// end checks that nothing but space follows the document.
func (w *jsonWalk) end(what string) error {
	off := w.dec.InputOffset()
	if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
		return w.fail(off+1, "more JSON after the end of %s; expected one document", what)
	}
	return nil
}

func describeToken(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return string(v)
	case string:
		return fmt.Sprintf("the string %q", cut(v, 40))
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}
