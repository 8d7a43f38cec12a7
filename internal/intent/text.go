package intent

import (
	"cmp"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/intent/learned"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// text reads a request in words as a QA engineer would: cut into steps,
// each step given the tools its kind of work takes (workflows.go), with
// the set-up a tool needs and nobody says (a connection before a query, a
// page before a click), then argument hints from the words (hints.go).
// A step no rule knows goes to the tool search, which knows every tool,
// dynamic and gateway ones included.
func (a *Analyzer) text(text string) Analysis {
	tools, own := a.byName(), false
	if a.Own != nil {
		for _, t := range tools {
			own = own || a.Own(t)
		}
	}
	clauses := split(lex(text))
	carry(clauses)
	req := contextOf(clauses)

	var steps []Step
	var read []string // the words of the clauses read as the request's work
	body := false     // in the text of an issue, a comment or a PR the request writes
	writing := false  // the step before writes an issue, a comment or a PR
	for i, c := range clauses {
		if body && !c.then && c.about&github == 0 {
			continue // "with steps: sign in, open record b12, click Place hold": what the issue says
		}
		// The text begins in the step that writes it ("file an issue with
		// steps: ...") or in the one after ("File a bug on x/y: '...'.
		// Steps: open any PDP, ...").
		writes := c.about&github != 0 && c.hasAny(writeIssue)
		body = c.hasAny(writtenText) && (writes || writing)
		writing = writes
		about := req.said(c)
		// The search's best tools for the step's words, asked once.
		var hits []search.Hit
		asked := false
		bestFor := func(about domain) *search.Hit {
			if !asked {
				hits, asked = a.Search(c.words, 3), true
			}
			for i := range hits {
				if fits(hits[i].Tool, about, req.about) {
					return &hits[i]
				}
			}
			return &search.Hit{}
		}
		// An agent's own tool (dynamic, or a hosted server's) that does
		// just this step comes before any workflow.
		var names []string
		if own {
			if h := bestFor(0); h.Tool != nil && h.Score >= minOwnScore && a.Own(h.Tool) {
				names = append(names, h.Tool.Name)
			}
		}
		about = req.step(about, clauses, i, len(names) == 0)
		if delegated(clauses, i, about) {
			continue // the sub-agent's own task
		}
		if userDoes(c) {
			continue // "I'll paste them into the promo box by hand": the user's own step
		}
		read = append(read, c.words)
		if bareCheck(c) && slices.ContainsFunc(steps, func(s Step) bool { return strings.HasPrefix(s.Tool, "assert_") }) {
			continue // "..., verify": the check the clause before asked for
		}
		if bare(c, findItWords) && slices.ContainsFunc(steps, func(s Step) bool { return s.Tool == "tool_search" }) {
			continue // "is there a tool for X? find it for me": the same search
		}
		if bare(c, findItWords) && len(steps) > 0 && steps[len(steps)-1].Tool == "tool_call" {
			// "that pdf_extract tool isn't listed, find it": the search
			// for it comes before the call.
			steps = slices.Insert(steps, len(steps)-1, Step{Tool: "tool_search", Words: c.words})
			continue
		}
		if form := search.Form(c.words); form != "" && tools[form] != nil {
			// A step about the tools themselves ("is there a tool that
			// can record video?") is the finding, not the work.
			steps = append(steps, Step{Tool: form, Words: c.words})
			continue
		}
		if req.mouse {
			if tools := mouseStep(c); tools != nil {
				for _, n := range tools {
					steps = append(steps, Step{Tool: n, Words: c.words})
				}
				continue
			}
		}
		names = append(names, apply(c, about)...)
		names = append(names, named(c, tools)...)
		// A step no workflow claims goes to the search, which knows
		// every tool; a step a workflow claims still gets the search's
		// best when that is sure of itself and the workflow lacks it.
		if h := bestFor(about); h.Tool != nil && !slices.Contains(names, h.Tool.Name) &&
			(len(names) == 0 && h.Score >= minStepScore(c, len(clauses)) || h.Score >= minAlsoScore && !sameFamily(names, h.Tool.Name)) {
			names = append(names, h.Tool.Name)
		}
		for _, n := range names {
			steps = append(steps, Step{Tool: n, Words: c.words})
		}
	}
	// A request of one step gets the search's best for its whole text
	// too when the tools the workflows gave it are none of the search's
	// three best, or rank well below its best: the workflows read the
	// step one way, the index (every tool's own phrases, the request's
	// purpose weighed less) another, and on requests nobody tuned either
	// to, the index is right more often.
	if oneStep(steps) {
		hits := a.Search(text, 3)
		j := slices.IndexFunc(hits, func(h search.Hit) bool {
			return slices.ContainsFunc(steps, func(s Step) bool { return s.Tool == h.Tool.Name })
		})
		if len(hits) > 0 && (j < 0 || j > 0 && hits[0].Score >= searchLead*hits[j].Score) &&
			(len(steps) == 0 || fits(hits[0].Tool, req.about, req.about)) {
			steps = append(steps, Step{Tool: hits[0].Tool.Name, Words: text})
		}
	}
	// A page opened in a new tab is opened by the tab ("open the tracking
	// page https://... in a new tab"); before implied(), which opens a page
	// for the page steps left.
	steps = slices.DeleteFunc(steps, func(n Step) bool {
		c := clauseOf(clauses, n.Words)
		return n.Tool == "browser_navigate" && c != nil && c.hasAny(newTab) && len(c.tokens) > 0 && c.tokens[0].text == "open" &&
			alongside(steps, n, "browser_tabs")
	})
	steps = needless(implied(steps, clauses, req, tools), clauses)
	if req.swarm && req.about&squads == 0 {
		steps = append([]Step{{Tool: "swarm_run", Words: req.parallelWords}}, steps...) // a squad's "4 at once" is its own
	}
	steps = dedupe(steps)
	hint(steps, clauses, tools, text)
	r := Analysis{Read: strings.Join(read, ". "), Parallelizable: req.parallel}
	if a.Learned != nil {
		if m := a.Learned(); m != nil {
			steps = addLikely(m, steps, r.Read, tools)
		}
	}
	r.Steps = steps
	for _, s := range steps {
		r.SuggestedTools = append(r.SuggestedTools, s.Tool)
	}
	switch {
	case r.Parallelizable:
		r.Complexity = Swarm
	case len(steps) > 1:
		r.Complexity = Compound
	default:
		r.Complexity = Simple
	}
	return finish(r, tools)
}

// addLikely adds the tools the learned model finds likely and the rules
// did not give, each where such a tool usually comes: before the first
// step whose tool usually comes later. The model reads the words read as
// the request's work (Analysis.Read), not what the request says is no
// step: a purpose, what not to do, the text of an issue it files.
func addLikely(m *learned.Model, steps []Step, read string, tools map[string]*tool.Tool) []Step {
	chosen := make([]string, 0, len(steps))
	for _, s := range steps {
		chosen = append(chosen, s.Tool)
	}
	likely := m.Add(read, unique(chosen), func(name string) bool { return tools[name] != nil })
	for _, l := range likely {
		at := slices.IndexFunc(steps, func(s Step) bool {
			p, ok := m.PositionOf(s.Tool)
			return ok && p > l.Position
		})
		if at < 0 {
			at = len(steps)
		}
		steps = slices.Insert(steps, at, Step{Tool: l.Tool, Likely: l.Probability})
	}
	return steps
}

// carry gives a step the thing an earlier one named, which it only
// refers to: "read the schema in X, ... check the body is valid against
// it" validates against the schema; "it asks with a confirm() dialog ...
// accept it" answers the dialog; "record a video ... stop" stops the
// recording.
func carry(clauses []*clause) {
	// Two JSON values pasted in different sentences ("Before: {...}
	// After: {...}") are what a step that asks for their differences
	// compares, and what "GET /x" gave, not a call to make.
	jsons := 0
	for _, c := range clauses {
		for _, t := range c.tokens {
			if t.kind == quoted && t.raw == "{" {
				jsons++
			}
		}
	}
	if jsons >= 2 {
		for _, c := range clauses {
			if c.hasAny(diffWords) {
				c.set["<twojson>"] = true
			}
		}
	}
	// Two texts quoted as old and new ("old: '...' new: '...'") are what
	// a step that asks what changed compares.
	texts := 0
	for _, c := range clauses {
		for _, t := range c.tokens {
			if t.kind == quoted && t.raw != "{" && len(t.text) >= 15 {
				texts++
			}
		}
	}
	labelled := func(labels []string) bool {
		return slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(labels) })
	}
	if texts >= 2 && labelled(oldText) && labelled(newText) {
		for _, c := range clauses {
			if c.hasAny(diffWords) {
				c.set["<twotexts>"] = true
			}
		}
	}
	// "Why did last night's run fail? results are in reports/nightly.xml":
	// the report's failed tests.
	if slices.ContainsFunc(clauses, reportFile) {
		for _, c := range clauses {
			if c.hasAny(failWords) && c.about&^(files|report|value) == 0 {
				c.set[search.Stem("tests")] = true
			}
		}
	}
	// "kill spawn sp_3c91, it's gone off the rails and is burning tokens":
	// the sub-agent named, in each step about one.
	if slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<spawn>") }) {
		for _, c := range clauses {
			if c.about&^agent == 0 && !c.hasAny(handOff) {
				c.set["<spawn>"] = true
			}
		}
	}
	// "the toast goes away after 3 s, check": the clause before a bare
	// "check" is what to check.
	for i, c := range clauses {
		if i > 0 && bareCheck(c) && !clauses[i-1].hasAny(checkWords) {
			clauses[i-1].set[checkStem] = true
		}
	}
	for _, x := range carried {
		if !slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(x.named) }) {
			continue
		}
		set := cmp.Or(x.set, x.named[0])
		for _, c := range clauses {
			if c.hasAny(x.when) && (len(x.and) == 0 || c.hasAny(x.and)) && !c.hasAny(x.named) && !c.hasAny(x.not) {
				c.set[set] = true
				c.about = aboutOf(c)
			}
		}
	}
}

