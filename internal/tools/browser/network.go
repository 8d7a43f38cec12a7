package browser

import (
	"context"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// browserRun adapts a handler on the Igor's browser (the active session),
// launching it on first use.
func browserRun[In any](f func(ctx context.Context, b *browser.Browser, in In) (any, error)) tool.Handler {
	return tool.Typed(func(ctx context.Context, in In, call *tool.Call) (any, error) {
		b, err := browser.Get(ctx, call.Resources)
		if err != nil {
			return nil, err
		}
		return f(ctx, b, in)
	})
}

// parseHeaders reads "Name: Value" strings, as @playwright/mcp's
// browser_route takes them.
func parseHeaders(arg string, lines []string) ([]browser.Header, error) {
	var out []browser.Header
	for _, h := range lines {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a header; write each as \"Name: Value\", such as \"Cache-Control: no-store\"", arg, h)
		}
		out = append(out, browser.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return out, nil
}

func route() tool.Tool {
	type args struct {
		Pattern       string   `json:"pattern"`
		Status        *int64   `json:"status"`
		Body          *string  `json:"body"`
		ContentType   string   `json:"contentType"`
		Headers       []string `json:"headers"`
		RemoveHeaders string   `json:"removeHeaders"`
	}
	return tool.Tool{
		Def: def("browser_route", "Mock the network for the active session: requests whose URL matches pattern (a Playwright glob: * within a path segment, ** across, {a,b} alternatives; "+
			"? is a literal ?) get status, body and headers without reaching the server, in every tab of the session, open or opened later, popups the pages open included (page loads, fetch, XHR, images). "+
			"While routes are active, the tabs' requests bypass service workers (as Playwright's routing does), so a worker cannot answer past a route. "+
			"A later route wins for the same URL. Without status, body or contentType the request goes on to the server with headers added and removeHeaders removed. "+
			"Returns {route: {pattern, action, status, contentType, bodyBytes, hits}, routes}.", true,
			schema.Object(
				schema.String("pattern", "URL glob matched against the whole URL, such as \"**/api/users\", \"**/api/*\" or \"**/*.{png,jpg}\"").Required().Min(1),
				schema.Integer("status", "HTTP status to answer with (default 200 when body or contentType is given)").Min(100).Max(599),
				schema.String("body", "Response body (text, or a JSON document as a string)"),
				schema.String("contentType", "Content-Type of the response, such as \"application/json\""),
				schema.Array("headers", "Headers in \"Name: Value\" form: of the mocked response, or added to the request when nothing is mocked", schema.StringItems()),
				schema.String("removeHeaders", "Comma-separated request header names to remove (when the request goes on to the server)"),
			)).
			WithPhrases("mock api response", "stub network request", "fake backend reply", "intercept requests", "make the api return 503", "return fixture json", "page.route", "simulate server error", "mock fetch call", "block images"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			hs, err := parseHeaders("headers", in.Headers)
			if err != nil {
				return nil, err
			}
			spec := browser.RouteSpec{Pattern: in.Pattern, Status: in.Status, Body: in.Body, ContentType: in.ContentType, Headers: hs}
			for _, h := range strings.Split(in.RemoveHeaders, ",") {
				if h = strings.TrimSpace(h); h != "" {
					spec.RemoveHeaders = append(spec.RemoveHeaders, h)
				}
			}
			info, err := b.AddRoute(ctx, spec)
			if err != nil {
				return nil, err
			}
			routes, err := b.Routes()
			if err != nil {
				return nil, err
			}
			return map[string]any{"route": info, "routes": len(routes)}, nil
		}),
	}
}

func unroute() tool.Tool {
	type args struct {
		Pattern string `json:"pattern"`
	}
	return tool.Tool{
		Def: def("browser_unroute", "Remove the active session's network routes of a pattern (exactly as given to browser_route), or all of them when pattern is omitted; the requests reach the server again. "+
			"Returns {removed, routes}.", true,
			schema.Object(schema.String("pattern", "The pattern of the routes to remove (omit to remove every route)"))).
			WithPhrases("stop mocking", "remove network mock", "turn off all mocks", "remove stubs", "clear routes", "restore real api", "page.unroute", "unmock requests"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			n, err := b.Unroute(ctx, in.Pattern)
			if err != nil {
				return nil, err
			}
			left, err := b.Routes()
			if err != nil {
				return nil, err
			}
			out := map[string]any{"removed": n, "routes": len(left)}
			if n == 0 && in.Pattern != "" && len(left) > 0 {
				var pats []string
				for _, r := range left {
					pats = append(pats, r.Pattern)
				}
				out["note"] = "no route has this pattern; the routes are: " + strings.Join(pats, ", ")
			}
			return out, nil
		}),
	}
}

func routeList() tool.Tool {
	return tool.Tool{
		Def: def("browser_route_list", "List the active session's network routes, oldest first (a later one wins for the same URL), with how many requests each answered. "+
			"Returns {routes: [{pattern, action, status, contentType, body, bodyBytes, headers, hits}], count}.", false, schema.Object()).
			WithPhrases("active mocks", "which requests are mocked", "list network routes", "route hit count", "what is stubbed"),
		Run: browserRun(func(_ context.Context, b *browser.Browser, _ struct{}) (any, error) {
			routes, err := b.Routes()
			if err != nil {
				return nil, err
			}
			if routes == nil {
				routes = []browser.RouteInfo{}
			}
			return map[string]any{"routes": routes, "count": len(routes)}, nil
		}),
	}
}

func networkStateSet() tool.Tool {
	type args struct {
		State string `json:"state"`
	}
	return tool.Tool{
		Def: def("browser_network_state_set", "Take the active session offline (every request fails, navigator.onLine is false) or back online, in every tab of it, open or opened later. Returns {state}.", true,
			schema.Object(schema.String("state", "\"offline\" to cut the network, \"online\" to restore it").Enum("online", "offline").Required())).
			WithPhrases("go offline", "simulate no internet", "airplane mode", "network disconnected", "back online", "test offline mode", "setOffline"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			if err := b.SetOffline(ctx, in.State == "offline"); err != nil {
				return nil, err
			}
			return map[string]any{"state": in.State}, nil
		}),
	}
}
