package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

func consoleMessages() tool.Tool {
	type args struct {
		Clear  bool   `json:"clear"`
		Filter string `json:"filter"`
		Type   string `json:"type"`
	}
	return tool.Tool{
		Def: def("browser_console_messages", "The tab's console messages and uncaught exceptions, oldest first (the last 1000). Returns {messages, count}.", false,
			schema.Object(schema.Boolean("clear", "Forget them after reading").Default(false),
				schema.String("filter", "Only messages containing this text"),
				schema.String("type", "Only this type: log, info, warning, error, debug, exception"))).
			WithPhrases("js errors", "console.log output", "unhandled promise rejection", "console.error", "javascript errors on page", "console warnings", "devtools console", "console output", "warnings the app logged"),
		Run: pageRun(func(_ context.Context, p *browser.Page, in args) (any, error) {
			var out []browser.ConsoleMessage
			for _, m := range p.Console() {
				if in.Filter != "" && !strings.Contains(m.Text, in.Filter) || in.Type != "" && m.Type != in.Type {
					continue
				}
				out = append(out, m)
			}
			if in.Clear {
				p.ClearConsole()
			}
			if out == nil {
				out = []browser.ConsoleMessage{}
			}
			return map[string]any{"messages": out, "count": len(out)}, nil
		}),
	}
}

func networkRequests() tool.Tool {
	type args struct {
		Start        bool   `json:"start"`
		Stop         bool   `json:"stop"`
		Clear        bool   `json:"clear"`
		Filter       string `json:"filter"`
		Method       string `json:"method"`
		Status       int64  `json:"status"`
		ResourceType string `json:"resourceType"`
		HARPath      string `json:"harPath"`
	}
	d := def("browser_network_requests", "The tab's network requests (recorded from the tab's start, the last 1000): method, url, type, status, duration, failure, and mocked for those a browser_route answered. "+
		"stop pauses the recording, start resumes it, clear forgets; harPath also writes them as a HAR 1.2 file (bodies included where the browser still holds them), which Playwright's routeFromHAR replays. "+
		"Returns {requests, count, har: {path, entries, bytes}}.", false,
		schema.Object(schema.Boolean("start", "Resume recording").Default(false), schema.Boolean("stop", "Pause recording").Default(false),
			schema.Boolean("clear", "Forget the requests after reading").Default(false),
			schema.String("filter", "Only URLs containing this text"), schema.String("method", "Only this method (GET, POST, ...)"),
			schema.Integer("status", "Only this status (404, ...)"), schema.String("resourceType", "Only this type: Document, Script, XHR, Fetch, Image, Stylesheet, ..."),
			schema.String("harPath", "Also write the requests (those the filters keep) as HAR 1.2 to this file: relative to the server's working directory, inside the allowed roots (e.g. \"network.har\")"))).
		WithPhrases("xhr calls", "failed requests", "api calls made by page", "which calls did the page make", "network tab", "network log", "404 resources", "fetch requests", "http traffic of page", "requests fired on submit", "request durations", "how long xhr calls took",
			"save har file", "export network as har", "record har for routeFromHAR", "which requests were mocked")
	d.UsesRoots = true
	return tool.Tool{
		Def: d,
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Start {
				p.SetRecording(true)
			}
			if in.Stop {
				p.SetRecording(false)
			}
			keep := func(r browser.Request) bool {
				return !(in.Filter != "" && !strings.Contains(r.URL, in.Filter) || in.Method != "" && !strings.EqualFold(r.Method, in.Method) ||
					in.Status != 0 && r.Status != in.Status || in.ResourceType != "" && !strings.EqualFold(r.ResourceType, in.ResourceType))
			}
			out := []browser.Request{}
			for _, r := range p.Requests() {
				if keep(r) {
					out = append(out, r)
				}
			}
			res := map[string]any{"requests": out, "count": len(out)}
			if in.HARPath != "" {
				har, n, err := p.HAR(ctx, keep)
				if err != nil {
					return nil, err
				}
				path, err := fs.WriteFile(ctx, "harPath", in.HARPath, har)
				if err != nil {
					return nil, err
				}
				res["har"] = map[string]any{"path": path, "entries": n, "bytes": len(har)}
			}
			if in.Clear {
				p.ClearRequests()
			}
			return res, nil
		}),
	}
}