// otherStores keep what a step deletes elsewhere than web storage.
var otherStores = triggers(`cookie cookies basket cart redis key+in+redis row rows table`)

// oldText and newText label two texts to compare.
var oldText, newText = triggers(`=old =before`), triggers(`=new =after`)

// failWords ask what failed.
var failWords = triggers(`fail failed failure failures go+red went+red turn+red turned+red broke broken`)

// diffWords ask for the differences of two values.
var diffWords = triggers(`compare diff different difference differences differ differs changed`)

// carried: in a request that names named, a step holding one of when
// (and one of and) is about the first of named, or holds set.
var carried = []struct {
	named, when, and []string
	set              string
	not              []string // a step holding one is about something else
}{
	{triggers(`schema`), validWords, append(triggers(`against`), checkWords...), "", nil},
	{triggers(`dialog =confirm =alert =prompt`), triggers(`=accept =dismiss`), triggers(`it =them`), "", nil},
	{triggers(`video recording`), triggers(`=stop =end =finish`), nil, "", nil},
	// "is there a tool that ...? if not, write one", "snapshot the
	// dynamic tools, then create order_total_check (...)": the tool.
	{triggers(`tool tools`), triggers(`=create =write =replace =build =add`), triggers(`=one =it version <ident> <quoted> <command> called named`), "", nil},
	// "check the Condition dropdown has 5 options, then pick 'Very good'":
	// a pick from that dropdown.
	{triggers(`dropdown <selectel>`), triggers(`pick choose`), triggers(`<quoted>`), search.Stem("dropdown"), nil},
	// "the wizard keeps its step in sessionStorage. set wizardStep to
	// 3": there.
	{triggers(`localstorage`), triggers(`=set`), triggers(`<ident> =to`), "", triggers(`cookie cookies redis key+in+redis =the`)},
	{triggers(`sessionstorage`), triggers(`=set`), triggers(`<ident> =to`), "", triggers(`cookie cookies redis key+in+redis =the`)},
	// "read localStorage recently_viewed, then delete it", "what mocks
	// are active? drop the recommendations one": what the request read
	// is what it deletes.
	{triggers(`localstorage`), triggers(`delete remove drop clear wipe`), triggers(`it =them <ident> <quoted> the+key`), "", otherStores},
	{triggers(`sessionstorage`), triggers(`delete remove drop clear wipe`), triggers(`it =them <ident> <quoted> the+key`), "", otherStores},
	// "list the cookies for .x.io and delete the ab_bucket one": a cookie.
	{triggers(`cookie cookies`), triggers(`delete remove drop`), triggers(`=one <ident> =it`), search.Stem("cookie"), triggers(`localstorage sessionstorage redis key+in+redis`)},
	{triggers(`mock mocks route routes intercept intercepts`), triggers(`drop remove delete`), triggers(`it =them =one =all`), search.Stem("unroute"), nil},
	// "which browser sessions do we have? switch to the mobile one": that
	// session; "show me what sp_22 is doing and stop it": that agent.
	{triggers(`session sessions`), triggers(`switch`), triggers(`=one`), "<asession>", nil},
	{triggers(`<spawn> sub+agent subagent`), triggers(`stop kill cancel abort`), triggers(`it`), search.Stem("agent"), triggers(`pr issue branch job`)},
	// "a video of the checkout: record, open /cart, chapter 'Pay'": the
	// video is recorded; "which workflows does it have? kick off the
	// a11y one": that workflow.
	{triggers(`video chapter`), triggers(`=record =start`), nil, search.Stem("video"), triggers(`stop`)},
	{triggers(`workflow workflows <yml>`), triggers(`kick trigger retrigger dispatch =run =rerun`), triggers(`=one =it`), search.Stem("workflow"), nil},
	// "uncheck 'SMS offers' and verify it is really off": the box's state.
	{triggers(`untick uncheck tick`), triggers(`=off =on`), triggers(`it =its`), "<checkstate>", nil},
	// "how many product cards on /cakes? should be 24": a count.
	{triggers(`how+many`), triggers(`should must expect`), triggers(`<measure>`), "<count>", triggers(`<quoted> <status>`)},
	// "hold shift and click the rows, then let go": of the key held.
	{triggers(`hold holding`), triggers(`let+go release stop+holding`), nil, "shift", nil},
	// "read playwright.config.ts from acme/web on main and on release/2.14,
	// diff them": the file's two texts, not the branches.
	{triggers(`<file>`), triggers(`diff compare`), triggers(`=them =both`), "<filediff>", nil},
	// "read order.json and schemas/order.schema.json and check the one
	// against the other": against the schema.
	{triggers(`schema`), triggers(`check validate verify`), triggers(`against`), "schema", nil},
	// "trigger e2e on release/2.14 in acme/web and show me the run": the
	// workflow's run.
	{triggers(`trigger retrigger dispatch kick`), triggers(`=run`), triggers(`show see watch follow`), "github", triggers(`job jobs task tasks agent`)},
	// "render templates/x.txt into out/x.txt and diff it with golden/x.txt":
	// the file rendered and the other, two files.
	{triggers(`render save write`), triggers(`diff compare`), triggers(`=it <file>`), "<twofiles>", triggers(`<twofiles> page screenshot`)},
	// "this JSON from the logs is one line, make it readable": the JSON.
	{triggers(`json`), triggers(`readable indent indentation pretty prettify`), nil, search.Stem("json"), nil},
	// "junit/nightly.xml: what failed?": the report's failed tests.
	{triggers(`junit`), triggers(`fail failed failure failures slow slowest`), nil, search.Stem("tests"), triggers(`flaky`)},
	// "is there a .env.staging in the repo root? if so show it": that
	// file.
	{triggers(`<namedfile> <infile>`), triggers(`show read print =cat`), triggers(`=it`), "<namedfile>", triggers(`<page> <api> page`)},
	// "Load the category page and list the requests that failed": the
	// page's requests.
	{triggers(`load+the load+a loads loading page+load page`), triggers(`request requests call calls`), triggers(`list which failed fail slow slowest made making longest`), search.Stem("network"), triggers(`<api> <method> api`)},
	// "the JWT the API gave me: ... is it still valid time-wise?": its exp.
	{triggers(`jwt`), triggers(`=exp =expired time+wise`), nil, search.Stem("jwt"), nil},
	// "give the queue 5 seconds, then show me its status": the queue's.
	{triggers(`the+queue`), triggers(`status`), triggers(`=its`), "queue status", triggers(`job+<number> jobs job`)},
}

