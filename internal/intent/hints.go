package intent

import (
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Argument hints: what a request says that a step's tool takes, under the
// tool's own argument names. A hint is a value found in the words (a URL,
// a quoted text, a count, a file, an element named "the Save button"),
// never one made up; a tool of this server gets only the arguments its
// schema has.

// found is what one step's words hold.
type found struct {
	links, paths, files, quoted, repos []string
	count                              int
	countOp                            string // equals, min, max
	selector                           string
	sizes                              []map[string]any
	method                             string
	status                             int
	number                             int // of a pull request or an issue
	ms                                 int
	table, key, keyPattern, pressKey   string
	container                          string // "the qa-mailpit container", "stop bb-old-pg"
	fullPage                           bool
	width                              int // "375 px wide"
}

// Window sizes by their common names: Playwright's default viewport and
// its "iPhone 13" and "iPad Mini" devices.
var namedSizes = map[string][2]int{"desktop": {1280, 720}, "mobile": {390, 844}, "phone": {390, 844}, "tablet": {768, 1024}}

// elementRoles are the nouns that name an element's ARIA role.
var elementRoles = map[string]string{"button": "button", "link": "link", "field": "textbox", "input": "textbox", "textbox": "textbox",
	"box": "textbox", "dropdown": "combobox", "checkbox": "checkbox", "tab": "tab", "heading": "heading", "menu": "menu"}

var keyNames = map[string]string{"enter": "Enter", "escape": "Escape", "esc": "Escape", "tab": "Tab", "space": "Space", "backspace": "Backspace"}

func find(c *clause) found {
	var f found
	toks := c.tokens
	for i, t := range toks {
		prev := func(k int) token {
			if i-k >= 0 {
				return toks[i-k]
			}
			return token{kind: punct}
		}
		nextTok := func(k int) token {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return token{kind: punct}
		}
		switch t.kind {
		case link:
			if !strings.Contains(t.text, "://") {
				scheme := "https://"
				if localHost.MatchString(strings.ToLower(t.text)) {
					scheme = "http://"
				}
				t.text = scheme + t.text
			}
			f.links = append(f.links, t.text)
		case urlPath:
			f.paths = append(f.paths, t.text)
		case file:
			f.files = append(f.files, t.text)
		case repoRef:
			f.repos = append(f.repos, t.text)
		case quoted:
			f.quoted = append(f.quoted, t.text)
		case selector:
			if f.selector == "" {
				f.selector = t.text
			}
		case number:
			n := nextTok(1)
			switch p := prev(1).text; {
			case t.num >= 100 && t.num <= 599 && t.raw != "#" && (returnWords[p] || statusBefore[p] || prev(2).text == "status"):
				if f.status == 0 || !(p == "not" || prev(2).text == "not") {
					f.status = t.num // "returns 200", "must be 200", "answers 404"; not the one after "not"
				}
			case p == "request" && prev(2).text == "pull" || p == "pr" || p == "issue" || t.raw == "#":
				f.number = t.num
			case (n.text == "px" || n.text == "pixels") && (nextTok(2).text == "wide" || p == "width" || prev(2).text == "width"):
				f.width = t.num // "at 375 px wide": a viewport's width
			case n.kind == word && (n.stem == "second" || n.stem == "millisecond" || n.text == "ms"):
				f.ms = t.num
				if n.stem == "second" {
					f.ms *= 1000
				}
			case n.kind == word && f.count == 0:
				f.count, f.countOp = t.num, "equals"
				switch {
				case prev(2).text == "at" && p == "least":
					f.countOp = "min"
				case prev(2).text == "at" && p == "most":
					f.countOp = "max"
				}
			}
		case word:
			if wh, ok := namedSizes[t.text]; ok {
				f.sizes = append(f.sizes, map[string]any{"width": wh[0], "height": wh[1]})
			} else if m := search.WindowSize.FindStringSubmatch(t.text); m != nil {
				w, _ := strconv.Atoi(m[1])
				h, _ := strconv.Atoi(m[2])
				f.sizes = append(f.sizes, map[string]any{"width": w, "height": h})
			}
			switch {
			case t.method:
				f.method = strings.ToUpper(t.text)
			case t.text == "press" || t.text == "hit":
				if k, ok := keyNames[nextTok(1).text]; ok {
					f.pressKey = k
				}
			case t.text == "full" && nextTok(1).text == "page", t.text == "whole" && nextTok(1).text == "page":
				f.fullPage = true
			case t.text == "table" && f.table == "":
				if p := prev(1); p.kind == word && !stopNoun[p.text] {
					f.table = p.raw
				} else if n := nextTok(1); n.kind == word || n.kind == quoted {
					f.table = n.written()
				}
			case t.text == "container" && f.container == "":
				if p := prev(1); p.kind == word && !stopNoun[p.text] && !containerVerbs[p.text] {
					f.container = p.raw
				}
			case hyphenName.MatchString(t.raw) && f.container == "" && afterContainerVerb(toks[:i]):
				f.container = t.raw
			case t.text == "key" && f.key == "":
				if n := nextTok(1); n.kind == word || n.kind == quoted {
					f.key = n.written()
				}
			case (t.text == "start" || t.text == "starting" || t.text == "begin") && nextTok(1).text == "with":
				if n := nextTok(2); n.kind == word || n.kind == quoted {
					f.keyPattern = n.written() + "*"
				}
			}
			if role, ok := elementRoles[t.text]; ok && f.selector == "" {
				f.selector = elementSelector(toks[:i], role, t.text)
			}
		}
	}
	if f.width > 0 {
		// A width in pixels says the size; a named one beside it names
		// something else ("at 375 px wide ... the desktop navigation").
		f.sizes = []map[string]any{{"width": f.width, "height": heightFor(f.width)}}
	}
	return f
}

// heightFor is a viewport's height for a width given alone: a phone's,
// a tablet's, else a laptop's.
func heightFor(width int) int {
	switch {
	case width <= 480:
		return namedSizes["phone"][1]
	case width <= 1024:
		return namedSizes["tablet"][1]
	}
	return 800
}

// written is a token as the request wrote it.
func (t token) written() string {
	if t.kind == word {
		return t.raw
	}
	return t.text
}

var returnWords = wordSet(`return returns returned respond responds status code with`)

// stopNoun are words before "table" that are not its name.
var stopNoun = wordSet(`the a this that same whole`)

// elementSelector is a Playwright selector for "the Settings link", "the
// 'Save' button", "the country dropdown": the element's role and the words
// before it as its accessible name; "" when there are none.
func elementSelector(before []token, role, noun string) string {
	var name []string
	for j := len(before) - 1; j >= 0 && len(name) < 4; j-- {
		t := before[j]
		if t.kind == quoted {
			name = append([]string{t.text}, name...)
			continue
		}
		if t.kind != word || stopNoun[t.text] || stepStarters[t.text] || t.text == "on" || t.text == "into" || t.text == "in" || t.text == "of" || t.text == "from" || t.text == "over" {
			break
		}
		name = append([]string{t.raw}, name...)
	}
	if noun == "box" && len(name) > 0 && strings.EqualFold(name[len(name)-1], "search") {
		role = "searchbox"
	}
	if len(name) == 0 {
		return ""
	}
	return `role=` + role + `[name="` + strings.ReplaceAll(strings.Join(name, " "), `"`, `\"`) + `"i]`
}

// hint sets each step's arguments from its words.
func hint(steps []Step, clauses []*clause, tools map[string]*tool.Tool, whole string) {
	byWords := map[string]found{}
	for _, c := range clauses {
		byWords[c.words] = find(c)
	}
	for i := range steps {
		s := &steps[i]
		f := byWords[s.Words]
		args := map[string]any{}
		set := func(k string, v any) {
			switch v := v.(type) {
			case string:
				if v == "" {
					return
				}
			case int:
				if v == 0 {
					return
				}
			case bool:
				if !v {
					return
				}
			}
			args[k] = v
		}
		first := func(l []string) string {
			if len(l) > 0 {
				return l[0]
			}
			return ""
		}
		url := first(f.links)
		switch s.Tool {
		case "browser_navigate", "browser_session_new", "http_request", "browser_tabs":
			if url == "" {
				url = first(f.paths)
			}
			set("url", url)
			if s.Tool == "http_request" {
				set("method", f.method)
			}
			if s.Tool == "browser_tabs" && url != "" {
				set("action", "new") // a tab that opens the URL
			}
			if len(f.links) > 1 {
				delete(args, "url")
				for _, l := range f.links {
					s.Each = append(s.Each, map[string]any{"url": l})
				}
			}
		case "browser_resize":
			if len(f.sizes) == 1 {
				args = f.sizes[0]
			} else if len(f.sizes) > 1 {
				s.Each = f.sizes
			}
		case "browser_screenshot":
			set("fullPage", f.fullPage)
			for _, p := range f.files {
				if strings.HasSuffix(p, ".png") || strings.HasSuffix(p, ".jpeg") || strings.HasSuffix(p, ".jpg") {
					set("savePath", p)
				}
			}
		case "docker_stop", "docker_rm", "docker_logs", "docker_exec":
			set("container", f.container)
		case "docker_inspect":
			set("target", f.container)
		case "browser_pdf_save":
			set("path", first(f.files))
		case "browser_file_upload":
			set("selector", f.selector)
			if len(f.files) > 0 {
				args["files"] = f.files
			}
		case "browser_type":
			set("selector", f.selector)
			set("text", first(f.quoted))
		case "browser_select_option":
			set("selector", f.selector)
			set("label", first(f.quoted))
		case "browser_press_key":
			set("key", f.pressKey)
		case "assert_text", "assert_title":
			set("selector", f.selector)
			set("expected", first(f.quoted))
		case "assert_url":
			if url == "" {
				url = first(f.paths)
			}
			set("expected", url)
		case "assert_count":
			set("selector", f.selector)
			if f.count > 0 {
				args[f.countOp] = f.count
			}
		case "assert_equals":
			set("expected", f.status)
		case "wait_ms":
			set("ms", f.ms)
		case "data_generate", "data_from_schema":
			set("count", f.count)
		case "fs_diff":
			if len(f.files) >= 2 {
				args["file1"], args["file2"] = f.files[0], f.files[1]
			}
		case "fs_copy", "fs_move":
			if len(f.files) >= 2 {
				args["source"], args["destination"] = f.files[0], f.files[1]
			}
		case "fs_unzip", "fs_zip", "fs_backup":
			set("source", first(f.files))
		case "db_sqlite_open":
			for _, t := range clauses {
				for _, tk := range t.tokens {
					if tk.kind == file && dbFile.MatchString(tk.text) {
						set("path", tk.text)
					}
				}
			}
		case "db_redis_keys":
			set("pattern", f.keyPattern)
		case "spawn_agent":
			set("prompt", whole)
			if strings.Contains(strings.ToLower(whole), "pull request") || prWord(clauses) {
				args["pr"] = true
			}
		case "gh_pr_merge", "gh_pr_review":
			set("pullNumber", f.number)
		case "gh_issue_comment":
			set("issueNumber", f.number)
		default:
			set("selector", f.selector)
			set("url", url)
			set("path", first(f.files))
			set("table", f.table)
			set("key", f.key)
		}
		if strings.HasPrefix(s.Tool, "gh_") {
			if r := first(f.repos); r != "" {
				args["owner"], args["repo"], _ = strings.Cut(r, "/")
			}
		}
		if t, ok := tools[s.Tool]; ok && t.Input != nil {
			for k := range args {
				if _, ok := t.Input.Properties[k]; !ok {
					delete(args, k)
				}
			}
		}
		if len(args) > 0 {
			s.Args = args
		}
	}
}

// prWord: the request asks for a pull request ("open a PR").
func prWord(clauses []*clause) bool {
	for _, c := range clauses {
		if c.has("pr") || c.has("pull request") {
			return true
		}
	}
	return false
}
