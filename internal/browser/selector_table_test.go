package browser

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// formsPage holds one element for each thing a selector form tells
// apart: text in its own node and in a child's, hidden, invisible and
// transparent elements, ARIA states, labels, test ids and a shadow root.
const formsPage = `<!doctype html><html lang="en"><head><title>Selectors</title>
<style>.hidden{display:none} .invis{visibility:hidden} .ghost{opacity:0}</style></head><body>
<h1 id="h1">Sign in</h1>
<form id="login" aria-label="Login">
<label for="email" id="lemail">Email address</label><input id="email" type="email" data-testid="email-field">
<input id="agree" type="checkbox" checked aria-label="I agree"><label for="agree2" id="lagree2">Newsletter</label><input id="agree2" type="checkbox">
<button id="signin" type="submit">Sign in</button>
<button id="cancel" type="button" disabled>Cancel</button>
<input id="sub" type="submit" value="Send it">
</form>
<h2 id="h2">Products</h2>
<ul id="list">
<li id="li1" class="item"><span id="n1">Apple</span> <button id="buy1">Buy</button></li>
<li id="li2" class="item"><span id="n2">Banana split</span> <button id="buy2">Buy</button></li>
<li id="li3" class="item hidden"><span id="n3">Cherry</span> <button id="buy3">Buy</button></li>
<li id="li4" class="item"><span id="n4">  Walk
   the dog </span><button id="buy4" aria-pressed="true">Buy</button></li>
</ul>
<div id="toggle" role="button" aria-expanded="false" aria-label="Menu">=</div>
<div id="tabs" role="tablist"><div id="t1" role="tab" aria-selected="true">One</div><div id="t2" role="tab" aria-selected="false">Two</div></div>
<h3 id="h3">Details</h3>
<div role="heading" aria-level="4" id="h4r">Deep</div>
<p id="p1">Write your <b id="b1">story</b> here</p>
<span id="ghost" class="ghost">Ghost text</span>
<span id="invis" class="invis">Invisible text</span>
<div aria-hidden="true" id="ah"><button id="hiddenbtn">Hidden button</button></div>
<div id="host"></div>
<div data-test-id="dtid" id="dti">x</div><i data-pw="pw1" id="pwel">p</i><div data-test="dt" id="dt">y</div>
<a id="lnk" href="/next"><img id="img" src="data:," alt="Next page"></a>
<select id="sel"><option id="o1">Red</option><option id="o2" selected>Green</option></select>
<table id="tbl"><tr id="tr1"><td id="c1">Cell</td></tr></table>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button id="sbtn">Shadow button</button><span id="stext">Inside shadow</span>';</script>
</body></html>`

