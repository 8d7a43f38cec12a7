package tool

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// messageSlack is how much longer than the hard bound a message read from
// a worker or an upstream may be: room for the rest of a result's message
// (and for an Igor's tools_loaded answer when the hard bound is set low).
const messageSlack = 1 << 20

// MessageLimit is the longest message the front reads from a process that
// answers calls (an Igor, a gateway upstream): the hard bound and
// messageSlack, at most ceiling. A faulty process cannot make the front
// buffer more.
func (l ResultLimits) MessageLimit(ceiling int) int {
	if l.Hard > 0 && l.Hard < int64(ceiling-messageSlack) {
		return int(l.Hard) + messageSlack
	}
	return ceiling
}

// ResultLimits bound what one call returns, so that a result an agent
// cannot use costs neither a worker nor the agent's context: a result
// larger than Cut bytes is cut, with a note saying how much was cut and how
// to get the rest; one larger than Hard bytes is not built at all and the
// call answers RESULT_TOO_LARGE.
type ResultLimits struct {
	Cut  int64 // tools.maxResultBytes
	Hard int64 // tools.maxResultHardBytes
}

// Encode turns what a tool returned into the JSON its call answers, within
// the limits. A json.RawMessage is taken as already encoded. A string or a
// value whose JSON is longer than Cut becomes a string: its first Cut bytes
// and a note. Zero limits mean no bound. (A Go value is encoded whole
// before it is measured; the Igor's memory bound covers a tool that builds
// a value too large for that. Dynamic tools' strings are measured before
// they leave JavaScript: package jsrt.)
func (l ResultLimits) Encode(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case json.RawMessage:
		return l.bound(x)
	case Content:
		return l.content(x)
	case *Content:
		return l.content(*x)
	case string:
		if l.Hard > 0 && int64(len(x)) > l.Hard {
			return nil, l.tooLarge(int64(len(x)), "bytes")
		}
		if l.NeedsCut(int64(len(x))) {
			return json.Marshal(CutText(x, int(l.Cut)) + CutNote(l.Cut, int64(len(x)), "bytes"))
		}
		raw, err := json.Marshal(x)
		if err == nil && l.Hard > 0 && int64(len(raw)) > l.Hard { // escapes can make it 6 times as long
			return nil, l.tooLarge(int64(len(raw)), "bytes of JSON")
		}
		return raw, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, Errorf(CodeInternal, "the tool's result is not JSON: %v", err)
	}
	return l.bound(raw)
}

// content bounds a content result: each text part is cut as a string
// result would be; images are bounded by the hard limit only, for a
// screenshot cut in half is no image at all.
func (l ResultLimits) content(c Content) (json.RawMessage, error) {
	parts := make([]Part, len(c.Parts))
	for i, p := range c.Parts {
		if p.Type == "text" && l.NeedsCut(int64(len(p.Text))) {
			p.Text = CutText(p.Text, int(l.Cut)) + CutNote(l.Cut, int64(len(p.Text)), "bytes")
		}
		parts[i] = p
	}
	raw, err := json.Marshal(Content{Parts: parts})
	if err != nil {
		return nil, Errorf(CodeInternal, "the tool's content is not JSON: %v", err)
	}
	if l.Hard > 0 && int64(len(raw)) > l.Hard {
		return nil, l.tooLarge(int64(len(raw)), "bytes")
	}
	return raw, nil
}

// bound applies the limits to an encoded result.
func (l ResultLimits) bound(raw json.RawMessage) (json.RawMessage, error) {
	n := int64(len(raw))
	if l.Hard > 0 && n > l.Hard {
		return nil, l.tooLarge(n, "bytes")
	}
	if !l.NeedsCut(n) {
		return raw, nil
	}
	if raw[0] == '"' { // a string: cut its text, not its JSON
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return l.Encode(s)
		}
	}
	return json.Marshal(CutText(string(raw), int(l.Cut)) + CutNote(l.Cut, n, "bytes of JSON"))
}

// BoundError bounds the text of a failed call's error as Encode bounds a
// result: a message or stack trace longer than Cut bytes (a tool that
// threw a whole document, say) is cut to its first Cut bytes with a note.
// The error is returned as it is when nothing needs cutting.
func (l ResultLimits) BoundError(e *Error) *Error {
	if e == nil || l.Cut <= 0 || int64(len(e.Message)) <= l.Cut+errorRoom && int64(len(e.Stack)) <= l.Cut+errorRoom {
		return e
	}
	bounded := *e
	if n := int64(len(e.Message)); n > l.Cut+errorRoom {
		bounded.Message = CutText(e.Message, int(l.Cut)) + ErrorCutNote(l.Cut, n, "bytes")
	}
	if int64(len(e.Stack)) > l.Cut+errorRoom {
		bounded.Stack = CutText(e.Stack, int(l.Cut)) + "\n..."
	}
	return &bounded
}

// errorRoom is how far past Cut an error's text may go before it is cut:
// room for a stack trace after a message cut already (by package jsrt).
const errorRoom = 8 << 10

// ErrorCutNote is the note ending an error message cut to its first shown
// of total units.
func ErrorCutNote(shown, total int64, unit string) string {
	return fmt.Sprintf("\n\n[BarrHawk cut this error message: the first %d of %d %s are shown (tools.maxResultBytes).]", shown, total, unit)
}

// NeedsCut reports whether a result of n bytes (or characters) is over the
// cut, with the slack Encode allows.
func (l ResultLimits) NeedsCut(n int64) bool {
	return l.Cut > 0 && n > l.Cut+noteRoom
}

func (l ResultLimits) tooLarge(n int64, unit string) *Error {
	return Errorf(CodeResultTooLarge, "the result is %d %s, over the %d-byte bound (tools.maxResultHardBytes), so it was not sent. %s", n, unit, l.Hard, askForLess)
}

// TooLarge is the RESULT_TOO_LARGE error for an answer of n bytes that is
// not sent; what names it ("the result and the squad values it set").
func (l ResultLimits) TooLarge(what string, n int64) *Error {
	return Errorf(CodeResultTooLarge, "%s: %d bytes, over the %d-byte bound (tools.maxResultHardBytes), so it was not sent. %s", what, n, l.Hard, askForLess)
}

// noteRoom is how far past Cut a result may go before it is cut: room for
// the note of a result cut already (a dynamic tool's string is cut inside
// its runtime, then measured again here) and its JSON quoting.
const noteRoom = 1024

// askForLess says how to get a large result in parts.
const askForLess = "Ask for less: narrow the call (a filter, a limit or an offset argument where the tool has one), or have the tool write the whole to a file (savePath where it has one) and read that in parts."

// CutNote is the note ending a result cut to its first shown of total
// units.
func CutNote(shown, total int64, unit string) string {
	return fmt.Sprintf("\n\n[BarrHawk cut this result: the first %d of %d %s are shown (tools.maxResultBytes). %s]", shown, total, unit, askForLess)
}

// Shorten returns s cut to at most n bytes on a character boundary, ending
// in "…" when it was cut: for a name or a message shown in a list.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return CutText(s, n) + "…"
}

// CutText returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func CutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
