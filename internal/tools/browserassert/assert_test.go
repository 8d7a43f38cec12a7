package browserassert

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	browsertools "github.com/barrhawk/barrhawk/internal/tools/browser"
)

func TestMain(m *testing.M) {
	os.Exit(browsertest.Main(m))
}

const shop = `<!doctype html><html lang="en"><title>Shop</title><main><h1>Cart</h1>
<ul><li class="item">a</li><li class="item">b</li></ul><a id="next" href="/pay" aria-expanded="false">Pay</a>
<p id="status" hidden>Saved</p><button onclick="setTimeout(() => { document.getElementById('status').hidden = false; document.querySelector('ul').insertAdjacentHTML('beforeend', '<li class=item>c</li>'); }, 300)" id="save">Save</button></main></html>`

func pages(t *testing.T) *httptest.Server {
	return serve(t, map[string]string{"/shop": shop})
}

func session(t *testing.T) *tooltest.Session {
	return tooltest.NewSession(t, append(Tools(), browsertools.Tools()...))
}

func TestAssertions(t *testing.T) {
	t.Parallel()
	srv := pages(t)
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/shop"}`)
	check := func(name, args string, passed bool, mentions ...string) {
		t.Helper()
		got := tooltest.Object(t, s.MustRun(name, args))
		if got["passed"] != passed {
			t.Errorf("%s(%s): passed %v, want %v: %v", name, args, got["passed"], passed, got)
		}
		for _, m := range mentions {
			if !strings.Contains(fmt.Sprint(got["message"]), m) {
				t.Errorf("%s(%s): message %q lacks %q", name, args, got["message"], m)
			}
		}
	}
	check("assert_title", `{"expected":"Shop"}`, true)
	check("assert_title", `{"expected":"Cart","timeout":200}`, false, `"Shop"`, `"Cart"`)
	check("assert_url", `{"expected":"/shop","mode":"contains"}`, true)
	check("assert_url", `{"expected":"/shop$","mode":"matches"}`, true)
	// equals a path: the page's origin is implied, the query counts.
	check("assert_url", `{"expected":"/shop"}`, true)
	check("assert_url", `{"expected":"/shop?x=1","timeout":200}`, false, "/shop")
	check("assert_url", `{"expected":"/sho","timeout":200}`, false, "/shop")
	check("assert_url", `{"expected":"/pay","mode":"contains","timeout":200}`, false, "/shop")
	check("assert_count", `{"selector":".item","equals":2}`, true)
	check("assert_count", `{"selector":".item","min":5,"timeout":200}`, false, "matches 2 elements", "at least 5")
	check("assert_hidden", `{"selector":"#status"}`, true)
	check("assert_visible", `{"selector":"#status","timeout":200}`, false, "hidden, expected visible")
	check("assert_attribute", `{"selector":"#next","name":"aria-expanded","value":"false"}`, true)
	check("assert_attribute", `{"selector":"#next","name":"href","value":"/checkout","timeout":200}`, false, `"/pay"`)
	check("assert_attribute", `{"selector":"#next","name":"disabled","timeout":200}`, false, "no attribute disabled")
	check("assert_text", `{"selector":"h1","expected":"cart","ignoreCase":true}`, true)
	check("assert_text", `{"selector":"#missing","expected":"x","timeout":200}`, false, "matched no element")
	// Waiting: the status shows 300 ms after the click, and a third item comes.
	s.MustRun("browser_click", `{"selector":"#save"}`)
	check("assert_visible", `{"selector":"#status"}`, true)
	check("assert_text", `{"selector":"#status","expected":"Saved","mode":"equals"}`, true)
	check("assert_count", `{"selector":".item","equals":3}`, true)
	s.MustFail("assert_text", `{"selector":"h1","expected":"(","mode":"matches"}`, tool.CodeInvalidArgs)
	s.MustFail("assert_count", `{"selector":"h1"}`, tool.CodeInvalidArgs)
}

func TestFamily(t *testing.T) {
	var names []string
	for _, tl := range Tools() {
		names = append(names, tl.Name)
	}
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryBrowser, func(n string) string {
		if n == "accessibility_audit" {
			return "Accessibility"
		}
		return "Assertions"
	}, names...)
}

// An assertion whose timeout outlasts the call answers before the call
// ends, with what it found, instead of leaving the call to time out.
func TestUntilEndsBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	looks, timeout := 0, int64(60_000)
	o, _, err := until(ctx, &timeout, func() (outcome, error) {
		looks++
		return outcome{actual: "hidden"}, nil
	})
	if err != nil || o.passed || o.actual != "hidden" || looks == 0 {
		t.Errorf("until with a call deadline before its timeout: %+v after %d looks, %v", o, looks, err)
	}
	if ctx.Err() != nil {
		t.Errorf("until answered only once the call had ended")
	}
}