// positionArg is a point inside an element, from its top-left corner.
func positionArg(name, desc string) schema.Prop {
	return schema.Of(name, desc+" ({x, y} in CSS pixels from the element's top-left corner; default its centre)", schema.Object(
		schema.Number("x", "Pixels from the element's left edge").Required().Min(0),
		schema.Number("y", "Pixels from the element's top edge").Required().Min(0)))
}

func hover() tool.Tool {
	type args struct {
		Selector string         `json:"selector"`
		Position *browser.Point `json:"position"`
		SelfHeal bool           `json:"selfHeal"`
		Timeout  *int64         `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_hover", "Move the mouse over an element (menus, tooltips). Returns {selector, matched}.", true,
			schema.Object(selectorArg(true), positionArg("position", "Where in the element"), healArg(), timeoutArg())).
			WithPhrases("reveal hidden menu", "hover menu", "show tooltip", "mouseover", "dropdown on hover", "hover state"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			pr, err := p.Hover(ctx, in.Selector, in.Position, findOpts(in.Timeout, in.SelfHeal))
			if err != nil {
				return nil, err
			}
			return located(p, ctx, in.Selector, pr), nil
		}),
	}
}

func drag() tool.Tool {
	type args struct {
		Source         string         `json:"source"`
		Target         string         `json:"target"`
		SourcePosition *browser.Point `json:"sourcePosition"`
		TargetPosition *browser.Point `json:"targetPosition"`
		Timeout        *int64         `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_drag", "Drag one element onto another with the mouse (HTML5 drag and drop included). Returns {source, target}.", true,
			schema.Object(schema.String("source", "Element to drag (a selector)").Required().Min(1), schema.String("target", "Element to drop on (a selector)").Required().Min(1),
				positionArg("sourcePosition", "Where to grab the source"), positionArg("targetPosition", "Where to drop on the target"), timeoutArg())).
			WithPhrases("drag & drop", "dnd", "drop target", "reorder list", "sortable list", "move card to another column"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.DragElements(ctx, in.Source, in.Target, in.SourcePosition, in.TargetPosition, findOpts(in.Timeout, false)); err != nil {
				return nil, err
			}
			out := map[string]any{"source": in.Source, "target": in.Target}
			if d := p.PendingDialog(); d != nil {
				out["dialog"] = d
			}
			return out, nil
		}),
	}
}