// bareCheck says whether a clause only asks for a check ("verify.",
// "check pls"), of what the clause before said.
func bareCheck(c *clause) bool { return bare(c, bareCheckWords) }

// bare says whether a clause holds only words of set.
func bare(c *clause, set map[string]bool) bool {
	n := 0
	for _, t := range c.tokens {
		if t.kind != word && t.kind != punct {
			return false
		}
		if t.kind == word && !set[t.text] {
			return false
		}
		n += len(t.text)
	}
	return n > 0
}

var (
	bareCheckWords = wordSet(`check verify confirm assert ensure please pls plz too also it that this for me and then`)
	findItWords    = wordSet(`find look search it up for me please pls one and`)
)

// fits says whether the search's t may do a step about about. A browser
// tool needs a step about pages, or one about no system at all: the
// browser's many tools share words with everything ("release" a key,
// "state" of storage, "list" of sessionStorage), and a step about files,
// a repository or a database that matched them by those words is not a
// browser's. (Other families are not kept apart so: a step's systems are
// read from its words, and "build ./services/api" is Docker's without
// saying so.)
func fits(t *tool.Tool, about, whole domain) bool {
	const systems = web | pg | sqlite | redis | db | files | github | docker | compose
	if t.Category == tool.CategoryDatabase && about&(pg|sqlite|redis|db) == 0 && whole&(pg|sqlite|redis) == 0 {
		return false
	}
	if t.Category == tool.CategoryDocker && about&(api|pg|sqlite|redis|db) != 0 && about&(docker|compose) == 0 {
		return false // "pull the LCP from the Performance API" is not docker pull
	}
	if t.Category == tool.CategoryGitHub && whole&github == 0 && about&(web|api) != 0 {
		return false // "the checkout page is open and something is off" is no branch
	}
	return t.Category != tool.CategoryBrowser || about&systems == 0 || about&web != 0
}

// mouseThings are what a mouse moved by hand works on.
var mouseThings = triggers(`mouse cursor pointer slider handle canvas map`)

// modifierWords name a key held, not the mouse's button.
var modifierWords = triggers(modifierKeys)

// mouseStep is a step of moving the mouse by hand: to a point, its
// button pressed there, let go; nil for a step of anything else.
func mouseStep(c *clause) []string {
	var out []string
	if c.has("<point>") && !c.hasAny(clickWords) {
		out = append(out, "browser_mouse_move") // "move to 520,610", "drag it to 520,530", "press on the handle at 412,530"
	}
	if c.hasAny(pressWords) {
		out = append(out, "browser_mouse_down")
	}
	if c.hasAny(releaseWords) {
		out = append(out, "browser_mouse_up")
	}
	return out
}

var (
	clickWords   = triggers(`click tap`)
	pressWords   = triggers(`press mouse+down press+down hold+down`)
	releaseWords = triggers(`release let+go mouse+up`)
	// mouseButton press or let go of the mouse's button.
	mouseButton = slices.Concat(pressWords, releaseWords)
)

// oneStep says whether steps are one step's: every tool was given for
// the same words (or there is none).
func oneStep(steps []Step) bool {
	return !slices.ContainsFunc(steps, func(s Step) bool { return s.Words != steps[0].Words })
}

// searchLead is how far the search's best must lead the best of the
// tools the workflows gave a one-step request to join them.
const searchLead = 1.2

// minSearchScore is the least score a search hit needs to be a step's
// tool: below it the words matched a tool by chance ("tell me when").
const minSearchScore = 7.0

// minSceneScore is the least score a search hit needs to be the tool of
// a clause that only sets the scene ("Rate limiting", "The bug was that
// it re-enabled itself"): only a tool its words name outright.
const minSceneScore = 11.0

// sameFamily says whether name is of a family whose call the workflow
// chose for the step already (names hold one): the search's other choice
// of one is a second opinion, not a second call.
func sameFamily(names []string, name string) bool {
	for _, family := range chosenFamilies {
		in := func(n string) bool { return strings.Contains(n, family) }
		if in(name) && slices.ContainsFunc(names, in) {
			return true
		}
	}
	return false
}

// chosenFamilies are the families whose call a workflow chooses for a
// step, by a part of their tools' names: a database's, a sub-agent's
// ("spawn a sub-agent to add tests for order cancellation" spawns one;
// it cancels none), a template's (a template written out, or a file).
var chosenFamilies = []string{"db_", "spawn_", "template"}

// minStepScore is the least score the search's best needs to be the tool
// of clause c, one of n.
func minStepScore(c *clause, n int) float64 {
	if n == 1 || c.then || asks(c) {
		return minSearchScore
	}
	return minSceneScore
}

// minAlsoScore is the least score the search's best needs to join the
// tools a workflow gave a step: the step's words say that tool outright.
const minAlsoScore = 15.0

// minOwnScore is the least score an agent's own tool needs to do a step
// in place of the workflows: the step's words must be its words.
const minOwnScore = 12.0

// delegated says whether clause i is part of the task a sub-agent is
// handed: the steps from the one that hands it over until the request
// turns to the sub-agent again ("wait for it to finish", "read its
// output"). Steps before the handing over, and after that turn, are the
// agent's own ("... then open a PR from its branch").
func delegated(clauses []*clause, i int, about domain) bool {
	if about&agent != 0 || clauses[i].hasAny(watchWords) {
		return false // "... and when it's done open a PR from its branch": the agent's own again
	}
	handed := false
	for j := range i {
		switch {
		case clauses[j].about&agent != 0 && !handed:
			handed = true
		case handed && (clauses[j].about&agent != 0 || clauses[j].about == 0 && clauses[j].hasAny(watchWords)):
			return false
		}
	}
	return handed
}

// watchWords turn back to a sub-agent handed a task ("poll until it's
// done", "read its output").
var watchWords = triggers(`wait poll watch keep+an+eye monitor done finish finishes finished output logs status progress`)

// setUp is the last thing before clause i the request set up and may
// tear down: a stack, a container, a squad, a database's connection.
func setUp(clauses []*clause, i int) domain {
	for j := i - 1; j >= 0; j-- {
		if d := clauses[j].about & (compose | docker | squads | pg | sqlite | redis); d != 0 {
			return d
		}
	}
	return 0
}

// imageDB are the databases images of their name run.
var imageDB = map[string]domain{"postgres": pg, "postgis/postgis": pg, "redis": redis, "valkey/valkey": redis}

// containerDB are the databases a container's name says it runs (qa-pg,
// redis-test).
var containerDB = map[string]domain{"pg": pg, "postgres": pg, "postgresql": pg, "redis": redis}

