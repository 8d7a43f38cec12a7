package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// heldInput is what the keyboard and the mouse hold down in a tab between
// calls (browser_keydown, browser_mouse_down): the modifiers are sent with
// the key and mouse events of the input tools that follow, as a user
// holding Shift would. Guarded by the page's mu.
type heldInput struct {
	modifiers int64
	buttons   map[input.MouseButton]bool
}

// heldLocked returns the tab's heldInput, under p.mu.
func (p *Page) heldLocked() *heldInput {
	if p.held == nil {
		p.held = &heldInput{buttons: map[input.MouseButton]bool{}}
	}
	return p.held
}

// modifierBits are the protocol's modifier bits of the modifier keys.
var modifierBits = map[string]int64{"Alt": int64(kb.ModifierAlt), "Control": int64(kb.ModifierCtrl), "Meta": int64(kb.ModifierMeta), "Shift": int64(kb.ModifierShift)}

// buttonBits are the protocol's bits of the mouse buttons held (its
// buttons field).
var buttonBits = map[input.MouseButton]int64{input.MouseButtonLeft: 1, input.MouseButtonRight: 2, input.MouseButtonMiddle: 4, input.MouseButtonBack: 8, input.MouseButtonForward: 16}

// lookupKey finds a key by Playwright's name (Shift, Control, ArrowLeft,
// Enter, F5, a, A, 1, !) and the rune kb encodes it by.
func lookupKey(name string) (*kb.Key, rune, error) {
	switch strings.ToLower(name) {
	case "ctrl", "controlleft", "controlright":
		name = "Control"
	case "shiftleft", "shiftright":
		name = "Shift"
	case "altleft", "altright":
		name = "Alt"
	case "metaleft", "metaright", "cmd", "command":
		name = "Meta"
	}
	rs := []rune(name)
	if len(rs) == 1 {
		if k, ok := kb.Keys[rs[0]]; ok {
			return k, rs[0], nil
		}
		return &kb.Key{Key: name, Text: name, Unmodified: name, Print: true}, rs[0], nil
	}
	if s, ok := keyNames[strings.ToLower(name)]; ok {
		r := []rune(s)[0]
		if k, ok := kb.Keys[r]; ok {
			return k, r, nil
		}
	}
	return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "argument \"key\": unknown key %q; use Playwright's key names: Shift, Control, Alt, Meta, Enter, Tab, Escape, Backspace, ArrowLeft, PageDown, F5, or one character (a, A, 1)", name)
}

// shifted is the character Shift gives with r on a US keyboard (r itself
// when none).
func shifted(r rune) rune {
	const plain, shift = "`1234567890-=[]\\;',./", "~!@#$%^&*()_+{}|:\"<>?"
	if r >= 'a' && r <= 'z' {
		return unicode.ToUpper(r)
	}
	if i := strings.IndexRune(plain, r); i >= 0 {
		return []rune(shift)[i]
	}
	return r
}

// keyEvents are the events of pressing r (down, char when it types, up)
// with the modifiers held: with Shift held a letter types its capital, and
// with Control, Alt or Meta held nothing is typed (a shortcut).
func keyEvents(r rune, mods int64) []*input.DispatchKeyEventParams {
	if mods&int64(kb.ModifierShift) != 0 {
		r = shifted(r)
	}
	var out []*input.DispatchKeyEventParams
	for _, e := range kb.Encode(r) {
		e.Modifiers |= mods
		if e.Type == kb.KeyChar && mods&^int64(kb.ModifierShift) != 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// dispatchKeys is an action sending key events in order.
func dispatchKeys(events []*input.DispatchKeyEventParams) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, e := range events {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, *e); err != nil {
				return err
			}
		}
		return nil
	})
}