func selectOption() tool.Tool {
	type args struct {
		Selector string   `json:"selector"`
		Value    *string  `json:"value"`
		Label    *string  `json:"label"`
		Index    *int     `json:"index"`
		Values   []string `json:"values"`
		Timeout  *int64   `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_select_option", "Choose options of a <select> by value, label, index, or several values (multiple). Fires input and change. Returns {selected: [values]}.", true,
			schema.Object(selectorArg(true), schema.String("value", "Option value"), schema.String("label", "Option's visible text"),
				schema.Integer("index", "Option index (0 first)").Min(0), schema.Array("values", "Several values, for a multiple select", schema.StringItems()), timeoutArg())).
			WithPhrases("pick from dropdown", "choose dropdown value", "select menu", "combobox choice", "multi select", "select element option", "choose a value in the list"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			o := findOpts(in.Timeout, false)
			o.Actionable = true
			pr, err := p.Find(ctx, in.Selector, o)
			if err != nil {
				return nil, err
			}
			want := map[string]any{}
			switch {
			case len(in.Values) > 0:
				want["values"] = in.Values
			case in.Value != nil:
				want["values"] = []string{*in.Value}
			case in.Label != nil:
				want["label"] = *in.Label
			case in.Index != nil:
				want["index"] = *in.Index
			default:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "browser_select_option needs value, label, index or values")
			}
			raw, err := p.Evaluate(ctx, `(w) => { const el = window.__bh.pick(`+jsq(pr.Matched)+`);
				if (el.tagName !== 'SELECT') return {error: 'the element is a ' + el.tagName.toLowerCase() + ', not a select'};
				const opts = [...el.options]; let hit = [];
				if (w.values) hit = opts.filter((o) => w.values.includes(o.value));
				else if (w.label !== undefined) hit = opts.filter((o) => o.text.trim() === w.label);
				else hit = opts.filter((o, i) => i === w.index);
				if (!hit.length) return {error: 'no option matches; options: ' + opts.map((o) => JSON.stringify(o.value) + ' (' + o.text.trim() + ')').join(', ')};
				for (const o of opts) o.selected = hit.includes(o);
				el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true}));
				return {selected: hit.map((o) => o.value)}; }`, []byte(toJSON(want)))
			if err != nil {
				return nil, err
			}
			if e := errorField(raw); e != "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "browser_select_option %s: %s", in.Selector, e)
			}
			return raw, nil
		}),
	}
}

func fileUpload() tool.Tool {
	type args struct {
		Selector string   `json:"selector"`
		Files    []string `json:"files"`
		Timeout  *int64   `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_file_upload", "Choose files in an <input type=\"file\"> (absolute paths on the server's machine). Returns {selector, files}.", true,
			schema.Object(selectorArg(true), schema.Array("files", "Paths of the files", schema.StringItems()).Required().Min(1), timeoutArg())).
			WithPhrases("upload a file", "attach file", "input type file", "upload avatar image", "attach document to form", "setInputFiles"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			abs := make([]string, len(in.Files))
			for i, f := range in.Files {
				a, err := filepath.Abs(f)
				if err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "file %q: %v", f, err)
				}
				if st, err := os.Stat(a); err != nil || st.IsDir() {
					return nil, tool.Errorf(tool.CodeNotFound, "file %s: not a readable file", a)
				}
				abs[i] = a
			}
			pr, err := p.SetFiles(ctx, in.Selector, abs, findOpts(in.Timeout, false))
			if err != nil {
				return nil, err
			}
			out := located(p, ctx, in.Selector, pr)
			out["files"] = abs
			return out, nil
		}),
	}
}

func handleDialog() tool.Tool {
	type args struct {
		Action      string `json:"action"`
		PromptText  string `json:"promptText"`
		AutoRespond *bool  `json:"autoRespond"`
		Timeout     int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_handle_dialog", "Answer JavaScript dialogs (alert, confirm, prompt). By default every dialog is dismissed as it opens and recorded. "+
			"action accept or dismiss answers an open dialog (waiting up to timeout for one); with autoRespond true it also becomes the answer to future dialogs, "+
			"with autoRespond false future dialogs stay open for a later call. Returns {answered, dialogs}.", true,
			schema.Object(schema.String("action", "How to answer").Enum("accept", "dismiss").Required(),
				schema.String("promptText", "Text for a prompt dialog (with accept)"),
				schema.Boolean("autoRespond", "Answer future dialogs this way (true), or leave them open (false)"),
				schema.Integer("timeout", "Milliseconds to wait for a dialog to open").Default(0).Min(0).Max(60_000))).
			WithPhrases("accept alert", "dismiss confirm", "window.alert", "popup dialog", "answer prompt", "confirm box ok cancel", "alert blocking page"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.AutoRespond != nil {
				pol := browser.DialogPolicy{}
				if *in.AutoRespond {
					pol = browser.DialogPolicy{Action: in.Action, PromptText: in.PromptText}
				}
				p.SetDialogPolicy(pol)
			}
			d, err := p.AnswerDialog(ctx, in.Action == "accept", in.PromptText, time.Duration(in.Timeout)*time.Millisecond)
			if err != nil {
				return nil, err
			}
			seen, _ := p.Dialogs()
			out := map[string]any{"dialogs": seen}
			if d != nil {
				out["answered"] = d
			} else {
				out["answered"] = nil
				out["note"] = noDialogNote(seen, p.DialogPolicy(), in.AutoRespond != nil, in.Action)
			}
			return out, nil
		}),
	}
}

// fieldError names the field of browser_fill_form an error is about,
// keeping the error's code (once).
func fieldError(i int, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return tool.Errorf(te.Code, "field %d: %s", i+1, te.Message)
	}
	return fmt.Errorf("field %d: %w", i+1, err)
}

