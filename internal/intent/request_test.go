package intent

import (
	"slices"
	"strings"
	"testing"
)

// A request is cut into steps where a new action begins, and not inside
// what it quotes, a URL, a path or a list of things.
func TestSplitIntoSteps(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"Open https://shop.example.com/a.b, add the first product to the cart and check the badge says 1": {
			"Open https://shop.example.com/a.b", "add the first product to the cart", "check the badge says 1"},
		"Type 'salt and pepper' into the search box, then press Enter":  {"Type 'salt and pepper' into the search box", "press Enter"},
		"Take screenshots at mobile, tablet and desktop widths":         {"Take screenshots at mobile tablet and desktop widths"},
		"Compare postgres and redis. Why did it fail? Group the errors": {"Compare postgres and redis", "Why did it fail", "Group the errors"},
		"Submit a job that runs go test ./... on github.com/acme/api":   {"Submit a job that runs go test on github.com/acme/api"},
		"Build the image from ./app and run it":                         {"Build the image from ./app", "run it"},
		"Back up the fixtures folder, after that restore it":            {"Back up the fixtures folder", "restore it"},
		"Log in as alice and as bob":                                    {"Log in as alice and as bob"},
		// Two checks in one sentence; a list's lines; a numbered list.
		"the title should contain 'Shop', the 'Buy' button must be visible": {"the title should contain 'Shop'", "the 'Buy' button must be visible"},
		"Run this:\n- open /cart\n- pick size M":                            {"Run this", "open /cart", "pick size M"},
		"Check: 1) the cart 2) the badge":                                   {"Check", "the cart", "the badge"},
		"Check the cart\nand the badge":                                     {"Check the cart and the badge"},
	} {
		var got []string
		for _, c := range split(lex(text)) {
			got = append(got, c.words)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}

// Tokens keep what a hint needs: URLs and hosts whole, files, paths,
// repositories, keys, quoted text as written, HTTP methods in capitals.
func TestLex(t *testing.T) {
	t.Parallel()
	toks := lex(`GET localhost:3000/login, "It's done" feature:beta acme/web ./app /settings report.pdf get the repo`)
	var kinds []kind
	for _, tk := range toks {
		kinds = append(kinds, tk.kind)
	}
	if want := []kind{word, link, punct, quoted, word, repoRef, file, urlPath, file, word, word, word}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v (%+v)", kinds, want, toks)
	}
	if !toks[0].method || toks[9].method || toks[3].text != "It's done" || toks[4].raw != "feature:beta" {
		t.Errorf("tokens: %+v", toks)
	}
}

// Bounds written as signs are read as words ("> 0" as "over 0",
// 0..50000 as "between 0 and 50000"), and "re" before a verb as the verb
// done again; an arrow stays punctuation.
func TestLexSignsAndAgain(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"results > 0":               "results over 0",
		"p95 >=200ms":               "p95 at least 200ms",
		"pass rate <95%":            "pass rate under 95",
		"score in 0..50000, please": "score in between 0 and 50000 please",
		"re-run the workflow":       "rerun the workflow",
		"re trigger the workflow":   "trigger the workflow",
		"re: the login bug":         "re the login bug",
		"width <= innerWidth":       "width innerwidth",
		"step 2 -> 3":               "step 2 3",
		"it came back 1.85":         "it came back 1.85",
		"delete slot-lock:44:* now": "delete slot-lock:44:* now",
	} {
		var got []string
		for _, tk := range lex(text) {
			if tk.kind == word || tk.kind == number {
				got = append(got, tk.text)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: words %q, want %q", text, strings.Join(got, " "), want)
		}
	}
}