// KeyDown presses a key and holds it (Playwright's keyboard.down): a
// modifier (Shift, Control, Alt, Meta) then applies to the keys and mouse
// buttons the input tools press after, until KeyUp.
func (p *Page) KeyDown(ctx context.Context, key string) error {
	k, r, err := lookupKey(key)
	if err != nil {
		return err
	}
	p.mu.Lock()
	h := p.heldLocked()
	h.modifiers |= modifierBits[k.Key]
	mods := h.modifiers
	p.mu.Unlock()
	if mods&int64(kb.ModifierShift) != 0 && k.Print {
		if sk, ok := kb.Keys[shifted(r)]; ok {
			k = sk
		}
	}
	e := &input.DispatchKeyEventParams{Type: kb.KeyRawDown, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
	if k.Print && mods&^int64(kb.ModifierShift) == 0 {
		e.Type, e.Text, e.UnmodifiedText = kb.KeyDown, k.Text, k.Unmodified
	}
	return describe("key down "+key, p.input(ctx, dispatchKeys([]*input.DispatchKeyEventParams{e})))
}

// KeyUp releases a key pressed with KeyDown (a modifier stops applying).
func (p *Page) KeyUp(ctx context.Context, key string) error {
	k, _, err := lookupKey(key)
	if err != nil {
		return err
	}
	p.mu.Lock()
	h := p.heldLocked()
	h.modifiers &^= modifierBits[k.Key]
	mods := h.modifiers
	p.mu.Unlock()
	e := &input.DispatchKeyEventParams{Type: kb.KeyUp, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
	return describe("key up "+key, p.input(ctx, dispatchKeys([]*input.DispatchKeyEventParams{e})))
}

// HeldModifiers names the modifier keys held down now.
func (p *Page) HeldModifiers() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	mods := p.heldLocked().modifiers
	var out []string
	for _, n := range []string{"Alt", "Control", "Meta", "Shift"} {
		if mods&modifierBits[n] != 0 {
			out = append(out, n)
		}
	}
	return out
}

// PressSequentially types text key by key (each character a keydown,
// keypress, input and keyup, as Playwright's pressSequentially does), into
// the element of sel (focused first; a label stands for its field) or,
// with sel empty, into the focused element; delay waits between keys, and
// submit presses Enter after. A newline presses Enter.
func (p *Page) PressSequentially(ctx context.Context, sel, text string, submit bool, delay time.Duration, o FindOptions) (*Probe, error) {
	var pr *Probe
	if sel != "" {
		o.Actionable, o.Field = true, true
		var err error
		if pr, err = p.Find(ctx, sel, o); err != nil {
			return nil, err
		}
		focus := fmt.Sprintf(`(() => { let el = window.__bh.pick(%s); if (el.tagName === 'LABEL' && el.control) el = el.control; el.focus(); return true; })()`, jsString(pr.Matched))
		if _, err := p.evalRaw(ctx, focus); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	mods := p.heldLocked().modifiers
	p.mu.Unlock()
	runes := []rune(text)
	if submit {
		runes = append(runes, '\r')
	}
	if delay <= 0 {
		var events []*input.DispatchKeyEventParams
		for _, r := range runes {
			events = append(events, keyEvents(r, mods)...)
		}
		return pr, describe("type", p.input(ctx, dispatchKeys(events)))
	}
	for i, r := range runes {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
		}
		if err := p.run(ctx, dispatchKeys(keyEvents(r, mods))); err != nil {
			return nil, describe("type", err)
		}
	}
	p.afterInput(ctx)
	return pr, nil
}

// MouseDown presses a mouse button (left when "") where the mouse is
// (browser_mouse_move puts it) and holds it until MouseUp.
func (p *Page) MouseDown(ctx context.Context, button string) error {
	return p.mouseButton(ctx, button, input.DispatchMouseEventTypeMousePressed)
}

// MouseUp releases a mouse button (left when "") where the mouse is.
func (p *Page) MouseUp(ctx context.Context, button string) error {
	return p.mouseButton(ctx, button, input.DispatchMouseEventTypeMouseReleased)
}

func (p *Page) mouseButton(ctx context.Context, button string, typ input.DispatchMouseEventType) error {
	b := input.MouseButton(button)
	if button == "" {
		b = input.MouseButtonLeft
	}
	if _, ok := buttonBits[b]; !ok {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"button\": %q; use left, right, middle, back or forward", button)
	}
	p.mu.Lock()
	h := p.heldLocked()
	if typ == input.DispatchMouseEventTypeMousePressed {
		h.buttons[b] = true
	} else {
		delete(h.buttons, b)
	}
	var mask int64
	for hb := range h.buttons {
		mask |= buttonBits[hb]
	}
	x, y, mods := p.mouseX, p.mouseY, h.modifiers
	p.mu.Unlock()
	return describe("mouse "+string(typ), p.input(ctx, chromedp.MouseEvent(typ, x, y, func(e *input.DispatchMouseEventParams) {
		e.Button, e.Buttons, e.ClickCount, e.Modifiers = b, mask, 1, mods
	})))
}

// MousePosition is where the mouse is (browser_mouse_move put it).
func (p *Page) MousePosition() (x, y float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mouseX, p.mouseY
}

// CheckState is what SetChecked did.
type CheckState struct {
	*Probe
	// Kind is checkbox, radio, or the ARIA role of the element checked.
	Kind string `json:"kind"`
	// Changed says a click changed the state; false when it was already
	// as asked (nothing was done).
	Changed bool `json:"changed"`
}