// noDialogNote says what a browser_handle_dialog call that found no open
// dialog did, and how to answer the next one: a dialog is answered as it
// opens, by the standing rule, before a call made after the action.
func noDialogNote(seen []browser.Dialog, pol browser.DialogPolicy, ruleSet bool, action string) string {
	done := map[string]string{"accept": "accepted", "dismiss": "dismissed"}
	note := "no dialog was open, so none was answered"
	if n := len(seen); n > 0 {
		note += fmt.Sprintf(" (the last, %s %q, was %s)", seen[n-1].Type, seen[n-1].Message, seen[n-1].Answered)
	}
	switch {
	case pol.Action == "":
		if ruleSet {
			return note + "; from now on a dialog stays open until this tool answers it: call it after the action that opens one"
		}
		return note + "; dialogs stay open until this tool answers them: call it after the action that opens one"
	case ruleSet:
		return note + fmt.Sprintf("; from now on dialogs are %s as they open", done[pol.Action])
	}
	if action == pol.Action {
		return note + fmt.Sprintf("; dialogs are %s as they open already", done[pol.Action])
	}
	return note + fmt.Sprintf("; dialogs are %s as they open: to %s the next ones, call this tool with autoRespond: true before the action that opens them, "+
		"or with autoRespond: false to answer each one yourself after it opens", done[pol.Action], action)
}

func fillForm() tool.Tool {
	type field struct {
		Selector string `json:"selector"`
		Value    any    `json:"value"`
		Type     string `json:"type"`
	}
	type args struct {
		Fields  []field `json:"fields"`
		Submit  string  `json:"submit"`
		Timeout *int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_fill_form", "Fill several fields at once: text inputs are typed, selects chosen, checkboxes and radios set to the boolean value; then optionally click submit. Returns {filled, submitted}.", true,
			schema.Object(schema.Array("fields", "The fields", schema.ObjectItems(
				schema.String("selector", "The field (a selector)").Required().Min(1),
				schema.Any("value", "Text, an option value, or true/false for a checkbox").Types("string", "number", "boolean").Required(),
				schema.String("type", "text (default), select, checkbox or radio; guessed from the element when omitted"),
			)).Required().Min(1),
				schema.String("submit", "A selector to click once filled (the submit button)"), timeoutArg())).
			WithPhrases("fill out form", "fill in login form", "complete signup form", "check checkbox", "choose radio option", "many fields at once", "submit form", "whole form in one go"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			o := findOpts(in.Timeout, false)
			for i, f := range in.Fields {
				o.Actionable = true
				pr, err := p.Find(ctx, f.Selector, o)
				if err != nil {
					return nil, fieldError(i, err)
				}
				raw, err := p.Evaluate(ctx, `(v) => { let el = window.__bh.pick(`+jsq(pr.Matched)+`); if (el.tagName === 'LABEL' && el.control) el = el.control; const t = (el.type || '').toLowerCase();
					if (el.tagName === 'SELECT') { const o = [...el.options].find((o) => o.value === String(v) || o.text.trim() === String(v)); if (!o) return {error: 'no option ' + JSON.stringify(v)}; el.value = o.value; }
					else if (t === 'checkbox' || t === 'radio') { const want = v === true || v === 'true' || v === 'on'; if (el.checked !== want) el.click(); return {kind: t}; }
					else return {kind: 'text'};
					el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return {kind: 'select'}; }`, []byte(toJSON(f.Value)))
				if err != nil {
					return nil, err
				}
				if e := errorField(raw); e != "" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "field %d (%s): %s", i+1, f.Selector, e)
				}
				if strings.Contains(string(raw), `"text"`) {
					if _, err := p.Type(ctx, pr.Matched, fmt.Sprint(f.Value), true, false, o); err != nil {
						return nil, fieldError(i, err)
					}
				}
			}
			out := map[string]any{"filled": len(in.Fields), "submitted": false}
			if in.Submit != "" {
				if _, err := p.Click(ctx, in.Submit, browser.ClickOptions{FindOptions: o}); err != nil {
					return nil, err
				}
				out["submitted"] = true
			}
			return out, nil
		}),
	}
}