// dbUse work with a database.
var dbUse = triggers(`connect query select load seed migrate migration migrations table tables row rows <sql> schema empty keys`)

// tearDown end what a request set up ("then tear it all down").
var tearDown = triggers(`tear+down tear+it tear+everything tear+all shut+down shut+it shut+everything bring+down bring+it+down take+down take+it+down clean+up cleanup stop+everything stop+it+all close+it close+both`)

// asks says whether a clause asks for something: it begins with a verb
// or a question, or says what is wanted. A clause that only sets the
// scene ("Rate limiting", "The bug was that it re-enabled itself") is no
// step of its own.
func asks(c *clause) bool {
	for i, t := range c.tokens {
		if t.kind != word {
			return i == 0 && t.kind != number // GET /api/..., a value to work on
		}
		switch {
		case stepStarters[t.text], nounVerbs[t.text], questionWords[t.text]:
			return true
		case politeWords[t.text] && i < 3:
			continue // "please", "pls", "also", "now"
		case wantWords[t.text]:
			return true
		case i == 0 && (t.text == "i" || t.text == "we") && len(c.tokens) > 1 && wantWords[c.tokens[1].text]:
			return true
		}
		return false
	}
	return false
}

var (
	questionWords = wordSet(`what which who whom whose when where why how is are was were do does did can could will would should has have any`)
	politeWords   = wordSet(`please pls plz also now just so then and first quickly`)
	wantWords     = wordSet(`want need like wanna gotta must`)
)

// nearest is what the nearest step before (else after) is about, for a
// step that names nothing of its own ("then restore it"); the rows of a
// request that names no database are a page's.
func (req request) nearest(clauses []*clause, i int) domain {
	about := func(c *clause) domain {
		if c.about&db != 0 && !req.dbNamed && !c.hasAny(strongDB) {
			return c.about &^ db
		}
		return c.about
	}
	for j := i - 1; j >= 0; j-- {
		if d := about(clauses[j]); d != 0 {
			return d
		}
	}
	for j := i + 1; j < len(clauses); j++ {
		if d := about(clauses[j]); d != 0 {
			return d
		}
	}
	return 0
}

// apply returns the tools of the rules a step about about meets.
func apply(c *clause, about domain) []string {
	var out []string
	done := map[string]bool{}
	for _, x := range rules {
		if x.group != "" && done[x.group] {
			continue
		}
		// A rule for any step applies to a step about an owner only when
		// the step names no system itself ("give it 10 s").
		if x.in != 0 && about&x.in == 0 || about&owners != 0 && x.in&owners == 0 && (x.in != 0 || c.about != 0) {
			continue
		}
		if len(x.when) > 0 && !c.hasAny(x.when) || len(x.and) > 0 && !c.hasAny(x.and) || c.hasAny(x.unless) {
			continue
		}
		out = append(out, x.tools...)
		if x.group != "" {
			done[x.group] = true
		}
	}
	return out
}

// named are the tools a step names itself (browser_snapshot, a dynamic
// tool's name).
func named(c *clause, tools map[string]*tool.Tool) []string {
	var out []string
	for _, t := range c.tokens {
		if t.kind == word && strings.Contains(t.text, "_") {
			if _, ok := tools[t.text]; ok {
				out = append(out, t.text)
			}
		}
	}
	return out
}

// request is what the whole request is about.
type request struct {
	about domain
	// db is the database a step that only says "the database" means: the
	// one the request names, else PostgreSQL.
	db domain
	// parallel: the steps are independent over several items; swarm: so
	// many, or said so, that a swarm should run them.
	parallel, swarm bool
	parallelWords   string
	// dbNamed: the request names a database or a table, so that "the
	// rows" are a table's.
	dbNamed bool
	pages   bool // the request names a page, a site or an app
	// browser: a step of the request works a browser ("click", "tick",
	// "Orders -> Return items").
	browser bool
	// mouse: the request moves the mouse by hand, point by point, and
	// presses or lets go of its button ("move to 420,610, press, move to
	// 520,610, release").
	mouse bool
	// dbImage is the database a container the request starts runs
	// (postgres:16, redis:7-alpine): "then connect" is to it.
	dbImage domain
}

var (
	parallelPhrases = triggers(`in+parallel at+once same+time simultaneously concurrently`)
	// poolPhrases hand the work to the pool of workers, parallel or not
	// ("as a pipeline", "on the pool").
	poolPhrases = triggers(`on+the+pool over+the+pool as+a+pipeline across+the+workers across+workers`)
	itemNouns   = wordSet(`urls url pages sites websites endpoints services browsers devices`)
	sizeWords   = wordSet(`mobile tablet desktop`)
	pageWords   = triggers(`page pages site website app <page> localhost login log+in sign+in sign+up checkout admin homepage home+page footer navbar storefront store shop top+nav =cart =basket pdp plp on+staging`)
	eachWords   = triggers(`compare both each all`)
)

func contextOf(clauses []*clause) request {
	var req request
	sizes, items := 0, 0
	path := false
	for _, c := range clauses {
		req.about |= c.about
		path = path || c.has("<path>") && !c.has("<api>")
		if c.has("<page>") || c.hasAny(pageWords) && !(c.has("full page") && !c.hasAny(placeWords)) || c.has("<path>") && !c.has("<api>") && c.about&web != 0 {
			req.pages = true // a site's page, or a path of it (/login) in a step about pages
		}
		req.browser = req.browser || c.hasAny(strongWeb) || c.hasAny(browserVerbs) || c.has("<uistep>")
		if c.hasAny(parallelPhrases) {
			req.swarm, req.parallel, req.parallelWords = true, true, c.words
		}
		if c.hasAny(poolPhrases) && !req.swarm {
			req.swarm, req.parallelWords = true, c.words
		}
		for i, t := range c.tokens {
			if name, _, ok := strings.Cut(t.text, ":"); ok && t.kind == word && c.has("<image>") {
				req.dbImage |= imageDB[name]
			}
			if t.kind == word && c.about&docker != 0 && c.hasAny(startWords) && hyphenName.MatchString(t.text) {
				for _, part := range strings.Split(t.text, "-") {
					req.dbImage |= containerDB[part] // "start the qa-pg container, ... connect"
				}
			}
			switch {
			case t.kind == link && search.DatabaseOf(t.text) == "":
				items++ // a page or an API to work on, not a database's URL
			case t.kind == word && sizeWords[t.text], t.kind == word && search.WindowSize.MatchString(t.text):
				sizes++
			case t.kind == number && i+1 < len(c.tokens) && itemNouns[c.tokens[i+1].text] && t.num >= 2:
				items += t.num
			case t.kind == word && itemNouns[t.text]:
				if n := listBefore(c.tokens, i); n >= 2 {
					items += n
				}
			}
		}
	}
	points := slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<point>") })
	req.mouse = points && slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(mouseButton) && !c.hasAny(modifierWords) }) &&
		slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(mouseThings) })
	if path && req.about&web != 0 {
		req.pages = true // "add the charger (/p/vb-chg-65w) to the basket": a path of the site, in a request about pages
	}
	if req.about&gateway != 0 {
		for _, c := range clauses {
			if c.about&agent != 0 && !c.hasAny(handOff) {
				c.about = c.about&^agent | gateway // "configured for Claude Code": where an MCP server is set up, not a sub-agent
			}
		}
	}
	named := req.about
	for _, c := range clauses {
		named |= c.dbs
	}
	for _, d := range []domain{sqlite, redis, pg} {
		if named&d != 0 {
			req.db = d
			req.dbNamed = true
		}
	}
	if slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(strongDB) && !c.hasAny(handOnPage) }) {
		req.dbNamed = true // not "shift-click rows 3 and 5 in the bookings table": a page's
	}
	if req.db == 0 {
		req.db = pg
	}
	services := 0
	for _, d := range []domain{pg, sqlite, redis} {
		if req.about&d != 0 {
			services++
		}
	}
	every := slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(eachWords) })
	if sizes >= 2 || items >= 2 || services >= 2 && every {
		req.parallel = true
	}
	if items >= 3 && !req.swarm {
		req.swarm, req.parallelWords = true, clauses[0].words
	}
	return req
}

