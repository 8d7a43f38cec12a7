package browser

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Locator is the locator Playwright's generator would write for one
// element (js/locator.js): role and accessible name, then label,
// placeholder, alt text, title, test id, text, then the role alone and
// CSS; narrowed by an ancestor or nth when the first kinds match other
// elements too.
type Locator struct {
	// Kind is how it finds the element: role, label, placeholder, alt,
	// title, testid, text or css, with " in ancestor" or " nth" when it
	// was narrowed; none when no locator was found.
	Kind string `json:"kind"`
	// Code is the locator as Playwright code, without the page:
	// getByRole('button', { name: 'Save' }).
	Code string `json:"code"`
	// Selector is the same locator in Playwright's selector language,
	// which BarrHawk's selectors take too: internal:role=button[name="Save"i].
	Selector string `json:"selector"`
	// Count is how many elements Selector matches; Unique says it is one.
	Count  int  `json:"count"`
	Unique bool `json:"unique"`
}

// GenerateLocator waits for sel's element (attached: a hidden element
// has a locator too) and generates its locator. It also returns how many
// elements sel itself matched (the locator is for the one an action
// takes).
func (p *Page) GenerateLocator(ctx context.Context, sel string, o FindOptions) (*Locator, int, error) {
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, 0, err
	}
	var out struct {
		Locator
		Matched int `json:"matched"`
	}
	if err := p.helper(ctx, fmt.Sprintf("locate(%s)", jsString(pr.Matched)), &out); err != nil {
		return nil, 0, InvalidSelector(o.Arg, sel, err)
	}
	if out.Matched == 0 {
		return nil, 0, tool.Errorf(tool.CodeElementNotFound, "selector %q matched no element any more (the page changed it meanwhile); try again, or take a new browser_snapshot", sel)
	}
	return &out.Locator, out.Matched, nil
}

// Step is one thing done in a session that a test of it repeats: a
// navigation, an action or an assertion, as its line of Playwright code.
type Step struct {
	// Tool is the tool that did it.
	Tool string `json:"tool"`
	// Code is its Playwright line(s), as await page.goto('...');, written
	// for the variable page.
	Code string `json:"code"`
	// Page is the variable of the tab it was done in (page, page1,
	// popup1, ...): the exported test writes Code for it.
	Page string `json:"page"`
	// Before puts the step before the last action done in its tab before
	// it (a dialog's answer, given after the action that opened it).
	Before bool `json:"before,omitempty"`
}

// maxSteps bounds the steps kept per session (the oldest go first).
const maxSteps = 10_000

// steps is a session's record of steps.
type steps struct {
	mu   sync.Mutex
	list []Step
}

// Record appends a step to the record of the session the tab belongs to.
func (p *Page) Record(st Step) {
	p.mu.Lock()
	s := p.session
	p.mu.Unlock()
	if s == nil {
		return
	}
	st.Page = p.varName
	s.steps.mu.Lock()
	defer s.steps.mu.Unlock()
	if len(s.steps.list) >= maxSteps {
		s.steps.list = s.steps.list[1:]
	}
	s.steps.list = append(s.steps.list, st)
}

// Steps returns the steps recorded in session name (the active one when
// empty) and the session's name.
func (b *Browser) Steps(name string) ([]Step, string, error) {
	b.mu.Lock()
	if name == "" {
		name = b.active
	}
	s := b.sessions[name]
	b.mu.Unlock()
	if s == nil {
		b.mu.Lock()
		names := b.sessionNames()
		b.mu.Unlock()
		return nil, name, tool.Errorf(tool.CodeNotFound, "no browser session %q; sessions: %v", name, names)
	}
	s.steps.mu.Lock()
	defer s.steps.mu.Unlock()
	return append([]Step(nil), s.steps.list...), name, nil
}

// LocatorIfNeeded is the generated locator of sel's element when sel
// means nothing in a test file (a snapshot ref) or matches several
// elements, else nil: one look, no waiting.
func (p *Page) LocatorIfNeeded(ctx context.Context, sel string) (*Locator, error) {
	var loc *Locator
	if err := p.helper(ctx, fmt.Sprintf("ambiguous(%s)", jsString(sel)), &loc); err != nil {
		return nil, InvalidSelector("", sel, err)
	}
	return loc, nil
}

// TestIDAttribute is the attribute getByTestId reads (SetTestIDAttribute;
// data-testid by default).
func TestIDAttribute() string {
	name, _ := testIDAttribute.Load().(string)
	return cmp.Or(name, "data-testid")
}