func resize() tool.Tool {
	type args struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	}
	return tool.Tool{
		Def: def("browser_resize", "Set the viewport's size (responsive checks). Returns {width, height}.", true,
			schema.Object(schema.Integer("width", "Width in CSS pixels").Required().Min(100).Max(7680), schema.Integer("height", "Height in CSS pixels").Required().Min(100).Max(4320))).
			WithPhrases("viewport size", "mobile view", "responsive testing", "screen resolution", "window size", "tablet breakpoint", "emulate phone width", "resize browser window", "window width and height", "make the viewport", "browser window width by height"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.Resize(ctx, in.Width, in.Height); err != nil {
				return nil, err
			}
			return map[string]any{"width": in.Width, "height": in.Height}, nil
		}),
	}
}

func tabs() tool.Tool {
	type args struct {
		Action string `json:"action"`
		URL    string `json:"url"`
		Index  *int   `json:"index"`
	}
	return tool.Tool{
		Def: def("browser_tabs", "Tabs of the active session: list; new (optionally opening url); select index; close index (tab 0 holds the session). A page a tab opens itself (window.open, a target=_blank link) is a tab too, with the session's routes and emulation. Returns {tabs}.", true,
			schema.Object(schema.String("action", "What to do").Enum("list", "new", "select", "close").Required(),
				schema.String("url", "Address for a new tab"), schema.Integer("index", "Tab index (select, close)").Min(0))).
			WithPhrases("new tab", "switch tab", "open in new tab", "list open tabs", "close tab", "multiple tabs", "popup opens a tab", "which tabs are open"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			b, err := browser.Get(ctx, call.Resources)
			if err != nil {
				return nil, err
			}
			needIndex := func() (int, error) {
				if in.Index == nil {
					return 0, tool.Errorf(tool.CodeInvalidArgs, "argument \"index\": action %s needs the tab's index (browser_tabs {action: \"list\"} shows them)", in.Action)
				}
				return *in.Index, nil
			}
			switch in.Action {
			case "new":
				p, _, err := b.NewTab(ctx)
				if err != nil {
					return nil, err
				}
				if in.URL != "" {
					if _, err := p.Navigate(ctx, in.URL); err != nil {
						return nil, err
					}
				}
			case "select":
				i, err := needIndex()
				if err == nil {
					err = b.SelectTab(i)
				}
				if err != nil {
					return nil, err
				}
			case "close":
				i, err := needIndex()
				var closed string
				if err == nil {
					if tabs := b.ListTabs(ctx); i < len(tabs) {
						closed = tabs[i].Var
					}
					err = b.CloseTab(i)
				}
				if err != nil {
					return nil, err
				}
				return map[string]any{"tabs": b.ListTabs(ctx), "closed": closed}, nil
			}
			return map[string]any{"tabs": b.ListTabs(ctx)}, nil
		}),
	}
}

func pdfSave() tool.Tool {
	type args struct {
		Path            string `json:"path"`
		Format          string `json:"format"`
		Landscape       bool   `json:"landscape"`
		PrintBackground bool   `json:"printBackground"`
	}
	return tool.Tool{
		Def: def("browser_pdf_save", "Print the page to a PDF file under tools.screenshotDir. Returns {path, bytes}.", true,
			schema.Object(schema.String("path", "File name, relative to tools.screenshotDir (e.g. \"report.pdf\")").Required().Min(1),
				schema.String("format", "Paper").Enum("A4", "Letter", "Legal").Default("A4"),
				schema.Boolean("landscape", "Landscape orientation").Default(false), schema.Boolean("printBackground", "Print backgrounds").Default(false))).
			WithPhrases("print to pdf", "export page as pdf", "save pdf", "page to pdf", "printable report", "download page as pdf"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			path, err := outputPath("path", in.Path)
			if err != nil {
				return nil, err
			}
			buf, err := p.PDF(ctx, in.Landscape, in.PrintBackground, in.Format)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, buf, 0o644); err != nil {
				return nil, tool.Errorf(tool.CodeToolError, "write %s: %v", path, err)
			}
			return map[string]any{"path": path, "bytes": len(buf)}, nil
		}),
	}
}

