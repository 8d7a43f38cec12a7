package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// SetFiles sets the files of a file input, as a user choosing them would.
func (p *Page) SetFiles(ctx context.Context, sel string, files []string, o FindOptions) (*Probe, error) {
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, err
	}
	err = p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.__bh.pick(" + jsString(pr.Matched) + ")"})
		if err != nil {
			return err
		}
		if res.Result == nil || res.Result.ObjectID == "" {
			return fmt.Errorf("the element is gone")
		}
		var isFile bool
		chk, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "(() => { const el = window.__bh.pick(" + jsString(pr.Matched) + "); return el.tagName === 'INPUT' && el.type === 'file'; })()", ReturnByValue: &yes})
		if err == nil && chk.Result != nil {
			isFile = string(chk.Result.Value) == "true"
		}
		if !isFile {
			return tool.Errorf(tool.CodeInvalidArgs, "selector %q matched an element that is not a file input (<input type=\"file\">)", sel)
		}
		_, err = chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: res.Result.ObjectID})
		return err
	}))
	return pr, describe("set the files", err)
}

// PDF prints the page.
func (p *Page) PDF(ctx context.Context, landscape, background bool, paper string) ([]byte, error) {
	var opts []chromedp.PDFOption
	if landscape {
		opts = append(opts, chromedp.PDFLandscape())
	}
	if background {
		opts = append(opts, chromedp.PDFPrintBackground())
	}
	switch paper {
	case "A4", "":
		opts = append(opts, chromedp.PDFPaper(chromedp.PaperA4))
	case "Letter":
		opts = append(opts, chromedp.PDFPaper(chromedp.PaperLetter))
	case "Legal":
		opts = append(opts, chromedp.PDFPaper(chromedp.PaperLegal))
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"format\": %q; use A4, Letter or Legal", paper)
	}
	var buf []byte
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		b, err := chromedp.PrintToPDF(opts...)(ctx, t)
		buf = b
		return err
	}))
	return buf, describe("print to PDF", err)
}

// StartTracing starts a Chrome trace of the tab (the Performance panel's
// format), with screenshots when asked.
func (p *Page) StartTracing(ctx context.Context, screenshots bool) error {
	p.mu.Lock()
	if p.tracing {
		p.mu.Unlock()
		return tool.Errorf(tool.CodeInvalidArgs, "tracing is already on; stop it with browser_stop_tracing first")
	}
	p.tracing, p.trace, p.traceDone = true, nil, make(chan struct{})
	p.mu.Unlock()
	cats := []string{"devtools.timeline", "v8.execute", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame", "blink.user_timing", "loading", "latencyInfo"}
	if screenshots {
		cats = append(cats, "disabled-by-default-devtools.screenshot")
	}
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TransferMode: tracing.StartTransferModeReportEvents, TraceConfig: &tracing.TraceConfig{IncludedCategories: cats}})
		return err
	}))
	if err != nil {
		p.mu.Lock()
		p.tracing = false
		p.mu.Unlock()
	}
	return describe("start tracing", err)
}

// StopTracing ends the trace and returns it as Chrome's trace JSON
// ({"traceEvents": [...]}).
func (p *Page) StopTracing(ctx context.Context) ([]byte, int, error) {
	p.mu.Lock()
	if !p.tracing {
		p.mu.Unlock()
		return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "tracing is not on; start it with browser_start_tracing")
	}
	done := p.traceDone
	p.mu.Unlock()
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, tracing.End, struct{}{})
		return err
	}))
	if err != nil {
		return nil, 0, describe("stop tracing", err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		return nil, 0, tool.Errorf(tool.CodeTimeout, "the browser did not finish the trace within 30 s")
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tracing = false
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i, ev := range p.trace {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(ev)
	}
	b.WriteString("]}")
	n := len(p.trace)
	p.trace = nil
	return b.Bytes(), n, nil
}

// SetRecording turns the recording of network requests on or off.
func (p *Page) SetRecording(on bool) {
	p.mu.Lock()
	p.paused = !on
	p.mu.Unlock()
}

// Script is the page API of dynamic tools' ctx.browser (jsrt.Browser): the
// active tab of the Igor's browser, with the tools' default waits.
type Script struct{ p *Page }

// ForScript returns the ctx.browser API over the Igor's browser, starting
// it on first use.
func ForScript(ctx context.Context, res *tool.Resources) (*Script, error) {
	p, err := ActivePage(ctx, res)
	if err != nil {
		return nil, err
	}
	return &Script{p: p}, nil
}

// Navigate opens url.
func (s *Script) Navigate(ctx context.Context, url string) (int64, error) {
	return s.p.Navigate(ctx, url)
}

// Click clicks the element once it is actionable.
func (s *Script) Click(ctx context.Context, sel string) error {
	_, err := s.p.Click(ctx, sel, ClickOptions{})
	return err
}

// Type types text into the element, clearing it first.
func (s *Script) Type(ctx context.Context, sel, text string) error {
	_, err := s.p.Type(ctx, sel, text, true, false, FindOptions{})
	return err
}

// Text is the element's (or the page's) visible text.
func (s *Script) Text(ctx context.Context, sel string) (string, error) {
	return s.p.Text(ctx, sel, FindOptions{})
}

// Screenshot is a PNG of the viewport.
func (s *Script) Screenshot(ctx context.Context) ([]byte, error) {
	return s.p.Screenshot(ctx, false, "", FindOptions{})
}

// Evaluate runs JavaScript in the page.
func (s *Script) Evaluate(ctx context.Context, expr string) (json.RawMessage, error) {
	return s.p.Evaluate(ctx, expr, nil)
}

// URL is the page's address.
func (s *Script) URL(ctx context.Context) (string, error) { return s.p.URL(ctx) }

// Title is the page's title.
func (s *Script) Title(ctx context.Context) (string, error) { return s.p.Title(ctx) }