// Values a request names are read whole, as what they are: an e-mail
// address, a pull request's number, a login's user and password, a
// setting, a table's column, a code typed at the cart.
func TestLexValues(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"log in as qa.lead@voltbay.test": "<email>",
		"approve #497":                   "<ref>",
		"admin qa.admin / Adm1n!qa":      "<creds>",
		"set DB_URL=postgres://x@y/z":    "db_url=postgres://x@y/z",
		"check orders.status='paid'":     "<column>",
		"apply SPRING10 at the cart":     "<promo>",
		"On /account (open), click Save": "is open",
	} {
		c := newClause(lex(text))
		if !c.has(want) {
			t.Errorf("%q: no %q in %v", text, want, c.set)
		}
	}
	// "mean / median": no password after the slash, no login.
	if c := newClause(lex("mean / median / stddev?")); c.has("<creds>") {
		t.Errorf("a list with slashes read as a login: %v", c.set)
	}
	// Who speaks is not a sub-agent.
	for _, text := range []string{"as the agent I plan this", "(agent planning) read the plan", "Agent", "Agent plan, step 1: read the plan", "I am an agent about to plan work"} {
		if c := newClause(lex(text)); c.has("agent") {
			t.Errorf("%q: read as a sub-agent", text)
		}
	}
	if c := newClause(lex("have an agent fix the test")); !c.has("agent") {
		t.Error("an agent to hand work to was not read as one")
	}
}

// owner/name is a folder's path where nothing speaks of GitHub, or where
// it starts with a folder projects have.
func TestPathsNotRepos(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]kind{
		"copy it to fixtures/uploads":          file,
		"list the open PRs in acme/shop":       repoRef,
		"zip acme/shop":                        file,
		"in the repo acme/api update tests/ci": file,
		"log in on the PR's preview as qa/qa":  quoted,
	} {
		toks := lex(text)
		if got := toks[len(toks)-1].kind; got != want {
			t.Errorf("%q: last token %s, want %s", text, kindName[got], kindName[want])
		}
	}
}

// A step holds its words' phrases of up to maxPhrase words, so that a
// trigger such as side+by+side or in+the+last+few can match; a phrase
// does not run across a URL or a quote.
func TestPhrasesOfSeveralWords(t *testing.T) {
	t.Parallel()
	c := newClause(lex("compare them side by side and check the events in the last few minutes at https://a.test/x now"))
	for _, p := range []string{"side by side", "in the last few", "the last few minut", "make sure"} {
		want := p != "make sure"
		if got := c.has(triggers(strings.ReplaceAll(p, " ", "+"))[0]); got != want {
			t.Errorf("%q: has %v, want %v", p, got, want)
		}
	}
	if c.has(triggers("minutes+at+now")[0]) {
		t.Error("a phrase ran across a URL")
	}
}

// Values written out are one token each, found whole: SQL, semicolons
// and all, up to where the request's words go on; a page's element as a
// selector.
func TestValuesAreOneToken(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind       kind
		text, want string
	}{
		{statement, "one transaction: ALTER TABLE s ADD COLUMN u text; UPDATE s SET u = '' WHERE id = 1. then show me the columns", "ALTER TABLE s ADD COLUMN u text; UPDATE s SET u = '' WHERE id = 1"},
		{statement, "run SELECT count(*) FROM orders WHERE day > now() on my local postgres", "SELECT count(*) FROM orders WHERE day > now()"},
		{statement, "Export SELECT * FROM invoices WHERE month = '2024-05' from reports.db into out/invoices.json", "SELECT * FROM invoices WHERE month = '2024-05'"},
		{statement, "please select the second option", ""},
		{selector, "grab the text inside .due-date-banner", ".due-date-banner"},
		{selector, "type dune into #q and press Enter", "#q"},
		{selector, "click button.primary", "button.primary"},
		{selector, "check [data-testid=cart-count] shows 2", "[data-testid=cart-count]"},
		{selector, "open ./app.db and node.js docs, e.g. this", ""},
	} {
		got := ""
		for _, tok := range lex(c.text) {
			if tok.kind == c.kind {
				got = tok.text
			}
		}
		if got != c.want {
			t.Errorf("%q: %s %q, want %q", c.text, kindName[c.kind], got, c.want)
		}
	}
}