func mouseMove() tool.Tool {
	type args struct {
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Steps int     `json:"steps"`
	}
	return tool.Tool{
		Def: def("browser_mouse_move", "Move the mouse to viewport coordinates. Returns {x, y}.", true,
			schema.Object(schema.Number("x", "Viewport x").Required(), schema.Number("y", "Viewport y").Required(), schema.Integer("steps", "Intermediate moves").Default(1).Min(1).Max(100))).
			WithPhrases("move cursor", "pointer to coordinates", "mouse position", "cursor to x y", "mousemove", "position the cursor", "cursor over canvas", "bring the mouse to a point without clicking"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.MouseMoveSteps(ctx, in.X, in.Y, in.Steps); err != nil {
				return nil, err
			}
			return map[string]any{"x": in.X, "y": in.Y}, nil
		}),
	}
}

func mouseClick() tool.Tool {
	type args struct {
		X          float64 `json:"x"`
		Y          float64 `json:"y"`
		Button     string  `json:"button"`
		ClickCount int     `json:"clickCount"`
	}
	return tool.Tool{
		Def: def("browser_mouse_click", "Click at viewport coordinates. Returns {x, y}.", true,
			schema.Object(schema.Number("x", "Viewport x").Required(), schema.Number("y", "Viewport y").Required(),
				schema.String("button", "Mouse button").Enum("left", "right", "middle").Default("left"), schema.Integer("clickCount", "2 for a double click").Default(1).Min(1).Max(3))).
			WithPhrases("click coordinates", "click at pixel", "click x y", "canvas click", "click point on screen", "click at a position"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.ClickXY(ctx, in.X, in.Y, in.Button, in.ClickCount); err != nil {
				return nil, err
			}
			return map[string]any{"x": in.X, "y": in.Y}, nil
		}),
	}
}

func mouseDrag() tool.Tool {
	type args struct {
		FromX float64 `json:"fromX"`
		FromY float64 `json:"fromY"`
		ToX   float64 `json:"toX"`
		ToY   float64 `json:"toY"`
		Steps int     `json:"steps"`
	}
	return tool.Tool{
		Def: def("browser_mouse_drag", "Press at one point, move to another and release. Returns {from, to}.", true,
			schema.Object(schema.Number("fromX", "Start x").Required(), schema.Number("fromY", "Start y").Required(),
				schema.Number("toX", "End x").Required(), schema.Number("toY", "End y").Required(), schema.Integer("steps", "Intermediate moves").Default(10).Min(1).Max(100))).
			WithPhrases("drag by coordinates", "draw on canvas", "slider drag", "drag from point to point", "swipe gesture", "select region with mouse", "press the mouse, drag and release"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.Drag(ctx, in.FromX, in.FromY, in.ToX, in.ToY, in.Steps); err != nil {
				return nil, err
			}
			return map[string]any{"from": []float64{in.FromX, in.FromY}, "to": []float64{in.ToX, in.ToY}}, nil
		}),
	}
}

func mouseWheel() tool.Tool {
	type args struct {
		DeltaX float64 `json:"deltaX"`
		DeltaY float64 `json:"deltaY"`
	}
	return tool.Tool{
		Def: def("browser_mouse_wheel", "Turn the mouse wheel (positive deltaY scrolls down). Returns {deltaX, deltaY}.", true,
			schema.Object(schema.Number("deltaX", "Horizontal pixels").Default(0), schema.Number("deltaY", "Vertical pixels").Default(0))).
			WithPhrases("wheel scroll", "zoom with wheel", "scroll by delta", "mousewheel event", "trackpad scroll"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.Wheel(ctx, in.DeltaX, in.DeltaY); err != nil {
				return nil, err
			}
			return map[string]any{"deltaX": in.DeltaX, "deltaY": in.DeltaY}, nil
		}),
	}
}

func startTracing() tool.Tool {
	type args struct {
		Screenshots bool `json:"screenshots"`
		Snapshots   bool `json:"snapshots"`
		Sources     bool `json:"sources"`
	}
	return tool.Tool{
		Def: def("browser_start_tracing", "Start a Chrome performance trace of the tab (open it in Chrome DevTools' Performance panel or ui.perfetto.dev). Returns {tracing}.", true,
			schema.Object(schema.Boolean("screenshots", "Include screenshots in the trace").Default(false),
				schema.Boolean("snapshots", "Accepted for Playwright compatibility; the DOM is in the timeline events").Default(false),
				schema.Boolean("sources", "Accepted for Playwright compatibility").Default(false))).
			WithPhrases("performance profiling", "record perf trace", "flame chart", "profile page load", "cpu profile page", "timeline recording", "why is page slow"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.StartTracing(ctx, in.Screenshots); err != nil {
				return nil, err
			}
			return map[string]any{"tracing": true}, nil
		}),
	}
}