// TestSelectorForms pins each of Playwright's selector forms against one
// page in real Chromium: what it matches, in order (elements named by
// id), and every form that cannot be read answers INVALID_ARGS naming the
// argument, the form and what to write instead.
func TestSelectorForms(t *testing.T) {
	ctx, p := launched(t, 90*time.Second)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(formsPage))
	}))
	defer srv.Close()
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Count(ctx, "body"); err != nil { // installs the helper
		t.Fatal(err)
	}
	for _, c := range []struct{ sel, want string }{
		// CSS, native and with Playwright's pseudo-classes; it pierces
		// open shadow roots.
		{`#signin`, "signin"},
		{`css=#signin`, "signin"},
		{`button`, "signin cancel buy1 buy2 buy3 buy4 hiddenbtn sbtn"},
		{`#host button`, "sbtn"},
		{`#host > button`, "sbtn"},
		{`:is(h1, h2)`, "h1 h2"},
		{`li:not(.hidden) > button`, "buy1 buy2 buy4"},
		{`li:has(button[aria-pressed])`, "li4"},
		{`li:has(> span:text("cherry"))`, "li3"},
		{`li:has-text("banana")`, "li2"},
		{`li:has-text("Buy")`, "li1 li2 li3 li4"},
		{`li:has-text("Buy"):visible`, "li1 li2 li4"},
		{`:text("apple")`, "n1"},
		{`span:text("Shadow")`, "stext"},
		{`span:text("Shadow button")`, ""},
		{`:text("shadow button")`, "sbtn"},
		{`:text-is("Apple")`, "n1"},
		{`:text-is("apple")`, ""},
		{`span:text-is("Walk the dog")`, "n4"},
		{`:text-matches("ban+ana", "i")`, "n2"},
		{`:text-matches("^Ban")`, "n2"},
		{`span:visible`, "n1 n2 n4 ghost stext"},
		{`#invis:visible`, ""},
		{`:nth-match(li, 2)`, "li2"},
		{`:nth-match(.item:visible, 3)`, "li4"},
		// text=: a case-insensitive substring of the smallest element;
		// quoted, its own text exactly; /regex/flags on the whole text.
		{`text=sign in`, "h1 signin"},
		{`text="Sign in"`, "h1 signin"},
		{`text="sign in"`, ""},
		{`'Sign in'`, "h1 signin"},
		{`text=walk the dog`, "n4"},
		{`text=/walk|write/i`, "n4 p1"},
		{`text=/walk|write/`, ""},
		{`text=Send it`, "sub"},
		{`text=Shadow button`, "sbtn"},
		{`text=story`, "b1"},
		// >> chaining, nth=, visible=, capture.
		{`#list >> text=Buy`, "buy1 buy2 buy3 buy4"},
		{`li >> nth=1`, "li2"},
		{`li >> nth=-1`, "li4"},
		{`li >> nth=9`, ""},
		{`button >> nth=0`, "signin"},
		{`li >> visible=false`, "li3"},
		{`*css=li >> text=Banana`, "li2"},
		{`#host >> css=button`, "sbtn"},
		{`form >> role=button`, "signin cancel sub"},
		// role= with its attributes; hidden elements only when asked.
		{`role=button`, "signin cancel sub buy1 buy2 buy4 toggle sbtn"},
		{`role=button[name="buy"]`, "buy1 buy2 buy4"},
		{`role=button[name="Sign in"s]`, "signin"},
		{`role=button[name="sign in"s]`, ""},
		{`role=button[name='SIGN IN']`, "signin"},
		{`role=button[name=/^buy$/i]`, "buy1 buy2 buy4"},
		{`role=button[include-hidden][name="Buy"]`, "buy1 buy2 buy3 buy4"},
		{`role=button[include-hidden][name="Hidden"]`, "hiddenbtn"},
		{`role=button[disabled]`, "cancel"},
		{`role=button[disabled=false][name="Sign"]`, "signin"},
		{`role=checkbox[checked]`, "agree"},
		{`role=checkbox[checked=false]`, "agree2"},
		{`role=checkbox[name="Newsletter"]`, "agree2"},
		{`role=button[expanded=false]`, "toggle"},
		{`role=heading[level=2]`, "h2"},
		{`role=heading[level=4]`, "h4r"},
		{`role=heading`, "h1 h2 h3 h4r"},
		{`role=button[pressed]`, "buy4"},
		{`role=tab[selected]`, "t1"},
		{`role=tab[selected=false]`, "t2"},
		{`role=textbox[name="Email address"]`, "email"},
		{`role=link[name="Next page"]`, "lnk"},
		{`role=option[selected]`, "o2"},
		{`role=cell`, "c1"},
		{`role=form[name="Login"]`, "login"},
		// Attribute engines, XPath, Playwright's internal: locators.
		{`id=signin`, "signin"},
		{`data-testid=email-field`, "email"},
		{`data-test-id=dtid`, "dti"},
		{`data-test=dt`, "dt"},
		{`xpath=//li[2]`, "li2"},
		{`//button[@id="buy1"]`, "buy1"},
		{`#list >> xpath=//span`, "n1 n2 n3 n4"},
		{`internal:role=button[name="Sign in"i]`, "signin"},
		{`internal:text="Sign in"s`, "h1 signin"},
		{`internal:text="sign"i`, "h1 signin"},
		{`internal:label="Email"i`, "email"},
		{`internal:label="Email"s`, ""},
		{`internal:testid=[data-testid="email-field"s]`, "email"},
		{`internal:attr=[aria-label="menu"i]`, "toggle"},
		{`li >> internal:has-text="cherry"i`, "li3"},
		{`li >> internal:has-not-text="buy"i`, ""},
		{`li >> internal:has="role=button[pressed]"`, "li4"},
		{`li >> internal:has-not="span:text('a')"`, "li3"},
		{`h1 >> internal:or="h2"`, "h1 h2"},
		{`button >> internal:and="#buy1"`, "buy1"},
	} {
		raw, err := p.Evaluate(ctx, `window.__bh.resolve(`+jsString(c.sel)+`).map((e) => e.id || e.tagName).join(' ')`, nil)
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		var got string
		json.Unmarshal(raw, &got)
		if got != c.want {
			t.Errorf("%s matched %q, want %q", c.sel, got, c.want)
		}
	}

	// A snapshot ref is a selector, alone or in a chain.
	snap, err := p.Snapshot(ctx, "", false, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	ref := refOn(snap.Text, `list`)
	if n, err := p.Count(ctx, ref+" >> role=button"); err != nil || n != 3 {
		t.Errorf("%s >> role=button: %d %v", ref, n, err)
	}

	// Text a CSS ::before gives counts in an accessible name, also when
	// its rule came after the page's first queries.
	if _, err := p.Evaluate(ctx, `(() => { const s = document.createElement('style'); s.textContent = '.ps::before { content: "Close" }'; document.head.append(s);
		const b = document.createElement('button'); b.id = 'ps'; b.className = 'ps'; document.body.append(b); })()`, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Count(ctx, `role=button[name="Close"s]`); err != nil || n != 1 {
		t.Errorf(`role=button[name="Close"s] of a button named by ::before: %d %v`, n, err)
	}

	// The configured test id attribute is an engine of its own, and what
	// a pasted getByTestId is answered with.
	SetTestIDAttribute("data-pw")
	defer SetTestIDAttribute("")
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Count(ctx, "data-pw=pw1"); err != nil || n != 1 {
		t.Errorf("data-pw=pw1 with data-pw configured: %d %v", n, err)
	}
	if _, err := p.Count(ctx, "getByTestId('pw1')"); code(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), "write data-pw=pw1") {
		t.Errorf("getByTestId with data-pw configured: %v", err)
	}

	// Forms that cannot be read, or that BarrHawk does not take.
	short := FindOptions{Timeout: 200 * time.Millisecond}
	for sel, want := range map[string]string{
		`li:has-text("x"`:                       `a ( is not closed`,
		`li:has-text("x)`:                       `quote is not closed`,
		`role=buton`:                            `"buton" is not an ARIA role (did you mean button?)`,
		`role=button[foo=1]`:                    `role selectors take no "foo" attribute`,
		`role=textbox[checked]`:                 `[checked] is for the roles checkbox`,
		`role=heading[level=x]`:                 `[level] takes a number from 1`,
		`role=button[name*="x"]`:                `compare with = only`,
		`role=button[name="x"q]`:                `only i (any case, the default) or s (exact)`,
		`li >> nth=x`:                           `nth= takes a whole number from 0`,
		`nth=0`:                                 `it cannot come first`,
		`div:contains("x")`:                     `:contains() is jQuery, not CSS: Playwright writes :has-text("x")`,
		`li:eq(1)`:                              `nth=N`,
		`li:left-of(button)`:                    `layout selector`,
		`text=/[/`:                              `not a valid regular expression`,
		`text=/x/q`:                             `are not regular expression flags`,
		`button >> `:                            `part 2 is empty`,
		`getByRole('button', { name: 'Save' })`: `JavaScript API (getByRole), not a selector: write role=button[name="Save"]`,
		`page.getByText('Buy')`:                 `write text=Buy`,
		`div::before`:                           `pseudo-elements`,
		`#1abc`:                                 `an id starting with a digit is written [id="1x"]`,
		`> button`:                              `cannot start with the combinator >`,
		`xpath=//[`:                             `not a valid XPath expression`,
		`placeholder=Email`:                     `write [placeholder="Email"]`,
		`:visible(1)`:                           `:visible takes no argument`,
		`:nth-match(li)`:                        `takes a selector and a position from 1`,
		`visible=yes`:                           `visible= takes true or false`,
		`button[type="submit"`:                  `the [ of an attribute is not closed`,
		`css=`:                                  `the CSS is empty`,
		`li, `:                                  `a selector of the list is empty`,
	} {
		_, err := p.Click(ctx, sel, ClickOptions{FindOptions: short})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if code(err) != tool.CodeInvalidArgs || !strings.Contains(msg, want) || !strings.Contains(msg, `argument "selector"`) || strings.Contains(msg, "<anonymous>") || strings.Contains(msg, "\n") {
			t.Errorf("selector %s: want INVALID_ARGS naming the argument and saying %q on one line, got %v", sel, want, err)
		}
	}
	// Other arguments are named as they are.
	if err := p.DragElements(ctx, "#signin", "role=", nil, nil, short); code(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), `argument "target"`) {
		t.Errorf("drag onto role=: %v", err)
	}
	if _, err := p.Snapshot(ctx, "li:has-text(", false, 1000); code(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), `argument "root"`) {
		t.Errorf("snapshot of a bad root: %v", err)
	}
}