// checkedJS reads the checked state of a checkbox or radio (a label stands
// for its field) or of an element with an ARIA role that is checked
// (aria-checked).
const checkedJS = `(sel) => { let el = window.__bh.pick(sel); if (!el) return {error: 'the element is gone'};
  if (el.tagName === 'LABEL' && el.control) el = el.control;
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return {checked: el.checked, kind: el.type};
  const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem'].includes(role)) {
    const a = el.getAttribute('aria-checked'); return {checked: a === 'true', kind: role, mixed: a === 'mixed'}; }
  return {error: 'it is a <' + el.tagName.toLowerCase() + (el.type ? ' type=' + el.type : '') + '>' + (role ? ' with role ' + role : '') + ', not a checkbox or radio button'}; }`

// checkState is what checkedJS reads.
type checkState struct {
	Checked bool   `json:"checked"`
	Mixed   bool   `json:"mixed"`
	Kind    string `json:"kind"`
	Error   string `json:"error"`
}

// readChecked reads the checked state of the element matched (a selector
// the probe made unique).
func (p *Page) readChecked(ctx context.Context, matched string) (checkState, error) {
	var st checkState
	raw, err := p.Evaluate(ctx, checkedJS, json.RawMessage(jsString(matched)))
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	return st, err
}

// Checked says whether the element of sel (a checkbox or radio button, its
// label, or an element with role checkbox, radio or switch) is checked;
// an element of another kind is an INVALID_ARGS error naming it.
func (p *Page) Checked(ctx context.Context, sel string, o FindOptions) (bool, error) {
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return false, err
	}
	st, err := p.readChecked(ctx, pr.Matched)
	if err != nil {
		return false, err
	}
	if st.Error != "" {
		return false, tool.Errorf(tool.CodeInvalidArgs, "selector %q matched %s, and %s: assert_checked takes a checkbox, a radio button, their label, or an element with role checkbox, radio or switch", sel, pr.Element, st.Error)
	}
	return st.Checked, nil
}

// valueJS reads the value of an input, textarea or select (a label stands
// for its field).
const valueJS = `(sel) => { let el = window.__bh.pick(sel); if (!el) return {error: 'the element is gone'};
  if (el.tagName === 'LABEL' && el.control) el = el.control;
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) return {value: el.value};
  return {error: 'it is a <' + el.tagName.toLowerCase() + '>, not an input, textarea or select'}; }`

// InputValue is the value of the input, textarea or select of sel (or of
// the field of a label), as Playwright's inputValue reads it; an element of
// another kind is an INVALID_ARGS error naming it.
func (p *Page) InputValue(ctx context.Context, sel string, o FindOptions) (string, error) {
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return "", err
	}
	var st struct {
		Value string `json:"value"`
		Error string `json:"error"`
	}
	raw, err := p.Evaluate(ctx, valueJS, json.RawMessage(jsString(pr.Matched)))
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	if err != nil {
		return "", err
	}
	if st.Error != "" {
		return "", tool.Errorf(tool.CodeInvalidArgs, "selector %q matched %s, and %s: assert_value reads an input, a textarea, a select or a label's field", sel, pr.Element, st.Error)
	}
	return st.Value, nil
}

// SetChecked checks (want true) or unchecks a checkbox or radio button,
// with Playwright's semantics: nothing is done when it is already so; else
// it is clicked (an element, or its label), and a click that does not
// change the state is an error.
func (p *Page) SetChecked(ctx context.Context, sel string, want bool, o FindOptions) (*CheckState, error) {
	o.Actionable = true
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, err
	}
	read := func() (checkState, error) { return p.readChecked(ctx, pr.Matched) }
	st, err := read()
	if err != nil {
		return nil, err
	}
	verb := map[bool]string{true: "check", false: "uncheck"}[want]
	if st.Error != "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "selector %q matched %s, and %s: browser_%s takes a checkbox, a radio button, their label, or an element with role checkbox, radio or switch", sel, pr.Element, st.Error, verb)
	}
	out := &CheckState{Probe: pr, Kind: st.Kind}
	if st.Checked == want && !st.Mixed {
		return out, nil
	}
	if err := p.ClickXY(ctx, pr.X, pr.Y, "left", 1); err != nil {
		return nil, err
	}
	after, err := read()
	if err != nil {
		return nil, err
	}
	if after.Error != "" || after.Checked != want {
		why := "the page's click handler may prevent it, or the click landed on another element"
		if st.Kind == "radio" && !want {
			why = "a radio button is unchecked only by checking another of its group"
		}
		return nil, tool.Errorf(tool.CodeToolError, "clicking %s (selector %q) did not %s it: it is still %s; %s", pr.Element, sel, verb, map[bool]string{true: "checked", false: "unchecked"}[after.Checked], why)
	}
	out.Changed = true
	return out, nil
}