func stopTracing() tool.Tool {
	type args struct {
		Path string `json:"path"`
	}
	return tool.Tool{
		Def: def("browser_stop_tracing", "Stop the trace and write it (Chrome trace JSON) under tools.screenshotDir. Returns {path, events, bytes}.", true,
			schema.Object(schema.String("path", "File name, relative to tools.screenshotDir (e.g. \"trace.json\")").Required().Min(1))).
			WithPhrases("save trace file", "end profiling", "finish performance recording", "write trace json", "stop recording perf", "end the performance capture"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			path, err := outputPath("path", in.Path)
			if err != nil {
				return nil, err
			}
			data, n, err := p.StopTracing(ctx)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return nil, tool.Errorf(tool.CodeToolError, "write %s: %v", path, err)
			}
			return map[string]any{"path": path, "events": n, "bytes": len(data)}, nil
		}),
	}
}

func sessionTool(name, desc string, phrases []string, input func() []schema.Prop, run func(ctx context.Context, b *browser.Browser, in sessionArgs) (any, error)) tool.Tool {
	d := def(name, desc, true, schema.Object(input()...)).WithPhrases(phrases...)
	d.Group = SessionGroup
	return tool.Tool{Def: d, Run: tool.Typed(func(ctx context.Context, in sessionArgs, call *tool.Call) (any, error) {
		if name == "browser_session_list" {
			// Listing starts no browser (seconds) to show it has none.
			if b, ok := browser.Lookup(call.Resources); !ok || b == nil {
				return map[string]any{"sessions": []browser.SessionInfo{}, "note": "no browser runs in this worker: browser_launch or any browser tool starts one"}, nil
			}
		}
		b, err := browser.Get(ctx, call.Resources)
		if err != nil {
			return nil, err
		}
		return run(ctx, b, in)
	})}
}

// sessionArgs are the session tools' arguments.
type sessionArgs struct {
	ID       string `json:"id"`
	URL      string `json:"url"`
	Headless *bool  `json:"headless"`
	// The emulation of browser_session_new.
	Device      string               `json:"device"`
	Viewport    *browser.Size        `json:"viewport"`
	UserAgent   string               `json:"userAgent"`
	Locale      string               `json:"locale"`
	TimezoneID  string               `json:"timezoneId"`
	Geolocation *browser.Geolocation `json:"geolocation"`
	Permissions []string             `json:"permissions"`
	ColorScheme string               `json:"colorScheme"`
	Offline     bool                 `json:"offline"`
	// StorageState is a storage state file that signs the new session in.
	StorageState string `json:"storageState"`
}