// said is what clause c's words are about in its request: the rows of a
// request that names no database are a page's, the fields of one that
// names a database and no page are a table's.
func (req request) said(c *clause) domain {
	about := c.about
	if about&db != 0 && !req.dbNamed && (!c.hasAny(strongDB) || c.hasAny(handOnPage)) {
		about &^= db // rows of a page, not of a table
	}
	if about&web != 0 && req.dbNamed && !req.pages && !c.hasAny(strongWeb) {
		about &^= web // a hash's fields, the products table: a database's, in a request with no page
	}
	if about&web != 0 && about&api != 0 && c.has("<method>") && !c.hasAny(strongWeb) {
		about &^= web // "GET /v2/products/1: price should be between 1 and 5000": the response's price
	}
	if about&web != 0 && about&^(web|value) == 0 && req.about&api != 0 && !req.pages && !req.browser {
		about = about&^web | api // "GET /api/x, ... and price should be a number": the response's, in a request about no page
	}
	if (req.about|req.dbImage)&redis != 0 && about&(redis|web|api) == 0 && (c.has("<key>") || c.has("<keyglob>")) {
		about |= redis // "then delete the key session:user:1182"
	}
	return about
}

// step is what clause i is about as a step of its request, from what its
// words say (about): a step that says nothing (and that no tool of the
// agent's own took, alone) is about what the steps around it are; "the
// database" is the one the request names; an image in a request about
// containers is a container's; "then connect" after starting postgres:16
// is to it; work handed to a squad is the squad's, a file edited in a
// repository's request the repository's, a service of a stack the
// stack's; the slowest tests of a database a request opens, with no
// report file, are its rows (the clause is marked <dbrows>, which no
// report's rule takes).
func (req request) step(about domain, clauses []*clause, i int, alone bool) domain {
	c := clauses[i]
	if about == 0 && alone {
		if about = req.nearest(clauses, i); about == 0 {
			about = value
		}
		if i > 0 && clauses[i-1].hasAny(mockWords) && clauses[i-1].about&owners == 0 && c.hasAny(checkWords) {
			about = web // "mock GET /api/slots to return [], check the delivery step shows X": what the page shows
		}
		if c.hasAny(tearDown) {
			about = cmp.Or(setUp(clauses, i), about) // what the request set up is torn down
		}
	}
	if about&db != 0 {
		about &^= db
		switch {
		case about&(pg|sqlite|redis) == 0:
			about |= req.db
		case about&(pg|sqlite) == 0 && c.hasAny(tableWords):
			// "the skips table has the row and the redis key is gone": a
			// table is no Redis's
			about |= cmp.Or(req.db&^redis, pg)
		}
	}
	if about&web != 0 && about&^web&^value == 0 && !req.pages && req.about&(docker|compose) != 0 {
		about = req.about & (docker | compose) // an image, a port of a container, not a page's
	}
	if req.dbImage != 0 && about&(pg|sqlite|redis|web|api) == 0 && (about&files == 0 || c.has("<sqlfile>") || i > 0 && clauses[i-1].has("<sqlfile>")) && c.hasAny(dbUse) {
		about = req.dbImage // "then connect and load sql/schema.sql"
	}
	if req.about&docker != 0 && about&(docker|compose|web|api|files) == 0 && (c.has("<setting>") || c.has("it") && (req.dbImage != 0 || i > 0 && clauses[i-1].about&docker != 0)) && c.hasAny(startWords) {
		about = docker // "run qa-db on it with POSTGRES_PASSWORD=qa", "build the image and run it on port 8080": a container
	}
	if about&report != 0 && about&^(report|value) == 0 && req.about&(pg|sqlite) != 0 && !slices.ContainsFunc(clauses, reportFile) {
		about = req.about & (pg | sqlite) // "open results/history.sqlite ... the 10 slowest tests": its rows
		c.set["<dbrows>"] = true
	}
	if req.about&squads != 0 && c.hasAny(squadWork) {
		about = squads // work handed to the squad is the squad's
	}
	if req.about&github != 0 && about&(agent|job) == 0 && c.has("<ref>") {
		about = github // "approve #497 if its diff only touches e2e/"
	}
	if req.about&github != 0 && about == files && (c.hasAny(edits) || c.hasAny(commits)) {
		about = github // a file of the repository the request works in ("add tests/x.spec.ts", then open a PR)
	}
	if req.about&compose != 0 && c.hasAny(restartAll) && about&(docker|compose) == 0 {
		about = compose // "then restart everything (down/up)": the stack
	}
	if req.about&compose != 0 && c.hasAny(logWords) && about&^(api|web|value) == 0 && !c.has("<api>") && !c.has("<page>") {
		about = compose // "then show me the api logs": the api service's, in a request about a stack
	}
	if req.about&compose != 0 && about&docker != 0 && c.has("<incontainer>") && !c.has("<image>") {
		about = about&^docker | compose // "compose up ..., run the smoke script in the api container": a service's
	}
	if req.about&(docker|compose) == docker && c.hasAny(logWords) && about&^(api|web|value|pg|redis|db) == 0 && !c.has("<api>") && !c.has("<page>") {
		about = docker // "run postgres:16, then check the logs say ready": the container's
	}
	if c.has("<page>") && c.hasAny(liveWords) && len(c.tokens) > 0 && (c.tokens[0].text == "is" || c.tokens[0].text == "are") {
		about = api // "are both https://a.example and https://m.a.example up?": asked, not opened
	}
	if req.pages && about&^value == 0 && c.hasAny(siteSearch) && !c.has("<file>") && !c.has("<dir>") && !c.hasAny(fileWords) {
		about = web // "search for 'fountain pen' on staging": the site's search
	}
	if about&^value == 0 && len(c.tokens) > 0 && (c.tokens[0].text == "reload" || c.tokens[0].text == "refresh") && !c.hasAny(owned) {
		about = web // "..., reload": the page
	}
	if req.pages && c.hasAny(goBack) && !c.hasAny(owned) {
		about = web // "then go back": to the page before, in a request about pages
	}
	if req.about&compose != 0 && (c.hasAny(serviceWords) || c.hasAny(readyWords) && about&(pg|redis) != 0) {
		about = about&(owners|report) | compose // a service of the stack
	}
	return about
}

// Words that tell what a step is about, in a request about something
// (req.step, said).
var (
	startWords   = triggers(`run start launch spin+up`)                                               // start a process
	liveWords    = triggers(`=up =down reachable alive responding`)                                   // ask whether a site answers
	restartAll   = triggers(`restart+everything restart+it+all restart+the+whole recycle+everything`) // restart what a request set up
	browserVerbs = triggers(`tick untick hover scroll drag type press reload`)                        // work a page
	handOnPage   = triggers(`click shift+click tap select+rows hover drag`)                           // work a page's rows by hand
	logWords     = triggers(`log logs`)                                                               // ask what something logged
	fileWords    = triggers(`file files folder folders directory spec specs log logs`)                // name files
	siteSearch   = triggers(`search search+for`)                                                      // search a site
	// goBack return to the page before; owned name what else a step may
	// go back to.
	mockWords = triggers(`mock mocked stub stubbed intercept`) // make the browser's requests answer so
	goBack    = triggers(`go+back navigate+back press+back hit+back`)
	owned     = triggers(`online offline token tool tools snapshot version default`)
)

