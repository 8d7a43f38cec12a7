package jsrt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/dop251/goja"
)

// Browser is what ctx.browser drives: the active page of the Igor's
// browser (internal/browser provides it; jsrt does not import the engine).
// Every method runs under the call's context, so the tool's timeout and
// cancellation stop it.
type Browser interface {
	Navigate(ctx context.Context, url string) (status int64, err error)
	Click(ctx context.Context, selector string) error
	Type(ctx context.Context, selector, text string) error
	Text(ctx context.Context, selector string) (string, error)
	Screenshot(ctx context.Context) ([]byte, error)
	Evaluate(ctx context.Context, expression string) (json.RawMessage, error)
	URL(ctx context.Context) (string, error)
	Title(ctx context.Context) (string, error)
}

type browserKey struct{}

// WithBrowser gives the calls under ctx a browser for ctx.browser; get is
// called on the first use only (it may start the browser).
func WithBrowser(ctx context.Context, get func(context.Context) (Browser, error)) context.Context {
	return context.WithValue(ctx, browserKey{}, get)
}

// newBrowser makes the ctx.browser object: navigate(url) → status,
// click(selector), type(selector, text), text(selector?) → string,
// screenshot() → base64 PNG, evaluate(expression) → value, url(), title().
// The calls block the handler until the page answers (as ctx.fs does).
// Without the browser permission every method throws.
func (rt *jsRuntime) newBrowser() goja.Value {
	vm := rt.vm
	o := vm.NewObject()
	def := func(name string, f func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error)) {
		_ = o.Set(name, func(call goja.FunctionCall) goja.Value {
			if !rt.m.perms.Browser {
				panic(rt.forbidden(`browser permission not declared: add permissions: ["browser"] to the tool`))
			}
			cs := rt.cur
			if cs == nil {
				panic(rt.newError("ctx.browser is usable only during a call"))
			}
			get, _ := cs.ctx.Value(browserKey{}).(func(context.Context) (Browser, error))
			if get == nil {
				panic(rt.newError("ctx.browser: no browser in this process (the tool runs outside an Igor)"))
			}
			b, err := get(cs.ctx)
			if err == nil {
				var v any
				v, err = f(cs.ctx, b, call)
				if err == nil {
					return vm.ToValue(v)
				}
			}
			var te *tool.Error
			if errors.As(err, &te) {
				panic(rt.newError("ctx.browser." + name + ": " + te.Code + ": " + te.Message))
			}
			panic(rt.newError("ctx.browser." + name + ": " + err.Error()))
		})
	}
	str := func(call goja.FunctionCall, i int, what string) string {
		a := call.Argument(i)
		if !isString(a) {
			panic(vm.NewTypeError("ctx.browser: " + what + " must be a string"))
		}
		return a.String()
	}
	def("navigate", func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error) {
		return b.Navigate(ctx, str(call, 0, "the url"))
	})
	def("click", func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error) {
		return nil, b.Click(ctx, str(call, 0, "the selector"))
	})
	def("type", func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error) {
		return nil, b.Type(ctx, str(call, 0, "the selector"), str(call, 1, "the text"))
	})
	def("text", func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error) {
		sel := ""
		if !goja.IsUndefined(call.Argument(0)) {
			sel = str(call, 0, "the selector")
		}
		return b.Text(ctx, sel)
	})
	def("screenshot", func(ctx context.Context, b Browser, _ goja.FunctionCall) (any, error) {
		png, err := b.Screenshot(ctx)
		return base64.StdEncoding.EncodeToString(png), err
	})
	def("evaluate", func(ctx context.Context, b Browser, call goja.FunctionCall) (any, error) {
		raw, err := b.Evaluate(ctx, str(call, 0, "the expression"))
		if err != nil {
			return nil, err
		}
		v, err := rt.jsonParse(goja.Undefined(), vm.ToValue(string(raw)))
		return v, err
	})
	def("url", func(ctx context.Context, b Browser, _ goja.FunctionCall) (any, error) { return b.URL(ctx) })
	def("title", func(ctx context.Context, b Browser, _ goja.FunctionCall) (any, error) { return b.Title(ctx) })
	return o
}