func sessionNew() tool.Tool {
	t := sessionTool("browser_session_new", "Open an isolated browser session (its own cookies and storage: another user in a multi-user flow) and make it active, "+
		"optionally emulating a device (any name in Playwright's device list, such as \"iPhone 13\"), a viewport, user agent, locale, time zone, geolocation, permissions, colour scheme or offline network, "+
		"in every tab of it, tabs opened later included, and signed in from a storage state file. Returns {sessions}.",
		[]string{"second user", "incognito context", "isolated cookies", "multi-user flow", "new browser context", "log in as another user", "separate login",
			"emulate iphone", "mobile device emulation", "test in another timezone", "spoof gps location", "german locale", "playwright devices"},
		func() []schema.Prop {
			return []schema.Prop{schema.String("id", "The session's name").Required().Min(1), schema.String("url", "Open this address in it"),
				schema.Boolean("headless", "Sessions share the Igor's one browser: when given, it must match how that browser runs (browser_launch {headless} restarts it)"),
				schema.String("device", "A device of Playwright's list (its viewport, scale, user agent, mobile and touch), such as \"iPhone 13\", \"Pixel 7\", \"iPad Pro 11\", \"Desktop Chrome\""),
				schema.Of("viewport", "Viewport size in CSS pixels (overrides the device's)", schema.Object(
					schema.Integer("width", "Width in CSS pixels").Required().Min(1).Max(10_000),
					schema.Integer("height", "Height in CSS pixels").Required().Min(1).Max(10_000))),
				schema.String("userAgent", "User-Agent string (overrides the device's)"),
				schema.String("locale", "Locale for navigator.language, Intl and Accept-Language, such as \"de-DE\""),
				schema.String("timezoneId", "IANA time zone for Date and Intl, such as \"America/New_York\""),
				schema.Of("geolocation", "The position navigator.geolocation reports (grant the \"geolocation\" permission too)", schema.Object(
					schema.Number("latitude", "Latitude, -90 to 90").Required().Min(-90).Max(90),
					schema.Number("longitude", "Longitude, -180 to 180").Required().Min(-180).Max(180),
					schema.Number("accuracy", "Accuracy in metres").Default(0).Min(0))),
				schema.Array("permissions", "Permissions granted to every origin, Playwright's names: geolocation, notifications, camera, microphone, clipboard-read, clipboard-write, ...", schema.StringItems()),
				schema.String("colorScheme", "The prefers-color-scheme media feature (browser_emulate_media changes it later)").Enum("light", "dark", "no-preference"),
				schema.Boolean("offline", "Start with the network cut (browser_network_state_set changes it)").Default(false),
				schema.String("storageState", "A storage state file (Playwright's storageState JSON, from browser_storage_state or Playwright) whose cookies and localStorage the session starts with: signed in"+filenameNote),
			}
		},
		func(ctx context.Context, b *browser.Browser, in sessionArgs) (any, error) {
			if in.Headless != nil && *in.Headless != b.IsHeadless() {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"headless\": %v, but the browser the sessions share runs with headless %v; restart it with browser_launch {headless: %v} (closing its sessions), or leave headless out", *in.Headless, b.IsHeadless(), *in.Headless)
			}
			var state *browser.StorageState
			if in.StorageState != "" {
				// Read before the session opens: a bad file leaves none half made.
				var err error
				if state, _, err = readStorageState(ctx, "storageState", in.StorageState); err != nil {
					return nil, err
				}
			}
			p, err := b.NewSessionWith(ctx, in.ID, browser.SessionOptions{Device: in.Device, Viewport: in.Viewport, UserAgent: in.UserAgent, Locale: in.Locale,
				TimezoneID: in.TimezoneID, Geolocation: in.Geolocation, Permissions: in.Permissions, ColorScheme: in.ColorScheme, Offline: in.Offline})
			if err != nil {
				return nil, err
			}
			if state != nil {
				if err := b.ApplyStorageState(ctx, in.ID, *state); err != nil {
					return nil, err
				}
			}
			if in.URL != "" {
				if _, err := p.Navigate(ctx, in.URL); err != nil {
					return nil, err
				}
			}
			return map[string]any{"sessions": b.Sessions(ctx)}, nil
		})
	t.UsesRoots = true // its storageState file
	return t
}

func sessionSwitch() tool.Tool {
	return sessionTool("browser_session_switch", "Make another browser session active (the first is \"default\"). Returns {sessions}.",
		[]string{"switch user", "change browser context", "back to default session", "toggle between users", "activate session", "go to another browser context", "go back to the default browser session"},
		func() []schema.Prop {
			return []schema.Prop{schema.String("id", "The session's name").Required().Min(1)}
		},
		func(ctx context.Context, b *browser.Browser, in sessionArgs) (any, error) {
			if err := b.Switch(in.ID); err != nil {
				return nil, err
			}
			return map[string]any{"sessions": b.Sessions(ctx)}, nil
		})
}

func sessionList() tool.Tool {
	return sessionTool("browser_session_list", "List the browser sessions with their tabs' URLs and which is active. Returns {sessions}.",
		[]string{"which sessions are open", "list browser contexts", "active session", "which users are logged in", "open sessions and tabs", "which isolated browsers are open", "which browser sessions are open"},
		func() []schema.Prop { return nil },
		func(ctx context.Context, b *browser.Browser, _ sessionArgs) (any, error) {
			return map[string]any{"sessions": b.Sessions(ctx)}, nil
		})
}