// commits put a file in a repository.
var commits = triggers(`add commit push =adding`)

// handOff hand work to a sub-agent.
var handOff = triggers(`sub+agent subagent delegate spawn hand give+it hand+it <spawn>`)

// listBefore counts the items of a list such as "the home, pricing and
// signup pages" that ends before the noun at i.
func listBefore(tokens []token, i int) int {
	n := 0
	for j := i - 1; j >= 0; j-- {
		t := tokens[j]
		switch {
		case t.kind == word && (t.text == "and" || t.text == "or"), t.kind == punct && t.text == ",":
			continue
		case t.kind == word && !stepStarters[t.text] && t.text != "the":
			if j+1 < i && (tokens[j+1].kind == punct || tokens[j+1].text == "and" || tokens[j+1].text == "or") || j == i-1 {
				n++
				continue
			}
		}
		break
	}
	return n
}

// implied adds the calls a workflow needs that nobody says: a connection
// before a database's first call, a page opened before the first click,
// an assertion after a login that checks nothing.
func implied(steps []Step, clauses []*clause, req request, tools map[string]*tool.Tool) []Step {
	has := func(prefix string) int {
		return slices.IndexFunc(steps, func(s Step) bool { return strings.HasPrefix(s.Tool, prefix) })
	}
	before := func(first int, s Step) {
		steps = slices.Insert(steps, first, s)
	}
	// A connection the request says is open already ("the existing 'stg'
	// connection", "alias cache is connected") is not opened again.
	open := slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(openConnection) })
	if open {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			return s.Tool == "db_pg_connect" || s.Tool == "db_redis_connect" || s.Tool == "db_sqlite_open"
		})
	}
	for _, need := range []struct{ prefix, tool string }{
		{"db_pg_", "db_pg_connect"}, {"db_redis_", "db_redis_connect"}, {"db_sqlite_", "db_sqlite_open"},
	} {
		// A connection closed ("disconnect from the qa pg") was open.
		i := slices.IndexFunc(steps, func(s Step) bool {
			return strings.HasPrefix(s.Tool, need.prefix) && !strings.HasSuffix(s.Tool, "_disconnect") && !strings.HasSuffix(s.Tool, "_close")
		})
		if i >= 0 && has(need.tool) < 0 && !open {
			before(i, Step{Tool: need.tool, Words: steps[i].Words})
		}
	}
	// A tool the request has written is then tried ("then try it on
	// 'Hello World!'"), whatever the step's words are about, and maybe
	// deleted again.
	if i := has("dynamic_tool_create"); i >= 0 && has("tool_call") < 0 {
		if c := slices.IndexFunc(clauses, func(c *clause) bool { return c.words != steps[i].Words && c.hasAny(tryIt) }); c >= 0 {
			steps = slices.Insert(steps, i+1, Step{Tool: "tool_call", Words: clauses[c].words})
		}
	}
	if i := has("dynamic_tool_create"); i >= 0 && has("dynamic_tool_delete") < 0 {
		if c := slices.IndexFunc(clauses, func(c *clause) bool { return c.words != steps[i].Words && c.hasAny(deleteIt) }); c >= 0 {
			steps = slices.DeleteFunc(steps, func(s Step) bool { return s.Words == clauses[c].words })
			steps = append(steps, Step{Tool: "dynamic_tool_delete", Words: clauses[c].words})
		}
	}
	// Data made "from it" where the request names a schema file is made
	// from that schema ("take schemas/order.json, generate 20 orders from
	// it").
	if i := has("data_generate"); i >= 0 && has("data_from_schema") < 0 && slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("schema") && c.has("<file>") }) {
		if c := clauseOf(clauses, steps[i].Words); c != nil && c.hasAny(fromIt) {
			steps[i].Tool = "data_from_schema"
			if has("fs_read") < 0 {
				before(i, Step{Tool: "fs_read", Words: steps[i].Words})
			}
		}
	}
	// A file rendered here and then put on GitHub (committed, or the text
	// of an issue or a comment) is read between: fs_template answers the
	// output's path, and the GitHub tools take text.
	if r := has("fs_template"); r >= 0 && has("fs_read") < 0 {
		if g := slices.IndexFunc(steps[r:], func(s Step) bool {
			return s.Tool == "gh_file_write" || s.Tool == "gh_issue_create" || s.Tool == "gh_issue_comment"
		}); g >= 0 {
			before(r+g, Step{Tool: "fs_read", Words: steps[r+g].Words})
		}
	}
	// A file a tool works on that takes no path is read first: the
	// schema of a validation, the expected JSON of a comparison, the
	// query a request sends, the migration a transaction applies.
	if i := slices.IndexFunc(steps, func(s Step) bool {
		c := clauseOf(clauses, s.Words)
		return c != nil && c.has("<infile>") && !takesPath(tools[s.Tool])
	}); i >= 0 && has("fs_read") < 0 {
		before(i, Step{Tool: "fs_read", Words: steps[i].Words})
	}
	// A workflow whose file or id the request does not know ("no idea
	// what its id is") is looked up first.
	if i := has("gh_workflow_run"); i >= 0 && has("gh_workflow_list") < 0 && slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(nameUnknown) }) {
		before(i, Step{Tool: "gh_workflow_list", Words: steps[i].Words})
	}
	// A rollback to a snapshot the request neither took nor names looks
	// for it first ("roll back to the snapshot before my last edit").
	if i := has("worker_rollback"); i >= 0 && has("worker_snapshot") < 0 && !slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<snapshotid>") }) {
		before(i, Step{Tool: "worker_snapshots", Words: steps[i].Words})
	}
	// A schema named as a file is read for the validation that uses it,
	// wherever the request names it ("take the schema in ./schemas/x.json
	// and check GET /x matches it").
	if i := has("assert_json_schema"); i >= 0 && has("fs_read") < 0 && slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("schema") && c.has("<file>") }) {
		before(i, Step{Tool: "fs_read", Words: steps[i].Words})
	}
	// CI runs whose reports are files here ("the JUnit files of the last
	// 30 runs are in ./ci-history") are read from there, not from GitHub.
	if slices.ContainsFunc(clauses, reportFile) {
		repo := slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<repo>") })
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			return s.Tool == "gh_workflow_runs" || !repo && (s.Tool == "gh_workflow_run" || s.Tool == "gh_file_read")
		})
	}
	// A file read from a repository and then checked is checked for what
	// it holds ("read .github/workflows/e2e.yml and check it's on node
	// 20").
	if i := has("gh_file_read"); i >= 0 && has("assert_") < 0 {
		if c := slices.IndexFunc(clauses, func(c *clause) bool {
			return c.words != steps[i].Words && c.about&^github == 0 && c.hasAny(checkWords)
		}); c >= 0 {
			steps = slices.Insert(steps, i+1, Step{Tool: "assert_contains", Words: clauses[c].words})
		}
	}
	// A video started is stopped at the end, to have its file ("then
	// stop and give me the file" or not).
	if i := has("browser_start_video"); i >= 0 && has("browser_stop_video") < 0 {
		words := steps[len(steps)-1].Words
		if c := slices.IndexFunc(clauses, func(c *clause) bool { return c.about == 0 && c.hasAny(stopWords) }); c >= 0 {
			words = clauses[c].words
		}
		steps = append(steps, Step{Tool: "browser_stop_video", Words: words})
	}
	// Inputs thrown at a field one by one are each submitted ("throw the
	// edge cases at the signup email field").
	if i := has("browser_type"); i >= 0 && has("data_edge_cases") >= 0 && has("browser_click") < 0 && has("browser_press_key") < 0 {
		steps = slices.Insert(steps, i+1, Step{Tool: "browser_click", Words: steps[i].Words})
	}
	// A page reloaded, gone back from or switched away from is open
	// already: the first step's, or any step's when the request names no
	// page ("set it, then reload the page"); so is the page of the current
	// session, of a wait or a session switched to, unless the request
	// names another.
	firstOnPage := slices.IndexFunc(steps, func(s Step) bool { return isPageStep(s.Tool) })
	urlNamed := slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<page>") || c.has("<path>") })
	named := urlNamed || slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(placeWords) })
	there := slices.ContainsFunc(clauses, func(c *clause) bool { return pageOpen(c) }) ||
		!named && slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(inSession) }) ||
		firstOnPage >= 0 && onOpenPage[steps[firstOnPage].Tool] ||
		!named && slices.ContainsFunc(steps, func(s Step) bool { return onOpenPage[s.Tool] }) ||
		!urlNamed && slices.ContainsFunc(steps, func(s Step) bool { return onSomePage[s.Tool] })
	opened := slices.ContainsFunc(steps, func(s Step) bool { return s.Tool == "browser_navigate" }) // not back or forward
	if i := firstOnPage; i >= 0 && !opened && req.pages && !there {
		before(i, Step{Tool: "browser_navigate", Words: steps[i].Words})
	}
	if i := max(has("browser_fill_form"), has("browser_type")); i >= 0 && has("assert_") < 0 && has("browser_storage_state") < 0 && slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(loggingIn) }) {
		steps = append(steps, Step{Tool: "assert_url", Words: steps[i].Words})
	}
	return steps
}

