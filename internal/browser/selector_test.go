package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Selectors as a user means them: an action before any page says to open
// one; text= finds the control showing the text (not the heading above
// it) and the result names it; typing into a label types into its field; a
// snapshot ref from no snapshot, or of a removed element, says so at once;
// a selector that cannot be read says what is wrong, without a JavaScript
// stack.
func TestSelectorsAsMeant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Launch(ctx, Options{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv := server(t)
	p, err := b.Active()
	if err != nil {
		t.Fatal(err)
	}
	short := FindOptions{Timeout: 300 * time.Millisecond}
	// Before any page: the tab is blank, and the error says to open one.
	_, err = p.Click(ctx, "#email", ClickOptions{FindOptions: short})
	if code(err) != tool.CodeElementNotFound || !strings.Contains(err.Error(), "the tab is blank (about:blank)") || !strings.Contains(err.Error(), "browser_navigate first") {
		t.Errorf("click on a blank tab: %v", err)
	}
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}

	// A ref before any snapshot of this page.
	_, err = p.Click(ctx, "e3", ClickOptions{FindOptions: short})
	if code(err) != tool.CodeElementNotFound || !strings.Contains(err.Error(), "ref e3 is not a ref of "+srv.URL) || !strings.Contains(err.Error(), "take browser_snapshot") {
		t.Errorf("unknown ref: %v", err)
	}
	// A ref whose element the page removed.
	snap, err := p.Snapshot(ctx, "", false, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	ref := refOn(snap.Text, `button "Say hello"`)
	if _, err := p.Evaluate(ctx, "document.getElementById('hello').remove()", nil); err != nil {
		t.Fatal(err)
	}
	_, err = p.Click(ctx, ref, ClickOptions{FindOptions: short})
	if code(err) != tool.CodeElementNotFound || !strings.Contains(err.Error(), "no longer on") {
		t.Errorf("removed ref %s: %v", ref, err)
	}
	// Waiting for a removed ref to be detached still passes.
	if _, err := p.Find(ctx, ref, FindOptions{State: "detached", Timeout: time.Second}); err != nil {
		t.Errorf("detached ref: %v", err)
	}

	// A wait longer than the call ends before the call does, saying what
	// it found.
	cctx, ccancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	_, err = p.Click(cctx, "#nope", ClickOptions{FindOptions: FindOptions{Timeout: time.Minute}})
	ccancel()
	if code(err) != tool.CodeElementNotFound || !strings.Contains(err.Error(), "the wait was cut to end before the call's own timeout") {
		t.Errorf("a wait longer than its call: %v", err)
	}

	// Selectors that cannot be read.
	for sel, want := range map[string]string{
		`role=button[name="Sign in"`: "the [ is not closed",
		`role=[name=x]`:              "the role is missing",
		`xpath=//[`:                  "not a valid XPath expression",
		`form >> `:                   "part 2 is empty",
		`label=Email`:                `"label=" is not a selector engine: for a field by its label write internal:label="Email"`,
	} {
		_, err := p.Click(ctx, sel, ClickOptions{FindOptions: short})
		if code(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "<anonymous>") || strings.Contains(err.Error(), "\n") {
			t.Errorf("selector %s: want INVALID_ARGS saying %q on one line, got %v", sel, want, err)
		}
	}

	// text= of a label types into its field, for <label for> and a label
	// around its input alike.
	if pr, err := p.Type(ctx, "text=Email", "ann@example.com", true, false, short); err != nil || pr.Element != `input type=email "Email"` {
		t.Errorf("type into text=Email: %+v %v", pr, err)
	}
	if _, err := p.Type(ctx, "text=Password", "pw", true, false, short); err != nil {
		t.Errorf("type into text=Password: %v", err)
	}
	if v, err := p.Evaluate(ctx, "[email.value, pw.value].join(' ')", nil); err != nil || string(v) != `"ann@example.com pw"` {
		t.Errorf("the fields hold %s %v", v, err)
	}

	// Every tool that looks again at the first match finds the button.
	if v, err := p.Evaluate(ctx, "window.__bh.pick('text=Sign in').tagName", nil); err != nil || string(v) != `"BUTTON"` {
		t.Errorf("text=Sign in resolves first to %s %v", v, err)
	}
	// The heading "Sign in" comes first, the button "Sign in" second: the
	// click goes to the button, and says so.
	pr, err := p.Click(ctx, "text=Sign in", ClickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Element != `button "Sign in"` || pr.Count != 2 {
		t.Errorf("text=Sign in clicked %q of %d matches, want the button of 2", pr.Element, pr.Count)
	}
	for {
		u, err := p.URL(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(u, "/welcome") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the click on text=Sign in did not submit the form: still on %s", u)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// code is a tool error's code, or "" for another error.
func code(err error) string {
	var te *tool.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

// refOn is the ref of the snapshot line holding want.
func refOn(snap, want string) string {
	for _, line := range strings.Split(snap, "\n") {
		if strings.Contains(line, want) {
			return line[strings.Index(line, "[ref=")+5 : len(line)-1]
		}
	}
	return ""
}