// needless drops the steps a workflow gave that the request, read whole,
// does not need: a summary of reports it only keeps, a task list for a job
// it names, a call to an API it only quotes, the calls a swarm makes.
func needless(steps []Step, clauses []*clause) []Step {
	has := func(tool string) bool { return slices.ContainsFunc(steps, func(s Step) bool { return s.Tool == tool }) }
	drop := func(tool string) {
		steps = slices.DeleteFunc(steps, func(s Step) bool { return s.Tool == tool })
	}
	// A step checked by its kind (a type, a truth, a range) is not also
	// checked for equality: "make sure requiresPrescription comes back
	// truthy".
	steps = slices.DeleteFunc(steps, func(e Step) bool {
		c := clauseOf(clauses, e.Words)
		return e.Tool == "assert_equals" && c != nil && !c.has("<status>") && !c.hasAny(equalWords) &&
			alongside(steps, e, "assert_type", "assert_truthy", "assert_range")
	})
	// A call the gateway makes on several servers, or on the next when one
	// fails, is not also made by hand.
	if has("mcp_aggregate") || has("mcp_failover") {
		drop("tool_call")
	}
	// A route's answer written in the request is no generated data ("mock
	// the stock API so it returns lat 53.80").
	if has("browser_route") {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			c := clauseOf(clauses, s.Words)
			return s.Tool == "data_generate" && c != nil && !c.tokens[0].method && alongside(steps, s, "browser_route")
		})
	}
	// Inputs asked for to be used later ("I need XSS payloads to throw at
	// the review form") are only fetched.
	if has("data_edge_cases") {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			c := clauseOf(clauses, s.Words)
			return strings.HasPrefix(s.Tool, "browser_") && c != nil && len(c.tokens) > 0 && askFor[c.tokens[0].text] && c.hasAny(laterUse)
		})
	}
	// Where the request only says its tests or reports are ("history is
	// in .ci/history.json", "everything is under ./tests"), a tool of
	// tests or reports reads them itself.
	if slices.ContainsFunc(steps, func(s Step) bool { return strings.HasPrefix(s.Tool, "test_") || strings.HasPrefix(s.Tool, "report_") }) &&
		!has("assert_json_schema") && !has("json_validator") && !has("data_from_schema") {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			c := clauseOf(clauses, s.Words)
			return s.Tool == "fs_read" && c != nil && !asks(c)
		})
	}
	// Reports the request only says it keeps are what flakiness is found
	// from, not reports to summarise ("We keep the JUnit reports of the
	// last 30 runs in ./ci-history/. Which tests are flaky?").
	if has("test_flaky_detect") {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			c := clauseOf(clauses, s.Words)
			return (s.Tool == "report_summary" || s.Tool == "report_failures") && c != nil && !asks(c) && !c.hasAny(summaryWords)
		})
	}
	// A job the request submits, or names by number, is the one it
	// follows: no list to find it in.
	if has("task_submit") || slices.ContainsFunc(clauses, func(c *clause) bool { return c.has(jobNumber) }) {
		drop("task_list")
	}
	// An API named only as where a value came from is not called: the
	// request asks what its status code means, or pastes what it gave
	// ("what does the 429 the stock endpoint answers mean", "in this
	// response from /v2/titles/9, is copies an integer? {...}").
	calls := slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<method>") || c.hasAny(callWords) })
	meaning := has("http_status_info") && slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(meaningWords) })
	pasted := slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<twojson>") })
	if has("json_format") && !slices.ContainsFunc(clauses, func(c *clause) bool { return c.hasAny(schemaWords) }) {
		drop("json_validator") // "is this even valid json?": its syntax; a validator needs a schema
	}
	if has("http_status_info") && !meaning && has("assert_equals") && slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<api>") && c.has("<status>") }) {
		drop("http_status_info") // "/api/products/abc should be a 404": a status checked, not explained
	}
	if has("http_request") && (meaning || pasted || !calls && (has("http_status_info") || slices.ContainsFunc(clauses, func(c *clause) bool { return c.has("<json>") }))) {
		drop("http_request")
	}
	// Calls handed to a swarm the request names ("as one parallel swarm
	// over the workers") are the swarm's to make: its tasks name them.
	if has("swarm_run") {
		drop("http_request")
	}
	// A page the request says is open is not opened again, unless a step
	// names a page to go to ("the page is already open. Take a full-page
	// screenshot").
	if slices.ContainsFunc(clauses, func(c *clause) bool { return pageOpen(c) }) {
		steps = slices.DeleteFunc(steps, func(s Step) bool {
			c := clauseOf(clauses, s.Words)
			return s.Tool == "browser_navigate" && c != nil && !c.has("<page>") && !c.has("<path>") && !c.hasAny(openWords)
		})
	}
	return steps
}

// userDoes says whether a clause is a step the user says they take
// themselves: "I'll paste them into the promo box by hand".
func userDoes(c *clause) bool {
	return len(c.tokens) > 1 && (c.tokens[0].text == "i" || c.tokens[0].text == "we") && c.hasAny(byHand)
}

var (
	byHand = triggers(`by+hand myself ourselves manually later`)
	// askFor begin a request for something to use; laterUse say it is
	// used afterwards, by the user.
	askFor   = wordSet(`i need give get want`)
	laterUse = triggers(`to+throw to+paste to+hammer to+use going+to by+hand later manually`)
)

// newTab open a page in a tab of its own.
var newTab = triggers(`in+a+new+tab in+another+tab in+a+second+tab in+new+tab`)

// equalWords ask for equality.
var equalWords = triggers(`equal equals =same match matches`)

// nameUnknown say the request does not know a thing's name or id.
var nameUnknown = triggers(`don+remember dont+remember no+idea not+sure+what forgot forget+what can+remember what+it+called what+the+file`)

// alongside says whether steps give s's words one of tools too: the
// same step done by another tool.
func alongside(steps []Step, s Step, tools ...string) bool {
	return slices.ContainsFunc(steps, func(o Step) bool { return o.Words == s.Words && slices.Contains(tools, o.Tool) })
}

// takesPath says whether a tool reads the files it works on itself: a
// tool of files, pages, repositories, containers, jobs or hosted
// servers, or one with an argument for a path. A tool not here (yet) is
// taken to.
func takesPath(t *tool.Tool) bool {
	if t == nil || t.Input == nil || t.Name == "plan_read" || slices.ContainsFunc(ownFiles, func(p string) bool { return strings.HasPrefix(t.Name, p) }) {
		return true
	}
	for name := range t.Input.Properties {
		n := strings.ToLower(name)
		if pathArgs[n] || slices.ContainsFunc(pathEnds, func(e string) bool { return strings.HasSuffix(n, e) }) {
			return true
		}
	}
	return false
}

var (
	// ownFiles are the prefixes of tools that find their own files.
	ownFiles = []string{"fs_", "browser_", "gh_", "docker_", "compose_", "task_", "spawn_", "mcp_", "worker_", "dynamic_"}
	// pathArgs and pathEnds name an argument that is a path.
	pathArgs = map[string]bool{"cwd": true, "workdir": true, "root": true, "db": true, "template": true, "output": true, "backup": true, "dockerfile": true}
	pathEnds = []string{"path", "paths", "file", "files", "dir", "directory", "source", "sources", "file1", "file2"}
)

// clauseOf is the clause of words.
func clauseOf(clauses []*clause, words string) *clause {
	for _, c := range clauses {
		if c.words == words {
			return c
		}
	}
	return nil
}

// strongDB name a database; other database words (rows, columns) may be
// a page's.
// serviceWords name a compose stack's service, in a request about one.
var serviceWords = triggers(`service services container containers`)

// readyWords ask whether a stack's database is up yet ("wait till
// postgres is healthy").
var readyWords = triggers(`healthy ready up+yet accepting`)

// onPageAlready say the page is open already ("the /book page that's
// open now", "we are on /register already"): nothing is navigated to.
var onPageAlready = slices.DeleteFunc(triggers(alreadyOpen), func(t string) bool { return t == thatOpen })

// pageOpen says whether a clause says its page is open already: "the
// step that's open" (the lexer drops the 's), not "the menu that opens".
func pageOpen(c *clause) bool {
	n := len(c.tokens)
	return c.hasAny(onPageAlready) || c.has(thatOpen) && c.has("=open") ||
		n > 2 && c.tokens[n-1].text == "open" && (c.has("=have") || c.has("=got")) // "I have /menu open"
}

var thatOpen = search.Stem("that") + " " + search.Stem("open")

// placeWords name a page of the site by what it is.
var placeWords = triggers(`homepage home+page storefront checkout cart admin dashboard`)

// alreadyOpen say the page is open now: "the /book page that's open",
// "in the open tab", "with the basket page open", "this browser session".
const alreadyOpen = ` open+now already+open currently+open we+are+on already+on s+open is+open have+open open+right+now
	the+open+tab tab+that+open tab+thats+open page+that+open that+open the+open+page this+browser+session this+session this+page
	the+current+page we+on on+the+open page+open basket+open cart+open tab+open map+open list+open open+in+the+browser
	this+tab current+tab on+screen got+open i+on+the i+look+at just+popped in+the+browser+already browser+already`

// inSession say the browser session is open already ("the cookies of
// the current session"): its page is, unless the request names one.
var inSession = triggers(`current+session active+session`)

// openConnection say a database's connection is open already.
var openConnection = triggers(`already+connected already+open =existing alias connection+alias <namedconn>`)

// edits change a file in place; in a request about a repository, the
// file is the repository's.
var edits = triggers(`update edit change set fix bump modify`)

// squadWork hand work to a squad the request set up ("run the checks
// through it", "dispatch the audits to it").
var squadWork = triggers(`dispatch through+it through+the+squad as+that+squad as+the+squad to+it via+it with+it`)

// fromIt make data from what the request named before.
var fromIt = triggers(`from+it from+that from+this from+the+schema`)

// deleteIt remove what the request made ("and delete it again after").
var deleteIt = triggers(`delete+it remove+it drop+it delete+the+tool remove+the+tool`)

// onOpenPage are steps that work on a page open already.
var onOpenPage = map[string]bool{"browser_reload": true, "browser_navigate_back": true, "browser_navigate_forward": true, "browser_tabs": true}

// onSomePage are steps that work on a page open already when the request
// names no URL or path of one ("wait for the spinner to go away", "switch to the admin
// session").
var onSomePage = map[string]bool{"browser_session_switch": true, "browser_session_list": true, "browser_wait": true}

// validWords ask for a validation against a schema named elsewhere.
var validWords = triggers(`valid validate validates conform conforms against+it against+the+schema matches+it match+it respects`)

// jobNumber is a job named by its number.
var jobNumber = triggers(`job+<number>`)[0]

// writeIssue write an issue, a comment or a PR.
var writeIssue = triggers(`open create file raise comment post`)

// writtenText introduce the text of an issue, a comment or a PR.
var writtenText = triggers(`body steps titled title description saying =says text repro steps+to+reproduce`)

// summaryWords ask for a summary or an analysis of failures.
var summaryWords = triggers(`summary summarise summarize analysis analyse analyze overview`)

// meaningWords ask what something means.
var meaningWords = triggers(`mean means meaning`)

// schemaWords name a JSON Schema.
var schemaWords = triggers(`schema schemas`)

// callWords call an API.
var callWords = triggers(`call hit fetch curl send request post put patch query fire graphql`)

// stopWords end a recording.
var stopWords = triggers(`=stop stop+it stop+recording end+it`)

// tryIt run a tool just written.
var tryIt = triggers(tryItWords)

// reportFile says whether a clause names test reports kept as files.
func reportFile(c *clause) bool { return c.hasAny(localReports) && (c.has("<file>") || c.has("junit")) }

// localReports are test reports kept as files.
var localReports = triggers(`junit report reports result+files results+are+in xml history`)

// strongWeb are a page's own words; field, product or price may be a
// table's.
var strongWeb = triggers(`<selector> <page> page pages site website browser button buttons link click tap screenshot tab form modal dialog popup viewport cookie cookies localstorage sessionstorage console`)

var strongDB = triggers(`database db table tables sql migration migrations seed transaction <sqlfile>` + rowLookup)

// rowLookup name a table's row or column looked for ("has a row for",
// orders.status='paid'): a database's, in a request about pages too.
const rowLookup = ` <column> has+a+row row+for row+in rows+for row+was+created a+row+for`

var loggingIn = triggers(loginWords)

// isPageStep: the tool works on an open page.
func isPageStep(name string) bool {
	switch {
	case name == "browser_navigate", name == "browser_start_tracing", name == "browser_session_new", name == "browser_session_switch", name == "browser_resize":
		return false
	case strings.HasPrefix(name, "browser_"), strings.HasPrefix(name, "assert_") && !slices.Contains(dataAsserts, name), name == "accessibility_audit":
		return true
	}
	return false
}

// dataAsserts check values, not pages.
var dataAsserts = []string{"assert_equals", "assert_contains", "assert_truthy", "assert_type", "assert_range", "assert_json_schema"}

// dedupe keeps each tool's first step, except that a step repeated with
// other words (a second click) stays when its words differ.
func dedupe(steps []Step) []Step {
	var out []Step
	for _, s := range steps {
		if !slices.ContainsFunc(out, func(o Step) bool { return o.Tool == s.Tool && (o.Words == s.Words || !repeatable[s.Tool]) }) {
			out = append(out, s)
		}
	}
	return out
}

// repeatable are tools a flow calls again in a later step.
var repeatable = map[string]bool{"browser_click": true, "browser_type": true, "browser_screenshot": true, "assert_visible": true, "assert_text": true}
